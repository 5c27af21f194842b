/* The host-stream manager's file descriptors when the system has none to
 * give (RLIMIT_NOFILE lowered to what is open): a failed wake pipe leaves
 * nothing for stop to close (not fd 0), and a helper start that fails
 * partway through its pipes keeps none of them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "wsl_stream.h"

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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
