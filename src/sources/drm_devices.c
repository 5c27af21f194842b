/* sysfs layout: /sys/class/drm/{cardN,renderDN}/device -> the PCI (or
 * platform) device, whose uevent names driver, PCI id and slot
 * (Documentation/ABI/testing/sysfs-bus-pci). */
#include "sources/drm_devices.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "sources/drm_sysfs.h"
#include "sources/drm_text.h"
#include "sources/pci_ids.h"

static void copy_field(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	for (char *p = dst; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

static bool parse_pci_id(const char *s, size_t n, uint16_t *v, uint16_t *d)
{
	char tmp[16];
	char *end;
	if (n != 9 || s[4] != ':')
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	unsigned long a = strtoul(tmp, &end, 16);
	if (end != tmp + 4)
		return false;
	unsigned long b = strtoul(tmp + 5, &end, 16);
	if (end != tmp + 9)
		return false;
	*v = (uint16_t)a;
	*d = (uint16_t)b;
	return true;
}

void drm_uevent_parse(const char *buf, size_t len, struct drm_uevent *out)
{
	size_t pos = 0, n;
	const char *s;

	memset(out, 0, sizeof *out);
	while (drm_next_line(buf, len, &pos, &s, &n)) {
		if (n > 7 && memcmp(s, "DRIVER=", 7) == 0)
			copy_field(out->driver, sizeof out->driver, s + 7, n - 7);
		else if (n > 14 && memcmp(s, "PCI_SLOT_NAME=", 14) == 0)
			copy_field(out->pci_slot, sizeof out->pci_slot, s + 14, n - 14);
		else if (n > 7 && memcmp(s, "PCI_ID=", 7) == 0)
			out->has_pci_id = parse_pci_id(s + 7, n - 7, &out->vendor_id, &out->device_id);
	}
}

/* "card12" -> 12 with prefix "card"; -1 when the rest is not all digits
 * ("card0-DP-1" is a connector, not a node). */
static int node_minor(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	if (strncmp(name, prefix, pl) != 0 || !name[pl] || strlen(name + pl) > 6)
		return -1;
	for (const char *p = name + pl; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	return atoi(name + pl);
}

/* Reads what identifies a node's device; falls back to the vendor/device
 * attribute files and the driver link when uevent lacks them. */
static void node_identity(const char *node, struct drm_uevent *ue)
{
	char buf[2048], link[512];
	uint64_t v;
	ssize_t n = sysroot_read(buf, sizeof buf, "/sys/class/drm/%s/device/uevent", node);

	memset(ue, 0, sizeof *ue);
	if (n > 0)
		drm_uevent_parse(buf, (size_t)n, ue);
	if (!ue->has_pci_id && drm_sysfs_u64(&v, "/sys/class/drm/%s/device/vendor", node)) {
		ue->vendor_id = (uint16_t)v;
		if (drm_sysfs_u64(&v, "/sys/class/drm/%s/device/device", node)) {
			ue->device_id = (uint16_t)v;
			ue->has_pci_id = true;
		}
	}
	if (!ue->driver[0] && sysroot_readlink(link, sizeof link, "/sys/class/drm/%s/device/driver", node) > 0)
		str_copy(ue->driver, path_base(link), sizeof ue->driver);
}

/* The device a node belongs to: same PCI slot, or for non-PCI devices the
 * same driver and no slot (one such device per driver in practice). */
static struct drm_dev *dev_for(struct drm_dev **devs, int *n, size_t *cap, const struct drm_uevent *ue)
{
	for (int i = 0; i < *n; i++) {
		struct drm_dev *d = &(*devs)[i];
		if (ue->pci_slot[0] ? strcmp(d->pci_slot, ue->pci_slot) == 0
				    : (!d->pci_slot[0] && strcmp(d->driver, ue->driver) == 0))
			return d;
	}
	*devs = grow_array(*devs, sizeof **devs, cap, (size_t)*n);
	struct drm_dev *d = &(*devs)[(*n)++];
	memset(d, 0, sizeof *d);
	d->card_minor = d->render_minor = -1;
	str_copy(d->pci_slot, ue->pci_slot, sizeof d->pci_slot);
	str_copy(d->driver, ue->driver, sizeof d->driver);
	if (ue->has_pci_id) {
		d->vendor_id = ue->vendor_id;
		d->device_id = ue->device_id;
		d->vendor = pci_vendor_kind(ue->vendor_id);
	}
	return d;
}

static bool worth_listing(const struct drm_dev *d)
{
	return d->render_minor >= 0 || (d->pci_slot[0] && d->vendor != GTM_VENDOR_OTHER);
}

static int by_minor(const void *a, const void *b)
{
	const struct drm_dev *x = a, *y = b;
	int kx = x->card_minor >= 0 ? x->card_minor : 100000 + x->render_minor;
	int ky = y->card_minor >= 0 ? y->card_minor : 100000 + y->render_minor;
	return (kx > ky) - (kx < ky);
}

int drm_devices_enumerate(struct drm_dev **out)
{
	DIR *dir = sysroot_opendir("/sys/class/drm");
	struct dirent *e;
	struct drm_dev *devs = NULL;
	size_t cap = 0;
	int n = 0;

	*out = NULL;
	if (!dir)
		return -1;
	while ((e = readdir(dir)) && n < 64) {
		int card = node_minor(e->d_name, "card"), render = node_minor(e->d_name, "renderD");
		if (card < 0 && render < 0)
			continue;
		struct drm_uevent ue;
		node_identity(e->d_name, &ue);
		struct drm_dev *d = dev_for(&devs, &n, &cap, &ue);
		if (card >= 0 && d->card_minor < 0) {
			d->card_minor = card;
			str_copy(d->card, e->d_name, sizeof d->card);
		} else if (render >= 0 && d->render_minor < 0) {
			d->render_minor = render;
			str_copy(d->render, e->d_name, sizeof d->render);
		}
	}
	closedir(dir);
	int kept = 0;
	for (int i = 0; i < n; i++)
		if (worth_listing(&devs[i]))
			devs[kept++] = devs[i];
	if (kept == 0) {
		free(devs);
		return 0;
	}
	qsort(devs, (size_t)kept, sizeof *devs, by_minor);
	*out = devs;
	return kept;
}

int drm_devices_find_node(const struct drm_dev *devs, int n, const char *node)
{
	for (int i = 0; i < n; i++)
		if ((devs[i].card[0] && strcmp(devs[i].card, node) == 0) ||
		    (devs[i].render[0] && strcmp(devs[i].render, node) == 0))
			return i;
	return -1;
}

int drm_devices_find_slot(const struct drm_dev *devs, int n, const char *slot)
{
	if (!slot || !slot[0])
		return -1;
	for (int i = 0; i < n; i++)
		if (devs[i].pci_slot[0] && strcasecmp(devs[i].pci_slot, slot) == 0)
			return i;
	return -1;
}
