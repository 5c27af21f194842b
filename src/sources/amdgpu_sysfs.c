#include "sources/amdgpu_sysfs.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "sources/drm_hwmon.h"
#include "sources/drm_sysfs.h"
#include "sources/drm_text.h"

#define DEV "/sys/class/drm/%s/device/"

/* Carve-outs are at most 512 MiB by default on APUs; no discrete card
 * amdgpu drives has so little. */
#define APU_CARVEOUT_MAX (512ull * 1024 * 1024)

/* amdgpu leaves mem_info_vram_vendor empty on an APU (no VRAM chips to
 * name); kernels that lack the file say nothing either way, so there only a
 * carve-out-sized "VRAM" makes an APU. */
bool amdgpu_is_apu(bool has_vendor, const char *vendor, bool has_total, unsigned long long vram_total)
{
	if (has_vendor && !vendor[0])
		return true;
	return has_total && vram_total <= APU_CARVEOUT_MAX;
}

bool amdgpu_dpm_parse(const char *buf, size_t len, double *cur_mhz, bool *has_cur, double *max_mhz)
{
	size_t pos = 0, n;
	const char *s;
	bool any = false;
	double best = 0;

	*has_cur = false;
	while (drm_next_line(buf, len, &pos, &s, &n)) {
		char line[96];
		if (n > sizeof line - 1)
			n = sizeof line - 1;
		memcpy(line, s, n);
		line[n] = '\0';
		char *colon = strchr(line, ':'), *endp;
		if (!colon)
			continue;
		double mhz = strtod(colon + 1, &endp);
		if (endp == colon + 1 || mhz < 0 || mhz > 1e6 || strncasecmp(endp, "mhz", 3) != 0)
			continue;
		any = true;
		if (mhz > best)
			best = mhz;
		if (strchr(endp, '*')) {
			*cur_mhz = mhz;
			*has_cur = true;
		}
	}
	if (any)
		*max_mhz = best;
	return any;
}

int pcie_gen_of_speed(const char *s)
{
	static const struct {
		double gts;
		int gen;
	} gens[] = {{2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}};
	char *end;
	double v = strtod(s, &end);
	if (end == s)
		return 0;
	for (size_t i = 0; i < ARRAY_LEN(gens); i++)
		if (v > gens[i].gts - 0.05 && v < gens[i].gts + 0.05)
			return gens[i].gen;
	return 0;
}

static void read_dpm(const char *card, const char *file, gtm_f64 *cur, gtm_f64 *max)
{
	char buf[1024];
	double c = 0, m = 0;
	bool has_cur;
	ssize_t n = sysroot_read(buf, sizeof buf, DEV "%s", card, file);
	if (n > 0 && amdgpu_dpm_parse(buf, (size_t)n, &c, &has_cur, &m)) {
		if (has_cur)
			*cur = gtm_f64_of(c, GTM_MEASURED);
		*max = gtm_f64_of(m, GTM_MEASURED);
	}
}

static void read_bytes(const char *card, const char *file, gtm_u64 *out)
{
	uint64_t v;
	if (drm_sysfs_u64(&v, DEV "%s", card, file))
		*out = gtm_u64_of(v, GTM_MEASURED);
}

static void read_pct(const char *card, const char *file, gtm_f64 *out)
{
	uint64_t v;
	if (drm_sysfs_u64(&v, DEV "%s", card, file) && v <= 100)
		*out = gtm_f64_of((double)v, GTM_MEASURED);
}

static void read_memory(const char *card, struct gtm_device *d)
{
	char vendor[64];
	bool has_vendor = drm_sysfs_str(vendor, sizeof vendor, DEV "mem_info_vram_vendor", card);
	/* absent and empty both mean "no vendor" */
	read_bytes(card, "mem_info_vram_total", &d->mem_total);
	read_bytes(card, "mem_info_vram_used", &d->mem_used);
	read_bytes(card, "mem_info_gtt_total", &d->shared_total);
	read_bytes(card, "mem_info_gtt_used", &d->shared_used);
	if (gtm_u64_ok(d->mem_total) && gtm_u64_ok(d->mem_used) && d->mem_used.v <= d->mem_total.v)
		d->mem_free = gtm_u64_of(d->mem_total.v - d->mem_used.v, GTM_MEASURED);
	if (gtm_u64_ok(d->mem_total) || has_vendor)
		d->is_apu = amdgpu_is_apu(has_vendor, vendor, gtm_u64_ok(d->mem_total), d->mem_total.v);
}

static void read_link(const char *card, struct gtm_device *d)
{
	char buf[64];
	uint64_t w;
	if (drm_sysfs_str(buf, sizeof buf, DEV "current_link_speed", card)) {
		int gen = pcie_gen_of_speed(buf);
		if (gen > 0)
			d->pcie_gen = gtm_f64_of(gen, GTM_MEASURED);
	}
	if (drm_sysfs_u64(&w, DEV "current_link_width", card) && w > 0 && w <= 64)
		d->pcie_width = gtm_f64_of((double)w, GTM_MEASURED);
}

/* ip_discovery/die/0/UVD/0/major: the VCN block's version (the table in
 * amdgpu_discovery.c names VCN "UVD"). */
static bool read_vcn_unified(const char *card)
{
	uint64_t major;
	return drm_sysfs_u64(&major, DEV "ip_discovery/die/0/UVD/0/major", card) && major >= 4;
}

void amdgpu_sysfs_read(const char *card, struct gtm_device *d, bool *vcn_unified, bool may_wake)
{
	char name[96];

	if (drm_sysfs_str(name, sizeof name, DEV "product_name", card))
		str_copy(d->name, name, sizeof d->name);
	read_memory(card, d);
	*vcn_unified = read_vcn_unified(card);
	if (!may_wake)
		return;
	read_pct(card, "gpu_busy_percent", &d->util_gpu_pct);
	read_pct(card, "mem_busy_percent", &d->util_mem_pct);
	read_dpm(card, "pp_dpm_sclk", &d->clock_sm_mhz, &d->clock_sm_max_mhz);
	read_dpm(card, "pp_dpm_mclk", &d->clock_mem_mhz, &d->clock_mem_max_mhz);
	read_link(card, d);
	drm_hwmon_read(card, d);
}
