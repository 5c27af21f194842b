#!/bin/sh
# WSL2 end to end on Linux with no Windows: a fixture WSL root (the WSLInterop
# binfmt entry, a WSL2 kernel release, a boot id, /dev/dxg held open by real
# stand-in processes, captured into the tree), the fake NVML as the device,
# and replay_helper.sh as the Windows helper (GPUTASKMAN_WSL_RUN), which
# replays recorded host lines, dies, or never answers. Checks --once, --json,
# --no-host, interop disabled, other VMs, an unmatched adapter, garbage lines,
# the --once bound, restarts with
# never more than one helper, no helper left behind, and the live view in
# tmux showing "starting" and then the rows.
# $1 gputaskman, $2 fake NVML folder, $3 cuda_standin, $4 fake libcuda.so.1.
set -u
bin=$1 fake=$2 standin=$3 libcuda=$4
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d /tmp/gtm-wsl-XXXXXX)
sock="gtm-wsl-$$"
pids=""
fail=0
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	[ -n "${sock1:-}" ] && tmux -L "$sock1" kill-server 2>/dev/null
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$t"
}
trap cleanup EXIT INT TERM
. "$here/checks.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }

# --- the fixture root
. "$here/fixture.sh"

L=0x00000000_0x0000D1A5
vm="GTMH1 seq=1 vmwp=4242 vms=1 state=ok;A luid=$L ded=3221225472 shared=0 committed=4000000000"
ctx=";V luid=$L local=2147483648 nonlocal=1048576 committed=2300000000"
app=";P pid=9000 name=chrome.exe luid=$L local=104857600 nonlocal=0 committed=125829120 eng=3D:12.5,Copy:0"
echo "$vm$ctx$app" >"$t/lines"
cat >"$t/scenario" <<EOS
device name="NVIDIA GeForce RTX 4090" uuid=GPU-1111 bus=00000000:01:00.0 mem_total=25769803776 mem_used=3221225472
EOS
gtm() {
	env -u WSL_DISTRO_NAME GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake" GPUTASKMAN_ROOT="$root" \
		HOME="$t/home" GTM_WSL_LINES="$t/lines" GTM_WSL_STARTS="$t/starts" \
		GPUTASKMAN_WSL_RUN="$here/replay_helper.sh" "$bin" "$@"
}
helpers_alive() { # how many replay_helper.sh started for this test still run
	n=0
	[ -f "$t/starts" ] || { echo 0; return; }
	for p in $(awk '{print $2}' "$t/starts"); do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done
	echo $n
}
# gone_helpers: whether every helper has ended (waits up to 30 s for the last
# to be reaped: its end follows gputaskman's, it does not precede it)
gone_helpers() {
	i=0
	while [ "$(helpers_alive)" != 0 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	[ "$(helpers_alive)" = 0 ]
}

# --- --once and --json with a recorded host line
gtm --once >"$t/once" 2>"$t/e"
expect "header: mode and stream state" "wsl, host: on (GPUTASKMAN_WSL_RUN)" "$t/once"
expect "the VM row" "W:4242 *vmwp.exe" "$t/once"
expect "a Windows app row" "W:9000 *chrome.exe" "$t/once"
# running before gputaskman: start order is no evidence, so a guess
expect "the CUDA process guessed" "?$cuda " "$t/once"
gone_helpers && ok "no helper left after --once" || bad "a helper outlived gputaskman"
gtm --json >"$t/j" 2>"$t/e"
jq_ok "json: host_stream on" "j['host_stream']['state'] == 'on' and j['host_stream']['seq'] >= 1" "$t/j"
jq_ok "json: guessed row says how" "any(p['pid'] == $cuda and p['owner'] == 'guessed' and p['vram_inferred_by'] == 'wsl-context-match' and p['gpus'][0]['vram_bytes'] == 2147483648 for p in j['processes'])" "$t/j"
jq_ok "json: W: rows are Windows PIDs, never local" "all(p['pid'] is None for p in j['processes'] if p['label'].startswith('W:'))" "$t/j"
jq_ok "json: a W: row's GPU load in gpu_pct, as on other rows (its busiest engine)" "any(p['label'] == 'W:9000' and p['gpus'][0]['gpu_pct'] == 12.5 and p['gpus'][0]['graphics_pct'] == 12.5 for p in j['processes'])" "$t/j"
jq_ok "json: a measured row carries no inference" "all(p['vram_inferred_by'] is None for p in j['processes'] if p['owner'] in ('local', 'host'))" "$t/j"

# --- other VMs on the host: "VM worker"; an adapter no GPU here matches: a note, no guess
echo "$(echo "$vm" | sed 's/vms=1/vms=2/')$ctx$app" >"$t/lines"
gtm --once >"$t/once" 2>"$t/e"
expect "other VMs: the row is the VM worker" "W:4242 *VM worker" "$t/once"
echo "$(echo "$vm" | sed 's/ded=3221225472/ded=17179869184/')$ctx$app" >"$t/lines"
gtm --once >"$t/once" 2>"$t/e"
expect "an unmatched adapter is said" "unmatched" "$t/once"
if grep -q "W:4242" "$t/once"; then bad "an unmatched adapter's rows were shown"; else ok "no rows of an unmatched adapter"; fi
# every adapter unmatched and the holder pending (no context yet): on the NVIDIA device, VRAM N/A
echo "$(echo "$vm" | sed 's/ded=3221225472/ded=17179869184/')$app" >"$t/lines"
gtm --json >"$t/j" 2>"$t/e"
jq_ok "unmatched adapters: a pending holder on the NVIDIA device" "any(p['pid'] == $cuda and [g['index'] for g in p['gpus']] == [j['gpus'][0]['index']] and p['gpus'][0]['vram_bytes'] is None for p in j['processes'])" "$t/j"
gtm --once >"$t/once" 2>"$t/e"
if grep -Eq "GPU ?[1-9][0-9]{2,}" "$t/once"; then bad "a garbage GPU index:"; cat "$t/once"; else ok "no garbage GPU index"; fi
echo "$vm$ctx$app" >"$t/lines"

# --- a helper that closes its stderr at once: the reader does not spin. The CPU of 3 s of recording
# is compared with the same recording beside a helper that keeps its stderr open, measured just
# before on this machine: a spinning reader adds a core's worth (about 3 s), a loaded machine or
# the sanitizers only scale both runs.
record_cpu() {
	GTM_WSL_MODE=$1 python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f" % (r.ru_utime + r.ru_stime))' env -u WSL_DISTRO_NAME GTM_FAKE_NVML_SCENARIO="$t/scenario" \
	LD_LIBRARY_PATH="$fake" GPUTASKMAN_ROOT="$root" HOME="$t/home" GTM_WSL_LINES="$t/lines" \
	GPUTASKMAN_WSL_RUN="$here/replay_helper.sh" "$bin" record -i 0.5 --count 7 -o "$t/$2.rec"
}
base=$(record_cpu "" base)
cpu=$(record_cpu noerr noerr)
if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) + 1.5 else 1)" "$cpu" "$base"; then
	ok "stderr closed: $cpu s CPU in 3 s (stderr kept open: $base s)"
else bad "stderr closed: the reader spins ($cpu s CPU in 3 s, $base s with stderr kept open)"; fi

# --- --no-host and interop disabled: device-wide numbers, holders with VRAM N/A
before=$(cat "$t/starts" 2>/dev/null | wc -l)
gtm --json --no-host >"$t/j" 2>"$t/e"
jq_ok "--no-host: off" "j['host_stream']['state'] == 'off' and j['host_stream']['why'] == '--no-host'" "$t/j"
jq_ok "--no-host: the holder listed, VRAM null" "any(p['pid'] == $cuda and p['gpus'][0]['vram_bytes'] is None for p in j['processes'])" "$t/j"
jq_ok "--no-host: no W: rows" "not any(p['label'].startswith('W:') for p in j['processes'])" "$t/j"
[ "$(cat "$t/starts" 2>/dev/null | wc -l)" = "$before" ] && ok "--no-host starts no helper" || bad "--no-host started a helper"
printf 'disabled\ninterpreter /init\n' >"$root/proc/sys/fs/binfmt_misc/WSLInterop"
gtm --once >"$t/once" 2>"$t/e"
expect "interop disabled: off" "host: off (WSL interop is disabled)" "$t/once"
printf 'enabled\ninterpreter /init\n' >"$root/proc/sys/fs/binfmt_misc/WSLInterop"

# --- garbage lines are skipped and counted
GTM_WSL_MODE=garbage gtm --json -i 0.2 >"$t/j" 2>"$t/e"
jq_ok "garbage: counted, the good line used" "j['host_stream']['bad_lines'] >= 1 and j['host_stream']['state'] == 'on'" "$t/j"

# --- a V record without Non Local Usage: that record refused, the rest kept and the reason said
echo "$vm;V luid=$L local=2147483648$app" >"$t/lines"
gtm --once >"$t/once" 2>"$t/e"
expect "a refused record: the header says so" "host: on (GPUTASKMAN_WSL_RUN), [0-9]* bad lines* (last: V record without Non Local Usage)" "$t/once"
expect "a refused record: the W: rows stay" "W:9000 *chrome.exe" "$t/once"
expect "a refused record: the note" "a vmwp.exe context came without its sizes" "$t/once"
gtm --json >"$t/j" 2>"$t/e"
jq_ok "a refused record: json bad_lines and last_bad" "j['host_stream']['bad_lines'] >= 1 and j['host_stream']['last_bad'] == 'V record without Non Local Usage' and j['host_stream']['state'] == 'on'" "$t/j"
echo "$vm$ctx$app" >"$t/lines"

# --- a helper that never answers: --once keeps its 5 s bound and says why
# (it waited for the helper, at least 4.5 s, and ended: 120 s, far above a
# loaded machine's 5 s and far below a helper's 3600 s, tells a bound from none)
s0=$(date +%s%N)
GTM_WSL_MODE=mute gtm --once >"$t/once" 2>"$t/e"
el=$(( ($(date +%s%N) - s0) / 1000000 ))
[ "$el" -ge 4500 ] && [ "$el" -le 120000 ] && ok "--once bound: $el ms" || bad "--once took $el ms, not its 5 s bound"
expect "no answer: starting, holder N/A" "host: starting" "$t/once"
expect "no answer: the holder still listed" "^$cuda " "$t/once"
gone_helpers && ok "the mute helper ended with gputaskman" || bad "a mute helper outlived gputaskman"

# --- the live view in tmux: "starting" while the helper is slow, then the rows
if command -v tmux >/dev/null 2>&1; then
	screen() { tmux -L "$sock" capture-pane -p -t gtm 2>/dev/null; }
	wait_for() { # name, pattern, seconds
		i=0
		while [ $i -lt $(($3 * 20)) ]; do
			screen | grep -q -- "$2" && { ok "$1"; return 0; }
			sleep 0.05
			i=$((i + 1))
		done
		bad "$1: no '$2' on screen:"
		screen
		return 1
	}
	live() { # env assignments for the helper, then the view runs in tmux
		tmux -L "$sock" -f /dev/null new-session -d -s gtm -x 160 -y 40 \
			"env $1 GTM_FAKE_NVML_SCENARIO='$t/scenario' LD_LIBRARY_PATH='$fake' GPUTASKMAN_ROOT='$root' \
			HOME='$t/home' GTM_WSL_LINES='$t/lines' GTM_WSL_STARTS='$t/starts' \
			GPUTASKMAN_WSL_RUN='$here/replay_helper.sh' '$bin' -i 0.2; sleep 30"
	}
	# the helper's first line waits for the gate, opened once "starting" shows
	rm -f "$t/starts" "$t/gate"
	live "GTM_WSL_GATE='$t/gate'"
	wait_for "live: starting first" "host: starting" 60
	: >"$t/gate"
	wait_for "live: then the rows" "W:4242" 60
	wait_for "live: and on" "host: on" 60
	tmux -L "$sock" send-keys -t gtm q
	gone_helpers && ok "live: q ends the helper" || bad "live: a helper outlived the view"
	tmux -L "$sock" kill-server 2>/dev/null
	# a server of its own: a new session on the socket just killed can race the
	# old server's exit ("server exited unexpectedly"); cleanup kills both
	sock1=$sock sock="$sock-die"
	# a helper that dies after two lines: restarted after a back-off, never two at once
	rm -f "$t/starts"
	live "GTM_WSL_MODE=die"
	most=0
	i=0
	while [ $i -lt 1200 ]; do # up to 60 s: an ASan build on a loaded machine starts slowly
		a=$(helpers_alive)
		[ "$a" -gt "$most" ] && most=$a
		[ -f "$t/starts" ] && [ "$(wc -l <"$t/starts")" -ge 3 ] && break
		sleep 0.05
		i=$((i + 1))
	done
	n=$(wc -l <"$t/starts" 2>/dev/null || echo 0)
	[ "$n" -ge 2 ] && ok "dying helper restarted ($n starts)" || bad "dying helper: $n starts"
	[ "$most" -le 1 ] && ok "never more than one helper" || bad "$most helpers ran at once"
	tmux -L "$sock" send-keys -t gtm q
	gone_helpers && ok "live: no helper left after q" || bad "live: a helper outlived the view"
else
	echo "SKIP live view: tmux is not installed"
fi
exit $fail
