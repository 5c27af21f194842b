#!/bin/sh
# The WDDM source under Wine with the pdh.dll double: 200 processes with GPU
# counters on 2 adapters. Usage: sh bench/wddm/run.sh WIN_BUILD_DIR (a
# release cross build: make windows, then ninja -C build-win bench/wddm/bench_wddm.exe).
#  1. bench_wddm.exe: a live refresh's CPU time, the double's share taken out;
#  2. gputaskman.exe --once --json: wall time including Wine's start (the
#     wineserver already running, as it is once any Wine program ran), median of 9.
set -u
b=${1:-build-win}
here=$(cd "$(dirname "$0")" && pwd)
ninja -C "$b" src/gputaskman.exe bench/wddm/bench_wddm.exe bench/wddm/pdh.dll >/dev/null || exit 1
t=$(mktemp -d /tmp/gtm-bench-wddm-XXXXXX)
trap 'WINEDEBUG=-all wineserver -k >/dev/null 2>&1; rm -rf "$t"' EXIT
cp "$b/src/gputaskman.exe" "$b/bench/wddm/bench_wddm.exe" "$b/bench/wddm/pdh.dll" "$t/"
python3 "$here/gen_scenario.py" "$t/scenario.txt" 200
export GTM_WINEDLLOVERRIDES=pdh=n GTM_FAKE_PDH_SCENARIO="$t/scenario.txt"
: "${WINEPREFIX:=$t/prefix}"
export WINEPREFIX
wine="sh $here/../../scripts/wine-run.sh"
GTM_WINE_TIMEOUT=120 $wine wineboot --init >/dev/null 2>&1
# a wineserver that stays up between runs, as it does on a desktop running Wine
WINEDEBUG=-all wineserver -p >/dev/null 2>&1
GTM_WINE_TIMEOUT=600 $wine "$t/bench_wddm.exe" 200 5 | tr -d '\r'
python3 "$here/gen_scenario.py" "$t/empty.txt" 0
echo "the same with no GPU process (the collector's own cost under Wine):"
GTM_FAKE_PDH_SCENARIO="$t/empty.txt" GTM_WINE_TIMEOUT=600 $wine "$t/bench_wddm.exe" 200 5 | tr -d '\r' | tail -n 1
$wine "$t/gputaskman.exe" --json >"$t/snap.json" 2>/dev/null
python3 - "$t/snap.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))
print(f"--json: {len(s['gpus'])} adapters, {sum(1 for p in s['processes'] if p['gpus'])} rows with GPU use")
PY
for i in 1 2 3 4 5 6 7 8 9; do
	s=$(date +%s%N)
	$wine "$t/gputaskman.exe" --version >/dev/null 2>&1
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
done | sort -n | awk '{v[NR]=$1} END {printf "--version under Wine (Wine start alone): median %d ms wall (min %d, max %d; 9 runs)\n", v[5], v[1], v[9]}'
for i in 1 2 3 4 5 6 7 8 9; do
	s=$(date +%s%N)
	$wine "$t/gputaskman.exe" --once --json >/dev/null 2>&1
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
done | sort -n | awk '{v[NR]=$1} END {printf "--once --json under Wine: median %d ms wall (min %d, max %d; 9 runs)\n", v[5], v[1], v[9]}'
