#!/bin/sh
# The KV cache in use that a vLLM / SGLang engine's /metrics reports, joined
# to each GPU worker by the real binary: stand-ins (`vllm serve DIR` and
# `sglang serve`, $3 and $4) serve /metrics answers shaped like the metric
# names of vLLM's and SGLang's documentation (no real vLLM or SGLang ran), an
# engine core under the vLLM API server starts two workers, one per GPU of the
# fake NVML ($5). `gputaskman inspect WORKER --json` gives that worker's KV in
# use; garbage and a server that never answers give N/A and a note, and
# inspect still returns. $1 gputaskman, $2 the plain stand-in.
set -u
bin=$1; worker=$2; vllm=$3; sglang=$4; fake=$5
fail=0
t=$(mktemp -d /tmp/gtm-pymetrics-XXXXXX)
# (the stand-ins are killed on the way out: those that said ready by their
# PIDs, the ones started in the background by theirs, even before ready)
bg=
trap 'for f in "$t"/*.ready; do [ -f "$f" ] && kill "$(cut -d" " -f1 "$f")" 2>/dev/null; done; for p in $bg; do kill $p 2>/dev/null; done; rm -rf "$t"' EXIT
mkdir -p "$t/model"
# 32 layers, 8 KV heads of 128, bfloat16: at -tp 2 a GPU caches 4 heads: 32 x 4 x 256 x 2 = 65536 B/token
cat >"$t/model/config.json" <<'EOF'
{"architectures":["LlamaForCausalLM"],"model_type":"llama","num_hidden_layers":32,"num_attention_heads":32,
 "num_key_value_heads":8,"head_dim":128,"hidden_size":4096,"max_position_embeddings":8192,"torch_dtype":"bfloat16"}
EOF
cat >"$t/vllm.prom" <<'EOF'
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="llama"} 3.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="llama"} 1.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="llama"} 0.25
# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",gpu_memory_utilization="0.9",num_cpu_blocks="0",num_gpu_blocks="1000"} 1.0
EOF
cat >"$t/sglang.prom" <<'EOF'
# HELP sglang:token_usage The token usage
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="llama"} 0.28
# HELP sglang:num_used_tokens The number of used tokens
# TYPE sglang:num_used_tokens gauge
sglang:num_used_tokens{model_name="llama"} 1000.0
# HELP sglang:num_running_reqs The number of running requests
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="llama"} 2.0
EOF
echo '<html>not metrics</html>' >"$t/garbage.prom"

wait_ready() { # file
	i=0; while [ ! -f "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done # 60 s at most
	[ -f "$1" ] || { echo "FAIL stand-in $1 not ready"; exit 1; }
}
pid_of() { cut -d" " -f1 "$1"; }

# vLLM: API server (listens) -> engine core -> Worker_TP0, Worker_TP1
"$vllm" serve "$t/model" --tensor-parallel-size 2 --comm VLLM::APIServer --log "$t/api.log" --ready "$t/api.ready" \
	--metrics "$t/vllm.prom" --children 1 -- \
	"$worker" --comm VLLM::EngineCore --log "$t/core.log" --ready "$t/core.ready" --children 2 -- \
	"$worker" --comm VLLM::Worker_TP@RANK@ --log "$t/workers.log" --ready "$t/w@RANK@.ready" \
	--line '(Worker_TP@RANK@ pid=@PID@) INFO [gpu_worker.py:359] Available KV cache memory: 52.25 GiB' &
bg="$bg $!"
wait_ready "$t/w0.ready"; wait_ready "$t/w1.ready"; wait_ready "$t/api.ready"
# SGLang: `sglang serve` listens, its scheduler on GPU 1 logs its pool
"$sglang" serve --model-path "$t/model" --tp-size 1 --log "$t/sg.log" --ready "$t/sg.ready" --metrics "$t/sglang.prom" \
	--children 1 -- "$worker" --comm sglang::schedul --log "$t/sgw.log" --ready "$t/sgw.ready" \
	--line '[2026-03-11 13:53:23 TP0] KV Cache is allocated. #tokens: 4000, K size: 0.12 GB, V size: 0.12 GB' &
bg="$bg $!"
wait_ready "$t/sgw.ready"
# a vLLM whose port answers garbage, and one that never answers
"$vllm" serve "$t/model" --log "$t/g.log" --ready "$t/g.ready" --metrics "$t/garbage.prom" --metrics-mode garbage \
	--children 1 -- "$worker" --comm VLLM::Worker_TP0 --log "$t/gw.log" --ready "$t/gw.ready" &
bg="$bg $!"
"$vllm" serve "$t/model" --log "$t/h.log" --ready "$t/h.ready" --metrics "$t/vllm.prom" --metrics-mode hang \
	--children 1 -- "$worker" --comm VLLM::Worker_TP0 --log "$t/hw.log" --ready "$t/hw.ready" &
bg="$bg $!"
wait_ready "$t/gw.ready"; wait_ready "$t/hw.ready"
w0=$(pid_of "$t/w0.ready"); w1=$(pid_of "$t/w1.ready"); api=$(pid_of "$t/api.ready")
sg=$(pid_of "$t/sg.ready"); sgw=$(pid_of "$t/sgw.ready"); gw=$(pid_of "$t/gw.ready"); hw=$(pid_of "$t/hw.ready")
cat >"$t/scenario" <<EOS
device name="GPU A" uuid=GPU-a bus=00000000:01:00.0 mem_total=85899345920 mem_used=68719476736
device name="GPU B" uuid=GPU-b bus=00000000:02:00.0 mem_total=85899345920 mem_used=68719476736
process dev=0 pid=$w0 mem=64424509440
process dev=1 pid=$w1 mem=64424509440
process dev=1 pid=$sgw mem=1073741824
process dev=0 pid=$gw mem=1073741824
process dev=0 pid=$hw mem=1073741824
EOS
run() { # out, pid, more args
	o=$1; p=$2; shift 2
	GPUTASKMAN_ROOT= LD_LIBRARY_PATH="$fake" GTM_FAKE_NVML_SCENARIO="$t/scenario" GTM_PROBE_TIMEOUT_MS=300 \
		"$bin" inspect "$p" "$@" >"$t/$o" 2>"$t/$o.err"
}
check() { # name, file, python expression over j (explain) and k (kv_cache_in_use)
	if python3 - "$2" "$3" <<'EOP'
import json, sys
j = (json.load(open(sys.argv[1])).get("explain") or {})
k = j.get("kv_cache_in_use") or {}
sys.exit(0 if eval(sys.argv[2]) else 1)
EOP
	then echo "ok   $1"; else echo "FAIL $1:"; cat "$2" "$2.err"; fail=1; fi
}
MiB=1048576
run w0 "$w0" --json
check "vLLM TP0: KV in use from the API server's /metrics" "$t/w0" "k.get('server_pid') == $api and k.get('provenance') == 'reported'"
check "vLLM TP0: 250 of 1000 blocks x 16 tokens x 65536 B" "$t/w0" "k.get('used_bytes') == 250 * $MiB and k.get('pool_bytes') == 1000 * $MiB and k.get('usage') == 0.25"
check "vLLM TP0: bytes per token from config.json, estimated" "$t/w0" "k.get('bytes_per_token') == 65536 and k.get('bytes_per_token_provenance') == 'estimated'"
check "vLLM TP0: requests from the API server" "$t/w0" "k.get('requests_running') == 3 and k.get('requests_waiting') == 1"
check "vLLM TP0: the log's pool stays the breakdown's KV segment" "$t/w0" "any(s['segment'] == 'kv_cache' and s['source'] == 'log' and s['bytes'] == 52.25 * 1024 * $MiB for s in j['breakdown'])"
check "vLLM: nothing of it in the breakdown" "$t/w0" "not any(s['source'] == 'api' for s in j['breakdown'])"
run w1 "$w1" --json
check "vLLM TP1: the same engine's answer" "$t/w1" "k.get('server_pid') == $api and k.get('used_bytes') == 250 * $MiB"
run w1txt "$w1"
if grep -q "KV cache in use: 250.00 MiB of 1000.00 MiB (25.0%), reported by vLLM /metrics :[0-9]* (pid $api); used blocks x bytes per block (config.json" "$t/w1txt"; then echo "ok   text line"; else echo "FAIL text line:"; cat "$t/w1txt"; fail=1; fi
run sgw "$sgw" --json
# the rank's own pool: (0.12 + 0.12) GiB / 4000 tokens per token
check "SGLang scheduler: used tokens x the rank's bytes per token" "$t/sgw" "k.get('server_pid') == $sg and k.get('used_tokens') == 1000 and k.get('used_bytes') == 1000 * k.get('bytes_per_token') and k.get('bytes_per_token') == [s['bytes'] for s in j['breakdown'] if s['segment'] == 'kv_cache'][0] // 4000 and k.get('bytes_per_token_provenance') == 'reported'"
run gw "$gw" --json
check "garbage /metrics: N/A and a note" "$t/gw" "not j.get('kv_cache_in_use') and any('KV in use N/A' in n for n in j['notes'])"
run hw "$hw" --json
check "silent /metrics: N/A and a note, inspect returns" "$t/hw" "not j.get('kv_cache_in_use') and any('timeout, KV in use N/A' in n for n in j['notes'])"
# the snapshot of every GPU process (one refresh, as --json takes): a GPU process whose parent is
# the API server is joined at once (the SGLang scheduler; the silent vLLM's worker gets its note);
# a worker two levels below it from the live view's next refresh, when the engine core's parent
# is read (not checked here), and by `inspect PID` at once (above)
GPUTASKMAN_ROOT= LD_LIBRARY_PATH="$fake" GTM_FAKE_NVML_SCENARIO="$t/scenario" GTM_PROBE_TIMEOUT_MS=300 "$bin" --json >"$t/all" 2>"$t/all.err"
if python3 - "$t/all" "$sgw" "$sg" "$hw" "$w0" <<'EOP'
import json, sys
f, sgw, sg, hw, w0 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rows = {p["pid"]: (p.get("explain") or {}) for p in json.load(open(f))["processes"]}
k = rows[sgw].get("kv_cache_in_use") or {}
ok = k.get("server_pid") == sg and k.get("used_tokens") == 1000
ok = ok and any("timeout, KV in use N/A" in n for n in rows[hw]["notes"])
# never a figure that is not its engine's
k0 = rows[w0].get("kv_cache_in_use")
ok = ok and (k0 is None or k0.get("used_bytes") == 250 * 1048576)
sys.exit(0 if ok else 1)
EOP
then echo "ok   --json: joined to the parent API server in one refresh"; else echo "FAIL --json:"; cat "$t/all" "$t/all.err"; fail=1; fi
run nop "$w0" --json --no-probe
check "--no-probe: no KV in use" "$t/nop" "not j.get('kv_cache_in_use')"
exit $fail
