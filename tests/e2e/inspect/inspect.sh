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
# for /sys and /proc (a file named on the command line is this machine's, read by its real path).
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
# a GPU whose memory the driver does not report: named, never "no GPU visible"
printf 'device name="Quiet GPU" uuid=GPU-2\n' >"$t/scenario"
GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake_nvml" "$bin" inspect "$q" >"$t/quiet" 2>&1
expect "fit: a GPU without a free-memory figure is named" "Quiet GPU: free memory N/A, fit not checked" "$t/quiet"

# Impossible head counts: the plan is N/A with the reason, never "no KV cache" and a 0 total;
# the file is readable, so the exit status stays 0.
inspect noheads "$t/no-heads.gguf"; check_rc "no head_count exits 0" 0 $?
expect "no head_count: plan N/A" "Plan          N/A (attention.head_count: missing" "$t/noheads"
grep -q "GPU total\|KV cache      none" "$t/noheads" && { echo "FAIL no head_count: a plan was printed"; cat "$t/noheads"; fail=1; }
inspect kvover "$t/kv-heads-over.gguf" -c 4096; check_rc "KV heads over exits 0" 0 $?
expect "KV heads over: plan N/A" "4294967295 KV heads exceed the 32 attention heads" "$t/kvover"
# --json of an unplanned file: null figures, and no leak (LeakSanitizer reports under the sanitizer build)
inspect kvoverj "$t/kv-heads-over.gguf" --json; check_rc "KV heads over --json exits 0" 0 $?
expect "unplanned json: null total" '"gpu_total_bytes": null' "$t/kvoverj"
expect "unplanned json: unavailable" '"provenance": "unavailable"' "$t/kvoverj"
inspect noheadsj "$t/no-heads.gguf" --json; check_rc "no head_count --json exits 0" 0 $?
inspect nolayersj "$t/no-layers.gguf" --json; check_rc "no block_count --json exits 0" 0 $?
expect "no block_count json: the reason" '"error": "block_count: missing' "$t/nolayersj"
if grep -q "LeakSanitizer\|ERROR: AddressSanitizer" "$t/noheadsj.err" "$t/kvoverj.err" "$t/nolayersj.err"; then
	echo "FAIL unplanned --json leaks:"; cat "$t/noheadsj.err" "$t/kvoverj.err" "$t/nolayersj.err"; fail=1
else echo "ok   unplanned --json: no sanitizer report"; fi
# defaulted flags: null (auto) with the defaults named, snapshot field names
expect "json -ngl auto is null" '"n_gpu_layers": null' "$t/qj"
expect "json -np auto is null" '"parallel": null' "$t/qj"
expect "json defaulted list" '"defaulted": [' "$t/qj"
expect "json defaults named" '"defaults_assumed": "-ngl (all layers offloaded)' "$t/qj"
expect "json snapshot name context_train" '"context_train": 40960' "$t/qj"
expect "json snapshot name heads_kv" '"heads_kv": 8' "$t/qj"
# -c: llama.cpp's int limit is planned as asked; above it is refused
inspect cmax "$q" -c 2147483647; check_rc "-c 2147483647" 0 $?
expect "-c 2147483647 planned, padded" "launch        -c 2147483648 " "$t/cmax"
# --help and --no-probe in MODEL mode
inspect help --help; check_rc "--help exits 0" 0 $?
expect "--help prints usage" "usage: gputaskman inspect MODEL.gguf" "$t/help"
inspect help2 "$q" -h; check_rc "-h with a model exits 0" 0 $?
expect "-h prints usage" "gputaskman inspect PID [--json] [--no-probe]" "$t/help2"
inspect noprobe "$q" -c 4096 --no-probe; check_rc "--no-probe accepted" 0 $?
expect "--no-probe plans" "KV cache      448.00 MiB" "$t/noprobe"

# A whole llama-server command line after --: the program name skipped, every memory flag
# planned, the rest accepted and listed as ignored. -c 8192 -np 4 without -kvu: 4 streams.
inspect line -- /opt/llama.cpp/bin/llama-server -m "$q" -c 8192 -np 4 --metrics --no-slots --host 0.0.0.0 \
	--port=8080 --alias tiny -t 8 --jinja --temp -0.5 -md "$t/draft.gguf"; check_rc "command line after --" 0 $?
expect "line: planned" "KV cache      896.00 MiB (estimated; 2048 cells x 4 streams" "$t/line"
expect "line: ignored listed" "ignored       --metrics, --no-slots, --host 0.0.0.0, --port 8080, --alias tiny, --jinja (does not change memory); -t 8, --temp -0.5 (not read by the plan); -md $t/draft.gguf (changes memory; not estimated)" "$t/line"
inspect linej --json -- llama-server --model="$q" --ctx-size 8192 --parallel=4 --kv-unified -t 8; check_rc "command line --json" 0 $?
expect "line json: unified" '"n_stream": 1' "$t/linej"
expect "line json: ignored flag" '"flag": "-t"' "$t/linej"
expect "line json: ignored value" '"value": "8"' "$t/linej"
expect "line json: ignored reason" '"reason": "not read by the plan"' "$t/linej"
# -kvu then --no-kv-unified: the last wins; with an automatic -np it has no effect (listed)
inspect nokvu "$q" -c 8192 -np 4 -kvu --no-kv-unified; expect "--no-kv-unified last wins" "2048 cells x 4 streams" "$t/nokvu"
inspect nokvua "$q" -c 8192 -no-kvu; expect "-no-kvu with auto -np: unified" "8192 cells x 1 stream" "$t/nokvua"
expect "-no-kvu with auto -np: said" "-no-kvu (no effect: with an automatic -np llama-server uses a unified cache)" "$t/nokvua"
# cache types in any case, --flag=value, a bare -fa before the model, -m without --
inspect upper "$q" -c 4096 -ctk Q8_0 --cache-type-v=Q8_0 --flash-attn=ON; expect "upper-case cache types" "KV cache      238.00 MiB" "$t/upper"
inspect barefa -fa "$q" -c 4096 -ctv q8_0 -ctk q8_0; check_rc "bare -fa before the model" 0 $?
expect "bare -fa is on" "-fa on" "$t/barefa"
inspect dashm -m "$q" -c 4096 --frobnicate; check_rc "-m without --" 0 $?
expect "-m without --: planned" "KV cache      448.00 MiB" "$t/dashm"
expect "unknown flag accepted, listed" "--frobnicate (not read by the plan)" "$t/dashm"
inspect jinja --jinja "$q" -c 4096; expect "a known switch before the model" "KV cache      448.00 MiB" "$t/jinja"
inspect unk --some-switch "$q" -c 4096; expect "an unknown flag never takes the .gguf" "KV cache      448.00 MiB" "$t/unk"

# A half-downloaded model: the header is whole, the tensor data ends past the end of the file.
# 636290080 bytes cut to 300000000: 336290080 missing. The plan is still there, marked.
cp --sparse=always "$q" "$t/partial.gguf" && truncate -s 300000000 "$t/partial.gguf"
inspect partial "$t/partial.gguf" -c 4096; check_rc "partial file exits 0" 0 $?
expect "partial: incomplete, bytes missing" "incomplete    yes: 320.71 MiB of tensor data missing (the header needs 606.81 MiB, the file has 286.10 MiB)" "$t/partial"
expect "partial: plan marked" "Plan (estimated from the header with llama.cpp's rules; from an INCOMPLETE file)" "$t/partial"
expect "partial: plan still shown" "KV cache      448.00 MiB (estimated" "$t/partial"
expect "partial: note" "planned from an incomplete file (320.71 MiB of tensor data missing)" "$t/partial"
inspect partialj "$t/partial.gguf" -c 4096 --json; check_rc "partial --json exits 0" 0 $?
expect "partial json: incomplete" '"incomplete": true' "$t/partialj"
expect "partial json: exact bytes missing" '"missing_bytes": 336290080' "$t/partialj"
expect "partial json: expected size" '"expected_size_bytes": 636290080' "$t/partialj"
expect "partial json: plan marked" '"from_incomplete_file": true' "$t/partialj"
expect "whole json: complete" '"missing_bytes": 0' "$t/qj"
expect "whole json: plan not marked" '"from_incomplete_file": false' "$t/qj"
grep -q "incomplete    " "$t/q4k" && { echo "FAIL a whole file is reported incomplete"; fail=1; }
# GGUF version 0 does not exist: said so, not mistaken for a byte-swapped file
printf 'GGUF\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >"$t/v0.gguf"

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
bad "v0 file" "GGUF version 0 is not a valid version (GGUF versions start at 1" "$t/v0.gguf"
bad "truncated file" "truncated" "$t/truncated.gguf"
bad "not GGUF" "not a GGUF file" "$t/not-a-model.gguf"
bad "model twice" "a model is given twice (as MODEL and as -m" "$q" -m "$t/other.gguf"
bad "command line without a model" "no model file or PID given" -- llama-server -c 4096 --metrics
bad "two models" "more than one model or PID given" "$q" "$g"
bad "bad value" "invalid value 'abc' for -c" "$q" -c abc
bad "no operand" "no model file or PID given"
bad "-c above llama.cpp's int" "-c 2147483648 is above llama.cpp's limit of 2147483647" "$q" -c 2147483648
exit $fail
