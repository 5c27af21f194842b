#!/bin/sh
# A model split over three GPUs of the fake NVML, the stand-in llama-server
# run with CUDA_VISIBLE_DEVICES shuffled (2,0,1: its CUDA0 is the driver's
# GPU 2) writing per-device log lines: `gputaskman inspect PID` puts each
# CUDAn on the GPU whose PCI bus id the log prints (never on GPU n), one line
# per GPU; a second stand-in whose log has no bus id is joined through its
# CUDA_VISIBLE_DEVICES of GPU UUIDs. $1 gputaskman, $2 the stand-in server,
# $3 libllama, $4 libggml-cuda, $5 the fake NVML folder, $6 the GGUF writer.
set -u
abs() { (cd "$(dirname "$1")" && echo "$PWD/$(basename "$1")"); }
bin=$(abs "$1"); standin=$(abs "$2"); libllama=$(abs "$3"); libcuda=$(abs "$4"); fake=$5; writer=$(abs "$6")
fail=0
t=$(mktemp -d /tmp/gtm-multigpu-XXXXXX)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$t"' EXIT
"$writer" --write-gguf "$t/tiny.gguf" || exit 1

devlines() { # the `using device` lines with bus ids, or without (mid-2025 builds)
	if [ "$1" = pci ]; then
		echo '0.00.010.000 I llama_prepare_model_devices: using device CUDA0 (Fake L40S) (0000:03:00.0) - 31450 MiB free'
		echo '0.00.010.001 I llama_prepare_model_devices: using device CUDA1 (Fake L40S) (0000:01:00.0) - 12560 MiB free'
		echo '0.00.010.002 I llama_prepare_model_devices: using device CUDA2 (Fake L40S) (0000:02:00.0) - 20300 MiB free'
	else
		echo '0.00.010.000 I llama_model_load_from_file_impl: using device CUDA0 (Fake L40S) - 31450 MiB free'
		echo '0.00.010.001 I llama_model_load_from_file_impl: using device CUDA1 (Fake L40S) - 12560 MiB free'
	fi
}
logsrc() { # name, pci|nopci
	{
		echo '0.00.002.443 I cmn  common_param: common_params_print_info: build 10470 (34af94cd9) with GNU 12.2.0 for Linux x86_64'
		echo "0.00.004.073 I srv    load_model: loading model '@MODEL@'"
		devlines "$2"
		cat <<'EOL'
0.00.011.000 D load_tensors: layer   0 assigned to device CPU, is_swa = 0
0.00.011.001 D load_tensors: layer   1 assigned to device CUDA0, is_swa = 0
0.00.011.002 D load_tensors: layer   2 assigned to device CUDA0, is_swa = 0
0.00.011.003 D load_tensors: layer   3 assigned to device CUDA1, is_swa = 0
0.00.012.000 I load_tensors:        CUDA0 model buffer size =  1000.00 MiB
0.00.012.001 I load_tensors:        CUDA1 model buffer size =  2000.00 MiB
0.00.012.002 I load_tensors:   CPU_Mapped model buffer size =   100.00 MiB
0.00.013.000 I llama_kv_cache:      CUDA0 KV buffer size =   100.00 MiB
0.00.013.001 I llama_kv_cache:      CUDA1 KV buffer size =   200.00 MiB
0.00.014.000 I sched_reserve:      CUDA0 compute buffer size =    50.00 MiB
0.00.014.001 I sched_reserve:      CUDA1 compute buffer size =    60.00 MiB
0.00.014.002 I sched_reserve:  CUDA_Host compute buffer size =    10.00 MiB
0.00.015.000 I srv  llama_server: model loaded
EOL
	} >"$t/$1.src"
}
start() { # dir, env assignment, log kind
	mkdir -p "$t/$1"
	logsrc "$1" "$3"
	(cd "$t/$1" && exec env "$2" "$standin" -m "$t/tiny.gguf" --log-file server.log -lv 4 --lib "$libllama" \
		--lib "$libcuda" --log-source "$t/$1.src" --ready ready) &
	pids="$pids $!"
	i=0; while [ ! -f "$t/$1/ready" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done # 60 s at most
	last=$!
}
start a CUDA_VISIBLE_DEVICES=2,0,1 pci
a=$last
start b CUDA_VISIBLE_DEVICES=GPU-e2e-cccc,GPU-e2e-aaaa,GPU-e2e-bbbb nopci
b=$last
MiB=1048576
cat >"$t/scenario" <<EOS
device name="Fake L40S" uuid=GPU-e2e-aaaa bus=00000000:01:00.0 mem_total=51539607552 mem_used=21474836480
device name="Fake L40S" uuid=GPU-e2e-bbbb bus=00000000:02:00.0 mem_total=51539607552 mem_used=21474836480
device name="Fake L40S" uuid=GPU-e2e-cccc bus=00000000:03:00.0 mem_total=51539607552 mem_used=21474836480
process dev=0 pid=$a mem=$((2560 * MiB))
process dev=1 pid=$a mem=$((300 * MiB))
process dev=2 pid=$a mem=$((1450 * MiB))
process dev=0 pid=$b mem=$((2560 * MiB))
process dev=1 pid=$b mem=$((300 * MiB))
process dev=2 pid=$b mem=$((1450 * MiB))
EOS
run() { # out, pid, args...
	o=$1; p=$2; shift 2
	GPUTASKMAN_ROOT= LD_LIBRARY_PATH="$fake" GTM_FAKE_NVML_SCENARIO="$t/scenario" "$bin" inspect "$p" --no-probe "$@" \
		>"$t/$o" 2>"$t/$o.err"
}
check() { # name, file, python condition over j (the JSON) and segs/devs
	if python3 - "$2" "$3" <<'EOP'
import json, sys
j = json.load(open(sys.argv[1]))
x = j.get("explain") or {}
segs, devs = x.get("breakdown") or [], x.get("devices") or []
def seg(name, dev):
    return next((s for s in segs if s["segment"] == name and s["device"] == dev and s["source"] == "log"), None)
def gpu(n):
    return next((d for d in devs if d["gpu"] == n), None)
sys.exit(0 if eval(sys.argv[2]) else 1)
EOP
	then echo "ok   $1"; else echo "FAIL $1:"; cat "$2" "$2.err"; fail=1; fi
}
run a.json "$a" --json
check "CUDA0 weights on GPU 2 by bus id (CUDA_VISIBLE_DEVICES=2,0,1)" "$t/a.json" \
	'seg("weights","CUDA0")["gpu"] == 2 and seg("weights","CUDA0")["device_join"] == "pci" and seg("weights","CUDA0")["bytes"] == 1000*2**20'
check "CUDA1 KV on GPU 0" "$t/a.json" 'seg("kv_cache","CUDA1")["gpu"] == 0 and seg("kv_cache","CUDA1")["bytes"] == 200*2**20'
check "one device entry per GPU" "$t/a.json" 'sorted(d["gpu"] for d in devs) == [0, 1, 2]'
check "GPU 2: CUDA0, its UUID, 2 layers, rest 300 MiB estimated of 1450 MiB measured" "$t/a.json" \
	'gpu(2)["runtime_device"] == "CUDA0" and gpu(2)["uuid"] == "GPU-e2e-cccc" and gpu(2)["layers"] == 2 and gpu(2)["rest_bytes"] == 300*2**20 and gpu(2)["rest_provenance"] == "estimated" and gpu(2)["measured_bytes"] == 1450*2**20'
check "GPU 1: no layers, nothing reported, its context measured" "$t/a.json" \
	'gpu(1)["weights_bytes"] is None and gpu(1)["rest_bytes"] == 300*2**20 and gpu(1)["rest_provenance"] == "measured"'
check "host buffers stay off the GPUs" "$t/a.json" 'seg("weights","CPU_Mapped")["gpu"] is None and seg("compute","CUDA_Host")["host_memory"]'
run a.txt "$a"
for want in "GPU 2 CUDA0 (by PCI bus id): 2 layers (1-2); weights 1000.00 MiB" "GPU 0 CUDA1 (by PCI bus id): 1 layers (3-3)" \
	"GPU 1: nothing reported; rest 300.00 MiB (measured)" "total     vram 4.21 GiB over 3 GPUs (measured)"; do
	if grep -qF "$want" "$t/a.txt"; then echo "ok   text: $want"; else echo "FAIL text: $want"; cat "$t/a.txt"; fail=1; fi
done
run b.json "$b" --json
check "no bus id: CUDA0 joined through CUDA_VISIBLE_DEVICES=GPU-... to GPU 2" "$t/b.json" \
	'seg("weights","CUDA0")["gpu"] == 2 and seg("weights","CUDA0")["device_join"] == "uuid" and seg("weights","CUDA1")["gpu"] == 0'
exit $fail
