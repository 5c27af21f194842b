/* The WDDM source's live refresh under Wine with the pdh.dll double:
 *   bench_wddm.exe REFRESHES RUNS
 * For each run: REFRESHES live refreshes of the whole collector (PDH
 * collect and arrays, the source's rules, the Windows process scan,
 * attribution, identification), the process's CPU time per refresh; then
 * the same PDH calls alone (collect, each counter's array), which is what
 * the double spends. Ours is the difference. Then the process listing the
 * scan takes each refresh, alone (win_proc_list_read: SystemProcessInformation,
 * or Toolhelp with GTM_PROC_LISTING=toolhelp), and a Toolhelp listing alone
 * for comparison: under Wine both read /proc for every process (on Windows
 * one kernel call), an OS cost, so it is shown apart and also taken out
 * ("without the listing"). The scenario is the double's
 * (GTM_FAKE_PDH_SCENARIO; bench/wddm/gen_scenario.py writes 200 processes
 * on 2 adapters). Prints one line per run and the medians. */
#include <windows.h>
#include <pdh.h>
#include <pdhmsg.h>
#include <tlhelp32.h>
#include <stdio.h>
#include <stdlib.h>

#include "collect/collector.h"
#include "core/snapshot.h"
#include "wddm_source.h"
#include "win_proc_list.h"

static const wchar_t *const paths[] = {
	L"\\GPU Engine(*)\\Running Time", L"\\GPU Process Memory(*)\\Local Usage",
	L"\\GPU Process Memory(*)\\Non Local Usage", L"\\GPU Process Memory(*)\\Total Committed",
	L"\\GPU Process Memory(*)\\Dedicated Usage", L"\\GPU Process Memory(*)\\Shared Usage",
	L"\\GPU Adapter Memory(*)\\Dedicated Usage", L"\\GPU Adapter Memory(*)\\Shared Usage",
	L"\\GPU Local Adapter Memory(*)\\Local Usage", L"\\GPU Non Local Adapter Memory(*)\\Non Local Usage",
};
#define N_PATHS (sizeof paths / sizeof paths[0])

static double cpu_ms(void)
{
	FILETIME c, e, k, u;
	GetProcessTimes(GetCurrentProcess(), &c, &e, &k, &u);
	unsigned long long t = ((unsigned long long)k.dwHighDateTime << 32 | k.dwLowDateTime) +
			       ((unsigned long long)u.dwHighDateTime << 32 | u.dwLowDateTime);
	return (double)t / 1e4;
}

/* The wddm source alone: PDH collect and arrays and the source's rules. */
static double source_per_refresh(int n)
{
	struct gtm_source_status st = {0};
	struct gtm_source_opts o = {0};
	struct gtm_raw_uses uses = {0};
	void *priv = wddm_source_ops.open(&o, &st);
	if (!priv) {
		printf("wddm source: %s\n", st.message);
		exit(1);
	}
	for (int i = 0; i < 2; i++) { /* the first samples insert every instance: cold */
		struct gtm_snapshot *s = snapshot_new();
		raw_uses_clear(&uses);
		wddm_source_ops.sample(priv, s, &uses, &st);
		snapshot_free(s);
	}
	double t0 = cpu_ms();
	for (int i = 0; i < n; i++) {
		struct gtm_snapshot *s = snapshot_new();
		raw_uses_clear(&uses);
		wddm_source_ops.sample(priv, s, &uses, &st);
		snapshot_free(s);
	}
	double per = (cpu_ms() - t0) / n;
	wddm_source_ops.close(priv);
	raw_uses_free(&uses);
	return per;
}

static double collector_per_refresh(struct collector *c, int n)
{
	double t0 = cpu_ms();
	int rows = 0;
	for (int i = 0; i < n; i++) {
		struct gtm_snapshot *s = collector_refresh(c);
		rows = s->n_gpu_processes;
		snapshot_free(s);
	}
	static int said;
	if (!said++)
		printf("rows with GPU use per refresh: %d\n", rows);
	return (cpu_ms() - t0) / n;
}

/* The double's share: the same collect and array reads with nothing of ours. */
static double double_per_refresh(int n)
{
	PDH_HQUERY q;
	PDH_HCOUNTER h[N_PATHS];
	static char buf[4 << 20];

	PdhOpenQueryW(NULL, 0, &q);
	for (size_t k = 0; k < N_PATHS; k++)
		PdhAddEnglishCounterW(q, paths[k], 0, &h[k]);
	double t0 = cpu_ms();
	for (int i = 0; i < n; i++) {
		PdhCollectQueryData(q);
		for (size_t k = 0; k < N_PATHS; k++) {
			DWORD bytes = sizeof buf, items = 0;
			if (k == 0)
				PdhGetRawCounterArrayW(h[k], &bytes, &items, (PPDH_RAW_COUNTER_ITEM_W)buf);
			else
				PdhGetFormattedCounterArrayW(h[k], PDH_FMT_LARGE, &bytes, &items, (PPDH_FMT_COUNTERVALUE_ITEM_W)buf);
		}
	}
	double per = (cpu_ms() - t0) / n;
	PdhCloseQuery(q);
	return per;
}

static double toolhelp_per_refresh(int n)
{
	double t0 = cpu_ms();
	for (int i = 0; i < n; i++) {
		HANDLE hs = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
		PROCESSENTRY32W pe = {.dwSize = sizeof pe};
		for (BOOL more = Process32FirstW(hs, &pe); more; more = Process32NextW(hs, &pe))
			;
		CloseHandle(hs);
	}
	return (cpu_ms() - t0) / n;
}

static double listing_per_refresh(int n)
{
	struct win_proc_list l = {0};
	double t0 = cpu_ms();
	for (int i = 0; i < n; i++)
		win_proc_list_read(&l);
	double per = (cpu_ms() - t0) / n;
	win_proc_list_free(&l);
	return per;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50, runs = argc > 2 ? atoi(argv[2]) : 5;
	double all[16], dbl[16], ours[16], src[16], src_ours[16], th[16], li[16], own[16];

	if (runs > 16)
		runs = 16;
	struct collector *c = collector_new(&(struct collector_opts){.gpu_filter = -1, .no_probe = true});
	for (int i = 0; i < 3; i++) /* the first refreshes are cold (details read, sources opened) */
		snapshot_free(collector_refresh(c));
	for (int r = 0; r < runs; r++) {
		all[r] = collector_per_refresh(c, n);
		dbl[r] = double_per_refresh(n);
		ours[r] = all[r] - dbl[r];
		src[r] = source_per_refresh(n);
		src_ours[r] = src[r] - dbl[r];
		th[r] = toolhelp_per_refresh(n);
		li[r] = listing_per_refresh(n);
		own[r] = ours[r] - li[r];
		printf("run %d: refresh %.2f ms CPU (the wddm source alone %.2f ms), of which the PDH double %.2f ms: "
		       "gputaskman %.2f ms (source %.2f ms); the scan's listing alone %.2f ms (Toolhelp %.2f ms): "
		       "gputaskman without the listing %.2f ms\n",
		       r + 1, all[r], src[r], dbl[r], ours[r], src_ours[r], li[r], th[r], own[r]);
	}
	collector_free(c);
	qsort(all, (size_t)runs, sizeof *all, cmp_d);
	qsort(dbl, (size_t)runs, sizeof *dbl, cmp_d);
	qsort(ours, (size_t)runs, sizeof *ours, cmp_d);
	qsort(src, (size_t)runs, sizeof *src, cmp_d);
	qsort(src_ours, (size_t)runs, sizeof *src_ours, cmp_d);
	qsort(th, (size_t)runs, sizeof *th, cmp_d);
	qsort(li, (size_t)runs, sizeof *li, cmp_d);
	qsort(own, (size_t)runs, sizeof *own, cmp_d);
	printf("median over %d runs of %d refreshes: refresh %.2f ms CPU (wddm source %.2f ms), PDH double %.2f ms, "
	       "gputaskman %.2f ms (source %.2f ms), the scan's listing %.2f ms (Toolhelp %.2f ms), "
	       "gputaskman without the listing %.2f ms\n",
	       runs, n, all[runs / 2], src[runs / 2], dbl[runs / 2], ours[runs / 2], src_ours[runs / 2], li[runs / 2],
	       th[runs / 2], own[runs / 2]);
	return 0;
}
