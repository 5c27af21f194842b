#!/bin/sh
# Issue 3's target: parse a ~6 MB header (150k-token vocabulary) in < 5 ms.
set -u
build=${1:-build}
exec "$build/bench/gguf/bench_gguf"
