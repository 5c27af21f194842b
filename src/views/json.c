#include "views/json.h"

#include <stdlib.h>
#include <string.h>

#include "views/explain_json.h"
#include "views/ident_json.h"
#include "views/json_util.h"

/* {name, busy_pct} per engine: a device's (DRM, WDDM) or a WDDM use's. */
static void jw_engines(struct jw *w, const struct gtm_engine *e, int n)
{
	jw_begin_array(w, "engines");
	for (int i = 0; i < n && i < GTM_MAX_ENGINES; i++) {
		jw_begin_object(w, NULL);
		jw_str(w, "name", e[i].name);
		jw_f64(w, "busy_pct", e[i].busy_pct);
		jw_end_object(w);
	}
	jw_end_array(w);
}

static void jw_device(struct jw *w, const struct gtm_device *d)
{
	jw_begin_object(w, NULL);
	jw_int(w, "index", d->index);
	jw_str(w, "vendor", gtm_vendor_name(d->vendor));
	jw_str(w, "source", d->source);
	jw_str(w, "name", d->name);
	jw_str(w, "uuid", d->uuid);
	jw_str(w, "pci_bus_id", d->pci_bus_id);
	jw_str(w, "luid", d->luid); /* Windows adapter LUID ("0x00000000_0x0000A18D"); null elsewhere */
	jw_str(w, "driver", d->driver);
	jw_str(w, "driver_version", d->driver_version);
	jw_str(w, "cuda_version", d->cuda_version);
	jw_bool(w, "is_apu", d->is_apu);

	jw_begin_object(w, "memory");
	jw_u64(w, "total_bytes", d->mem_total);
	jw_u64(w, "used_bytes", d->mem_used);
	jw_u64(w, "free_bytes", d->mem_free);
	jw_u64(w, "reserved_bytes", d->mem_reserved);
	jw_u64(w, "shared_total_bytes", d->shared_total);
	jw_u64(w, "shared_used_bytes", d->shared_used);
	jw_u64(w, "local_usage_bytes", d->local_used);
	jw_u64(w, "nonlocal_usage_bytes", d->nonlocal_used);
	jw_str(w, "note", d->mem_note[0] ? d->mem_note : NULL);
	jw_end_object(w);

	jw_begin_object(w, "utilization");
	jw_f64(w, "gpu_pct", d->util_gpu_pct);
	jw_f64(w, "memory_activity_pct", d->util_mem_pct);
	jw_f64(w, "encoder_pct", d->enc_pct);
	jw_f64(w, "decoder_pct", d->dec_pct);
	jw_end_object(w);

	jw_f64(w, "temperature_c", d->temp_c);
	jw_f64(w, "power_w", d->power_w);
	jw_f64(w, "power_limit_w", d->power_limit_w);
	jw_f64(w, "fan_pct", d->fan_pct);

	jw_begin_object(w, "clocks_mhz");
	jw_f64(w, "sm", d->clock_sm_mhz);
	jw_f64(w, "memory", d->clock_mem_mhz);
	jw_f64(w, "video", d->clock_video_mhz);
	jw_f64(w, "sm_max", d->clock_sm_max_mhz);
	jw_f64(w, "memory_max", d->clock_mem_max_mhz);
	jw_end_object(w);

	jw_begin_object(w, "pcie");
	jw_f64(w, "tx_bytes_per_s", d->pcie_tx_bps);
	jw_f64(w, "rx_bytes_per_s", d->pcie_rx_bps);
	jw_f64(w, "generation", d->pcie_gen);
	jw_f64(w, "width", d->pcie_width);
	jw_end_object(w);

	jw_engines(w, d->engines, d->n_engines);
	if (d->n_processes_seen >= 0)
		jw_int(w, "processes_listed", d->n_processes_seen);
	else
		jw_null(w, "processes_listed");
	jw_end_object(w);
}

/* WDDM (Windows): Task Manager's GPU % of the process (its busiest engine),
 * the load per engine type, how paged was obtained (estimated: Total
 * Committed - Local - Non Local) and which counters the memory came from
 * when not Local/Non Local Usage. Null / empty from the other sources. */
static void jw_use_wddm(struct jw *w, const struct gtm_gpu_use *u)
{
	jw_f64(w, "gpu_pct", u->busy_pct);
	jw_str(w, "paged_provenance", gtm_u64_ok(u->paged) ? gtm_prov_name(u->paged.prov) : NULL);
	jw_str(w, "memory_note", u->mem_note[0] ? u->mem_note : NULL);
	jw_engines(w, u->engines, u->n_engines);
}

static void jw_use(struct jw *w, const struct gtm_gpu_use *u)
{
	jw_begin_object(w, NULL);
	jw_int(w, "index", u->dev_index);
	jw_int(w, "source_pid", u->source_pid);
	jw_bool(w, "compute", u->compute);
	jw_bool(w, "graphics", u->graphics);
	jw_u64(w, "vram_bytes", u->vram);
	jw_str(w, "vram_na_reason", gtm_u64_ok(u->vram) ? NULL : u->na_reason);
	jw_u64(w, "spill_bytes", u->spill);
	jw_u64(w, "paged_bytes", u->paged);
	jw_f64(w, "sm_pct", u->sm_pct);
	jw_f64(w, "encoder_pct", u->enc_pct);
	jw_f64(w, "decoder_pct", u->dec_pct);
	jw_f64(w, "graphics_pct", u->gfx_pct);
	jw_f64(w, "copy_pct", u->copy_pct);
	jw_f64(w, "video_pct", u->video_pct);
	jw_use_wddm(w, u);
	if (u->n_clients > 0) {
		/* DRM: every buffer the process can reach, shared ones included. A
		 * reference for the reader, never summed into any total. */
		jw_begin_object(w, "drm_reference");
		jw_int(w, "clients", u->n_clients);
		jw_u64(w, "resident_vram_bytes", u->ref_vram);
		jw_u64(w, "resident_gtt_bytes", u->ref_spill);
		jw_u64(w, "shared_bytes", u->ref_shared);
		jw_end_object(w);
	}
	jw_end_object(w);
}

/* WSL2's host stream (docs/json-schema.md): null outside WSL. */
static void jw_host_stream(struct jw *w, const struct gtm_host_stream *h)
{
	if (!h->present) {
		jw_null(w, "host_stream");
		return;
	}
	jw_begin_object(w, "host_stream");
	jw_str(w, "state", h->state);
	if (h->why[0])
		jw_str(w, "why", h->why);
	else
		jw_null(w, "why");
	if (h->helper[0])
		jw_str(w, "helper", h->helper);
	else
		jw_null(w, "helper");
	jw_int(w, "seq", (int64_t)h->seq);
	jw_int(w, "lines", (int64_t)h->lines);
	jw_int(w, "bad_lines", (int64_t)h->bad_lines);
	if (h->last_bad[0])
		jw_str(w, "last_bad", h->last_bad);
	else
		jw_null(w, "last_bad");
	jw_int(w, "restarts", h->restarts);
	jw_int(w, "vms", h->n_vms);
	jw_end_object(w);
}

/* A number that only a listed PID has; null on a row without one. */
static void jw_pid_field(struct jw *w, const char *key, const struct gtm_process *p, int64_t v)
{
	if (p->pid)
		jw_int(w, key, v);
	else
		jw_null(w, key);
}

static int64_t start_ticks(const struct gtm_process *p)
{
	return p->start_time > INT64_MAX ? INT64_MAX : (int64_t)p->start_time;
}

/* pid .. start_time_ticks: what the row's identity, owner and detail give */
void jw_process_head(struct jw *w, const struct gtm_process *p)
{
	const struct gtm_proc_detail *d = p->detail;

	jw_pid_field(w, "pid", p, p->pid);
	if (p->host_pid)
		jw_int(w, "host_pid", p->host_pid);
	else
		jw_null(w, "host_pid");
	jw_str(w, "label", p->label);
	jw_str(w, "owner", gtm_owner_name(p->owner));
	jw_str(w, "owner_reason", p->owner_reason);
	if (p->vram_inferred_by)
		jw_str(w, "vram_inferred_by", p->vram_inferred_by);
	else
		jw_null(w, "vram_inferred_by");
	jw_bool(w, "wsl_vm_row", p->wsl_vm_row);
	if (p->owner == GTM_OWNER_EXITED) {
		/* the process the host PID was paired with, gone while the driver lists the PID */
		jw_begin_object(w, "exited_owner");
		jw_int(w, "pid", p->exited_pid);
		jw_int(w, "start_time_ticks", start_ticks(p));
		jw_str(w, "pairing", gtm_owner_name(p->exited_pairing));
		jw_end_object(w);
	} else {
		jw_null(w, "exited_owner");
	}
	jw_str(w, "name", p->name);
	if (d) {
		jw_begin_array(w, "cmdline");
		for (int i = 0; i < d->argc; i++)
			jw_str(w, NULL, d->argv[i]);
		jw_end_array(w);
	} else {
		jw_null(w, "cmdline");
	}
	jw_str(w, "exe", d ? d->exe : NULL);
	jw_str(w, "cwd", d ? d->cwd : NULL);
	jw_str(w, "user", p->user);
	jw_pid_field(w, "uid", p, p->uid);
	jw_pid_field(w, "ppid", p, p->ppid);
	jw_pid_field(w, "start_time_ticks", p, start_ticks(p));
}

/* rss_bytes .. vram_total_bytes: the readings */
void jw_process_readings(struct jw *w, const struct gtm_process *p)
{
	jw_u64(w, "rss_bytes", p->rss);
	if (p->ports_read) {
		jw_begin_array(w, "listening_ports");
		for (int i = 0; i < p->n_ports; i++)
			jw_int(w, NULL, p->ports[i]);
		jw_end_array(w);
	} else {
		jw_null(w, "listening_ports");
	}
	jw_begin_array(w, "gpus");
	for (int i = 0; i < p->n_uses; i++)
		jw_use(w, &p->uses[i]);
	jw_end_array(w);
	jw_u64(w, "vram_total_bytes", process_vram_total(p));
}

/* category .. explain: identification and explanation */
void jw_process_tail(struct jw *w, const struct gtm_process *p)
{
	if (p->ident) {
		ident_jw_into(w, p->ident);
	} else {
		/* a row with nothing to identify (H:, unattributed, unreadable):
		 * the same keys, unavailable, so readers need no special case */
		jw_null(w, "category");
		jw_null(w, "category_reason");
		jw_begin_array(w, "runtimes");
		jw_end_array(w);
		jw_begin_array(w, "models");
		jw_end_array(w);
		jw_null(w, "installed_omitted");
		jw_null(w, "llama_flags");
	}
	jw_json(w, "explain", p->explain ? explain_json(p->explain) : NULL);
}

void jw_process_members(struct jw *w, const struct gtm_process *p)
{
	jw_process_head(w, p);
	jw_process_readings(w, p);
	jw_process_tail(w, p);
}

bool view_lists_process(const struct gtm_snapshot *s, int i, bool all)
{
	/* an AI runtime that uses no GPU is CPU work: listed with --all only */
	return all || i < s->n_gpu_processes || s->processes[i].runner_parent;
}

static void jw_time_ns(struct jw *w, const char *key, uint64_t ns)
{
	char buf[32];
	json_time_text(buf, sizeof buf, ns);
	jw_str(w, key, buf);
}

static void jw_sources(struct jw *w, const struct gtm_snapshot *s)
{
	jw_begin_array(w, "sources");
	for (int i = 0; i < s->n_sources; i++) {
		jw_begin_object(w, NULL);
		jw_str(w, "name", s->sources[i].name);
		jw_bool(w, "available", s->sources[i].available);
		jw_bool(w, "failed", s->sources[i].failed);
		jw_str(w, "message", s->sources[i].message);
		jw_end_object(w);
	}
	jw_end_array(w);
}

static void jw_gpus(struct jw *w, const struct gtm_snapshot *s)
{
	jw_begin_array(w, "gpus");
	for (int i = 0; i < s->n_devices; i++)
		jw_device(w, &s->devices[i]);
	jw_end_array(w);
}

static void jw_counts(struct jw *w, const struct gtm_snapshot *s)
{
	jw_begin_object(w, "counts");
	if (s->procs_unlisted) {
		jw_null(w, "processes_seen");
		jw_null(w, "processes_uninspectable");
	} else {
		jw_int(w, "processes_seen", s->n_procs_total);
		jw_int(w, "processes_uninspectable", s->n_procs_uninspectable);
	}
	jw_int(w, "gpu_processes", s->n_gpu_processes);
	jw_bool(w, "partial_scan", s->partial_scan);
	jw_end_object(w);
}

int json_print_snapshot(FILE *out, const struct gtm_snapshot *s, bool all)
{
	return json_write_snapshot(out, s, all, false);
}

int json_write_snapshot(FILE *out, const struct gtm_snapshot *s, bool all, bool compact)
{
	return json_write_snapshot_rows(out, s, all, compact, NULL);
}

int json_write_snapshot_rows(FILE *out, const struct gtm_snapshot *s, bool all, bool compact,
			     struct json_row_cache *rows)
{
	struct jw *w = malloc(sizeof *w);
	int r;

	if (!w)
		return -1;
	jw_init(w, out);
	w->compact = compact;
	if (!rows)
		w->cap = JW_BUF_STREAM; /* no row is kept from the buffer: flush early */
	jw_begin_object(w, NULL);
	jw_int(w, "schema_version", s->schema_version);
	jw_str(w, "gputaskman_version", GTM_VERSION);
	jw_time_ns(w, "taken_at", s->taken_at_ns);
	jw_str(w, "hostname", s->hostname);
	jw_str(w, "mode", gtm_mode_name(s->mode));
	jw_host_stream(w, &s->host);
	jw_sources(w, s);
	jw_gpus(w, s);
	jw_begin_array(w, "processes");
	for (int i = 0; i < s->n_processes; i++) {
		if (!view_lists_process(s, i, all))
			continue;
		jw_begin_object(w, NULL);
		if (rows)
			json_row_cache_members(rows, w, &s->processes[i]);
		else
			jw_process_members(w, &s->processes[i]);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_counts(w, s);
	jw_begin_array(w, "notes");
	for (int i = 0; i < s->n_notes; i++)
		jw_str(w, NULL, s->notes[i]);
	jw_end_array(w);
	jw_end_object(w);
	r = jw_finish(w);
	free(w);
	return r;
}

int json_print_gpu_list(FILE *out, const struct gtm_snapshot *s)
{
	struct jw *w = malloc(sizeof *w);
	int r;

	if (!w)
		return -1;
	jw_init(w, out);
	jw_begin_object(w, NULL);
	jw_int(w, "schema_version", s->schema_version);
	jw_gpus(w, s);
	jw_sources(w, s);
	jw_end_object(w);
	r = jw_finish(w);
	free(w);
	return r;
}
