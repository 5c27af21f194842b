#!/bin/sh
# gputaskman serve scraped by a real Prometheus (Debian's prometheus, 1 s
# scrape interval, loopback only) while it runs on the NVML test double with a
# stand-in llama-server: promtool finds nothing in /metrics; Prometheus' API
# shows a device's used bytes, the stand-in's VRAM with its pid label and its
# model's kv_cache segment with source="log"; when the scenario drops the
# process, its series go away (stale). A second GPU, shown first (larger) but
# NVML's device 1, keeps gpu="1" with its uuid and dcgm-exporter's pci_bus_id;
# when device 0 is lost it gets gpu_up 0 and an error_info series, while the
# other card's series and source_up stay. With --max-processes 1, a process
# whose neighbour on its GPU grows 10 % past it and back keeps its series
# throughout (hysteresis), ranked per GPU beside the stand-in on the other.
# Then SIGTERM stops serve with status 0, and the recording serve --record
# kept replays its last collection.
# Args: gputaskman fake-nvml-dir llama-server-stand-in libllama libggml-cuda ident-stand-in
bin=$(realpath "$1") fake=$(realpath "$2") standin=$(realpath "$3") libllama=$(realpath "$4")
libcuda=$(realpath "$5") writer=$(realpath "$6")
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
need prometheus "Debian package prometheus"
need promtool "Debian package prometheus"
need curl "Debian package curl"
t=$(mktemp -d /tmp/gtm-e2e-serve-XXXXXX)
cleanup() {
	for p in ${serve:-} ${prom:-} ${llama:-} ${pa:-} ${pb:-}; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$t"
}
trap cleanup EXIT

# the stand-in llama-server: maps a generated GGUF and libraries named like llama.cpp's, writes a CUDA log
"$writer" --write-gguf "$t/tiny.gguf" || { echo "FAIL cannot write a GGUF"; exit 1; }
mkdir "$t/a"
(cd "$t/a" && exec "$standin" -m "$t/tiny.gguf" -c 4096 --log-file server.log -lv 4 --lib "$libllama" --lib "$libcuda" \
	--log-source "$here/cuda.log.src" --ready ready) >"$t/a.out" 2>&1 &
llama=$!
for _ in $(seq 1200); do [ -s "$t/a/ready" ] && break; sleep 0.05; done
[ -s "$t/a/ready" ] || { echo "FAIL stand-in did not start:"; cat "$t/a.out"; exit 1; }

device='device name="Fake GPU" uuid=GPU-e2e-serve bus=00000000:01:00.0 mem_total=8589934592 mem_used=1073741824 util_gpu=40 temp=55'
scenario "$device
process dev=0 pid=$llama mem=209715200 sm=25"
start_serve -i 1 --max-processes 1 --record "$t/serve.rec"
ok "serve listening on 127.0.0.1:$port"

if scrape_until 'gputaskman_model_memory_bytes.*segment="kv_cache",source="log"'; then
	ok "/metrics shows the stand-in's log segments"
else
	bad "no log kv_cache segment in /metrics:"; cat "$t/m"; cat "$t/serve.err"
fi
curl -s -D "$t/h" -o /dev/null "http://127.0.0.1:$port/metrics"
if grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$t/h"; then ok "Content-Type is text 0.0.4"
else bad "Content-Type:"; cat "$t/h"; fi
lint=$(promtool check metrics <"$t/m" 2>&1); lrc=$?
if [ $lrc -eq 0 ] && [ -z "$lint" ]; then ok "promtool check metrics finds nothing"; else bad "promtool (exit $lrc): $lint"; fi
for path in /metrics /; do
	code=$(curl -s -o /dev/null -w '%{http_code}' -I "http://127.0.0.1:$port$path")
	[ "$code" = 200 ] && ok "HEAD $path: 200" || bad "HEAD $path: $code"
done
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -d x=1 "http://127.0.0.1:$port/metrics")
[ "$code" = 405 ] && ok "POST: 405" || bad "POST: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nope")
[ "$code" = 404 ] && ok "unknown path: 404" || bad "unknown path: $code"
curl -s "http://127.0.0.1:$port/" | grep -q 'href="/metrics"' && ok "/ links to /metrics" || bad "/ has no link to /metrics"

# a real Prometheus on loopback, scraping every second
start_prometheus "$port"
expect "Prometheus scrapes serve" 'up{job="gputaskman"}' 1
expect "a device's used bytes" 'gputaskman_gpu_memory_used_bytes{gpu="0",pool="device"}' 1073741824
expect "the stand-in's VRAM by pid" "gputaskman_process_gpu_memory_bytes{pid=\"$llama\",pool=\"device\",process=\"llama-server\"}" 209715200
expect "its model's kv_cache from the log" "gputaskman_model_memory_bytes{pid=\"$llama\",segment=\"kv_cache\",source=\"log\"}" 8388608
expect "one source per segment: sum by (segment) is the log's" 'sum by (segment) (gputaskman_model_memory_bytes{segment="weights"})' 14449377
expect "its process_info" "count(gputaskman_process_info{pid=\"$llama\",runtime=\"llama.cpp\",owner=\"local\"})" 1

# the process goes from the driver's list: its series go stale
scenario "$device"
gone=
for _ in $(seq 240); do
	out=$(query "gputaskman_process_gpu_memory_bytes{pid=\"$llama\"}")
	[ $? -eq 0 ] && [ -z "$out" ] && { gone=1; break; }
	sleep 0.5
done
[ -n "$gone" ] && ok "the dropped process's series went away" || bad "series of pid $llama still present: $out"
expect "the device stays" 'count(gputaskman_gpu_info{uuid="GPU-e2e-serve"})' 1

# two stand-in processes on a second, larger GPU (shown first: NVML's device 1)
sleep 600 >/dev/null 2>&1 & pa=$!
sleep 600 >/dev/null 2>&1 & pb=$!
two='device name="Big GPU" uuid=GPU-e2e-two bus=00000000:42:00.0 mem_total=17179869184 mem_used=2147483648 energy_mj=5000000 throttle=0x4'
mib() { echo $(($1 * 1048576)); }
procs="process dev=0 pid=$llama mem=209715200
process dev=1 pid=$pa mem=$(mib 1000)"
scenario "$device
$two
$procs
process dev=1 pid=$pb mem=$(mib 900)"
expect "the second GPU by the driver's index, uuid and pci_bus_id" \
	'gputaskman_gpu_memory_used_bytes{gpu="1",uuid="GPU-e2e-two",pci_bus_id="00000000:42:00.0",pool="device"}' 2147483648
expect "the first GPU keeps gpu=0" 'count(gputaskman_gpu_info{gpu="0",uuid="GPU-e2e-serve",pci_bus_id="00000000:01:00.0"})' 1
expect "energy from NVML's counter" 'gputaskman_gpu_energy_joules_total{gpu="1"}' 5000
expect "throttle reasons by name" 'count(gputaskman_gpu_clock_throttle_reasons_info{gpu="1",reasons="sw_power_cap"})' 1
expect "per GPU: the stand-in kept on GPU 0" "count(gputaskman_process_info{pid=\"$llama\"})" 1
expect "per GPU: the larger process kept on GPU 1" "count(gputaskman_process_info{pid=\"$pa\"})" 1
# pb grows 10 % past pa and back, 3 times, each state held over several scrapes
for size in 1100 900 1100 900 1100 900; do
	scenario "$device
$two
$procs
process dev=1 pid=$pb mem=$(mib $size)"
	sleep 3
done
expect "hysteresis: the kept process was never folded" "min_over_time(count(gputaskman_process_info{pid=\"$pa\"})[20s:1s])" 1
expect_none "hysteresis: its neighbour never got a series" "gputaskman_process_info{pid=\"$pb\"}[25s]"
# pb clearly larger (50 %): it takes the place
scenario "$device
$two
$procs
process dev=1 pid=$pb mem=$(mib 1500)"
expect "a clearly larger process takes the place" "count(gputaskman_process_info{pid=\"$pb\"})" 1
# NVML device 0 is lost: its own gpu_up and reason; the other card's series stay
scenario "$device
$two
$procs
fail dev=0"
expect "the lost GPU: gpu_up 0" 'gputaskman_gpu_up{gpu="0"}' 0
expect "its reason in gpu_error_info" 'count(gputaskman_gpu_error_info{gpu="0",reason="GPU is lost",call="nvmlDeviceGetHandleByIndex"})' 1
expect "the other GPU: gpu_up 1" 'gputaskman_gpu_up{gpu="1",uuid="GPU-e2e-two"}' 1
expect "the source is up while a GPU answers" 'gputaskman_source_up{source="nvml"}' 1
expect "the other GPU's series keep their labels" \
	'gputaskman_gpu_memory_used_bytes{gpu="1",uuid="GPU-e2e-two",pci_bus_id="00000000:42:00.0",pool="device"}' 2147483648
expect_none "no process count for the lost GPU" 'gputaskman_gpu_driver_processes{gpu="0"}'
expect_none "no name made of the error" 'gputaskman_gpu_info{name=~"NVML device.*"}'
kill "$pa" "$pb" 2>/dev/null
stop_serve
# --record: every collection went into the recording too, closed on SIGTERM
if "$bin" replay "$t/serve.rec" --json >"$t/replay.json" 2>"$t/replay.err" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(g["uuid"] == "GPU-e2e-two" for g in d["gpus"]), d["gpus"]' "$t/replay.json"; then
	ok "serve --record: the recording replays its last collection"
else
	bad "serve --record: no replayable recording:"; cat "$t/replay.err" "$t/serve.err"
fi
exit $fail
