#!/bin/sh
# Live-view benchmark: 500 stand-in GPU processes (sleep) in a fake-NVML
# scenario; gputaskman -i 1 idles in tmux (200x60) while its CPU time and RSS
# are read from /proc (UI thread and collection thread apart). Then key-press
# latency in a pseudo-terminal (bench/tui/keylat.py). Medians of RUNS runs.
# usage: bench/tui/run.sh BUILD_DIR [RUNS] [SECONDS] [EXTRA_ARGS, e.g. --no-probe]
set -u
build=${1:-build} runs=${2:-3} secs=${3:-20} extra=${4:-} nproc=500
bin="$build/src/gputaskman"
fake="$build/tests/fakes/nvml"
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$bin" ] || { echo "no $bin"; exit 1; }
[ -f "$fake/libnvidia-ml.so.1" ] || { echo "no fake NVML in $fake (configure with -Dtests=true)"; exit 1; }
command -v tmux >/dev/null || { echo "tmux is needed"; exit 1; }
t=$(mktemp -d /tmp/gtm-bench-tui-XXXXXX)
sock="gtm-bench-tui-$$"
standins=""
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	for p in $standins; do kill "$p" 2>/dev/null; done
	rm -rf "$t"
}
trap cleanup EXIT INT TERM

{
	echo "driver 550.54.15"; echo "cuda 12.4"
	echo "device name=\"NVIDIA Bench GPU\" uuid=GPU-bench-0 mem_total=85899345920 mem_used=60129542144 util_gpu=40 util_mem=20 temp=60 power_mw=300000 power_limit_mw=700000 clock_sm=1800 clock_sm_max=1980 clock_mem=2619 enc=0 dec=0"
} >"$t/scn"
i=0
while [ $i -lt $nproc ]; do
	sleep 3600 & p=$!
	standins="$standins $p"
	echo "process dev=0 pid=$p mem=$(( (i % 97 + 1) * 104857600 )) sm=$(( i % 100 ))" >>"$t/scn"
	i=$((i + 1))
done

ticks=$(getconf CLK_TCK)
# cpu_ticks PID TID: utime + stime of one thread.
cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/task/$2/stat" 2>/dev/null || echo 0; }
results="$t/results"
r=1
while [ $r -le "$runs" ]; do
	tmux -L "$sock" -f /dev/null new-session -d -s b -x 200 -y 60 \
		"env LD_LIBRARY_PATH='$fake' GTM_FAKE_NVML_SCENARIO='$t/scn' LANG=C.UTF-8 '$bin' -i 1 $extra 2>/dev/null"
	sleep 5 # warm-up: first scans, caches filled
	pid=$(tmux -L "$sock" list-panes -t b -F '#{pane_pid}')
	gpid=$(pgrep -P "$pid" -x gputaskman || echo "$pid")
	[ -d "/proc/$gpid" ] || { echo "gputaskman did not start"; exit 1; }
	threads=$(ls "/proc/$gpid/task")
	total0=0; for tid in $threads; do total0=$((total0 + $(cpu_ticks "$gpid" "$tid"))); done
	ui0=$(cpu_ticks "$gpid" "$gpid")
	sleep "$secs"
	total1=0; for tid in $threads; do total1=$((total1 + $(cpu_ticks "$gpid" "$tid"))); done
	ui1=$(cpu_ticks "$gpid" "$gpid")
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$gpid/status")
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$gpid/status")
	rows=$(tmux -L "$sock" capture-pane -p -t b | grep -c 'sleep')
	echo "$r $(( (total1 - total0) * 10000 / (ticks * secs) )) $(( (ui1 - ui0) * 10000 / (ticks * secs) )) $rss $hwm $rows" >>"$results"
	tmux -L "$sock" kill-server 2>/dev/null
	sleep 0.5
	r=$((r + 1))
done
# Columns: run, total CPU %x100, UI thread CPU %x100, RSS KiB, peak RSS KiB, rows on screen.
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
cpu=$(cut -d' ' -f2 "$results" | median)
ui=$(cut -d' ' -f3 "$results" | median)
rss=$(cut -d' ' -f4 "$results" | median)
hwm=$(cut -d' ' -f5 "$results" | median)
echo "live view, $nproc GPU processes ($(ls -d /proc/[0-9]* | wc -l) in /proc), -i 1 $extra, 200x60, $runs runs of ${secs}s:"
awk '{ printf "  run %d: CPU %.2f %% (UI thread %.2f %%), RSS %.1f MiB (peak %.1f), %d rows visible\n", $1, $2 / 100, $3 / 100, $4 / 1024, $5 / 1024, $6 }' "$results"
awk -v c="$cpu" -v u="$ui" -v r="$rss" -v h="$hwm" 'BEGIN { printf "  median: CPU %.2f %% of one core (UI thread %.2f %%), RSS %.1f MiB (peak %.1f MiB)\n", c / 100, u / 100, r / 1024, h / 1024 }'
echo "key latency (pseudo-terminal 200x60, 20 presses; median / max ms):"
python3 "$here/keylat.py" "$bin" 200 60 20 "LD_LIBRARY_PATH=$fake" "GTM_FAKE_NVML_SCENARIO=$t/scn" | sed 's/^/  /'
