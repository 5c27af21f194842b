/* Building matcher ticks in tests: one adapter, sizes in MiB newest first,
 * processes as (pid, start, nvml_only). */
#ifndef GTM_TEST_WSL_TICK_H
#define GTM_TEST_WSL_TICK_H

#include <stdio.h>
#include <string.h>

#include "sources/wsl_match.h"

#define MB (1024ull * 1024ull)

struct tk {
	struct wsl_adapter_ctxs ad;
	struct wsl_proc procs[WSL_MAX_PROCS];
	struct wsl_tick t;
};

static inline void tk_init(struct tk *k, uint32_t vmwp, const char *boot)
{
	memset(k, 0, sizeof *k);
	snprintf(k->ad.luid, sizeof k->ad.luid, "0x00000000_0x0000d1a5");
	k->t.vmwp_pid = vmwp;
	snprintf(k->t.boot_id, sizeof k->t.boot_id, "%s", boot);
	k->t.adapters = &k->ad;
	k->t.n_adapters = 1;
	k->t.procs = k->procs;
}

/* Host list, newest first, in MiB; -1 ends it. */
static inline void tk_ctx(struct tk *k, const long *mib)
{
	k->ad.n = 0;
	for (int i = 0; mib[i] >= 0; i++)
		k->ad.ctx[k->ad.n++] = (struct wsl_ctx){.local = (uint64_t)mib[i] * MB, .committed = (uint64_t)mib[i] * MB};
}

static inline void tk_proc(struct tk *k, uint32_t pid, uint64_t start, bool nvml_only)
{
	struct wsl_proc *p = &k->procs[k->t.n_procs++];
	*p = (struct wsl_proc){.pid = pid, .start = start, .nvml_only = nvml_only};
	snprintf(p->comm, sizeof p->comm, "p%u", pid);
}

/* The last process added: its threads' run time (one thread). */
static inline void tk_run(struct tk *k, uint64_t run_ns)
{
	struct wsl_proc *p = &k->procs[k->t.n_procs - 1];
	p->run_known = true;
	p->run_ns = run_ns;
	p->n_tasks = 1;
}

static inline void tk_drop(struct tk *k, uint32_t pid)
{
	int w = 0;
	for (int i = 0; i < k->t.n_procs; i++)
		if (k->procs[i].pid != pid)
			k->procs[w++] = k->procs[i];
	k->t.n_procs = w;
}

static inline const struct wsl_row *row_of(const struct wsl_result *r, uint32_t pid, uint64_t start)
{
	for (int i = 0; i < r->n_rows; i++)
		if (r->rows[i].owner != WSL_OWNER_FOREIGN && r->rows[i].pid == pid &&
		    (start == 0 || r->rows[i].start == start))
			return &r->rows[i];
	return NULL;
}

static inline int count_owner(const struct wsl_result *r, enum wsl_owner o)
{
	int n = 0;
	for (int i = 0; i < r->n_rows; i++)
		n += r->rows[i].owner == o;
	return n;
}

#endif
