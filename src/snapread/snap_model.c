#include "snapread/snap_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "explain/explain.h"
#include "identify/ident.h"
#include "identify/runtimes.h"
#include "record/rec_time.h"
#include "snapread/snap_parse.h"
#include "snapread/snap_rows.h"

/* Tolerant leaf reads: absent, null or of another type is N/A. */
static const json_t *get_obj(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_object(v) ? v : NULL;
}

static const json_t *get_arr(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_array(v) ? v : NULL;
}

static const char *get_str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static void copy_str(char *dst, size_t n, const json_t *o, const char *k)
{
	const char *s = get_str(o, k);
	str_copy(dst, s ? s : "", n);
}

static bool get_bool(const json_t *o, const char *k)
{
	return json_is_true(json_object_get(o, k));
}

static bool get_int(const json_t *o, const char *k, long long lo, long long hi, long long *out)
{
	const json_t *v = json_object_get(o, k);
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return false;
	*out = json_integer_value(v);
	return true;
}

static long long int_or(const json_t *o, const char *k, long long lo, long long hi, long long dflt)
{
	long long v;
	return get_int(o, k, lo, hi, &v) ? v : dflt;
}

static gtm_u64 get_u64(const json_t *o, const char *k, enum gtm_prov prov)
{
	long long v;
	return get_int(o, k, 0, INT64_MAX, &v) ? gtm_u64_of((uint64_t)v, prov) : GTM_U64_NA;
}

static gtm_f64 get_f64(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return GTM_F64_NA;
	return gtm_f64_of(json_number_value(v), GTM_MEASURED);
}

/* The enum value whose name function gives s; dflt when none does. */
#define ENUM_OF(s, fn, type, count, dflt)                                   \
	__extension__({                                                     \
		type r_ = (dflt);                                           \
		for (int i_ = 0; (s) && i_ < (int)(count); i_++)            \
			if (!strcmp((s), fn((type)i_))) {                   \
				r_ = (type)i_;                              \
				break;                                      \
			}                                                   \
		r_;                                                         \
	})

/* {name, busy_pct} per engine (a device's; a WDDM use's per type). */
static int read_engines(const json_t *arr, struct gtm_engine *out)
{
	int n = 0;
	for (size_t i = 0; i < json_array_size(arr) && n < GTM_MAX_ENGINES; i++) {
		const json_t *e = json_array_get(arr, i);
		copy_str(out[n].name, sizeof out[n].name, e, "name");
		out[n++].busy_pct = get_f64(e, "busy_pct");
	}
	return n;
}

static void read_device(const json_t *o, struct gtm_device *d)
{
	const json_t *mem = get_obj(o, "memory"), *ut = get_obj(o, "utilization"), *ck = get_obj(o, "clocks_mhz");
	const json_t *pcie = get_obj(o, "pcie"), *eng = get_arr(o, "engines");

	d->index = (int)int_or(o, "index", 0, 1 << 20, 0);
	d->vendor = ENUM_OF(get_str(o, "vendor"), gtm_vendor_name, enum gtm_vendor, GTM_VENDOR_APPLE + 1, GTM_VENDOR_OTHER);
	copy_str(d->source, sizeof d->source, o, "source");
	copy_str(d->name, sizeof d->name, o, "name");
	copy_str(d->uuid, sizeof d->uuid, o, "uuid");
	copy_str(d->pci_bus_id, sizeof d->pci_bus_id, o, "pci_bus_id");
	copy_str(d->luid, sizeof d->luid, o, "luid");
	copy_str(d->driver, sizeof d->driver, o, "driver");
	copy_str(d->driver_version, sizeof d->driver_version, o, "driver_version");
	copy_str(d->cuda_version, sizeof d->cuda_version, o, "cuda_version");
	d->is_apu = get_bool(o, "is_apu");
	d->mem_total = get_u64(mem, "total_bytes", GTM_MEASURED);
	d->mem_used = get_u64(mem, "used_bytes", GTM_MEASURED);
	d->mem_free = get_u64(mem, "free_bytes", GTM_MEASURED);
	d->mem_reserved = get_u64(mem, "reserved_bytes", GTM_MEASURED);
	d->shared_total = get_u64(mem, "shared_total_bytes", GTM_MEASURED);
	d->shared_used = get_u64(mem, "shared_used_bytes", GTM_MEASURED);
	d->util_gpu_pct = get_f64(ut, "gpu_pct");
	d->util_mem_pct = get_f64(ut, "memory_activity_pct");
	d->enc_pct = get_f64(ut, "encoder_pct");
	d->dec_pct = get_f64(ut, "decoder_pct");
	d->temp_c = get_f64(o, "temperature_c");
	d->power_w = get_f64(o, "power_w");
	d->power_limit_w = get_f64(o, "power_limit_w");
	d->fan_pct = get_f64(o, "fan_pct");
	d->clock_sm_mhz = get_f64(ck, "sm");
	d->clock_mem_mhz = get_f64(ck, "memory");
	d->clock_video_mhz = get_f64(ck, "video");
	d->clock_sm_max_mhz = get_f64(ck, "sm_max");
	d->clock_mem_max_mhz = get_f64(ck, "memory_max");
	d->pcie_tx_bps = get_f64(pcie, "tx_bytes_per_s");
	d->pcie_rx_bps = get_f64(pcie, "rx_bytes_per_s");
	d->pcie_gen = get_f64(pcie, "generation");
	d->pcie_width = get_f64(pcie, "width");
	d->n_engines = read_engines(eng, d->engines);
	d->n_processes_seen = (int)int_or(o, "processes_listed", 0, 1 << 30, -1);
}

static void read_use(const json_t *o, struct gtm_gpu_use *u, enum gtm_prov prov)
{
	const json_t *ref = get_obj(o, "drm_reference");

	u->dev_index = (int)int_or(o, "index", 0, 1 << 20, 0);
	u->source_pid = (uint32_t)int_or(o, "source_pid", 0, UINT32_MAX, 0);
	u->compute = get_bool(o, "compute");
	u->graphics = get_bool(o, "graphics");
	u->vram = get_u64(o, "vram_bytes", prov);
	copy_str(u->na_reason, sizeof u->na_reason, o, "vram_na_reason");
	u->spill = get_u64(o, "spill_bytes", prov);
	u->paged = get_u64(o, "paged_bytes", prov);
	u->sm_pct = get_f64(o, "sm_pct");
	u->enc_pct = get_f64(o, "encoder_pct");
	u->dec_pct = get_f64(o, "decoder_pct");
	u->gfx_pct = get_f64(o, "graphics_pct");
	u->copy_pct = get_f64(o, "copy_pct");
	u->video_pct = get_f64(o, "video_pct");
	/* WDDM: the busiest engine, the per-type loads, paged estimated, the counters that stood in */
	u->busy_pct = get_f64(o, "gpu_pct");
	struct gtm_engine engines[GTM_MAX_ENGINES];
	gpu_use_set_engines(u, engines, read_engines(get_arr(o, "engines"), engines));
	const char *pp = get_str(o, "paged_provenance");
	if (pp && !strcmp(pp, "estimated") && gtm_u64_ok(u->paged))
		u->paged.prov = GTM_ESTIMATED;
	copy_str(u->mem_note, sizeof u->mem_note, o, "memory_note");
	u->n_clients = (int)int_or(ref, "clients", 0, 1 << 20, 0);
	u->ref_vram = get_u64(ref, "resident_vram_bytes", GTM_MEASURED);
	u->ref_spill = get_u64(ref, "resident_gtt_bytes", GTM_MEASURED);
	u->ref_shared = get_u64(ref, "shared_bytes", GTM_MEASURED);
}

static char *dup_str(const json_t *o, const char *k)
{
	const char *s = get_str(o, k);
	return s ? xstrdup(s) : NULL;
}

/* cmdline, exe and cwd as the process's detail; NULL when none was recorded. */
static struct gtm_proc_detail *read_detail(const json_t *o)
{
	const json_t *argv = get_arr(o, "cmdline");
	struct gtm_proc_detail *d;
	size_t n = json_array_size(argv);

	if (!argv && !get_str(o, "exe") && !get_str(o, "cwd"))
		return NULL;
	if (n > SNAP_MODEL_MAX_ARGS)
		n = SNAP_MODEL_MAX_ARGS;
	d = xcalloc(1, sizeof *d);
	atomic_init(&d->refs, 1);
	d->argv = xcalloc(n + 1, sizeof *d->argv);
	for (size_t i = 0; i < n; i++) {
		const char *a = json_string_value(json_array_get(argv, i));
		d->argv[d->argc++] = xstrdup(a ? a : "");
	}
	d->exe = dup_str(o, "exe");
	d->cwd = dup_str(o, "cwd");
	return d;
}

static void read_ports(const json_t *o, struct gtm_process *p)
{
	const json_t *ports = get_arr(o, "listening_ports");

	p->ports_read = ports != NULL;
	for (size_t i = 0; i < json_array_size(ports) && p->n_ports < (int)ARRAY_LEN(p->ports); i++) {
		long long v = json_integer_value(json_array_get(ports, i));
		if (v > 0 && v <= 65535)
			p->ports[p->n_ports++] = (uint16_t)v;
	}
}

static void read_runtimes(const json_t *o, struct gtm_ident *id)
{
	const json_t *arr = get_arr(o, "runtimes");
	size_t n = json_array_size(arr);

	id->runtimes = n ? xcalloc(n < SNAP_MODEL_MAX_RUNTIMES ? n : SNAP_MODEL_MAX_RUNTIMES, sizeof *id->runtimes)
			 : NULL;
	for (size_t i = 0; i < n && id->n_runtimes < SNAP_MODEL_MAX_RUNTIMES; i++) {
		const json_t *r = json_array_get(arr, i), *ev = get_arr(r, "evidence");
		struct ident_runtime *rt = &id->runtimes[id->n_runtimes];
		/* an id this build has no entry for is left out: its name and traits would be guesses */
		if (!runtimes_lookup(get_str(r, "id"), rt))
			continue;
		id->n_runtimes++;
		for (size_t k = 0; k < json_array_size(ev) && rt->n_evidence < IDENT_RT_EVIDENCE_MAX; k++) {
			const char *e = json_string_value(json_array_get(ev, k));
			if (e)
				rt->evidence[rt->n_evidence++] = xstrdup(e);
		}
	}
}

static void read_model(const json_t *o, struct ident_model *m)
{
	const json_t *ev = get_arr(o, "evidence"), *detail = get_obj(o, "evidence_detail");

	m->name = dup_str(o, "name");
	m->path = dup_str(o, "path");
	m->store = ENUM_OF(get_str(o, "store"), model_store_name, enum model_store, MODEL_STORE_HF + 1, MODEL_STORE_NONE);
	m->role = ENUM_OF(get_str(o, "role"), model_role_name, enum model_role, MODEL_ROLE_COUNT, MODEL_ROLE_MODEL);
	for (size_t k = 0; k < json_array_size(ev); k++) {
		const char *s = json_string_value(json_array_get(ev, k));
		enum model_evidence e = ENUM_OF(s, model_evidence_name, enum model_evidence, MODEL_EV_COUNT, MODEL_EV_COUNT);
		if (e == MODEL_EV_COUNT)
			continue;
		m->evidence |= 1u << e;
		if (!m->evidence_detail[e])
			m->evidence_detail[e] = dup_str(detail, s);
	}
	m->file_size = get_u64(o, "file_size_bytes", GTM_MEASURED);
}

/* NULL for a row --json wrote without identification (null category, no runtime, no model). */
static struct gtm_ident *read_ident(const json_t *o)
{
	const json_t *models = get_arr(o, "models");
	const char *cat = get_str(o, "category");
	struct gtm_ident *id;
	size_t n = json_array_size(models);

	if (!cat && !json_array_size(get_arr(o, "runtimes")) && !n)
		return NULL;
	if (!gtm_ident_free_hook)
		gtm_ident_free_hook = ident_free;
	id = ident_new();
	id->category = ENUM_OF(cat, ident_category_name, enum ident_category, IDENT_CAT_COUNT, IDENT_CAT_OTHER);
	copy_str(id->category_reason, sizeof id->category_reason, o, "category_reason");
	read_runtimes(o, id);
	if (n > IDENT_MAX_MODELS)
		n = IDENT_MAX_MODELS;
	id->models = n ? xcalloc(n, sizeof *id->models) : NULL;
	id->cap_models = (int)n;
	for (size_t i = 0; i < n; i++)
		read_model(json_array_get(models, i), &id->models[id->n_models++]);
	id->n_installed_omitted = (int)int_or(o, "installed_omitted", 0, 1 << 30, 0);
	return id;
}

static void read_segment(const json_t *o, struct gtm_explain *e)
{
	enum ex_seg seg = ENUM_OF(get_str(o, "segment"), ex_seg_name, enum ex_seg, EX_SEG_COUNT, EX_SEG_COUNT);
	enum ex_src src = ENUM_OF(get_str(o, "source"), ex_src_name, enum ex_src, EX_SRC_REMAINDER + 1, EX_SRC_REMAINDER + 1);
	enum gtm_prov prov = ENUM_OF(get_str(o, "provenance"), gtm_prov_name, enum gtm_prov, GTM_ESTIMATED + 1, GTM_UNAVAILABLE);
	struct ex_segment *s;

	/* a kind or source this build does not know would be drawn as something it is not */
	if (seg == EX_SEG_COUNT || src > EX_SRC_REMAINDER || e->n_segs == EX_MAX_SEGS)
		return;
	s = &e->segs[e->n_segs++];
	s->seg = seg;
	s->src = src;
	copy_str(s->device, sizeof s->device, o, "device");
	s->gpu = (int)int_or(o, "gpu", 0, 1 << 20, -1);
	s->host = get_bool(o, "host_memory");
	s->bytes = prov == GTM_UNAVAILABLE ? GTM_U64_NA : get_u64(o, "bytes", prov);
	s->approx = get_bool(o, "approximate");
	s->planned = get_bool(o, "planned_placement");
	s->superseded = get_bool(o, "superseded_by_log");
	s->join = ENUM_OF(get_str(o, "device_join"), ex_join_name, enum ex_join, EX_JOIN_GUESS + 1, EX_JOIN_NONE);
	copy_str(s->note, sizeof s->note, o, "note");
}

/* One GPU of a split model (explain.devices[]); bytes null = nothing reported. */
static void read_device_part(const json_t *o, struct gtm_explain *e)
{
	if (e->n_devs == EX_MAX_DEVS)
		return;
	struct ex_device *d = &e->devs[e->n_devs];
	memset(d, 0, sizeof *d);
	d->gpu = (int)int_or(o, "gpu", 0, 1 << 20, -1);
	if (d->gpu < 0)
		return;
	e->n_devs++;
	copy_str(d->uuid, sizeof d->uuid, o, "uuid");
	copy_str(d->runtime_dev, sizeof d->runtime_dev, o, "runtime_device");
	d->join = ENUM_OF(get_str(o, "device_join"), ex_join_name, enum ex_join, EX_JOIN_GUESS + 1, EX_JOIN_NONE);
	d->layers = (int32_t)int_or(o, "layers", 0, 1 << 20, -1);
	d->first_layer = (int32_t)int_or(o, "first_layer", 0, 1 << 20, -1);
	d->last_layer = (int32_t)int_or(o, "last_layer", 0, 1 << 20, -1);
	const char *src = get_str(o, "reported_source");
	d->reported = src != NULL;
	d->api = src && !strcmp(src, "api");
	uint64_t *parts[] = {&d->weights, &d->kv, &d->compute, &d->other};
	static const char *const keys[] = {"weights_bytes", "kv_cache_bytes", "compute_bytes", "other_bytes"};
	for (size_t i = 0; i < 4; i++) {
		gtm_u64 v = get_u64(o, keys[i], GTM_REPORTED);
		*parts[i] = gtm_u64_ok(v) ? v.v : 0;
	}
	enum gtm_prov rp = ENUM_OF(get_str(o, "rest_provenance"), gtm_prov_name, enum gtm_prov, GTM_ESTIMATED + 1, GTM_UNAVAILABLE);
	enum gtm_prov mp = ENUM_OF(get_str(o, "measured_provenance"), gtm_prov_name, enum gtm_prov, GTM_ESTIMATED + 1, GTM_UNAVAILABLE);
	d->rest = rp == GTM_UNAVAILABLE ? GTM_U64_NA : get_u64(o, "rest_bytes", rp);
	d->measured = mp == GTM_UNAVAILABLE ? GTM_U64_NA : get_u64(o, "measured_bytes", mp);
}

static struct gtm_explain *read_explain(const json_t *o, const struct gtm_ident *id)
{
	const json_t *x = get_obj(o, "explain"), *segs = get_arr(x, "breakdown"), *notes = get_arr(x, "notes");
	struct gtm_explain *e;

	if (!x)
		return NULL;
	gtm_explain_free_hook = explain_free;
	e = xcalloc(1, sizeof *e);
	copy_str(e->runtime, sizeof e->runtime, x, "runtime");
	for (size_t i = 0; i < json_array_size(segs); i++)
		read_segment(json_array_get(segs, i), e);
	for (size_t i = 0; i < json_array_size(get_arr(x, "devices")); i++)
		read_device_part(json_array_get(get_arr(x, "devices"), i), e);
	e->estimate_disagrees = get_bool(x, "estimate_disagrees");
	e->n_models = id ? id->n_models : 0;
	for (size_t i = 0; i < json_array_size(notes) && e->n_notes < EX_MAX_NOTES; i++) {
		const char *s = json_string_value(json_array_get(notes, i));
		if (s)
			str_copy(e->notes[e->n_notes++], s, sizeof e->notes[0]);
	}
	if (e->n_notes < EX_MAX_NOTES && (!json_is_null(json_object_get(x, "log")) ||
					  json_array_size(get_arr(x, "servers")) ||
					  !json_is_null(json_object_get(x, "app"))))
		ex_add_note(e, "recorded: the log, server and app details are not shown in replay "
			       "(gputaskman replay PATH --json --at TIME prints them)");
	return e;
}

/* How the row's VRAM was inferred (a constant of this build's: the string is
 * not kept), and whether it is the WSL VM's row, which holds the matched ones. */
static void read_wsl(const json_t *o, struct gtm_process *p)
{
	const char *by = get_str(o, "vram_inferred_by");

	if (by)
		p->vram_inferred_by = !strcmp(by, "wsl-context-match") ? "wsl-context-match" : "recorded";
	p->wsl_vm_row = get_bool(o, "wsl_vm_row");
}

static void read_process(const json_t *o, struct gtm_process *p)
{
	const json_t *uses = get_arr(o, "gpus"), *ex = get_obj(o, "exited_owner");
	size_t n = json_array_size(uses);
	long long v;

	p->pid = (uint32_t)int_or(o, "pid", 0, UINT32_MAX, 0);
	p->host_pid = (uint32_t)int_or(o, "host_pid", 0, UINT32_MAX, 0);
	copy_str(p->label, sizeof p->label, o, "label");
	p->owner = ENUM_OF(get_str(o, "owner"), gtm_owner_name, enum gtm_owner, GTM_OWNER_EXITED + 1, GTM_OWNER_NONE);
	copy_str(p->owner_reason, sizeof p->owner_reason, o, "owner_reason");
	if (ex) {
		p->exited_pid = (uint32_t)int_or(ex, "pid", 0, UINT32_MAX, 0);
		p->exited_pairing = ENUM_OF(get_str(ex, "pairing"), gtm_owner_name, enum gtm_owner, GTM_OWNER_EXITED + 1,
					    GTM_OWNER_GUESSED);
	}
	p->start_time = get_int(o, "start_time_ticks", 0, INT64_MAX, &v) || get_int(ex, "start_time_ticks", 0, INT64_MAX, &v)
				? (uint64_t)v : 0;
	p->ppid = (uint32_t)int_or(o, "ppid", 0, UINT32_MAX, 0);
	p->uid = (uid_t)int_or(o, "uid", 0, UINT32_MAX, 0);
	copy_str(p->user, sizeof p->user, o, "user");
	copy_str(p->name, sizeof p->name, o, "name");
	p->rss = get_u64(o, "rss_bytes", GTM_MEASURED);
	read_ports(o, p);
	p->detail = read_detail(o);
	if (n > SNAP_MAX_DEVICES)
		n = SNAP_MAX_DEVICES;
	read_wsl(o, p);
	/* a row's bytes are the owner's as far as its pairing is certain; an
	 * exited owner's WSL context (*x/?x) keeps its pairing's */
	enum gtm_owner pairing = p->owner == GTM_OWNER_EXITED && p->vram_inferred_by ? p->exited_pairing : p->owner;
	enum gtm_prov prov = pairing == GTM_OWNER_MATCHED ? GTM_MATCHED
			     : pairing == GTM_OWNER_GUESSED ? GTM_GUESSED : GTM_MEASURED;
	for (size_t i = 0; i < n; i++)
		read_use(json_array_get(uses, i), process_add_use(p), prov);
	p->ident = read_ident(o);
	p->explain = read_explain(o, p->ident);
}

static void read_counts(const json_t *doc, struct gtm_snapshot *s)
{
	const json_t *c = get_obj(doc, "counts");
	long long seen, unins;

	s->procs_unlisted = !get_int(c, "processes_seen", 0, INT32_MAX, &seen);
	s->n_procs_total = s->procs_unlisted ? 0 : (int)seen;
	s->n_procs_uninspectable = get_int(c, "processes_uninspectable", 0, INT32_MAX, &unins) ? (int)unins : 0;
	s->partial_scan = get_bool(c, "partial_scan");
	/* GPU rows come first (views/json.c); counted, not taken from the file */
	s->n_gpu_processes = 0;
	while (s->n_gpu_processes < s->n_processes && s->processes[s->n_gpu_processes].n_uses > 0)
		s->n_gpu_processes++;
}

static void read_sources(const json_t *doc, struct gtm_snapshot *s)
{
	const json_t *arr = get_arr(doc, "sources");

	for (size_t i = 0; i < json_array_size(arr) && s->n_sources < (int)ARRAY_LEN(s->sources); i++) {
		const json_t *o = json_array_get(arr, i);
		struct gtm_source_status *st = snapshot_add_source(s, get_str(o, "name") ? get_str(o, "name") : "");
		st->available = get_bool(o, "available");
		st->failed = get_bool(o, "failed");
		copy_str(st->message, sizeof st->message, o, "message");
	}
}

struct gtm_snapshot *snap_model_read(const json_t *doc, char *err, size_t errn)
{
	const json_t *gpus = get_arr(doc, "gpus"), *procs = get_arr(doc, "processes"), *notes = get_arr(doc, "notes");
	const char *taken = get_str(doc, "taken_at");
	struct gtm_snapshot *s;
	int64_t t;

	if (!json_is_object(doc) || !gpus || !procs) {
		snprintf(err, errn, "not a gputaskman snapshot (no gpus and processes arrays)");
		return NULL;
	}
	if (json_array_size(gpus) > SNAP_MAX_DEVICES || json_array_size(procs) > SNAP_MAX_PROCESSES) {
		snprintf(err, errn, "%zu GPUs and %zu processes, more than a snapshot may hold", json_array_size(gpus),
			 json_array_size(procs));
		return NULL;
	}
	s = snapshot_new();
	s->schema_version = (int)int_or(doc, "schema_version", 0, SNAP_SCHEMA_MAX, GTM_SCHEMA_VERSION);
	s->taken_at_ns = taken && rec_time_parse_iso(taken, strlen(taken), &t) == 0 && t > 0
				 ? (uint64_t)t * 1000000000ull : 0;
	copy_str(s->hostname, sizeof s->hostname, doc, "hostname");
	s->mode = ENUM_OF(get_str(doc, "mode"), gtm_mode_name, enum gtm_mode, GTM_MODE_WSL + 1, GTM_MODE_NATIVE);
	read_sources(doc, s);
	for (size_t i = 0; i < json_array_size(gpus); i++)
		read_device(json_array_get(gpus, i), snapshot_add_device(s));
	for (size_t i = 0; i < json_array_size(procs); i++)
		read_process(json_array_get(procs, i), snapshot_add_process(s));
	read_counts(doc, s);
	for (size_t i = 0; i < json_array_size(notes) && s->n_notes < SNAP_MODEL_MAX_NOTES; i++) {
		const char *n = json_string_value(json_array_get(notes, i));
		if (n)
			snapshot_add_note(s, "%s", n);
	}
	return s;
}

struct gtm_snapshot *snap_model_parse(const char *buf, size_t len, char *err, size_t errn)
{
	json_t *doc = snap_json_parse(buf, len, err, errn);
	struct gtm_snapshot *s;

	if (!doc)
		return NULL;
	s = snap_model_read(doc, err, errn);
	json_decref(doc);
	return s;
}
