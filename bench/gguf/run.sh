#!/bin/sh
# The GGUF header parse benchmark: a ~6 MB header (150k-token vocabulary),
# side by side with one pread of the same bytes (docs/benchmarks.md).
set -u
build=${1:-build}
exec "$build/bench/gguf/bench_gguf"
