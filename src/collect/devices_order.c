#include "collect/devices_order.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* One hex field of at most max_digits, ending at `end` exactly. */
static bool hex_field(const char *p, const char *end, int max_digits, unsigned long *v)
{
	unsigned long x = 0;
	if (p >= end || end - p > max_digits)
		return false;
	for (; p < end; p++) {
		int d = (*p >= '0' && *p <= '9') ? *p - '0'
		      : (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10
		      : (*p >= 'A' && *p <= 'F') ? *p - 'A' + 10 : -1;
		if (d < 0)
			return false;
		x = x * 16 + (unsigned long)d;
	}
	*v = x;
	return true;
}

bool pci_address_key(const char *s, uint64_t *key)
{
	unsigned long dom = 0, bus, dev, fn;

	if (!s)
		return false;
	/* [domain:]bus:device.function */
	const char *dot = strrchr(s, '.'), *c2 = dot ? memrchr(s, ':', (size_t)(dot - s)) : NULL;
	if (!c2 || !hex_field(dot + 1, dot + strlen(dot), 1, &fn) || !hex_field(c2 + 1, dot, 2, &dev))
		return false;
	const char *c1 = c2 > s ? memrchr(s, ':', (size_t)(c2 - s)) : NULL;
	if (!hex_field(c1 ? c1 + 1 : s, c2, 2, &bus) || (c1 && !hex_field(s, c1, 8, &dom)))
		return false;
	if (dev > 0x1f || fn > 7)
		return false;
	*key = ((uint64_t)dom << 16) | (bus << 8) | (dev << 3) | fn;
	return true;
}

/* A device from another source that NVML also reports (same PCI address). */
static bool duplicate_of_nvml(const struct gtm_snapshot *snap, int i)
{
	const struct gtm_device *d = &snap->devices[i];
	uint64_t a, b;

	if (strcmp(d->source, "nvml") == 0 || !pci_address_key(d->pci_bus_id, &a))
		return false;
	for (int j = 0; j < snap->n_devices; j++)
		if (j != i && strcmp(snap->devices[j].source, "nvml") == 0 &&
		    pci_address_key(snap->devices[j].pci_bus_id, &b) && a == b)
			return true;
	return false;
}

struct order_key {
	int pos;       /* position in snap->devices */
	bool nvidia;
	bool has_mem;
	uint64_t mem;
};

static int by_rank(const void *a, const void *b)
{
	const struct order_key *x = a, *y = b;
	if (x->nvidia != y->nvidia)
		return x->nvidia ? -1 : 1;
	if (x->has_mem != y->has_mem)
		return x->has_mem ? -1 : 1;
	if (x->mem != y->mem)
		return x->mem > y->mem ? -1 : 1;
	return x->pos - y->pos;
}

static void remap_uses(struct gtm_raw_uses *uses, const int *old_index, const int *new_index, int n_old)
{
	size_t w = 0;

	for (size_t i = 0; i < uses->n; i++) {
		struct gtm_raw_use *u = &uses->v[i];
		int to = -2; /* -2: not a device of this snapshot, left as it is */
		for (int k = 0; k < n_old; k++)
			if (old_index[k] == u->use.dev_index)
				to = new_index[k];
		if (to == -1)
			continue; /* the dropped duplicate's rows */
		if (to >= 0)
			u->use.dev_index = to;
		uses->v[w++] = *u;
	}
	uses->n = w;
}

void devices_order(struct gtm_snapshot *snap, struct gtm_raw_uses *uses)
{
	int n = snap->n_devices, m = 0;

	if (n == 0)
		return;
	struct order_key *keys = xmalloc((size_t)n * sizeof *keys);
	int *old_index = xmalloc((size_t)n * sizeof *old_index), *new_index = xmalloc((size_t)n * sizeof *new_index);
	struct gtm_device *copy = xmalloc((size_t)n * sizeof *copy);

	memcpy(copy, snap->devices, (size_t)n * sizeof *copy);
	for (int i = 0; i < n; i++) {
		const struct gtm_device *d = &snap->devices[i];
		old_index[i] = d->index;
		new_index[i] = -1;
		if (duplicate_of_nvml(snap, i))
			continue;
		keys[m++] = (struct order_key){i, d->vendor == GTM_VENDOR_NVIDIA, gtm_u64_ok(d->mem_total), d->mem_total.v};
	}
	qsort(keys, (size_t)m, sizeof *keys, by_rank);
	for (int r = 0; r < m; r++) {
		snap->devices[r] = copy[keys[r].pos];
		snap->devices[r].index = r;
		new_index[keys[r].pos] = r;
	}
	snap->n_devices = m;
	if (uses)
		remap_uses(uses, old_index, new_index, n);
	free(keys);
	free(old_index);
	free(new_index);
	free(copy);
}
