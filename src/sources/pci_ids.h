/* Names for PCI display devices: a small built-in table of common GPUs.
 * Drivers' own strings (amdgpu product_name) take precedence where present. */
#ifndef GTM_PCI_IDS_H
#define GTM_PCI_IDS_H

#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

#define PCI_VENDOR_AMD 0x1002
#define PCI_VENDOR_INTEL 0x8086
#define PCI_VENDOR_NVIDIA 0x10de

enum gtm_vendor pci_vendor_kind(uint16_t vendor_id);
/* "AMD", "Intel", "NVIDIA", or NULL for others. */
const char *pci_vendor_label(uint16_t vendor_id);
/* Writes a name: the table's ("AMD Radeon RX 7900 XT/XTX (Navi 31)") or
 * "<vendor> GPU [vvvv:dddd]". Returns out. */
char *pci_device_name(char *out, size_t n, uint16_t vendor_id, uint16_t device_id);

#endif
