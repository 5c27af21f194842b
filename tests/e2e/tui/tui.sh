#!/bin/sh
# The live view end to end in a real terminal (tmux): the real binary ($1)
# against the fake NVML in folder $2 at a COLSxROWS size ($3 x $4), with
# stand-in processes (sleep) and a stand-in server that accepts loopback
# connections and never answers. Prints why any check fails.
set -u
bin=$1 fakedir=$2 cols=${3:-80} rows=${4:-24}
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed (make deps)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d /tmp/gtm-tui-XXXXXX)
sock="gtm-tui-$$-$cols"
fail=0
pids=""
base_sock=$sock
cleanup() {
	for s in "$base_sock" "$base_sock-nd" "$base_sock-stuck"; do tmux -L "$s" kill-server 2>/dev/null; done
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$t"
}
trap cleanup EXIT INT TERM

ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
screen() { tmux -L "$sock" capture-pane -p -t gtm 2>/dev/null; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
# wait_for NAME PATTERN [TIMEOUT_S] [absent]: polls the screen every 20 ms.
# The bound is 30 s at least: a loaded machine's, it costs nothing when the
# screen is right.
wait_for() {
	b=${3:-30}; [ "$b" -lt 30 ] && b=30
	end=$(( $(ms) + b * 1000 ))
	while [ "$(ms)" -lt "$end" ]; do
		if screen | grep -q -- "$2"; then [ "${4:-}" = absent ] || { ok "$1"; return 0; }
		elif [ "${4:-}" = absent ]; then ok "$1"; return 0; fi
		sleep 0.02
	done
	if [ "${4:-}" = absent ]; then bad "$1: the screen still shows '$2':"; else bad "$1: no '$2' on the screen:"; fi
	screen | sed 's/^/     | /'
	return 1
}
key() { tmux -L "$sock" send-keys -t gtm "$@"; }
# status_has NAME PATTERN: polls the status bar (the screen's first line), 30 s at most.
status_has() {
	for _ in $(seq 1500); do
		screen | head -n 1 | grep -q -- "$2" && { ok "$1"; return 0; }
		sleep 0.02
	done
	bad "$1: the status bar is '$(screen | head -n 1)'"
	return 1
}
# seek NAME PATTERN KEY: presses KEY (up to 8 times) until PATTERN is on the
# screen, each press once the last one has been drawn (the screen changed), so
# a slow redraw never queues presses past the pattern.
seek() {
	for _ in 1 2 3 4 5 6 7 8; do
		before=$(screen)
		printf '%s\n' "$before" | grep -q -- "$2" && { ok "$1"; return 0; }
		key "$3"
		for _ in $(seq 1500); do [ "$(screen)" != "$before" ] && break; sleep 0.02; done
	done
	wait_for "$1" "$2"
}
# wheel_down X Y: a wheel step down (button 5: 32 + 65) at a cell.
wheel_down() {
	cx=$(printf "\\$(printf %o $((33 + $1)))") cy=$(printf "\\$(printf %o $((33 + $2)))")
	tmux -L "$sock" send-keys -t gtm -l "$(printf '\033[Ma')$cx$cy"
}
# click X Y (0-based): a left-button press and release in the X10 mouse encoding
# (ESC [ M, 32 + button, 33 + x, 33 + y) that ncurses reads under TERM=screen.
click() {
	cx=$(printf "\\$(printf %o $((33 + $1)))") cy=$(printf "\\$(printf %o $((33 + $2)))")
	tmux -L "$sock" send-keys -t gtm -l "$(printf '\033[M ')$cx$cy$(printf '\033[M#')$cx$cy"
}
# The first table row (the line after the column titles).
first_row() { screen | awk '/ PID NAME/ { getline; print; exit }'; }

# Stand-ins: two idle processes and a silent server named like llama.cpp's.
# (none of them holds this test's output: a pipe a child keeps open would keep
# meson waiting after the test ends)
sleep 600 >/dev/null 2>&1 & p1=$!
pids="$p1"
sleep 600 >/dev/null 2>&1 & p2=$!
pids="$pids $p2"
mkdir -p "$t/bin"
ln -s "$(python3 -c "import os, sys; print(os.path.realpath(sys.executable))")" "$t/bin/llama-server"
"$t/bin/llama-server" "$here/silent_server.py" "$t/port" >"$t/server.out" 2>&1 & ps=$!
pids="$pids $ps"
i=0; while [ ! -s "$t/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$t/port" ] || { echo "FAIL the stand-in server did not start"; exit 1; }

# scenario MEM_P1 UTIL: written to a new file and renamed, so the fake sees a change.
scenario() {
	cat >"$t/scn.new" <<SCN
driver 550.54.15
cuda 12.4
device name="NVIDIA Test GPU" uuid=GPU-e2e-0 bus=0000:01:00.0 mem_total=17179869184 mem_used=9663676416 mem_free=7516192768 util_gpu=$2 util_mem=12 temp=61 power_mw=120000 power_limit_mw=300000 clock_sm=1500 clock_sm_max=2100 clock_mem=7000 pcie_gen=4 pcie_width=16 enc=0 dec=3
process dev=0 pid=$p1 mem=$1 sm=50
process dev=0 pid=$p2 mem=1073741824 sm=5
process dev=0 pid=$ps mem=2147483648 sm=10
SCN
	mv "$t/scn.new" "$t/scn"
}
scenario 4294967296 37

tmux -L "$sock" -f /dev/null new-session -d -s gtm -x "$cols" -y "$rows" \
	"env LD_LIBRARY_PATH='$fakedir' GTM_FAKE_NVML_SCENARIO='$t/scn' '$bin' -i 0.2 2>'$t/err'; echo \$? >'$t/rc'; sleep 60"

echo "# ${cols}x${rows}"
wait_for "header shows the device" "NVIDIA Test GPU" 10 || {
	echo "     the live view did not start; exit status: $(cat "$t/rc" 2>/dev/null), stderr:"
	sed 's/^/     | /' "$t/err" | head -20
	exit 1
}
wait_for "header shows the memory bar" "VRAM \\[.*9.00 GiB/16.00 GiB"
wait_for "header shows driver and CUDA" "driver 550.54.15  CUDA 12.4"
wait_for "rows appear" " $p1 sleep"
status_has "the status bar shows ?:help and q:quit" "?:help.*q:quit"
wait_for "the stand-in server is a row" " $ps llama-server"
case "$(first_row)" in *" $p1 sleep"*) ok "sorted by VRAM: the 4 GiB process first" ;; *) bad "VRAM order: first row '$(first_row)'" ;; esac

key s; wait_for "s sorts by GPU %" "sort GPU %"
key s; wait_for "s sorts by spill" "sort spill"
key s; wait_for "s sorts by paged" "sort paged"
key s; wait_for "s sorts by name" "sort name"
case "$(first_row)" in *llama-server*) ok "sorted by name: llama-server first" ;; *) bad "name order: first row '$(first_row)'" ;; esac
key s; wait_for "s cycles back to VRAM" "sort VRAM"

key Down
wait_for "selection shows the inspector" "$ps llama-server  user"
wait_for "the inspector shows the command" "silent_server.py"
key Up
wait_for "Up selects the first row again" "$p1 sleep  user"

# The mouse: a click on a row selects it; the Charts menu opens and picks.
y=$(screen | grep -n " $p2 sleep " | head -1 | cut -d: -f1)
click 3 $((y - 1))
wait_for "a click selects a row" "$p2 sleep  user"
x=$(screen | head -1 | awk '{ print index($0, "[Charts") }')
click "$x" 0
wait_for "a click opens the Charts menu" "All charts"
click $((x + 1)) 6
wait_for "the menu picks a chart" "Charts: Temperature"
wait_for "the chosen chart is drawn" "Temperature 61 C  0-120 C"
key c
wait_for "c after the menu goes on to the next chart" "Charts: Power"
for _ in 1 2 3; do key c; done
wait_for "c cycles back to all charts" "Charts: all"
key Home

key a; wait_for "a lists all collected processes" "all processes"
key a; wait_for "a goes back to GPU processes" "GPU processes 3"

key '?'
wait_for "? opens the help" "What can be known about GPU memory?"
wait_for "the help says what is measured" "Measured (driver and OS counters)"
seek "PgDn scrolls the help to what needs a debugger" "Would need a debugger" NPage
seek "the help ends with the keys" "q             quit" NPage
key Escape
wait_for "Escape closes the help" "What can be known about GPU memory?" 3 absent
wait_for "the table is back" " PID NAME"

if [ "$cols" -ge 160 ]; then
	wait_for "all charts: temperature" "Temperature 61 C  0-120 C"
	wait_for "all charts: power from the limit" "Power 120 W  0-300 W"
	key c; wait_for "c shows one chart" "Charts: GPU"
	wait_for "only the chosen chart" "Temperature 61" 3 absent
	for _ in 1 2 3 4 5 6 7 8; do key c; done
	wait_for "c cycles back to all charts again" "Charts: all"
else
	# Short terminal: the dashboard scrolls on its own, the table stays.
	key ']'
	wait_for "] scrolls the dashboard" "GPU0 NVIDIA Test GPU" 3 absent
	wait_for "the table stays while the dashboard scrolls" " $p1 sleep"
	key '['
	wait_for "[ scrolls it back" "GPU0 NVIDIA Test GPU"
	# The inspector scrolls on its own: PgDn and the wheel move it, not the table.
	y=$(screen | grep -n " $ps llama-server " | head -1 | cut -d: -f1)
	click 3 $((y - 1))
	wait_for "the server's inspector" "$ps llama-server  user"
	key NPage
	wait_for "PgDn scrolls the inspector" "$ps llama-server  user" 3 absent
	wait_for "the table stays while the inspector scrolls" " $ps llama-server "
	key PPage
	wait_for "PgUp scrolls it back" "$ps llama-server  user"
	iy=$(screen | grep -n "Inspector" | head -1 | cut -d: -f1)
	wheel_down 10 $((iy + 1)); wheel_down 10 $((iy + 1))
	wait_for "the wheel scrolls the inspector" "$ps llama-server  user" 3 absent
	key Home
	# A resize redraws at once with the wider layout.
	tmux -L "$sock" resize-window -t gtm -x 200 -y 50
	wait_for "resize: the wide layout is drawn" "q:quit"
	wait_for "resize: charts share rows" "Temperature 61 C"
	tmux -L "$sock" resize-window -t gtm -x "$cols" -y "$rows"
	wait_for "resize back: narrow again" "]:more"
	# The key hints stay on the status bar at every width, beside ]:more when it shows.
	for wd in 100 64 48 32 20; do
		tmux -L "$sock" resize-window -t gtm -x "$wd" -y "$rows"
		status_has "${wd} columns: the status bar keeps ?:help and q:quit" "?:help q:quit\|?:help  q:quit\|?:help  p:pause  q:quit"
	done
	tmux -L "$sock" resize-window -t gtm -x "$cols" -y "$rows"
	status_has "${cols}x${rows}: ]:more and the key hints side by side" "]:more.*?:help.*q:quit"
fi

# p freezes values while the scenario changes; p again shows the new value.
# The new rows add up to 17 GiB on a 16 GiB device: the bar is normalised and says so.
key p; wait_for "p pauses" "PAUSED"
scenario 15032385536 88
sleep 1.5
if screen | grep -q " $p1 sleep .*14.00 GiB"; then bad "paused view changed to the new value"; screen | sed 's/^/     | /'
else ok "values stay frozen while paused"; fi
key p
wait_for "p resumes and shows the new value" " $p1 sleep .*14.00 GiB" 5
wait_for "PAUSED is gone" "PAUSED" 3 absent
wait_for "rows over the device total: the bar says it is normalised" "normalised: rows 17.00 GiB > total"
wait_for "the legend keeps raw values" "other 15.00 GiB"

# Colours follow the terminal (TERM=screen has 8): the categories are coloured.
if tmux -L "$sock" capture-pane -e -p -t gtm | grep -q -E "$(printf '\033')\\[([0-9]+;)*3[0-7](;[0-9]+)*m"; then
	ok "categories are drawn in colour"
else bad "no colour on a colour terminal"; fi

# Keys are answered while the collector probes the silent server. With room
# for the inspector, first see that the probe ran and got no answer.
if [ "$cols" -ge 160 ]; then
	key Down
	wait_for "the silent server was probed and did not answer" "no answer" 20
fi
worst=0 total=0
for n in 1 2 3 4 5 6; do
	start=$(ms)
	key '?'
	wait_for "help $n opens" "What can be known" 5 >/dev/null || echo "FAIL key $n not answered"
	lat=$(( $(ms) - start ))
	key Escape
	wait_for "help $n closes" "What can be known" 5 absent >/dev/null || echo "FAIL help $n did not close"
	total=$((total + lat)); [ $lat -gt $worst ] && worst=$lat
done
# (a figure, not a check: a loaded machine's keys take what they take; that
# no key waits on a probe is checked below by order, not by time)
echo "     key answered: mean $((total / 6)) ms, worst $worst ms (target 100 ms; tmux polling included)"

start=$(ms)
key q
i=0; while [ ! -s "$t/rc" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i + 1)); done
if [ -s "$t/rc" ]; then
	ok "q exits in $(( $(ms) - start )) ms"
	[ "$(cat "$t/rc")" = 0 ] && ok "exit status 0" || bad "exit status $(cat "$t/rc")"
else
	bad "q did not exit within 30 s"
fi
if grep -q -E "AddressSanitizer|LeakSanitizer|runtime error" "$t/err"; then
	bad "sanitizer report:"; sed 's/^/     | /' "$t/err" | head -40
fi

# Keys are answered while a probe waits on the silent server: with a 120 s
# probe timeout, once the server has taken the probe's connection (it says
# so), a key waiting on that probe would wait about two minutes; the view
# must answer within 30 s.
rm -f "$t/rc"
tmux -L "$sock" kill-server 2>/dev/null
sock="$base_sock-stuck"
n0=$(wc -l <"$t/port.accepts" 2>/dev/null || echo 0)
tmux -L "$sock" -f /dev/null new-session -d -s gtm -x "$cols" -y "$rows" \
	"env GTM_PROBE_TIMEOUT_MS=120000 GTM_PROBE_BUDGET_MS=599000 LD_LIBRARY_PATH='$fakedir' GTM_FAKE_NVML_SCENARIO='$t/scn' '$bin' -i 0.2 2>'$t/err3'; echo \$? >'$t/rc'; sleep 60"
i=0; while [ "$(wc -l <"$t/port.accepts" 2>/dev/null || echo 0)" -le "$n0" ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i + 1)); done
if [ "$(wc -l <"$t/port.accepts" 2>/dev/null || echo 0)" -gt "$n0" ]; then
	key '?'
	wait_for "a key is answered while a probe waits on the silent server" "What can be known" 30
else
	bad "the silent server was never probed (60 s)"; screen | sed 's/^/     | /'
fi
tmux -L "$sock" kill-server 2>/dev/null

# No driver: the view says why no GPU is shown.
rm -f "$t/rc"
mkdir -p "$t/nolib"
sock="$base_sock-nd" # a fresh server: the old one may still be shutting down
tmux -L "$sock" -f /dev/null new-session -d -s gtm -x "$cols" -y "$rows" \
	"env NO_COLOR=1 LD_LIBRARY_PATH='$t/nolib' '$bin' -i 0.5 2>'$t/err2'; echo \$? >'$t/rc'; sleep 60"
wait_for "no driver: says no GPU is shown" "No GPU is shown" 10
if tmux -L "$sock" capture-pane -e -p -t gtm | grep -q -E "$(printf '\033')\\[([0-9]+;)*3[0-7](;[0-9]+)*m"; then
	bad "NO_COLOR=1: colours are still drawn"
else ok "NO_COLOR=1: no colours"; fi
wait_for "no driver: gives NVML's reason" "nvml: .*libnvidia-ml" 3
key C-c
i=0; while [ ! -s "$t/rc" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i + 1)); done
[ -s "$t/rc" ] && ok "no driver: Ctrl-C exits" || bad "no driver: Ctrl-C did not exit"
[ "$(cat "$t/rc" 2>/dev/null)" = 130 ] && ok "Ctrl-C: exit status 130" || bad "Ctrl-C: exit status $(cat "$t/rc" 2>/dev/null)"
if grep -q -E "AddressSanitizer|LeakSanitizer|runtime error" "$t/err2"; then
	bad "sanitizer report after Ctrl-C:"; sed 's/^/     | /' "$t/err2" | head -40
fi

[ $fail = 0 ] && echo "all live-view checks passed at ${cols}x${rows}"
exit $fail
