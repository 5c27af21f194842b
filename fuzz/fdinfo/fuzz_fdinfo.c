/* The DRM source's parsers over arbitrary bytes: fdinfo (then attribution and
 * engine deltas over what it accepted), /proc/PID/stat start time, device
 * uevent, amdgpu DPM tables, KFD topology properties, fd link targets and
 * PCI addresses. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/devices_order.h"
#include "sources/amdgpu_sysfs.h"
#include "sources/drm_attrib.h"
#include "sources/drm_devices.h"
#include "sources/drm_kfd.h"
#include "sources/drm_scan.h"

static void fdinfo_pipeline(const uint8_t *data, size_t size)
{
	static struct drm_obs obs[3];
	struct drm_dev_ctx devs[2] = {{"amdgpu", false, true}, {"xe", true, false}};
	struct drm_engine_state *eng = drm_engine_state_new();
	struct gtm_raw_uses uses = {0};
	struct drm_dev_load loads[2];

	memset(obs, 0, sizeof obs);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 3; i++) {
			obs[i].pid = (uint32_t)(1 + i / 2); /* two reads share a holder */
			obs[i].dev = i % 2;
			obs[i].render = i != 2;
			obs[i].kfd = i == 1;
			obs[i].read_ns = (uint64_t)(round + 1) * 1000000000ull;
			obs[i].read_ok = drm_fdinfo_parse((const char *)data, size, &obs[i].fi) == 0;
		}
		drm_engine_state_begin(eng);
		struct drm_attrib_in in = {obs, 3, devs, 2, 0, round == 1, eng};
		drm_attribute(&in, &uses, loads);
		drm_engine_state_end(eng);
	}
	raw_uses_free(&uses);
	drm_engine_state_free(eng);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char str[256], slot[32];
	uint64_t v;
	double cur, max;
	bool has_cur;
	struct drm_uevent ue;

	fdinfo_pipeline(data, size);
	uint32_t flags;
	proc_stat_identity(text, size, &v, &flags);
	drm_uevent_parse(text, size, &ue);
	amdgpu_dpm_parse(text, size, &cur, &has_cur, &max);
	kfd_properties_slot(text, size, slot, sizeof slot);

	/* NUL-terminated inputs: the first line, bounded */
	size_t n = size < sizeof str - 1 ? size : sizeof str - 1;
	memcpy(str, data, n);
	str[n] = '\0';
	str[strcspn(str, "\n")] = '\0';
	char node[16];
	drm_fd_classify(str, node, sizeof node);
	pcie_gen_of_speed(str);
	pci_address_key(str, &v);
	return 0;
}
