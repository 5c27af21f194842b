#!/bin/sh
# The live view of gputaskman.exe under Wine in a tmux pane of fixed size,
# TERM unset (the Win32 console backend, not a terminal's escape codes):
#   wine_live.sh GPUTASKMAN_EXE
# the header and table are drawn, `a` lists every process, `s` sorts, Down
# selects one and the inspector follows, `?` opens the help and closes it,
# `q` quits with status 0.
set -u
gtm=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed"; exit 77; }
sock="gtm-wine-live-$$"
t=$(mktemp -d /tmp/gtm-wine-live-XXXXXX)
fail=0
cleanup() { tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$t"; }
trap cleanup EXIT INT TERM
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
screen() { tmux -L "$sock" capture-pane -p -t gtm 2>/dev/null; }
wait_for() { # NAME PATTERN [SECONDS] [absent]
	i=0
	while [ $i -lt $((${3:-15} * 10)) ]; do
		if screen | grep -q -- "$2"; then [ "${4:-}" = absent ] || { ok "$1"; return 0; }
		elif [ "${4:-}" = absent ]; then ok "$1"; return 0; fi
		sleep 0.1; i=$((i + 1))
	done
	bad "$1: screen:"; screen | sed 's/^/     | /'; return 1
}
# The prefix is this test run's (scripts/run-tests.sh makes one). Not through
# wine-run.sh: timeout(1) must leave the view in the pane's foreground process
# group (--foreground), or reading the console stops it.
: "${WINEPREFIX:=${GTM_WINEPREFIX:-$HOME/.wine-gputaskman}}"
tmux -L "$sock" -f /dev/null new-session -d -s gtm -x 120 -y 30 \
	"env -u TERM WINEPREFIX='$WINEPREFIX' WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml=' timeout --foreground 90 '${GTM_WINE:-/usr/lib/wine/wine64}' '$gtm' -i 0.5; echo \$? >'$t/rc'; sleep 60"
wait_for "the header is drawn" "gputaskman .*\\?:help" 60 || exit 1
wait_for "the table's columns" "PID NAME"
tmux -L "$sock" send-keys -t gtm a
wait_for "a lists every collected process" "all processes"
wait_for "Wine's own processes are rows" "services.exe"
tmux -L "$sock" send-keys -t gtm s
wait_for "s sorts by GPU %" "sort GPU %"
tmux -L "$sock" send-keys -t gtm Down
wait_for "a selected process fills the inspector" "\\.exe  user"
tmux -L "$sock" send-keys -t gtm '?'
wait_for "? opens the help" "What can be known about GPU memory"
# Wine's console on a tty delivers no lone Escape (it waits for the rest of a
# sequence), so the help is closed the other way it offers: `?` again.
tmux -L "$sock" send-keys -t gtm '?'
wait_for "? again closes it" "What can be known about GPU memory" 15 absent
tmux -L "$sock" send-keys -t gtm q
i=0; while [ ! -s "$t/rc" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(cat "$t/rc" 2>/dev/null)" = 0 ] && ok "q quits with status 0" || bad "q: status '$(cat "$t/rc" 2>/dev/null)'"
exit $fail
