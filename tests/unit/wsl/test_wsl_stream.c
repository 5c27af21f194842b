/* The host-stream manager's file descriptors when the system has none to
 * give (RLIMIT_NOFILE lowered to what is open): a failed wake pipe leaves
 * nothing for stop to close (not fd 0), and a helper start that fails
 * partway through its pipes keeps none of them. Bad lines are counted with
 * their reason: a line with a record refused alone, and a helper that never
 * ends its line (given up on, restarted). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "views/host_line.h"
#include "wsl_stream.h"

/* A helper script printing `text` (printf format) and then waiting. */
static void run_script(char *path, size_t cap, const char *text)
{
	snprintf(path, cap, "/tmp/gtm-wsl-stream-%d.sh", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\nprintf '%s'\nexec sleep 60\n", text);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	setenv("GPUTASKMAN_WSL_RUN", path, 1);
}

/* Waits (up to 60 s: no timing is asserted) until a bad line is counted. */
static void wait_bad(struct wsl_stream *w, struct gtm_host_stream *st)
{
	for (int i = 0; i < 600; i++) {
		wsl_stream_get(w, NULL, st);
		if (st->bad_lines)
			return;
		nanosleep(&(struct timespec){0, 100000000}, NULL);
	}
	fail_msg("no bad line counted");
}

static void record_refused(void **state)
{
	(void)state;
	char path[64], words[512];
	struct gtm_host_stream st;
	struct wsl_host_sample *smp = calloc(1, sizeof *smp);
	run_script(path, sizeof path,
		   "GTMH1 seq=1 vmwp=42;V luid=0x00000000_0x0000D1A5 local=5;P pid=9 name=a.exe local=3\\n");
	struct wsl_stream *w = wsl_stream_start(1.0);
	wait_bad(w, &st);
	assert_true(wsl_stream_get(w, smp, &st)); /* the line is used */
	wsl_stream_stop(w);
	unsetenv("GPUTASKMAN_WSL_RUN");
	unlink(path);
	assert_string_equal(st.state, "on");
	assert_int_equal(st.bad_lines, 1);
	assert_string_equal(st.last_bad, "V record without Non Local Usage");
	assert_int_equal(smp->n_procs, 1);
	assert_true(smp->adapters[0].vm_incomplete);
	host_stream_words(&st, words, sizeof words);
	assert_non_null(strstr(words, ", 1 bad line (last: V record without Non Local Usage)"));
	free(smp);
}

/* Bytes and never a newline: given up on after the first line's grace,
 * counted and said, where the header said "starting" for ever. */
static void no_newline(void **state)
{
	(void)state;
	char path[64], words[512];
	struct gtm_host_stream st;
	run_script(path, sizeof path, "GTMH1 seq=1 vmwp=42");
	struct wsl_stream *w = wsl_stream_start(0.1);
	wait_bad(w, &st);
	wsl_stream_stop(w);
	unsetenv("GPUTASKMAN_WSL_RUN");
	unlink(path);
	assert_int_equal(st.bad_lines, 1);
	assert_string_equal(st.last_bad, "no newline after 19 bytes");
	str_copy(st.state, "starting", sizeof st.state); /* the next helper's start */
	host_stream_words(&st, words, sizeof words);
	assert_string_equal(words, "host: 1 bad line (last: no newline after 19 bytes)");
}

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own */
}

/* Lets `room` more descriptors be opened; returns the limit to restore. */
static struct rlimit allow_only(int room)
{
	struct rlimit old, low;
	int lowest = dup(0); /* the lowest free number: every one below it is open */
	assert_true(lowest >= 0);
	close(lowest);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = (rlim_t)(lowest + room);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	return old;
}

static void wake_pipe_failed(void **state)
{
	(void)state;
	struct gtm_host_stream st;
	struct rlimit old = allow_only(0);
	struct wsl_stream *w = wsl_stream_start(1.0);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	wsl_stream_get(w, NULL, &st);
	assert_string_equal(st.state, "failed");
	wsl_stream_stop(w);
	assert_true(fcntl(0, F_GETFD) != -1); /* stdin was not closed for the pipe that never was */
}

static void helper_pipes_failed(void **state)
{
	(void)state;
	struct gtm_host_stream st;
	setenv("GPUTASKMAN_WSL_RUN", "/bin/true", 1);
	int before = open_fds();
	struct rlimit old = allow_only(2 + 3); /* the wake pipe, the helper's stdin pipe, not its stdout's */
	struct wsl_stream *w = wsl_stream_start(1.0);
	assert_false(wsl_stream_wait(w, 3ull * 1000000000ull));
	wsl_stream_get(w, NULL, &st);
	int during = open_fds();
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	wsl_stream_stop(w);
	unsetenv("GPUTASKMAN_WSL_RUN");
	assert_string_equal(st.state, "failed");
	assert_non_null(strstr(st.why, "cannot start the helper"));
	if (during != before + 2)
		fail_msg("%d descriptors open while failed, %d before: only the wake pipe's 2 may be", during, before);
	assert_int_equal(open_fds(), before);
}

int main(void)
{
	if (fcntl(0, F_GETFD) == -1 && open("/dev/null", O_RDONLY) != 0) /* fd 0 must be there to be checked */
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wake_pipe_failed),
		cmocka_unit_test(helper_pipes_failed),
		cmocka_unit_test(record_refused),
		cmocka_unit_test(no_newline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
