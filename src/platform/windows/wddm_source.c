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
	s->n_adapters = wddm_adapters_list(s->adapters, WDDM_MAX_ADAPTERS, s->dxgi_why, sizeof s->dxgi_why);
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

static int wddm_sample(void *priv, struct gtm_snapshot *snap, struct gtm_raw_uses *uses, struct gtm_source_status *st)
{
	struct wddm_source *s = priv;
	char why[200];

	s->n_starts = 0;
	wddm_mark_collect(s);
	if (pdh_reader_collect(s->pdh, why, sizeof why) != 0) {
		snprintf(st->message, sizeof st->message, "PDH: %s", why);
		return -1;
	}
	wddm_engines_update(s);
	int base = wddm_devices_add(s, snap);
	if (!s->from_dxgi && s->n_adapters > 0)
		snapshot_add_note(snap, "wddm: adapters listed from PDH's LUIDs and named by them (%s): no name, "
				  "total memory or vendor telemetry", s->dxgi_why);
	telemetry_notes(s, snap, base);
	wddm_procs_add(s, snap, base, uses);
	describe(s, st);
	return 0;
}

const struct gtm_source_ops wddm_source_ops = {
	.name = "wddm",
	.open = wddm_open,
	.sample = wddm_sample,
	.close = wddm_close,
};
