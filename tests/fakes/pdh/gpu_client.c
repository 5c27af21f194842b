/* A process for the PDH double's instances to name: prints "ready <pid>"
 * and sleeps until killed (at most the seconds given, default 60). Copies
 * named dwm.exe or csrss.exe stand for Windows's own processes that hold
 * shared surfaces, which Wine does not run. */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 60;

	printf("ready %lu\n", (unsigned long)GetCurrentProcessId());
	fflush(stdout);
	Sleep((DWORD)(secs > 0 ? secs : 60) * 1000);
	return 0;
}
