/* The /proc parsers on crafted and real captured inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/tcp.h>

#include "core/util.h"
#include "proc.h"
#include "proc_internal.h"
#include "proc_ports.h"
#include "testutil.h"

#define S(lit) lit, sizeof(lit) - 1

static void test_stat_plain(void **state)
{
	(void)state;
	struct proc_stat st;
	/* a real line: /proc/1/stat on a 6.x kernel */
	const char line[] = "1 (process_api) S 0 0 0 0 -1 4194560 60048 670471 0 686 104 215 1788 727 20 0 13 0 23 "
			    "51421184 4747 18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	assert_int_equal(proc_stat_parse(S(line), &st), 0);
	assert_int_equal(st.pid, 1);
	assert_string_equal(st.comm, "process_api");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 0);
	assert_int_equal(st.flags, 4194560);
	assert_int_equal(st.start_time, 23);
	assert_int_equal(st.rss_pages, 4747);
}

static void test_stat_hostile_comm(void **state)
{
	(void)state;
	struct proc_stat st;
	/* comm "a) S 9 (b" : the fields resume after the LAST ')' */
	const char tricky[] = "42 (a) S 9 (b) R 7 1 1 0 -1 2097152 0 0 0 0 0 0 0 0 20 0 1 0 999 100 55 18446744073709551615";
	assert_int_equal(proc_stat_parse(S(tricky), &st), 0);
	assert_string_equal(st.comm, "a) S 9 (b");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, 7);
	assert_int_equal(st.flags, PROC_PF_KTHREAD);
	assert_int_equal(st.start_time, 999);
	assert_int_equal(st.rss_pages, 55);
	/* spaces, a newline and an escape inside comm; control bytes become '?' */
	const char ctl[] = "5 (my prog\n\033x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77 100 3";
	assert_int_equal(proc_stat_parse(S(ctl), &st), 0);
	assert_string_equal(st.comm, "my prog??x");
	assert_int_equal(st.start_time, 77);
	/* comm longer than the field: cut, not overflowed */
	char big[400];
	int n = snprintf(big, sizeof big, "6 (%0200d) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 8 100 3", 0);
	assert_int_equal(proc_stat_parse(big, (size_t)n, &st), 0);
	assert_int_equal(strlen(st.comm), sizeof st.comm - 1);
	assert_int_equal(st.rss_pages, 3);
}

static void test_stat_malformed(void **state)
{
	(void)state;
	struct proc_stat st;
	static const char *const bad[] = {
		"",
		"abc",
		"12 (x S 1",                                             /* no ')' */
		"12 x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 8 100 3", /* no '(' */
		"12 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 8 100",  /* cut before rss */
		"12 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99999999999999999999999 100 3",
		"99999999999 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 8 100 3",
		"12 (x)",
		")12 (",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(proc_stat_parse(bad[i], strlen(bad[i]), &st), -1);
	/* the length bounds the parse: a valid line cut short is refused */
	const char ok[] = "12 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 8 100 3";
	assert_int_equal(proc_stat_parse(ok, sizeof ok - 3, &st), -1);
	assert_int_equal(proc_stat_parse(S(ok), &st), 0);
}

static void test_status(void **state)
{
	(void)state;
	struct proc_status st;
	const char crafted[] = "Name:\tx\nTgid:\t77\nPid:\t78\nUid:\t1000\t1001\t1002\t1003\nVmRSS:\t    2048 kB\n";
	assert_int_equal(proc_status_parse(S(crafted), &st), 0);
	assert_true(st.has_tgid && st.tgid == 77);
	assert_true(st.has_uid && st.uid_real == 1000 && st.uid_effective == 1001);
	assert_true(st.has_vmrss && st.vmrss_bytes == 2048 * 1024);
	assert_int_equal(proc_status_parse(S("Name:\tx\nUid:\tzz\n"), &st), -1);

	/* the real llama-server capture */
	const char *dir = tu_shared_fixture("llama/qwen3-f16-c4096");
	if (!dir)
		return;
	char path[4096];
	size_t len;
	snprintf(path, sizeof path, "%s/proc_status.txt", dir);
	char *buf = tu_read_file(path, &len);
	assert_int_equal(proc_status_parse(buf, len, &st), 0);
	assert_int_equal(st.tgid, 16852);
	assert_int_equal(st.uid_effective, 0);
	assert_int_equal(st.vmrss_bytes, 60084ull * 1024);
	free(buf);
}

static void test_maps_lines(void **state)
{
	(void)state;
	size_t n;
	const char *p;
	p = proc_maps_line_path(S("7f00-7f01 r-xp 00000000 fe:00 123   /usr/lib/libc.so.6\n"), &n);
	assert_non_null(p);
	assert_int_equal(n, strlen("/usr/lib/libc.so.6"));
	assert_memory_equal(p, "/usr/lib/libc.so.6", n);
	p = proc_maps_line_path(S("7f00-7f01 r--s 00000000 fe:00 9 /srv/my models/a b.gguf (deleted)"), &n);
	assert_non_null(p);
	assert_int_equal(n, strlen("/srv/my models/a b.gguf (deleted)"));
	assert_true(proc_maps_path_deleted(p, n));
	assert_false(proc_maps_path_deleted(S("/srv/a.gguf")));
	static const char *const skipped[] = {
		"55ce07aa4000-55ce0ade9000 rw-p 00000000 00:00 0                          [heap]",
		"7fc814000000-7fc814021000 rw-p 00000000 00:00 0 ",
		"7fc814000000-7fc814021000 rw-p 00000000 00:00 0",
		"7ffd1000-7ffd2000 rw-p 00000000 00:00 0 [stack]",
		"7ffd1000-7ffd2000 rw-p 00000000 00:00 0 [anon:ggml buffer]",
		"7ffd1000-7ffd2000 rw-s 00000000 00:0e 1036 anon_inode:dmabuf",
		"7ffd1000-7ffd2000 rw-s 00000000 00:01 1036 /memfd:wayland-shm (deleted)",
		"7ffd1000-7ffd2000 rw-s 00000000 00:01 1036 /dev/zero (deleted)",
		"7ffd1000-7ffd2000 rw-s 00000000 00:01 1036 /SYSV00000000 (deleted)",
		"garbage",
		"",
		"7f00-7f01 r-xp 00000000 /usr/lib/four-fields.so",
		"7f00-7f01 r-xp 00000000 fe:00\n123 /usr/lib/split-inside-fields.so",
		"7f00-7f01 r-xp 00000000 fe:00 123\n/usr/lib/next-line.so",
	};
	for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++)
		assert_null(proc_maps_line_path(skipped[i], strlen(skipped[i]), &n));
}

static void test_maps_distinct(void **state)
{
	(void)state;
	struct proc_path_list l = {0};
	const char maps[] = "1000-2000 r--p 00000000 fe:00 1 /bin/a\n"
			    "2000-3000 r-xp 00001000 fe:00 1 /bin/a\n"
			    "3000-4000 rw-p 00000000 00:00 0 [heap]\n"
			    "4000-5000 r--p 00000000 fe:00 2 /lib/b.so\n"
			    "5000-6000 r--p 00000000 fe:00 1 /bin/a\n"
			    "6000-7000 r--s 00000000 fe:00 3 /m/x.gguf\n"
			    "7000-8000 r--p 00001000 fe:00 2 /lib/b.so";
	proc_maps_parse(S(maps), &l);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0], "/bin/a");
	assert_string_equal(l.v[1], "/lib/b.so");
	assert_string_equal(l.v[2], "/m/x.gguf");
	proc_path_list_free(&l);

	/* many distinct paths: the index grows, order is kept, the cap holds */
	for (int i = 0; i < PROC_MAPS_MAX_PATHS + 50; i++) {
		char line[128];
		int k = snprintf(line, sizeof line, "1000-2000 r--p 00000000 fe:00 %d /lib/l%d.so", i, i % (PROC_MAPS_MAX_PATHS + 10));
		proc_path_list_add_maps_line(&l, line, (size_t)k);
	}
	assert_int_equal(l.n, PROC_MAPS_MAX_PATHS);
	assert_string_equal(l.v[1000], "/lib/l1000.so");
	size_t n;
	char **v = proc_path_list_take(&l, &n);
	assert_int_equal(n, PROC_MAPS_MAX_PATHS);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool has_path(const struct proc_path_list *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], path) == 0)
			return true;
	return false;
}

/* The real llama-server maps: the model mapped r--s, the runtime libraries. */
static void test_maps_real_captures(void **state)
{
	(void)state;
	static const char *const runs[] = {"qwen3-f16-c4096", "gemma3-f16-c4096", "llama-f16-c4096-defaultverbosity",
					   "llama-q8_0-alias-nometrics-noslots"};
	int seen = 0;
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
		char sub[128], path[4096];
		snprintf(sub, sizeof sub, "llama/%s", runs[r]);
		const char *dir = tu_shared_fixture(sub);
		if (!dir)
			continue;
		snprintf(path, sizeof path, "%s/proc_maps.txt", dir);
		if (access(path, R_OK) != 0)
			continue;
		size_t len;
		char *buf = tu_read_file(path, &len);
		struct proc_path_list l = {0};
		proc_maps_parse(buf, len, &l);
		assert_true(has_path(&l, "/opt/llama.cpp/bin/llama-server"));
		bool model = false, libllama = false;
		for (size_t i = 0; i < l.n; i++) {
			assert_int_equal(l.v[i][0], '/');
			assert_null(strchr(l.v[i], '['));
			model |= str_ends(l.v[i], ".gguf");
			libllama |= strstr(l.v[i], "libllama") != NULL;
			for (size_t j = 0; j < i; j++)
				assert_string_not_equal(l.v[i], l.v[j]);
		}
		assert_true(model);
		assert_true(libllama);
		proc_path_list_free(&l);
		free(buf);
		seen++;
	}
	if (!seen)
		skip();
}

static void test_tcp_lines(void **state)
{
	(void)state;
	struct proc_tcp_row r;
	assert_int_equal(proc_tcp_line_parse(S("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode"), &r), -1);
	/* the kernel's own example row (proc_net_tcp.rst): 127.0.0.1:8080 LISTEN */
	assert_int_equal(proc_tcp_line_parse(S("   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 54165785 4 cd1e6040 25 4 27 3 -1\n"), &r), 0);
	assert_int_equal(r.addr, PROC_ADDR_LOOPBACK);
	assert_int_equal(r.port, 8080);
	assert_int_equal(r.state, PROC_TCP_LISTEN);
	assert_int_equal(r.inode, 54165785);
	assert_true(proc_tcp_row_is_loopback_listener(&r));
	/* 127.1.2.3 is loopback too */
	assert_int_equal(proc_tcp_line_parse(S("1: 0302017F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 5 1"), &r), 0);
	assert_true(proc_tcp_row_is_loopback_listener(&r));
	/* 0.0.0.0:2024 LISTEN (a real row): wildcard, reachable on loopback */
	assert_int_equal(proc_tcp_line_parse(S("   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 637 1 00000000e580f08f 100 0 0 10 0"), &r), 0);
	assert_int_equal(r.addr, PROC_ADDR_ANY);
	assert_true(proc_tcp_row_is_loopback_listener(&r));
	/* 10.0.0.5:9000 */
	assert_int_equal(proc_tcp_line_parse(S("2: 0500000A:2328 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 9 1"), &r), 0);
	assert_int_equal(r.addr, PROC_ADDR_OTHER);
	/* an established loopback connection is not a listener */
	assert_int_equal(proc_tcp_line_parse(S("3: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000 0 0 10 1"), &r), 0);
	assert_false(proc_tcp_row_is_loopback_listener(&r));
	/* v6: ::1, ::ffff:127.0.0.1, ::, 2001:db8::1, fe80::1 */
	assert_int_equal(proc_tcp_line_parse(S("0: 00000000000000000000000001000000:2CAA 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 444 1"), &r), 0);
	assert_int_equal(r.addr, PROC_ADDR_LOOPBACK);
	assert_int_equal(r.port, 11434);
	assert_int_equal(proc_tcp_line_parse(S("1: 0000000000000000FFFF00000100007F:1388 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 555 1"), &r), 0);
	assert_int_equal(r.addr, PROC_ADDR_LOOPBACK);
	assert_int_equal(r.port, 5000);
	assert_int_equal(proc_tcp_line_parse(S("2: 00000000000000000000000000000000:1B58 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 666 1"), &r), 0);
	assert_int_equal(r.addr, PROC_ADDR_ANY);
	assert_int_equal(proc_tcp_line_parse(S("3: B80D0120000000000000000001000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 7 1"), &r), 0);
	assert_int_equal(r.addr, PROC_ADDR_OTHER);
	assert_int_equal(proc_tcp_line_parse(S("4: 000080FE000000000000000001000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 8 1"), &r), 0);
	assert_int_equal(r.addr, PROC_ADDR_OTHER);
	/* malformed */
	static const char *const bad[] = {
		"0: 0100007F 00000000:0000 0A",
		"0: 0100007F:1F90 00000000:0000",
		"0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0",
		"0: 100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1",
		"0: 0100007G:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1",
		"0: 0100007F:1F9 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1",
		"0: 0100007F:1F90 00000000:0000 10A 00000000:00000000 00:00000000 00000000 0 0 1",
		"",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(proc_tcp_line_parse(bad[i], strlen(bad[i]), &r), -1);
}

/* Appends one netlink message of a sock_diag dump. */
static size_t put_diag(unsigned char *buf, size_t off, uint8_t family, uint8_t state, uint16_t port,
		       const uint8_t *src, size_t srclen, uint32_t inode, uint32_t seq)
{
	struct nlmsghdr h = {.nlmsg_len = NLMSG_LENGTH(sizeof(struct inet_diag_msg)), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			     .nlmsg_seq = seq};
	struct inet_diag_msg m = {.idiag_family = family, .idiag_state = state, .idiag_inode = inode};
	m.id.idiag_sport = htons(port);
	memcpy(m.id.idiag_src, src, srclen);
	memcpy(buf + off, &h, sizeof h);
	memcpy(buf + off + NLMSG_HDRLEN, &m, sizeof m);
	return off + NLMSG_ALIGN(h.nlmsg_len);
}

static void test_diag_parse(void **state)
{
	(void)state;
	static const uint8_t lo4[4] = {127, 0, 0, 1}, any4[4] = {0}, lo6[16] = {[15] = 1}, net4[4] = {10, 0, 0, 5};
	unsigned char buf[2048] __attribute__((aligned(8)));
	struct proc_listeners t = {0};
	const uint32_t seq = PROC_DIAG_SEQ;
	size_t n = 0;
	n = put_diag(buf, n, AF_INET, TCP_LISTEN, 8080, lo4, 4, 1234, seq);
	n = put_diag(buf, n, AF_INET, TCP_LISTEN, 22, any4, 4, 99, seq);       /* wildcard */
	n = put_diag(buf, n, AF_INET, TCP_LISTEN, 9000, net4, 4, 98, seq);     /* another address */
	n = put_diag(buf, n, AF_INET6, TCP_LISTEN, 11434, lo6, 16, 4444, seq);
	n = put_diag(buf, n, AF_INET, TCP_LISTEN, 7, lo4, 4, 97, seq + 1);     /* another request's */
	n = put_diag(buf, n, AF_INET, 1 /* ESTABLISHED */, 8081, lo4, 4, 96, seq);
	assert_int_equal(proc_diag_parse(buf, n, &t), 0); /* no DONE yet: more to come */
	struct nlmsghdr done = {.nlmsg_len = NLMSG_LENGTH(4), .nlmsg_type = NLMSG_DONE, .nlmsg_seq = seq};
	memcpy(buf, &done, sizeof done);
	memset(buf + sizeof done, 0, 4);
	assert_int_equal(proc_diag_parse(buf, NLMSG_LENGTH(4), &t), 1);
	proc_listeners_finish(&t);
	assert_int_equal(t.n, 3);
	assert_int_equal(proc_listeners_port(&t, 1234), 8080);
	assert_int_equal(proc_listeners_port(&t, 4444), 11434);
	assert_int_equal(proc_listeners_port(&t, 99), 22); /* wildcard: reachable on loopback */
	assert_int_equal(proc_listeners_port(&t, 98), -1); /* another address */
	/* an error reply, and a length that runs past the buffer */
	struct nlmsghdr eh = {.nlmsg_len = NLMSG_LENGTH(sizeof(struct nlmsgerr)), .nlmsg_type = NLMSG_ERROR, .nlmsg_seq = seq};
	struct nlmsgerr e = {.error = -ENOENT};
	memcpy(buf, &eh, sizeof eh);
	memcpy(buf + NLMSG_HDRLEN, &e, sizeof e);
	assert_int_equal(proc_diag_parse(buf, eh.nlmsg_len, &t), -1);
	assert_int_equal(errno, ENOENT);
	eh.nlmsg_len = 4000;
	memcpy(buf, &eh, sizeof eh);
	assert_int_equal(proc_diag_parse(buf, 64, &t), -1);
	proc_listeners_free(&t);
}

/* A set of (inode, port) listeners, sorted as a load leaves it. */
static void listeners_of(struct proc_listeners *t, const struct proc_listener *v, size_t n)
{
	t->n = 0;
	for (size_t i = 0; i < n; i++) {
		t->v = grow_array(t->v, sizeof *t->v, &t->cap, t->n);
		t->v[t->n++] = v[i];
	}
	proc_listeners_finish(t);
}

/* A change that only removed listeners, none of them on a process's ports,
 * keeps its ports; an added one, a moved port, or a removed one on its
 * ports does not (its fds are read again). */
static void test_listeners_removed_only(void **state)
{
	(void)state;
	static const struct proc_listener all[] = {{30, 8080}, {10, 22}, {20, 11434}, {40, 5000}};
	static const struct proc_listener less[] = {{10, 22}, {30, 8080}};
	static const struct proc_listener moved[] = {{10, 22}, {30, 8081}};
	static const struct proc_listener added[] = {{10, 22}, {30, 8080}, {35, 9000}};
	static const struct proc_listener first_gone[] = {{20, 11434}, {30, 8080}, {40, 5000}};
	struct proc_listeners before = {0}, now = {0};
	const uint16_t mine[] = {8080}, theirs[] = {11434}, full[PROC_MAX_PORTS] = {1};

	listeners_of(&before, all, 4);
	listeners_of(&now, less, 2);
	assert_true(proc_listeners_removed_only(&before, &now, mine, 1));
	assert_true(proc_listeners_removed_only(&before, &now, NULL, 0));
	assert_false(proc_listeners_removed_only(&before, &now, theirs, 1)); /* 11434 left: perhaps ours */
	assert_false(proc_listeners_removed_only(&before, &now, full, PROC_MAX_PORTS)); /* the list may be cut */
	listeners_of(&now, moved, 2);
	assert_false(proc_listeners_removed_only(&before, &now, mine, 1));
	listeners_of(&now, added, 3);
	assert_false(proc_listeners_removed_only(&before, &now, mine, 1));
	listeners_of(&now, first_gone, 3);
	assert_true(proc_listeners_removed_only(&before, &now, theirs, 1));
	assert_false(proc_listeners_removed_only(&now, &before, mine, 1)); /* the other way: one added */
	listeners_of(&now, NULL, 0);
	assert_true(proc_listeners_removed_only(&before, &now, NULL, 0));
	assert_false(proc_listeners_removed_only(&before, &now, mine, 1));
	/* against the set before the last change a load saw: unknown sig, no */
	assert_false(proc_listeners_kept_since(before.sig ^ 1, &now, NULL, 0));
	proc_listeners_free(&before);
	proc_listeners_free(&now);
}

static void test_socket_inode(void **state)
{
	(void)state;
	assert_int_equal(proc_socket_inode(S("socket:[61994]")), 61994);
	assert_int_equal(proc_socket_inode(S("socket:[]")), 0);
	assert_int_equal(proc_socket_inode(S("socket:[12")), 0);
	assert_int_equal(proc_socket_inode(S("socket:[12]x")), 0);
	assert_int_equal(proc_socket_inode(S("socket:[ 12]")), 0);
	assert_int_equal(proc_socket_inode(S("pipe:[60197]")), 0);
	assert_int_equal(proc_socket_inode(S("/dev/null")), 0);
	assert_int_equal(proc_socket_inode(S("socket:[99999999999999999999999]")), 0);
}

static void test_split_nul(void **state)
{
	(void)state;
	int n;
	char **v = proc_split_nul(S("/bin/llama-server\0-m\0/srv/a b.gguf\0"), 64, &n);
	assert_int_equal(n, 3);
	assert_string_equal(v[2], "/srv/a b.gguf");
	assert_null(v[3]);
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
	/* no final NUL (a rewritten title), an empty argument, the item cap */
	v = proc_split_nul(S("a\0\0title without nul"), 64, &n);
	assert_int_equal(n, 3);
	assert_string_equal(v[1], "");
	assert_string_equal(v[2], "title without nul");
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
	v = proc_split_nul(S("a\0b\0c\0"), 2, &n);
	assert_int_equal(n, 2);
	assert_null(v[2]);
	free(v[0]);
	free(v[1]);
	free(v);
	v = proc_split_nul("", 0, 64, &n);
	assert_int_equal(n, 0);
	assert_null(v[0]);
	free(v);
}

static void test_passwd(void **state)
{
	(void)state;
	char name[33];
	const char pw[] = "# comment\nroot:x:0:0:root:/root:/bin/bash\nbroken\n:x:5:5::/:\nalice:x:1000:1000::/home/alice:/bin/sh\nbob:x:10001";
	assert_int_equal(proc_passwd_lookup(S(pw), 0, name, sizeof name), 0);
	assert_string_equal(name, "root");
	assert_int_equal(proc_passwd_lookup(S(pw), 1000, name, sizeof name), 0);
	assert_string_equal(name, "alice");
	assert_int_equal(proc_passwd_lookup(S(pw), 5, name, sizeof name), -1);     /* empty name */
	assert_int_equal(proc_passwd_lookup(S(pw), 10001, name, sizeof name), -1); /* cut line */
	assert_int_equal(proc_passwd_lookup(S(pw), 100, name, sizeof name), -1);
	assert_int_equal(proc_passwd_lookup(S(pw), 1000, name, 3), 0);
	assert_string_equal(name, "al");
}

struct lines {
	int n;
	char last[64];
};

static void count_line(const char *line, size_t len, void *ctx)
{
	struct lines *l = ctx;
	l->n++;
	snprintf(l->last, sizeof l->last, "%.*s", (int)len, line);
}

/* A line longer than the buffer is skipped whole, the rest survive. */
static void test_stream_lines(void **state)
{
	(void)state;
	char *dir = tu_tempdir();
	char path[4096], io[32];
	snprintf(path, sizeof path, "%s/f", dir);
	const char text[] = "short\nthis line is much longer than thirty-two bytes\nmid\nend";
	tu_write_file(path, text, sizeof text - 1);
	FILE *f = fopen(path, "r");
	struct lines l = {0};
	assert_int_equal(proc_fd_for_each_line(fileno(f), io, sizeof io, count_line, &l), 0);
	fclose(f);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.last, "end");
	tu_rmrf(dir);
	free(dir);
}

/* The proc mount's hidepid option in /proc/self/mountinfo (proc(5)). */
static void test_mountinfo_hidepid(void **state)
{
	(void)state;
	static const char base[] = "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
				   "23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc ";
	static const struct {
		const char *opts;
		bool hides;
	} cases[] = {
		{"rw", false},
		{"rw,hidepid=noaccess", true},
		{"rw,hidepid=1,gid=4", true},
		{"rw,hidepid=2", false},         /* invisible: not even listed */
		{"rw,hidepid=invisible", false},
		{"rw,hidepid=4", false},          /* ptraceable: listed only when readable */
		{"rw,hidepid=10", false},
		{"rw,xhidepid=1", false},
	};
	char buf[512];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int n = snprintf(buf, sizeof buf, "%s%s\n", base, cases[i].opts);
		assert_int_equal(proc_mountinfo_hides_pids(buf, (size_t)n), cases[i].hides);
		/* cut before the options: nothing said */
		assert_false(proc_mountinfo_hides_pids(buf, sizeof base - 1 - 5));
	}
	/* other mount points and types do not count; the last mount at /proc does */
	assert_false(proc_mountinfo_hides_pids(S("30 23 0:30 / /proc/sys rw - proc proc rw,hidepid=1\n")));
	assert_false(proc_mountinfo_hides_pids(S("30 22 0:30 / /proc rw - tmpfs none rw,hidepid=1\n")));
	assert_false(proc_mountinfo_hides_pids(S("30 22 0:30 / /procx rw - proc proc rw,hidepid=1\n")));
	assert_true(proc_mountinfo_hides_pids(S("23 22 0:21 / /proc rw - proc proc rw\n"
						"40 23 0:21 / /proc rw shared:9 - proc proc rw,hidepid=1\n")));
	assert_false(proc_mountinfo_hides_pids(S("23 22 0:21 / /proc rw - proc proc rw,hidepid=1\n"
						 "40 23 0:21 / /proc rw - proc proc rw\n")));
	assert_false(proc_mountinfo_hides_pids(S("23 22 0:21 / /proc rw - proc\n")));
	assert_false(proc_mountinfo_hides_pids(S("")));
}

/* The options that rule out counting /proc by its link count (proc_count.c). */
static void test_mountinfo_flags(void **state)
{
	(void)state;
	static const char base[] = "23 22 0:21 / /proc rw,nosuid shared:12 - proc proc ";
	static const struct {
		const char *opts;
		unsigned flags;
	} cases[] = {
		{"rw", 0},
		{"rw,hidepid=1", PROC_MOUNT_NOACCESS},
		{"rw,hidepid=noaccess", PROC_MOUNT_NOACCESS},
		{"rw,hidepid=2", PROC_MOUNT_INVISIBLE},
		{"rw,hidepid=invisible,gid=4", PROC_MOUNT_INVISIBLE},
		{"rw,hidepid=4", PROC_MOUNT_INVISIBLE},
		{"rw,hidepid=ptraceable", PROC_MOUNT_INVISIBLE},
		{"rw,subset=pid", PROC_MOUNT_SUBSET},
		{"rw,hidepid=invisible,subset=pid", PROC_MOUNT_INVISIBLE | PROC_MOUNT_SUBSET},
		{"rw,subset=pids,hidepid=0", 0},
		{"rw,hidepid=off", 0},
	};
	char buf[256];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int n = snprintf(buf, sizeof buf, "%s%s\n", base, cases[i].opts);
		assert_int_equal(proc_mountinfo_flags(buf, (size_t)n), cases[i].flags);
	}
	/* the last mount at /proc decides, another mount point never */
	assert_int_equal(proc_mountinfo_flags(S("23 22 0:21 / /proc rw - proc proc rw,subset=pid\n"
						"40 23 0:21 / /proc rw - proc proc rw\n")), 0);
	assert_int_equal(proc_mountinfo_flags(S("23 22 0:21 / /proc rw - proc proc rw\n"
						"41 23 0:33 / /proc/x rw - proc proc rw,hidepid=2\n")), 0);
}

/* The scan's relative paths are what snprintf "%u/%s" writes, cut alike. */
static void test_pid_file_path(void **state)
{
	(void)state;
	static const uint32_t pids[] = {0, 1, 9, 10, 99, 12345, 4194304, UINT32_MAX};
	static const char *const whats[] = {"stat", "cmdline", "", "fd"};
	for (size_t i = 0; i < sizeof pids / sizeof pids[0]; i++)
		for (size_t w = 0; w < sizeof whats / sizeof whats[0]; w++)
			for (size_t n = 1; n <= 24; n++) {
				char got[32], want[32];
				memset(got, 'x', sizeof got);
				proc_pid_file(got, n, pids[i], whats[w]);
				snprintf(want, n, "%u/%s", pids[i], whats[w]);
				assert_string_equal(got, want);
			}
	char untouched = 'x';
	proc_pid_file(&untouched, 0, 42, "stat");
	assert_int_equal(untouched, 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_file_path),
		cmocka_unit_test(test_stat_plain),       cmocka_unit_test(test_stat_hostile_comm),
		cmocka_unit_test(test_stat_malformed),   cmocka_unit_test(test_status),
		cmocka_unit_test(test_maps_lines),       cmocka_unit_test(test_maps_distinct),
		cmocka_unit_test(test_maps_real_captures), cmocka_unit_test(test_tcp_lines),
		cmocka_unit_test(test_socket_inode),     cmocka_unit_test(test_diag_parse),
		cmocka_unit_test(test_listeners_removed_only), cmocka_unit_test(test_split_nul),
		cmocka_unit_test(test_passwd),           cmocka_unit_test(test_stream_lines),
		cmocka_unit_test(test_mountinfo_hidepid),
		cmocka_unit_test(test_mountinfo_flags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
