#!/bin/sh
# A process the driver lists by its own PID exits while the driver still
# lists the PID (its memory not released yet): the live view shows it as an
# exited owner (*x<pid>), in a container never handed to another CUDA process
# by pairing, natively never an H: row; and a later process that takes the PID
# but maps no NVIDIA compute library is not charged with it.
# Args: gputaskman, fake NVML folder, cuda_standin, libcuda.so.1
set -u
bin=$1 fake=$2 standin=$3 libcuda=$4
t=$(mktemp -d /tmp/gtm-e2e-nvmlx-XXXXXX)
. "$(dirname "$0")/lib.sh"
sock="gtm-nvmlx-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null; stop_standins; rm -rf "$t"' EXIT
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed"; exit 77; }
dev='device name="NVIDIA H100 80GB HBM3" bus=00000000:1A:00.0 mem_total=85899345920 mem_used=3221225472'
never() { # name, pattern: absent now (checked after the screen settled)
	if screen | grep -q -- "$2"; then bad "$1: screen:"; screen | sed 's/^/     | /'; else ok "$1"; fi
}
# refreshed SCENARIO: SCENARIO again with the device's used memory one GiB up
# (a marker), waited for on the screen: the view has refreshed since what came
# before, however slow the machine (a fixed sleep promised no refresh at all)
mark=3
refreshed() {
	mark=$((mark + 1))
	scenario "$(printf '%s\n' "$1" | sed "s/mem_used=[0-9]*/mem_used=$((mark * 1073741824))/")"
	wait_for "a refresh after it (the marker $mark GiB drawn)" "$mark.00 GiB/80.00 GiB"
}
live() {
	tmux -L "$sock" -f /dev/null new-session -d -s gtm -x 200 -y 50 \
		"env GTM_FAKE_NVML_SCENARIO='$t/scenario' LD_LIBRARY_PATH='$fake' GPUTASKMAN_ROOT='$root' '$bin' -i 0.2 2>'$t/err'; echo \$? >'$t/rc'; sleep 60"
}

# A container whose PID namespace is the driver's (a local PID listed), and a
# second CUDA process, idle: when A exits, its PID is no host PID to pair B with.
make_root "$t/c" container
start_standin A
start_standin B
view_add "$A"; view_add "$B"; view_add $$
scenario "$dev
process dev=0 pid=$A mem=1406669701"
live
wait_for "container: the listed local PID is its process's row" " $A  *cuda_standin" || { sed 's/^/     | /' "$t/err"; exit 1; }
kill "$A"; wait "$A" 2>/dev/null
view_drop "$A"
wait_for "container: its PID, still listed, is an exited owner: *xPID" "\\*x$A"
refreshed "$dev
process dev=0 pid=$A mem=1406669701"
refreshed "$dev
process dev=0 pid=$A mem=1406669701"
never "container: the exited PID is not paired with another CUDA process" "\\*$B"
never "container: nor guessed" "?$B"
expect_exited_gone() {
	scenario "$dev"
	wait_for "$1: the exited row goes when the driver drops the PID" "\\*x$2" absent
}
expect_exited_gone container "$A"
tmux -L "$sock" kill-server 2>/dev/null
stop_standins

# Natively: the exited PID is *x, not an H: row.
make_root "$t/n"
start_standin C
view_add "$C"; view_add $$
scenario "$dev
process dev=0 pid=$C mem=1406669701"
live
wait_for "native: the listed PID is its process's row" " $C  *cuda_standin" || { sed 's/^/     | /' "$t/err"; exit 1; }
kill "$C"; wait "$C" 2>/dev/null
view_drop "$C"
wait_for "native: the exited PID is an exited owner: *xPID" "\\*x$C"
never "native: and no H: row" "H:$C"
# The PID taken by a later process that maps no NVIDIA compute library (this
# shell's copy stands for it): still the exited owner's, not the newcomer's.
mkdir -p "$t/n.stage/proc"; "$GTM_CAPTURE_PROC" "$t/n.stage" $$ || exit 1
mv "$t/n.stage/proc/$$" "$root/proc/$C.new" && sed -i "s/^$$ /$C /" "$root/proc/$C.new/stat" && mv "$root/proc/$C.new" "$root/proc/$C"
refreshed "$dev
process dev=0 pid=$C mem=1406669701"
wait_for "native: a later process on the PID mapping no CUDA leaves the exited row" "\\*x$C"
never "native: the newcomer is not charged" " $C  "
expect_exited_gone native "$C"
[ -s "$t/rc" ] && bad "the live view exited: $(cat "$t/rc"); $(cat "$t/err")" || ok "the live view kept running"
exit $fail
