#include "wddm_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static void *wddm_open(const struct gtm_source_opts *o, struct gtm_source_status *st)
{
	char why[200];
	(void)o;
	struct pdh_reader *pdh = pdh_reader_open(why, sizeof why);

	if (!pdh) {
		str_copy(st->message, why, sizeof st->message);
		return NULL;
	}
	struct wddm_source *s = xcalloc(1, sizeof *s);
	s->pdh = pdh;
	s->tracker = wddm_engine_tracker_new();
	s->telemetry = wddm_telemetry_open();
	s->n_adapters = wddm_adapters_list(s->adapters, WDDM_MAX_ADAPTERS, &s->dxgi_skipped, s->dxgi_why,
					   sizeof s->dxgi_why);
	s->from_dxgi = s->n_adapters > 0;
	if (s->n_adapters < 0)
		s->n_adapters = 0;
	else if (s->n_adapters == 0)
		str_copy(s->dxgi_why, "DXGI lists no hardware adapter", sizeof s->dxgi_why);
	return s;
}

static void wddm_close(void *priv)
{
	struct wddm_source *s = priv;
	if (!s)
		return;
	pdh_reader_close(s->pdh);
	wddm_telemetry_close(s->telemetry);
	wddm_engine_tracker_free(s->tracker);
	wddm_engine_loads_free(&s->loads);
	free(s->samples);
	wddm_items_free(&s->engines);
	free(s->fold_scratch);
	wddm_procs_release(s);
	free(s);
}

/* "PDH GPU counters; 2 adapters by LUID: ...; counters missing: ...". The
 * telemetry providers' states go to the notes (telemetry_notes): with
 * them the line overran the status's 256 bytes and lost ADL's reason. */
static void describe(const struct wddm_source *s, struct gtm_source_status *st)
{
	const char *missing = pdh_reader_missing(s->pdh);
	size_t unparsed = pdh_reader_unparsed(s->pdh);

	snprintf(st->message, sizeof st->message, "PDH GPU counters; %d adapter%s %s%s%s%s%s; telemetry: see notes",
		 s->n_adapters, s->n_adapters == 1 ? "" : "s", s->from_dxgi ? "from DXGI" : "by LUID: ",
		 s->from_dxgi ? "" : s->dxgi_why, missing[0] ? "; counters missing: " : "", missing,
		 unparsed ? "; instance names not understood" : "");
}

/* One note per line of text ("nvml: ..."), each prefixed. */
static void add_note_lines(struct gtm_snapshot *snap, const char *prefix, char *text)
{
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		snapshot_add_note(snap, "wddm: %s%s", prefix, line);
	}
}

/* Where each adapter's telemetry came from, or why it has none (the
 * provenance of its temperature, power, clocks...), and each provider's
 * state: "wddm: GPU 0 NVIDIA ...: nvml: matched by PCI location". */
static void telemetry_notes(const struct wddm_source *s, struct gtm_snapshot *snap, int base)
{
	char text[700], prefix[160];

	wddm_telemetry_describe(s->telemetry, text, sizeof text);
	add_note_lines(snap, "", text);
	if (s->from_dxgi && s->dxgi_why[0])
		snapshot_add_note(snap, "wddm: %s", s->dxgi_why);
	for (int i = 0; i < s->n_adapters; i++) {
		wddm_telemetry_explain(s->telemetry, &s->adapters[i], text, sizeof text);
		snprintf(prefix, sizeof prefix, "GPU %d %s: ", base + i, s->adapters[i].name);
		add_note_lines(snap, prefix, text);
	}
}

/* "0x..._0x..., 0x..._0x..." of n LUIDs into out. */
static void luid_list(const wddm_luid *v, int n, char *out, size_t cap)
{
	size_t o = 0;
	out[0] = '\0';
	for (int i = 0; i < n && o + 24 < cap; i++) {
		char id[24];
		wddm_luid_format(v[i], id, sizeof id);
		o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? ", " : "", id);
	}
}

/* A fresh DXGI listing merged into the list (wddm_merge_adapters): each
 * card keeps its --gpu number, as an eGPU plugged in or a card a driver
 * update hides for a moment would otherwise shift the others'. A listing
 * that fails or finds none keeps the old one. */
static bool relist(struct wddm_source *s, struct gtm_snapshot *snap, const char *ids)
{
	struct wddm_adapter fresh[WDDM_MAX_ADAPTERS], merged[WDDM_MAX_ADAPTERS];
	struct wddm_luids skipped;
	struct wddm_merge mg;
	char why[sizeof s->dxgi_why];

	int m = wddm_adapters_list(fresh, WDDM_MAX_ADAPTERS, &skipped, why, sizeof why);
	if (m > 0) {
		s->n_adapters = wddm_merge_adapters(s->adapters, s->n_adapters, fresh, m, merged, &mg);
		memcpy(s->adapters, merged, sizeof merged[0] * (size_t)s->n_adapters);
		memcpy(s->relist.gone, mg.gone, sizeof mg.gone);
		s->dxgi_skipped = skipped;
		str_copy(s->dxgi_why, why, sizeof s->dxgi_why);
	}
	snapshot_add_note(snap, "wddm: DXGI listed again, as the counters name %s, which no adapter had (a driver "
			  "restart gives new LUIDs): %d adapter%s%s%s", ids, m > 0 ? m : s->n_adapters,
			  (m > 0 ? m : s->n_adapters) == 1 ? "" : "s", m > 0 ? "" : ", kept from before: ",
			  m > 0 ? "" : (m < 0 ? why : "DXGI lists no hardware adapter"));
	if (m > 0 && (mg.n_added || mg.n_dropped))
		snapshot_add_note(snap, "wddm: %d adapter%s new since the last listing, numbered after the others (--gpu "
				  "numbers kept)%s", mg.n_added + mg.n_dropped, mg.n_added + mg.n_dropped == 1 ? "" : "s",
				  mg.n_dropped ? "; some left out: no room" : "");
	return m > 0;
}

/* DXGI asked again for the adapters when the counters name a LUID that no
 * listed adapter has (a driver restart gives the adapters new LUIDs, and
 * their rows would be dropped until gputaskman restarts), rate-limited by
 * wddm_relist_due, and only for a LUID no listing left unresolved before
 * (PDH names compute-only adapters DXGI never lists). Only for DXGI's
 * adapters: the LUID list without DXGI takes any new LUID itself. */
static void relist_if_unlisted(struct wddm_source *s, struct gtm_snapshot *snap)
{
	wddm_luid seen[WDDM_MAX_ADAPTERS], unlisted[WDDM_MAX_ADAPTERS], unknown[WDDM_MAX_ADAPTERS];
	char ids[WDDM_MAX_ADAPTERS * 26];

	if (!s->from_dxgi)
		return;
	int n = wddm_counter_luids(s, seen, 0, WDDM_MAX_ADAPTERS);
	int k = wddm_unlisted_luids(seen, n, s->adapters, s->n_adapters, &s->dxgi_skipped, unlisted, WDDM_MAX_ADAPTERS);
	int k_new = wddm_relist_unknown(&s->relist, unlisted, k, unknown);
	if (wddm_relist_due(&s->relist, k_new, now_monotonic_ns())) {
		luid_list(unknown, k_new, ids, sizeof ids);
		bool answered = relist(s, snap, ids);
		k = wddm_unlisted_luids(seen, n, s->adapters, s->n_adapters, &s->dxgi_skipped, unlisted, WDDM_MAX_ADAPTERS);
		if (answered)
			wddm_relist_remember(&s->relist, unlisted, k);
	}
	if (k) {
		luid_list(unlisted, k, ids, sizeof ids);
		snapshot_add_note(snap, "wddm: the counters of %s are left out: no adapter DXGI lists has that LUID (DXGI "
				  "is asked again for a LUID it was not asked about, at most every %llu s)", ids,
				  (unsigned long long)(WDDM_RELIST_INTERVAL_NS / 1000000000ull));
	}
}

/* The slots a re-list kept for cards DXGI no longer lists: the --gpu
 * numbers after them stay, and their counters read N/A. */
static void gone_notes(const struct wddm_source *s, struct gtm_snapshot *snap, int base)
{
	for (int i = 0; i < s->n_adapters; i++)
		if (s->relist.gone[i])
			snapshot_add_note(snap, "wddm: GPU %d %s: DXGI no longer lists it (kept in its place so the "
					  "--gpu numbers stay): its counters are N/A", base + i, s->adapters[i].name);
}

static int wddm_sample(void *priv, struct gtm_snapshot *snap, struct gtm_raw_uses *uses, struct gtm_source_status *st)
{
	struct wddm_source *s = priv;
	char why[200];

	s->n_starts = 0;
	s->n_collects++;
	wddm_mark_collect(s);
	if (pdh_reader_collect(s->pdh, why, sizeof why) != 0) {
		snprintf(st->message, sizeof st->message, "PDH: %s", why);
		return -1;
	}
	wddm_engines_update(s);
	relist_if_unlisted(s, snap);
	int base = wddm_devices_add(s, snap);
	if (!s->from_dxgi && s->n_adapters > 0)
		snapshot_add_note(snap, "wddm: adapters listed from PDH's LUIDs and named by them (%s): no name, "
				  "total memory or vendor telemetry", s->dxgi_why);
	telemetry_notes(s, snap, base);
	gone_notes(s, snap, base);
	wddm_procs_add(s, snap, base, uses);
	size_t listed, cut = pdh_reader_cut(s->pdh, &listed);
	if (cut)
		snapshot_add_note(snap, "wddm: the process list was cut: PDH listed %llu counter instances, the %llu "
				  "smallest left out (at most %d a counter, the largest kept)", (unsigned long long)listed,
				  (unsigned long long)cut, WDDM_MAX_INSTANCES);
	describe(s, st);
	return 0;
}

/* After the first collect, when PDH lists GPU Engine instances: their
 * Running Time is cumulative, a load needs the next collect. */
static bool wddm_needs_second_sample(void *priv)
{
	struct wddm_source *s = priv;
	return s->n_collects == 1 && pdh_reader_items(s->pdh, PDH_ENGINE_RUNNING)->n > 0;
}

const struct gtm_source_ops wddm_source_ops = {
	.name = "wddm",
	.open = wddm_open,
	.sample = wddm_sample,
	.close = wddm_close,
	.needs_second_sample = wddm_needs_second_sample,
};
