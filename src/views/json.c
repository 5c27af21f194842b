#include "views/json.h"

#include <stdlib.h>
#include <string.h>

#include "views/json_util.h"

#include "views/ident_json.h"
#include "views/explain_json.h"

json_t *json_device(const struct gtm_device *d)
{
	json_t *j = json_object(), *mem = json_object(), *util = json_object();
	json_t *clk = json_object(), *pcie = json_object(), *eng = json_array();

	json_put(j, "index", json_integer(d->index));
	json_put(j, "vendor", json_string(gtm_vendor_name(d->vendor)));
	json_put(j, "source", json_of_str(d->source));
	json_put(j, "name", json_of_str(d->name));
	json_put(j, "uuid", json_of_str(d->uuid));
	json_put(j, "pci_bus_id", json_of_str(d->pci_bus_id));
	json_put(j, "driver", json_of_str(d->driver));
	json_put(j, "driver_version", json_of_str(d->driver_version));
	json_put(j, "cuda_version", json_of_str(d->cuda_version));
	json_put(j, "is_apu", json_boolean(d->is_apu));

	json_put(mem, "total_bytes", json_of_u64(d->mem_total));
	json_put(mem, "used_bytes", json_of_u64(d->mem_used));
	json_put(mem, "free_bytes", json_of_u64(d->mem_free));
	json_put(mem, "reserved_bytes", json_of_u64(d->mem_reserved));
	json_put(mem, "shared_total_bytes", json_of_u64(d->shared_total));
	json_put(mem, "shared_used_bytes", json_of_u64(d->shared_used));
	json_put(j, "memory", mem);

	json_put(util, "gpu_pct", json_of_f64(d->util_gpu_pct));
	json_put(util, "memory_activity_pct", json_of_f64(d->util_mem_pct));
	json_put(util, "encoder_pct", json_of_f64(d->enc_pct));
	json_put(util, "decoder_pct", json_of_f64(d->dec_pct));
	json_put(j, "utilization", util);

	json_put(j, "temperature_c", json_of_f64(d->temp_c));
	json_put(j, "power_w", json_of_f64(d->power_w));
	json_put(j, "power_limit_w", json_of_f64(d->power_limit_w));
	json_put(j, "fan_pct", json_of_f64(d->fan_pct));

	json_put(clk, "sm", json_of_f64(d->clock_sm_mhz));
	json_put(clk, "memory", json_of_f64(d->clock_mem_mhz));
	json_put(clk, "video", json_of_f64(d->clock_video_mhz));
	json_put(clk, "sm_max", json_of_f64(d->clock_sm_max_mhz));
	json_put(clk, "memory_max", json_of_f64(d->clock_mem_max_mhz));
	json_put(j, "clocks_mhz", clk);

	json_put(pcie, "tx_bytes_per_s", json_of_f64(d->pcie_tx_bps));
	json_put(pcie, "rx_bytes_per_s", json_of_f64(d->pcie_rx_bps));
	json_put(pcie, "generation", json_of_f64(d->pcie_gen));
	json_put(pcie, "width", json_of_f64(d->pcie_width));
	json_put(j, "pcie", pcie);

	for (int i = 0; i < d->n_engines && i < GTM_MAX_ENGINES; i++) {
		json_t *e = json_object();
		json_put(e, "name", json_of_str(d->engines[i].name));
		json_put(e, "busy_pct", json_of_f64(d->engines[i].busy_pct));
		json_array_append_new(eng, e);
	}
	json_put(j, "engines", eng);
	json_put(j, "processes_listed", d->n_processes_seen >= 0 ? json_integer(d->n_processes_seen) : json_null());
	return j;
}

static json_t *json_use(const struct gtm_gpu_use *u)
{
	json_t *j = json_object();

	json_put(j, "index", json_integer(u->dev_index));
	json_put(j, "source_pid", json_integer(u->source_pid));
	json_put(j, "compute", json_boolean(u->compute));
	json_put(j, "graphics", json_boolean(u->graphics));
	json_put(j, "vram_bytes", json_of_u64(u->vram));
	json_put(j, "vram_na_reason", gtm_u64_ok(u->vram) ? json_null() : json_of_str(u->na_reason));
	json_put(j, "spill_bytes", json_of_u64(u->spill));
	json_put(j, "paged_bytes", json_of_u64(u->paged));
	json_put(j, "sm_pct", json_of_f64(u->sm_pct));
	json_put(j, "encoder_pct", json_of_f64(u->enc_pct));
	json_put(j, "decoder_pct", json_of_f64(u->dec_pct));
	json_put(j, "graphics_pct", json_of_f64(u->gfx_pct));
	json_put(j, "copy_pct", json_of_f64(u->copy_pct));
	json_put(j, "video_pct", json_of_f64(u->video_pct));
	if (u->n_clients > 0) {
		/* DRM: every buffer the process can reach, shared ones included. A
		 * reference for the reader, never summed into any total. */
		json_t *ref = json_object();
		json_put(ref, "clients", json_integer(u->n_clients));
		json_put(ref, "resident_vram_bytes", json_of_u64(u->ref_vram));
		json_put(ref, "resident_gtt_bytes", json_of_u64(u->ref_spill));
		json_put(ref, "shared_bytes", json_of_u64(u->ref_shared));
		json_put(j, "drm_reference", ref);
	}
	return j;
}

static json_t *json_argv(const struct gtm_proc_detail *d)
{
	json_t *a = json_array();
	for (int i = 0; d && i < d->argc; i++)
		json_array_append_new(a, json_of_str(d->argv[i]));
	return a;
}

json_t *json_process(const struct gtm_process *p)
{
	json_t *j = json_object(), *uses = json_array(), *ports = json_array();
	const struct gtm_proc_detail *d = p->detail;

	json_put(j, "pid", p->pid ? json_integer(p->pid) : json_null());
	json_put(j, "host_pid", p->host_pid ? json_integer(p->host_pid) : json_null());
	json_put(j, "label", json_of_str(p->label));
	json_put(j, "owner", json_string(gtm_owner_name(p->owner)));
	json_put(j, "owner_reason", json_of_str(p->owner_reason));
	json_put(j, "name", json_of_str(p->name));
	json_put(j, "cmdline", d ? json_argv(d) : json_null());
	json_put(j, "exe", json_of_str(d ? d->exe : NULL));
	json_put(j, "cwd", json_of_str(d ? d->cwd : NULL));
	json_put(j, "user", json_of_str(p->user));
	json_put(j, "uid", p->pid ? json_integer(p->uid) : json_null());
	json_put(j, "ppid", p->pid ? json_integer(p->ppid) : json_null());
	json_put(j, "start_time_ticks", p->pid ? json_integer((json_int_t)p->start_time) : json_null());
	json_put(j, "rss_bytes", json_of_u64(p->rss));
	for (int i = 0; i < p->n_ports; i++)
		json_array_append_new(ports, json_integer(p->ports[i]));
	if (p->ports_read) {
		json_put(j, "listening_ports", ports);
	} else {
		json_decref(ports);
		json_put(j, "listening_ports", json_null());
	}
	for (int i = 0; i < p->n_uses; i++)
		json_array_append_new(uses, json_use(&p->uses[i]));
	json_put(j, "gpus", uses);
	json_put(j, "vram_total_bytes", json_of_u64(process_vram_total(p)));
	if (p->ident) {
		ident_json_into(j, p->ident);
	} else {
		/* a row with nothing to identify (H:, unattributed, unreadable):
		 * the same keys, unavailable, so readers need no special case */
		json_put(j, "category", json_null());
		json_put(j, "category_reason", json_null());
		json_put(j, "runtimes", json_array());
		json_put(j, "models", json_array());
		json_put(j, "installed_omitted", json_null());
		json_put(j, "llama_flags", json_null());
	}
	json_put(j, "explain", p->explain ? explain_json(p->explain) : json_null());
	return j;
}

bool view_lists_process(const struct gtm_snapshot *s, int i, bool all)
{
	if (all || i < s->n_gpu_processes)
		return true;
	/* An AI runtime on the CPU is still what the user asks about. */
	return s->processes[i].ident && ident_is_ai(s->processes[i].ident);
}

json_t *json_snapshot(const struct gtm_snapshot *s, bool all)
{
	json_t *j = json_object(), *gpus = json_array(), *procs = json_array();
	json_t *srcs = json_array(), *notes = json_array(), *counts = json_object();

	json_put(j, "schema_version", json_integer(s->schema_version));
	json_put(j, "gputaskman_version", json_string(GTM_VERSION));
	json_put(j, "taken_at", json_of_time_ns(s->taken_at_ns));
	json_put(j, "hostname", json_of_str(s->hostname));
	json_put(j, "mode", json_string(gtm_mode_name(s->mode)));
	for (int i = 0; i < s->n_sources; i++) {
		json_t *o = json_object();
		json_put(o, "name", json_of_str(s->sources[i].name));
		json_put(o, "available", json_boolean(s->sources[i].available));
		json_put(o, "failed", json_boolean(s->sources[i].failed));
		json_put(o, "message", json_of_str(s->sources[i].message));
		json_array_append_new(srcs, o);
	}
	json_put(j, "sources", srcs);
	for (int i = 0; i < s->n_devices; i++)
		json_array_append_new(gpus, json_device(&s->devices[i]));
	json_put(j, "gpus", gpus);
	for (int i = 0; i < s->n_processes; i++)
		if (view_lists_process(s, i, all))
			json_array_append_new(procs, json_process(&s->processes[i]));
	json_put(j, "processes", procs);
	json_put(counts, "processes_seen", s->procs_unlisted ? json_null() : json_integer(s->n_procs_total));
	json_put(counts, "processes_uninspectable",
		 s->procs_unlisted ? json_null() : json_integer(s->n_procs_uninspectable));
	json_put(counts, "gpu_processes", json_integer(s->n_gpu_processes));
	json_put(counts, "partial_scan", json_boolean(s->partial_scan));
	json_put(j, "counts", counts);
	for (int i = 0; i < s->n_notes; i++)
		json_array_append_new(notes, json_of_str(s->notes[i]));
	json_put(j, "notes", notes);
	return j;
}

static int print_json(FILE *out, json_t *j)
{
	/* One string, one write: json_dumpf writes token by token through stdio. */
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	int r = text && fputs(text, out) >= 0 && fputc('\n', out) != EOF ? 0 : -1;
	free(text);
	json_decref(j);
	return r;
}

int json_print_gpu_list(FILE *out, const struct gtm_snapshot *s)
{
	json_t *full = json_snapshot(s, false), *j = json_object();
	json_put(j, "schema_version", json_integer(s->schema_version));
	json_object_set(j, "gpus", json_object_get(full, "gpus"));
	json_object_set(j, "sources", json_object_get(full, "sources"));
	json_decref(full);
	return print_json(out, j);
}

int json_print_snapshot(FILE *out, const struct gtm_snapshot *s, bool all)
{
	return print_json(out, json_snapshot(s, all));
}
