#!/bin/sh
# `gputaskman inspect MODEL.gguf`: the accuracy figures of issue 3 through the
# real binary ($1) on header replicas written by make_models ($2), and bad input.
set -u
bin=$1
make_models=$2
fail=0
t=$(mktemp -d /tmp/gtm-inspect-XXXXXX)
trap 'rm -rf "$t"' EXIT
"$make_models" "$t" || { echo "FAIL make_models"; exit 1; }

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
