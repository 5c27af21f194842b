#!/bin/sh
# Issue 2's targets, with 2 GPUs and 500 processes on the NVML test double:
# steady refresh < 2 ms CPU, `--once --json` < 30 ms wall, peak RSS < 16 MiB,
# and `ps -e -o pid,comm,rss` over the same processes in the same run.
set -u
build=${1:-build}
exec python3 "$(dirname "$0")/measure.py" "$build"
