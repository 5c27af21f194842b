/* Kubernetes names in an OCI bundle's annotations (oci_annotations.h). */
#include "serve/oci_annotations.h"

#include <jansson.h>
#include <string.h>

#include "core/util.h"

bool k8s_name_ok(const char *s, size_t n)
{
	if (n == 0 || n > 63)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
		if (!alnum && ((c != '-' && c != '.') || i == 0 || i == n - 1))
			return false;
	}
	return true;
}

/* Each field's annotation keys, containerd's first. */
static const struct { size_t off; const char *keys[2]; } fields[] = {
	{offsetof(struct oci_names, container), {"io.kubernetes.cri.container-name", "io.kubernetes.container.name"}},
	{offsetof(struct oci_names, pod), {"io.kubernetes.cri.sandbox-name", "io.kubernetes.pod.name"}},
	{offsetof(struct oci_names, ns), {"io.kubernetes.cri.sandbox-namespace", "io.kubernetes.pod.namespace"}},
};

bool oci_annotations_parse(const char *text, size_t len, struct oci_names *names)
{
	bool any = false;
	memset(names, 0, sizeof *names);
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	json_t *ann = json_is_object(root) ? json_object_get(root, "annotations") : NULL;
	for (size_t f = 0; json_is_object(ann) && f < ARRAY_LEN(fields); f++)
		for (size_t k = 0; k < 2; k++) {
			json_t *v = json_object_get(ann, fields[f].keys[k]);
			const char *s = json_string_value(v);
			if (s && k8s_name_ok(s, json_string_length(v))) {
				str_copy((char *)names + fields[f].off, s, sizeof names->container);
				any = true;
				break;
			}
		}
	json_decref(root);
	return any;
}
