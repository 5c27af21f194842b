#!/bin/sh
# replay PATH in a real terminal (tmux): a recording of 600 refreshes from the
# fake NVML where a process grows to fill a GPU and then exits, replayed:
# step, seek by a typed time and by minute, the big-change key (the rise, then
# the process vanishing from the nearly full GPU), the inspector on that
# process, which no longer exists at the end. Args: gputaskman, fake NVML dir.
set -u
bin=$1; fake=$2
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed (make deps)"; exit 77; }
t=$(mktemp -d); sock="gtm-replay-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$t"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
"$GTM_CAPTURE_PROC" "$t/root" || exit 1
export LD_LIBRARY_PATH="$fake" TZ=UTC GPUTASKMAN_ROOT="$t/root"
GB=1073741824
# phase N USED_GB PROC_GB|-: step N, one GPU of 80 GiB; process 4200001 holds
# PROC_GB, or is gone. The recording steps through them by refreshes (the fake
# NVML's GTM_FAKE_NVML_STEP_REFRESHES), so it holds each however loaded the
# machine is.
phase() {
	{ echo "device name=\"NVIDIA H100 80GB HBM3\" uuid=GPU-1 bus=00000000:01:00.0 mem_total=$((80 * GB)) mem_used=$(($2 * GB)) util_gpu=50"
	  echo "process dev=0 pid=4200002 mem=$((1 * GB))"
	  [ "$3" = - ] || echo "process dev=0 pid=4200001 mem=$(($3 * GB))"; } >"$t/step.$1"
}
phase 0 7 6
phase 1 76 75
phase 2 2 -
GTM_FAKE_NVML_SCENARIO="$t/step" GTM_FAKE_NVML_STEP_REFRESHES=200 \
	"$bin" record -i 0.01 --count 600 --frame-seconds 1 -o "$t/r.rec" 2>"$t/e" || { echo "FAIL record"; cat "$t/e"; exit 1; }
first=$(zstdcat "$t/r.rec" | head -1 | sed 's/.*"taken_at":"\([^"]*\)".*/\1/')
last=$(zstdcat "$t/r.rec" | tail -1 | sed 's/.*"taken_at":"\([^"]*\)".*/\1/')

screen() { tmux -L "$sock" capture-pane -p -t g 2>/dev/null; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
# wait_for NAME PATTERN: polls the screen for up to 30 s (a bound for a loaded
# machine; it returns as soon as the pattern shows).
wait_for() {
	end=$(( $(ms) + 30000 ))
	while [ "$(ms)" -lt "$end" ]; do
		screen | grep -q -- "$2" && { ok "$1"; return 0; }
		sleep 0.02
	done
	bad "$1: no '$2' on the screen:"; screen | sed 's/^/     | /'
	return 1
}
key() { tmux -L "$sock" send-keys -t g "$@"; }

tmux -L "$sock" -f /dev/null new-session -d -s g -x 200 -y 50 \
	"env GPUTASKMAN_ROOT=/nonexistent LD_LIBRARY_PATH=/nonexistent '$bin' replay '$t/r.rec' 2>'$t/err'; echo \$? >'$t/rc'; sleep 60"
wait_for "replay opens at the first snapshot, paused" "REPLAY $first 1/600 paused 1x" || { cat "$t/err"; exit 1; }
wait_for "the recorded device is drawn (nothing from this machine)" "GPU0 NVIDIA H100 80GB HBM3"
wait_for "the recorded rows are drawn" "H:4200001"
key Right; wait_for "Right: one snapshot on" " 2/600 paused"
key Right; key Right; key Left; wait_for "Left: one back" " 3/600 paused"
key n; wait_for "n: the sharp rise" "+69.00 GiB on GPU 0 (76.00 GiB of 80.00 GiB)"
wait_for "the table at the rise" "H:4200001 .*75.00 GiB"
wait_for "the inspector on the process (it exists here)" "GPU 0 compute: VRAM 75.00 GiB"
key n; wait_for "n: the process vanishing while the GPU was nearly full" "H:4200001  vanished from GPU 0 (held 75.00 GiB; 76.00 GiB of 80.00 GiB used)"
screen | grep -q "^H:4200001 " && bad "the vanished process is still a row" || ok "the vanished process is gone from the table"
key n; wait_for "n past the last change: said, the cursor stays" "no big VRAM change after"
key ']'; wait_for "]: a minute on (past the end: the last snapshot)" "REPLAY $last 600/600"
key '['; wait_for "[: a minute back (before the start: the first)" "REPLAY $first 1/600"
hms=$(echo "$last" | cut -c12-19)
key g; wait_for "g opens the prompt" "go to: _"
key -l "$hms"; key Enter; wait_for "g HH:MM:SS: the last snapshot of that second" "REPLAY $last 600/600"
key g; key -l "$first"; key Enter; wait_for "g ISO 8601" "REPLAY $first "
key g; key -l "tomorrow"; key Enter; wait_for "g with no time: said" "ISO 8601"
key + ; key + ; wait_for "+: faster" "paused 4x"
key - ; wait_for "-: slower" "paused 2x"
key Space; wait_for "Space plays" "playing 2x"
key Space; wait_for "Space pauses" "paused 2x"
key '?'; wait_for "the help lists the replay keys" "next big VRAM change"
key Escape; key q
i=0; while [ ! -s "$t/rc" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
[ "$(cat "$t/rc" 2>/dev/null)" = 0 ] && ok "q quits, exit 0" || { bad "exit status $(cat "$t/rc" 2>/dev/null)"; cat "$t/err"; }
"$bin" replay "$t/r.rec" --at 1999-01-01T00:00:00Z >/dev/null 2>"$t/e"
[ $? -eq 2 ] && grep -q "before the recording starts" "$t/e" && ok "--at before the recording: exit 2, said" || bad "--at before the recording"
exit $fail
