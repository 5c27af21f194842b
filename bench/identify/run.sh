#!/bin/sh
# Issue 3's target: inspect PID for a process holding a 150k-vocabulary model in < 20 ms.
set -u
build=${1:-build}
d="$build/tests/e2e/identify"
exec "$build/bench/identify/bench_identify" "$build/src/gputaskman" "$d/llama-server" "$d/libllama.so" "$d/libggml-cuda.so"
