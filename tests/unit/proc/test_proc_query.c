/* The kernel queries that stand in for text files on a live /proc: the
 * PROCMAP_QUERY ioctl against the text of maps, and the pidfd's uid against
 * status. Each live test says SKIP where this kernel lacks the call. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/snapshot.h"
#include "core/sysroot.h"
#include "proc_internal.h"
#include "proc_maps_spans.h"
#include "proc_parse.h"
#include "testutil.h"

static char name_buf[PATH_MAX];

/* maps of fd through the ioctl; 1 (unsupported) skips the test */
static void query_or_skip(int fd, struct proc_path_list *l)
{
	int r = proc_maps_query(fd, name_buf, sizeof name_buf, l, NULL);
	if (r == 1) {
		fprintf(stderr, "SKIP: this kernel has no PROCMAP_QUERY (Linux 6.11)\n");
		skip();
	}
	assert_int_equal(r, 0);
}

/* A /proc file whole (its size says 0: read to the end). */
static char *read_proc(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	assert_true(buf && fd >= 0);
	for (;;) {
		if (n == cap)
			assert_non_null(buf = realloc(buf, cap *= 2));
		ssize_t k = read(fd, buf + n, cap - n);
		assert_true(k >= 0);
		if (k == 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	*len = n;
	return buf;
}

static void text_paths(const char *maps_path, struct proc_path_list *l)
{
	size_t len;
	char *buf = read_proc(maps_path, &len);
	proc_maps_parse(buf, len, l);
	free(buf);
}

static void assert_same_lists(const struct proc_path_list *a, const struct proc_path_list *b)
{
	for (size_t i = 0; i < a->n && i < b->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			fail_msg("path %zu: ioctl \"%s\", text \"%s\"", i, a->v[i], b->v[i]);
	assert_int_equal(a->n, b->n);
}

static bool list_has(const struct proc_path_list *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], path) == 0)
			return true;
	return false;
}

/* This process's own maps: the same paths, in the same order, as the text. */
static void test_query_matches_text(void **state)
{
	(void)state;
	struct proc_path_list q = {0}, t = {0};
	int fd = open("/proc/self/maps", O_RDONLY);
	assert_true(fd >= 0);
	query_or_skip(fd, &q);
	close(fd);
	text_paths("/proc/self/maps", &t);
	assert_true(q.n >= 2); /* the test binary and the C library at least */
	assert_same_lists(&q, &t);
	proc_path_list_free(&q);
	proc_path_list_free(&t);
}

static char *make_file(const char *dir, const char *name, size_t size)
{
	char *path = NULL;
	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	close(fd);
	return path;
}

static void *map_file(const char *path, size_t size, off_t off)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, off);
	close(fd);
	assert_true(p != MAP_FAILED);
	return p;
}

/* A file mapped in ranges apart, another between them, one unlinked, a
 * memfd and shared anonymous memory: each file once, in first-seen order,
 * " (deleted)" kept, no memfd or /dev/zero; as the text says. */
static void test_query_files_apart_deleted(void **state)
{
	(void)state;
	long pg = sysconf(_SC_PAGESIZE);
	char *dir = tu_tempdir();
	char *a = make_file(dir, "a.gguf", (size_t)pg * 4), *b = make_file(dir, "b.bin", (size_t)pg);
	char *gone = make_file(dir, "gone.so", (size_t)pg);
	/* a hole reserved and filled piece by piece: a, b, a at fixed places */
	char *base = mmap(NULL, (size_t)pg * 5, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(base != MAP_FAILED);
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	assert_true(mmap(base, (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_FIXED, fa, 0) == base);
	assert_true(mmap(base + pg, (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_FIXED, fb, 0) == base + pg);
	assert_true(mmap(base + 3 * pg, (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_FIXED, fa, 2 * pg) == base + 3 * pg);
	close(fa);
	close(fb);
	void *g = map_file(gone, (size_t)pg, 0);
	assert_int_equal(unlink(gone), 0);
	int mfd = memfd_create("gtm-test", 0);
	assert_true(mfd >= 0);
	assert_int_equal(ftruncate(mfd, pg), 0);
	void *m = mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED, mfd, 0);
	void *z = mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED && z != MAP_FAILED);

	struct proc_path_list q = {0}, t = {0};
	int fd = open("/proc/self/maps", O_RDONLY);
	assert_true(fd >= 0);
	int r = proc_maps_query(fd, name_buf, sizeof name_buf, &q, NULL);
	close(fd);
	text_paths("/proc/self/maps", &t);
	if (r != 1) {
		assert_int_equal(r, 0);
		assert_same_lists(&q, &t);
		char deleted[PATH_MAX];
		snprintf(deleted, sizeof deleted, "%s (deleted)", gone);
		assert_true(list_has(&q, a) && list_has(&q, b) && list_has(&q, deleted));
		size_t n_a = 0;
		for (size_t i = 0; i < q.n; i++) {
			n_a += strcmp(q.v[i], a) == 0;
			assert_null(strstr(q.v[i], "memfd:"));
			assert_null(strstr(q.v[i], "/dev/zero"));
		}
		assert_int_equal(n_a, 1);
	} else {
		fprintf(stderr, "SKIP: this kernel has no PROCMAP_QUERY (Linux 6.11)\n");
	}
	proc_path_list_free(&q);
	proc_path_list_free(&t);
	munmap(base, (size_t)pg * 5);
	munmap(g, (size_t)pg);
	munmap(m, (size_t)pg);
	munmap(z, (size_t)pg);
	close(mfd);
	tu_rmrf(dir);
	free(dir);
	free(a);
	free(b);
	free(gone);
	if (r == 1)
		skip();
}

/* The path is asked with the query after a writable range (where an ELF
 * object ends) and by a second query elsewhere: files that follow a
 * writable range, a read-only one, and a file's own writable range, each
 * once and in the text's order. */
static void test_query_after_writable(void **state)
{
	(void)state;
	long pg = sysconf(_SC_PAGESIZE);
	char *dir = tu_tempdir();
	char *a = make_file(dir, "a.so", (size_t)pg * 4), *b = make_file(dir, "b.gguf", (size_t)pg * 4);
	char *c = make_file(dir, "c.bin", (size_t)pg * 4);
	/* a rw | b ro | b rw | a ro | c rw: new after rw, same after ro, seen after rw, new after ro */
	static const struct { int which, prot; } layout[] = {
		{0, PROT_READ | PROT_WRITE}, {1, PROT_READ}, {1, PROT_READ | PROT_WRITE}, {0, PROT_READ}, {2, PROT_READ | PROT_WRITE},
	};
	size_t n = sizeof layout / sizeof layout[0];
	char *base = mmap(NULL, (size_t)pg * n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(base != MAP_FAILED);
	int fds[3] = {open(a, O_RDONLY), open(b, O_RDONLY), open(c, O_RDONLY)};
	assert_true(fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0);
	for (size_t i = 0; i < n; i++) {
		char *at = base + (size_t)pg * i;
		assert_true(mmap(at, (size_t)pg, layout[i].prot, MAP_PRIVATE | MAP_FIXED, fds[layout[i].which],
				 (off_t)pg * (off_t)(i % 4)) == at);
	}
	for (int i = 0; i < 3; i++)
		close(fds[i]);

	struct proc_path_list q = {0}, t = {0};
	int fd = open("/proc/self/maps", O_RDONLY);
	assert_true(fd >= 0);
	int r = proc_maps_query(fd, name_buf, sizeof name_buf, &q, NULL);
	close(fd);
	text_paths("/proc/self/maps", &t);
	munmap(base, (size_t)pg * n);
	if (r != 1) {
		assert_int_equal(r, 0);
		assert_same_lists(&q, &t);
		assert_true(list_has(&q, a) && list_has(&q, b) && list_has(&q, c));
	}
	proc_path_list_free(&q);
	proc_path_list_free(&t);
	tu_rmrf(dir);
	free(dir);
	free(a);
	free(b);
	free(c);
	if (r == 1) {
		fprintf(stderr, "SKIP: this kernel has no PROCMAP_QUERY (Linux 6.11)\n");
		skip();
	}
}

/* ---- runs of a file learned in one process, stepped over in the next ---- */

/* A child that maps lib as an ELF loader would (r, rx, r, rw over one
 * reserved span) and then other at other_page of the span, if given (0:
 * after the span), and waits. Its PID. */
static pid_t spawn_mapper(const char *lib, const char *other, int other_page)
{
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		long pg = sysconf(_SC_PAGESIZE);
		static const int prot[] = {PROT_READ, PROT_READ | PROT_EXEC, PROT_READ, PROT_READ | PROT_WRITE};
		char *base = mmap(NULL, (size_t)pg * 6, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int fl = open(lib, O_RDONLY), fo = other ? open(other, O_RDONLY) : -1;
		if (base == MAP_FAILED || fl < 0 || (other && fo < 0))
			_exit(1);
		for (int i = 0; i < 4; i++)
			if (mmap(base + pg * i, (size_t)pg, prot[i], MAP_PRIVATE | MAP_FIXED, fl, (off_t)pg * i) == MAP_FAILED)
				_exit(1);
		if (other && mmap(base + pg * (other_page ? other_page : 5), (size_t)pg, PROT_READ, MAP_SHARED | MAP_FIXED,
				  fo, 0) == MAP_FAILED)
			_exit(1);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		ssize_t k = write(ready[1], "x", 1);
		(void)k;
		pause();
		_exit(0);
	}
	char c;
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	return pid;
}

/* PID's stat startcode (field 26). */
static uint64_t start_code_of(pid_t pid)
{
	char path[64];
	size_t len;
	struct proc_stat st;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	char *buf = read_proc(path, &len);
	assert_int_equal(proc_stat_parse(buf, len, &st), 0);
	free(buf);
	return st.start_code;
}

/* The child's maps through the ioctl with spans, against its text: the same
 * paths; and the file the walk names at its startcode, against its exe
 * link. 1 when this kernel has no PROCMAP_QUERY. */
static int walk_child(pid_t pid, struct maps_spans *spans, struct proc_path_list *q)
{
	char path[64], exe[PATH_MAX];
	struct proc_path_list t = {0};
	struct proc_maps_ask ask = {.spans = spans, .covering = start_code_of(pid)};
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	int r = proc_maps_query(fd, name_buf, sizeof name_buf, q, &ask);
	close(fd);
	if (r == 1)
		return 1;
	assert_int_equal(r, 0);
	text_paths(path, &t);
	assert_same_lists(q, &t);
	proc_path_list_free(&t);
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	ssize_t k = readlink(path, exe, sizeof exe - 1);
	assert_true(k > 0 && ask.covering != 0 && ask.covering_path < q->n);
	exe[k] = '\0';
	assert_string_equal(q->v[ask.covering_path], exe);
	return 0;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The second process that maps the library the same way has its inner
 * ranges stepped over, and its other files still found; one whose range
 * where the run should end is another file's is walked range by range, and
 * that file is found. */
static void test_query_steps_over_learned_runs(void **state)
{
	(void)state;
	long pg = sysconf(_SC_PAGESIZE);
	char *dir = tu_tempdir();
	char *lib = make_file(dir, "libfake.so", (size_t)pg * 4), *data = make_file(dir, "model.gguf", (size_t)pg);
	struct maps_spans *spans = maps_spans_new();
	pid_t a = spawn_mapper(lib, NULL, 0), b = spawn_mapper(lib, data, 0), c = spawn_mapper(lib, data, 3);
	struct proc_path_list qa = {0}, qb = {0}, qc = {0};

	int r = walk_child(a, spans, &qa);
	if (r == 0) {
		assert_true(list_has(&qa, lib));
		assert_true(spans->learned >= 1);
		uint64_t learned = spans->learned;
		assert_int_equal(walk_child(b, spans, &qb), 0);
		assert_true(list_has(&qb, lib) && list_has(&qb, data));
		assert_true(spans->stepped >= 1);
		assert_int_equal(spans->learned, learned); /* nothing new: every run was known */
		/* c: the model over the library's last range, where the run should end */
		assert_int_equal(walk_child(c, spans, &qc), 0);
		assert_true(list_has(&qc, lib) && list_has(&qc, data));
	}
	reap(a);
	reap(b);
	reap(c);
	proc_path_list_free(&qa);
	proc_path_list_free(&qb);
	proc_path_list_free(&qc);
	maps_spans_free(spans);
	tu_rmrf(dir);
	free(dir);
	free(lib);
	free(data);
	if (r == 1) {
		fprintf(stderr, "SKIP: this kernel has no PROCMAP_QUERY (Linux 6.11)\n");
		skip();
	}
}

/* The table alone: a run is predicted only for the same file whose first
 * range has the same length and protection; runs too short are not kept;
 * a full table begins again. */
static void test_spans_table(void **state)
{
	(void)state;
	struct maps_spans *s = maps_spans_new();
	struct maps_range first = {.start = 0x10000, .end = 0x11000, .offset = 0, .flags = 1, .inode = 7,
				   .dev_major = 8, .dev_minor = 1};
	struct maps_range last = {.start = 0x14000, .end = 0x15000, .offset = 0x4000, .flags = 3, .inode = 7,
				  .dev_major = 8, .dev_minor = 1};
	struct maps_range want;

	maps_spans_learn(s, &first, &last, 2);
	assert_false(maps_spans_predict(s, &first, &want)); /* two ranges: nothing to step over */
	maps_spans_learn(s, &first, &last, 4);
	struct maps_range elsewhere = first;
	elsewhere.start += 0x100000;
	elsewhere.end += 0x100000;
	assert_true(maps_spans_predict(s, &elsewhere, &want));
	assert_true(want.start == 0x114000 && want.end == 0x115000 && want.offset == 0x4000 && want.flags == 3);
	struct maps_range other = elsewhere;
	other.end += 0x1000; /* a longer first range: another layout */
	assert_false(maps_spans_predict(s, &other, &want));
	other = elsewhere;
	other.inode = 8; /* another file */
	assert_false(maps_spans_predict(s, &other, &want));
	other = elsewhere;
	other.offset = 0x1000; /* not the file's start */
	assert_false(maps_spans_predict(s, &other, &want));
	/* the table grows, keeping what it learned, up to its largest */
	for (uint64_t i = 0; i < MAPS_SPANS_MAX_SLOTS / 2; i++) {
		struct maps_range f = first, l = last;
		f.inode = l.inode = 100 + i;
		maps_spans_learn(s, &f, &l, 4);
	}
	assert_true(s->n_slots > MAPS_SPANS_MIN_SLOTS && s->n == MAPS_SPANS_MAX_SLOTS / 2 + 1);
	assert_true(maps_spans_predict(s, &elsewhere, &want)); /* the first run, moved over */
	/* and begins again past it, never more than three quarters full */
	for (uint64_t i = 0; i < MAPS_SPANS_MAX_SLOTS; i++) {
		struct maps_range f = first, l = last;
		f.inode = l.inode = 100000 + i;
		maps_spans_learn(s, &f, &l, 4);
		assert_true(s->n * 4 <= s->n_slots * 3 && s->n_slots <= MAPS_SPANS_MAX_SLOTS);
	}
	maps_spans_free(s);
}

/* A name with a newline: the text escapes it ("\012"), the ioctl gives the
 * path itself, which opens. */
static void test_query_newline_name(void **state)
{
	(void)state;
	long pg = sysconf(_SC_PAGESIZE);
	char *dir = tu_tempdir();
	char *odd = make_file(dir, "two\nlines.gguf", (size_t)pg);
	void *p = map_file(odd, (size_t)pg, 0);
	struct proc_path_list q = {0};
	int fd = open("/proc/self/maps", O_RDONLY);
	assert_true(fd >= 0);
	int r = proc_maps_query(fd, name_buf, sizeof name_buf, &q, NULL);
	close(fd);
	bool found = r == 0 && list_has(&q, odd);
	proc_path_list_free(&q);
	munmap(p, (size_t)pg);
	tu_rmrf(dir);
	free(dir);
	free(odd);
	if (r == 1) {
		fprintf(stderr, "SKIP: this kernel has no PROCMAP_QUERY (Linux 6.11)\n");
		skip();
	}
	assert_true(found);
}

/* A fixture tree's maps is a regular file: 1, nothing added, and the fd is
 * still at its start for the text. */
static void test_query_regular_file(void **state)
{
	(void)state;
	char *dir = tu_tempdir();
	char path[PATH_MAX];
	static const char text[] = "7f00-7f01 r-xp 00000000 08:01 42 /usr/lib/libcuda.so.1\n";
	snprintf(path, sizeof path, "%s/maps", dir);
	tu_write_file(path, text, sizeof text - 1);
	struct proc_path_list q = {0};
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(proc_maps_query(fd, name_buf, sizeof name_buf, &q, NULL), 1);
	assert_int_equal(q.n, 0);
	char buf[128];
	assert_int_equal(read(fd, buf, sizeof buf), (ssize_t)(sizeof text - 1));
	close(fd);
	tu_rmrf(dir);
	free(dir);
}

static pid_t spawn_paused(void)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	return pid;
}

/* maps opened, then the process exits and is reaped: -1 with ESRCH (the
 * caller's "gone"), not an empty list that looks like a process without files. */
static void test_query_exited(void **state)
{
	(void)state;
	pid_t pid = spawn_paused();
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	struct proc_path_list q = {0};
	int r = proc_maps_query(fd, name_buf, sizeof name_buf, &q, NULL);
	int err = errno;
	close(fd);
	proc_path_list_free(&q);
	if (r == 1) {
		fprintf(stderr, "SKIP: this kernel has no PROCMAP_QUERY (Linux 6.11)\n");
		skip();
	}
	assert_int_equal(r, -1);
	assert_int_equal(err, ESRCH);
}

/* ---- the /proc mount's options by statx and statmount ---- */

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	if (fd >= 0) {
		ssize_t k = write(fd, text, strlen(text));
		(void)k;
		close(fd);
	}
}

/* In the child's own user, mount and PID namespaces: a procfs mounted with
 * each option set reads back as its flags. Exit 0 passed, 77 cannot be
 * set up here, 1 + the case that differed. */
static int mount_cases(const char *dir)
{
	static const struct { const char *opts; unsigned want; } cases[] = {
		{"", 0},
		{"hidepid=noaccess", PROC_MOUNT_NOACCESS},
		{"hidepid=invisible,subset=pid", PROC_MOUNT_INVISIBLE | PROC_MOUNT_SUBSET},
		{"hidepid=ptraceable,gid=0", PROC_MOUNT_INVISIBLE},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (mount("proc", dir, "proc", 0, cases[i].opts) != 0)
			return 77;
		int fd = open(dir, O_RDONLY | O_DIRECTORY);
		unsigned got = 99;
		bool ok = fd >= 0 && proc_mount_flags_of_fd(fd, &got);
		if (fd >= 0)
			close(fd);
		umount2(dir, MNT_DETACH);
		if (!ok)
			return 77; /* a kernel without the calls */
		if (got != cases[i].want)
			return 1 + (int)i;
	}
	return 0;
}

/* Each procfs option as statmount gives it; the live /proc as its
 * mountinfo line says; a folder that is not a procfs: not answered. */
static void test_mount_flags_by_statmount(void **state)
{
	(void)state;
	unsigned live = 99;
	int pfd = open("/proc", O_RDONLY | O_DIRECTORY);
	assert_true(pfd >= 0);
	bool have = proc_mount_flags_of_fd(pfd, &live);
	close(pfd);
	if (!have) {
		fprintf(stderr, "SKIP: this kernel has no statmount options (Linux 6.11)\n");
		skip();
	}
	size_t len;
	char *mi = read_proc("/proc/self/mountinfo", &len);
	assert_int_equal(live, proc_mountinfo_flags(mi, len));
	free(mi);
	char *dir = tu_tempdir();
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	unsigned f;
	assert_false(proc_mount_flags_of_fd(dfd, &f));
	close(dfd);

	uid_t uid = getuid();
	gid_t gid = getgid();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) != 0)
			_exit(77);
		char map[64];
		write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
		write_file("/proc/self/uid_map", map);
		snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
		write_file("/proc/self/gid_map", map);
		/* the new PID namespace is its first child's */
		pid_t inner = fork();
		if (inner < 0)
			_exit(77);
		if (inner == 0)
			_exit(mount_cases(dir));
		int st;
		waitpid(inner, &st, 0);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 2);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	tu_rmrf(dir);
	free(dir);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77) {
		fprintf(stderr, "SKIP: no user and mount namespaces to mount a procfs in\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* uid of a status line "Uid:\treal\teffective\t..." */
static uid_t status_euid(pid_t pid)
{
	char path[64];
	size_t len;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	char *buf = read_proc(path, &len);
	struct proc_status st;
	assert_int_equal(proc_status_parse(buf, len, &st), 0);
	free(buf);
	assert_true(st.has_uid);
	return st.uid_effective;
}

/* The pidfd's uid is status's, for a live child and for ourselves; an
 * exited, reaped child is -1 (the caller then asks status, which is gone too). */
static void test_pidfd_euid(void **state)
{
	(void)state;
	pid_t pid = spawn_paused();
	uid_t u = (uid_t)-1;
	int r = proc_pidfd_euid((uint32_t)pid, &u);
	if (r == 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fprintf(stderr, "SKIP: this kernel has no PIDFD_GET_INFO (Linux 6.13)\n");
		skip();
	}
	assert_int_equal(r, 0);
	assert_int_equal(u, status_euid(pid));
	assert_int_equal(proc_pidfd_euid((uint32_t)getpid(), &u), 0);
	assert_int_equal(u, geteuid());
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(proc_pidfd_euid((uint32_t)pid, &u), -1);
}

/* Usable on the real /proc only: not under GPUTASKMAN_ROOT. */
static void test_pidfd_usable_only_live(void **state)
{
	(void)state;
	struct proc_cache *c = proc_cache_new();
	int procfd = proc_cache_procfd(c);
	assert_true(procfd >= 0);
	bool live = proc_pidfd_uid_usable(c, procfd);
	uid_t u;
	assert_int_equal(live, proc_pidfd_euid((uint32_t)getpid(), &u) == 0);

	char *dir = tu_tempdir();
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/proc", dir);
	tu_mkdirs(p);
	snprintf(p, sizeof p, "%s/proc/self", dir);
	char self[16];
	snprintf(self, sizeof self, "%d", (int)getpid());
	assert_int_equal(symlink(self, p), 0); /* even a tree whose self looks like ours */
	setenv("GPUTASKMAN_ROOT", dir, 1);
	sysroot_reset();
	procfd = proc_cache_procfd(c);
	assert_true(procfd >= 0);
	assert_false(proc_pidfd_uid_usable(c, procfd));
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	procfd = proc_cache_procfd(c);
	assert_int_equal(proc_pidfd_uid_usable(c, procfd), live);
	proc_cache_free(c);
	tu_rmrf(dir);
	free(dir);
}

/* A child that gave up root: non-dumpable, so its /proc files are root's
 * (stat says uid 0) while it runs as nobody. */
static pid_t spawn_as_nobody(int ready[2])
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(ready[0]);
		if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0)
			_exit(1);
		prctl(PR_SET_DUMPABLE, 0);
		(void)!write(ready[1], "x", 1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	return pid;
}

static void detail_of(struct proc_cache *c, pid_t pid, bool by_pidfd, struct proc_entry *e)
{
	struct proc_detail_how how = {.defer_environ = true, .pidfd_uid = by_pidfd};
	memset(e, 0, sizeof *e);
	e->pid = (uint32_t)pid;
	e->stat_uid = 0;
	assert_int_equal(proc_detail_read(proc_cache_procfd(c), c->io, &how, e), PROC_DETAIL_OK);
}

/* The detail read the two ways: the same uid behind root-owned files (a
 * non-dumpable child running as nobody: 65534, not root) and the same maps. */
static void test_detail_both_ways(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: needs root to start a process as nobody\n");
		skip();
	}
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = spawn_as_nobody(ready);
	struct proc_cache *c = proc_cache_new();
	struct proc_entry by_fd, by_status;
	detail_of(c, pid, true, &by_fd);
	detail_of(c, pid, false, &by_status);
	assert_true(by_fd.has_status_uid && by_status.has_status_uid);
	assert_int_equal(by_status.status_uid, 65534);
	assert_int_equal(by_fd.status_uid, 65534);
	assert_int_equal(by_fd.detail->n_maps, by_status.detail->n_maps);
	for (size_t i = 0; i < by_fd.detail->n_maps; i++)
		assert_string_equal(by_fd.detail->maps[i], by_status.detail->maps[i]);
	assert_true(by_fd.detail->n_maps >= 2);
	proc_detail_unref(by_fd.detail);
	proc_detail_unref(by_status.detail);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	proc_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_matches_text),
		cmocka_unit_test(test_query_files_apart_deleted),
		cmocka_unit_test(test_query_after_writable),
		cmocka_unit_test(test_query_steps_over_learned_runs),
		cmocka_unit_test(test_spans_table),
		cmocka_unit_test(test_query_newline_name),
		cmocka_unit_test(test_query_regular_file),
		cmocka_unit_test(test_query_exited),
		cmocka_unit_test(test_mount_flags_by_statmount),
		cmocka_unit_test(test_pidfd_euid),
		cmocka_unit_test(test_pidfd_usable_only_live),
		cmocka_unit_test(test_detail_both_ways),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
