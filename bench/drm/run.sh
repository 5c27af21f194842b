#!/bin/sh
# DRM fdinfo scan: 400 processes x 20 fds (8,000 fds), 40 of them with two DRM
# fds each, three runs of 21 each way, each beside its floor:
# - replay: a generated tree read through GPUTASKMAN_ROOT (BENCH_TMP picks its
#   filesystem; /tmp by default), confined to the tree as every replay is;
# - live: the path the live view takes on a real procfs, 400 stopped stand-in
#   processes in their own PID and mount namespace (unshare: root, or user
#   namespaces); skipped, and said so, where neither is allowed.
# Usage: sh bench/drm/run.sh BUILD_DIR (a release build).
set -u
build=${1:-build}
bench="$build/bench/drm/bench_drm"
for i in 1 2 3; do
	"$bench" 400 20 40 21 || exit 1
done
for ns in "-mpf" "-rmpf"; do
	if unshare $ns --mount-proc true 2>/dev/null; then
		for i in 1 2 3; do
			unshare $ns --mount-proc "$bench" --live 400 20 40 21 || exit 1
		done
		exit 0
	fi
done
echo "live procfs runs skipped: unshare of a PID and mount namespace is not allowed here"
