#include "diff_build.h"
#include "testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

static json_t *num(long long v)
{
	return v == NUL ? json_null() : json_integer(v);
}

static void put_num(json_t *o, const char *key, long long v)
{
	if (v != ABSENT)
		json_object_set_new(o, key, num(v));
}

json_t *b_gpu(int index, const char *uuid, long long used)
{
	json_t *g = json_object(), *mem = json_object();
	json_object_set_new(g, "index", json_integer(index));
	json_object_set_new(g, "vendor", json_string("nvidia"));
	json_object_set_new(g, "name", json_string("Test GPU"));
	json_object_set_new(g, "uuid", uuid ? json_string(uuid) : json_null());
	json_object_set_new(g, "pci_bus_id", json_null());
	put_num(mem, "total_bytes", 8192 * MiB);
	put_num(mem, "used_bytes", used);
	put_num(mem, "free_bytes", used == NUL || used == ABSENT ? used : 8192 * MiB - used);
	json_object_set_new(g, "memory", mem);
	json_object_set_new(g, "processes_listed", json_integer(1));
	return g;
}

json_t *b_proc(struct pspec s)
{
	json_t *p = json_object(), *ports = json_array(), *uses = json_array();
	char label[32];

	snprintf(label, sizeof label, s.pid ? "%lld" : "H:%lld", s.pid ? s.pid : s.host_pid);
	json_object_set_new(p, "pid", s.pid ? json_integer(s.pid) : json_null());
	json_object_set_new(p, "host_pid", s.host_pid ? json_integer(s.host_pid) : json_null());
	json_object_set_new(p, "label", json_string(label));
	json_object_set_new(p, "owner", json_string(s.owner ? s.owner : "local"));
	json_object_set_new(p, "name", s.name ? json_string(s.name) : json_null());
	json_object_set_new(p, "start_time_ticks", s.start ? json_integer(s.start) : json_null());
	put_num(p, "rss_bytes", s.rss);
	for (int i = 0; i < s.n_ports; i++)
		json_array_append_new(ports, json_integer(s.ports[i]));
	json_object_set_new(p, "listening_ports", ports);
	if (s.gpu >= 0) {
		json_t *u = json_object();
		json_object_set_new(u, "index", json_integer(s.gpu));
		put_num(u, "vram_bytes", s.vram);
		put_num(u, "spill_bytes", s.spill ? s.spill : NUL);
		json_array_append_new(uses, u);
	}
	json_object_set_new(p, "gpus", uses);
	put_num(p, "vram_total_bytes", s.gpu >= 0 ? s.vram : NUL);
	return p;
}

json_t *b_snap(const char *host, const char *taken_at, json_t *gpus, json_t *procs)
{
	json_t *j = json_object();
	json_object_set_new(j, "schema_version", json_integer(1));
	json_object_set_new(j, "gputaskman_version", json_string("0.1.0"));
	json_object_set_new(j, "taken_at", json_string(taken_at ? taken_at : "2026-11-30T06:40:00Z"));
	json_object_set_new(j, "hostname", host ? json_string(host) : json_null());
	json_object_set_new(j, "mode", json_string("native"));
	json_object_set_new(j, "gpus", gpus);
	json_object_set_new(j, "processes", procs);
	return j;
}

struct diff_result *b_diff(json_t *before, json_t *after, struct snap_rows *sb, struct snap_rows *sa)
{
	char err[256] = "";
	int rb = snap_rows_read(before, sb, err, sizeof err);
	if (rb)
		fail_msg("before: %s", err);
	int ra = snap_rows_read(after, sa, err, sizeof err);
	if (ra)
		fail_msg("after: %s", err);
	json_decref(before);
	json_decref(after);
	return diff_compare(sb, sa, NULL);
}

void b_free(struct diff_result *r, struct snap_rows *sb, struct snap_rows *sa)
{
	diff_result_free(r);
	snap_rows_free(sb);
	snap_rows_free(sa);
}

const struct diff_proc_row *b_row_b(const struct diff_result *r, long long pid)
{
	for (int i = 0; i < r->n_procs; i++)
		if (r->procs[i].b && r->procs[i].b->has_pid && r->procs[i].b->pid == pid)
			return &r->procs[i];
	return NULL;
}

const struct diff_proc_row *b_row_a(const struct diff_result *r, long long pid)
{
	for (int i = 0; i < r->n_procs; i++)
		if (r->procs[i].a && r->procs[i].a->has_pid && r->procs[i].a->pid == pid)
			return &r->procs[i];
	return NULL;
}

char *b_text(const struct diff_result *r, bool all)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = tu_memstream(&buf, &len);
	diff_print_text(f, r, "before.json", "after.json", all);
	tu_memclose(f);
	return buf;
}
