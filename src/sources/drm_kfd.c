/* Layout from drivers/gpu/drm/amd/amdkfd/kfd_topology.c (nodes/N/gpu_id,
 * nodes/N/properties) and kfd_process.c (proc/<pid>/vram_<gpuid>). */
#include "sources/drm_kfd.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "sources/drm_sysfs.h"
#include "sources/drm_text.h"

#define KFD "/sys/class/kfd/kfd"

static bool prop_value(const char *buf, size_t len, const char *key, uint64_t *v)
{
	size_t kl = strlen(key), pos = 0, n;
	const char *s;
	while (drm_next_line(buf, len, &pos, &s, &n)) {
		if (n > kl + 1 && memcmp(s, key, kl) == 0 && s[kl] == ' ') {
			char num[32];
			if (n - kl - 1 >= sizeof num)
				return false;
			memcpy(num, s + kl + 1, n - kl - 1);
			num[n - kl - 1] = '\0';
			return drm_parse_u64(num, v);
		}
	}
	return false;
}

bool kfd_properties_slot(const char *buf, size_t len, char *slot, size_t cap)
{
	uint64_t loc, dom = 0;
	if (!prop_value(buf, len, "location_id", &loc) || loc > 0xffff)
		return false;
	prop_value(buf, len, "domain", &dom);
	if (dom > 0xffff)
		return false;
	int k = snprintf(slot, cap, "%04x:%02x:%02x.%x", (unsigned)dom, (unsigned)(loc >> 8),
			 (unsigned)((loc >> 3) & 0x1f), (unsigned)(loc & 7));
	return k > 0 && (size_t)k < cap;
}

/* The gpu_id KFD gives the GPU at pci_slot, or 0. */
static uint64_t kfd_gpu_id(const char *pci_slot)
{
	DIR *d = sysroot_opendir(KFD "/topology/nodes");
	struct dirent *e;
	uint64_t found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		char buf[4096], slot[32];
		uint64_t id;
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || strlen(e->d_name) > 8)
			continue;
		if (!drm_sysfs_u64(&id, KFD "/topology/nodes/%s/gpu_id", e->d_name) || id == 0)
			continue; /* CPU nodes have gpu_id 0 */
		ssize_t n = sysroot_read(buf, sizeof buf, KFD "/topology/nodes/%s/properties", e->d_name);
		if (n > 0 && kfd_properties_slot(buf, (size_t)n, slot, sizeof slot) && strcasecmp(slot, pci_slot) == 0)
			found = id;
	}
	closedir(d);
	return found;
}

bool kfd_process_vram(uint32_t pid, const char *pci_slot, uint64_t *bytes)
{
	uint64_t id = pci_slot[0] ? kfd_gpu_id(pci_slot) : 0;
	return id && drm_sysfs_u64(bytes, KFD "/proc/%u/vram_%llu", pid, (unsigned long long)id);
}
