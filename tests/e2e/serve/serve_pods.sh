#!/bin/sh
# Containers and Kubernetes pods on the per-process series, read from a
# replay tree (GPUTASKMAN_ROOT) as they are on a node, without the kubelet:
# a pod's process (containerd's systemd cgroup, its hostname, its
# service-account namespace, its OCI bundle's container name), a Docker
# container's, a CRI-O pod's whose root is unreadable (pod and namespace from
# the bundle alone), and a host process (no container labels). gputaskman
# serve on the NVML test double is scraped by a real Prometheus.
# Args: gputaskman fake-nvml-dir
bin=$(realpath "$1") fake=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
need prometheus "Debian package prometheus"
need promtool "Debian package prometheus"
t=$(mktemp -d /tmp/gtm-e2e-pods-XXXXXX)
cleanup() {
	for p in ${serve:-} ${prom:-}; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$t"
}
trap cleanup EXIT
r=$t/root
ID1=1111111111111111111111111111111111111111111111111111111111111111
ID2=2222222222222222222222222222222222222222222222222222222222222222
ID3=3333333333333333333333333333333333333333333333333333333333333333
UID1=0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b
UID3=99999999-8888-7777-6666-555555555555
# proc PID COMM CGROUP: a process of the tree
proc() {
	d=$r/proc/$1
	mkdir -p "$d/fd" "$d/root"
	printf '%s (%s) S 1 %s %s 0 -1 0 120 0 0 0 5 3 0 0 20 0 1 0 %s 8388608 100 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n' \
		"$1" "$2" "$1" "$1" "$1" >"$d/stat"
	printf 'Name:\t%s\nTgid:\t%s\nPid:\t%s\nPPid:\t1\nUid:\t0\t0\t0\t0\n' "$2" "$1" "$1" >"$d/status"
	printf '%s' "$2" >"$d/cmdline"
	printf '%s\n' "$3" >"$d/cgroup"
}
proc 1 init "0::/init.scope"
proc 4101 vllm "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(echo $UID1 | tr - _).slice/cri-containerd-$ID1.scope"
mkdir -p "$r/proc/4101/root/etc" "$r/proc/4101/root/var/run/secrets/kubernetes.io/serviceaccount"
echo vllm-0 >"$r/proc/4101/root/etc/hostname"
printf ml >"$r/proc/4101/root/var/run/secrets/kubernetes.io/serviceaccount/namespace"
mkdir -p "$r/run/containerd/io.containerd.runtime.v2.task/k8s.io/$ID1"
printf '{"ociVersion":"1.0.2","annotations":{"io.kubernetes.cri.container-name":"server","io.kubernetes.cri.sandbox-name":"vllm-0"}}' \
	>"$r/run/containerd/io.containerd.runtime.v2.task/k8s.io/$ID1/config.json"
proc 4102 python3 "0::/system.slice/docker-$ID2.scope"
proc 4103 trainer "0::/kubepods.slice/kubepods-pod$(echo $UID3 | tr - _).slice/crio-$ID3.scope"
rmdir "$r/proc/4103/root"
mkdir -p "$r/run/containers/storage/overlay-containers/$ID3/userdata"
printf '{"annotations":{"io.kubernetes.container.name":"train","io.kubernetes.pod.name":"trainer-7","io.kubernetes.pod.namespace":"research"}}' \
	>"$r/run/containers/storage/overlay-containers/$ID3/userdata/config.json"
proc 4104 Xorg "0::/system.slice/display-manager.service"
scenario 'device name="Fake GPU" uuid=GPU-pods bus=00000000:01:00.0 mem_total=8589934592 mem_used=1073741824
process dev=0 pid=4101 mem=104857600
process dev=0 pid=4102 mem=52428800
process dev=0 pid=4103 mem=31457280
process dev=0 pid=4104 mem=10485760'
export GPUTASKMAN_ROOT="$r"
start_serve -i 1 --no-probe
ok "serve on the tree listening on 127.0.0.1:$port"
start_prometheus "$port"
expect "Prometheus scrapes serve" 'up{job="gputaskman"}' 1
expect "a pod's process: container_id, pod, namespace, container" \
	"gputaskman_process_gpu_memory_bytes{pid=\"4101\",container_id=\"$ID1\",pod=\"vllm-0\",namespace=\"ml\",container=\"server\",pool=\"device\"}" 104857600
expect "a Docker container's process: container_id only" \
	"count(gputaskman_process_info{pid=\"4102\",container_id=\"$ID2\",pod=\"\",namespace=\"\",container=\"\"})" 1
expect "a CRI-O pod with an unreadable root: names from its bundle" \
	"count(gputaskman_process_info{pid=\"4103\",container_id=\"$ID3\",pod=\"trainer-7\",namespace=\"research\",container=\"train\"})" 1
expect "a host process: no container labels" "count(gputaskman_process_info{pid=\"4104\",container_id=\"\"})" 1
expect "VRAM by pod" 'sum by (namespace, pod) (gputaskman_process_gpu_memory_bytes{pod="vllm-0"})' 104857600
stop_serve
exit $fail
