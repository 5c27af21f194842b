/* The WDDM source's devices: one per adapter, with its memory in use from
 * PDH's adapter sets (the reference total; per-process rows can overlap it)
 * and its engine loads reduced the way Task Manager does. */
#include "wddm_source.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "sources/wddm/wddm_instance.h"
#include "sources/wddm/wddm_use.h"

/* PCI vendor ids (the PCI-SIG registry): the --gpu order keys on them. */
static const struct {
	uint32_t id;
	enum gtm_vendor vendor;
} vendor_ids[] = {
	{0x10de, GTM_VENDOR_NVIDIA},
	{0x1002, GTM_VENDOR_AMD},
	{0x1022, GTM_VENDOR_AMD},
	{0x8086, GTM_VENDOR_INTEL},
};

static enum gtm_vendor vendor_of(uint32_t id)
{
	for (size_t i = 0; i < ARRAY_LEN(vendor_ids); i++)
		if (vendor_ids[i].id == id)
			return vendor_ids[i].vendor;
	return GTM_VENDOR_OTHER;
}

/* Without DXGI, the adapters are the LUIDs the counters carry: the adapter
 * sets first, then the per-process ones; a LUID once seen stays listed so
 * device indexes keep their meaning from refresh to refresh. */
int wddm_counter_luids(const struct wddm_source *s, wddm_luid *luids, int n, int cap)
{
	static const enum pdh_counter_id sets[] = {PDH_ADAPTER_LOCAL, PDH_ADAPTER_DEDICATED, PDH_ADAPTER_NONLOCAL,
						   PDH_ADAPTER_SHARED, PDH_PM_FIRST + WDDM_PM_LOCAL,
						   PDH_PM_FIRST + WDDM_PM_DEDICATED, PDH_ENGINE_RUNNING};
	for (size_t k = 0; k < ARRAY_LEN(sets); k++)
		n = wddm_items_luids(pdh_reader_items(s->pdh, sets[k]), luids, n, cap);
	return n;
}

static void adapters_from_luids(struct wddm_source *s)
{
	uint64_t luids[WDDM_MAX_ADAPTERS];
	int n = 0;

	for (int i = 0; i < s->n_adapters; i++)
		luids[n++] = s->adapters[i].luid;
	n = wddm_counter_luids(s, luids, n, WDDM_MAX_ADAPTERS);
	for (int i = s->n_adapters; i < n; i++) {
		struct wddm_adapter *a = &s->adapters[i];
		char id[24];
		memset(a, 0, sizeof *a);
		a->luid = luids[i];
		wddm_luid_format(a->luid, id, sizeof id);
		snprintf(a->name, sizeof a->name, "GPU adapter LUID %s", id);
	}
	s->n_adapters = n;
}

/* An adapter set's sum over the adapter's parts; *listed: the set names it. */
static gtm_u64 adapter_sum(const struct wddm_source *s, enum pdh_counter_id set, uint64_t luid, bool *listed)
{
	const struct wddm_items *p = pdh_reader_items(s->pdh, set);

	*listed = false;
	for (size_t i = 0; i < p->n && !*listed; i++)
		*listed = p->v[i].id.luid == luid;
	return wddm_items_sum_luid(p, luid);
}

/* Used memory as Task Manager shows it: GPU Adapter Memory's Dedicated
 * Usage ("Dedicated GPU memory") and Shared Usage ("Shared GPU memory"); the
 * Local / Non Local Adapter Memory sets beside them, and in their place (said
 * in mem_note) when the adapter set does not list the adapter. */
static void adapter_memory(const struct wddm_source *s, uint64_t luid, struct gtm_device *d)
{
	bool ded, sh, loc, nl;

	d->mem_used = adapter_sum(s, PDH_ADAPTER_DEDICATED, luid, &ded);
	d->shared_used = adapter_sum(s, PDH_ADAPTER_SHARED, luid, &sh);
	d->local_used = adapter_sum(s, PDH_ADAPTER_LOCAL, luid, &loc);
	d->nonlocal_used = adapter_sum(s, PDH_ADAPTER_NONLOCAL, luid, &nl);
	if (!ded && loc)
		d->mem_used = d->local_used;
	if (!sh && nl)
		d->shared_used = d->nonlocal_used;
	if ((!ded && loc) || (!sh && nl))
		str_copy(d->mem_note,
			 !ded && loc && !sh && nl ? "used from Local/Non Local Adapter Memory: no Dedicated/Shared Usage"
			 : !ded && loc            ? "used from Local Adapter Memory: no Dedicated Usage"
						  : "shared from Non Local Adapter Memory: no Shared Usage",
			 sizeof d->mem_note);
}

static void fill_device(struct wddm_source *s, const struct wddm_adapter *a, struct gtm_device *d)
{
	d->vendor = vendor_of(a->vendor_id);
	str_copy(d->source, "wddm", sizeof d->source);
	str_copy(d->name, a->name, sizeof d->name);
	wddm_luid_format(a->luid, d->luid, sizeof d->luid);
	if (s->from_dxgi) {
		d->mem_total = gtm_u64_of(a->dedicated_video, GTM_MEASURED);
		d->shared_total = gtm_u64_of(a->shared_system, GTM_MEASURED);
	}
	adapter_memory(s, a->luid, d);
	if (gtm_u64_ok(d->mem_total) && gtm_u64_ok(d->mem_used))
		d->mem_free = gtm_u64_of(d->mem_total.v > d->mem_used.v ? d->mem_total.v - d->mem_used.v : 0, GTM_MEASURED);
	const struct wddm_load *l = wddm_engine_loads_adapter(&s->loads, a->luid);
	if (l)
		wddm_device_fill_engines(d, l);
	d->n_processes_seen = 0; /* counted by wddm_procs_add */
	wddm_telemetry_fill(s->telemetry, a, d);
	/* D3DKMT's location when no provider named it (an Intel iGPU): D3DKMT
	 * carries no PCI domain, 0 is assumed (platforms.md 1.5). */
	if (!d->pci_bus_id[0] && a->has_pci)
		snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "0000:%02x:%02x.%x", a->pci_bus, a->pci_dev, a->pci_fn);
}

int wddm_devices_add(struct wddm_source *s, struct gtm_snapshot *snap)
{
	int base = snap->n_devices;

	if (!s->from_dxgi)
		adapters_from_luids(s);
	for (int i = 0; i < s->n_adapters; i++)
		fill_device(s, &s->adapters[i], snapshot_add_device(snap));
	return base;
}

int wddm_device_of(const struct wddm_source *s, int base, uint64_t luid)
{
	for (int i = 0; i < s->n_adapters; i++)
		if (s->adapters[i].luid == luid)
			return base + i;
	return -1;
}
