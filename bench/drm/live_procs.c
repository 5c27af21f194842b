#include "live_procs.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* /dev here is a tmpfs of this mount namespace only */
static int make_dev(void)
{
	if (mount("bench-dev", "/dev", "tmpfs", 0, "size=1m") != 0 || mkdir("/dev/dri", 0755) != 0)
		return -1;
	const char *const files[] = {"/dev/null", "/dev/dri/renderD128", "/dev/dri/card0"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		int fd = open(files[i], O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

/* One fd of the mix the replayed tree has; -1 on failure. */
static int open_plain(int f, const char *log)
{
	switch (f % 5) {
	case 0: return open("/dev/null", O_RDONLY);
	case 1: return socket(AF_UNIX, SOCK_STREAM, 0);
	case 2: return eventfd(0, 0);
	case 3: return open(log, O_RDONLY);
	default: return open("/bin/sh", O_RDONLY);
	}
}

/* The child: exactly fds 0..fds-1, then stopped until killed. */
static void child(int fds, bool drm, const char *log)
{
	close_range(0, ~0u, 0);
	for (int f = 0; f < fds; f++) {
		bool last2 = drm && f >= fds - 2;
		int fd = last2 ? open(f == fds - 1 ? "/dev/dri/renderD128" : "/dev/dri/card0", O_RDONLY)
			       : open_plain(f, log);
		if (fd != f)
			_exit(1);
	}
	for (;;)
		raise(SIGSTOP);
}

pid_t *live_procs_start(int procs, int fds, int drm_procs)
{
	const char *log = "/dev/app.log"; /* in the tmpfs below */
	if (getpid() != 1 || make_dev() != 0) {
		fprintf(stderr, "--live: needs its own PID and mount namespace (unshare -mpf --mount-proc): %s\n",
			getpid() != 1 ? "not PID 1" : strerror(errno));
		return NULL;
	}
	int lf = open(log, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (lf >= 0)
		close(lf);
	pid_t *pids = calloc((size_t)procs, sizeof *pids);
	for (int i = 0; pids && i < procs; i++) {
		int st;
		pids[i] = fork();
		if (pids[i] == 0)
			child(fds, i < drm_procs, log);
		if (pids[i] < 0 || waitpid(pids[i], &st, WUNTRACED) != pids[i] || !WIFSTOPPED(st)) {
			fprintf(stderr, "--live: stand-in %d did not start\n", i);
			live_procs_stop(pids, i + (pids[i] > 0));
			return NULL;
		}
	}
	unlink(log);
	return pids;
}

void live_procs_stop(pid_t *pids, int procs)
{
	for (int i = 0; i < procs; i++)
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
	free(pids);
}
