#include "snapread/snap_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "snapread/snap_reported.h"
#include "snapread/json_get.h"

#define INT_KEY(obj, key, lo, hi, has, val, where) \
	jr_int(obj, key, lo, hi, has, val, where, err, errn)

/* An array element that must be an object with a device "index": every snapshot
 * writes one (views/json.c), and without it a row would name no GPU. */
static int read_indexed(const json_t *o, int *index, const char *where, char *err, size_t errn)
{
	bool has;
	long long v;

	if (!json_is_object(o)) {
		snprintf(err, errn, "%s: expected an object", where);
		return -1;
	}
	if (INT_KEY(o, "index", 0, 1 << 20, &has, &v, where))
		return -1;
	if (!has) {
		snprintf(err, errn, "%s.index: missing, expected an integer", where);
		return -1;
	}
	*index = (int)v;
	return 0;
}

static int read_device(const json_t *o, struct snap_dev *d, const char *where, char *err, size_t errn)
{
	const json_t *mem = json_object_get(o, "memory");
	char mwhere[48];
	bool has;
	long long v;

	if (read_indexed(o, &d->index, where, err, errn))
		return -1;
	if (jr_str(o, "uuid", &d->uuid, where, err, errn) || jr_str(o, "name", &d->name, where, err, errn) ||
	    jr_str(o, "pci_bus_id", &d->pci_bus_id, where, err, errn))
		return -1;
	if (INT_KEY(o, "processes_listed", 0, 1 << 30, &has, &v, where))
		return -1;
	d->processes_listed = (struct snap_val){has, (uint64_t)v};
	if (!mem || json_is_null(mem))
		return 0;
	snprintf(mwhere, sizeof mwhere, "%s.memory", where);
	if (!json_is_object(mem)) {
		snprintf(err, errn, "%s: expected an object", mwhere);
		return -1;
	}
	return jr_bytes(mem, "total_bytes", &d->total, mwhere, err, errn) ||
	       jr_bytes(mem, "used_bytes", &d->used, mwhere, err, errn) ||
	       jr_bytes(mem, "free_bytes", &d->free, mwhere, err, errn) ||
	       jr_bytes(mem, "reserved_bytes", &d->reserved, mwhere, err, errn) ||
	       jr_bytes(mem, "shared_total_bytes", &d->shared_total, mwhere, err, errn) ||
	       jr_bytes(mem, "shared_used_bytes", &d->shared_used, mwhere, err, errn) ? -1 : 0;
}

static int read_use(const json_t *o, struct snap_use *u, const char *where, char *err, size_t errn)
{
	return read_indexed(o, &u->index, where, err, errn) || jr_bytes(o, "vram_bytes", &u->vram, where, err, errn) ||
	       jr_bytes(o, "spill_bytes", &u->spill, where, err, errn) ||
	       jr_bytes(o, "paged_bytes", &u->paged, where, err, errn) ? -1 : 0;
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Listening ports as a sorted set, so two snapshots compare them directly. */
static int read_ports(const json_t *o, struct snap_proc *p, const char *where, char *err, size_t errn)
{
	const json_t *arr;
	size_t i;
	json_t *v;

	if (jr_array(o, "listening_ports", SNAP_MAX_PORTS, &arr, where, err, errn))
		return -1;
	json_array_foreach(arr, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 65535) {
			snprintf(err, errn, "%s.listening_ports[%zu]: expected a port number", where, i);
			return -1;
		}
		p->ports[p->n_ports++] = (int)json_integer_value(v);
	}
	qsort(p->ports, (size_t)p->n_ports, sizeof p->ports[0], cmp_int);
	int n = 0;
	for (int k = 0; k < p->n_ports; k++)
		if (n == 0 || p->ports[n - 1] != p->ports[k])
			p->ports[n++] = p->ports[k];
	p->n_ports = n;
	return 0;
}

static int read_identity(const json_t *o, struct snap_proc *p, const char *where, char *err, size_t errn)
{
	bool has;
	long long v;

	if (INT_KEY(o, "pid", 1, UINT32_MAX, &p->has_pid, &v, where))
		return -1;
	p->pid = (uint32_t)v;
	if (INT_KEY(o, "host_pid", 1, UINT32_MAX, &p->has_host_pid, &v, where))
		return -1;
	p->host_pid = (uint32_t)v;
	if (INT_KEY(o, "start_time_ticks", 0, INT64_MAX, &has, &v, where))
		return -1;
	p->has_start = has;
	p->start_time = (uint64_t)v;
	if (jr_str(o, "label", &p->label, where, err, errn) || jr_str(o, "name", &p->name, where, err, errn) ||
	    jr_str(o, "owner", &p->owner, where, err, errn))
		return -1;
	return read_ports(o, p, where, err, errn);
}

static int read_process(const json_t *o, struct snap_rows *s, struct snap_proc *p, const char *where, char *err,
			size_t errn)
{
	const json_t *uses;
	char uwhere[80];
	size_t i;
	json_t *v;

	if (!json_is_object(o)) {
		snprintf(err, errn, "%s: expected an object", where);
		return -1;
	}
	if (read_identity(o, p, where, err, errn) || jr_bytes(o, "vram_total_bytes", &p->vram_total, where, err, errn) ||
	    jr_bytes(o, "rss_bytes", &p->rss, where, err, errn) ||
	    jr_array(o, "gpus", SNAP_MAX_DEVICES, &uses, where, err, errn))
		return -1;
	if (json_array_size(uses) > (size_t)(SNAP_MAX_USES_TOTAL - s->n_uses)) {
		snprintf(err, errn, "%s.gpus: more than %d per-device process rows in all, more than a snapshot holds",
			 where, SNAP_MAX_USES_TOTAL);
		return -1;
	}
	s->n_uses += (int)json_array_size(uses);
	p->uses = xcalloc(json_array_size(uses) + 1, sizeof *p->uses);
	json_array_foreach(uses, i, v) {
		snprintf(uwhere, sizeof uwhere, "%s.gpus[%zu]", where, i);
		if (read_use(v, &p->uses[p->n_uses++], uwhere, err, errn))
			return -1;
		/* gputaskman writes one entry per device: a repeat is not its output */
		for (int k = 0; k + 1 < p->n_uses; k++)
			if (p->uses[k].index == p->uses[p->n_uses - 1].index) {
				snprintf(err, errn, "%s.index: GPU %d is listed twice for one process", uwhere,
					 p->uses[k].index);
				return -1;
			}
	}
	snap_reported_read(o, s, p);
	return 0;
}

static int read_top(json_t *doc, struct snap_rows *s, char *err, size_t errn)
{
	s->schema_version = (int)json_integer_value(json_object_get(doc, "schema_version"));
	return jr_str(doc, "taken_at", &s->taken_at, "", err, errn) || jr_str(doc, "hostname", &s->hostname, "", err, errn) ||
	       jr_str(doc, "gputaskman_version", &s->version, "", err, errn) ||
	       jr_str(doc, "mode", &s->mode, "", err, errn) ? -1 : 0;
}

int snap_rows_read(json_t *doc, struct snap_rows *s, char *err, size_t errn)
{
	const json_t *gpus, *procs;
	char where[48];
	size_t i;
	json_t *v;

	memset(s, 0, sizeof *s);
	s->doc = json_incref(doc);
	if (read_top(doc, s, err, errn) || jr_array(doc, "gpus", SNAP_MAX_DEVICES, &gpus, "", err, errn) ||
	    jr_array(doc, "processes", SNAP_MAX_PROCESSES, &procs, "", err, errn))
		return -1;
	s->devs = xcalloc(json_array_size(gpus) + 1, sizeof *s->devs);
	json_array_foreach(gpus, i, v) {
		snprintf(where, sizeof where, "gpus[%zu]", i);
		if (read_device(v, &s->devs[s->n_devs++], where, err, errn))
			return -1;
	}
	s->procs = xcalloc(json_array_size(procs) + 1, sizeof *s->procs);
	json_array_foreach(procs, i, v) {
		snprintf(where, sizeof where, "processes[%zu]", i);
		if (read_process(v, s, &s->procs[s->n_procs++], where, err, errn))
			return -1;
	}
	return 0;
}

void snap_rows_free(struct snap_rows *s)
{
	for (int i = 0; i < s->n_procs; i++) {
		free(s->procs[i].uses);
		snap_reported_free(&s->procs[i]);
	}
	free(s->procs);
	free(s->devs);
	json_decref(s->doc);
	memset(s, 0, sizeof *s);
}

const struct snap_dev *snap_rows_dev(const struct snap_rows *s, int index)
{
	for (int i = 0; i < s->n_devs; i++)
		if (s->devs[i].index == index)
			return &s->devs[i];
	return NULL;
}
