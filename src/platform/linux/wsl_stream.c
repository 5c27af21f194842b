/* The host stream manager (wsl_stream.h): spawning, reading, restarting. */
#include "wsl_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "wsl_helper.h"

#define FIRST_LINE_GRACE_NS (10ull * 1000000000ull) /* PowerShell starts in ~2.5 s, Get-Counter ~1 s */
#define BACKOFF_MIN_NS (500ull * 1000000ull)
#define BACKOFF_MAX_NS (30ull * 1000000000ull)

struct wsl_stream {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	int wake[2];              /* stop: wakes the reader's poll */
	_Atomic bool stop;
	uint64_t interval_ns;

	/* under mu */
	struct wsl_host_sample sample;
	bool have, fresh, settled; /* settled: a sample came, or a failure with no other attempt due */
	uint64_t retry_at_ns;      /* failed, another helper due then (the fallback's way); 0: none */
	struct gtm_host_stream st;

	/* the reader's own */
	struct wsl_linebuf lines;
	struct wsl_host_sample scratch;
	pid_t child;
	int in_fd, out_fd, err_fd;
	char err_tail[96];
	uint64_t last_line_ns;
	bool got_line;
};

/* retry_at_ns (failed, stale): when a helper other than the one that failed
 * (the PowerShell fallback, or the exe's second try before it) starts; 0 when
 * none is due, and a one-shot wait is over. */
static void set_state_retry(struct wsl_stream *s, const char *state, const char *why, uint64_t retry_at_ns)
{
	pthread_mutex_lock(&s->mu);
	str_copy(s->st.state, state, sizeof s->st.state);
	str_copy(s->st.why, why ? why : "", sizeof s->st.why);
	if (strcmp(state, "starting") && strcmp(state, "on"))
		s->fresh = false;
	s->retry_at_ns = retry_at_ns;
	if ((!strcmp(state, "failed") || !strcmp(state, "stale")) && !retry_at_ns)
		s->settled = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
}

static void set_state(struct wsl_stream *s, const char *state, const char *why)
{
	set_state_retry(s, state, why, 0);
}

/* Under mu. */
static void count_bad(struct wsl_stream *s, const char *why)
{
	s->st.bad_lines++;
	str_copy(s->st.last_bad, why, sizeof s->st.last_bad);
}

static void on_line(void *arg, const char *line, size_t len)
{
	struct wsl_stream *s = arg;
	char err[128];
	int rc = wsl_line_parse(line, len, &s->scratch, err, sizeof err);

	pthread_mutex_lock(&s->mu);
	s->st.lines++;
	if (rc == 0 && s->scratch.n_refused)
		count_bad(s, s->scratch.refused_why); /* the rest of the line is read */
	if (rc == 0) {
		s->sample = s->scratch;
		s->have = s->fresh = s->settled = true;
		s->st.seq = s->sample.seq;
		s->st.n_vms = s->sample.n_vms;
		str_copy(s->st.state, s->sample.state == WSL_HELPER_ERROR ? "failed" : "on", sizeof s->st.state);
		str_copy(s->st.why, s->sample.why, sizeof s->st.why);
		pthread_cond_broadcast(&s->cond);
	} else {
		count_bad(s, err); /* garbage or truncated: skipped, counted */
	}
	pthread_mutex_unlock(&s->mu);
	s->got_line = true;
	s->last_line_ns = now_monotonic_ns();
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void close_pipes(int p[3][2])
{
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 2; k++)
			close_fd(&p[i][k]);
}

static int spawn(struct wsl_stream *s, struct wsl_cmd *c)
{
	int p[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}}; /* stdin, stdout, stderr */
	int *in = p[0], *out = p[1], *err = p[2];
	pid_t parent = getpid();

	for (int i = 0; i < 3; i++)
		if (pipe2(p[i], O_CLOEXEC) != 0) {
			int e = errno;
			close_pipes(p); /* none of a partial set is kept */
			errno = e;
			return -1;
		}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close_pipes(p);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0); /* its own group: ended as one, interop's relay with it */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent) /* the parent died before prctl: no signal will come */
			_exit(125);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (c->cwd[0] && chdir(c->cwd) != 0)
			_exit(126);
		execv(c->argv[0], c->argv);
		_exit(127);
	}
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	s->child = pid;
	s->in_fd = in[1];
	s->out_fd = out[0];
	s->err_fd = err[0];
	return 0;
}

/* Reaps the child within about ms; false when it is still there. */
static bool reap_within(pid_t child, int *status, int ms)
{
	for (int i = 0; i <= ms / 10; i++) {
		if (waitpid(child, status, WNOHANG) != 0)
			return true;
		usleep(10000);
	}
	return false;
}

static void end_child(struct wsl_stream *s, char *why, size_t cap)
{
	int status = 0;

	close_fd(&s->in_fd); /* the helper's cue: stdin closed */
	kill(-s->child, SIGTERM);
	if (!reap_within(s->child, &status, 1000)) {
		kill(-s->child, SIGKILL);
		/* bounded: a child stuck in the kernel (interop's relay) must not
		 * hang the reader or gputaskman's exit; it is left unreaped */
		if (!reap_within(s->child, &status, 2000))
			status = -1;
	}
	close_fd(&s->out_fd);
	close_fd(&s->err_fd);
	if (why && !why[0])
		snprintf(why, cap, "%s exited (status %d)%s%s", s->st.helper[0] ? s->st.helper : "helper",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1, s->err_tail[0] ? ": " : "", s->err_tail);
	s->child = 0;
}

/* Keeps the last line of the helper's stderr for the header's "failed: why".
 * At its end (EOF, an error) the pipe is closed and no longer polled: a
 * hung-up pipe polls ready for ever, and the reader would spin. */
static void read_err(struct wsl_stream *s)
{
	char buf[512];
	ssize_t n = read(s->err_fd, buf, sizeof buf - 1);
	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		close_fd(&s->err_fd);
		return;
	}
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	char *last = strrchr(buf, '\n');
	str_copy(s->err_tail, last ? last + 1 : buf, sizeof s->err_tail);
}

/* The helper is given up on while a line is under way (bytes and no newline,
 * or an over-long line still being dropped): that is a bad line, said. */
static void unfinished_line(struct wsl_stream *s)
{
	char why[64];

	if (!s->lines.len && !s->lines.skipping)
		return;
	if (s->lines.skipping)
		snprintf(why, sizeof why, "no newline after 65536 bytes");
	else
		snprintf(why, sizeof why, "no newline after %zu bytes", s->lines.len);
	pthread_mutex_lock(&s->mu);
	count_bad(s, why);
	pthread_mutex_unlock(&s->mu);
}

/* Reads the helper until EOF, silence or stop. Returns why it ended in why. */
static void read_helper(struct wsl_stream *s, char *why, size_t cap)
{
	char buf[16384];
	uint64_t start = now_monotonic_ns();

	s->got_line = false;
	s->last_line_ns = start;
	memset(&s->lines, 0, sizeof s->lines);
	while (!s->stop) {
		uint64_t limit = s->got_line ? 3 * s->interval_ns : FIRST_LINE_GRACE_NS + 3 * s->interval_ns;
		uint64_t now = now_monotonic_ns(), since = now - s->last_line_ns;
		if (since >= limit) {
			snprintf(why, cap, s->got_line ? "helper silent for 3 intervals" : "helper never answered (%llu s)",
				 (unsigned long long)(limit / 1000000000ull));
			unfinished_line(s);
			return;
		}
		struct pollfd p[3] = {{s->out_fd, POLLIN, 0}, {s->err_fd, POLLIN, 0}, {s->wake[0], POLLIN, 0}};
		int ms = (int)((limit - since) / 1000000ull) + 1;
		if (poll(p, 3, ms) < 0 && errno != EINTR)
			return;
		if (p[1].revents & (POLLIN | POLLHUP | POLLERR))
			read_err(s);
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = read(s->out_fd, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				if (s->err_fd >= 0 && (p[1].revents & POLLIN))
					read_err(s);
				return; /* EOF: why is filled by end_child */
			}
			wsl_linebuf_feed(&s->lines, buf, (size_t)n, on_line, s);
			pthread_mutex_lock(&s->mu);
			if (s->lines.too_long) {
				s->st.bad_lines += s->lines.too_long - 1;
				count_bad(s, "a line over 65536 bytes");
			}
			s->lines.too_long = 0;
			pthread_mutex_unlock(&s->mu);
		}
	}
}

/* Sleeps up to ns unless stopped. */
static void nap(struct wsl_stream *s, uint64_t ns)
{
	struct pollfd p = {s->wake[0], POLLIN, 0};
	if (!s->stop)
		poll(&p, 1, (int)(ns / 1000000ull));
}

static void *stream_main(void *arg)
{
	struct wsl_stream *s = arg;
	uint64_t backoff = BACKOFF_MIN_NS;
	int quick_failures = 0;
	bool first = true;
	char exe_failed[256] = ""; /* why the helper exe's last run ended without a line */

	while (!s->stop) {
		struct wsl_cmd c;
		char why[512] = "";
		if (wsl_helper_command(&c, (unsigned)(s->interval_ns / 1000000ull), quick_failures >= 2 ? exe_failed : NULL,
				       why, sizeof why) != 0 ||
		    spawn(s, &c) != 0) {
			if (!why[0])
				snprintf(why, sizeof why, "cannot start the helper: %s", strerror(errno));
			set_state(s, "failed", why);
			wsl_helper_command_free(&c);
			nap(s, backoff);
			backoff = backoff * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : backoff * 2;
			continue;
		}
		pthread_mutex_lock(&s->mu);
		str_copy(s->st.helper, c.what, sizeof s->st.helper);
		if (!first)
			s->st.restarts++;
		pthread_mutex_unlock(&s->mu);
		if (first || !s->have)
			set_state(s, "starting", NULL);
		first = false;
		read_helper(s, why, sizeof why);
		bool answered = s->got_line;
		s->err_tail[0] = '\0';
		end_child(s, why, sizeof why);
		wsl_helper_command_free(&c);
		if (s->stop)
			break;
		quick_failures = answered ? 0 : quick_failures + 1;
		backoff = answered ? BACKOFF_MIN_NS : (backoff * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : backoff * 2);
		/* the exe that never answered is tried again, then the fallback: a
		 * one-shot wait is not over while that is due */
		bool fallback_ahead = !answered && !strcmp(c.what, WSL_HELPER_EXE_WHAT);
		if (fallback_ahead)
			str_copy(exe_failed, why, sizeof exe_failed);
		set_state_retry(s, s->have ? "stale" : "failed", why, fallback_ahead ? now_monotonic_ns() + backoff : 0);
		nap(s, backoff);
	}
	return NULL;
}

struct wsl_stream *wsl_stream_start(double interval_s)
{
	struct wsl_stream *s = xcalloc(1, sizeof *s);

	s->interval_ns = (uint64_t)(interval_s * 1e9);
	if (s->interval_ns < 100000000ull)
		s->interval_ns = 100000000ull;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->st.present = true;
	str_copy(s->st.state, "starting", sizeof s->st.state);
	s->in_fd = s->out_fd = s->err_fd = -1;
	if (pipe2(s->wake, O_CLOEXEC) != 0)
		s->wake[0] = s->wake[1] = -1; /* never fd 0: stop closes these */
	if (s->wake[0] < 0 || pthread_create(&s->thread, NULL, stream_main, s) != 0) {
		str_copy(s->st.state, "failed", sizeof s->st.state);
		str_copy(s->st.why, "cannot start the reader thread", sizeof s->st.why);
		s->settled = true;
		s->thread = 0;
	}
	return s;
}

bool wsl_stream_get(struct wsl_stream *s, struct wsl_host_sample *out, struct gtm_host_stream *st)
{
	bool fresh;

	pthread_mutex_lock(&s->mu);
	*st = s->st;
	if (s->have && out)
		*out = s->sample;
	fresh = s->have && s->fresh;
	pthread_mutex_unlock(&s->mu);
	return fresh;
}

/* The pthread condition's clock (CLOCK_REALTIME) timeout_ns from now. */
static void deadline(struct timespec *ts, uint64_t timeout_ns)
{
	clock_gettime(CLOCK_REALTIME, ts);
	uint64_t t = (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec + timeout_ns;
	ts->tv_sec = (time_t)(t / 1000000000ull);
	ts->tv_nsec = (long)(t % 1000000000ull);
}

bool wsl_stream_wait(struct wsl_stream *s, uint64_t timeout_ns)
{
	struct timespec ts;
	bool have;
	uint64_t until = now_monotonic_ns() + timeout_ns;

	deadline(&ts, timeout_ns);
	pthread_mutex_lock(&s->mu);
	/* a failure with the next helper due past the bound settles it too */
	while (!s->settled && !(s->retry_at_ns > until) && pthread_cond_timedwait(&s->cond, &s->mu, &ts) == 0)
		;
	have = s->have;
	pthread_mutex_unlock(&s->mu);
	return have;
}

bool wsl_stream_wait_after(struct wsl_stream *s, uint64_t after_seq, uint64_t timeout_ns)
{
	struct timespec ts;
	bool got;

	deadline(&ts, timeout_ns);
	pthread_mutex_lock(&s->mu);
	while (!(s->have && s->sample.seq > after_seq) && pthread_cond_timedwait(&s->cond, &s->mu, &ts) == 0)
		;
	got = s->have && s->sample.seq > after_seq;
	pthread_mutex_unlock(&s->mu);
	return got;
}

void wsl_stream_stop(struct wsl_stream *s)
{
	if (!s)
		return;
	s->stop = true;
	if (s->thread) {
		if (write(s->wake[1], "x", 1) < 0)
			perror("gputaskman: waking the host-stream reader");
		pthread_join(s->thread, NULL);
	}
	close_fd(&s->wake[0]);
	close_fd(&s->wake[1]);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cond);
	free(s);
}
