/* amdgpu's device readings from sysfs (Documentation/gpu/amdgpu/
 * driver-misc.rst and thermal.rst): memory, busy %, clocks, PCIe link. */
#ifndef GTM_AMDGPU_SYSFS_H
#define GTM_AMDGPU_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/snapshot.h"

/* Fills what amdgpu exposes for /sys/class/drm/<card>/device into d, sets
 * d->is_apu, and *vcn_unified (VCN 4 or later: one ring for both directions).
 * may_wake false (the device is runtime-suspended): only the driver's
 * bookkeeping (memory, names, IP versions) is read; load, clocks, link and
 * hwmon stay N/A, since reading them would power the GPU up. */
void amdgpu_sysfs_read(const char *card, struct gtm_device *d, bool *vcn_unified, bool may_wake);

/* pp_dpm_sclk / pp_dpm_mclk: "0: 500Mhz\n1: 2100Mhz *\n". The starred level is
 * the current clock; the highest level the maximum. Returns false when no
 * level parses (then nothing is written). */
bool amdgpu_dpm_parse(const char *buf, size_t len, double *cur_mhz, bool *has_cur, double *max_mhz);
/* current_link_speed "16.0 GT/s PCIe" -> PCIe generation 4; 0 when unknown. */
int pcie_gen_of_speed(const char *s);
/* An APU: amdgpu names no VRAM vendor for a carve-out (empty or absent
 * mem_info_vram_vendor), or the "VRAM" is a tiny carve-out. */
bool amdgpu_is_apu(bool has_vendor, const char *vendor, bool has_total, unsigned long long vram_total);

#endif
