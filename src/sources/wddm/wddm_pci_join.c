#include "sources/wddm/wddm_pci_join.h"

static bool same_location(const struct wddm_pci_cand *c, const struct wddm_adapter *a)
{
	return c->domain == 0 && c->bus >= 0 && (uint32_t)c->bus == a->pci_bus && c->dev >= 0 &&
	       (uint32_t)c->dev == a->pci_dev && c->fn >= 0 && (uint32_t)c->fn == a->pci_fn;
}

int wddm_pci_match(const struct wddm_pci_cand *c, int n, const struct wddm_adapter *a, enum wddm_join *why)
{
	int found = -1, matches = 0;
	bool other_ids = false;

	if (!a->has_pci) {
		*why = WDDM_JOIN_NO_PCI;
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (!same_location(&c[i], a))
			continue;
		if (c[i].has_ids && (c[i].vendor_id != a->vendor_id || c[i].device_id != a->device_id)) {
			other_ids = true;
			continue;
		}
		found = i;
		matches++;
	}
	if (matches == 1) {
		*why = WDDM_JOIN_OK;
		return found;
	}
	*why = matches > 1 ? WDDM_JOIN_AMBIGUOUS : other_ids ? WDDM_JOIN_IDS_DIFFER : WDDM_JOIN_NONE;
	return -1;
}

static const char *const join_names[] = {
	[WDDM_JOIN_OK] = "matched by PCI location",
	[WDDM_JOIN_NO_PCI] = "the adapter's PCI location is unknown",
	[WDDM_JOIN_NONE] = "no device at the adapter's PCI location",
	[WDDM_JOIN_IDS_DIFFER] = "the device at the adapter's PCI location has other PCI ids",
	[WDDM_JOIN_AMBIGUOUS] = "several devices at the adapter's PCI location",
};

const char *wddm_join_name(enum wddm_join j)
{
	return (unsigned)j < sizeof join_names / sizeof join_names[0] ? join_names[j] : "?";
}

void wddm_pci_ids_from_nvml(unsigned pci_device_id, uint32_t *vendor_id, uint32_t *device_id)
{
	*vendor_id = pci_device_id & 0xFFFFu;
	*device_id = pci_device_id >> 16;
}

int wddm_pci_dedupe(struct wddm_pci_cand *c, int n)
{
	int kept = 0;

	for (int i = 0; i < n; i++) {
		bool dup = c[i].bus < 0;
		for (int j = 0; j < kept && !dup; j++)
			dup = c[j].domain == c[i].domain && c[j].bus == c[i].bus && c[j].dev == c[i].dev && c[j].fn == c[i].fn;
		if (!dup)
			c[kept++] = c[i];
	}
	return kept;
}
