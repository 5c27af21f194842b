/* A container's Kubernetes names from its OCI bundle's config.json, which
 * the runtime writes on the host (containerd's CRI plugin:
 * io.kubernetes.cri.container-name, sandbox-name, sandbox-namespace; CRI-O:
 * io.kubernetes.container.name, io.kubernetes.pod.name, .namespace). Pure,
 * over a bounded buffer. */
#ifndef GTM_OCI_ANNOTATIONS_H
#define GTM_OCI_ANNOTATIONS_H

#include <stdbool.h>
#include <stddef.h>

struct oci_names {
	char container[64], pod[64], ns[64]; /* "" where the bundle does not say, or says something invalid */
};

/* Fills names from the JSON text[0, len); returns whether any was found. */
bool oci_annotations_parse(const char *text, size_t len, struct oci_names *names);
/* Whether s is a Kubernetes object name (DNS-1123: a-z, 0-9, '-', '.', at
 * most 63 here, starting and ending alphanumeric): what a label may carry. */
bool k8s_name_ok(const char *s, size_t n);

#endif
