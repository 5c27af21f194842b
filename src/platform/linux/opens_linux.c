/* --trace-opens on Linux (platform_api.h): one fanotify group of the
 * notification class with FAN_REPORT_DFID_NAME, FAN_OPEN marks on whole
 * mounts, and a reader thread. Facts (fanotify(7), fanotify_init(2),
 * fanotify_mark(2)): FAN_CLASS_NOTIF never blocks the opener; a mount mark
 * needs CAP_SYS_ADMIN; in DFID_NAME mode an event holds no fd but the
 * folder's file handle and the name, which open_by_handle_at(2) (needing
 * CAP_DAC_READ_SEARCH) turns back into the folder, and which a name filter
 * sees before any system call. The reader wakes on the group's fd, reads
 * everything queued, then waits READ_BATCH_NS before looking again, so a
 * busy mount costs a few reads a second, not one wake-up per open; the
 * kernel queues up to max_queued_events (16384 by default) meanwhile. */
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "opens_events.h"
#include "opens_mute.h"
#include "proc_parse.h"

#define READ_BATCH_NS (250ull * 1000 * 1000)
#define MAX_MARKS 32
#define READ_BUF (64u * 1024u)

struct mark {
	uint64_t dev;             /* the mount's device: one mark each */
	uint8_t fsid[8];
	int fd;                   /* a folder on it: open_by_handle_at's mount fd */
};

struct platform_opens {
	int fan;
	int stop_pipe[2];
	pthread_t thread;
	pthread_mutex_t mu;       /* marks, table, counts */
	struct mark marks[MAX_MARKS];
	unsigned n_marks;
	struct open_table table;
	struct open_table pending; /* the reader's own, merged under the lock */
	struct opens_counts counts;
	char *known[MAX_MARKS * 4]; /* the model folders handed to watch: never muted */
	size_t n_known;
	struct muted {
		struct mute_key key;
		int fd;               /* the folder, held for the mark's removal */
		uint64_t until_ns;    /* monotonic: unmuted then */
	} muted[MUTE_MAX];            /* the reader's own */
	size_t n_muted;
	uint64_t mutes;               /* since start, under mu */
	bool mute_refused;            /* FAN_MARK_IGNORE refused (Linux < 6.0): the reader's own */
	bool mute_off;                /* the same, under mu */
	uint64_t mute_ns;
	struct mute_tally tally;      /* the reader's own: this drain window */
	uint8_t buf[READ_BUF];
};

static int mount_fd_of(struct platform_opens *t, const uint8_t fsid[8])
{
	int fd = -1;
	pthread_mutex_lock(&t->mu);
	for (unsigned i = 0; i < t->n_marks && fd < 0; i++)
		if (!memcmp(t->marks[i].fsid, fsid, 8))
			fd = t->marks[i].fd;
	pthread_mutex_unlock(&t->mu);
	return fd;
}

/* The folder named by a file handle on a marked filesystem, opened with
 * flags, its path in out. -1 with why (a short phrase) when it cannot be. */
static int open_handle(struct platform_opens *t, const uint8_t fsid[8], uint32_t hb, int32_t type,
		       const uint8_t *handle, int flags, char *out, size_t cap, char *why, size_t wcap)
{
	int mfd = mount_fd_of(t, fsid);
	if (mfd < 0) {
		snprintf(why, wcap, "a filesystem not marked");
		return -1;
	}
	union {
		struct file_handle fh;
		uint8_t bytes[sizeof(struct file_handle) + FAN_PARSE_HANDLE_MAX];
	} h;
	h.fh.handle_bytes = hb;
	h.fh.handle_type = type;
	memcpy(h.fh.f_handle, handle, hb);
	int dfd = open_by_handle_at(mfd, &h.fh, flags | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(why, wcap, "%s", errno == EPERM ? "no CAP_DAC_READ_SEARCH" : strerror(errno));
		return -1;
	}
	/* gputaskman's own fd, not the observed system's /proc: never under GPUTASKMAN_ROOT
	 * (platform_opens_start refuses one) */
	char link[64];
	snprintf(link, sizeof link, "/proc/self/fd/%d", dfd);
	ssize_t n = readlink(link, out, cap - 1);
	if (n <= 0 || (size_t)n >= cap - 1 || out[0] != '/') {
		snprintf(why, wcap, "its path is not readable");
		close(dfd);
		return -1;
	}
	out[n] = '\0';
	return dfd;
}

static int io_resolve_dir(void *ctx, const struct fan_event *ev, char *out, size_t cap, char *why, size_t wcap)
{
	return open_handle(ctx, ev->fsid, ev->handle_bytes, ev->handle_type, ev->handle, O_PATH, out, cap, why, wcap);
}

static long io_read_head(void *ctx, int dirfd, const char *name, uint8_t *b, size_t n)
{
	(void)ctx;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	ssize_t r = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, b, n, 0) : -1;
	close(fd);
	return (long)r;
}

static int io_start_time(void *ctx, uint32_t pid, uint64_t *out)
{
	(void)ctx;
	char buf[1024];
	ssize_t n = sysroot_read(buf, sizeof buf, "/proc/%u/stat", pid);
	struct proc_stat ps;
	if (n <= 0 || proc_stat_parse(buf, (size_t)n, &ps) != 0)
		return -1;
	*out = ps.start_time;
	return 0;
}

static void io_close(void *ctx, int fd)
{
	(void)ctx;
	close(fd);
}

/* The folder key names, opened for a mark (not O_PATH: fanotify_mark wants
 * a real fd), its path in out; -1 when it is gone. */
static int open_folder(struct platform_opens *t, const struct mute_key *k, char *out, size_t cap)
{
	char why[96];
	return open_handle(t, k->fsid, k->handle_bytes, k->handle_type, k->handle, O_RDONLY, out, cap, why,
			   sizeof why);
}

static bool is_muted(const struct platform_opens *t, const struct mute_key *k)
{
	for (size_t i = 0; i < t->n_muted; i++)
		if (mute_key_same(&t->muted[i].key, k))
			return true;
	return false;
}

#define MUTE_MASK (FAN_OPEN | FAN_EVENT_ON_CHILD)

/* The drain window's busy folders muted: an ignore mark on the folder with
 * FAN_EVENT_ON_CHILD drops its children's opens in the kernel, before the
 * mount mark queues them (fanotify_mark(2), FAN_MARK_IGNORE, Linux 6.0,
 * which wants FAN_MARK_IGNORED_SURV_MODIFY on a folder). */
static void mute_busy(struct platform_opens *t)
{
	for (size_t i = 0; i < t->tally.n && !t->mute_refused; i++) {
		const struct mute_count *c = &t->tally.v[i];
		char path[PLATFORM_OPEN_PATH_MAX];
		int dfd;
		if (!mute_rule(c->non_model, c->model, false, t->n_muted) || is_muted(t, &c->key) ||
		    (dfd = open_folder(t, &c->key, path, sizeof path)) < 0)
			continue;
		pthread_mutex_lock(&t->mu);
		bool known = mute_path_known(path, (const char *const *)t->known, t->n_known);
		pthread_mutex_unlock(&t->mu);
		if (!mute_rule(c->non_model, c->model, known, t->n_muted) ||
		    fanotify_mark(t->fan, FAN_MARK_ADD | FAN_MARK_IGNORE | FAN_MARK_IGNORED_SURV_MODIFY, MUTE_MASK, dfd,
				  NULL) != 0) {
			if (!known && errno == EINVAL)
				t->mute_refused = true;
			close(dfd);
			continue;
		}
		t->muted[t->n_muted++] = (struct muted){.key = c->key, .fd = dfd, .until_ns = now_monotonic_ns() + t->mute_ns};
		pthread_mutex_lock(&t->mu);
		t->mutes++;
		pthread_mutex_unlock(&t->mu);
	}
	if (t->mute_refused) {
		pthread_mutex_lock(&t->mu);
		t->mute_off = true;
		pthread_mutex_unlock(&t->mu);
	}
}

/* Folders whose time is up unmuted (the ignore mark removed), to be counted
 * again. Returns the poll timeout until the next one is due (-1: none). */
static int unmute_due(struct platform_opens *t)
{
	uint64_t now = now_monotonic_ns(), next = UINT64_MAX;
	for (size_t i = 0; i < t->n_muted;) {
		struct muted *m = &t->muted[i];
		if (m->until_ns > now) {
			next = m->until_ns < next ? m->until_ns : next;
			i++;
			continue;
		}
		fanotify_mark(t->fan, FAN_MARK_REMOVE | FAN_MARK_IGNORE | FAN_MARK_IGNORED_SURV_MODIFY, MUTE_MASK, m->fd,
			      NULL);
		close(m->fd);
		*m = t->muted[--t->n_muted];
	}
	return next == UINT64_MAX ? -1 : (int)((next - now) / 1000000 + 1);
}

/* Everything queued now, into the table. Returns false when the group failed. */
static bool drain(struct platform_opens *t, const struct opens_io *io)
{
	t->tally.n = 0;
	for (;;) {
		ssize_t n = read(t->fan, t->buf, sizeof t->buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			mute_busy(t);
			return true;
		}
		if (n <= 0)
			return false;
		struct opens_counts c = {0};
		t->pending.n = 0;
		opens_handle_buffer(t->buf, (size_t)n, (uint32_t)getpid(), (int64_t)now_realtime_ns(), now_monotonic_ns(),
				    io, &t->pending, &c);
		pthread_mutex_lock(&t->mu);
		for (size_t i = 0; i < t->pending.n; i++)
			open_table_put(&t->table, &t->pending.v[i]);
		t->counts.events += c.events;
		t->counts.model_opens += c.model_opens;
		t->counts.overflows += c.overflows;
		t->counts.unresolved += c.unresolved;
		t->counts.malformed += c.malformed;
		if (c.problem[0])
			str_copy(t->counts.problem, c.problem, sizeof t->counts.problem);
		pthread_mutex_unlock(&t->mu);
	}
}

static void *reader(void *arg)
{
	struct platform_opens *t = arg;
	const struct opens_io io = {t, io_resolve_dir, io_read_head, io_start_time, io_close, &t->tally};
	struct pollfd pf[2] = {{.fd = t->fan, .events = POLLIN}, {.fd = t->stop_pipe[0], .events = POLLIN}};
	for (;;) {
		int r = poll(pf, 2, unmute_due(t));
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		if (pf[1].revents)
			break;
		if ((pf[0].revents & POLLIN) && !drain(t, &io)) {
			pthread_mutex_lock(&t->mu);
			snprintf(t->counts.problem, sizeof t->counts.problem, "reading the fanotify group failed: %s",
				 strerror(errno));
			pthread_mutex_unlock(&t->mu);
			break;
		}
		/* batch: the stop pipe alone, for READ_BATCH_NS */
		if (poll(&pf[1], 1, (int)(READ_BATCH_NS / 1000000)) > 0)
			break;
	}
	return NULL;
}

struct platform_opens *platform_opens_start(char *why, size_t cap)
{
	if (sysroot_prefix()[0]) {
		snprintf(why, cap, "--trace-opens traces this machine's opens, not a tree under GPUTASKMAN_ROOT");
		return NULL;
	}
	if (geteuid() != 0) {
		snprintf(why, cap, "--trace-opens needs root: fanotify's mount marks need CAP_SYS_ADMIN");
		return NULL;
	}
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_DFID_NAME, O_RDONLY | O_LARGEFILE);
	if (fan < 0) {
		snprintf(why, cap, "%s",
			 errno == EPERM	   ? "--trace-opens needs CAP_SYS_ADMIN (fanotify_init refused)"
			 : errno == EINVAL ? "--trace-opens: this kernel has no fanotify file-handle reporting "
					     "(FAN_REPORT_DFID_NAME, Linux 5.9)"
			 : errno == ENOSYS ? "--trace-opens: this kernel has no fanotify"
					   : "--trace-opens: fanotify_init failed");
		return NULL;
	}
	struct platform_opens *t = xcalloc(1, sizeof *t);
	t->fan = fan;
	t->mute_ns = mute_seconds(getenv("GPUTASKMAN_TRACE_MUTE_S")) * 1000000000ull;
	pthread_mutex_init(&t->mu, NULL);
	if (pipe2(t->stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		snprintf(why, cap, "--trace-opens: cannot start its reader: %s", strerror(errno));
		close(fan);
		free(t);
		return NULL;
	}
	int e = pthread_create(&t->thread, NULL, reader, t);
	if (e != 0) {
		snprintf(why, cap, "--trace-opens: cannot start its reader: %s", strerror(e));
		close(fan);
		close(t->stop_pipe[0]);
		close(t->stop_pipe[1]);
		free(t);
		return NULL;
	}
	return t;
}

/* dir, or its nearest existing parent (a store not created yet lives on the
 * mount of the folder that will hold it), into out. */
static bool existing_folder(const char *dir, char *out, size_t cap, struct stat *st)
{
	if (dir[0] != '/' || strlen(dir) >= cap)
		return false;
	str_copy(out, dir, cap);
	for (;;) {
		if (stat(out, st) == 0 && S_ISDIR(st->st_mode))
			return true;
		char *slash = strrchr(out, '/');
		if (!slash)
			return false;
		if (slash == out) {
			out[1] = '\0';
			return stat(out, st) == 0;
		}
		*slash = '\0';
	}
}

static const char *mark_error(int e)
{
	switch (e) {
	case EPERM:
		return "no CAP_SYS_ADMIN for a mount mark";
	case ENODEV:
	case EXDEV:
	case EOPNOTSUPP:
		return "its filesystem gives no file handles to fanotify";
	case EINVAL:
		return "this kernel refuses FAN_OPEN mount marks with file handles";
	default:
		return strerror(e);
	}
}

int platform_opens_watch(struct platform_opens *t, const char *dir, char *why, size_t cap)
{
	char path[PLATFORM_OPEN_PATH_MAX];
	struct stat st;
	struct statfs sf;
	if (!t || !dir || !existing_folder(dir, path, sizeof path, &st)) {
		snprintf(why, cap, "%s: not a folder", dir ? dir : "(none)");
		return -1;
	}
	pthread_mutex_lock(&t->mu);
	if (t->n_known < ARRAY_LEN(t->known))
		t->known[t->n_known++] = xstrdup(dir);
	for (unsigned i = 0; i < t->n_marks; i++)
		if (t->marks[i].dev == (uint64_t)st.st_dev) {
			pthread_mutex_unlock(&t->mu);
			return 1;
		}
	unsigned n = t->n_marks;
	pthread_mutex_unlock(&t->mu);
	if (n >= MAX_MARKS) {
		snprintf(why, cap, "%s: more than %d mounts to mark", path, MAX_MARKS);
		return -1;
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstatfs(fd, &sf) != 0) {
		snprintf(why, cap, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (fanotify_mark(t->fan, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, fd, NULL) != 0) {
		snprintf(why, cap, "the mount of %s cannot be traced: %s", path, mark_error(errno));
		close(fd);
		return -1;
	}
	pthread_mutex_lock(&t->mu);
	struct mark *m = &t->marks[t->n_marks++];
	m->dev = (uint64_t)st.st_dev;
	memcpy(m->fsid, &sf.f_fsid, sizeof m->fsid);
	m->fd = fd;
	pthread_mutex_unlock(&t->mu);
	return 0;
}

size_t platform_opens_copy(struct platform_opens *t, struct platform_open *out, size_t max,
			   struct platform_opens_status *st)
{
	if (!t) {
		if (st)
			*st = (struct platform_opens_status){0};
		return 0;
	}
	pthread_mutex_lock(&t->mu);
	size_t n = t->table.n < max ? t->table.n : max;
	memcpy(out, t->table.v, n * sizeof *out);
	if (st) {
		*st = (struct platform_opens_status){.on = t->n_marks > 0, .n_marks = t->n_marks,
						     .events = t->counts.events, .model_opens = t->counts.model_opens,
						     .overflows = t->counts.overflows, .unresolved = t->counts.unresolved,
						     .mutes = t->mutes, .mute_refused = t->mute_off};
		str_copy(st->problem, t->counts.problem, sizeof st->problem);
	}
	pthread_mutex_unlock(&t->mu);
	return n;
}

void platform_opens_stop(struct platform_opens *t)
{
	if (!t)
		return;
	char b = 1;
	if (write(t->stop_pipe[1], &b, 1) == 1)
		pthread_join(t->thread, NULL);
	close(t->fan);
	close(t->stop_pipe[0]);
	close(t->stop_pipe[1]);
	for (unsigned i = 0; i < t->n_marks; i++)
		close(t->marks[i].fd);
	for (size_t i = 0; i < t->n_muted; i++)
		close(t->muted[i].fd);
	for (size_t i = 0; i < t->n_known; i++)
		free(t->known[i]);
	pthread_mutex_destroy(&t->mu);
	free(t);
}
