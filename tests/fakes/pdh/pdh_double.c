/* A test double of pdh.dll for the WDDM source under Wine (Wine's own
 * serves no GPU counter and aborts on the array calls). It exports what
 * src/platform/windows/pdh_reader.c calls and answers from a scenario file
 * named by GTM_FAKE_PDH_SCENARIO, read again at every PdhCollectQueryData so
 * a test can change it while the exe runs. Lines, fields separated by tabs:
 *   SET  COUNTER  INSTANCE  VALUE [CSTATUS]  an item (CSTATUS in hex, default 0)
 *   time TICKS                    the collect's time stamp (100 ns ticks;
 *                                 default: the system clock)
 *   missing SET [COUNTER]         adding it fails: PDH_CSTATUS_NO_OBJECT for
 *                                 a set, NO_COUNTER for a counter; SET "*": all
 *   more_data N                   after each collect, the first N reads of a
 *                                 counter with a buffer answer PDH_MORE_DATA
 *                                 with a larger size (instances appearing)
 *   small_buffer invalid_argument a buffer that is too small is refused with
 *                                 PDH_INVALID_ARGUMENT instead of being sized
 *   gate PATH                     a collect waits (up to 60 s) until PATH exists,
 *                                 removes it and reads the scenario again: a
 *                                 test releases one collect at a time
 *   # ...                         a comment
 * GTM_FAKE_PDH_LOG, when set, names a file each call appends a line to
 * ("add PATH 0x...", "array PATH bytes=N -> 0x...") for tests to read. */
#include <windows.h>
#include <pdh.h>
#include <pdhmsg.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 40000 /* past the reader's cap of 16,384 instances a counter (wine_pdh_cap.py) */
#define MAX_COUNTERS 256 /* every query's, for the life of the process */
#define NAME_MAX_ 200

struct item {
	char set[64], counter[64], inst[NAME_MAX_];
	long long value;
	DWORD cstatus;
};

struct counter {
	char set[64], counter[64];
	int more_data_left;
};

static struct item *items;
static int n_items;
static struct counter counters[MAX_COUNTERS];
static int n_counters;
static unsigned long long stamp;
static int more_data;
static int small_invalid;
static char missing[16][130];
static char gate[MAX_PATH];
static int n_missing;

static void logf_(const char *fmt, ...)
{
	const char *p = getenv("GTM_FAKE_PDH_LOG");
	if (!p || !*p)
		return;
	FILE *f = fopen(p, "a");
	if (!f)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* A Unix path (a test's /tmp/...) is Wine's Z: drive. */
static FILE *open_scenario(void)
{
	const char *p = getenv("GTM_FAKE_PDH_SCENARIO");
	char buf[MAX_PATH + 4];
	if (!p || !*p)
		return NULL;
	if (p[0] == '/') {
		snprintf(buf, sizeof buf, "Z:%s", p);
		p = buf;
	}
	return fopen(p, "r");
}

/* Splits line at tabs into at most max fields; returns how many. */
static int split_tabs(char *line, char **f, int max)
{
	int n = 0;
	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		f[n++] = line;
		char *t = strchr(line, '\t');
		if (!t)
			break;
		*t = '\0';
		line = t + 1;
	}
	return n;
}

static void take_line(char *line)
{
	char *f[6] = {0};
	int n = split_tabs(line, f, 6);

	if (n == 0 || f[0][0] == '#' || f[0][0] == '\0')
		return;
	if (!strcmp(f[0], "time") && n >= 2)
		stamp = strtoull(f[1], NULL, 10);
	else if (!strcmp(f[0], "more_data") && n >= 2)
		more_data = atoi(f[1]);
	else if (!strcmp(f[0], "small_buffer") && n >= 2)
		small_invalid = !strcmp(f[1], "invalid_argument");
	else if (!strcmp(f[0], "gate") && n >= 2)
		snprintf(gate, sizeof gate, "%s%s", f[1][0] == '/' ? "Z:" : "", f[1]);
	else if (!strcmp(f[0], "missing") && n >= 2 && n_missing < 16)
		snprintf(missing[n_missing++], sizeof missing[0], "%s\t%s", f[1], n >= 3 ? f[2] : "");
	else if (n >= 4 && n_items < MAX_ITEMS) {
		struct item *it = &items[n_items++];
		snprintf(it->set, sizeof it->set, "%s", f[0]);
		snprintf(it->counter, sizeof it->counter, "%s", f[1]);
		snprintf(it->inst, sizeof it->inst, "%s", f[2]);
		it->value = strtoll(f[3], NULL, 10);
		it->cstatus = n >= 5 ? (DWORD)strtoul(f[4], NULL, 16) : 0;
	}
}

static void load_scenario(void)
{
	FILE *f = open_scenario();
	char line[512];

	if (!items)
		items = calloc(MAX_ITEMS, sizeof *items);
	n_items = 0;
	stamp = 0;
	more_data = 0;
	small_invalid = 0;
	n_missing = 0;
	gate[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof line, f))
		take_line(line);
	fclose(f);
}

/* "\GPU Engine(*)\Running Time" -> set, counter. */
static BOOL parse_path(LPCWSTR path, char *set, char *counter)
{
	char p[256];
	WideCharToMultiByte(CP_UTF8, 0, path, -1, p, sizeof p, NULL, NULL);
	char *open = strstr(p, "(*)\\");
	if (p[0] != '\\' || !open)
		return FALSE;
	*open = '\0';
	snprintf(set, 64, "%s", p + 1);
	snprintf(counter, 64, "%s", open + 4);
	return TRUE;
}

/* PDH_CSTATUS_NO_OBJECT / NO_COUNTER when the scenario says it is missing. */
static PDH_STATUS missing_status(const char *set, const char *counter)
{
	for (int i = 0; i < n_missing; i++) {
		char *tab = strchr(missing[i], '\t');
		size_t sl = (size_t)(tab - missing[i]);
		int set_match = (sl == 1 && missing[i][0] == '*') || (strlen(set) == sl && !strncmp(missing[i], set, sl));
		if (!set_match)
			continue;
		if (!tab[1])
			return PDH_CSTATUS_NO_OBJECT;
		if (!strcmp(tab + 1, counter))
			return PDH_CSTATUS_NO_COUNTER;
	}
	return ERROR_SUCCESS;
}

PDH_STATUS WINAPI PdhOpenQueryW(LPCWSTR src, DWORD_PTR user, PDH_HQUERY *q)
{
	(void)src;
	(void)user;
	load_scenario();
	*q = (PDH_HQUERY)&counters;
	logf_("open");
	return ERROR_SUCCESS;
}

PDH_STATUS WINAPI PdhAddEnglishCounterW(PDH_HQUERY q, LPCWSTR path, DWORD_PTR user, PDH_HCOUNTER *c)
{
	char set[64], counter[64];
	(void)q;
	(void)user;
	if (!parse_path(path, set, counter) || n_counters >= MAX_COUNTERS)
		return PDH_CSTATUS_BAD_COUNTERNAME;
	PDH_STATUS st = missing_status(set, counter);
	logf_("add \\%s(*)\\%s 0x%08lX", set, counter, (unsigned long)st);
	if (st != ERROR_SUCCESS)
		return st;
	struct counter *k = &counters[n_counters];
	snprintf(k->set, sizeof k->set, "%s", set);
	snprintf(k->counter, sizeof k->counter, "%s", counter);
	*c = (PDH_HCOUNTER)(INT_PTR)(n_counters + 1);
	n_counters++;
	return ERROR_SUCCESS;
}

/* The gate of the scenario: wait for its file, take it, read the scenario again. */
static void pass_gate(void)
{
	for (int i = 0; gate[0] && i < 6000; i++) {
		if (GetFileAttributesA(gate) != INVALID_FILE_ATTRIBUTES) {
			DeleteFileA(gate);
			load_scenario();
			return;
		}
		Sleep(10);
	}
}

PDH_STATUS WINAPI PdhCollectQueryData(PDH_HQUERY q)
{
	(void)q;
	load_scenario();
	logf_("collect begins");
	pass_gate();
	for (int i = 0; i < n_counters; i++)
		counters[i].more_data_left = more_data;
	logf_("collect items=%d", n_items);
	return n_counters ? ERROR_SUCCESS : PDH_NO_DATA;
}

/* Counters stay valid: a handle names one slot of the process-wide table,
 * so closing one query never breaks another's (the benchmark opens two). */
PDH_STATUS WINAPI PdhCloseQuery(PDH_HQUERY q)
{
	(void)q;
	return ERROR_SUCCESS;
}

static struct counter *counter_of(PDH_HCOUNTER h)
{
	INT_PTR i = (INT_PTR)h - 1;
	return i >= 0 && i < n_counters ? &counters[i] : NULL;
}

/* The bytes an array of this counter takes: items, then the names. */
static DWORD array_bytes(const struct counter *k, size_t item_size, DWORD *n)
{
	size_t bytes = 0;
	*n = 0;
	for (int i = 0; i < n_items; i++)
		if (!strcmp(items[i].set, k->set) && !strcmp(items[i].counter, k->counter)) {
			bytes += item_size + (strlen(items[i].inst) + 1) * sizeof(WCHAR);
			(*n)++;
		}
	return (DWORD)bytes;
}

/* The size protocol: no buffer (or a zero size) is a size query. */
static PDH_STATUS size_check(struct counter *k, DWORD need, LPDWORD bytes, void *buf)
{
	if (!buf || *bytes == 0) {
		*bytes = need;
		return PDH_MORE_DATA;
	}
	if (*bytes < need) {
		if (small_invalid)
			return PDH_INVALID_ARGUMENT;
		*bytes = need;
		return PDH_MORE_DATA;
	}
	if (k->more_data_left > 0) {
		k->more_data_left--;
		*bytes = need + 4096;
		return PDH_MORE_DATA;
	}
	return ERROR_SUCCESS;
}

static FILETIME stamp_now(void)
{
	FILETIME ft;
	if (stamp) {
		ft.dwLowDateTime = (DWORD)stamp;
		ft.dwHighDateTime = (DWORD)(stamp >> 32);
	} else {
		GetSystemTimeAsFileTime(&ft);
	}
	return ft;
}

/* Fills an array of n items of item_size; each item's name pointer sits at
 * its start (both PDH item types begin with szName). */
static void fill_array(const struct counter *k, void *buf, size_t item_size, DWORD n,
		       void (*value)(void *item, const struct item *it))
{
	WCHAR *names = (WCHAR *)((char *)buf + (size_t)n * item_size);
	DWORD w = 0;
	for (int i = 0; i < n_items && w < n; i++) {
		const struct item *it = &items[i];
		if (strcmp(it->set, k->set) || strcmp(it->counter, k->counter))
			continue;
		char *dst = (char *)buf + (size_t)w * item_size;
		int len = MultiByteToWideChar(CP_UTF8, 0, it->inst, -1, names, NAME_MAX_);
		*(LPWSTR *)dst = names;
		names += len;
		value(dst, it);
		w++;
	}
}

static void fmt_value(void *dst, const struct item *it)
{
	PDH_FMT_COUNTERVALUE_ITEM_W *x = dst;
	x->FmtValue.CStatus = it->cstatus;
	x->FmtValue.largeValue = it->value;
}

static void raw_value(void *dst, const struct item *it)
{
	PDH_RAW_COUNTER_ITEM_W *x = dst;
	x->RawValue.CStatus = it->cstatus;
	x->RawValue.TimeStamp = stamp_now();
	x->RawValue.FirstValue = it->value;
	x->RawValue.SecondValue = 0;
	x->RawValue.MultiCount = 1;
}

static PDH_STATUS get_array(PDH_HCOUNTER h, LPDWORD bytes, LPDWORD count, void *buf, size_t item_size,
			    void (*value)(void *, const struct item *))
{
	struct counter *k = counter_of(h);
	DWORD n, asked = *bytes;
	if (!k)
		return PDH_INVALID_HANDLE;
	DWORD need = array_bytes(k, item_size, &n);
	PDH_STATUS st = size_check(k, need, bytes, buf);
	logf_("array \\%s(*)\\%s bytes=%lu -> 0x%08lX", k->set, k->counter, (unsigned long)asked, (unsigned long)st);
	if (st != ERROR_SUCCESS)
		return st;
	fill_array(k, buf, item_size, n, value);
	*count = n;
	*bytes = need;
	return ERROR_SUCCESS;
}

PDH_STATUS WINAPI PdhGetFormattedCounterArrayW(PDH_HCOUNTER h, DWORD fmt, LPDWORD bytes, LPDWORD count,
					       PPDH_FMT_COUNTERVALUE_ITEM_W buf)
{
	if (!(fmt & PDH_FMT_LARGE))
		return PDH_INVALID_ARGUMENT; /* the double serves bytes only */
	return get_array(h, bytes, count, buf, sizeof *buf, fmt_value);
}

PDH_STATUS WINAPI PdhGetRawCounterArrayW(PDH_HCOUNTER h, LPDWORD bytes, LPDWORD count, PPDH_RAW_COUNTER_ITEM_W buf)
{
	return get_array(h, bytes, count, buf, sizeof *buf, raw_value);
}
