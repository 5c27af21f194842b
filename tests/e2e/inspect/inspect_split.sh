#!/bin/sh
# `gputaskman inspect MODEL.gguf -ts/-sm/-mg` through the real binary ($1): the
# device plan on sizes typed with --gpus, and on two and three GPUs of the fake
# libnvidia-ml.so.1 in folder $3 (CUDA_VISIBLE_DEVICES reordering them), on
# header replicas written by make_models ($2).
set -u
bin=$1
make_models=$2
fake_nvml=$3
fail=0
t=$(mktemp -d /tmp/gtm-inspect-split-XXXXXX)
trap 'rm -rf "$t"' EXIT
"$make_models" "$t" || { echo "FAIL make_models"; exit 1; }
mkdir -p "$t/nolib" "$t/root"
unset GTM_FAKE_NVML_SCENARIO CUDA_VISIBLE_DEVICES
export LD_LIBRARY_PATH="$t/nolib" GPUTASKMAN_ROOT="$t/root"

check_rc() { # name, expected, actual
	if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; cat "$t/$4.err" 2>/dev/null; fail=1; else echo "ok   $1"; fi
}
expect() { # name, fixed string, file
	if grep -qF -- "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: no '$2' in:"; cat "$3"; fail=1; fi
}
absent() { # name, fixed string, file
	if grep -qF -- "$2" "$3"; then echo "FAIL $1: '$2' in:"; cat "$3"; fail=1; else echo "ok   $1"; fi
}
inspect() { # out-file, args...
	out=$1; shift
	"$bin" inspect "$@" >"$t/$out" 2>"$t/$out.err"
}

q=$t/Qwen3-0.6B-Q8_0.gguf
# Qwen3-0.6B, 28 layers + output, -ts 3,1: layers 0-21 on the first device,
# 22-27 and the output on the second (22 x 16,720,896 B = 350.82 MiB; 6 layers
# + output_norm + the tied token_embd copy = 253.33 MiB; KV 16 MiB a layer).
inspect ts "$q" -c 4096 -ngl 99 -ts 3,1 -sm layer --gpus 24GiB,8GiB; check_rc "--gpus 24GiB,8GiB" 0 $? ts
expect "plan heading" "-sm layer, layers split by -ts; device sizes from --gpus" "$t/ts"
expect "input layer on the host" "input layer   host" "$t/ts"
expect "device 0 layers" "dev 0 (--gpus): layers 0-21 (22, 75.0%); weights 350.82 MiB, KV 352.00 MiB" "$t/ts"
expect "device 1 layers + output" "dev 1 (--gpus): layers 22-27 (6, 25.0%) + output; weights 253.33 MiB, KV 96.00 MiB" "$t/ts"
expect "device 0 free" "of 24576.00 MiB free: fits" "$t/ts"
expect "verdict" "verdict       fits on every device" "$t/ts"
expect "compute labelled" "(heuristic)" "$t/ts"
expect "no live GPU asked" "devices given by --gpus" "$t/ts"
absent "-ts no longer ignored" "-ts 3,1 (changes memory" "$t/ts"
inspect tsj "$q" -c 4096 -ts 3,1 --gpus=24GiB,8GiB --json; check_rc "--gpus json" 0 $? tsj
expect "json provenance" '"provenance": "estimated"' "$t/tsj"
expect "json sizes from" '"sizes_from": "--gpus"' "$t/tsj"
expect "json device 1 weights" '"weights_bytes": 265635840' "$t/tsj"
expect "json device 0 layers" '"count": 22' "$t/tsj"
expect "json flags split" '"split_mode": "layer"' "$t/tsj"
expect "json compute provenance" '"compute_provenance": "estimated (heuristic)"' "$t/tsj"
# does not fit: 1 GiB for the second device
inspect small "$q" -c 4096 -ts 3,1 --gpus 24GiB,1GiB; check_rc "small device" 0 $? small
expect "small: verdict" "verdict       DOES NOT FIT" "$t/small"
expect "small: which one" "DOES NOT FIT (short by" "$t/small"
# -sm none -mg 1: everything on device 1, device 0 only its context
inspect none "$q" -c 4096 -sm none -mg 1 --gpus 8GiB,8GiB; check_rc "-sm none -mg 1" 0 $? none
expect "none: device 0 unused" "dev 0 (--gpus): not used (-sm none)" "$t/none"
expect "none: device 1 all" "dev 1 (--gpus): layers 0-27 (28, 100.0%) + output; weights 604.15 MiB, KV 448.00 MiB" "$t/none"
inspect nonebad "$q" -c 4096 -sm none -mg 2 --gpus 8GiB,8GiB
expect "none: -mg out of range refused" "llama.cpp refuses -sm none -mg 2" "$t/nonebad"
inspect refq "$q" -c 4096 -ctv q8_0 -fa off -ts 1,1 --gpus 8GiB,8GiB
expect "refused flags: verdict says so" "verdict       llama.cpp refuses this configuration" "$t/refq"
# -sm row: same layers, matrices split 3:1, its approximation said
inspect row "$q" -c 4096 -sm row -ts 3,1 --gpus 24GiB,8GiB; check_rc "-sm row" 0 $? row
expect "row: heading" "-sm row, layers split by -ts, rows by -ts" "$t/row"
expect "row: note" "-sm row approximated" "$t/row"
# bad --gpus / -ts / -sm: a clear error, exit 2
inspect bad1 "$q" --gpus 24,8GiB; check_rc "--gpus without unit" 2 $? bad1
expect "--gpus: says the unit is missing" "'24' has no unit" "$t/bad1.err"
inspect bad2 "$q" --gpus; check_rc "--gpus without value" 2 $? bad2
expect "--gpus: needs a value" "--gpus needs a value" "$t/bad2.err"
inspect bad3 "$q" -ts 3,x --gpus 8GiB; check_rc "-ts 3,x" 2 $? bad3
expect "-ts: invalid" "invalid value '3,x' for -ts" "$t/bad3.err"
inspect bad4 "$q" -sm rows --gpus 8GiB; check_rc "-sm rows" 2 $? bad4
# no device plan without several devices or split flags
inspect plain "$q" -c 4096; absent "no plan by default" "Devices (" "$t/plain"

# The fake NVML with two GPUs: free 24 GiB (bus 01) and 8 GiB (bus 02): no
# -ts, so the split follows free memory (3:1, as -ts 3,1 above).
printf '%s\n' \
	'device name="Fake A" uuid=GPU-aaaa bus=00000000:01:00.0 mem_total=25769803776 mem_used=0' \
	'device name="Fake B" uuid=GPU-bbbb bus=00000000:02:00.0 mem_total=8589934592 mem_used=0' >"$t/two"
live() { # out-file, scenario, args...
	out=$1; sc=$2; shift 2
	GTM_FAKE_NVML_SCENARIO="$sc" LD_LIBRARY_PATH="$fake_nvml" "$bin" inspect "$@" >"$t/$out" 2>"$t/$out.err"
}
live nv2 "$t/two" "$q" -c 4096; check_rc "two fake GPUs" 0 $? nv2
expect "nv2: measured" "layers split by free memory; device sizes measured free memory" "$t/nv2"
expect "nv2: GPU A first" "Fake A: layers 0-21 (22, 75.0%)" "$t/nv2"
expect "nv2: GPU B second" "Fake B: layers 22-27 (6, 25.0%) + output" "$t/nv2"
expect "nv2: free measured" "of 24576.00 MiB free: fits" "$t/nv2"
expect "nv2: one fit check, per device" "GPU           checked per device: see Devices" "$t/nv2"
absent "nv2: no whole-model fit on GPU 0" "fits          " "$t/nv2"
# CUDA_VISIBLE_DEVICES=1,0: CUDA's device 0 is Fake B, which now gets 25%:
# il/29 < 0.25 for il <= 7 (7/29 = 0.241, 8/29 = 0.276)
CUDA_VISIBLE_DEVICES=1,0 live nv2r "$t/two" "$q" -c 4096; check_rc "shuffled CUDA_VISIBLE_DEVICES" 0 $? nv2r
expect "nv2r: B first" "dev 0 GPU 1 Fake B: layers 0-7 (8, 25.0%)" "$t/nv2r"
expect "nv2r: A second" "dev 1 GPU 0 Fake A: layers 8-27 (20, 75.0%) + output" "$t/nv2r"
CUDA_VISIBLE_DEVICES=GPU-bbbb live nv2o "$t/two" "$q" -c 4096 -ts 1; check_rc "one visible by UUID" 0 $? nv2o
expect "nv2o: only B" "dev 0 GPU 1 Fake B: layers 0-27 (28, 100.0%) + output" "$t/nv2o"
absent "nv2o: A hidden" "dev 1 " "$t/nv2o"
# three fake GPUs, -ts 1,1,0: the third gets no layer, only its context
printf '%s\n' \
	'device name="Fake A" uuid=GPU-aaaa bus=00000000:01:00.0 mem_total=8589934592 mem_used=0' \
	'device name="Fake B" uuid=GPU-bbbb bus=00000000:02:00.0 mem_total=8589934592 mem_used=0' \
	'device name="Fake C" uuid=GPU-cccc bus=00000000:03:00.0 mem_total=8589934592 mem_used=4294967296' >"$t/three"
live nv3 "$t/three" "$q" -c 4096 -ts 1,1,0 --json; check_rc "three fake GPUs" 0 $? nv3
expect "nv3: measured" '"sizes_from": "measured"' "$t/nv3"
expect "nv3: C free" '"free_bytes": 4294967296' "$t/nv3"
expect "nv3: C only context" '"need_bytes": 268435456' "$t/nv3"
expect "nv3: split by -ts" '"layers_split_by": "tensor_split"' "$t/nv3"
exit $fail
