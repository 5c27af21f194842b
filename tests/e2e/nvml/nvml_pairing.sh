#!/bin/sh
# Container pairing with the real binary: stand-in processes mapping a library
# named libcuda.so.1, a container's view of /proc (GPUTASKMAN_ROOT holding only
# their PIDs, and /.dockerenv), and the fake NVML listing host PIDs that are
# no process here. Then the live view (tmux): a process started while
# gputaskman watches is pinned to the host PID that appears with it, and an
# NVML error mid-run is shown without a crash.
# Args: gputaskman, fake NVML folder, cuda_standin, libcuda.so.1
set -u
bin=$1 fake=$2 standin=$3 libcuda=$4
t=$(mktemp -d /tmp/gtm-e2e-nvmlp-XXXXXX)
. "$(dirname "$0")/lib.sh"
sock="gtm-nvml-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null; stop_standins; rm -rf "$t"' EXIT

make_root "$t/root" container
start_standin A
start_standin B
view_add "$A"; view_add "$B"; view_add $$
h1=$(absent_pid 4194401); h2=$(absent_pid $((h1 + 1))); h3=$(absent_pid $((h2 + 1))); h4=$(absent_pid $((h3 + 1)))
dev='device name="NVIDIA H100 80GB HBM3" bus=00000000:1A:00.0 mem_total=85899345920 mem_used=3221225472'

# As many host PIDs as CUDA processes here: certain, in creation order.
scenario "$dev
process dev=0 pid=$h1 mem=1073741824
process dev=0 pid=$h2 mem=2147483648"
gtm --json >"$t/j" 2>"$t/e"; check_rc "container: --json exits 0" 0 $?
jcheck "$t/j" "counts match: '*' rows in creation order" "
assert d['mode'] == 'container', d['mode']
a = row('*$A'); b = row('*$B')
assert a['owner'] == 'matched' and a['pid'] == $A and a['host_pid'] == $h1, a
assert b['host_pid'] == $h2 and b['gpus'][0]['vram_bytes'] == 2147483648, b
assert a['gpus'][0]['source_pid'] == $h1
assert 'creation order' in a['owner_reason'], a['owner_reason']
assert a['name'] == 'cuda_standin' and a['cmdline'], a
assert d['processes'][0]['label'] == '*$B', 'more VRAM first'
"
gtm --once >"$t/o" 2>"$t/e"
expect_out "--once shows *PID" "\\*$A" "$t/o"

# A host graphics process (the display server: graphics list only, no
# libcuda) is no CUDA process: the compute PIDs (one in both lists) and the
# CUDA processes here are as many, so '*', and the graphics PID is H:.
hx=$(absent_pid $((h4 + 1)))
scenario "$dev
process dev=0 pid=$h1 mem=1073741824 list=both
process dev=0 pid=$h2 mem=2147483648
process dev=0 pid=$hx mem=268435456 list=graphics"
gtm --json >"$t/j" 2>"$t/e"
jcheck "$t/j" "a graphics-only host PID leaves the pairing certain" "
a = row('*$A'); b = row('*$B')
assert a['host_pid'] == $h1 and a['gpus'][0]['compute'] and a['gpus'][0]['graphics'], a
assert b['host_pid'] == $h2 and b['owner'] == 'matched', b
x = row('H:$hx')
assert x['owner'] == 'host' and 'graphics list only' in x['owner_reason'], x
assert all(p['exited_owner'] is None for p in d['processes'])
"

# NVML lists more than the container has: '?' and the rest H:.
scenario "$dev
process dev=0 pid=$h1 mem=1073741824
process dev=0 pid=$h2 mem=2147483648
process dev=0 pid=$h3 mem=4096"
gtm --json >"$t/j" 2>"$t/e"
jcheck "$t/j" "more host PIDs than processes: '?' and H:" "
assert row('?$A')['owner'] == 'guessed' and row('?$A')['host_pid'] == $h1
assert row('?$B')['host_pid'] == $h2
h = row('H:$h3')
assert h['owner'] == 'host' and h['pid'] is None and h['cmdline'] is None, h
assert h['owner_reason'], h
"

# Live: a new process and a new host PID appear together → pinned '*'.
command -v tmux >/dev/null 2>&1 || { echo "skip live part: tmux is not installed"; exit $fail; }
tmux -L "$sock" -f /dev/null new-session -d -s gtm -x 200 -y 50 \
	"env GTM_FAKE_NVML_SCENARIO='$t/scenario' LD_LIBRARY_PATH='$fake' GPUTASKMAN_ROOT='$root' '$bin' -i 0.2 2>'$t/err'; echo \$? >'$t/rc'; sleep 60"
wait_for "live view shows the guessed rows" "?$A" || { sed 's/^/     | /' "$t/err"; exit 1; }
wait_for "live view shows the host row" "H:$h3"
start_standin C
view_stage "$C"
scenario "$dev
process dev=0 pid=$h1 mem=1073741824
process dev=0 pid=$h2 mem=2147483648
process dev=0 pid=$h3 mem=4096
process dev=0 pid=$h4 mem=8192"
view_commit "$C"
wait_for "a process started while watched is pinned: *PID" "\\*$C"
wait_for "the earlier pairings hold" "?$B"
wait_for "the unpaired host PID stays H:" "H:$h3"

# C exits while NVML still lists its host PID: shown exited. D, started
# after it, gets only the PID left unpaired ($h3), and as a guess beside the
# guessed pairings; C's PID is not handed to it.
kill "$C"; wait "$C" 2>/dev/null
view_drop "$C"
start_standin D
view_add "$D"
wait_for "an exited owner's host PID shows as exited: *xPID" "\\*x$C"
wait_for "a later process gets the PID left over, guessed" "?$D"
wait_for "the exited row stays beside it" "\\*x$C"
wait_for "no H: row is left" "H:$h3" absent
scenario "$dev
process dev=0 pid=$h1 mem=1073741824
process dev=0 pid=$h2 mem=2147483648
process dev=0 pid=$h3 mem=4096"
wait_for "the exited row goes when NVML drops the PID" "\\*x$C" absent

scenario "fail all
$dev"
wait_for "an NVML error mid-run is shown" "GPU is lost"
scenario "$dev
process dev=0 pid=$h4 mem=8192"
wait_for "after the error the GPU is back" "NVIDIA H100"
[ -s "$t/rc" ] && bad "the live view exited: $(cat "$t/rc"); $(cat "$t/err")" || ok "the live view kept running"
exit $fail
