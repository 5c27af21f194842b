/* Whether /proc hides other users' processes from us: the proc mount option
 * hidepid=1 ("noaccess", Documentation/filesystems/proc.rst, "Mount options")
 * lists every PID but refuses the files of processes we may not ptrace, so a
 * count of /proc alone would not say how many are uninspectable. hidepid=2
 * and 4 leave them out of the listing, which is all a listing sees anyway,
 * but not out of the count the root folder's link count gives (proc_count.c),
 * and subset=pid leaves the static entries out of the listing but not out of
 * that link count: either rules the link count out. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "proc_internal.h"

struct hide_scan {
	unsigned flags;
};

/* The n-th space-separated field of a line (0-based), or NULL. */
static const char *field(const char *s, const char *end, int n, size_t *len)
{
	for (int i = 0;; i++) {
		while (s < end && *s == ' ')
			s++;
		const char *f = s;
		while (s < end && *s != ' ')
			s++;
		if (f == s)
			return NULL;
		if (i == n) {
			*len = (size_t)(s - f);
			return f;
		}
	}
}

static bool has_option(const char *opts, size_t len, const char *want)
{
	size_t n = strlen(want);
	for (const char *p = opts, *end = opts + len; p < end;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t k = comma ? (size_t)(comma - p) : (size_t)(end - p);
		if (k == n && memcmp(p, want, n) == 0)
			return true;
		p += k + 1;
	}
	return false;
}

/* "36 35 0:21 / /proc rw,nosuid - proc proc rw,hidepid=noaccess" (proc(5),
 * /proc/PID/mountinfo): mount point field 4; after the " - " separator the
 * type and the source, then the super options. The last mount at /proc wins. */
static void mount_line(const char *line, size_t len, void *ctx)
{
	struct hide_scan *h = ctx;
	const char *end = line + len, *mp, *sep, *type, *opts;
	size_t n, tn, on;

	mp = field(line, end, 4, &n);
	if (!mp || n != 5 || memcmp(mp, "/proc", 5) != 0)
		return;
	sep = NULL;
	for (const char *p = mp + n; p + 3 <= end; p++)
		if (memcmp(p, " - ", 3) == 0) {
			sep = p + 3;
			break;
		}
	if (!sep || !(type = field(sep, end, 0, &tn)) || tn != 4 || memcmp(type, "proc", 4) != 0)
		return;
	opts = field(sep, end, 2, &on);
	h->flags = opts ? proc_mount_opts_flags(opts, on) : 0;
}

unsigned proc_mount_opts_flags(const char *opts, size_t on)
{
	unsigned flags = 0;
	if (has_option(opts, on, "hidepid=1") || has_option(opts, on, "hidepid=noaccess"))
		flags |= PROC_MOUNT_NOACCESS;
	if (has_option(opts, on, "hidepid=2") || has_option(opts, on, "hidepid=invisible") ||
	    has_option(opts, on, "hidepid=4") || has_option(opts, on, "hidepid=ptraceable"))
		flags |= PROC_MOUNT_INVISIBLE;
	if (has_option(opts, on, "subset=pid"))
		flags |= PROC_MOUNT_SUBSET;
	return flags;
}

unsigned proc_mountinfo_flags(const char *buf, size_t len)
{
	struct hide_scan h = {0};
	proc_for_each_line(buf, len, mount_line, &h);
	return h.flags;
}

bool proc_mountinfo_hides_pids(const char *buf, size_t len)
{
	return (proc_mountinfo_flags(buf, len) & PROC_MOUNT_NOACCESS) != 0;
}

/* Read once per root: the options of the mount at /proc. */
unsigned proc_mount_flags(struct proc_cache *c)
{
	if (!c->mount_flags_known) {
		/* the live /proc: its own mount asked of the kernel, where it can say */
		int procfd = sysroot_prefix()[0] == '\0' ? proc_cache_procfd(c) : -1;
		if (procfd < 0 || !proc_mount_flags_of_fd(procfd, &c->mount_flags)) {
			size_t len = 0;
			char *buf = sysroot_slurp(1u << 20, &len, "/proc/self/mountinfo");
			c->mount_flags = buf ? proc_mountinfo_flags(buf, len) : PROC_MOUNT_UNKNOWN;
			free(buf);
		}
		c->mount_flags_known = true;
	}
	return c->mount_flags;
}

bool proc_stat_may_be_refused(struct proc_cache *c)
{
	if (c->stat_refusal == 0) {
		unsigned f = proc_mount_flags(c);
		/* root may read every process's files whatever the option says;
		 * a tree replayed under GPUTASKMAN_ROOT holds what it holds */
		bool refusable = f != PROC_MOUNT_UNKNOWN && (f & PROC_MOUNT_NOACCESS) && (geteuid() != 0 || sysroot_prefix()[0]);
		c->stat_refusal = refusable ? 2 : 1;
	}
	return c->stat_refusal == 2;
}
