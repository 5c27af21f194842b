/* The /proc scan on fixture trees built here (GPUTASKMAN_ROOT) and on the real
 * /proc with child processes that listen on loopback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/snapshot.h"
#include "core/sysroot.h"
#include "proc.h"
#include "proc_internal.h"
#include "testutil.h"

#define KTHREAD_FLAGS 0x00208040u

static char *root;

static void fx_write(const char *rel, const void *data, size_t len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	tu_write_file(path, data, len);
}

static void fx_printf(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fx_printf(const char *rel, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fx_write(rel, buf, (size_t)n);
}

static void fx_link(const char *rel, const char *target)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	tu_mkdirs(path);
	*slash = '/';
	unlink(path);
	assert_int_equal(symlink(target, path), 0);
}

static void fx_unlink(const char *rel)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	unlink(path);
}

/* A stat line with every field up to 52, as fs/proc/array.c writes it. */
static void fx_stat(uint32_t pid, const char *comm, uint32_t ppid, uint32_t flags, unsigned long long start,
		    unsigned long long rss_pages)
{
	char rel[64];
	snprintf(rel, sizeof rel, "proc/%u/stat", pid);
	fx_printf(rel,
		  "%u (%s) S %u %u %u 0 -1 %u 120 0 0 0 5 3 0 0 20 0 1 0 %llu 8388608 %llu 18446744073709551615 1 1 0 0 0 0 0 "
		  "4096 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		  pid, comm, ppid, pid, pid, flags, start, rss_pages);
}

/* A user process: stat, cmdline, status, maps, environ, exe, cwd. */
static void fx_proc(uint32_t pid, const char *comm, uint32_t ppid, unsigned long long start, unsigned long long rss_pages,
		    const char *cmdline, size_t cmdline_len, uid_t uid)
{
	char rel[64];
	fx_stat(pid, comm, ppid, 0, start, rss_pages);
	snprintf(rel, sizeof rel, "proc/%u/cmdline", pid);
	fx_write(rel, cmdline, cmdline_len);
	snprintf(rel, sizeof rel, "proc/%u/status", pid);
	fx_printf(rel, "Name:\t%s\nTgid:\t%u\nPid:\t%u\nPPid:\t%u\nUid:\t%u\t%u\t%u\t%u\nVmRSS:\t%llu kB\n", comm, pid,
		  pid, ppid, (unsigned)uid, (unsigned)uid, (unsigned)uid, (unsigned)uid, rss_pages * 4);
	snprintf(rel, sizeof rel, "proc/%u/maps", pid);
	fx_printf(rel,
		  "55cdcff1e000-55cdcff1f000 r--p 00000000 fe:00 10972061                   /usr/bin/%s\n"
		  "55cdcff1f000-55cdcff20000 r-xp 00001000 fe:00 10972061                   /usr/bin/%s\n"
		  "55ce07aa4000-55ce0ade9000 rw-p 00000000 00:00 0                          [heap]\n"
		  "7fc8331b0000-7fc833f77000 r--s 001b0000 fe:00 5316629                    /srv/models/m%u.gguf\n"
		  "7fc834000000-7fc834021000 rw-p 00000000 00:00 0 \n"
		  "7fc840000000-7fc840100000 r-xp 00000000 fe:00 777                        /usr/lib/libc.so.6\n"
		  "7fc840100000-7fc840200000 r--p 00100000 fe:00 777                        /usr/lib/libc.so.6\n"
		  "7fc850000000-7fc850001000 r--p 00000000 fe:00 778                        /tmp/old model.gguf (deleted)\n"
		  "7ffd10000000-7ffd10021000 rw-p 00000000 00:00 0                          [stack]\n",
		  comm, comm, pid);
	snprintf(rel, sizeof rel, "proc/%u/environ", pid);
	fx_printf(rel, "PATH=/usr/bin%cCUDA_VISIBLE_DEVICES=%u%cHOME=/root%c", 0, pid % 2, 0, 0);
	snprintf(rel, sizeof rel, "proc/%u/exe", pid);
	char target[128];
	snprintf(target, sizeof target, "/usr/bin/%s", comm);
	fx_link(rel, target);
	snprintf(rel, sizeof rel, "proc/%u/cwd", pid);
	fx_link(rel, "/srv/work");
}

static int setup_tree(void **state)
{
	(void)state;
	root = tu_tempdir();
	char rel[64];
	fx_printf("etc/passwd", "fxroot:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\nfxme:x:%u:0::/:/bin/sh\n",
		  (unsigned)getuid());
	fx_write("proc/self", "", 0); /* non-PID entries are skipped */
	fx_printf("proc/uptime", "100.0 50.0\n");
	fx_proc(1, "init", 0, 5, 100, "/sbin/init\0", 11, 0);
	static const char llama[] = "/opt/llama.cpp/bin/llama-server\0-m\0/srv/models/m100.gguf\0--port\0" "8080\0";
	fx_proc(100, "llama (srv) x", 1, 4000, 15000, llama, sizeof llama - 1, 1000);
	/* a kernel thread: no cmdline, maps or fd files are needed */
	fx_stat(2, "kthreadd", 0, KTHREAD_FLAGS, 3, 0);
	snprintf(rel, sizeof rel, "proc/%u/status", 2);
	fx_printf(rel, "Name:\tkthreadd\nTgid:\t2\nUid:\t0\t0\t0\t0\n");
	setenv("GPUTASKMAN_ROOT", root, 1);
	sysroot_reset();
	return 0;
}

static int teardown_tree(void **state)
{
	(void)state;
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	tu_rmrf(root);
	free(root);
	root = NULL;
	return 0;
}

static struct gtm_process *find_row(struct gtm_snapshot *s, uint32_t pid)
{
	for (int i = 0; i < s->n_processes; i++)
		if (s->processes[i].pid == pid)
			return &s->processes[i];
	return NULL;
}

static struct gtm_snapshot *scan_opts(struct proc_cache *c, const struct proc_scan_opts *o)
{
	struct gtm_snapshot *s = snapshot_new();
	assert_int_equal(proc_cache_scan(c, s, o), 0);
	return s;
}

static struct gtm_snapshot *scan(struct proc_cache *c, uint64_t budget)
{
	return scan_opts(c, &(struct proc_scan_opts){.budget_ns = budget});
}

static bool has_map(const struct gtm_proc_detail *d, const char *path)
{
	for (size_t i = 0; i < d->n_maps; i++)
		if (strcmp(d->maps[i], path) == 0)
			return true;
	return false;
}

static void test_tree_processes(void **state)
{
	(void)state;
	struct proc_cache *c = proc_cache_new();
	struct gtm_snapshot *s = scan(c, 0);
	long page = sysconf(_SC_PAGESIZE);

	assert_int_equal(s->n_processes, 3);
	assert_int_equal(s->n_procs_total, 3);
	assert_int_equal(s->n_procs_uninspectable, 0);
	assert_false(s->partial_scan);

	struct gtm_process *p = find_row(s, 100);
	assert_non_null(p);
	assert_string_equal(p->label, "100");
	assert_int_equal(p->owner, GTM_OWNER_NONE);
	assert_string_equal(p->name, "llama (srv) x");
	assert_int_equal(p->ppid, 1);
	assert_int_equal(p->start_time, 4000);
	assert_int_equal(p->rss.prov, GTM_MEASURED);
	assert_int_equal(p->rss.v, 15000ull * (uint64_t)page);
	/* the tree's files belong to us; as root the status uid speaks for them */
	if (getuid() == 0) {
		assert_int_equal(p->uid, 1000);
		assert_string_equal(p->user, "alice");
	} else {
		assert_int_equal(p->uid, getuid());
		assert_string_equal(p->user, "fxme");
	}
	const struct gtm_proc_detail *d = p->detail;
	assert_non_null(d);
	assert_int_equal(d->argc, 5);
	assert_string_equal(d->argv[0], "/opt/llama.cpp/bin/llama-server");
	assert_string_equal(d->argv[2], "/srv/models/m100.gguf");
	assert_null(d->argv[5]);
	assert_string_equal(d->exe, "/usr/bin/llama (srv) x");
	assert_string_equal(d->cwd, "/srv/work");
	assert_int_equal(d->n_maps, 4);
	assert_string_equal(d->maps[0], "/usr/bin/llama (srv) x");
	assert_string_equal(d->maps[1], "/srv/models/m100.gguf");
	assert_string_equal(d->maps[2], "/usr/lib/libc.so.6");
	assert_string_equal(d->maps[3], "/tmp/old model.gguf (deleted)");
	assert_string_equal(proc_detail_getenv(d, "CUDA_VISIBLE_DEVICES"), "0");
	assert_string_equal(proc_detail_getenv(d, "HOME"), "/root");
	assert_null(proc_detail_getenv(d, "NOPE"));

	p = find_row(s, 1);
	assert_non_null(p);
	assert_string_equal(p->user, getuid() == 0 ? "fxroot" : "fxme");
	assert_int_equal(p->detail->argc, 1);

	p = find_row(s, 2); /* the kernel thread: listed, an empty detail */
	assert_non_null(p);
	assert_string_equal(p->name, "kthreadd");
	assert_non_null(p->detail);
	assert_int_equal(p->detail->argc, 0);
	assert_int_equal(p->detail->n_maps, 0);
	assert_false(gtm_u64_ok(gtm_u64_of(0, GTM_UNAVAILABLE)));
	assert_int_equal(p->rss.prov, GTM_MEASURED); /* a measured zero */
	assert_int_equal(p->rss.v, 0);

	snapshot_free(s);
	proc_cache_free(c);
}

static void fx_tcp(void)
{
	fx_printf("proc/net/tcp",
		  "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		  "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1111 1 0 100 0 0 10 0\n"
		  "   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2222 1 0 100 0 0 10 0\n"
		  "   2: 0500000A:2328 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3333 1 0 100 0 0 10 0\n"
		  "   3: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 7777 1 0 100 0 0 10 0\n");
	fx_printf("proc/net/tcp6",
		  "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		  "   0: 00000000000000000000000001000000:2CAA 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4444 1 0 100 0 0 10 0\n"
		  "   1: 0000000000000000FFFF00000100007F:1388 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5555 1 0 100 0 0 10 0\n"
		  "   2: 00000000000000000000000000000000:1B58 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 6666 1 0 100 0 0 10 0\n"
		  "   3: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 8888 1 0 100 0 0 10 0\n");
}

static void test_tree_ports(void **state)
{
	(void)state;
	fx_tcp();
	static const char *const links[][2] = {
		{"0", "/dev/null"},     {"1", "pipe:[60197]"},  {"3", "socket:[1111]"}, /* 127.0.0.1:8080 */
		{"4", "socket:[2222]"}, /* 0.0.0.0:22: wildcard, reachable on loopback */
		{"5", "socket:[4444]"}, /* [::1]:11434 */
		{"6", "socket:[3333]"}, /* 10.0.0.5:9000: not loopback */
		{"7", "socket:[5555]"}, /* [::ffff:127.0.0.1]:5000 */
		{"8", "socket:[6666]"}, /* [::]:7000: wildcard, reachable on loopback */
		{"9", "socket:[7777]"}, /* established, not listening */
		{"10", "socket:[8888]"}, /* [::1]:8080 again */
	};
	char rel[64];
	for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
		snprintf(rel, sizeof rel, "proc/100/fd/%s", links[i][0]);
		fx_link(rel, links[i][1]);
	}
	fx_link("proc/1/fd/0", "/dev/null");
	struct proc_cache *c = proc_cache_new();
	struct gtm_snapshot *s = scan(c, 0);
	struct gtm_process *p = find_row(s, 100);
	assert_non_null(p);
	assert_int_equal(p->n_ports, 5);
	assert_int_equal(p->ports[0], 22);
	assert_int_equal(p->ports[1], 5000);
	assert_int_equal(p->ports[2], 7000);
	assert_int_equal(p->ports[3], 8080);
	assert_int_equal(p->ports[4], 11434);
	assert_int_equal(find_row(s, 1)->n_ports, 0);

	/* a new listener appears: a steady scan keeps the cached ports, an explicit
	 * refresh reads them now */
	fx_link("proc/100/fd/11", "socket:[9999]");
	fx_printf("proc/net/tcp", "  sl  local...\n   0: 0100007F:D431 00000000:0000 0A 00000000:00000000 00:00000000 00000000  0 0 9999 1\n");
	snapshot_free(s);
	s = scan(c, 0);
	p = find_row(s, 100);
	assert_int_equal(p->n_ports, 5);
	assert_int_equal(proc_refresh_ports(c, p), 0);
	/* the rewritten tcp table lost 0.0.0.0:22 and gained 127.0.0.1:54321 */
	assert_int_equal(p->n_ports, 5);
	assert_int_equal(p->ports[0], 5000);
	assert_int_equal(p->ports[4], 54321);
	/* the cache took the refresh: the next steady scan reports it */
	snapshot_free(s);
	s = scan(c, 0);
	assert_int_equal(find_row(s, 100)->n_ports, 5);
	/* a process without fds any more cannot be refreshed; its row stays as it was */
	struct gtm_process gone = {.pid = 4242, .n_ports = 1, .ports = {80}};
	assert_int_equal(proc_refresh_ports(c, &gone), -1);
	assert_int_equal(gone.n_ports, 1);
	snapshot_free(s);
	proc_cache_free(c);
}

static void test_tree_pid_reuse(void **state)
{
	(void)state;
	struct proc_cache *c = proc_cache_new();
	struct gtm_snapshot *s1 = scan(c, 0);
	struct gtm_proc_detail *d1 = find_row(s1, 100)->detail;
	assert_string_equal(d1->argv[0], "/opt/llama.cpp/bin/llama-server");

	/* steady: the same detail, shared */
	struct gtm_snapshot *s2 = scan(c, 0);
	assert_ptr_equal(find_row(s2, 100)->detail, d1);
	snapshot_free(s2);

	/* PID 100 is now another process (a new start time): nothing carries over */
	static const char other[] = "/usr/bin/python3\0serve.py\0";
	fx_proc(100, "python3", 1, 9000, 15000, other, sizeof other - 1, 0);
	fx_unlink("proc/100/environ");
	struct gtm_snapshot *s3 = scan(c, 0);
	struct gtm_process *p = find_row(s3, 100);
	assert_int_equal(p->start_time, 9000);
	assert_ptr_not_equal(p->detail, d1);
	assert_string_equal(p->name, "python3");
	assert_int_equal(p->detail->argc, 2);
	assert_string_equal(p->detail->argv[0], "/usr/bin/python3");
	assert_int_equal(proc_detail_environ(p->detail)->len, 0); /* unreadable: read as empty */
	assert_null(proc_detail_getenv(p->detail, "CUDA_VISIBLE_DEVICES"));
	assert_false(has_map(p->detail, "/opt/llama.cpp/bin/llama-server"));
	/* the old snapshot still holds the old process's detail, intact */
	assert_string_equal(find_row(s1, 100)->detail->argv[0], "/opt/llama.cpp/bin/llama-server");
	snapshot_free(s1);
	snapshot_free(s3);
	proc_cache_free(c);
}

static void test_tree_vanished(void **state)
{
	(void)state;
	char rel[64];
	/* 300: exited between the stat read and the rest (stat only) */
	fx_stat(300, "gone", 1, 0, 7000, 10);
	/* 301: a PID folder already empty */
	snprintf(rel, sizeof rel, "%s/proc/301", root);
	tu_mkdirs(rel);
	/* 302: garbage stat */
	fx_printf("proc/302/stat", "302 (x");
	/* 303: stat and cmdline, no maps, no environ, no fd folder: listed */
	fx_stat(303, "partial", 1, 0, 7100, 10);
	fx_write("proc/303/cmdline", "partial\0", 8);
	fx_tcp();

	struct proc_cache *c = proc_cache_new();
	struct gtm_snapshot *s = scan(c, 0);
	assert_null(find_row(s, 300));
	assert_null(find_row(s, 301));
	assert_null(find_row(s, 302));
	struct gtm_process *p = find_row(s, 303);
	assert_non_null(p);
	assert_int_equal(p->detail->argc, 1);
	assert_int_equal(p->detail->n_maps, 0);
	assert_null(p->detail->exe);
	assert_int_equal(p->n_ports, 0);
	assert_int_equal(s->n_procs_total, 4);
	assert_int_equal(s->n_processes, 4);

	/* 300 reappears whole (same start time): now it is listed */
	fx_proc(300, "gone", 1, 7000, 10, "gone\0", 5, 0);
	struct gtm_snapshot *s2 = scan(c, 0);
	assert_non_null(find_row(s2, 300));
	assert_non_null(find_row(s2, 300)->detail);
	snapshot_free(s2);
	/* 100 exits: its entry is evicted; a later process with that PID starts fresh */
	snprintf(rel, sizeof rel, "%s/proc/100", root);
	tu_rmrf(rel);
	s2 = scan(c, 0);
	assert_null(find_row(s2, 100));
	assert_int_equal(s2->n_procs_total, 4);
	snapshot_free(s2);
	snapshot_free(s);
	proc_cache_free(c);
}

static uint64_t fake_now_ns;
static uint64_t fake_clock(void) { return fake_now_ns; }
#define SEC 1000000000ull

/* Every detail seen stays referenced until the test ends, so a freed one's
 * address cannot come back and make two details look the same. */
static struct gtm_proc_detail *held[64];
static int n_held;

static struct gtm_proc_detail *detail_after_scan(struct proc_cache *c, uint32_t pid, uint64_t at_s)
{
	fake_now_ns = at_s * SEC;
	struct gtm_snapshot *s = scan(c, 0);
	struct gtm_proc_detail *d = find_row(s, pid)->detail;
	assert_true(n_held < 64);
	held[n_held++] = proc_detail_ref(d);
	snapshot_free(s);
	return d;
}

static void release_held(void)
{
	while (n_held > 0)
		proc_detail_unref(held[--n_held]);
}

static void test_tree_rescan_rule(void **state)
{
	(void)state;
	static const char cmd[] = "/opt/llama.cpp/bin/llama-server\0";
	struct proc_cache *c = proc_cache_new();
	c->clock = fake_clock;
	struct gtm_proc_detail *d = detail_after_scan(c, 100, 1000), *d2;

	/* +5% resident: below the rule, the detail (and the old cmdline) is kept */
	fx_proc(100, "srv", 1, 4000, 15750, cmd, sizeof cmd - 1, 0);
	assert_ptr_equal(detail_after_scan(c, 100, 1010), d);
	assert_int_equal(d->argc, 5);

	/* +10% of the resident size at the last read: maps and cmdline are read again */
	fx_proc(100, "srv", 1, 4000, 16500, cmd, sizeof cmd - 1, 0);
	d2 = detail_after_scan(c, 100, 1011);
	assert_ptr_not_equal(d2, d);
	assert_int_equal(d2->argc, 1);
	assert_true(has_map(d2, "/usr/bin/srv"));

	/* another +10%, but not twice within 5 s */
	fx_proc(100, "srv", 1, 4000, 18150, cmd, sizeof cmd - 1, 0);
	assert_ptr_equal(detail_after_scan(c, 100, 1015), d2);
	d = detail_after_scan(c, 100, 1016);
	assert_ptr_not_equal(d, d2);

	/* nothing changed for 2 minutes: read again */
	assert_ptr_equal(detail_after_scan(c, 100, 1135), d);
	assert_ptr_not_equal(detail_after_scan(c, 100, 1136), d);

	/* a big process: +63 MiB is under 10% and under 64 MiB; +64 MiB fires */
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long big = 40ull * 1024 * 1024 * 1024 / (unsigned long long)page;
	fx_stat(1, "init", 0, 0, 5, big);
	d = detail_after_scan(c, 1, 1200);
	fx_stat(1, "init", 0, 0, 5, big + 63ull * 1024 * 1024 / (unsigned long long)page);
	assert_ptr_equal(detail_after_scan(c, 1, 1210), d);
	fx_stat(1, "init", 0, 0, 5, big + 64ull * 1024 * 1024 / (unsigned long long)page);
	assert_ptr_not_equal(detail_after_scan(c, 1, 1220), d);
	proc_cache_free(c);
	release_held();
}

/* With details_priority_only a process no source lists gets what ps reads:
 * a row only as a priority PID's parent, from its stat, without details;
 * the rest are counted. proc_detail_load reads a parent's details later. */
static void test_tree_priority_only(void **state)
{
	(void)state;
	static const char cmd[] = "/usr/bin/worker\0";
	fx_proc(300, "worker", 100, 5000, 10, cmd, sizeof cmd - 1, 0);
	fx_proc(301, "other", 1, 5001, 10, cmd, sizeof cmd - 1, 0);
	struct proc_cache *c = proc_cache_new();
	uint32_t prio[] = {300};
	struct proc_scan_opts o = {.priority_pids = prio, .n_priority = 1, .details_priority_only = true};
	struct gtm_snapshot *s = scan_opts(c, &o);
	assert_int_equal(s->n_procs_total, 5); /* 1, 2, 100, 300, 301 */
	assert_int_equal(s->n_processes, 2);  /* the priority PID and its parent */
	/* the others are counted from the listing, their stat unread */
	assert_int_equal(c->stat_reads, 2);
	struct gtm_process *w = find_row(s, 300), *parent = find_row(s, 100);
	assert_non_null(w);
	assert_non_null(w->detail);
	assert_non_null(parent);
	assert_null(parent->detail);
	assert_string_equal(parent->name, "llama (srv) x"); /* what stat says */
	assert_true(gtm_u64_ok(parent->rss));
	assert_null(find_row(s, 301));
	assert_true(proc_cache_listed(c, 301));
	assert_false(proc_cache_listed(c, 999));
	/* listed without an entry each: only what was read has one */
	assert_int_equal(c->n, 2);
	assert_null(proc_cache_find(c, 301));
	assert_true(proc_cache_listed(c, 1) && proc_cache_listed(c, 2) && proc_cache_listed(c, 300));

	assert_int_equal(proc_detail_load(c, parent), 0);
	assert_non_null(parent->detail);
	assert_int_equal(parent->detail->argc, 5);
	snapshot_free(s);

	/* a root whose /proc hides other users' processes (hidepid=1): every stat
	 * is read, so the refused ones are counted as uninspectable */
	fx_unlink("proc/self");
	fx_printf("proc/self/mountinfo", "23 22 0:21 / /proc rw,nosuid - proc proc rw,hidepid=noaccess\n");
	struct proc_cache *hid = proc_cache_new();
	struct gtm_snapshot *hs = scan_opts(hid, &o);
	assert_int_equal(hs->n_procs_total, 5);
	assert_int_equal(hs->n_processes, 2);
	assert_int_equal(hid->stat_reads, 5);
	snapshot_free(hs);
	proc_cache_free(hid);
	fx_unlink("proc/self/mountinfo");
	char selfdir[4096];
	snprintf(selfdir, sizeof selfdir, "%s/proc/self", root);
	assert_int_equal(rmdir(selfdir), 0);
	fx_write("proc/self", "", 0);

	/* no longer a priority PID: its detail is dropped, no row */
	o.n_priority = 0;
	s = scan_opts(c, &o);
	assert_int_equal(s->n_processes, 0);
	assert_int_equal(s->n_procs_total, 5);
	snapshot_free(s);

	/* without the option every process has a row and its details */
	s = scan(c, 0);
	assert_int_equal(s->n_processes, 5);
	assert_non_null(find_row(s, 301)->detail);
	snapshot_free(s);

	/* a priority PID the listing lacks (a host PID in a container), with
	 * pair_if_missing: every process, as pairing needs; one it has: as before */
	uint32_t host[] = {300, 4000001};
	struct proc_scan_opts pair = {.priority_pids = host, .n_priority = 2, .details_priority_only = true,
				      .pair_if_missing = true};
	s = scan_opts(c, &pair);
	assert_int_equal(s->n_processes, 5);
	assert_non_null(find_row(s, 301)->detail);
	snapshot_free(s);
	pair.n_priority = 1;
	s = scan_opts(c, &pair);
	assert_int_equal(s->n_processes, 2);
	snapshot_free(s);
	proc_cache_free(c);
}

static void budget_case(void)
{
	/* many new processes and a budget of 1 ns: rows listed, details deferred */
	for (uint32_t pid = 1000; pid < 1200; pid++) {
		char comm[32];
		snprintf(comm, sizeof comm, "w%u", pid);
		fx_proc(pid, comm, 1, 10000 + pid, 50, "w\0", 2, 0);
	}
	struct proc_cache *c = proc_cache_new();
	struct gtm_snapshot *s = scan(c, 1);
	assert_true(s->partial_scan);
	assert_int_equal(s->n_processes, 203);
	int without = 0;
	for (int i = 0; i < s->n_processes; i++)
		without += s->processes[i].detail == NULL;
	assert_true(without > 0);
	assert_int_equal(s->n_procs_uninspectable, 0); /* deferred is not refused */
	snapshot_free(s);
	/* the driver's PIDs are read past the budget */
	proc_cache_free(c);
	c = proc_cache_new();
	static const uint32_t prio[] = {1150, 1199};
	s = snapshot_new();
	assert_int_equal(proc_cache_scan(c, s, &(struct proc_scan_opts){.budget_ns = 1, .priority_pids = prio,
									 .n_priority = 2}), 0);
	assert_true(s->partial_scan);
	assert_non_null(find_row(s, 1150)->detail);
	assert_non_null(find_row(s, 1199)->detail);
	snapshot_free(s);
	/* no budget (one-shot): everything is read */
	s = scan(c, 0);
	assert_false(s->partial_scan);
	for (int i = 0; i < s->n_processes; i++)
		assert_non_null(s->processes[i].detail);
	snapshot_free(s);
	/* steady with a tiny budget: nothing is due, so nothing is cut */
	s = scan(c, 1);
	assert_false(s->partial_scan);
	snapshot_free(s);
	proc_cache_free(c);
}

static void test_tree_budget(void **state)
{
	(void)state;
	/* on every machine, one worker or several (GPUTASKMAN_THREADS): the
	 * budget, the priority PIDs and the partial mark hold either way */
	setenv("GPUTASKMAN_THREADS", "1", 1);
	budget_case();
	setenv("GPUTASKMAN_THREADS", "4", 1);
	budget_case();
	unsetenv("GPUTASKMAN_THREADS");
}

static void row_digest(const struct gtm_process *p, char *buf, size_t cap)
{
	const struct gtm_proc_detail *d = p->detail;
	int k = snprintf(buf, cap, "%u %s %u %llu %s", p->pid, p->name, p->ppid, (unsigned long long)p->rss.v, p->user);
	if (d && k >= 0 && (size_t)k < cap)
		k += snprintf(buf + k, cap - (size_t)k, " argc=%d maps=%zu exe=%s env=%s", d->argc, d->n_maps,
			      d->exe ? d->exe : "-", proc_detail_getenv(d, "CUDA_VISIBLE_DEVICES") ?: "-");
	if (k >= 0 && (size_t)k < cap)
		snprintf(buf + k, cap - (size_t)k, " ports=%d", p->n_ports);
}

/* The threaded scan (GPUTASKMAN_THREADS=4, whatever the CPUs) gives the same
 * rows in the same order as one thread, with processes that vanish between
 * their stat and the rest and PIDs that are only half there in the mix. */
static void test_tree_threads_agree(void **state)
{
	(void)state;
	char rel[64];
	for (uint32_t pid = 2000; pid < 2400; pid++) {
		char comm[32];
		snprintf(comm, sizeof comm, "t%u", pid);
		if (pid % 50 == 7) {
			fx_stat(pid, "gone", 1, 0, 7000 + pid, 10); /* exits after its stat */
		} else if (pid % 50 == 9) {
			snprintf(rel, sizeof rel, "%s/proc/%u", root, pid);
			tu_mkdirs(rel); /* already empty */
		} else {
			fx_proc(pid, comm, 1, 10000 + pid, 50 + pid, "t\0-x\0", 5, pid % 3 ? 0 : 1000);
		}
	}
	fx_tcp();
	struct gtm_snapshot *by[2];
	static const char *const threads[2] = {"1", "4"};
	for (int k = 0; k < 2; k++) {
		setenv("GPUTASKMAN_THREADS", threads[k], 1);
		struct proc_cache *c = proc_cache_new();
		by[k] = scan(c, 0);
		proc_cache_free(c);
	}
	unsetenv("GPUTASKMAN_THREADS");
	assert_int_equal(by[0]->n_processes, 3 + 400 - 16);
	assert_int_equal(by[1]->n_processes, by[0]->n_processes);
	assert_int_equal(by[1]->n_procs_total, by[0]->n_procs_total);
	for (int i = 0; i < by[0]->n_processes; i++) {
		char a[512], b[512];
		row_digest(&by[0]->processes[i], a, sizeof a);
		row_digest(&by[1]->processes[i], b, sizeof b);
		assert_string_equal(a, b);
		assert_non_null(by[1]->processes[i].detail);
	}
	snapshot_free(by[0]);
	snapshot_free(by[1]);
}

/* A scan that defers environ reads none; asked for later, the environment is
 * read once, and kept only while the PID is still the same process. */
static void test_tree_environ_deferred(void **state)
{
	(void)state;
	struct proc_cache *c = proc_cache_new();
	struct gtm_snapshot *s = snapshot_new();
	assert_int_equal(proc_cache_scan(c, s, &(struct proc_scan_opts){.defer_environ = true}), 0);
	struct gtm_process *p = find_row(s, 100);
	assert_true(p->detail->environ_deferred);
	assert_null(proc_detail_environ(p->detail));
	assert_null(proc_detail_getenv(p->detail, "CUDA_VISIBLE_DEVICES"));
	proc_detail_load_environ(c, p);
	assert_string_equal(proc_detail_getenv(p->detail, "CUDA_VISIBLE_DEVICES"), "0");
	/* read once: a changed file is not read again for the same detail */
	fx_printf("proc/100/environ", "CUDA_VISIBLE_DEVICES=7%c", 0);
	proc_detail_load_environ(c, p);
	assert_string_equal(proc_detail_getenv(p->detail, "CUDA_VISIBLE_DEVICES"), "0");
	/* PID 1 is reused before its environment is asked for: none is kept */
	struct gtm_process *init = find_row(s, 1);
	fx_proc(1, "other", 0, 99999, 100, "/bin/other\0", 11, 0);
	proc_detail_load_environ(c, init);
	assert_non_null(proc_detail_environ(init->detail));
	assert_int_equal(proc_detail_environ(init->detail)->len, 0);
	assert_null(proc_detail_getenv(init->detail, "HOME"));
	/* a kernel thread's detail has nothing to defer */
	assert_false(find_row(s, 2)->detail->environ_deferred);
	proc_detail_load_environ(c, find_row(s, 2));
	snapshot_free(s);
	proc_cache_free(c);
}

static void test_tree_root_switch(void **state)
{
	(void)state;
	struct proc_cache *c = proc_cache_new();
	struct gtm_snapshot *s1 = scan(c, 0);
	assert_int_equal(find_row(s1, 100)->detail->argc, 5);
	/* another tree with the same PID and start time: its own data, not the cache's */
	char *other = tu_tempdir();
	char *saved = root;
	root = other;
	fx_proc(100, "other", 1, 4000, 15000, "other\0", 6, 0);
	setenv("GPUTASKMAN_ROOT", other, 1);
	sysroot_reset();
	struct gtm_snapshot *s2 = scan(c, 0);
	assert_int_equal(s2->n_processes, 1);
	assert_int_equal(find_row(s2, 100)->detail->argc, 1);
	assert_string_equal(find_row(s2, 100)->detail->argv[0], "other");
	snapshot_free(s2);
	snapshot_free(s1);
	proc_cache_free(c);
	root = saved;
	setenv("GPUTASKMAN_ROOT", root, 1);
	sysroot_reset();
	tu_rmrf(other);
	free(other);
}

/* What an unprivileged user meets: maps and environ refused (ptrace access),
 * a stat refused (hidepid=1). Run as "nobody" in a child when we are root. */
static int denied_scan_checks(void)
{
	struct proc_cache *c = proc_cache_new();
	struct gtm_snapshot *s = snapshot_new();
	int bad = 0;
	if (proc_cache_scan(c, s, NULL) != 0)
		return 10;
	struct gtm_process *p = find_row(s, 100);
	bad |= !p ? 1 << 1 : 0;
	bad |= p && (!p->detail || p->detail->argc != 5) ? 1 << 2 : 0;    /* cmdline still read */
	bad |= p && p->detail && p->detail->n_maps != 0 ? 1 << 3 : 0;      /* maps refused */
	bad |= p && p->detail && proc_detail_environ(p->detail)->len ? 1 << 4 : 0; /* environ refused */
	bad |= find_row(s, 400) ? 1 << 5 : 0;                               /* no row for a hidden one */
	bad |= s->n_procs_uninspectable != 2 ? 1 << 6 : 0;                  /* 100 partial + 400 hidden */
	bad |= s->n_procs_total != 4 ? 1 << 7 : 0;
	bad |= s->n_processes != 3 ? 1 << 8 : 0;
	snapshot_free(s);
	proc_cache_free(c);
	return bad ? 20 + __builtin_ctz((unsigned)bad) : 0;
}

static void test_tree_denied(void **state)
{
	(void)state;
	char path[4096];
	fx_stat(400, "hidden", 1, 0, 8000, 10);
	snprintf(path, sizeof path, "%s/proc/400/stat", root);
	assert_int_equal(chmod(path, 0), 0);
	snprintf(path, sizeof path, "%s/proc/100/maps", root);
	assert_int_equal(chmod(path, 0), 0);
	snprintf(path, sizeof path, "%s/proc/100/environ", root);
	assert_int_equal(chmod(path, 0), 0);
	assert_int_equal(chmod(root, 0755), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(2);
		_exit(denied_scan_checks());
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) != 0)
		fail_msg("denied scan check failed: code %d (20+n: check bit n)", WEXITSTATUS(st));
}

/* environ is kept to its first 64 KiB, cut after the last whole entry. */
static void test_tree_environ_bound(void **state)
{
	(void)state;
	size_t cap = 80 * 1024, n = 0;
	char *env = malloc(cap);
	for (int i = 0; n + 128 < cap; i++)
		n += (size_t)snprintf(env + n, cap - n, "E%04d=%093d", i, i) + 1; /* 100 bytes each, NUL included */
	fx_write("proc/100/environ", env, n);
	free(env);
	struct proc_cache *c = proc_cache_new();
	struct gtm_snapshot *s = scan(c, 0);
	const struct gtm_proc_detail *d = find_row(s, 100)->detail;
	const struct gtm_proc_env *read = proc_detail_environ(d);
	assert_non_null(read);
	assert_true(read->len <= PROC_ENVIRON_MAX);
	assert_int_equal(read->len % 100, 0);
	assert_int_equal(read->len, PROC_ENVIRON_MAX / 100 * 100);
	assert_non_null(proc_detail_getenv(d, "E0000"));
	assert_non_null(proc_detail_getenv(d, "E0654"));
	assert_null(proc_detail_getenv(d, "E0655")); /* it would straddle the bound */
	snapshot_free(s);
	proc_cache_free(c);
}

static void test_tree_pid_exists(void **state)
{
	(void)state;
	assert_true(proc_pid_exists(100));
	assert_true(proc_pid_exists(2));
	assert_false(proc_pid_exists(4242));
	assert_false(proc_pid_exists(0));
	/* /proc/TID of a thread of 100: resolves, but is not a process */
	fx_printf("proc/101/status", "Name:\tworker\nTgid:\t100\nPid:\t101\n");
	assert_false(proc_pid_exists(101));
}

static void test_no_proc(void **state)
{
	(void)state;
	char *empty = tu_tempdir();
	setenv("GPUTASKMAN_ROOT", empty, 1);
	sysroot_reset();
	struct proc_cache *c = proc_cache_new();
	struct gtm_snapshot *s = snapshot_new();
	assert_int_equal(proc_cache_scan(c, s, NULL), -1);
	assert_int_equal(s->n_processes, 0);
	snapshot_free(s);
	proc_cache_free(c);
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	tu_rmrf(empty);
	free(empty);
}

/* ---- live: the real /proc ---- */

struct child {
	pid_t pid;
	int go;      /* parent writes: listen now / exit */
	int report;  /* child writes its port */
};

/* The child listens on 127.0.0.1:<ephemeral> (after a byte on `go` when
 * wait_first), reports the port, and exits when `go` closes. */
static struct child spawn_listener(bool wait_first)
{
	int go[2], rep[2];
	struct child ch;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(rep), 0);
	ch.pid = fork();
	assert_true(ch.pid >= 0);
	if (ch.pid == 0) {
		char b;
		close(go[1]);
		close(rep[0]);
		if (wait_first && read(go[0], &b, 1) != 1)
			_exit(1);
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		socklen_t al = sizeof a;
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 1) != 0 ||
		    getsockname(fd, (struct sockaddr *)&a, &al) != 0)
			_exit(2);
		uint16_t port = ntohs(a.sin_port);
		if (write(rep[1], &port, sizeof port) != sizeof port)
			_exit(3);
		while (read(go[0], &b, 1) > 0)
			;
		_exit(0);
	}
	close(go[0]);
	close(rep[1]);
	ch.go = go[1];
	ch.report = rep[0];
	return ch;
}

static uint16_t child_port(struct child *ch)
{
	uint16_t port = 0;
	if (read(ch->report, &port, sizeof port) != (ssize_t)sizeof port) {
		int st = 0;
		waitpid(ch->pid, &st, 0);
		fail_msg("the child could not listen on 127.0.0.1 (exit status %d: 2 = socket/bind/listen failed)",
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	return port;
}

static void child_end(struct child *ch)
{
	int st;
	close(ch->go);
	close(ch->report);
	assert_int_equal(waitpid(ch->pid, &st, 0), ch->pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Field 22 of /proc/PID/stat, read here without the parser under test. */
static unsigned long long start_time_of(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')') + 2;
	for (int field = 3; field < 22; field++)
		p = strchr(p, ' ') + 1;
	return strtoull(p, NULL, 10);
}

static bool has_port(const struct gtm_process *p, uint16_t port)
{
	for (int i = 0; i < p->n_ports; i++)
		if (p->ports[i] == port)
			return true;
	return false;
}

static void test_live_listener(void **state)
{
	(void)state;
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	struct child ch = spawn_listener(false);
	uint16_t port = child_port(&ch);
	struct proc_cache *c = proc_cache_new();
	struct gtm_snapshot *s = scan(c, 0);

	assert_true(s->n_procs_total >= 2);
	struct gtm_process *p = find_row(s, (uint32_t)ch.pid);
	assert_non_null(p);
	assert_int_equal(p->start_time, start_time_of(ch.pid));
	assert_int_equal(p->ppid, (uint32_t)getpid());
	assert_true(has_port(p, port));
	assert_non_null(p->detail);
	struct gtm_proc_detail *d = p->detail;

	/* ourselves: exe and our own binary among the maps */
	struct gtm_process *me = find_row(s, (uint32_t)getpid());
	assert_non_null(me);
	assert_false(has_port(me, port));
	char exe[4096];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	assert_true(k > 0);
	exe[k] = '\0';
	assert_string_equal(me->detail->exe, exe);
	assert_true(has_map(me->detail, exe));
	assert_true(me->detail->argc >= 1);
	assert_true(gtm_u64_ok(me->rss) && me->rss.v > 0);

	/* steady: the child's detail is the same object */
	struct gtm_snapshot *s2 = scan(c, 0);
	p = find_row(s2, (uint32_t)ch.pid);
	assert_ptr_equal(p->detail, d);
	assert_true(has_port(p, port));
	assert_int_equal(proc_refresh_ports(c, p), 0);
	assert_true(has_port(p, port));
	assert_true(proc_pid_exists((uint32_t)ch.pid));
	assert_true(proc_pid_exists((uint32_t)getpid()));
	snapshot_free(s2);
	snapshot_free(s);
	child_end(&ch);
	assert_false(proc_pid_exists((uint32_t)ch.pid));
	s = scan(c, 0);
	assert_null(find_row(s, (uint32_t)ch.pid));
	snapshot_free(s);
	proc_cache_free(c);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* A cache over the real /proc on the fake clock, at 1000 s. */
static struct proc_cache *live_cache(void)
{
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	struct proc_cache *c = proc_cache_new();
	c->clock = fake_clock;
	fake_now_ns = 1000 * SEC;
	return c;
}

/* The live view's steady scan of the real /proc re-reads a known process's
 * stat only when its period is up; a one-PID scan reads one process. */
static void test_live_steady_reuses_stat(void **state)
{
	(void)state;
	struct proc_cache *c = live_cache();
	struct proc_scan_opts live = {.budget_ns = 10 * SEC};
	struct gtm_snapshot *s = snapshot_new();
	assert_int_equal(proc_cache_scan(c, s, &live), 0);
	uint64_t first = c->stat_reads;
	int rows = s->n_processes;
	assert_true(first >= 2);
	uint32_t *seen = calloc((size_t)rows, sizeof *seen);
	assert_non_null(seen);
	for (int i = 0; i < rows; i++)
		seen[i] = s->processes[i].pid;
	qsort(seen, (size_t)rows, sizeof *seen, cmp_u32);
	snapshot_free(s);

	fake_now_ns = 1000 * SEC + SEC / 2;
	s = snapshot_new();
	assert_int_equal(proc_cache_scan(c, s, &live), 0);
	/* a process of both scans keeps the stat of the first (the machine may
	 * start and end any number of others meanwhile: a CI build does) */
	int common = 0, reread = 0;
	for (int i = 0; i < s->n_processes; i++) {
		uint32_t pid = s->processes[i].pid;
		if (!bsearch(&pid, seen, (size_t)rows, sizeof pid, cmp_u32))
			continue;
		const struct proc_entry *e = proc_cache_find(c, pid);
		assert_non_null(e);
		common++;
		reread += e->stat_at_ns != 1000 * SEC;
	}
	free(seen);
	assert_true(common >= 2);
	assert_true(reread * 10 <= common);          /* only processes new since, or whose inode changed */
	assert_true(s->n_processes * 4 >= rows * 3); /* yet every process is listed */
	struct gtm_process *me = find_row(s, (uint32_t)getpid());
	assert_non_null(me);
	assert_true(gtm_u64_ok(me->rss));
	snapshot_free(s);

	fake_now_ns = 1010 * SEC; /* every period is up */
	uint64_t before = c->stat_reads;
	s = snapshot_new();
	assert_int_equal(proc_cache_scan(c, s, &live), 0);
	assert_true((c->stat_reads - before) * 4 >= first * 3);
	snapshot_free(s);

	/* only this process matters: the others keep their stat while their inode stays */
	uint32_t self = (uint32_t)getpid();
	struct proc_scan_opts mine = live;
	mine.priority_pids = &self;
	mine.n_priority = 1;
	mine.details_priority_only = true;
	fake_now_ns = 1020 * SEC;
	before = c->stat_reads;
	s = scan_opts(c, &mine);
	assert_true((c->stat_reads - before) * 4 <= first);
	assert_non_null(find_row(s, self));
	assert_non_null(find_row(s, self)->detail);
	snapshot_free(s);

	/* ports of a row the caller cares about: read, then kept for max_age */
	s = snapshot_new();
	assert_int_equal(proc_cache_scan(c, s, &(struct proc_scan_opts){.ports_on_demand = true}), 0);
	me = find_row(s, (uint32_t)getpid());
	assert_int_equal(proc_refresh_ports_if_older(c, me, 2 * SEC), 0);
	assert_int_equal(proc_refresh_ports_if_older(c, me, 2 * SEC), 1);
	fake_now_ns += 3 * SEC; /* due, but the listeners are the same set (same scan): kept */
	assert_int_equal(proc_refresh_ports_if_older(c, me, 2 * SEC), 1);
	fake_now_ns += PROC_PORTS_MAX_AGE_NS; /* too long since the fds were read: read again */
	assert_int_equal(proc_refresh_ports_if_older(c, me, 2 * SEC), 0);
	assert_int_equal(proc_refresh_ports_if_older(c, me, 0), 0);
	snapshot_free(s);

	struct proc_scan_opts one = {.only_pid = (uint32_t)getpid()};
	s = snapshot_new();
	assert_int_equal(proc_cache_scan(c, s, &one), 0);
	/* and its parents, up to three levels (a vLLM worker's API server is its grandparent) */
	assert_true(s->n_processes >= 2 && s->n_processes <= 4);
	assert_int_equal(s->processes[0].pid, (uint32_t)getpid());
	assert_int_equal(s->processes[1].pid, (uint32_t)getppid());
	for (int i = 2; i < s->n_processes; i++)
		assert_int_equal(s->processes[i].pid, s->processes[i - 1].ppid);
	snapshot_free(s);
	proc_cache_free(c);
}

/* A server listens only after loading its model: the refresh catches it. */
static void test_live_late_listener(void **state)
{
	(void)state;
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	struct child ch = spawn_listener(true);
	struct proc_cache *c = proc_cache_new();
	struct gtm_snapshot *s = scan(c, 0);
	struct gtm_process *p = find_row(s, (uint32_t)ch.pid);
	assert_non_null(p);
	assert_int_equal(p->n_ports, 0);
	snapshot_free(s);
	assert_int_equal(write(ch.go, "x", 1), 1);
	uint16_t port = child_port(&ch);
	s = scan(c, 0);
	p = find_row(s, (uint32_t)ch.pid);
	assert_int_equal(proc_refresh_ports(c, p), 0);
	assert_true(has_port(p, port));
	snapshot_free(s);
	child_end(&ch);
	proc_cache_free(c);
}

/* A due port check reads no fds while the listeners are the set they were;
 * one that starts listening changes the set, and its port is found. */
static void test_live_ports_follow_listeners(void **state)
{
	(void)state;
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	struct child ch = spawn_listener(true);
	struct proc_cache *c = proc_cache_new();
	c->clock = fake_clock;
	fake_now_ns = 1000 * SEC;
	struct proc_scan_opts o = {.ports_on_demand = true};
	struct gtm_snapshot *s = scan_opts(c, &o);
	struct gtm_process *p = find_row(s, (uint32_t)ch.pid);
	assert_non_null(p);
	assert_int_equal(proc_refresh_ports_if_older(c, p, 2 * SEC), 0); /* first look: fds read */
	assert_int_equal(p->n_ports, 0);
	snapshot_free(s);

	assert_int_equal(write(ch.go, "x", 1), 1);
	uint16_t port = child_port(&ch);
	fake_now_ns += 3 * SEC;
	s = scan_opts(c, &o); /* a new scan: the listeners are read again */
	p = find_row(s, (uint32_t)ch.pid);
	assert_int_equal(proc_refresh_ports_if_older(c, p, 2 * SEC), 0); /* the set changed: fds read */
	assert_true(has_port(p, port));
	snapshot_free(s);

	fake_now_ns += 3 * SEC;
	s = scan_opts(c, &o);
	p = find_row(s, (uint32_t)ch.pid);
	assert_true(has_port(p, port)); /* the row carries the cached ports */
	snapshot_free(s);
	child_end(&ch);
	proc_cache_free(c);
}

/* Between full listings (PROC_LIST_PERIOD_NS) a live priority-only scan looks
 * up the priority PIDs alone: a process started since is seen at the next
 * listing, and the count is the last listing's. */
static void test_live_targeted_between_listings(void **state)
{
	(void)state;
	struct proc_cache *c = live_cache();
	c->countable = 1; /* as in a container, whose /proc does not count itself */
	uint32_t self = (uint32_t)getpid();
	struct proc_scan_opts o = {.budget_ns = 10 * SEC, .priority_pids = &self, .n_priority = 1,
				   .details_priority_only = true};
	struct gtm_snapshot *s = scan_opts(c, &o);
	int seen = s->n_procs_total, uninspectable = s->n_procs_uninspectable;
	assert_non_null(find_row(s, self));
	snapshot_free(s);

	struct child ch = spawn_listener(false);
	child_port(&ch); /* it runs */
	fake_now_ns += SEC;
	s = scan_opts(c, &o);
	assert_int_equal(s->n_procs_total, seen);
	assert_int_equal(s->n_procs_uninspectable, uninspectable);
	assert_non_null(find_row(s, self));
	assert_non_null(find_row(s, self)->detail);
	assert_false(proc_cache_listed(c, (uint32_t)ch.pid));
	snapshot_free(s);

	fake_now_ns += PROC_LIST_PERIOD_NS;
	s = scan_opts(c, &o);
	assert_true(proc_cache_listed(c, (uint32_t)ch.pid));
	assert_null(find_row(s, (uint32_t)ch.pid)); /* counted, no row: it matters to no view */
	snapshot_free(s);
	child_end(&ch);
	proc_cache_free(c);
}

/* The PIDs a listing of the real /proc shows. */
static int listing_count(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;
	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] >= '1' && de->d_name[0] <= '9';
	closedir(d);
	return n;
}

/* A priority-only scan's count is a listing's, though it lists nothing:
 * retried until no process came or went around it (other tests run beside
 * this one); a count off by any constant never matches. */
static void assert_count_is_listing(struct proc_cache *c, const struct proc_scan_opts *o)
{
	bool matched = false;
	for (int attempt = 0; attempt < 50 && !matched; attempt++) {
		int before = listing_count();
		struct gtm_snapshot *s = scan_opts(c, o);
		int after = listing_count();
		matched = before == after && s->n_procs_total == before;
		snapshot_free(s);
	}
	assert_true(matched);
}

/* On a /proc that counts itself (procfs of the initial PID namespace: this
 * machine's, unless the test runs in a container) a priority-only scan never
 * lists /proc: the one-shot run and every live refresh; the count is the
 * listing's; an entry no scan touched for a listing period is let go. */
static void test_live_counted(void **state)
{
	(void)state;
	struct proc_cache *c = live_cache();
	uint32_t self = (uint32_t)getpid();
	struct proc_scan_opts once = {.priority_pids = &self, .n_priority = 1, .details_priority_only = true};
	struct gtm_snapshot *s = scan_opts(c, &once);
	if (c->countable != 2) {
		snapshot_free(s);
		proc_cache_free(c);
		skip(); /* a container's /proc, or hidepid: listed, as the tests above check */
	}
	assert_int_equal(c->listings, 0);
	assert_non_null(find_row(s, self));
	assert_non_null(find_row(s, self)->detail);
	assert_non_null(find_row(s, (uint32_t)getppid())); /* its parent, looked up */
	snapshot_free(s);
	assert_count_is_listing(c, &once);

	/* a priority PID that is gone (above PID_MAX_LIMIT: never a process) has no row */
	uint32_t with_gone[2] = {self, 4194304u + 7u};
	struct proc_scan_opts gone = {.priority_pids = with_gone, .n_priority = 2, .details_priority_only = true};
	s = scan_opts(c, &gone);
	assert_non_null(find_row(s, self));
	assert_null(find_row(s, with_gone[1]));
	assert_int_equal(c->listings, 0);
	snapshot_free(s);

	struct child ch = spawn_listener(false);
	child_port(&ch);
	uint32_t prio[2] = {self < (uint32_t)ch.pid ? self : (uint32_t)ch.pid,
			    self < (uint32_t)ch.pid ? (uint32_t)ch.pid : self};
	struct proc_scan_opts live = {.budget_ns = 10 * SEC, .priority_pids = prio, .n_priority = 2,
				      .details_priority_only = true};
	fake_now_ns += SEC;
	s = scan_opts(c, &live);
	assert_non_null(find_row(s, (uint32_t)ch.pid));
	snapshot_free(s);
	assert_count_is_listing(c, &live);

	/* the child matters no more: its entry stays for at least a period (the
	 * evictions are a period apart and take what none since the one before
	 * touched), and is gone within two */
	live.priority_pids = &self;
	live.n_priority = 1;
	for (int k = 1; k <= 4; k++) {
		fake_now_ns += PROC_LIST_PERIOD_NS / 2;
		s = scan_opts(c, &live);
		assert_null(find_row(s, (uint32_t)ch.pid));
		snapshot_free(s);
		if (k == 2)
			assert_non_null(proc_cache_find(c, (uint32_t)ch.pid));
	}
	assert_non_null(proc_cache_find(c, self));
	assert_null(proc_cache_find(c, (uint32_t)ch.pid));
	assert_int_equal(c->listings, 0);
	child_end(&ch);
	proc_cache_free(c);
}

/* getdents64 records as the kernel writes them: 8-aligned, NUL-ended names. */
static size_t put_dirent(char *buf, size_t off, const char *name, unsigned char type)
{
	size_t nlen = strlen(name), reclen = (19 + nlen + 1 + 7) & ~(size_t)7;
	uint16_t r = (uint16_t)reclen;
	memset(buf + off, 0, reclen);
	memcpy(buf + off + 16, &r, sizeof r);
	buf[off + 18] = (char)type;
	memcpy(buf + off + 19, name, nlen);
	return off + reclen;
}

static void test_root_dirs_feed(void **state)
{
	(void)state;
	_Alignas(8) char buf[512];
	size_t n = 0;
	n = put_dirent(buf, n, ".", DT_DIR);
	n = put_dirent(buf, n, "..", DT_DIR);
	n = put_dirent(buf, n, "fs", DT_DIR);
	n = put_dirent(buf, n, "self", DT_LNK);
	n = put_dirent(buf, n, "meminfo", DT_REG);
	n = put_dirent(buf, n, "sys", DT_DIR);
	size_t static_end = n;
	n = put_dirent(buf, n, "1", DT_DIR);
	n = put_dirent(buf, n, "tty", DT_DIR); /* past the first PID: not counted */

	struct proc_root_dirs d = {0};
	proc_root_dirs_feed(&d, buf, n);
	assert_int_equal(d.dirs, 2);
	assert_true(d.pid_seen);
	assert_false(d.bad);

	/* fed a buffer at a time: the count goes on; no PID yet says so */
	struct proc_root_dirs parts = {0};
	proc_root_dirs_feed(&parts, buf, static_end);
	assert_false(parts.pid_seen);
	proc_root_dirs_feed(&parts, buf + static_end, n - static_end);
	assert_int_equal(parts.dirs, 2);
	assert_true(parts.pid_seen);

	/* "0123" and "1a" are no PIDs; a folder named so is a static one */
	struct proc_root_dirs odd = {0};
	size_t m = put_dirent(buf, 0, "0123", DT_DIR);
	m = put_dirent(buf, m, "1a", DT_DIR);
	proc_root_dirs_feed(&odd, buf, m);
	assert_int_equal(odd.dirs, 2);
	assert_false(odd.pid_seen);

	/* cut records, a zero or overlong length, a name without its NUL: bad */
	for (size_t cut = 1; cut < static_end; cut++) {
		struct proc_root_dirs t = {0};
		proc_root_dirs_feed(&t, buf, cut);
		size_t whole = 0, k = 0;
		while (k < cut) { /* the records wholly inside the cut are fine */
			uint16_t r;
			memcpy(&r, buf + k + 16, sizeof r);
			if (k + r > cut)
				break;
			k += r;
			whole = k;
		}
		assert_int_equal(t.bad, whole != cut);
	}
	n = put_dirent(buf, 0, "fs", DT_DIR);
	uint16_t zero = 0, big = 600;
	memcpy(buf + 16, &zero, sizeof zero);
	struct proc_root_dirs z = {0};
	proc_root_dirs_feed(&z, buf, n);
	assert_true(z.bad);
	memcpy(buf + 16, &big, sizeof big);
	struct proc_root_dirs b = {0};
	proc_root_dirs_feed(&b, buf, n);
	assert_true(b.bad);
	n = put_dirent(buf, 0, "fs", DT_DIR);
	memset(buf + 19, 'x', n - 19);
	struct proc_root_dirs nonul = {0};
	proc_root_dirs_feed(&nonul, buf, n);
	assert_true(nonul.bad);
}

/* A live priority-only scan of this process and pid (sorted into prio). */
static struct proc_scan_opts live_pair_opts(uint32_t prio[2], uint32_t pid)
{
	prio[0] = (uint32_t)getpid() < pid ? (uint32_t)getpid() : pid;
	prio[1] = (uint32_t)getpid() < pid ? pid : (uint32_t)getpid();
	return (struct proc_scan_opts){.budget_ns = 10 * SEC, .priority_pids = prio, .n_priority = 2,
				       .details_priority_only = true};
}

/* Between listings a priority PID is held by a pidfd: while it reports no
 * exit the process is the one it was (no lookup); once it exits its row goes. */
static void test_live_targeted_pidfd(void **state)
{
	(void)state;
	struct proc_cache *c = live_cache();
	struct child ch = spawn_listener(false);
	child_port(&ch);
	uint32_t prio[2];
	struct proc_scan_opts o = live_pair_opts(prio, (uint32_t)ch.pid);
	snapshot_free(scan_opts(c, &o)); /* the listing */
	fake_now_ns += SEC;
	snapshot_free(scan_opts(c, &o)); /* targeted: the pidfds are taken */
	assert_true(proc_cache_find(c, (uint32_t)ch.pid)->pidfd_slot > 0);
	fake_now_ns += SEC;
	struct gtm_snapshot *s = scan_opts(c, &o);
	assert_non_null(find_row(s, (uint32_t)ch.pid));
	snapshot_free(s);

	child_end(&ch); /* exited and reaped */
	fake_now_ns += SEC;
	s = scan_opts(c, &o);
	assert_null(find_row(s, (uint32_t)ch.pid));
	assert_non_null(find_row(s, (uint32_t)getpid()));
	assert_int_equal(proc_cache_find(c, (uint32_t)ch.pid)->pidfd_slot, 0);
	snapshot_free(s);
	proc_cache_free(c);
}

/* A child that renames itself (prctl) at each byte on cmd, answers on ack, and
 * exits when cmd closes. */
static pid_t spawn_renamer(int *cmd, int *ack)
{
	int c[2], a[2];
	assert_int_equal(pipe(c), 0);
	assert_int_equal(pipe(a), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char b;
		close(c[1]);
		close(a[0]);
		while (read(c[0], &b, 1) == 1) {
			prctl(PR_SET_NAME, "renamed-now", 0, 0, 0);
			if (write(a[1], "k", 1) != 1)
				_exit(2);
		}
		_exit(0);
	}
	close(c[0]);
	close(a[1]);
	*cmd = c[1];
	*ack = a[0];
	return pid;
}

/* The stat of a priority PID held by a pidfd is read through its stat file,
 * kept open: a change of the process shows at its next stat read (the file
 * is read again, never a copy), and once it exits both fds go with its row. */
static void test_live_targeted_held_stat(void **state)
{
	(void)state;
	struct proc_cache *c = live_cache();
	int cmd, ack;
	char b, link[64], want[64];
	pid_t child = spawn_renamer(&cmd, &ack);
	uint32_t prio[2];
	struct proc_scan_opts o = live_pair_opts(prio, (uint32_t)child);
	snapshot_free(scan_opts(c, &o)); /* the listing */
	fake_now_ns += SEC;
	snapshot_free(scan_opts(c, &o)); /* targeted: pidfd and stat file taken */
	const struct proc_entry *e = proc_cache_find(c, (uint32_t)child);
	assert_true(e->pidfd_slot > 0);
	assert_true(e->stat_fd_slot > 0);
	snprintf(want, sizeof want, "/proc/%d/stat", (int)child);
	snprintf(link, sizeof link, "/proc/self/fd/%d", e->stat_fd_slot - 1);
	char got[64] = {0};
	assert_true(readlink(link, got, sizeof got - 1) > 0);
	assert_string_equal(got, want);
	int held = e->stat_fd_slot;

	assert_int_equal(write(cmd, "n", 1), 1);
	assert_int_equal(read(ack, &b, 1), 1);
	fake_now_ns += 4 * SEC; /* its stat is due again */
	struct gtm_snapshot *s = scan_opts(c, &o);
	assert_non_null(find_row(s, (uint32_t)child));
	assert_string_equal(find_row(s, (uint32_t)child)->name, "renamed-now");
	assert_int_equal(proc_cache_find(c, (uint32_t)child)->stat_fd_slot, held); /* read through it */
	snapshot_free(s);

	close(cmd);
	int st;
	assert_int_equal(waitpid(child, &st, 0), child);
	close(ack);
	fake_now_ns += 4 * SEC;
	s = scan_opts(c, &o);
	assert_null(find_row(s, (uint32_t)child));
	e = proc_cache_find(c, (uint32_t)child);
	assert_true(!e || (e->pidfd_slot == 0 && e->stat_fd_slot == 0));
	snapshot_free(s);
	proc_cache_free(c);
}

static bool listeners_have_port(const struct proc_listeners *t, uint16_t port)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].port == port && proc_listeners_port(t, t->v[i].inode) == port)
			return true;
	return false;
}

/* Under the real root listeners come from sock_diag; /proc/net/tcp says the same. */
static void test_live_diag_matches_files(void **state)
{
	(void)state;
	struct child ch = spawn_listener(false);
	uint16_t port = child_port(&ch);
	struct proc_listeners diag = {0}, files = {0};
	char *io = malloc(PROC_IO_BUF);
	int procfd = open("/proc", O_RDONLY | O_DIRECTORY);
	assert_true(procfd >= 0);
	proc_listeners_load_files(&files, procfd, io, PROC_IO_BUF);
	assert_true(listeners_have_port(&files, port));
	if (proc_listeners_load_diag(&diag, io, PROC_IO_BUF) == 0) {
		proc_listeners_finish(&diag);
		assert_true(listeners_have_port(&diag, port));
	} else {
		printf("sock_diag unavailable here: only the /proc/net/tcp path was checked\n");
	}
	close(procfd);
	free(io);
	proc_listeners_free(&diag);
	proc_listeners_free(&files);
	child_end(&ch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tree_processes, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_tree_ports, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_tree_pid_reuse, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_tree_vanished, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_tree_rescan_rule, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_tree_budget, setup_tree, teardown_tree),
		cmocka_unit_test(test_root_dirs_feed),
		cmocka_unit_test(test_live_counted),
		cmocka_unit_test_setup_teardown(test_tree_priority_only, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_tree_root_switch, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_tree_threads_agree, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_tree_environ_deferred, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_tree_denied, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_tree_environ_bound, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_tree_pid_exists, setup_tree, teardown_tree),
		cmocka_unit_test(test_no_proc),
		cmocka_unit_test(test_live_listener),
		cmocka_unit_test(test_live_late_listener),
		cmocka_unit_test(test_live_steady_reuses_stat),
		cmocka_unit_test(test_live_ports_follow_listeners),
		cmocka_unit_test(test_live_targeted_between_listings),
		cmocka_unit_test(test_live_targeted_pidfd),
		cmocka_unit_test(test_live_targeted_held_stat),
		cmocka_unit_test(test_live_diag_matches_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
