/* The GPU processes' containers (containers.h). Each is read once per
 * (PID, start time), every read through core/sysroot:
 * - /proc/PID/cgroup: the container id and, under Kubernetes, the pod UID;
 * - in a pod, through the process's own root (/proc/PID/root): the pod name
 *   from /etc/hostname (the kubelet sets a pod's hostname to its name unless
 *   the pod uses the host's network) and the namespace from the
 *   service-account mount (absent when the pod mounts no token);
 * - the OCI bundle's config.json where the runtime keeps it on the host
 *   (containerd's CRI plugin, CRI-O): the container's name, and the pod's
 *   name and namespace where the others are not readable.
 * What cannot be read stays absent. */
#include "serve/containers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "serve/cgroup_ids.h"
#include "serve/oci_annotations.h"

#define CGROUP_MAX (64u << 10)
#define BUNDLE_MAX (1u << 20)

struct containers {
	struct prom_container *v; /* the last update's, sorted by PID */
	int n;
};

/* Where containerd (namespace k8s.io) and CRI-O keep a container's bundle. */
static const char *const bundles[] = {
	"/run/containerd/io.containerd.runtime.v2.task/k8s.io/%s/config.json",
	"/run/containers/storage/overlay-containers/%s/userdata/config.json",
};

static void read_name(char *out, size_t cap, const char *fmt, unsigned pid)
{
	char buf[256];
	ssize_t n = sysroot_read(buf, sizeof buf, fmt, pid);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		n--;
	if (n > 0 && k8s_name_ok(buf, (size_t)n) && (size_t)n < cap) {
		memcpy(out, buf, (size_t)n);
		out[n] = '\0';
	}
}

static void read_bundle(struct prom_container *c)
{
	struct oci_names names;
	for (size_t i = 0; i < ARRAY_LEN(bundles); i++) {
		char path[256];
		size_t len;
		snprintf(path, sizeof path, bundles[i], c->container_id);
		char *text = sysroot_slurp(BUNDLE_MAX, &len, "%s", path);
		bool got = text && oci_annotations_parse(text, len, &names);
		free(text);
		if (!got)
			continue;
		str_copy(c->container, names.container, sizeof c->container);
		if (!c->pod[0])
			str_copy(c->pod, names.pod, sizeof c->pod);
		if (!c->ns[0])
			str_copy(c->ns, names.ns, sizeof c->ns);
		return;
	}
}

/* One process; false when it is in no container we can name. */
static bool read_one(const struct gtm_process *p, struct prom_container *c)
{
	size_t len;
	struct cgroup_ids ids;
	memset(c, 0, sizeof *c);
	c->pid = p->pid;
	c->start_time = p->start_time;
	char *text = sysroot_slurp(CGROUP_MAX, &len, "/proc/%u/cgroup", p->pid);
	bool found = text && cgroup_ids_parse(text, len, &ids);
	free(text);
	if (!found)
		return true; /* kept, empty: not read again for this process */
	str_copy(c->container_id, ids.container_id, sizeof c->container_id);
	str_copy(c->pod_uid, ids.pod_uid, sizeof c->pod_uid);
	if (ids.pod_uid[0]) {
		read_name(c->pod, sizeof c->pod, "/proc/%u/root/etc/hostname", p->pid);
		read_name(c->ns, sizeof c->ns, "/proc/%u/root/var/run/secrets/kubernetes.io/serviceaccount/namespace", p->pid);
	}
	read_bundle(c);
	return true;
}

static int by_pid(const void *a, const void *b)
{
	const struct prom_container *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start_time < y->start_time ? -1 : x->start_time > y->start_time;
}

struct containers *containers_new(void)
{
	return xcalloc(1, sizeof(struct containers));
}

void containers_free(struct containers *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

const struct prom_container *containers_update(struct containers *c, const struct gtm_snapshot *s, int *n_out)
{
	int n = s->n_gpu_processes < s->n_processes ? s->n_gpu_processes : s->n_processes, k = 0;
	struct prom_container *v = xcalloc((size_t)(n > 0 ? n : 1), sizeof *v);
	for (int i = 0; i < n; i++) {
		const struct gtm_process *p = &s->processes[i];
		if (!p->pid || p->owner == GTM_OWNER_EXITED || p->windows_row)
			continue;
		struct prom_container key = {.pid = p->pid, .start_time = p->start_time};
		const struct prom_container *old = c->n ? bsearch(&key, c->v, (size_t)c->n, sizeof *c->v, by_pid) : NULL;
		if (old)
			v[k++] = *old;
		else if (read_one(p, &v[k]))
			k++;
	}
	qsort(v, (size_t)k, sizeof *v, by_pid);
	free(c->v);
	c->v = v;
	c->n = k;
	*n_out = k;
	return c->v;
}
