#!/bin/sh
# Issue 11: gputaskman beside `ps -e -o pid,comm,rss` and nvtop, same processes,
# same run (bench/compare/compare.py). NVTOP=/path/to/nvtop adds nvtop; without
# it nvtop is skipped. Usage: sh bench/compare/run.sh BUILD_DIR [once|live|all]
set -u
build=${1:-build}
exec python3 "$(dirname "$0")/compare.py" "$build" "${2:-all}"
