/* devices_order: one row per physical GPU (NVML kept over DRM), NVIDIA
 * first, then by dedicated memory; uses follow their device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "collect/devices_order.h"

static struct gtm_device *dev(struct gtm_snapshot *s, const char *source, enum gtm_vendor v, const char *pci,
			      uint64_t mem, bool has_mem)
{
	struct gtm_device *d = snapshot_add_device(s);
	snprintf(d->source, sizeof d->source, "%s", source);
	snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", pci);
	snprintf(d->name, sizeof d->name, "%s-%s", source, pci);
	d->vendor = v;
	d->mem_total = has_mem ? gtm_u64_of(mem, GTM_MEASURED) : GTM_U64_NA;
	return d;
}

static void use(struct gtm_raw_uses *u, uint32_t pid, int dev_index)
{
	struct gtm_raw_use *r = raw_uses_add(u);
	r->pid = pid;
	r->use.dev_index = dev_index;
}

static void test_pci_keys(void **state)
{
	(void)state;
	uint64_t a, b, c;
	assert_true(pci_address_key("0000:01:00.0", &a));
	assert_true(pci_address_key("00000000:01:00.0", &b)); /* NVML's 8-digit domain */
	assert_true(pci_address_key("01:00.0", &c));
	assert_int_equal(a, b);
	assert_int_equal(a, c);
	assert_true(pci_address_key("0000:C4:00.0", &a));
	assert_true(pci_address_key("0000:c4:00.0", &b));
	assert_int_equal(a, b);
	assert_true(pci_address_key("0001:01:00.0", &c));
	assert_int_not_equal(b, c);
	assert_false(pci_address_key("", &a));
	assert_false(pci_address_key("drm:card0", &a));
	assert_false(pci_address_key("0000:01:00", &a));
	assert_false(pci_address_key("0000:01:00.9", &a));
	assert_false(pci_address_key("0000:01:00.0x", &a));
	assert_false(pci_address_key(NULL, &a));
}

static void test_dedup_and_order(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snapshot_new();
	struct gtm_raw_uses u = {0};
	/* as the collector appends them: NVML first, then DRM */
	dev(s, "nvml", GTM_VENDOR_NVIDIA, "00000000:01:00.0", 8ull << 30, true);   /* 0 */
	dev(s, "nvml", GTM_VENDOR_NVIDIA, "00000000:02:00.0", 24ull << 30, true);  /* 1 */
	dev(s, "drm", GTM_VENDOR_INTEL, "0000:00:02.0", 0, false);                 /* 2 */
	dev(s, "drm", GTM_VENDOR_NVIDIA, "0000:01:00.0", 0, false);                /* 3: NVML has it */
	dev(s, "drm", GTM_VENDOR_AMD, "0000:03:00.0", 16ull << 30, true);          /* 4 */
	dev(s, "drm", GTM_VENDOR_AMD, "0000:c4:00.0", 512ull << 20, true);         /* 5 */
	dev(s, "drm", GTM_VENDOR_NVIDIA, "0000:05:00.0", 0, false);                /* 6: nouveau, no NVML */
	use(&u, 10, 0);
	use(&u, 11, 3); /* a DRM use of the duplicate */
	use(&u, 12, 4);
	use(&u, 13, 5);
	use(&u, 14, 2);
	use(&u, 15, 1);
	use(&u, 0, 4);
	use(&u, 16, 42); /* not a device of this snapshot: untouched */

	devices_order(s, &u);
	assert_int_equal(s->n_devices, 6);
	const char *want[] = {"nvml-00000000:02:00.0", "nvml-00000000:01:00.0", "drm-0000:05:00.0",
			      "drm-0000:03:00.0", "drm-0000:c4:00.0", "drm-0000:00:02.0"};
	for (int i = 0; i < 6; i++) {
		assert_string_equal(s->devices[i].name, want[i]);
		assert_int_equal(s->devices[i].index, i);
	}
	assert_int_equal(u.n, 7);
	int expect[][2] = {{10, 1}, {12, 3}, {13, 4}, {14, 5}, {15, 0}, {0, 3}, {16, 42}};
	for (size_t i = 0; i < u.n; i++) {
		assert_int_equal(u.v[i].pid, expect[i][0]);
		assert_int_equal(u.v[i].use.dev_index, expect[i][1]);
	}
	raw_uses_free(&u);
	snapshot_free(s);

	/* nothing to do */
	s = snapshot_new();
	devices_order(s, NULL);
	assert_int_equal(s->n_devices, 0);
	snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pci_keys),
		cmocka_unit_test(test_dedup_and_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
