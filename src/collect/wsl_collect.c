/* WSL2 in a refresh (wsl_collect.h): platform reads, the matcher, the rows. */
#include "collect/wsl_collect.h"

#include <stdlib.h>
#include <string.h>

#include "collect/wsl_pair.h"
#include "collect/wsl_rows.h"
#include "core/util.h"
#include "platform.h"
#include "sources/wsl_match.h"
#include "sources/wsl_proto.h"

struct wsl_collect {
	struct platform_wsl *pw;
	struct wsl_matcher *m;
	struct wsl_proc holders[WSL_MAX_PROCS];
	int n_holders;
	uint32_t pids[WSL_MAX_PROCS];
	struct wsl_host_sample sample;
	bool fresh;
	char boot_id[WSL_BOOT_LEN];
	char hints_boot[WSL_BOOT_LEN]; /* the boot whose cached hints were loaded */
	struct wsl_adapter_ctxs last[WSL_MAX_ADAPTERS]; /* each adapter's last complete context list */
	int n_last;
	uint32_t last_vmwp;       /* whose lists they are: another vmwp.exe's are no stand-in */
};

struct wsl_collect *wsl_collect_new(bool no_host, bool one_shot, double interval_s)
{
	struct wsl_collect *w = xcalloc(1, sizeof *w);

	w->pw = platform_wsl_open(&(struct platform_wsl_opts){.no_host = no_host, .one_shot = one_shot,
							      .interval_s = interval_s});
	w->m = wsl_matcher_new();
	return w;
}

void wsl_collect_free(struct wsl_collect *w)
{
	if (!w)
		return;
	platform_wsl_close(w->pw);
	wsl_matcher_free(w->m);
	free(w);
}

/* NVML's per-process PIDs under WSL are Windows PIDs (platforms.md 2.2): the
 * host stream's rows replace those it lists. */
static void drop_listed(const struct wsl_host_sample *s, struct gtm_raw_uses *uses)
{
	size_t w = 0;

	for (size_t i = 0; i < uses->n; i++) {
		bool listed = uses->v[i].pid == s->vmwp_pid;
		for (int k = 0; k < s->n_procs && !listed; k++)
			listed = uses->v[i].pid == s->procs[k].pid;
		if (!listed || uses->v[i].start_time != 0)
			uses->v[w++] = uses->v[i];
	}
	uses->n = w;
}

const uint32_t *wsl_collect_before_scan(struct wsl_collect *w, struct gtm_snapshot *snap, struct gtm_raw_uses *uses,
					size_t *n)
{
	/* the host's sample first, then the holders: their run times then cover
	 * every call that changed a size in the sample (wsl_moves.c) */
	w->fresh = platform_wsl_sample(w->pw, &w->sample, &snap->host);
	if (w->fresh)
		drop_listed(&w->sample, uses);
	int got = platform_wsl_holders(w->pw, w->holders, WSL_MAX_PROCS);

	w->n_holders = got > 0 ? got : 0;
	for (int i = 0; i < w->n_holders; i++)
		w->pids[i] = w->holders[i].pid;
	*n = (size_t)w->n_holders;
	return w->pids;
}

static void load_hints(struct wsl_collect *w)
{
	uint64_t sizes[WSL_MAX_HINTS];

	if (!w->boot_id[0] || !strcmp(w->hints_boot, w->boot_id))
		return;
	size_t n = platform_wsl_hints_load(w->pw, w->boot_id, sizes, WSL_MAX_HINTS);
	if (n)
		wsl_hints_load(w->m, w->boot_id, sizes, n);
	str_copy(w->hints_boot, w->boot_id, sizeof w->hints_boot);
}

/* An adapter's context list with a record refused has a gap the matcher
 * would take for a vanishing: its last complete list stands in (the VM row and
 * the matched rows stay as they were, as for a line refused whole); a complete
 * one is kept for that. Returns false when there is none yet: the adapter
 * sits this sample out. */
static bool vm_list(struct wsl_collect *w, const struct wsl_host_adapter *h, struct wsl_adapter_ctxs *out)
{
	int k = 0;
	struct wsl_adapter_ctxs in = h->vm;

	while (k < w->n_last && strcmp(w->last[k].luid, h->luid))
		k++;
	if (!h->vm_incomplete) {
		if (k == w->n_last && w->n_last < WSL_MAX_ADAPTERS)
			w->n_last++;
		if (k < w->n_last)
			w->last[k] = in;
		*out = in;
		return true;
	}
	if (k == w->n_last)
		return false;
	*out = w->last[k];
	return true;
}

static void count_contexts(const struct wsl_result *r, int a, int *here, int *foreign)
{
	*here = *foreign = 0;
	for (int i = 0; i < r->n_rows; i++)
		if (r->rows[i].adapter == a)
			*(r->rows[i].owner == WSL_OWNER_FOREIGN ? foreign : here) += 1;
}

static void match_and_show(struct wsl_collect *w, struct gtm_snapshot *snap)
{
	const struct wsl_host_sample *s = &w->sample;
	struct wsl_adapter_ctxs ad[WSL_MAX_ADAPTERS];
	int dev[WSL_MAX_ADAPTERS];
	struct wsl_result r;

	for (int a = 0; a < WSL_MAX_ADAPTERS; a++)
		dev[a] = -1; /* only the sample's adapters are paired */
	wsl_pair_adapters(s, snap, dev);
	if (!s->vmwp_pid) { /* no WSL work on the GPU yet: Windows rows only */
		wsl_add_windows_rows(snap, s, dev);
		if (wsl_first_nvidia(snap) >= 0)
			wsl_add_holders_na(snap, w->holders, w->n_holders, wsl_first_nvidia(snap), "no vmwp.exe on the host yet");
		return;
	}
	platform_wsl_boot_id(w->pw, w->boot_id, sizeof w->boot_id);
	load_hints(w);
	if (w->last_vmwp != s->vmwp_pid)
		w->n_last = 0;
	w->last_vmwp = s->vmwp_pid;
	bool stand_in = false; /* a list from an earlier sample: no size moved in this one (wsl_moves.c) */
	for (int a = 0; a < w->sample.n_adapters; a++) {
		struct wsl_host_adapter *h = &w->sample.adapters[a];
		stand_in |= h->vm_incomplete;
		if (!vm_list(w, h, &h->vm)) {
			h->vm.n = 0; /* never seen whole: nothing to match, no VM row */
			snapshot_add_note(snap, "WSL host adapter %s: a vmwp.exe context came without its sizes and no "
					  "complete list came before: its VM row and matched rows are not shown", h->luid);
		} else if (h->vm_incomplete) {
			snapshot_add_note(snap, "WSL host adapter %s: a vmwp.exe context came without its sizes: its "
					  "VM row and matched rows are the last complete sample's", h->luid);
		}
		ad[a] = h->vm;
	}
	struct wsl_tick t = {.vmwp_pid = s->vmwp_pid, .adapters = ad, .n_adapters = s->n_adapters,
			     .procs = w->holders, .n_procs = w->n_holders, .sample_seq = stand_in ? 0 : s->seq};
	str_copy(t.boot_id, w->boot_id, sizeof t.boot_id);
	wsl_match_tick(w->m, &t, &r);
	for (int a = 0; a < s->n_adapters; a++) {
		int here, foreign;
		count_contexts(&r, a, &here, &foreign);
		if (dev[a] < 0) {
			snapshot_add_note(snap, "WSL host adapter %s: unmatched (no single GPU here uses as much memory); "
					  "its rows are not shown", s->adapters[a].luid);
			continue;
		}
		if (s->adapters[a].vm.n)
			wsl_add_vm_row(snap, s, a, dev[a], here, foreign);
	}
	wsl_add_windows_rows(snap, s, dev);
	wsl_apply_rows(snap, &r, dev, s->n_adapters);
	const uint64_t *h;
	const char *boot;
	size_t n = wsl_hints(w->m, &h, &boot);
	if (wsl_hints_dirty(w->m) && boot[0])
		platform_wsl_hints_save(w->pw, boot, h, n);
}

void wsl_collect_apply(struct wsl_collect *w, struct gtm_snapshot *snap)
{
	if (w->fresh) {
		match_and_show(w, snap);
		return;
	}
	int dev = wsl_first_nvidia(snap);
	if (dev >= 0)
		wsl_add_holders_na(snap, w->holders, w->n_holders, dev, "no host counters (see the header)");
}
