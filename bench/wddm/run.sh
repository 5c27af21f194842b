#!/bin/sh
# The WDDM source under Wine with the pdh.dll double: 200 processes with GPU
# counters on 2 adapters. Usage: sh bench/wddm/run.sh WIN_BUILD_DIR [DOUBLES_DIR]
# (a release cross build: make windows, then ninja -C build-win bench/wddm/bench_wddm.exe).
# With DOUBLES_DIR (the test build's tests/windows/doubles: make check builds
# it into build-check-win), the two adapters come from the dxgi.dll double,
# their PCI locations from d3dkmt_double.dll and the discrete one's
# telemetry from the nvml.dll double, as on a Windows machine with NVIDIA's
# driver: their time counts as ours (only PDH's is taken out).
#  1. bench_wddm.exe: a live refresh's CPU time, the double's share taken out;
#  2. gputaskman.exe --once --json: wall time including Wine's start (the
#     wineserver already running, as it is once any Wine program ran), median of 9.
# Both twice: with invented PIDs (no process behind them: each start-time
# lookup is a failed OpenProcess, the rows are H: rows), then with the PIDs
# of 200 live idle Wine processes (bench_procs.exe), whose start times the
# source reads once and holds, and which the process layer reads in full.
set -u
b=${1:-build-win}
doubles=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
ninja -C "$b" src/gputaskman.exe bench/wddm/bench_wddm.exe bench/wddm/bench_procs.exe bench/wddm/pdh.dll >/dev/null || exit 1
t=$(mktemp -d /tmp/gtm-bench-wddm-XXXXXX)
procs=""
trap '[ -n "$procs" ] && kill $procs 2>/dev/null; WINEDEBUG=-all wineserver -k >/dev/null 2>&1; rm -rf "$t"' EXIT
cp "$b/src/gputaskman.exe" "$b/bench/wddm/bench_wddm.exe" "$b/bench/wddm/bench_procs.exe" "$b/bench/wddm/pdh.dll" "$t/"
python3 "$here/gen_scenario.py" "$t/scenario.txt" 200
export GTM_WINEDLLOVERRIDES=pdh=n GTM_FAKE_PDH_SCENARIO="$t/scenario.txt"
: "${WINEPREFIX:=$t/prefix}"
[ -n "$doubles" ] && WINEPREFIX=$t/prefix # the doubles go into System32: never a shared prefix's
export WINEPREFIX
wine="sh $here/../../scripts/wine-run.sh"
GTM_WINE_TIMEOUT=120 $wine wineboot --init >/dev/null 2>&1
if [ -n "$doubles" ]; then
	winpath() { printf 'Z:%s' "$1" | tr / '\\'; }
	sys32="$WINEPREFIX/drive_c/windows/system32"
	rm -f "$sys32/dxgi.dll"
	cp "$doubles/dxgi.dll" "$doubles/nvml.dll" "$sys32/" && cp "$doubles/d3dkmt_double.dll" "$t/" || exit 1
	cat >"$t/dxgi.txt" <<-EOF
		adapter name="NVIDIA GeForce RTX 4070" vendor=0x10de device=0x2786 dedicated=12878610432 shared=17179869184 luid=0x00000000_0x0000A18D
		adapter name="Intel(R) UHD Graphics 770" vendor=0x8086 device=0x4680 dedicated=134217728 shared=17179869184 luid=0x00000000_0x000095CA
	EOF
	printf 'adapter luid=0x00000000_0x0000A18D bus=1 dev=0 fn=0\nadapter luid=0x00000000_0x000095CA bus=0 dev=2 fn=0\n' >"$t/kmt.txt"
	cat >"$t/nvml.txt" <<-EOF
		device name="NVIDIA GeForce RTX 4070" bus=00000000:01:00.0 pci_device_id=0x278610de mem_total=12878610432 util_gpu=40 temp=58 power_mw=180000 power_limit_mw=200000 fan=40 clock_sm=2475 clock_mem=10501 pcie_gen=4 pcie_width=16 driver_model=0
	EOF
	GTM_WINEDLLOVERRIDES="pdh=n;dxgi=n" GTM_D3DKMT_DLL=$(winpath "$t/d3dkmt_double.dll")
	GTM_FAKE_DXGI_SCENARIO=$(winpath "$t/dxgi.txt") GTM_FAKE_D3DKMT_SCENARIO=$(winpath "$t/kmt.txt")
	GTM_FAKE_NVML_SCENARIO=$(winpath "$t/nvml.txt")
	export GTM_WINEDLLOVERRIDES GTM_D3DKMT_DLL GTM_FAKE_DXGI_SCENARIO GTM_FAKE_D3DKMT_SCENARIO GTM_FAKE_NVML_SCENARIO
	echo "with the dxgi.dll, d3dkmt_double.dll and nvml.dll doubles ($doubles)"
fi
# a wineserver that stays up between runs, as it does on a desktop running Wine
WINEDEBUG=-all wineserver -p >/dev/null 2>&1
echo "invented PIDs:"
GTM_WINE_TIMEOUT=600 $wine "$t/bench_wddm.exe" 200 5 | tr -d '\r'
python3 "$here/gen_scenario.py" "$t/empty.txt" 0
echo "the same with no GPU process (the collector's own cost under Wine):"
GTM_FAKE_PDH_SCENARIO="$t/empty.txt" GTM_WINE_TIMEOUT=600 $wine "$t/bench_wddm.exe" 200 5 | tr -d '\r' | tail -n 1
$wine "$t/gputaskman.exe" --json >"$t/snap.json" 2>/dev/null
python3 - "$t/snap.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))
print(f"--json: {len(s['gpus'])} adapters ({', '.join(g['name'] + (' %s C' % g['temperature_c'] if g['temperature_c'] is not None else '') for g in s['gpus'])}), "
      f"{sum(1 for p in s['processes'] if p['gpus'])} rows with GPU use")
PY
for i in 1 2 3 4 5 6 7 8 9; do
	s=$(date +%s%N)
	$wine "$t/gputaskman.exe" --version >/dev/null 2>&1
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
done | sort -n | awk '{v[NR]=$1} END {printf "--version under Wine (Wine start alone): median %d ms wall (min %d, max %d; 9 runs)\n", v[5], v[1], v[9]}'
once() {
	for i in 1 2 3 4 5 6 7 8 9; do
		s=$(date +%s%N)
		$wine "$t/gputaskman.exe" --once --json >/dev/null 2>&1
		e=$(date +%s%N)
		echo $(((e - s) / 1000000))
	done | sort -n | awk -v what="$1" '{v[NR]=$1} END {printf "--once --json under Wine, %s: median %d ms wall (min %d, max %d; 9 runs)\n", what, v[5], v[1], v[9]}'
}
once "invented PIDs"
# 200 live idle processes (ended with bench_procs.exe: a job kills them)
GTM_WINE_TIMEOUT=3600 $wine "$t/bench_procs.exe" 200 3600 >"$t/pids.txt" 2>&1 &
procs=$!
for _ in $(seq 300); do
	grep -q ready "$t/pids.txt" && break
	kill -0 "$procs" 2>/dev/null || { cat "$t/pids.txt" >&2; exit 1; }
	sleep 0.2
done
python3 "$here/gen_scenario.py" "$t/live.txt" 200 "$t/pids.txt" || exit 1
export GTM_FAKE_PDH_SCENARIO="$t/live.txt"
echo "live PIDs (200 idle Wine processes):"
GTM_WINE_TIMEOUT=1200 $wine "$t/bench_wddm.exe" 200 5 | tr -d '\r'
once "live PIDs"
