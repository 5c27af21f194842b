/* Device ids as listed in the PCI ID repository (pci-ids.ucw.cz, class 03);
 * only a few common parts, each under the name that repository gives it. */
#include "sources/pci_ids.h"

#include <stdio.h>

#include "core/util.h"

static const struct pci_name {
	uint16_t vendor, device;
	const char *name;
} pci_names[] = {
	/* AMD discrete */
	{PCI_VENDOR_AMD, 0x744c, "AMD Radeon RX 7900 XT/XTX (Navi 31)"},
	{PCI_VENDOR_AMD, 0x7480, "AMD Radeon RX 7600 (Navi 33)"},
	{PCI_VENDOR_AMD, 0x73bf, "AMD Radeon RX 6800/6800 XT/6900 XT (Navi 21)"},
	{PCI_VENDOR_AMD, 0x73df, "AMD Radeon RX 6700/6700 XT (Navi 22)"},
	{PCI_VENDOR_AMD, 0x73ff, "AMD Radeon RX 6600 (Navi 23)"},
	{PCI_VENDOR_AMD, 0x738c, "AMD Instinct MI100"},
	{PCI_VENDOR_AMD, 0x740c, "AMD Instinct MI250X/MI250"},
	{PCI_VENDOR_AMD, 0x74a1, "AMD Instinct MI300X"},
	/* AMD integrated */
	{PCI_VENDOR_AMD, 0x1636, "AMD Radeon Graphics (Renoir)"},
	{PCI_VENDOR_AMD, 0x1638, "AMD Radeon Graphics (Cezanne)"},
	{PCI_VENDOR_AMD, 0x164e, "AMD Radeon Graphics (Raphael)"},
	{PCI_VENDOR_AMD, 0x1681, "AMD Radeon 680M (Rembrandt)"},
	{PCI_VENDOR_AMD, 0x15bf, "AMD Radeon 780M (Phoenix)"},
	{PCI_VENDOR_AMD, 0x150e, "AMD Radeon 880M/890M (Strix Point)"},
	/* NVIDIA (shown from DRM only when NVML is absent, e.g. nouveau) */
	{PCI_VENDOR_NVIDIA, 0x2330, "NVIDIA H100 SXM5 80GB"},
	{PCI_VENDOR_NVIDIA, 0x20b0, "NVIDIA A100 SXM4 40GB"},
	{PCI_VENDOR_NVIDIA, 0x20b2, "NVIDIA A100 SXM4 80GB"},
	{PCI_VENDOR_NVIDIA, 0x2684, "NVIDIA GeForce RTX 4090"},
	/* Intel discrete */
	{PCI_VENDOR_INTEL, 0x56a0, "Intel Arc A770"},
	{PCI_VENDOR_INTEL, 0x56a1, "Intel Arc A750"},
	{PCI_VENDOR_INTEL, 0x5690, "Intel Arc A770M"},
	{PCI_VENDOR_INTEL, 0xe20b, "Intel Arc B580"},
	{PCI_VENDOR_INTEL, 0xe20c, "Intel Arc B570"},
	{PCI_VENDOR_INTEL, 0x0bd5, "Intel Data Center GPU Max 1550"},
	/* Intel integrated */
	{PCI_VENDOR_INTEL, 0x64a0, "Intel Arc 130V/140V (Lunar Lake)"},
	{PCI_VENDOR_INTEL, 0x7d55, "Intel Arc Graphics (Meteor Lake)"},
	{PCI_VENDOR_INTEL, 0x9a49, "Intel Iris Xe Graphics (Tiger Lake)"},
	{PCI_VENDOR_INTEL, 0x46a6, "Intel Iris Xe Graphics (Alder Lake-P)"},
	{PCI_VENDOR_INTEL, 0x4680, "Intel UHD Graphics 770 (Alder Lake-S)"},
	{PCI_VENDOR_INTEL, 0xa780, "Intel UHD Graphics 770 (Raptor Lake-S)"},
	{PCI_VENDOR_INTEL, 0x3e92, "Intel UHD Graphics 630 (Coffee Lake)"},
	{PCI_VENDOR_INTEL, 0x3e9b, "Intel UHD Graphics 630 (Coffee Lake, mobile)"},
};

static const struct vendor_kind {
	uint16_t id;
	enum gtm_vendor kind;
	const char *label;
} vendors[] = {
	{PCI_VENDOR_AMD, GTM_VENDOR_AMD, "AMD"},
	{PCI_VENDOR_INTEL, GTM_VENDOR_INTEL, "Intel"},
	{PCI_VENDOR_NVIDIA, GTM_VENDOR_NVIDIA, "NVIDIA"},
};

enum gtm_vendor pci_vendor_kind(uint16_t vendor_id)
{
	for (size_t i = 0; i < ARRAY_LEN(vendors); i++)
		if (vendors[i].id == vendor_id)
			return vendors[i].kind;
	return GTM_VENDOR_OTHER;
}

const char *pci_vendor_label(uint16_t vendor_id)
{
	for (size_t i = 0; i < ARRAY_LEN(vendors); i++)
		if (vendors[i].id == vendor_id)
			return vendors[i].label;
	return NULL;
}

char *pci_device_name(char *out, size_t n, uint16_t vendor_id, uint16_t device_id)
{
	for (size_t i = 0; i < ARRAY_LEN(pci_names); i++) {
		if (pci_names[i].vendor == vendor_id && pci_names[i].device == device_id) {
			str_copy(out, pci_names[i].name, n);
			return out;
		}
	}
	const char *v = pci_vendor_label(vendor_id);
	snprintf(out, n, "%s GPU [%04x:%04x]", v ? v : "PCI", vendor_id, device_id);
	return out;
}
