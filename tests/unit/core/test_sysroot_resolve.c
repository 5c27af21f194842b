/* A replay never leaves its root: hostile trees (absolute links into the
 * real /proc and /etc, relative links climbing out with ../.., loops, a
 * secret file beside the root) read through openat2, through the walk, and
 * through the public sysroot calls; the secret and the host's data never show. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "sysroot_resolve.h"
#include "testutil.h"

#define SECRET "SECRET-OUTSIDE-THE-ROOT"

static char *tmp;      /* holds root/ and outside/ */
static char root[512]; /* GPUTASKMAN_ROOT */
static char secret[600];

static void put(const char *rel, const char *text)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	tu_write_file(path, text, strlen(text));
}

static void link_in(const char *rel, const char *target)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	tu_mkdirs(path);
	*slash = '/';
	assert_int_equal(symlink(target, path), 0);
}

static int setup(void **state)
{
	(void)state;
	char target[2048];
	tmp = tu_tempdir();
	snprintf(root, sizeof root, "%s/root", tmp);
	snprintf(secret, sizeof secret, "%s/outside/secret", tmp);
	tu_write_file(secret, SECRET "\n", strlen(SECRET) + 1);
	put("proc/1/cmdline", "tree-init");
	put("etc/passwd", "tree-user:x:0:0::/:/bin/sh\n");
	link_in("proc/3100", "/proc/1");              /* the host's PID 1, were it followed out */
	link_in("proc/3101/cmdline", secret);          /* an absolute path outside the root */
	link_in("proc/3102/cmdline", "/etc/hostname"); /* the host's file; the tree has none */
	snprintf(target, sizeof target, "../../../../../../../../../../..%s", secret);
	link_in("proc/3103/cmdline", target); /* climbs past the top */
	link_in("proc/3104/a", "b");          /* a loop */
	link_in("proc/3104/b", "a");
	link_in("proc/3105", "/proc/3105"); /* itself */
	link_in("proc/3106/root", "/");     /* a process's root: the tree's top */
	link_in("proc/3106/fd/2", "/var/log/llama.log");
	put("var/log/llama.log", "tree-log");
	link_in("data", "/proc"); /* an absolute link to a folder, then more path */
	link_in("proc/3107/cwd", "../../outside");
	link_in("proc/3108", "../../outside"); /* a PID folder that climbs out */
	/* a chain of exactly RESOLVE_MAX_LINKS links ends at a file; one more is ELOOP */
	put("chain/end", "chain-end");
	for (int i = 0; i < RESOLVE_MAX_LINKS; i++) {
		char rel[64], to[64];
		snprintf(rel, sizeof rel, "chain/l%d", i);
		if (i + 1 < RESOLVE_MAX_LINKS)
			snprintf(to, sizeof to, "/chain/l%d", i + 1);
		else
			snprintf(to, sizeof to, "end");
		link_in(rel, to);
	}
	link_in("chain/over", "/chain/l0");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	resolve_force_walk(false);
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	tu_rmrf(tmp);
	free(tmp);
	return 0;
}

struct resolve_case {
	const char *path; /* %s: the temp folder's path (outside the root) */
	const char *want; /* the content read, or NULL for a failure */
	int err;          /* the errno of that failure, 0: any */
};

static const struct resolve_case cases[] = {
	{"/proc/1/cmdline", "tree-init", 0},
	{"/proc/3100/cmdline", "tree-init", 0},         /* the link's /proc/1 is the tree's */
	{"proc/3100/cmdline", "tree-init", 0},          /* relative: from the root, not our cwd */
	{"/proc/3101/cmdline", NULL, ENOENT},           /* <tmp>/outside/secret inside the tree */
	{"/proc/3102/cmdline", NULL, ENOENT},           /* /etc/hostname inside the tree */
	{"/proc/3103/cmdline", NULL, ENOENT},           /* ../.. stopped at the top */
	{"/proc/3104/a", NULL, ELOOP},
	{"/proc/3105/cmdline", NULL, ELOOP},
	{"/proc/3106/root/etc/passwd", "tree-user:x:0:0::/:/bin/sh\n", 0},
	{"/proc/3106/fd/2", "tree-log", 0},             /* an fd link's target, in the tree */
	{"/data/1/cmdline", "tree-init", 0},
	{"/proc/3107/cwd/secret", NULL, ENOENT},        /* ../../outside is the tree's /outside */
	{"/../../..%s", NULL, ENOENT},                  /* ".." in the path itself */
	{"/proc/1/../../../../etc/passwd", "tree-user:x:0:0::/:/bin/sh\n", 0},
	{"/chain/l0", "chain-end", 0},
	{"/chain/over", NULL, ELOOP},
	{"/proc/1/cmdline/", NULL, ENOTDIR},
	{"/", NULL, EISDIR},                            /* a folder opens, its read fails */
};

typedef int (*open_fn)(int rootfd, const char *path, int flags);

static int open_public(int rootfd, const char *path, int flags)
{
	(void)rootfd;
	return sysroot_open(flags, "%s", path);
}

/* Every case through one way of opening: content or errno as expected, and
 * the secret never in what was read. */
static void run_cases(open_fn open_in, const char *way)
{
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(rootfd >= 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char path[1024], buf[256] = "";
		snprintf(path, sizeof path, cases[i].path, tmp);
		errno = 0;
		int fd = open_in(rootfd, path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
		int err = errno;
		if (fd >= 0)
			close(fd);
		if (n >= 0)
			buf[n] = '\0';
		if (strstr(buf, SECRET))
			fail_msg("%s: %s read the secret outside the root", way, path);
		if (cases[i].want) {
			if (n < 0 || strcmp(buf, cases[i].want) != 0)
				fail_msg("%s: %s: read \"%s\" (%s), want \"%s\"", way, path, buf, strerror(err),
					 cases[i].want);
		} else if (n >= 0 || (cases[i].err && err != cases[i].err)) {
			fail_msg("%s: %s: read %zd \"%s\" (%s), want %s", way, path, n, buf, strerror(err),
				 strerror(cases[i].err));
		}
	}
	close(rootfd);
}

static void test_walk(void **state)
{
	(void)state;
	run_cases(resolve_walk, "walk");
}

static void test_openat2(void **state)
{
	(void)state;
	int fd = resolve_openat2(AT_FDCWD, "/", O_PATH);
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))
		skip(); /* a kernel before 5.6: the walk is the only way there */
	if (fd >= 0)
		close(fd);
	run_cases(resolve_openat2, "openat2");
}

static void test_public_calls(void **state)
{
	(void)state;
	setenv("GPUTASKMAN_ROOT", root, 1);
	sysroot_reset();
	for (int walk = 0; walk < 2; walk++) {
		char buf[256];
		struct stat st;
		resolve_force_walk(walk);
		run_cases(open_public, walk ? "sysroot_open (walk)" : "sysroot_open");
		/* the other calls resolve the same way */
		assert_int_equal(sysroot_read(buf, sizeof buf, "/proc/%d/cmdline", 3100), 9);
		assert_string_equal(buf, "tree-init");
		assert_int_equal(sysroot_read(buf, sizeof buf, "/proc/3101/cmdline"), -1);
		assert_int_equal(sysroot_readlink(buf, sizeof buf, "/proc/3100"), 7);
		assert_string_equal(buf, "/proc/1"); /* the link itself, not followed */
		assert_int_equal(sysroot_readlink(buf, sizeof buf, "/data/3106/fd/2"), 18);
		assert_string_equal(buf, "/var/log/llama.log");
		assert_int_equal(sysroot_stat(&st, "/proc/3100"), 0);
		assert_true(S_ISDIR(st.st_mode));
		assert_int_equal(sysroot_stat(&st, "%s", secret), -1);
		assert_int_equal(sysroot_access(R_OK, "/proc/3106/root/var/log/llama.log"), 0);
		assert_int_equal(sysroot_access(F_OK, "/proc/3102/cmdline"), -1);
		char *s = sysroot_slurp(1024, NULL, "/proc/3103/cmdline");
		assert_null(s);
		DIR *d = sysroot_opendir("/proc/3100");
		assert_non_null(d);
		struct dirent *e;
		int seen = 0;
		while ((e = readdir(d)))
			seen += strcmp(e->d_name, "cmdline") == 0;
		closedir(d);
		assert_int_equal(seen, 1); /* the tree's proc/1 has cmdline and nothing else */
		int procfd = sysroot_open(O_RDONLY | O_DIRECTORY, "/proc");
		assert_true(procfd >= 0);
		int fd = sysroot_proc_openat(procfd, "3100/cmdline", O_RDONLY);
		assert_true(fd >= 0);
		assert_int_equal(read_fd_bounded(fd, buf, sizeof buf, false), 9);
		close(fd);
		assert_int_equal(sysroot_proc_openat(procfd, "3101/cmdline", O_RDONLY), -1);
		assert_int_equal(sysroot_proc_openat(procfd, "3105/cmdline", O_RDONLY), -1);
		assert_int_equal(errno, ELOOP);
		assert_int_equal(sysroot_proc_readlinkat(procfd, "3100", buf, sizeof buf), 7);
		assert_int_equal(sysroot_proc_fstatat(procfd, "3102/cmdline", &st), -1);
		/* several names in one PID folder: links in it and to it stay inside */
		const char *const names[] = {"cmdline", "..", "nothing"};
		struct stat sts[3];
		int err[3];
		sysroot_proc_stat_names(procfd, 3100, names, 3, sts, err); /* 3100 -> the tree's /proc/1 */
		assert_int_equal(err[0], 0);
		assert_true(S_ISREG(sts[0].st_mode) && sts[0].st_size == 9);
		assert_int_equal(err[1], 0);
		assert_true(S_ISDIR(sts[1].st_mode)); /* the tree's /proc */
		assert_int_equal(err[2], ENOENT);
		for (unsigned pid = 3101; pid <= 3103; pid++) { /* cmdline: links out of the tree */
			sysroot_proc_stat_names(procfd, pid, names, 1, sts, err);
			assert_int_equal(err[0], ENOENT);
		}
		sysroot_proc_stat_names(procfd, 3105, names, 1, sts, err);
		assert_int_equal(err[0], ELOOP);
		const char *const secret_name[] = {"secret"};
		sysroot_proc_stat_names(procfd, 3108, secret_name, 1, sts, err);
		assert_int_equal(err[0], ENOENT); /* the tree's /outside: none */
		close(procfd);
	}
	resolve_force_walk(false);
}

/* Under "/" the calls are the plain ones: a relative path is this process's. */
static void test_no_root_is_plain(void **state)
{
	(void)state;
	char buf[64], rel[700];
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	assert_string_equal(sysroot_prefix(), "");
	assert_true(sysroot_read(buf, sizeof buf, "%s", secret) > 0);
	assert_true(chdir(tmp) == 0);
	snprintf(rel, sizeof rel, "outside/secret");
	assert_true(sysroot_read(buf, sizeof buf, "%s", rel) > 0);
	assert_true(chdir("/") == 0);
}

/* A FIFO where procfs has a file (a hostile replay), or one that a process's
 * environment names, is read without waiting for a writer: empty, or an error. */
static void test_fifo_never_blocks(void **state)
{
	(void)state;
	char path[1024], buf[64];
	snprintf(path, sizeof path, "%s/proc/3200", root);
	tu_mkdirs(path);
	snprintf(path, sizeof path, "%s/proc/3200/status", root);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(20); /* a regression blocks: fail rather than hang the suite */
	for (int rooted = 0; rooted < 2; rooted++) {
		if (rooted)
			setenv("GPUTASKMAN_ROOT", root, 1);
		else
			unsetenv("GPUTASKMAN_ROOT");
		sysroot_reset();
		const char *abs = rooted ? "/proc/3200/status" : path;
		assert_true(sysroot_read(buf, sizeof buf, "%s", abs) <= 0);
		size_t len = 0;
		char *s = sysroot_slurp(1024, &len, "%s", abs);
		assert_true(!s || len == 0);
		free(s);
		if (rooted) {
			int procfd = sysroot_open(O_RDONLY | O_DIRECTORY, "/proc");
			int fd = sysroot_proc_openat(procfd, "3200/status", O_RDONLY);
			assert_true(fd >= 0);
			assert_true(read_fd_bounded(fd, buf, sizeof buf, false) <= 0);
			close(fd);
			close(procfd);
		}
	}
	alarm(0);
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_openat2),
		cmocka_unit_test(test_public_calls),
		cmocka_unit_test(test_no_root_is_plain),
		cmocka_unit_test(test_fifo_never_blocks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
