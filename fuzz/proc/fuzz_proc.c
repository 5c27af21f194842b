/* Fuzzes the /proc parsers. The first byte picks the parser, the rest is the
 * file content: 0 stat, 1 status, 2 maps (whole file into a path list),
 * 3 net/tcp(6) (whole file into a listener table), 4 cmdline/environ split,
 * 5 passwd lookup, 6 fd link targets, 7 a sock_diag netlink reply,
 * 8 mountinfo (whether /proc hides PIDs, and its options' flags), 9 getdents64
 * records of /proc's root (its static folders). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "proc_internal.h"

static void fuzz_stat(const char *b, size_t n)
{
	struct proc_stat st;
	if (proc_stat_parse(b, n, &st) == 0 && strlen(st.comm) >= sizeof st.comm)
		abort();
}

static void fuzz_status(const char *b, size_t n)
{
	struct proc_status st;
	(void)proc_status_parse(b, n, &st);
}

static void fuzz_maps(const char *b, size_t n)
{
	struct proc_path_list l = {0};
	proc_maps_parse(b, n, &l);
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i][0] != '/')
			abort();
	proc_path_list_free(&l);
}

static void add_line(const char *line, size_t len, void *t)
{
	proc_listeners_add_line(t, line, len);
}

static void fuzz_tcp(const char *b, size_t n)
{
	struct proc_listeners t = {0};
	proc_for_each_line(b, n, add_line, &t);
	proc_listeners_finish(&t);
	for (size_t i = 0; i < t.n; i++)
		if (proc_listeners_port(&t, t.v[i].inode) < 0)
			abort();
	proc_listeners_free(&t);
}

static void fuzz_split(const char *b, size_t n)
{
	int count;
	char **v = proc_split_nul(b, n, 64, &count);
	for (int i = 0; i < count; i++)
		free(v[i]);
	if (v[count] != NULL)
		abort();
	free(v);
}

static void fuzz_passwd(const char *b, size_t n)
{
	char name[33];
	(void)proc_passwd_lookup(b, n, 0, name, sizeof name);
	(void)proc_passwd_lookup(b, n, 1000, name, sizeof name);
}

static void fuzz_link(const char *b, size_t n)
{
	(void)proc_socket_inode(b, n);
}

static void fuzz_diag(const char *b, size_t n)
{
	struct proc_listeners t = {0};
	(void)proc_diag_parse(b, n, &t);
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].inode == 0)
			abort();
	proc_listeners_free(&t);
}

static void fuzz_mountinfo(const char *b, size_t n)
{
	bool hides = proc_mountinfo_hides_pids(b, n);
	if (hides != ((proc_mountinfo_flags(b, n) & PROC_MOUNT_NOACCESS) != 0))
		abort();
}

/* Any bytes: bounded, and no more folders than records fit. */
static void fuzz_root_dirs(const char *b, size_t n)
{
	struct proc_root_dirs whole = {0};
	proc_root_dirs_feed(&whole, b, n);
	if (whole.dirs > n / 20)
		abort(); /* a record is at least 20 bytes */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void (*const targets[])(const char *, size_t) = {
		fuzz_stat, fuzz_status, fuzz_maps, fuzz_tcp, fuzz_split, fuzz_passwd, fuzz_link, fuzz_diag,
		fuzz_mountinfo, fuzz_root_dirs,
	};
	if (size == 0)
		return 0;
	/* a private copy, so an over-read is a sanitizer error, not a lucky NUL */
	size_t n = size - 1;
	char *buf = malloc(n ? n : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, n);
	targets[data[0] % (sizeof targets / sizeof targets[0])](buf, n);
	free(buf);
	return 0;
}
