#!/bin/sh
# vLLM and SGLang on two GPUs of the fake NVML, a worker process per GPU
# (stand-ins, $2) writing startup lines of the quoted shapes into one
# redirected log: `gputaskman inspect PID --json` gives each worker its own
# breakdown (weights, KV pool, activation + graphs from its own lines; the
# measured remainder after them). $1 gputaskman, $3 the fake NVML folder.
set -u
bin=$1; worker=$2; fake=$3
fail=0
t=$(mktemp -d /tmp/gtm-pyserve-XXXXXX)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$t"' EXIT
mkdir -p "$t/root"

start() { # ready-name, args...
	r=$1; shift
	"$worker" --ready "$t/$r" "$@" &
	pids="$pids $!"
	i=0; while [ ! -f "$t/$r" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done # 60 s at most
	last=$!
}
start v0 --comm VLLM::Worker_TP0 --log "$t/vllm.log" \
	--line '(Worker_TP0 pid=@PID@) INFO 12-11 00:06:50 [default_loader.py:267] Model loading took 7.50 GiB memory and 3.2 seconds' \
	--line '(Worker_TP0 pid=@PID@) INFO 12-11 00:06:53 [gpu_worker.py:359] Available KV cache memory: 52.25 GiB'
v0=$last
start v1 --comm VLLM::Worker_TP1 --log "$t/vllm.log" \
	--line '(Worker_TP1 pid=@PID@) INFO 12-11 00:06:50 [default_loader.py:267] Model loading took 7.25 GiB memory and 3.3 seconds' \
	--line '(Worker_TP1 pid=@PID@) INFO [gpu_worker.py:789] Free memory on device (79.0/80.0 GiB) on startup. Actual usage is 7.25 GiB for weight, 1.5 GiB for peak activation, 0.25 GiB for non-torch memory, and 0.5 GiB for CUDAGraph memory. Current kv cache memory in use is 50.0 GiB.' \
	--line '(EngineCore_DP0 pid=1) INFO 12-11 00:06:53 [kv_cache_utils.py:1286] GPU KV cache size: 686,320 tokens' \
	--line '(APIServer pid=1) INFO 03-09 02:05:27 [v1/metrics/loggers.py:259] Engine 000: Avg prompt throughput: 2356.1 tokens/s, Avg generation throughput: 11.5 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: 45.7%, Prefix cache hit rate: 0.0%'
v1=$last
start s1 --comm sglang::schedul --log "$t/sglang.log" \
	--line '[2026-03-11 13:53:21 TP0] Load weight end. elapsed=23.18 s, type=Glm4MoeLiteForCausalLM, avail mem=32.02 GB, mem usage=28.75 GB.' \
	--line '[2026-03-11 13:53:23 TP0] KV Cache is allocated. #tokens: 383872, KV size: 19.25 GB' \
	--line '[2026-03-11 13:53:32 TP0] Capture cuda graph end. Time elapsed: 8.04 s. mem usage=0.75 GB. avail mem=10.30 GB.'
s1=$last
cat >"$t/scenario" <<EOS
device name="GPU A" uuid=GPU-a bus=00000000:01:00.0 mem_total=85899345920 mem_used=68719476736
device name="GPU B" uuid=GPU-b bus=00000000:02:00.0 mem_total=85899345920 mem_used=68719476736
process dev=0 pid=$v0 mem=64424509440
process dev=1 pid=$v1 mem=64424509440
process dev=1 pid=$s1 mem=53687091200
EOS
run() { # out, pid
	GPUTASKMAN_ROOT= LD_LIBRARY_PATH="$fake" GTM_FAKE_NVML_SCENARIO="$t/scenario" "$bin" inspect "$2" --json --no-probe >"$t/$1" 2>"$t/$1.err"
}
# segment, gpu, bytes (exact) in the breakdown of a JSON file
has() { # name, file, segment, source, gpu, bytes
	if python3 - "$2" "$3" "$4" "$5" "$6" <<'EOP'
import json, sys
f, seg, src, gpu, b = sys.argv[1:]
j = json.load(open(f))
segs = (j.get("explain") or {}).get("breakdown") or []
ok = any(s["segment"] == seg and s["source"] == src and str(s["gpu"]) == gpu and str(s["bytes"]) == b for s in segs)
sys.exit(0 if ok else 1)
EOP
	then echo "ok   $1"; else echo "FAIL $1:"; cat "$2" "$2.err"; fail=1; fi
}
GiB=1073741824
run w0 "$v0"
has "vLLM TP0 weights on GPU 0" "$t/w0" weights log 0 $((GiB * 15 / 2))
has "vLLM TP0 KV on GPU 0" "$t/w0" kv_cache log 0 $((GiB * 209 / 4))
has "vLLM TP0 remainder" "$t/w0" overhead remainder 0 $((GiB * 60 - GiB * 15 / 2 - GiB * 209 / 4))
run w1 "$v1"
has "vLLM TP1 weights from the split" "$t/w1" weights log 1 $((GiB * 29 / 4))
has "vLLM TP1 KV in use" "$t/w1" kv_cache log 1 $((GiB * 50))
has "vLLM TP1 activation + graphs + non-torch" "$t/w1" compute log 1 $((GiB * 9 / 4))
if grep -q '686320 tokens' "$t/w1"; then echo "ok   engine tokens noted"; else echo "FAIL engine tokens"; fail=1; fi
if grep -q 'GPU KV cache usage 45.7%' "$t/w1"; then echo "ok   KV usage noted"; else echo "FAIL KV usage"; fail=1; fi
run sg "$s1"
has "SGLang weights" "$t/sg" weights log 1 $((GiB * 115 / 4))
has "SGLang MLA KV" "$t/sg" kv_cache log 1 $((GiB * 77 / 4))
has "SGLang graphs" "$t/sg" compute log 1 $((GiB * 3 / 4))
exit $fail
