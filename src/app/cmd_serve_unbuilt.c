/* `serve` in a build without its HTTP seam for the OS: the Windows build
 * until src/serve/ gains a Windows socket and signal layer. It says so. */
#include <stdio.h>

int cmd_serve(int argc, char **argv);

int cmd_serve(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "gputaskman: serve is not built into this Windows build yet "
			"(its socket and signal layer is POSIX only); use --once or --json\n");
	return 2;
}
