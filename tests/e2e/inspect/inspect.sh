#!/bin/sh
# `gputaskman inspect MODEL.gguf`: the accuracy figures of issue 3 through the
# real binary ($1) on header replicas written by make_models ($2), bad input,
# and the fit check against the fake libnvidia-ml.so.1 in folder $3.
set -u
bin=$1
make_models=$2
fake_nvml=$3
fail=0
t=$(mktemp -d /tmp/gtm-inspect-XXXXXX)
trap 'rm -rf "$t"' EXIT
"$make_models" "$t" || { echo "FAIL make_models"; exit 1; }
# No GPU of this machine is seen: no NVML on the library path, an empty root
# for /sys and /proc (the model files themselves are read by their real paths).
mkdir -p "$t/nolib" "$t/root"
unset GTM_FAKE_NVML_SCENARIO
export LD_LIBRARY_PATH="$t/nolib" GPUTASKMAN_ROOT="$t/root"

check_rc() { # name, expected, actual
	if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
expect() { # name, fixed string, file
	if grep -qF -- "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: no '$2' in:"; cat "$3"; fail=1; fi
}
inspect() { # out-file, args...
	out=$1; shift
	"$bin" inspect "$@" >"$t/$out" 2>"$t/$out.err"
}

q=$t/Qwen3-0.6B-Q8_0.gguf
g=$t/gemma-3-270m-Q8_0.gguf
inspect q4k "$q" -c 4096; check_rc "qwen3 -c 4096" 0 $?
expect "qwen3 GPU weights" "weights GPU   604.15 MiB (estimated" "$t/q4k"
expect "qwen3 host weights" "weights host  157.65 MiB" "$t/q4k"
expect "qwen3 KV per token" "KV per token  112.00 KiB (estimated" "$t/q4k"
expect "qwen3 KV at 4096" "KV cache      448.00 MiB (estimated" "$t/q4k"
expect "qwen3 defaults named" "-ngl (all layers offloaded)" "$t/q4k"
expect "qwen3 no GPU" "no GPU visible: fit not checked" "$t/q4k"
expect "qwen3 kind" "kind          LLM" "$t/q4k"
inspect q8k "$q" -c 8192; expect "qwen3 KV at 8192" "KV cache      896.00 MiB" "$t/q8k"
inspect qj "$q" --ctx-size=8192 --json; check_rc "qwen3 --json" 0 $?
expect "json exact GPU weights" '"weights_gpu_bytes": 633495552' "$t/qj"
expect "json exact KV" '"bytes": 939524096' "$t/qj"
expect "json provenance" '"provenance": "estimated"' "$t/qj"
expect "json no GPU is null" '"gpu": null' "$t/qj"
inspect qp "$q" -c 4096 -ngl 10; expect "partial offload" "offload       10/29 layers" "$t/qp"
inspect qq "$q" -c 4096 -ctk q8_0 -ctv q8_0 -fa on; expect "quantized KV" "KV cache      238.00 MiB" "$t/qq"
inspect qr "$q" -c 4096 -ctv q8_0 -fa off; expect "quantized V needs FA" "requires flash_attn" "$t/qr"

inspect g4k "$g" -c 4096; check_rc "gemma -c 4096" 0 $?
expect "gemma GPU weights" "weights GPU   271.81 MiB" "$t/g4k"
expect "gemma SWA default" "KV cache      49.50 MiB" "$t/g4k"
expect "gemma full-attention bound" "full-attention bound 72.00 MiB" "$t/g4k"
inspect g1 "$g" -c 4096 -np 1; expect "gemma -np 1" "KV cache      27.00 MiB" "$t/g1"
inspect gf "$g" -c 4096 --swa-full; expect "gemma --swa-full" "KV cache      72.00 MiB" "$t/gf"

inspect moe "$t/Qwen3-30B-A3B-Q8_0.gguf" -c 4096 --cpu-moe; check_rc "moe --cpu-moe" 0 $?
expect "moe overrides" "overrides     144 tensors" "$t/moe"

inspect hint "$t/openjev-7b-Q8_0.gguf" -c 4096 --json
expect "hint kept apart" '"kind": "llm"' "$t/hint"
expect "hint text" '"kind_hint": "likely decision model (openjev)"' "$t/hint"

# The fit against a fake GPU: free = total - used.
fake_gpu() { # out-file, free MiB, args...
	out=$1; free=$(($2 * 1048576)); shift 2
	printf 'device name="Fake GPU" uuid=GPU-1 bus=00000000:01:00.0 mem_total=%s mem_used=0\n' "$free" >"$t/scenario"
	GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake_nvml" "$bin" inspect "$@" >"$t/$out" 2>"$t/$out.err"
}
fake_gpu fit8g 8192 "$q" -c 4096; check_rc "fit on 8 GiB" 0 $?
expect "fit: GPU named" "Fake GPU: 8192.00 MiB free" "$t/fit8g"
expect "fit: fits" "fits          yes" "$t/fit8g"
expect "fit: largest -c is the trained context" "largest -c    40960" "$t/fit8g"
# (1024 MiB - 604.15 MiB) / 112 KiB per token = 3838 tokens: 3840 is 15 x 256 and too many by 2
fake_gpu fit1g 1024 "$q" -c 4096
expect "fit 1 GiB: does not fit at 4096" "fits          no" "$t/fit1g"
expect "fit 1 GiB: largest -c" "largest -c    3584" "$t/fit1g"
fake_gpu fitj 1024 "$q" -c 2048 --json
expect "fit json" '"fits": true' "$t/fitj"
expect "fit json max_ctx" '"max_ctx": 3584' "$t/fitj"
fake_gpu fit500 500 "$q"
expect "fit 500 MiB: none" "largest -c    none fits" "$t/fit500"

bad() { # name, expected stderr fragment, args...
	name=$1; want=$2; shift 2
	"$bin" inspect "$@" >"$t/bad" 2>"$t/bad.err"; rc=$?
	check_rc "$name exits 2" 2 $rc
	expect "$name message" "$want" "$t/bad.err"
	[ "$(wc -l <"$t/bad.err")" -eq 1 ] && echo "ok   $name: one line" || { echo "FAIL $name: not one line"; fail=1; }
	[ -s "$t/bad" ] && { echo "FAIL $name: wrote to stdout"; fail=1; }
}
bad "missing file" "cannot stat" "$t/absent.gguf"
bad "v1 file" "unsupported GGUF version 1" "$t/v1.gguf"
bad "truncated file" "truncated" "$t/truncated.gguf"
bad "not GGUF" "not a GGUF file" "$t/not-a-model.gguf"
bad "unknown option" "unknown option --frobnicate" "$q" --frobnicate
bad "bad value" "invalid value 'abc' for -c" "$q" -c abc
bad "no operand" "no model file or PID given"
exit $fail
