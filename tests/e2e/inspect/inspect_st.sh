#!/bin/sh
# `gputaskman inspect DIR|FILE|org/name` on safetensors models written by
# make_st_models ($2): vLLM's KV figures, the Hugging Face cache, partial
# files, bad flags, and the fit against the fake libnvidia-ml.so.1 in $3.
set -u
bin=$1
make_models=$2
fake_nvml=$3
fail=0
t=$(mktemp -d /tmp/gtm-inspect-st-XXXXXX)
trap 'rm -rf "$t"' EXIT
"$make_models" "$t" || { echo "FAIL make_st_models"; exit 1; }
mkdir -p "$t/nolib" "$t/root"
unset GTM_FAKE_NVML_SCENARIO HF_HUB_CACHE HF_HOME
export LD_LIBRARY_PATH="$t/nolib" GPUTASKMAN_ROOT="$t/root" HOME="$t/home"

check_rc() { if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi; }
expect() { if grep -qF -- "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: no '$2' in:"; cat "$3"; fail=1; fi; }
absent() { if grep -qF -- "$2" "$3"; then echo "FAIL $1: '$2' in:"; cat "$3"; fail=1; else echo "ok   $1"; fi; }
inspect() { out=$1; shift; "$bin" inspect "$@" >"$t/$out" 2>"$t/$out.err"; }

# Llama 3 8B's shape: 32 layers x 8 KV heads x (128 + 128) x 2 bytes = 128 KiB per token
inspect l "$t/llama" --max-model-len 4096; check_rc "llama dir" 0 $?
expect "llama weights from the index" "in 2 files (model.safetensors.index.json" "$t/l"
expect "llama params by dtype" "BF16 3.15 M (6.00 MiB), F32 2048 (0.01 MiB)" "$t/l"
expect "llama KV per token" "KV per token  128.00 KiB per GPU" "$t/l"
expect "llama KV at 4096" "KV at 4096    512.00 MiB per GPU" "$t/l"
expect "llama no GPU" "no GPU visible: fit not checked" "$t/l"
inspect ltp "$t/llama" -tp 2; expect "TP 2 halves the KV heads" "KV per token  64.00 KiB per GPU (estimated; 32 layers x 4 KV heads" "$t/ltp"
inspect l8 "$t/llama" --kv-cache-dtype=fp8; expect "fp8 KV" "KV per token  64.00 KiB" "$t/l8"
inspect lj "$t/llama/model-00002-of-00002.safetensors" --json; check_rc "one shard names the model" 0 $?
expect "json weights of both shards" '"weights_bytes": 6299648' "$t/lj"
expect "json KV per token" '"bytes_per_token": 131072' "$t/lj"
expect "json KV at max_position_embeddings" '"bytes_max_model_len": 1073741824' "$t/lj"
expect "json estimated" '"provenance": "estimated"' "$t/lj"
expect "json no GPU is null" '"gpu": null' "$t/lj"

# org/name in the Hugging Face cache, by HF_HUB_CACHE and by HF_HOME/hub
HF_HUB_CACHE="$t/hub" inspect m acme/mla-tiny --json; check_rc "org/name via HF_HUB_CACHE" 0 $?
expect "cache label" '"model": "acme/mla-tiny@main"' "$t/m"
# MLA: one latent of 512 + 64 per layer, never 128 heads x 2 x 128
expect "MLA KV per token" '"bytes_per_token": 70272' "$t/m"
expect "MLA quantization" '"method": "fp8"' "$t/m"
mkdir -p "$t/hfhome" && ln -s "$t/hub" "$t/hfhome/hub"
HF_HOME="$t/hfhome" inspect mt acme/mla-tiny -tp 8 --kv-cache-dtype fp8_ds_mla; check_rc "org/name via HF_HOME" 0 $?
expect "MLA replicated on every rank, fp8_ds_mla" "KV per token  39.08 KiB per GPU (estimated; 61 layers x one 576-wide latent" "$t/mt"
inspect none acme/mla-tiny; check_rc "org/name with no cache" 2 $?

# Gemma 3: 10 sliding layers bounded by 1024 - 1 + 2048 tokens (193 blocks of 16), 2 global (512 blocks)
inspect g "$t/gemma" --max-model-len 8192; check_rc "gemma" 0 $?
expect "gemma text_config" "text_config read" "$t/g"
expect "gemma sliding bound" "KV at 8192    46.16 MiB per GPU for one sequence (estimated, whole blocks; sliding layers bounded by the window + 2048 batched tokens; full-attention bound 96.00 MiB" "$t/g"
# Qwen3-Next: 6 linear-attention layers hold a constant state, 2 full layers cache per token
inspect n "$t/next"; expect "linear layers not costed as KV" "KV per token  4.00 KiB per GPU (estimated; 2 layers" "$t/n"
expect "linear layers named" "6 linear/Mamba layers: a constant state per sequence" "$t/n"
inspect p "$t/partial"; check_rc "partial file still inspected" 0 $?
expect "partial named incomplete" "incomplete    model.safetensors: 0.00 MiB of tensor data missing" "$t/p"

inspect bad1 "$t/llama" --kv-cache-dtype q4_0; check_rc "unknown kv dtype" 2 $?
expect "dtype error names vLLM's" "not one of vLLM's" "$t/bad1.err"
inspect bad2 "$t/llama" -tp 0; check_rc "tp 0" 2 $?
inspect bad3 "$t/llama" --ctx-size 4; check_rc "llama.cpp flag refused" 2 $?
inspect bad4 "$t/empty-nowhere.safetensors"; check_rc "missing file" 2 $?

# the fit against a fake GPU: 8 GiB fits the 1 GiB need, 1 GiB does not
fit() { # out, total bytes, args...
	out=$1; total=$2; shift 2
	printf 'device name="Fake GPU" uuid=GPU-1 bus=00000000:01:00.0 mem_total=%s mem_used=0\n' "$total" >"$t/scenario"
	GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake_nvml" "$bin" inspect "$@" >"$t/$out" 2>"$t/$out.err"
}
fit big 8589934592 "$t/llama"; expect "fits on 8 GiB" "fits          yes" "$t/big"
expect "budget at 0.90" "budget 7372.80 MiB at 0.90" "$t/big"
fit small 1073741824 "$t/llama"; expect "no fit on 1 GiB" "fits          no" "$t/small"
fit smallj 1073741824 "$t/llama" --max-model-len 1024 --json; expect "json fit" '"fits": true' "$t/smallj"
exit $fail
