/* footprint(1)'s worker thread (fp_worker.h). */
#include "fp_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "footprint.h"
#include "fp_sched.h"
#include "platform/platform_time.h"

#define FP_PATH "/usr/bin/footprint"
#define FP_PER_RUN 16                  /* PIDs in one run (about 70 ms each) */
#define FP_OUT_MAX (4u << 20)          /* its output read at most */
#define FP_RUN_NS (20ull * 1000000000ull) /* a run killed past this */
#define FP_TICK_NS (250ull * 1000000ull)  /* the schedule looked at this often */

extern char **environ;

struct fp_worker {
	struct os_monitor *mon;
	pthread_t thread;
	bool stop;
	unsigned rounds;      /* finished runs (fp_worker_settle) */
	struct fp_sched sched;
	struct fp_result parsed;
};

/* Runs footprint over pids; its stdout and stderr (refusals) into *out.
 * Returns the bytes read, or -1 when it could not start. */
static ssize_t run_footprint(const uint32_t *pids, size_t n, char **out)
{
	char num[FP_PER_RUN][16];
	char *argv[3 + 2 * FP_PER_RUN + 1] = {"footprint", "-f", "bytes"};
	int k = 3, fd[2];
	for (size_t i = 0; i < n; i++) {
		snprintf(num[i], sizeof num[i], "%u", pids[i]);
		argv[k++] = "-p";
		argv[k++] = num[i];
	}
	argv[k] = NULL;
	if (pipe(fd) != 0)
		return -1;
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	posix_spawn_file_actions_addclose(&fa, fd[1]);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	pid_t child;
	int rc = posix_spawn(&child, FP_PATH, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc != 0) {
		close(fd[0]);
		return -1;
	}
	char *buf = xmalloc(FP_OUT_MAX + 1);
	size_t len = 0;
	uint64_t until = now_monotonic_ns() + FP_RUN_NS;
	for (;;) {
		uint64_t now = now_monotonic_ns();
		struct pollfd p = {.fd = fd[0], .events = POLLIN};
		if (now >= until || poll(&p, 1, (int)((until - now) / 1000000ull) + 1) == 0) {
			kill(child, SIGKILL); /* stuck: what it printed is read as far as it went */
			break;
		}
		ssize_t got = read(fd[0], buf + len, FP_OUT_MAX - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
		if (len == FP_OUT_MAX)
			break;
	}
	close(fd[0]);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;
}

static void *loop(void *arg)
{
	struct fp_worker *w = arg;
	uint32_t pids[FP_PER_RUN];

	os_monitor_lock(w->mon);
	while (!w->stop) {
		size_t n = fp_sched_due(&w->sched, now_monotonic_ns(), pids, FP_PER_RUN);
		if (n == 0) {
			os_monitor_wait_until(w->mon, now_monotonic_ns() + FP_TICK_NS);
			continue;
		}
		os_monitor_unlock(w->mon);
		char *out = NULL;
		ssize_t len = run_footprint(pids, n, &out);
		bool ran = len >= 0 && footprint_parse(out, (size_t)len, &w->parsed) >= 0;
		free(out);
		os_monitor_lock(w->mon);
		fp_sched_record(&w->sched, pids, n, ran ? &w->parsed : NULL, now_monotonic_ns());
		w->rounds++;
		os_monitor_wake(w->mon);
	}
	os_monitor_unlock(w->mon);
	return NULL;
}

struct fp_worker *fp_worker_start(char *why, size_t cap)
{
	struct fp_worker *w = xcalloc(1, sizeof *w);
	if (!(w->mon = os_monitor_new(why, cap))) {
		free(w);
		return NULL;
	}
	int rc = pthread_create(&w->thread, NULL, loop, w);
	if (rc != 0) {
		snprintf(why, cap, "no thread for footprint: %s", strerror(rc));
		os_monitor_free(w->mon);
		free(w);
		return NULL;
	}
	return w;
}

void fp_worker_stop(struct fp_worker *w)
{
	if (!w)
		return;
	os_monitor_lock(w->mon);
	w->stop = true;
	os_monitor_wake(w->mon);
	os_monitor_unlock(w->mon);
	pthread_join(w->thread, NULL);
	os_monitor_free(w->mon);
	free(w);
}

void fp_worker_want(struct fp_worker *w, uint32_t pid, uint64_t start, bool busy)
{
	os_monitor_lock(w->mon);
	fp_sched_want(&w->sched, pid, start, busy, now_monotonic_ns());
	os_monitor_wake(w->mon);
	os_monitor_unlock(w->mon);
}

bool fp_worker_get(struct fp_worker *w, uint32_t pid, uint64_t start, uint64_t *size, bool *denied)
{
	os_monitor_lock(w->mon);
	bool ok = fp_sched_get(&w->sched, pid, start, size, denied);
	os_monitor_unlock(w->mon);
	return ok;
}

void fp_worker_settle(struct fp_worker *w, uint64_t timeout_ns)
{
	uint64_t until = now_monotonic_ns() + timeout_ns;
	os_monitor_lock(w->mon);
	for (;;) {
		bool pending = false;
		for (int i = 0; i < FP_SCHED_MAX && !pending; i++) {
			const struct fp_entry *e = &w->sched.e[i];
			pending = e->used && !e->has_size && !e->denied && e->fails == 0;
		}
		if (!pending || os_monitor_wait_until(w->mon, until))
			break;
	}
	os_monitor_unlock(w->mon);
}
