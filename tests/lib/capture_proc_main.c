/* capture_proc ROOT [PID...]: the system files and each PID into the replay
 * tree ROOT (proc_capture.h), for the e2e scripts. A PID that is gone is
 * named on stderr and skipped; the exit status is 2 only for bad usage. */
#include <stdio.h>
#include <stdlib.h>

#include "proc_capture.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: capture_proc ROOT [PID...]\n");
		return 2;
	}
	tu_capture_system(argv[1]);
	for (int i = 2; i < argc; i++)
		if (tu_capture_pid(argv[1], atoi(argv[i])) != 0)
			fprintf(stderr, "capture_proc: PID %s is gone\n", argv[i]);
	return 0;
}
