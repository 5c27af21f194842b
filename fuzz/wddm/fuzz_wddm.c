/* The WDDM source's pure half over arbitrary bytes: each line an instance
 * name through the parser, the parsed ones as engine samples through the
 * Running Time tracker (two rounds, so deltas are taken) and Task Manager's
 * aggregation, and as GPU Process Memory items through the join and the
 * memory rules. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sources/wddm/wddm_engine_agg.h"
#include "sources/wddm/wddm_engine_track.h"
#include "sources/wddm/wddm_instance.h"
#include "sources/wddm/wddm_memory.h"

#define MAX_LINES 64

static void memory_rules(const struct wddm_instance *ids, size_t n, const uint8_t *data, size_t size)
{
	static struct wddm_item v[WDDM_PM_N][MAX_LINES];
	struct wddm_items c[WDDM_PM_N];
	struct wddm_mem_rows rows = {0};

	for (int k = 0; k < WDDM_PM_N; k++) {
		c[k] = (struct wddm_items){.added = size == 0 || data[k % size] % 3 != 0, .v = v[k], .n = n, .cap = n};
		for (size_t i = 0; i < n; i++) {
			memset(&v[k][i], 0, sizeof v[k][i]);
			v[k][i].id = ids[i];
			v[k][i].cstatus = size && data[(i + (size_t)k) % size] % 5 == 0 ? 0xC0000BBAu : 0;
			v[k][i].value = size ? (uint64_t)data[(i * 7 + (size_t)k) % size] << (k * 8) : 0;
		}
	}
	wddm_mem_rows_join(c, &rows);
	struct wddm_mem_use acc, x;
	for (size_t i = 0; i < rows.n; i++) {
		wddm_mem_use_of(&rows.v[i], &x);
		if (i == 0)
			acc = x;
		else
			wddm_mem_use_add(&acc, &x);
	}
	for (uint64_t l = 0; l < 2; l++)
		(void)wddm_items_sum_luid(&c[0], l);
	wddm_mem_rows_free(&rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wddm_instance ids[MAX_LINES];
	const char *lines[MAX_LINES];
	size_t lens[MAX_LINES], n = 0;
	const char *p = (const char *)data, *end = p + size;

	while (p < end && n < MAX_LINES) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (wddm_instance_parse(p, len, &ids[n]) == 0) {
			lines[n] = p;
			lens[n++] = len;
		}
		p += len + 1;
	}
	struct wddm_engine_tracker *t = wddm_engine_tracker_new();
	struct wddm_engine_sample s[MAX_LINES];
	struct wddm_engine_loads loads = {0};
	for (uint64_t round = 1; round <= 2; round++) {
		wddm_engine_tracker_begin(t);
		for (size_t i = 0; i < n; i++) {
			s[i] = (struct wddm_engine_sample){.pid = ids[i].pid, .luid = ids[i].luid, .phys = ids[i].phys,
							   .eng = ids[i].eng};
			memcpy(s[i].type, ids[i].engtype, sizeof s[i].type);
			s[i].ok = wddm_engine_tracker_update(t, lines[i], lens[i], i % 3, round * lens[i] * 1000,
							     round * 10000, &s[i].pct);
		}
		wddm_engine_tracker_end(t);
		wddm_engine_aggregate(s, n, &loads);
		for (size_t i = 0; i < n; i++)
			(void)wddm_engine_loads_proc(&loads, s[i].pid, s[i].start_time, s[i].luid);
	}
	char luid[24];
	if (n)
		wddm_luid_format(ids[0].luid, luid, sizeof luid);
	memory_rules(ids, n, data, size);
	wddm_engine_loads_free(&loads);
	wddm_engine_tracker_free(t);
	return 0;
}
