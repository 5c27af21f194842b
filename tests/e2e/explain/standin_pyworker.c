/* A stand-in for a vLLM or SGLang GPU worker: sets its name (comm) to
 * --comm NAME (vLLM titles its workers "VLLM::Worker_TP0", which the kernel
 * keeps as 15 bytes), appends each --line TEXT to --log FILE with "@PID@"
 * replaced by its own PID, points its stdout and stderr at that file (as a
 * shell redirection does), writes --ready FILE and waits (at most 60 s). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *log = NULL, *ready = NULL;
	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--log"))
			log = argv[++i];
		else if (!strcmp(argv[i], "--ready"))
			ready = argv[++i];
		else if (!strcmp(argv[i], "--comm"))
			prctl(PR_SET_NAME, argv[++i], 0, 0, 0);
	}
	int fd = log ? open(log, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
	if (fd < 0 || !ready || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		return 1;
	for (int i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "--line"))
			continue;
		const char *l = argv[++i], *at = strstr(l, "@PID@");
		if (at)
			dprintf(1, "%.*s%d%s\n", (int)(at - l), l, (int)getpid(), at + 5);
		else
			dprintf(1, "%s\n", l);
	}
	FILE *f = fopen(ready, "w");
	if (!f || fclose(f) != 0)
		return 1;
	for (int i = 0; i < 600; i++)
		usleep(100000);
	return 0;
}
