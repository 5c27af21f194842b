#!/bin/sh
# Issue 16's targets: under 500 B per snapshot for 2 GPUs and 40 processes at
# 1 s, and recording under 10 % of a refresh's CPU. 40 stand-ins are the
# processes the NVML test double lists; bench_record drives the refreshes.
# STANDIN=cuda (the default when the test suite built it) runs the CUDA
# stand-in, which maps a libcuda.so.1 as every real GPU process maps its
# runtime, so each row carries an identification with a runtime;
# STANDIN=sleep runs `sleep`, rows with nothing identified.
set -u
build=${1:-build}
t=$(mktemp -d)
pids=
standin=${STANDIN:-cuda}
cuda="$build/tests/fakes/cuda"
[ -x "$cuda/cuda_standin" ] || standin=sleep
mkfifo "$t/hold"
[ "$standin" = cuda ] || exec 3<>"$t/hold" # no reader: open both ends
for i in $(seq 40); do
	if [ "$standin" = cuda ]; then
		"$cuda/cuda_standin" "$cuda/libcuda.so.1" <"$t/hold" >/dev/null &
	else
		sleep 600 &
	fi
	pids="$pids $!"
done
[ "$standin" = sleep ] || exec 3>"$t/hold" # the CUDA stand-ins wait until their stdin closes
trap 'exec 3>&-; kill $pids 2>/dev/null; rm -rf "$t"' EXIT
sleep 0.5
echo "stand-ins: $standin"
GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$build/tests/fakes/nvml" \
	"$build/bench/record/bench_record" "$t/scenario" "$t/bench.rec" "${SAMPLES:-1800}" $pids
