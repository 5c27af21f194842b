/* The diff as JSON (docs/diff.md): every process, hidden or not, with the rule
 * that paired it; counters as {before, after, delta}, null where unknown. */
#include <stdio.h>
#include <string.h>

#include "views/diff.h"
#include "views/json_util.h"

#define DIFF_SCHEMA_VERSION 1

static json_t *val(bool listed, struct snap_val v)
{
	return listed && v.known ? json_integer((json_int_t)v.v) : json_null();
}

static json_t *delta(const struct diff_delta *d)
{
	json_t *j = json_object();
	json_put(j, "before", val(d->b_listed, d->b));
	json_put(j, "after", val(d->a_listed, d->a));
	json_put(j, "delta", d->known ? json_integer(d->delta) : json_null());
	return j;
}

static json_t *side_info(const struct snap_rows *s, const char *file)
{
	json_t *j = json_object();
	json_put(j, "file", json_of_str(file));
	json_put(j, "taken_at", json_of_str(s->taken_at));
	json_put(j, "hostname", json_of_str(s->hostname));
	json_put(j, "gputaskman_version", json_of_str(s->version));
	json_put(j, "schema_version", json_integer(s->schema_version));
	return j;
}

static json_t *dev_ref(const struct snap_dev *d)
{
	json_t *j;
	if (!d)
		return json_null();
	j = json_object();
	json_put(j, "index", json_integer(d->index));
	json_put(j, "name", json_of_str(d->name));
	json_put(j, "uuid", json_of_str(d->uuid));
	json_put(j, "pci_bus_id", json_of_str(d->pci_bus_id));
	return j;
}

static json_t *devices(const struct diff_result *r)
{
	json_t *arr = json_array();
	for (int i = 0; i < r->n_devs; i++) {
		const struct diff_dev_row *row = &r->devs[i];
		json_t *j = json_object(), *mem = json_object();
		json_put(j, "before", dev_ref(row->b));
		json_put(j, "after", dev_ref(row->a));
		json_put(j, "paired_by", json_of_str(row->paired_by));
		json_put(mem, "total_bytes", delta(&row->total));
		json_put(mem, "used_bytes", delta(&row->used));
		json_put(mem, "free_bytes", delta(&row->free));
		json_put(mem, "reserved_bytes", delta(&row->reserved));
		json_put(mem, "shared_used_bytes", delta(&row->shared_used));
		json_put(j, "memory", mem);
		json_put(j, "processes_listed", delta(&row->processes_listed));
		json_array_append_new(arr, j);
	}
	return arr;
}

static json_t *proc_ref(const struct snap_proc *p)
{
	json_t *j, *ports;
	if (!p)
		return json_null();
	j = json_object();
	ports = json_array();
	json_put(j, "pid", p->has_pid ? json_integer(p->pid) : json_null());
	json_put(j, "host_pid", p->has_host_pid ? json_integer(p->host_pid) : json_null());
	json_put(j, "start_time_ticks", p->has_start ? json_integer((json_int_t)p->start_time) : json_null());
	json_put(j, "label", json_of_str(p->label));
	json_put(j, "name", json_of_str(p->name));
	json_put(j, "owner", json_of_str(p->owner));
	for (int i = 0; i < p->n_ports; i++)
		json_array_append_new(ports, json_integer(p->ports[i]));
	json_put(j, "listening_ports", ports);
	return j;
}

static json_t *uses(const struct diff_proc_row *row)
{
	json_t *arr = json_array();
	for (int i = 0; i < row->n_uses; i++) {
		const struct diff_use_row *u = &row->uses[i];
		json_t *j = json_object();
		json_put(j, "gpu_before", u->index_b >= 0 ? json_integer(u->index_b) : json_null());
		json_put(j, "gpu_after", u->index_a >= 0 ? json_integer(u->index_a) : json_null());
		json_put(j, "uuid", json_of_str(u->dev_a ? u->dev_a->uuid : u->dev_b ? u->dev_b->uuid : NULL));
		json_put(j, "vram_bytes", delta(&u->vram));
		json_put(j, "spill_bytes", delta(&u->spill));
		json_put(j, "paged_bytes", delta(&u->paged));
		json_array_append_new(arr, j);
	}
	return arr;
}

static json_t *segments(const struct diff_proc_row *row, enum snap_seg_kind kind)
{
	json_t *arr = json_array();
	for (int i = 0; i < row->n_segs; i++) {
		const struct diff_seg_row *s = &row->segs[i];
		const struct snap_seg *seg = s->a ? s->a : s->b;
		json_t *j;
		if (seg->kind != kind)
			continue;
		j = delta(&s->bytes);
		json_put(j, "label", json_of_str(seg->label));
		json_put(j, "source", json_of_str(seg->source));
		json_put(j, "listed_before", json_boolean(s->b != NULL));
		json_put(j, "listed_after", json_boolean(s->a != NULL));
		json_array_append_new(arr, j);
	}
	return arr;
}

static json_t *models(const struct diff_proc_row *row)
{
	static const char *const change[] = {[DIFF_MODEL_KEPT] = "kept", [DIFF_MODEL_ADDED] = "added",
					     [DIFF_MODEL_REMOVED] = "removed"};
	json_t *arr = json_array();
	for (int i = 0; i < row->n_models; i++) {
		const struct diff_model_row *m = &row->models[i];
		const struct snap_model *dm = m->a ? m->a : m->b;
		json_t *j = json_object();
		json_put(j, "name", json_of_str(dm->name));
		json_put(j, "key", json_of_str(dm->key));
		json_put(j, "change", json_string(change[m->change]));
		json_put(j, "evidence_before", json_of_str(m->b ? m->b->evidence : NULL));
		json_put(j, "evidence_after", json_of_str(m->a ? m->a->evidence : NULL));
		json_put(j, "status_before", json_of_str(m->b ? m->b->status : NULL));
		json_put(j, "status_after", json_of_str(m->a ? m->a->status : NULL));
		json_array_append_new(arr, j);
	}
	return arr;
}

static json_t *flags_changed(const struct diff_proc_row *row)
{
	json_t *arr = json_array();
	for (int i = 0; i < row->n_flags; i++) {
		const struct diff_flag_change *f = &row->flags[i];
		json_t *j = json_object();
		json_put(j, "flag", json_string(snap_flags[f->which].flag));
		json_put(j, "key", json_string(snap_flags[f->which].key));
		json_put(j, "before", f->b ? json_deep_copy(f->b) : json_null());
		json_put(j, "after", f->a ? json_deep_copy(f->a) : json_null());
		json_array_append_new(arr, j);
	}
	return arr;
}

static json_t *kv_check(const struct diff_kv_check *kv)
{
	static const char *const direction[] = {
		[DIFF_KV_AS_ESTIMATED] = "as_estimated",
		[DIFF_KV_MEASURED_SMALLER] = "measured_smaller",
		[DIFF_KV_MEASURED_LARGER] = "measured_larger",
	};
	const char *note = diff_kv_note(kv->direction);
	char text[256];
	json_t *j;

	if (!kv->present)
		return json_null();
	j = json_object();
	snprintf(text, sizeof text, "%s%s%s", note ? note : "", note ? ". " : "", DIFF_KV_ADVICE);
	json_put(j, "estimate_delta_bytes", json_integer(kv->estimate_delta));
	json_put(j, "measured_vram_delta_bytes", json_integer(kv->measured_delta));
	/* null: the two moved in opposite directions, where a ratio means nothing */
	json_put(j, "ratio", kv->has_ratio ? json_real(kv->ratio) : json_null());
	json_put(j, "direction", json_string(direction[kv->direction]));
	json_put(j, "note", json_string(text));
	return j;
}

static json_t *process(const struct diff_proc_row *row)
{
	json_t *j = json_object(), *m = json_object();
	json_put(j, "before", proc_ref(row->b));
	json_put(j, "after", proc_ref(row->a));
	json_put(j, "paired_by", json_of_str(diff_rule_name(row->rule)));
	json_put(j, "restarted", json_boolean(diff_rule_is_restart(row->rule)));
	json_put(j, "hidden_in_text", json_boolean(row->hidden));
	json_put(j, "movement_bytes", row->movement_known ? json_integer((json_int_t)row->movement) : json_null());
	json_put(m, "vram_total_bytes", delta(&row->vram_total));
	json_put(m, "spill_total_bytes", delta(&row->spill_total));
	json_put(m, "paged_total_bytes", delta(&row->paged_total));
	json_put(m, "rss_bytes", delta(&row->rss));
	json_put(m, "gpus", uses(row));
	json_put(j, "measured", m);
	json_put(j, "reported", segments(row, SNAP_SEG_REPORTED));
	json_put(j, "estimated", segments(row, SNAP_SEG_ESTIMATED));
	json_put(j, "other", segments(row, SNAP_SEG_OTHER));
	json_put(j, "models", models(row));
	json_put(j, "llama_flags_changed", flags_changed(row));
	json_put(j, "kv_check", kv_check(&row->kv));
	return j;
}

json_t *diff_to_json(const struct diff_result *r, const char *before_name, const char *after_name)
{
	json_t *j = json_object(), *procs = json_array(), *warn = json_array();

	json_put(j, "diff_schema_version", json_integer(DIFF_SCHEMA_VERSION));
	json_put(j, "gputaskman_version", json_string(GTM_VERSION));
	json_put(j, "before", side_info(r->before, before_name));
	json_put(j, "after", side_info(r->after, after_name));
	for (int i = 0; i < r->n_warnings; i++)
		json_array_append_new(warn, json_of_str(r->warnings[i]));
	json_put(j, "warnings", warn);
	json_put(j, "gpus", devices(r));
	for (int i = 0; i < r->n_procs; i++)
		json_array_append_new(procs, process(&r->procs[i]));
	json_put(j, "processes", procs);
	json_put(j, "hide_below_bytes", json_integer((json_int_t)r->hide_below));
	json_put(j, "hidden_in_text", json_integer(r->n_hidden));
	return j;
}
