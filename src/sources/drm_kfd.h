/* ROCm's view through KFD: which GPU a KFD gpu_id is, and how much VRAM KFD
 * says a process holds there (/sys/class/kfd/kfd/proc/<pid>/vram_<gpu_id>).
 * Used to cross-check fdinfo, never instead of it. */
#ifndef GTM_KFD_H
#define GTM_KFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PCI slot "0000:83:00.0" from a topology node's properties text
 * ("domain N" and "location_id N" = bus << 8 | device << 3 | function). */
bool kfd_properties_slot(const char *buf, size_t len, char *slot, size_t cap);
/* Sum of KFD's VRAM for pid on the GPU at pci_slot; false when KFD does not say. */
bool kfd_process_vram(uint32_t pid, const char *pci_slot, uint64_t *bytes);

#endif
