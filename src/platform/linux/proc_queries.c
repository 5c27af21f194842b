/* What the collector asks of the process cache after a scan: a row's
 * details and ports read on demand, the boot time, whether a PID exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "proc_ports.h"
#include "proc_scan_internal.h"

int proc_detail_load(struct proc_cache *c, struct gtm_process *p)
{
	struct proc_entry *e = c && p && p->pid ? proc_cache_find(c, p->pid) : NULL;
	int procfd = e ? proc_cache_procfd(c) : -1;

	if (!e || e->start_time != p->start_time || procfd < 0)
		return -1;
	if (!e->detailed) {
		struct proc_detail_how how = {.kthread = (e->last_stat.flags & PROC_PF_KTHREAD) != 0,
					      .defer_environ = true,
					      .pidfd_uid = proc_pidfd_uid_usable(c, procfd),
					      .spans = c->spans,
					      .start_code = e->last_stat.start_code};
		if (proc_detail_read(procfd, c->io, &how, e) != PROC_DETAIL_OK)
			return -1;
		e->detail_rss = rss_bytes(c, &e->last_stat);
		e->detail_at_ns = c->clock();
	}
	proc_detail_unref(p->detail);
	p->detail = proc_detail_ref(e->detail);
	return e->denied ? 1 : 0;
}

int proc_refresh_ports(struct proc_cache *c, struct gtm_process *p)
{
	const struct proc_listeners *t;
	uint16_t ports[PROC_MAX_PORTS];
	struct proc_entry *e;
	int n = 0, procfd;

	if (!c || !p || p->pid == 0)
		return -1;
	/* one /proc fd for every row of a refresh, not an open per row */
	procfd = proc_cache_procfd(c);
	if (procfd < 0)
		return -1;
	t = proc_cache_listeners(c, procfd);
	if (t->n > 0 && proc_read_ports(procfd, p->pid, t, ports, &n) != 0)
		return -1;
	memcpy(p->ports, ports, (size_t)n * sizeof *ports);
	p->n_ports = n;
	p->ports_read = true;
	e = proc_cache_find(c, p->pid);
	if (e && e->start_time == p->start_time) {
		memcpy(e->ports, ports, (size_t)n * sizeof *ports);
		e->n_ports = n;
		e->ports_read = true;
		e->ports_sig = t->sig;
		e->ports_fds_at_ns = c->clock();
	}
	return 0;
}

/* The listeners are the set they were at this entry's last fd read, or
 * that set less some that were not on its ports (the entry then stands for
 * the new set: the next change is told against it). */
static bool listeners_unchanged(struct proc_cache *c, struct proc_entry *e, uint64_t now)
{
	const struct proc_listeners *t;
	int procfd;

	if (!e->ports_read || now - e->ports_fds_at_ns >= PROC_PORTS_MAX_AGE_NS)
		return false;
	procfd = proc_cache_procfd(c);
	if (procfd < 0)
		return false;
	t = proc_cache_listeners(c, procfd);
	if (t->sig == e->ports_sig)
		return true;
	if (!proc_listeners_kept_since(e->ports_sig, t, e->ports, e->n_ports))
		return false;
	e->ports_sig = t->sig;
	return true;
}

int proc_refresh_ports_if_older(struct proc_cache *c, struct gtm_process *p, uint64_t max_age_ns)
{
	struct proc_entry *e = c && p && p->pid ? proc_cache_find(c, p->pid) : NULL;
	uint64_t now = c ? c->clock() : 0;
	bool known = max_age_ns && e && e->start_time == p->start_time && e->ports_at_ns;

	if (known && now - e->ports_at_ns < max_age_ns)
		return 1;
	if (known && listeners_unchanged(c, e, now)) {
		e->ports_at_ns = now ? now : 1;
		return 1;
	}
	int r = proc_refresh_ports(c, p);
	if (r == 0 && e && e->start_time == p->start_time)
		e->ports_at_ns = now ? now : 1;
	return r;
}

int64_t proc_start_epoch_s(void)
{
	char buf[8192];
	if (sysroot_read(buf, sizeof buf, "/proc/stat") <= 0)
		return INT64_MIN;
	const char *b = strstr(buf, "\nbtime ");
	return b ? strtoll(b + 7, NULL, 10) : INT64_MIN;
}

bool proc_pid_exists(uint32_t pid)
{
	char buf[4096];
	struct proc_status st;
	struct stat sb;
	ssize_t k;

	if (pid == 0 || sysroot_stat(&sb, "/proc/%u", pid) != 0 || !S_ISDIR(sb.st_mode))
		return false;
	/* /proc/TID of a thread resolves too, though readdir never lists it */
	k = sysroot_read(buf, sizeof buf, "/proc/%u/status", pid);
	if (k > 0 && proc_status_parse(buf, (size_t)k, &st) == 0 && st.has_tgid && st.tgid != pid)
		return false;
	return true;
}
