/* The DRM source: devices under /sys/class/drm with their driver's sysfs
 * readings, and per-process usage from the fdinfo of every DRM fd, attributed
 * strictly (drm_attrib.h). */
#include "sources/drm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "sources/amdgpu_sysfs.h"
#include "sources/drm_attrib.h"
#include "sources/drm_devices.h"
#include "sources/drm_engines.h"
#include "sources/drm_hwmon.h"
#include "sources/drm_kfd.h"
#include "sources/drm_scan.h"
#include "sources/drm_sysfs.h"
#include "sources/intel_sysfs.h"
#include "sources/pci_ids.h"

/* fdinfo of a DRM fd is about 1-2 KiB; a longer one is not a DRM client's */
#define FDINFO_MAX 16384
/* KFD and fdinfo disagree only past this (page tables, rounding) */
#define KFD_SLACK (16ull * 1024 * 1024)

struct drm_source {
	struct gtm_source_opts opts;
	struct drm_dev *devs;
	struct drm_dev_ctx *ctx;
	int n_devs;
	struct drm_scan scan;
	struct drm_engine_state *engines;
	struct drm_obs *obs;
	size_t n_obs, cap_obs;
};

static void *drm_open(const struct gtm_source_opts *o, struct gtm_source_status *st)
{
	struct drm_dev *devs;
	int n = drm_devices_enumerate(&devs);

	if (n < 0) {
		str_copy(st->message, "no /sys/class/drm: no DRM driver loaded", sizeof st->message);
		return NULL;
	}
	if (n == 0) {
		str_copy(st->message, "no GPU under /sys/class/drm", sizeof st->message);
		return NULL;
	}
	struct drm_source *s = xcalloc(1, sizeof *s);
	s->opts = *o;
	s->devs = devs;
	s->n_devs = n;
	s->ctx = xcalloc((size_t)n, sizeof *s->ctx);
	s->engines = drm_engine_state_new();
	drm_scan_init(&s->scan);
	return s;
}

static void drm_close(void *priv)
{
	struct drm_source *s = priv;
	if (!s)
		return;
	drm_scan_free(&s->scan);
	drm_engine_state_free(s->engines);
	free(s->obs);
	free(s->ctx);
	free(s->devs);
	free(s);
}

/* amdgpu's unique_id: the chip's serial, 16 hex digits, on the parts that
 * expose it (Documentation/gpu/amdgpu/driver-misc.rst). Only that, never a
 * PCI address or a node name, is a UUID. */
static bool amdgpu_unique_id(const char *node, char *out, size_t n)
{
	char id[64];

	if (!drm_sysfs_str(id, sizeof id, "/sys/class/drm/%s/device/unique_id", node) || !id[0])
		return false;
	for (const char *p = id; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')))
			return false;
	str_copy(out, id, n);
	return true;
}

static void device_identity(const struct drm_dev *dv, struct gtm_device *d)
{
	const char *node = dv->card[0] ? dv->card : dv->render;

	d->vendor = dv->vendor;
	str_copy(d->source, "drm", sizeof d->source);
	str_copy(d->driver, dv->driver, sizeof d->driver);
	/* is_apu stays false here: only the driver's own readings (amdgpu's VRAM
	 * vendor, Intel's integrated slot) say a GPU uses system memory */
	if (dv->pci_slot[0]) {
		pci_device_name(d->name, sizeof d->name, dv->vendor_id, dv->device_id);
		str_copy(d->pci_bus_id, dv->pci_slot, sizeof d->pci_bus_id);
	} else {
		snprintf(d->name, sizeof d->name, "%s GPU", dv->driver[0] ? dv->driver : "DRM");
	}
	if (strcmp(dv->driver, "amdgpu") == 0)
		amdgpu_unique_id(node, d->uuid, sizeof d->uuid);
	/* a version only where the module states one (out-of-tree and DKMS
	 * builds); in-tree drivers have none of their own */
	if (dv->driver[0])
		drm_sysfs_str(d->driver_version, sizeof d->driver_version, "/sys/module/%s/version", dv->driver);
}

/* Appends every device with what its driver exposes. */
static int add_devices(struct drm_source *s, struct gtm_snapshot *snap)
{
	int base = snap->n_devices;

	for (int i = 0; i < s->n_devs; i++) {
		const struct drm_dev *dv = &s->devs[i];
		struct drm_dev_ctx *cx = &s->ctx[i];
		struct gtm_device *d = snapshot_add_device(snap);
		const char *node = dv->card[0] ? dv->card : dv->render;

		bool awake = !drm_runtime_suspended(node);

		device_identity(dv, d);
		d->driver_index = dv->card_minor; /* cardN: the driver's number, whatever the display order */
		str_copy(cx->driver, dv->driver, sizeof cx->driver);
		cx->vcn_unified = false;
		if (strcmp(dv->driver, "amdgpu") == 0)
			amdgpu_sysfs_read(node, d, &cx->vcn_unified, awake);
		else if (strcmp(dv->driver, "i915") == 0 || strcmp(dv->driver, "xe") == 0)
			intel_sysfs_read(node, dv->driver, dv->pci_slot, d, awake);
		else if (awake)
			drm_hwmon_read(node, d);
		cx->is_apu = d->is_apu;
		if (!awake)
			snapshot_add_note(snap, "drm: %s is runtime-suspended: load, clocks and sensors not read "
					  "(reading them would wake it)", dv->pci_slot[0] ? dv->pci_slot : node);
	}
	return base;
}

static struct drm_obs *obs_add(struct drm_source *s)
{
	s->obs = grow_array(s->obs, sizeof *s->obs, &s->cap_obs, s->n_obs);
	return &s->obs[s->n_obs++];
}

/* Reads one DRM fd's fdinfo. The device is the fd's node; drm-pdev only
 * stands in when the node is not one sysfs listed. */
static void read_fd(struct drm_source *s, const struct drm_proc *p, const struct drm_fd_ref *f, char *buf)
{
	int dev = drm_devices_find_node(s->devs, s->n_devs, f->node);
	ssize_t n = sysroot_read(buf, FDINFO_MAX, "/proc/%u/fdinfo/%d", p->pid, f->fd);
	struct drm_obs *o = obs_add(s);

	o->pid = p->pid;
	o->start_time = p->start_time;
	o->render = f->kind == DRM_FD_RENDER;
	o->kfd = p->kfd;
	o->read_ns = now_monotonic_ns();
	/* a read that filled the buffer was cut: never guess from part of it */
	o->read_ok = n > 0 && (size_t)n < FDINFO_MAX - 1 && drm_fdinfo_parse(buf, (size_t)n, &o->fi) == 0;
	if (!o->read_ok)
		memset(&o->fi, 0, sizeof o->fi);
	if (dev < 0 && o->read_ok && o->fi.has_pdev)
		dev = drm_devices_find_slot(s->devs, s->n_devs, o->fi.pdev);
	o->dev = dev;
	if (dev < 0)
		s->n_obs--; /* a node of a device we do not list */
}

static void read_clients(struct drm_source *s)
{
	char *buf = xmalloc(FDINFO_MAX);

	s->n_obs = 0;
	for (size_t i = 0; i < s->scan.n; i++) {
		const struct drm_proc *p = &s->scan.procs[i];
		for (int k = 0; k < p->n_fds; k++)
			if (p->fds[k].kind == DRM_FD_RENDER || p->fds[k].kind == DRM_FD_PRIMARY)
				read_fd(s, p, &p->fds[k], buf);
	}
	free(buf);
}

/* Device engine load from all visible clients: only when every process
 * could be listed, else it would be a lower bound shown as a measurement. */
static void device_engines(struct gtm_device *d, const struct drm_dev_load *l, bool complete)
{
	d->n_processes_seen = l->n_processes;
	if (!complete || l->n_clients == 0)
		return;
	double busiest = -1;
	for (int k = 1; k < DRM_ENG_N && d->n_engines < GTM_MAX_ENGINES; k++) {
		if (!l->cls[k].ok)
			continue;
		struct gtm_engine *e = &d->engines[d->n_engines++];
		str_copy(e->name, drm_engine_class_name(k), sizeof e->name);
		e->busy_pct = gtm_f64_of(l->cls[k].pct, GTM_MEASURED);
		if (l->cls[k].pct > busiest)
			busiest = l->cls[k].pct;
	}
	/* amdgpu measures its own busy %; others have only their engines */
	if (!gtm_f64_ok(d->util_gpu_pct) && busiest >= 0)
		d->util_gpu_pct = gtm_f64_of(busiest, GTM_MEASURED);
	if (l->cls[DRM_ENG_ENC].ok && !gtm_f64_ok(d->enc_pct))
		d->enc_pct = gtm_f64_of(l->cls[DRM_ENG_ENC].pct, GTM_MEASURED);
	if (l->cls[DRM_ENG_DEC].ok && !gtm_f64_ok(d->dec_pct))
		d->dec_pct = gtm_f64_of(l->cls[DRM_ENG_DEC].pct, GTM_MEASURED);
}

/* ROCm: KFD's own count of a process's VRAM, where it exceeds what fdinfo
 * shows, is worth a note (fdinfo also holds graphics buffers, so more there
 * is normal). */
static void kfd_cross_check(const struct drm_source *s, struct gtm_snapshot *snap, const struct gtm_raw_use *r,
			    int base)
{
	int dev = r->use.dev_index - base;
	uint64_t kfd;

	if (dev < 0 || dev >= s->n_devs || !gtm_u64_ok(r->use.ref_vram) ||
	    !kfd_process_vram(r->pid, s->devs[dev].pci_slot, &kfd))
		return;
	if (kfd > r->use.ref_vram.v + KFD_SLACK)
		snapshot_add_note(snap, "drm: pid %u: KFD reports %llu MiB of VRAM on %s, fdinfo %llu MiB", r->pid,
				  (unsigned long long)(kfd >> 20), s->devs[dev].pci_slot,
				  (unsigned long long)(r->use.ref_vram.v >> 20));
}

static void report_scan(const struct drm_source *s, struct gtm_snapshot *snap, struct gtm_source_status *st)
{
	const struct drm_scan *sc = &s->scan;

	snprintf(st->message, sizeof st->message, "%d device%s; fds of %zu processes (%d listed now)", s->n_devs,
		 s->n_devs == 1 ? "" : "s", sc->n, sc->n_listed);
	if (sc->n_unlistable > 0) {
		snapshot_add_note(snap, "drm: %d processes could not be inspected (file descriptors not readable)",
				  sc->n_unlistable);
		size_t l = strlen(st->message);
		snprintf(st->message + l, sizeof st->message - l, "; %d not inspectable", sc->n_unlistable);
	}
	if (sc->n_skipped > 0) {
		snap->partial_scan = true;
		snapshot_add_note(snap, "drm: refresh budget spent: %d processes not scanned yet (VRAM N/A: partial scan)",
				  sc->n_skipped);
	}
}

static int drm_sample(void *priv, struct gtm_snapshot *snap, struct gtm_raw_uses *uses, struct gtm_source_status *st)
{
	struct drm_source *s = priv;
	int base = add_devices(s, snap);
	size_t first_use = uses->n;

	if (drm_scan_refresh(&s->scan, s->opts.one_shot, s->opts.scan_budget_ns) != 0) {
		str_copy(st->message, "error: cannot list /proc", sizeof st->message);
		return -1;
	}
	read_clients(s);
	struct drm_dev_load *loads = xcalloc((size_t)s->n_devs, sizeof *loads);
	struct drm_attrib_in in = {
		.obs = s->obs, .n_obs = s->n_obs, .devs = s->ctx, .n_devs = s->n_devs,
		.dev_base = base, .partial = s->scan.n_skipped > 0, .engines = s->engines,
	};
	drm_engine_state_begin(s->engines);
	drm_attribute(&in, uses, loads);
	drm_engine_state_end(s->engines);
	bool complete = s->scan.n_skipped == 0 && s->scan.n_unlistable == 0;
	for (int i = 0; i < s->n_devs; i++) {
		device_engines(&snap->devices[base + i], &loads[i], complete);
		if (loads[i].n_no_id_unattributed > 0)
			snapshot_add_note(snap, "drm: %s: the unattributed row includes %d client%s without "
					  "drm-client-id, which cannot be de-duplicated (a shared one counts once per fd)",
					  s->devs[i].pci_slot[0] ? s->devs[i].pci_slot : s->devs[i].card,
					  loads[i].n_no_id_unattributed, loads[i].n_no_id_unattributed == 1 ? "" : "s");
	}
	free(loads);
	for (size_t i = first_use; i < uses->n; i++)
		if (uses->v[i].use.compute && uses->v[i].pid)
			kfd_cross_check(s, snap, &uses->v[i], base);
	report_scan(s, snap, st);
	return 0;
}

static bool drm_needs_second_sample(void *priv)
{
	const struct drm_source *s = priv;
	return drm_engine_state_first_samples(s->engines) > 0;
}

const struct gtm_source_ops drm_source_ops = {
	.name = "drm",
	.open = drm_open,
	.sample = drm_sample,
	.close = drm_close,
	.needs_second_sample = drm_needs_second_sample,
};
