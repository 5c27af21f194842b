/* Container and pod ids in cgroup paths (cgroup_ids.h). The forms, one table:
 * the runtimes' own cgroup naming (Docker's cgroup drivers, containerd's CRI
 * plugin, CRI-O, Podman) and the kubelet's pod cgroups (kubepods[/QOS]/podUID
 * with cgroupfs, kubepods[-QOS]-podUID.slice with systemd, where the UID's
 * dashes are underscores). */
#include "serve/cgroup_ids.h"

#include <string.h>

#include "core/util.h"

#define ID_LEN 64
#define UID_LEN 36

/* Component prefixes that name a container's scope, and the runtime. A
 * "crio-conmon-" scope is CRI-O's monitor, not the container. */
static const struct { const char *prefix, *runtime; } scopes[] = {
	{"docker-", "docker"},      {"cri-containerd-", "containerd"}, {"containerd-", "containerd"},
	{"crio-", "cri-o"},         {"libpod-", "podman"},             {"nerdctl-", "containerd"},
};

/* A parent component that says which runtime a bare ID belongs to. */
static const struct { const char *parent, *runtime; } parents[] = {
	{"docker", "docker"}, {"libpod_parent", "podman"}, {"machine.slice", "podman"},
};

static bool is_hex(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return true;
}

static bool starts(const char *p, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && !memcmp(p, prefix, k);
}

static bool ends(const char *p, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(p + n - k, suffix, k);
}

/* A 36-character UID with '-' or '_' at 8, 13, 18, 23 and hex elsewhere,
 * written with dashes into out. */
static bool take_uid(const char *p, size_t n, char out[UID_LEN + 1])
{
	if (n != UID_LEN)
		return false;
	for (size_t i = 0; i < UID_LEN; i++) {
		bool sep = i == 8 || i == 13 || i == 18 || i == 23;
		if (sep ? (p[i] != '-' && p[i] != '_') : !is_hex(p + i, 1))
			return false;
		out[i] = sep ? '-' : p[i];
	}
	out[UID_LEN] = '\0';
	return true;
}

/* "pod<UID>" (cgroupfs) or "kubepods[-qos]-pod<UID>.slice" (systemd). */
static bool pod_component(const char *p, size_t n, char out[UID_LEN + 1])
{
	if (ends(p, n, ".slice")) {
		n -= 6;
		if (!starts(p, n, "kubepods"))
			return false;
		for (size_t i = n; i > 0; i--)
			if (p[i - 1] == '-')
				return starts(p + i, n - i, "pod") && take_uid(p + i + 3, n - i - 3, out);
		return false;
	}
	return starts(p, n, "pod") && take_uid(p + 3, n - 3, out);
}

/* The container id of one component, its runtime from the prefix or the parent. */
static bool id_component(const char *p, size_t n, const char *parent, size_t parent_n, struct cgroup_ids *ids)
{
	const char *runtime = "";
	if (ends(p, n, ".scope"))
		n -= 6;
	for (size_t i = 0; i < ARRAY_LEN(scopes); i++)
		if (starts(p, n, scopes[i].prefix)) {
			if (starts(p, n, "crio-conmon-"))
				return false;
			size_t k = strlen(scopes[i].prefix);
			p += k;
			n -= k;
			runtime = scopes[i].runtime;
			break;
		}
	if (n != ID_LEN || !is_hex(p, n))
		return false;
	for (size_t i = 0; !runtime[0] && i < ARRAY_LEN(parents); i++)
		if (parent_n == strlen(parents[i].parent) && !memcmp(parent, parents[i].parent, parent_n))
			runtime = parents[i].runtime;
	memcpy(ids->container_id, p, ID_LEN);
	ids->container_id[ID_LEN] = '\0';
	str_copy(ids->runtime, runtime, sizeof ids->runtime);
	return true;
}

/* One path: its components in order; returns the depth of the id found (0: none). */
static int parse_path(const char *p, const char *end, struct cgroup_ids *ids)
{
	const char *parent = "";
	size_t parent_n = 0;
	int depth = 0, found = 0;
	struct cgroup_ids here;
	memset(&here, 0, sizeof here);
	while (p < end) {
		while (p < end && *p == '/')
			p++;
		const char *c = p;
		while (p < end && *p != '/')
			p++;
		size_t n = (size_t)(p - c);
		if (!n)
			break;
		depth++;
		char uid[UID_LEN + 1];
		if (pod_component(c, n, uid))
			memcpy(here.pod_uid, uid, sizeof uid);
		else if (id_component(c, n, parent, parent_n, &here))
			found = depth;
		parent = c;
		parent_n = n;
	}
	if (found)
		*ids = here; /* a bare id under a kubelet path leaves the runtime unnamed */
	return found;
}

bool cgroup_ids_parse(const char *text, size_t len, struct cgroup_ids *ids)
{
	const char *p = text, *end = text + len;
	int best = 0;
	memset(ids, 0, sizeof *ids);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		/* the path follows the second ':' */
		const char *c1 = memchr(p, ':', (size_t)(line_end - p));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(line_end - c1 - 1)) : NULL;
		if (c2) {
			const char *nul = memchr(c2 + 1, '\0', (size_t)(line_end - c2 - 1));
			struct cgroup_ids one;
			int d = parse_path(c2 + 1, nul ? nul : line_end, &one);
			if (d > best) {
				best = d;
				*ids = one;
			}
		}
		p = line_end + 1;
	}
	return best > 0;
}
