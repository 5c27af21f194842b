/* The exporter's parsers of other programs' text: container and pod ids in
 * /proc/PID/cgroup for each runtime's cgroup naming, both cgroup drivers and
 * both cgroup versions; Kubernetes names in an OCI bundle; Accept-Encoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "serve/cgroup_ids.h"
#include "serve/http.h"
#include "serve/oci_annotations.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"
#define UID_ "0f1e2d3c_4b5a_6978_8a9b_0c1d2e3f4a5b"

static void expect(const char *text, const char *id, const char *runtime, const char *pod)
{
	struct cgroup_ids ids;
	bool found = cgroup_ids_parse(text, strlen(text), &ids);
	if (found != (id != NULL) || (id && (strcmp(ids.container_id, id) || strcmp(ids.runtime, runtime) ||
					     strcmp(ids.pod_uid, pod)))) {
		fprintf(stderr, "for %s: got %d id=%s runtime=%s pod=%s\n", text, found, ids.container_id, ids.runtime,
			ids.pod_uid);
		fail();
	}
}

static void test_cgroup_forms(void **state)
{
	(void)state;
	expect("0::/system.slice/docker-" ID ".scope\n", ID, "docker", "");
	expect("12:pids:/docker/" ID "\n11:memory:/docker/" ID "\n0::/\n", ID, "docker", "");
	expect("0::/system.slice/containerd-" ID ".scope", ID, "containerd", ""); /* no last newline */
	expect("0::/machine.slice/libpod-" ID ".scope/container\n", ID, "podman", "");
	expect("0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope\n", ID, "podman", "");
	expect("5:cpu:/libpod_parent/libpod-" ID "\n", ID, "podman", "");
	expect("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" ID
	       ".scope\n", ID, "containerd", UID);
	expect("0::/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope\n", ID, "cri-o", UID);
	expect("11:memory:/kubepods/besteffort/pod" UID "/" ID "\n", ID, "", UID);
	expect("0::/kubepods/pod" UID "/" ID "\n", ID, "", UID);
	/* not containers: the host, a session, CRI-O's monitor, a short or upper-case id */
	expect("0::/user.slice/user-1000.slice/session-2.scope\n", NULL, NULL, NULL);
	expect("0::/\n", NULL, NULL, NULL);
	expect("0::/kubepods.slice/kubepods-pod" UID_ ".slice/crio-conmon-" ID ".scope\n", NULL, NULL, NULL);
	expect("0::/docker/0123456789abcdef\n", NULL, NULL, NULL);
	expect("0::/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef\n", NULL, NULL, NULL);
	expect("garbage without colons /docker/" ID "\n", NULL, NULL, NULL);
	expect("", NULL, NULL, NULL);
	/* a NUL inside the text ends that line's path */
	const char nul[] = "0::/docker/0123\0" "456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n";
	struct cgroup_ids ids;
	assert_false(cgroup_ids_parse(nul, sizeof nul - 1, &ids));
	/* bounded: the length given is all that is read */
	const char *cut = "0::/docker/" ID "\n";
	assert_false(cgroup_ids_parse(cut, 20, &ids));
}

static void test_oci_names(void **state)
{
	(void)state;
	struct oci_names n;
	const char *containerd = "{\"annotations\":{\"io.kubernetes.cri.container-name\":\"vllm\","
				 "\"io.kubernetes.cri.sandbox-name\":\"vllm-0\",\"io.kubernetes.cri.sandbox-namespace\":\"ml\"}}";
	assert_true(oci_annotations_parse(containerd, strlen(containerd), &n));
	assert_string_equal(n.container, "vllm");
	assert_string_equal(n.pod, "vllm-0");
	assert_string_equal(n.ns, "ml");
	const char *crio = "{\"annotations\":{\"io.kubernetes.container.name\":\"server\",\"io.kubernetes.pod.name\":\"x\","
			   "\"io.kubernetes.pod.namespace\":\"Bad Name\"}}";
	assert_true(oci_annotations_parse(crio, strlen(crio), &n));
	assert_string_equal(n.container, "server");
	assert_string_equal(n.ns, ""); /* not a Kubernetes name: left out */
	assert_false(oci_annotations_parse("{\"annotations\":[]}", 18, &n));
	assert_false(oci_annotations_parse("not json", 8, &n));
	assert_true(k8s_name_ok("a.b-c", 5));
	assert_false(k8s_name_ok("-a", 2));
	assert_false(k8s_name_ok("a\"b", 3));
}

static void test_accept_encoding(void **state)
{
	(void)state;
	assert_true(http_accepts_gzip("gzip"));
	assert_true(http_accepts_gzip("deflate, GZIP;q=0.5"));
	assert_true(http_accepts_gzip("br;q=1.0, *;q=0.1"));
	assert_false(http_accepts_gzip("gzip;q=0"));
	assert_false(http_accepts_gzip("gzip; q=0.000, identity"));
	assert_false(http_accepts_gzip("identity"));
	assert_false(http_accepts_gzip("xgzip, gzipx"));
	assert_false(http_accepts_gzip(""));
	assert_false(http_accepts_gzip(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup_forms),
		cmocka_unit_test(test_oci_names),
		cmocka_unit_test(test_accept_encoding),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
