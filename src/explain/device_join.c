/* A runtime's device name ("CUDA1") to the driver's device. Never by the
 * number alone: CUDA ordinals follow CUDA_VISIBLE_DEVICES and CUDA's own
 * enumeration order (fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID), not
 * the driver's index. In order of strength: the PCI bus id the log prints, a
 * GPU UUID (CUDA_VISIBLE_DEVICES=GPU-..., Ollama's load request), the
 * visible-device indices under PCI bus order, the one GPU the process is on,
 * the only GPU of the logged name (and free memory at load), and last a guess
 * by order, which says so. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "explain/breakdown.h"

/* "0000:01:00.0" and NVML's "00000000:01:00.0" name the same function. */
static bool pci_same(const char *a, const char *b)
{
	unsigned da, ba, sa, fa, db, bb, sb, fb;
	if (sscanf(a, "%x:%x:%x.%x", &da, &ba, &sa, &fa) != 4 || sscanf(b, "%x:%x:%x.%x", &db, &bb, &sb, &fb) != 4)
		return false;
	return da == db && ba == bb && sa == sb && fa == fb;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The process's GPUs (snapshot indices), distinct, in index order. */
static int used_gpus(const struct gtm_process *p, int *used, int max)
{
	int n = 0;
	for (int i = 0; i < p->n_uses && n < max; i++) {
		bool dup = false;
		for (int k = 0; k < n; k++)
			dup |= used[k] == p->uses[i].dev_index;
		if (!dup)
			used[n++] = p->uses[i].dev_index;
	}
	qsort(used, (size_t)n, sizeof used[0], cmp_int);
	return n;
}

static bool uses_gpu(const struct gtm_process *p, int gpu)
{
	for (int i = 0; i < p->n_uses; i++)
		if (p->uses[i].dev_index == gpu)
			return true;
	return false;
}

/* The device's ordinal: "CUDA1" → 1; -1 when it has no number (or an absurd one). */
static long ordinal(const char *device, size_t *prefix_len)
{
	size_t len = strlen(device), k = len;
	while (k > 0 && isdigit((unsigned char)device[k - 1]))
		k--;
	*prefix_len = k;
	if (k == len || len - k > 4)
		return -1;
	return strtol(device + k, NULL, 10);
}

static const struct llog_device *log_device(const struct llog_load *load, const char *device)
{
	for (int i = 0; load && i < load->n_devices; i++)
		if (!strcmp(load->devices[i].name, device))
			return &load->devices[i];
	return NULL;
}

/* Distinct GPU (non-host) device names the load's buffers name. */
static int gpu_names_in_load(const struct llog_load *load)
{
	int n = 0;
	for (int i = 0; load && i < load->n_buffers; i++) {
		const char *d = load->buffers[i].device;
		bool seen = llog_device_is_host(d);
		for (int k = 0; k < i && !seen; k++)
			seen = !strcmp(load->buffers[k].device, d);
		n += !seen;
	}
	return n;
}

/* A device by a UUID or a unique UUID prefix (CUDA accepts both); -1 none. */
static int by_uuid(const struct gtm_snapshot *snap, const char *id, size_t n)
{
	int hit = -1;
	for (int d = 0; d < snap->n_devices; d++)
		if (n >= 8 && strlen(snap->devices[d].uuid) >= n && !strncasecmp(snap->devices[d].uuid, id, n)) {
			if (hit >= 0)
				return -1;
			hit = snap->devices[d].index;
		}
	return hit;
}

/* CUDA_VISIBLE_DEVICES entry k of the process, as a device; -1 when it does not tell. */
static int by_visible_devices(const struct gtm_snapshot *snap, const struct gtm_process *p, long k, enum ex_join *how)
{
	const char *v = p->detail ? proc_detail_getenv(p->detail, "CUDA_VISIBLE_DEVICES") : NULL;
	if (!v || k < 0)
		return -1;
	const char *e = v;
	for (long i = 0;; i++) {
		while (*v == ' ')
			v++;
		e = strchr(v, ',');
		size_t n = e ? (size_t)(e - v) : strlen(v);
		if (i == k) {
			if (n > 4 && !strncasecmp(v, "GPU-", 4)) {
				*how = EX_JOIN_UUID;
				return by_uuid(snap, v, n);
			}
			char *end;
			long idx = strtol(v, &end, 10);
			if (end == v || (size_t)(end - v) != n || idx < 0)
				return -1; /* MIG-..., garbage: CUDA stops at an invalid entry */
			const char *order = proc_detail_getenv(p->detail, "CUDA_DEVICE_ORDER");
			*how = order && !strcmp(order, "PCI_BUS_ID") ? EX_JOIN_ENV : EX_JOIN_GUESS;
			for (int d = 0; d < snap->n_devices; d++)
				if (snap->devices[d].driver_index == idx && !strcmp(snap->devices[d].source, "nvml"))
					return snap->devices[d].index;
			return -1;
		}
		if (!e)
			return -1;
		v = e + 1;
	}
}

/* This process's VRAM on a device, 0 when not measured. */
static uint64_t vram_on(const struct gtm_process *p, int gpu)
{
	uint64_t s = 0;
	for (int i = 0; i < p->n_uses; i++)
		if (p->uses[i].dev_index == gpu && gtm_u64_ok(p->uses[i].vram))
			s += p->uses[i].vram.v;
	return s;
}

/* The only device (of the process's, else of all) with the logged name; with
 * several, the only one whose free memory at load fits the logged figure (now
 * free + what this process holds there, within max(512 MiB, 2 %)). -1 none. */
static int by_name(const struct gtm_snapshot *snap, const struct gtm_process *p, const struct llog_device *dv)
{
	if (!dv || !dv->desc[0])
		return -1;
	int hit = -1, n = 0, fit = -1, n_fit = 0;
	for (int pass = 0; pass < 2 && n == 0; pass++)
		for (int d = 0; d < snap->n_devices; d++) {
			const struct gtm_device *g = &snap->devices[d];
			if ((pass == 0 && !uses_gpu(p, g->index)) || strcasecmp(g->name, dv->desc) != 0)
				continue;
			hit = g->index;
			n++;
			if (dv->free_mib < 0 || !gtm_u64_ok(g->mem_free) || !gtm_u64_ok(g->mem_total))
				continue;
			uint64_t then = g->mem_free.v + vram_on(p, g->index), logged = (uint64_t)dv->free_mib << 20;
			uint64_t diff = then > logged ? then - logged : logged - then, tol = g->mem_total.v / 50;
			if (diff <= (tol > (512ull << 20) ? tol : 512ull << 20)) {
				fit = g->index;
				n_fit++;
			}
		}
	if (n == 1)
		return hit;
	return n_fit == 1 ? fit : -1;
}

int breakdown_join_device(const struct gtm_snapshot *snap, const struct gtm_process *p, const struct llog_load *load,
			  const char *device, enum ex_join *how)
{
	*how = EX_JOIN_NONE;
	if (llog_device_is_host(device))
		return -1;
	const struct llog_device *dv = log_device(load, device);
	if (dv && dv->pci[0]) {
		for (int d = 0; d < snap->n_devices; d++)
			if (pci_same(snap->devices[d].pci_bus_id, dv->pci)) {
				*how = EX_JOIN_PCI;
				return snap->devices[d].index;
			}
		return -1; /* a bus id no device here has */
	}
	size_t pre;
	long k = ordinal(device, &pre);
	if (k < 0 ? pre < strlen(device) : k >= 64)
		return -1; /* CUDA9999999999: no visible GPU could have it */
	enum ex_join env_how = EX_JOIN_NONE;
	int g = pre == 4 && !strncmp(device, "CUDA", 4) ? by_visible_devices(snap, p, k, &env_how) : -1;
	if (g >= 0 && env_how != EX_JOIN_GUESS) {
		*how = env_how;
		return g;
	}
	int used[16], n = used_gpus(p, used, 16);
	if (load && load->n_gpu_req == 1 && gpu_names_in_load(load) <= 1) {
		int u = by_uuid(snap, load->gpu_req[0].id, strlen(load->gpu_req[0].id));
		if (u >= 0) {
			*how = EX_JOIN_UUID;
			return u;
		}
	}
	if (n == 1 && (k < 0 || k < snap->n_devices) && gpu_names_in_load(load) <= 1) {
		*how = EX_JOIN_ONLY;
		return used[0];
	}
	int named = by_name(snap, p, dv);
	if (named >= 0) {
		*how = EX_JOIN_NAME;
		return named;
	}
	if (load && k >= 0 && k < load->n_gpu_req) { /* Ollama: the k-th GPU its load request lists */
		int u = by_uuid(snap, load->gpu_req[k].id, strlen(load->gpu_req[k].id));
		if (u >= 0) {
			*how = EX_JOIN_GUESS;
			return u;
		}
	}
	if (g >= 0) { /* CUDA_VISIBLE_DEVICES indices in CUDA's own order: a hint, not proof */
		*how = EX_JOIN_GUESS;
		return g;
	}
	if (k < 0 || k >= n)
		return -1;
	*how = EX_JOIN_GUESS; /* the k-th of the process's GPUs in index order */
	return used[k];
}

int breakdown_map_device(const struct gtm_snapshot *snap, const struct gtm_process *p, const struct llog_load *load,
			 const char *device)
{
	enum ex_join how;
	return breakdown_join_device(snap, p, load, device, &how);
}
