#!/bin/sh
# Issue 16's targets: under 500 B per snapshot for 2 GPUs and 40 processes at
# 1 s, and recording under 10 % of a refresh's CPU. 40 `sleep` stand-ins are
# the processes the NVML test double lists; bench_record drives the refreshes.
set -u
build=${1:-build}
t=$(mktemp -d)
pids=
for i in $(seq 40); do sleep 600 & pids="$pids $!"; done
trap 'kill $pids 2>/dev/null; rm -rf "$t"' EXIT
sleep 0.2
GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$build/tests/fakes/nvml" \
	"$build/bench/record/bench_record" "$t/scenario" "$t/bench.rec" "${SAMPLES:-1800}" $pids
