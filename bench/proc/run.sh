#!/bin/sh
# The /proc scan alone: 500 idle children, steady and cold scans against ps.
# Usage: sh bench/proc/run.sh BUILD_DIR (a release build). Prints one line per run.
set -u
build=${1:-build}
for i in 1 2 3 4 5; do
	"$build/bench/proc/bench_proc" 500 50 || exit 1
done
