#!/bin/sh
# --trace-opens' cost (root): gputaskman's own CPU while a workload opens
# 10,000 unrelated files a second on a traced mount, beside the same tracing
# with no opens, median of several runs (target: < 1 ms of CPU a second).
set -u
build=${1:-build}
exec python3 "$(dirname "$0")/measure.py" "$build"
