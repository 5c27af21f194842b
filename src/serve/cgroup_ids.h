/* A process's container and Kubernetes pod from its /proc/PID/cgroup text
 * (cgroup v1 "ID:controllers:path" lines and v2 "0::path"), without asking
 * any runtime: the container id as Docker, containerd, CRI-O and Podman name
 * their cgroups, in the cgroupfs form (/docker/ID, /kubepods/burstable/podUID/ID,
 * /libpod_parent/libpod-ID) and the systemd one (docker-ID.scope,
 * cri-containerd-ID.scope, crio-ID.scope, libpod-ID.scope under slices such
 * as kubepods-burstable-podUID.slice). Pure, over a bounded buffer. */
#ifndef GTM_CGROUP_IDS_H
#define GTM_CGROUP_IDS_H

#include <stdbool.h>
#include <stddef.h>

struct cgroup_ids {
	char container_id[65]; /* 64 hex digits, lower case; "" when none */
	char runtime[16];      /* "docker", "containerd", "cri-o", "podman"; "" when the path does not say */
	char pod_uid[37];      /* the Kubernetes pod UID, 8-4-4-4-12 with dashes; "" outside a pod */
};

/* Fills ids from text[0, len) (NUL bytes or a missing last newline are
 * fine); returns whether a container id was found. The deepest match of all
 * lines wins (a v1 host's lines may each name it). */
bool cgroup_ids_parse(const char *text, size_t len, struct cgroup_ids *ids);

#endif
