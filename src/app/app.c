#include "app/app.h"

#include <stdio.h>

int app_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	puts("gputaskman " GTM_VERSION);
	return 0;
}
