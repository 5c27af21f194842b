/* argv → command. */
#include <stdio.h>

#include "app/app.h"

int main(int argc, char **argv)
{
	return app_main(argc, argv);
}
