/* The exporter's parsers of what other programs write: /proc/PID/cgroup
 * (cgroup_ids_parse), an OCI bundle's config.json (oci_annotations_parse),
 * and a scraper's Accept-Encoding (http_accepts_gzip, over a NUL-terminated
 * copy). Each must stay in its buffer and give well-formed ids. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/cgroup_ids.h"
#include "serve/http.h"
#include "serve/oci_annotations.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgroup_ids ids;
	struct oci_names names;
	char *copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	if (cgroup_ids_parse((const char *)data, size, &ids)) {
		if (strlen(ids.container_id) != 64)
			abort();
		if (ids.pod_uid[0] && strlen(ids.pod_uid) != 36)
			abort();
	}
	if (oci_annotations_parse((const char *)data, size, &names))
		if (!k8s_name_ok(names.container, strlen(names.container)) && !k8s_name_ok(names.pod, strlen(names.pod)) &&
		    !k8s_name_ok(names.ns, strlen(names.ns)))
			abort();
	(void)http_accepts_gzip(copy);
	free(copy);
	return 0;
}
