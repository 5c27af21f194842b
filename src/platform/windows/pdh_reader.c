#include "pdh_reader.h"

#include <windows.h>
#include <pdh.h>
#include <pdhmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* English names (PdhAddEnglishCounterW) work on localized systems. */
static const struct {
	const wchar_t *path;
	bool raw; /* read raw: Running Time's own deltas (the formatted value is a rate) */
} counter_table[PDH_COUNTER_N] = {
	[PDH_ENGINE_RUNNING] = {L"\\GPU Engine(*)\\Running Time", true},
	[PDH_PM_FIRST + WDDM_PM_LOCAL] = {L"\\GPU Process Memory(*)\\Local Usage", false},
	[PDH_PM_FIRST + WDDM_PM_NONLOCAL] = {L"\\GPU Process Memory(*)\\Non Local Usage", false},
	[PDH_PM_FIRST + WDDM_PM_COMMITTED] = {L"\\GPU Process Memory(*)\\Total Committed", false},
	[PDH_PM_FIRST + WDDM_PM_DEDICATED] = {L"\\GPU Process Memory(*)\\Dedicated Usage", false},
	[PDH_PM_FIRST + WDDM_PM_SHARED] = {L"\\GPU Process Memory(*)\\Shared Usage", false},
	[PDH_ADAPTER_DEDICATED] = {L"\\GPU Adapter Memory(*)\\Dedicated Usage", false},
	[PDH_ADAPTER_SHARED] = {L"\\GPU Adapter Memory(*)\\Shared Usage", false},
	[PDH_ADAPTER_LOCAL] = {L"\\GPU Local Adapter Memory(*)\\Local Usage", false},
	[PDH_ADAPTER_NONLOCAL] = {L"\\GPU Non Local Adapter Memory(*)\\Non Local Usage", false},
	[PDH_ADAPTER_COMMITTED] = {L"\\GPU Adapter Memory(*)\\Total Committed", false},
};

/* Instances may appear between the size query and the read: a few rounds. */
#define ARRAY_ATTEMPTS 6

struct counter {
	PDH_HCOUNTER h;
	PDH_STATUS add_status;
	void *buf;      /* the array, kept from refresh to refresh */
	DWORD cap;
	struct wddm_items items;
};

struct pdh_reader {
	PDH_HQUERY q;
	struct counter c[PDH_COUNTER_N];
	char missing[160];
	size_t unparsed;
	size_t listed, cut;       /* the last collect's instances over all counters, and those left out */
	void *scratch;            /* the cut's */
	size_t scratch_cap;
	struct wddm_mem_rows rows;
};

static void note_missing(struct pdh_reader *r, int id)
{
	char name[64];
	size_t len = strlen(r->missing);
	WideCharToMultiByte(CP_UTF8, 0, counter_table[id].path, -1, name, sizeof name, NULL, NULL);
	snprintf(r->missing + len, sizeof r->missing - len, "%s%s", len ? ", " : "", name);
}

struct pdh_reader *pdh_reader_open(char *why, size_t cap)
{
	struct pdh_reader *r = xcalloc(1, sizeof *r);
	PDH_STATUS st = PdhOpenQueryW(NULL, 0, &r->q);
	int added = 0;

	if (st != ERROR_SUCCESS) {
		snprintf(why, cap, "no GPU counters: PdhOpenQuery failed (0x%08lX)", (unsigned long)st);
		free(r);
		return NULL;
	}
	for (int i = 0; i < PDH_COUNTER_N; i++) {
		struct counter *c = &r->c[i];
		c->add_status = PdhAddEnglishCounterW(r->q, counter_table[i].path, 0, &c->h);
		c->items.added = c->add_status == ERROR_SUCCESS;
		added += c->items.added;
		if (!c->items.added)
			note_missing(r, i);
	}
	if (added == 0) {
		snprintf(why, cap, "no GPU counters: PDH has no \\GPU Engine or \\GPU Process Memory set "
			 "(0x%08lX; a driver below WDDM 2.0, or Wine's pdh.dll)", (unsigned long)r->c[0].add_status);
		pdh_reader_close(r);
		return NULL;
	}
	return r;
}

/* Reads one counter's array into c->buf: the buffer of the last refresh
 * first, grown on PDH_MORE_DATA (by the size PDH asks, at least doubled:
 * instances appear between calls), asked again with none when a release
 * refuses to size a buffer that is too small (PDH_INVALID_ARGUMENT). */
static PDH_STATUS read_array(struct counter *c, bool raw, DWORD *n_items)
{
	for (int attempt = 0; attempt < ARRAY_ATTEMPTS; attempt++) {
		DWORD bytes = c->cap, n = 0;
		PDH_STATUS st = raw ? PdhGetRawCounterArrayW(c->h, &bytes, &n, c->cap ? c->buf : NULL)
				    : PdhGetFormattedCounterArrayW(c->h, PDH_FMT_LARGE, &bytes, &n, c->cap ? c->buf : NULL);
		if (st == ERROR_SUCCESS) {
			*n_items = n;
			return st;
		}
		if (st == (PDH_STATUS)PDH_CSTATUS_NO_INSTANCE || st == (PDH_STATUS)PDH_NO_DATA) {
			*n_items = 0; /* no process holds an instance now */
			return ERROR_SUCCESS;
		}
		if (st == (PDH_STATUS)PDH_INVALID_ARGUMENT && c->cap) {
			free(c->buf);
			c->buf = NULL;
			c->cap = 0;
			continue;
		}
		if (st != (PDH_STATUS)PDH_MORE_DATA)
			return st;
		DWORD want = bytes > c->cap ? bytes : c->cap * 2;
		c->cap = want + want / 4 + 256;
		free(c->buf);
		c->buf = xmalloc(c->cap);
	}
	return PDH_MORE_DATA;
}

/* An instance name as bytes: they are ASCII; anything else becomes '?',
 * which no name of the grammar holds. */
static void name_of(const wchar_t *w, struct wddm_item *it)
{
	size_t n = 0;
	for (; w && w[n] && n < WDDM_INSTANCE_MAX; n++)
		it->name[n] = w[n] < 0x80 ? (char)w[n] : '?';
	it->name[n] = '\0';
	it->name_len = (uint16_t)n;
}

static uint64_t filetime_u64(FILETIME ft)
{
	return ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
}

static void take_items(struct pdh_reader *r, struct counter *c, bool raw, DWORD n, uint64_t now)
{
	struct wddm_items *it = &c->items;

	it->n = 0;
	for (DWORD i = 0; i < n; i++) {
		it->v = grow_array(it->v, sizeof *it->v, &it->cap, it->n);
		struct wddm_item *x = &it->v[it->n];
		const wchar_t *name;
		if (raw) {
			const PDH_RAW_COUNTER_ITEM_W *ri = &((const PDH_RAW_COUNTER_ITEM_W *)c->buf)[i];
			name = ri->szName;
			x->cstatus = ri->RawValue.CStatus;
			x->value = ri->RawValue.FirstValue < 0 ? 0 : (uint64_t)ri->RawValue.FirstValue;
			x->stamp = filetime_u64(ri->RawValue.TimeStamp);
			if (x->stamp == 0)
				x->stamp = now;
		} else {
			const PDH_FMT_COUNTERVALUE_ITEM_W *fi = &((const PDH_FMT_COUNTERVALUE_ITEM_W *)c->buf)[i];
			name = fi->szName;
			x->cstatus = fi->FmtValue.CStatus;
			x->value = fi->FmtValue.largeValue < 0 ? 0 : (uint64_t)fi->FmtValue.largeValue;
			if (fi->FmtValue.largeValue < 0 && wddm_cstatus_valid(x->cstatus))
				x->cstatus = (uint32_t)PDH_CALC_NEGATIVE_VALUE; /* bytes are never negative */
			x->stamp = 0;
		}
		name_of(name, x);
		if (wddm_instance_parse(x->name, x->name_len, &x->id) != 0) {
			r->unparsed++;
			continue;
		}
		it->n++;
	}
}

int pdh_reader_collect(struct pdh_reader *r, char *why, size_t cap)
{
	PDH_STATUS st = PdhCollectQueryData(r->q);
	FILETIME ft;

	if (st != ERROR_SUCCESS && st != (PDH_STATUS)PDH_NO_DATA) {
		snprintf(why, cap, "PdhCollectQueryData failed (0x%08lX)", (unsigned long)st);
		return -1;
	}
	GetSystemTimeAsFileTime(&ft);
	r->unparsed = r->listed = r->cut = 0;
	for (int i = 0; i < PDH_COUNTER_N; i++) {
		struct counter *c = &r->c[i];
		DWORD n = 0;
		c->items.n = 0;
		if (!c->items.added)
			continue;
		st = read_array(c, counter_table[i].raw, &n);
		if (st != ERROR_SUCCESS) {
			char name[64];
			WideCharToMultiByte(CP_UTF8, 0, counter_table[i].path, -1, name, sizeof name, NULL, NULL);
			snprintf(why, cap, "reading %s failed (0x%08lX)", name, (unsigned long)st);
			return -1;
		}
		take_items(r, c, counter_table[i].raw, n, filetime_u64(ft));
		r->listed += c->items.n;
		r->cut += wddm_items_keep_biggest(&c->items, WDDM_MAX_INSTANCES, &r->scratch, &r->scratch_cap);
	}
	return 0;
}

size_t pdh_reader_cut(const struct pdh_reader *r, size_t *listed)
{
	*listed = r->listed;
	return r->cut;
}

const struct wddm_items *pdh_reader_items(const struct pdh_reader *r, enum pdh_counter_id c)
{
	return &r->c[c].items;
}

const char *pdh_reader_missing(const struct pdh_reader *r)
{
	return r->missing;
}

size_t pdh_reader_unparsed(const struct pdh_reader *r)
{
	return r->unparsed;
}

const struct wddm_mem_rows *pdh_reader_process_memory(struct pdh_reader *r)
{
	struct wddm_items pm[WDDM_PM_N];

	for (int k = 0; k < WDDM_PM_N; k++)
		pm[k] = r->c[PDH_PM_FIRST + k].items;
	wddm_mem_rows_join(pm, &r->rows);
	return &r->rows;
}

void pdh_reader_close(struct pdh_reader *r)
{
	if (!r)
		return;
	if (r->q)
		PdhCloseQuery(r->q);
	for (int i = 0; i < PDH_COUNTER_N; i++) {
		free(r->c[i].buf);
		free(r->c[i].items.v);
	}
	wddm_mem_rows_free(&r->rows);
	free(r->scratch);
	free(r);
}
