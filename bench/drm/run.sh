#!/bin/sh
# DRM fdinfo scan: 400 processes x 20 fds (8,000 fds), 40 of them with two DRM
# fds each. Usage: sh bench/drm/run.sh BUILD_DIR (a release build).
set -u
build=${1:-build}
for i in 1 2 3; do
	"$build/bench/drm/bench_drm" 400 20 40 21 || exit 1
done
