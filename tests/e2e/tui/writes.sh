#!/bin/sh
# A redraw reaches the terminal in a few write(2) calls, not one per cursor
# move: the live view (the real binary $1, against the fake NVML in $2) runs
# in tmux under strace for its first screens and a quit; each screen has
# dozens of separate runs (60 lines of text, charts), so a view whose
# ncurses flushes after every move makes hundreds of writes to the terminal.
set -u
bin=$1 fakedir=$2
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed (make deps)"; exit 77; }
command -v strace >/dev/null 2>&1 || { echo "SKIP: strace is not installed"; exit 77; }
t=$(mktemp -d /tmp/gtm-writes-XXXXXX)
sock="gtm-writes-$$"
cleanup() { tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$t"; }
trap cleanup EXIT INT TERM
cat >"$t/scn" <<SCN
device name="NVIDIA Writes GPU" uuid=GPU-w-0 bus=0000:01:00.0 mem_total=17179869184 mem_used=1073741824 util_gpu=40 temp=50
process dev=0 pid=$$ list=compute mem=104857600 sm=10
SCN
if ! strace -f -qq -e trace=write -o "$t/probe" true 2>/dev/null; then
	echo "SKIP: strace cannot trace here (ptrace refused)"; exit 77
fi
tmux -L "$sock" -f /dev/null new-session -d -s gtm -x 200 -y 60 \
	"env LD_LIBRARY_PATH=$fakedir GTM_FAKE_NVML_SCENARIO=$t/scn LANG=C.UTF-8 TERM=xterm-256color strace -f -qq -e trace=write -o $t/trace $bin -i 30 --no-probe 2>$t/err; echo \$? >$t/rc; sleep 60"
i=0
until tmux -L "$sock" capture-pane -p -t gtm 2>/dev/null | grep -q "NVIDIA Writes GPU"; do
	i=$((i + 1)); [ $i -gt 1500 ] && { echo "FAIL: the view never drew"; cat "$t/err"; exit 1; }; sleep 0.02
done
tmux -L "$sock" send-keys -t gtm q
i=0; while [ ! -s "$t/rc" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i + 1)); done
[ -s "$t/rc" ] || { echo "FAIL: the view did not quit"; exit 1; }
# write(1, ...) lines: the terminal's (the wake-up pipe is another fd)
n=$(grep -c 'write(1,' "$t/trace")
# the screens drawn: one at start, the first snapshot (the next is 30 s away), the quit
echo "writes to the terminal: $n"
if [ "$n" -gt 0 ] && [ "$n" -le 40 ]; then echo "ok   a redraw is a few writes ($n in all)"; exit 0; fi
echo "FAIL: $n writes to the terminal for a few screens"
exit 1
