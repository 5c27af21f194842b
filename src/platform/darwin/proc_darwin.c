/* The macOS process scan (platform_api.h): one sysctl(KERN_PROC_ALL) lists
 * every process with its parent, user, name and start time (readable for
 * all, as ps reads them); the details (proc_info_darwin.c) are read for
 * what macOS lets us see and kept by (PID, start time). */
#include "platform.h"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysctl.h>

#include "core/util.h"
#include "proc_info_darwin.h"

static int cmp_u32_of(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

struct cached {
	uint32_t pid;
	uint64_t start_time;
	struct gtm_proc_detail *detail; /* NULL: refused */
	uint16_t ports[16];
	int n_ports;
	uint64_t ports_ns;              /* when the ports were read; 0 never */
	uint32_t gen;
};

struct proc_cache {
	struct cached *v;
	size_t n, cap;
	uint32_t *listed; /* the last scan's PIDs, sorted */
	size_t n_listed;
	uint32_t gen;
	bool scanned;
};

struct proc_cache *proc_cache_new(void)
{
	return xcalloc(1, sizeof(struct proc_cache));
}

void proc_cache_free(struct proc_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		proc_detail_unref(c->v[i].detail);
	free(c->v);
	free(c->listed);
	free(c);
}

static struct cached *find(struct proc_cache *c, uint32_t pid, uint64_t st)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].pid == pid && c->v[i].start_time == st)
			return &c->v[i];
	return NULL;
}

static struct gtm_proc_detail *read_detail(uint32_t pid, bool want_env)
{
	struct gtm_proc_detail *d = xcalloc(1, sizeof *d);
	atomic_init(&d->refs, 1);
	if (!darwin_proc_args(pid, d, want_env)) {
		free(d);
		return NULL;
	}
	d->environ_deferred = !want_env;
	d->exe = darwin_proc_exe(pid);
	d->cwd = darwin_proc_cwd(pid);
	darwin_proc_maps(pid, d);
	return d;
}

static void user_of(uid_t uid, char *out, size_t cap)
{
	struct passwd pw, *res = NULL;
	char buf[1024];
	if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res)
		str_copy(out, res->pw_name, cap);
	else
		snprintf(out, cap, "%u", (unsigned)uid);
}

static struct kinfo_proc *list_all(size_t *n)
{
	int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_ALL, 0};
	for (int tries = 0; tries < 4; tries++) {
		size_t len = 0;
		if (sysctl(mib, 4, NULL, &len, NULL, 0) != 0)
			return NULL;
		len += len / 8 + 16 * sizeof(struct kinfo_proc); /* room for processes started meanwhile */
		struct kinfo_proc *kp = xmalloc(len);
		if (sysctl(mib, 4, kp, &len, NULL, 0) == 0) {
			*n = len / sizeof *kp;
			return kp;
		}
		free(kp);
		if (errno != ENOMEM)
			return NULL;
	}
	return NULL;
}

static bool is_priority(const struct proc_scan_opts *o, uint32_t pid)
{
	return o && o->n_priority &&
	       bsearch(&pid, o->priority_pids, o->n_priority, sizeof pid, cmp_u32_of) != NULL;
}


/* The cached entry of a listed process, its detail read when new. */
static struct cached *entry_of(struct proc_cache *c, uint32_t pid, uint64_t st, bool read, bool want_env)
{
	struct cached *e = find(c, pid, st);
	if (!e && read) {
		c->v = grow_array(c->v, sizeof *c->v, &c->cap, c->n);
		e = &c->v[c->n++];
		memset(e, 0, sizeof *e);
		e->pid = pid;
		e->start_time = st;
		e->detail = read_detail(pid, want_env);
	}
	if (e)
		e->gen = c->gen;
	return e;
}

static void fill_row(struct proc_cache *c, struct gtm_snapshot *snap, const struct kinfo_proc *k,
		     const struct proc_scan_opts *o, bool detail)
{
	struct gtm_process *p = snapshot_add_process(snap);
	p->pid = (uint32_t)k->kp_proc.p_pid;
	snprintf(p->label, sizeof p->label, "%u", p->pid);
	p->start_time = darwin_ticks_of(&k->kp_proc.p_starttime);
	p->ppid = (uint32_t)k->kp_eproc.e_ppid;
	p->uid = k->kp_eproc.e_ucred.cr_uid;
	user_of(p->uid, p->user, sizeof p->user);
	str_copy(p->name, k->kp_proc.p_comm, sizeof p->name);
	uint64_t rss;
	if (darwin_proc_rss(p->pid, &rss))
		p->rss = gtm_u64_of(rss, GTM_MEASURED);
	if (!detail)
		return; /* a parent's row: what ps reads */
	struct cached *e = entry_of(c, p->pid, p->start_time, true, !(o && o->defer_environ));
	if (!e->detail)
		snap->n_procs_uninspectable++;
	p->detail = proc_detail_ref(e->detail);
	if (e->detail && !(o && o->ports_on_demand))
		proc_refresh_ports(c, p);
}

/* Which rows a scan makes (platform_api.h): only_pid and its parent; under
 * details_priority_only the priority PIDs and their parents; else all.
 * Details are read for every row but a priority-only scan's parents. */
static void plan(const struct proc_scan_opts *o, const struct kinfo_proc *kp, size_t n, bool *row, bool *detail)
{
	bool only = o && o->only_pid, prio_only = o && o->details_priority_only && !only;
	for (size_t i = 0; i < n; i++) {
		uint32_t pid = (uint32_t)kp[i].kp_proc.p_pid;
		row[i] = !only && !prio_only;
		detail[i] = row[i];
		if ((only && pid == o->only_pid) || (prio_only && is_priority(o, pid)))
			row[i] = detail[i] = true;
	}
	for (size_t i = 0; (only || prio_only) && i < n; i++) {
		if (!detail[i])
			continue;
		for (size_t j = 0; j < n; j++)
			if ((uint32_t)kp[j].kp_proc.p_pid == (uint32_t)kp[i].kp_eproc.e_ppid && !row[j]) {
				row[j] = true;
				detail[j] = only; /* inspect PID reads its parent whole */
			}
	}
}

int proc_cache_scan(struct proc_cache *c, struct gtm_snapshot *snap, const struct proc_scan_opts *o)
{
	size_t n = 0;
	struct kinfo_proc *kp = list_all(&n);
	if (!kp)
		return -1;
	c->gen++;
	bool *row = xcalloc(n ? n : 1, sizeof *row), *detail = xcalloc(n ? n : 1, sizeof *detail);
	plan(o, kp, n, row, detail);
	free(c->listed);
	c->listed = xcalloc(n ? n : 1, sizeof *c->listed);
	c->n_listed = 0;
	for (size_t i = 0; i < n; i++) {
		c->listed[c->n_listed++] = (uint32_t)kp[i].kp_proc.p_pid;
		snap->n_procs_total++;
		if (row[i])
			fill_row(c, snap, &kp[i], o, detail[i]);
	}
	qsort(c->listed, c->n_listed, sizeof *c->listed, cmp_u32_of);
	/* entries of processes gone since are dropped with their details */
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].gen == c->gen)
			c->v[k++] = c->v[i];
		else
			proc_detail_unref(c->v[i].detail);
	}
	c->n = k;
	c->scanned = true;
	free(row);
	free(detail);
	free(kp);
	return 0;
}

int proc_refresh_ports(struct proc_cache *c, struct gtm_process *p)
{
	struct cached *e = find(c, p->pid, p->start_time);
	uint16_t ports[16];
	int n = darwin_proc_ports(p->pid, ports, (int)ARRAY_LEN(ports));
	if (n < 0)
		return -1;
	memcpy(p->ports, ports, (size_t)n * sizeof *ports);
	p->n_ports = n;
	p->ports_read = true;
	if (e) {
		memcpy(e->ports, ports, sizeof ports);
		e->n_ports = n;
		e->ports_ns = now_monotonic_ns();
	}
	return 0;
}

int proc_refresh_ports_if_older(struct proc_cache *c, struct gtm_process *p, uint64_t max_age_ns)
{
	struct cached *e = find(c, p->pid, p->start_time);
	uint64_t now = now_monotonic_ns();
	if (e && e->ports_ns && now - e->ports_ns < max_age_ns) {
		memcpy(p->ports, e->ports, sizeof p->ports);
		p->n_ports = e->n_ports;
		p->ports_read = true;
		return 1;
	}
	return proc_refresh_ports(c, p);
}

bool proc_cache_listed(struct proc_cache *c, uint32_t pid)
{
	return c->listed && bsearch(&pid, c->listed, c->n_listed, sizeof pid, cmp_u32_of) != NULL;
}

bool proc_cache_scanned(const struct proc_cache *c)
{
	return c->scanned;
}

int64_t proc_start_epoch_s(void)
{
	return 0; /* start times count from the Unix epoch (proc_darwin.h) */
}

bool proc_pid_exists(uint32_t pid)
{
	return darwin_proc_start_time(pid) != 0;
}

int proc_detail_load(struct proc_cache *c, struct gtm_process *p)
{
	if (darwin_proc_start_time(p->pid) != p->start_time)
		return -1;
	struct cached *e = entry_of(c, p->pid, p->start_time, true, true);
	if (!e || !e->detail)
		return -1;
	proc_detail_unref(p->detail);
	p->detail = proc_detail_ref(e->detail);
	return 0;
}

void proc_detail_load_environ(struct proc_cache *c, const struct gtm_process *p)
{
	(void)c;
	if (!p->detail || proc_detail_environ(p->detail))
		return;
	struct gtm_proc_detail tmp;
	memset(&tmp, 0, sizeof tmp);
	atomic_init(&tmp.refs, 1);
	bool ok = darwin_proc_args(p->pid, &tmp, true) && darwin_proc_start_time(p->pid) == p->start_time;
	const struct gtm_proc_env *env = proc_detail_environ(&tmp);
	proc_detail_set_environ(p->detail, ok && env ? env->blob : "", ok && env ? env->len : 0);
	for (int i = 0; i < tmp.argc; i++)
		free(tmp.argv[i]);
	free(tmp.argv);
	free(atomic_load(&tmp.env));
}
