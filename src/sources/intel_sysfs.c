/* i915: cardN/gt_cur_freq_mhz, gt_max_freq_mhz (or gt/gt0/rps_*_freq_mhz on
 * multi-GT parts), Documentation/gpu/i915.rst. xe: device/tile<T>/gt<G>/freq0/
 * {cur,max}_freq and device/tile<T>/physical_vram_size_bytes
 * (drivers/gpu/drm/xe/xe_gt_freq.c, xe_tile_sysfs.c). */
#include "sources/intel_sysfs.h"

#include <string.h>

#include "sources/drm_hwmon.h"
#include "sources/drm_sysfs.h"

#define MAX_TILES 8

static void set_mhz(gtm_f64 *out, uint64_t v)
{
	if (v > 0 && v < 100000)
		*out = gtm_f64_of((double)v, GTM_MEASURED);
}

static void i915_freq(const char *card, struct gtm_device *d)
{
	uint64_t v;
	if (drm_sysfs_u64(&v, "/sys/class/drm/%s/gt_cur_freq_mhz", card) ||
	    drm_sysfs_u64(&v, "/sys/class/drm/%s/gt/gt0/rps_cur_freq_mhz", card))
		set_mhz(&d->clock_sm_mhz, v);
	if (drm_sysfs_u64(&v, "/sys/class/drm/%s/gt_max_freq_mhz", card) ||
	    drm_sysfs_u64(&v, "/sys/class/drm/%s/gt/gt0/rps_max_freq_mhz", card))
		set_mhz(&d->clock_sm_max_mhz, v);
}

static void xe_freq(const char *card, struct gtm_device *d)
{
	uint64_t v;
	if (drm_sysfs_u64(&v, "/sys/class/drm/%s/device/tile0/gt0/freq0/cur_freq", card))
		set_mhz(&d->clock_sm_mhz, v);
	if (drm_sysfs_u64(&v, "/sys/class/drm/%s/device/tile0/gt0/freq0/max_freq", card))
		set_mhz(&d->clock_sm_max_mhz, v);
}

/* The sum of the tiles' VRAM, 0 when no tile reports any. */
static uint64_t xe_vram(const char *card)
{
	uint64_t v, vram = 0;
	for (int t = 0; t < MAX_TILES; t++)
		if (drm_sysfs_u64(&v, "/sys/class/drm/%s/device/tile%d/physical_vram_size_bytes", card, t))
			vram += v;
	return vram;
}

/* Intel's integrated GPU sits at 00:02.0 on every platform with one. */
static bool is_igpu_slot(const char *slot)
{
	size_t n = strlen(slot);
	return n >= 7 && strcmp(slot + n - 7, "00:02.0") == 0 && (n == 7 || slot[n - 8] == ':');
}

void intel_sysfs_read(const char *card, const char *driver, const char *pci_slot, struct gtm_device *d,
		      bool may_wake)
{
	bool xe = strcmp(driver, "xe") == 0;
	uint64_t vram = xe ? xe_vram(card) : 0;
	bool hwmon = drm_hwmon_present(card);

	if (may_wake) {
		drm_hwmon_read(card, d);
		if (xe)
			xe_freq(card, d);
		else
			i915_freq(card, d);
	}
	if (vram > 0)
		d->mem_total = gtm_u64_of(vram, GTM_MEASURED);
	/* i915/xe register hwmon only for discrete parts; without a PCI slot
	 * nothing says integrated, and unknown is not an APU */
	d->is_apu = vram == 0 && !hwmon && is_igpu_slot(pci_slot);
}
