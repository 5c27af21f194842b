/* A device's running processes through NVML: the compute and graphics lists,
 * each read through the newest entry point the driver has, with the
 * insufficient-size protocol of nvmlDeviceGetComputeRunningProcesses (call
 * with a count of 0 to learn the size; the list may grow before the next
 * call), then merged per PID; and the per-process load from
 * nvmlDeviceGetProcessUtilization since the previous refresh. */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "sources/nvml_internal.h"

/* Bounds on what a driver may ask us to allocate, and on retries. */
#define MAX_LIST_ENTRIES 65536u
#define MAX_RETRIES 4

enum { LIST_COMPUTE = 1, LIST_GRAPHICS = 2 };

struct nvml_proc_rec {
	unsigned pid;
	int list;
	unsigned long long mem;
	unsigned gi, ci; /* MIG GPU and compute instance; NVML_NO_INSTANCE outside MIG */
};

/* nvmlProcessInfo_t's instance ids outside MIG (NVML reference: "set to
 * 0xFFFFFFFF otherwise"); the original record has none. */
#define NVML_NO_INSTANCE 0xFFFFFFFFu

void nvml_scratch_free(struct nvml_scratch *s)
{
	free(s->buf);
	free(s->recs);
	free(s->counts);
	memset(s, 0, sizeof *s);
}

static void *scratch_buf(struct nvml_scratch *s, size_t len)
{
	if (s->buf_len < len) {
		s->buf = xrealloc(s->buf, len);
		s->buf_len = len;
	}
	return s->buf;
}

static unsigned headroom(unsigned n)
{
	unsigned long long c = (unsigned long long)n + n / 4 + 8;
	return c > MAX_LIST_ENTRIES ? MAX_LIST_ENTRIES : (unsigned)c;
}

/* One list through one entry point: size query, then fill, retrying while the
 * list grows. *n gets the entries written into sc->buf. */
static nvmlReturn_t fetch_list(nvml_procs_fn fn, size_t stride, nvmlDevice_t h, struct nvml_scratch *sc, unsigned *n)
{
	unsigned want = 0;
	nvmlReturn_t r = fn(h, &want, NULL);

	*n = 0;
	if (r == NVML_SUCCESS)
		return r; /* none running */
	if (r != NVML_ERROR_INSUFFICIENT_SIZE)
		return r;
	for (int attempt = 0; attempt < MAX_RETRIES; attempt++) {
		unsigned cap = headroom(want), got = cap;
		r = fn(h, &got, scratch_buf(sc, (size_t)cap * stride));
		if (r == NVML_SUCCESS) {
			*n = got < cap ? got : cap;
			return r;
		}
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			return r;
		/* The list grew past our headroom: got is the new size when the driver says so. */
		want = got > want ? got : cap * 2;
		if (want > MAX_LIST_ENTRIES)
			want = MAX_LIST_ENTRIES;
	}
	return NVML_ERROR_INSUFFICIENT_SIZE;
}

static void add_rec(struct nvml_scratch *sc, unsigned pid, int list, unsigned long long mem, unsigned gi, unsigned ci)
{
	sc->recs = grow_array(sc->recs, sizeof *sc->recs, &sc->cap_recs, sc->n_recs);
	sc->recs[sc->n_recs++] = (struct nvml_proc_rec){pid, list, mem, gi, ci};
}

/* Reads one list through the newest entry point that answers; an entry point
 * the driver reports absent is not tried again. Returns false when the list
 * is unavailable (no entry point, or the driver does not support it here). */
static bool read_list(nvml_procs_fn const fns[NVML_PROCS_N], int *ver, int list, nvmlDevice_t h,
		      struct nvml_scratch *sc, struct nvml_fault *f)
{
	static const size_t stride[NVML_PROCS_N] = {sizeof(nvmlProcessInfo_t), sizeof(nvmlProcessInfo_t),
						    sizeof(nvmlProcessInfo_v1_t)};
	static const char *const names[2][NVML_PROCS_N] = {
		{"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
		 "nvmlDeviceGetComputeRunningProcesses"},
		{"nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2",
		 "nvmlDeviceGetGraphicsRunningProcesses"}};
	unsigned n = 0;
	nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;

	for (; *ver < NVML_PROCS_N; (*ver)++) {
		if (!fns[*ver])
			continue;
		r = fetch_list(fns[*ver], stride[*ver], h, sc, &n);
		if (r != NVML_ERROR_FUNCTION_NOT_FOUND && r != NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
			break;
	}
	if (*ver >= NVML_PROCS_N) {
		*ver = NVML_PROCS_N - 1; /* no entry point answers: this list is unavailable */
		return false;
	}
	if (!nvml_check(f, r, names[list == LIST_GRAPHICS][*ver]))
		return false;
	for (unsigned i = 0; i < n; i++) {
		const char *rec = (const char *)sc->buf + (size_t)i * stride[*ver];
		if (*ver == NVML_PROCS_V1) {
			nvmlProcessInfo_v1_t p;
			memcpy(&p, rec, sizeof p);
			add_rec(sc, p.pid, list, p.usedGpuMemory, NVML_NO_INSTANCE, NVML_NO_INSTANCE);
		} else {
			nvmlProcessInfo_t p;
			memcpy(&p, rec, sizeof p);
			add_rec(sc, p.pid, list, p.usedGpuMemory, p.gpuInstanceId, p.computeInstanceId);
		}
	}
	return true;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct nvml_proc_rec *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->list - y->list;
}

static unsigned long long mem_add(unsigned long long a, unsigned long long b)
{
	if (a == NVML_VALUE_NOT_AVAILABLE || b == NVML_VALUE_NOT_AVAILABLE)
		return a == NVML_VALUE_NOT_AVAILABLE ? b : a;
	return a + b >= a ? a + b : NVML_VALUE_NOT_AVAILABLE - 1; /* saturate on a hostile sum */
}

/* Emits one raw use per PID. Within one list a PID repeats once per MIG
 * instance (memory adds up); across the lists it is the same memory (max). */
static void emit_merged(struct nvml_scratch *sc, int dev_index, struct gtm_raw_uses *uses)
{
	if (sc->n_recs > 1)
		qsort(sc->recs, sc->n_recs, sizeof *sc->recs, rec_cmp);
	for (size_t i = 0; i < sc->n_recs;) {
		unsigned pid = sc->recs[i].pid;
		unsigned long long best = NVML_VALUE_NOT_AVAILABLE;
		struct gtm_raw_use *u = raw_uses_add(uses);
		u->pid = pid;
		u->use.dev_index = dev_index;
		u->use.source_pid = pid;
		unsigned gi = sc->recs[i].gi, ci = sc->recs[i].ci;
		bool one_instance = gi != NVML_NO_INSTANCE && ci != NVML_NO_INSTANCE;
		while (i < sc->n_recs && sc->recs[i].pid == pid) {
			int list = sc->recs[i].list;
			unsigned long long sum = NVML_VALUE_NOT_AVAILABLE;
			for (; i < sc->n_recs && sc->recs[i].pid == pid && sc->recs[i].list == list; i++) {
				sum = mem_add(sum, sc->recs[i].mem);
				one_instance &= sc->recs[i].gi == gi && sc->recs[i].ci == ci;
			}
			u->use.compute |= list == LIST_COMPUTE;
			u->use.graphics |= list == LIST_GRAPHICS;
			if (sum != NVML_VALUE_NOT_AVAILABLE && (best == NVML_VALUE_NOT_AVAILABLE || sum > best))
				best = sum;
		}
		/* a process in several MIG instances has no one pair to name */
		u->use.mig = one_instance;
		u->use.gpu_instance_id = one_instance ? gi : 0;
		u->use.compute_instance_id = one_instance ? ci : 0;
		if (best != NVML_VALUE_NOT_AVAILABLE)
			u->use.vram = gtm_u64_of(best, GTM_MEASURED);
		else
			str_copy(u->use.na_reason, "withheld by driver", sizeof u->use.na_reason);
	}
}

#define NVML_FIRST_WINDOW_US 1000000ull

static int use_cmp(const void *key, const void *elem)
{
	unsigned pid = *(const unsigned *)key;
	const struct gtm_raw_use *u = elem;
	return pid < u->pid ? -1 : pid > u->pid;
}

/* Per-process SM/encoder/decoder load: the mean of the driver's samples newer
 * than the previous refresh, or at the first refresh (a one-shot snapshot)
 * the samples of the last second, which the driver keeps in its buffer. A
 * listed process with no sample in the window did not run on the device: a
 * measured 0. */
static nvmlReturn_t fetch_samples(const struct nvml_lib *lib, nvmlDevice_t h, unsigned long long last,
				  struct nvml_scratch *sc, unsigned *n)
{
	/* The size query (NULL buffer) gives the count with INSUFFICIENT_SIZE;
	 * take SUCCESS with a count the same way. NOT_FOUND: none since last. */
	nvmlReturn_t r = lib->proc_util(h, NULL, n, last);
	bool filled = false;

	for (int attempt = 0; attempt < MAX_RETRIES && !filled &&
			      (r == NVML_ERROR_INSUFFICIENT_SIZE || (r == NVML_SUCCESS && *n > 0));
	     attempt++) {
		unsigned cap = headroom(*n);
		*n = cap;
		r = lib->proc_util(h, scratch_buf(sc, (size_t)cap * sizeof(nvmlProcessUtilizationSample_t)), n, last);
		filled = r == NVML_SUCCESS;
		if (filled && *n > cap)
			*n = cap;
	}
	if (r == NVML_ERROR_NOT_FOUND || (r == NVML_SUCCESS && !filled)) {
		*n = 0;
		r = NVML_SUCCESS;
	}
	return r;
}

static void read_load(const struct nvml_lib *lib, nvmlDevice_t h, struct nvml_proc_state *ps, struct nvml_scratch *sc,
		      struct gtm_raw_use *batch, size_t n_batch, struct nvml_fault *f)
{
	unsigned long long now_us = now_realtime_ns() / 1000; /* NVML sample stamps are CPU time in µs */
	unsigned long long last = ps->last_seen_us ? ps->last_seen_us : now_us - NVML_FIRST_WINDOW_US;
	unsigned n = 0;

	ps->last_seen_us = now_us;
	if (!lib->proc_util || n_batch == 0)
		return;
	if (!nvml_check(f, fetch_samples(lib, h, last, sc, &n), "nvmlDeviceGetProcessUtilization"))
		return;
	sc->counts = grow_array(sc->counts, sizeof *sc->counts, &sc->cap_counts, n_batch);
	memset(sc->counts, 0, n_batch * sizeof *sc->counts);
	for (size_t k = 0; k < n_batch; k++)
		batch[k].use.sm_pct = batch[k].use.enc_pct = batch[k].use.dec_pct = gtm_f64_of(0, GTM_MEASURED);
	for (unsigned i = 0; i < n; i++) {
		nvmlProcessUtilizationSample_t s;
		memcpy(&s, (const char *)sc->buf + (size_t)i * sizeof s, sizeof s);
		struct gtm_raw_use *u = bsearch(&s.pid, batch, n_batch, sizeof *batch, use_cmp);
		/* a sample outside 0-100 % is not a reading (0xFFFFFFFF: not available) */
		if (!u || s.smUtil > 100 || s.encUtil > 100 || s.decUtil > 100)
			continue;
		u->use.sm_pct.v += s.smUtil;
		u->use.enc_pct.v += s.encUtil;
		u->use.dec_pct.v += s.decUtil;
		sc->counts[u - batch]++;
	}
	for (size_t k = 0; k < n_batch; k++) {
		if (sc->counts[k] > 1) {
			batch[k].use.sm_pct.v /= sc->counts[k];
			batch[k].use.enc_pct.v /= sc->counts[k];
			batch[k].use.dec_pct.v /= sc->counts[k];
		}
	}
}

int nvml_read_processes(const struct nvml_lib *lib, nvmlDevice_t h, int dev_index, struct nvml_proc_state *ps,
			struct nvml_scratch *sc, struct gtm_raw_uses *uses, struct nvml_fault *f)
{
	size_t first = uses->n;
	bool have_compute, have_graphics = false;

	sc->n_recs = 0;
	have_compute = read_list(lib->compute, &ps->compute_ver, LIST_COMPUTE, h, sc, f);
	if (f->code == NVML_SUCCESS)
		have_graphics = read_list(lib->graphics, &ps->graphics_ver, LIST_GRAPHICS, h, sc, f);
	if (!have_compute && !have_graphics)
		return -1; /* no list at all: "no processes" would be a claim we cannot make */
	emit_merged(sc, dev_index, uses);
	if (f->code == NVML_SUCCESS)
		read_load(lib, h, ps, sc, uses->n > first ? uses->v + first : NULL, uses->n - first, f);
	return (int)(uses->n - first);
}
