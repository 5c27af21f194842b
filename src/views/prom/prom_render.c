#include "views/prom/prom_render.h"

#include <string.h>

#include "views/prom/prom_internal.h"

static const struct prom_family f_build = {"gputaskman_build_info", "gauge",
	"The exporter's version and operating system (value 1)."};
static const struct prom_family f_source_up = {"gputaskman_source_up", "gauge",
	"Whether a GPU source answered in the last collection (1: it did, for at least one of its GPUs) or is absent "
	"or failed (0). A GPU that failed alone is in gputaskman_gpu_up."};
static const struct prom_family f_duration = {"gputaskman_collect_duration_seconds", "gauge",
	"How long the last finished collection took."};
static const struct prom_family f_taken = {"gputaskman_collect_timestamp_seconds", "gauge",
	"When the snapshot served was taken (Unix time)."};

/* A source is up while any of its devices answers: one lost GPU does not
 * make the others' source down. */
static bool source_up(const struct gtm_snapshot *s, const struct gtm_source_status *st)
{
	if (!st->available)
		return false;
	if (!st->failed)
		return true;
	for (int i = 0; i < s->n_devices; i++)
		if (!strcmp(s->devices[i].source, st->name) && !s->devices[i].fault_reason[0])
			return true;
	return false;
}

void prom_render(const struct gtm_snapshot *s, const struct prom_opts *opts, struct prom_out *o)
{
	struct prom_selection sel;

	prom_family(o, &f_build);
	prom_add_label(o, "version", opts->version);
	prom_add_label(o, "os", opts->os);
	prom_write(o, 1);
	prom_family(o, &f_source_up);
	for (int i = 0; i < s->n_sources; i++) {
		prom_add_label(o, "source", s->sources[i].name);
		prom_write(o, source_up(s, &s->sources[i]));
	}
	prom_family(o, &f_duration);
	if (opts->collect_seconds >= 0)
		prom_write(o, opts->collect_seconds);
	prom_family(o, &f_taken);
	if (s->taken_at_ns)
		prom_write(o, (double)(s->taken_at_ns / 1000000ull) / 1e3);

	prom_render_devices(s, o);
	prom_select(s, opts, &sel);
	prom_render_processes(s, &sel, o);
	prom_render_models(&sel, o);
	prom_render_servers(&sel, o);
	prom_selection_free(&sel);
}
