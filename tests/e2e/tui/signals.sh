#!/bin/sh
# A signal never leaves the terminal in curses mode: the live view
# (the real binary $1, against the fake NVML in $2) runs in tmux; each of
# SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTERM, SIGHUP and SIGINT is sent
# to it, and afterwards the pane is off the alternate screen with its cursor
# shown, the tty is back in canonical mode with echo, and the shell saw the
# process die of that signal (status 128 + N; SIGINT, the user's Ctrl-C, is a
# way to quit: exit status 130).
set -u
bin=$1 fakedir=$2
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed (make deps)"; exit 77; }
t=$(mktemp -d /tmp/gtm-sig-XXXXXX)
base="gtm-sig-$$" sock=$base
fail=0
cleanup() { for s in SEGV BUS ABRT FPE ILL TERM HUP INT; do tmux -L "$base-$s" kill-server 2>/dev/null; done; rm -rf "$t"; }
trap cleanup EXIT INT TERM
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
pane() { tmux -L "$sock" display -p -t gtm "$1" 2>/dev/null; }
cat >"$t/scn" <<SCN
device name="NVIDIA Signal GPU" uuid=GPU-sig-0 bus=0000:01:00.0 mem_total=17179869184 mem_used=1073741824
SCN

# The signal numbers of Linux on x86-64 and arm64 (signal(7)).
for pair in SEGV:11 BUS:7 ABRT:6 FPE:8 ILL:4 TERM:15 HUP:1 INT:2; do
	sig=${pair%:*} n=${pair#*:}
	sock="$base-$sig" # a fresh tmux server each time: the last one may still be shutting down
	rm -f "$t/pid" "$t/rc" "$t/stty"
	# The inner sh becomes gputaskman (exec), so its PID is the view's.
	tmux -L "$sock" -f /dev/null new-session -d -s gtm -x 100 -y 30 \
		"sh -c 'echo \$\$ >$t/pid; exec env LD_LIBRARY_PATH=$fakedir GTM_FAKE_NVML_SCENARIO=$t/scn $bin -i 0.5 2>$t/err'; echo \$? >$t/rc; stty -a >$t/stty 2>&1; sleep 60"
	i=0
	until tmux -L "$sock" capture-pane -p -t gtm 2>/dev/null | grep -q "NVIDIA Signal GPU"; do
		i=$((i + 1)); [ $i -gt 1500 ] && break; sleep 0.02
	done
	if [ "$(pane '#{alternate_on}')" != 1 ]; then
		bad "SIG$sig: the view did not start on the alternate screen"; cat "$t/err" 2>/dev/null
		tmux -L "$sock" kill-server 2>/dev/null; continue
	fi
	kill -s "$sig" "$(cat "$t/pid")"
	i=0; while [ ! -s "$t/stty" ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i + 1)); done # 60 s: ASan reports first
	rc=$(cat "$t/rc" 2>/dev/null)
	[ "$rc" = $((128 + n)) ] && ok "SIG$sig: died of the signal (status $rc)" || bad "SIG$sig: status '$rc', expected $((128 + n))"
	[ "$(pane '#{alternate_on}')" = 0 ] && ok "SIG$sig: off the alternate screen" || bad "SIG$sig: still on the alternate screen"
	[ "$(pane '#{cursor_flag}')" = 1 ] && ok "SIG$sig: cursor shown" || bad "SIG$sig: cursor hidden"
	[ "$(pane '#{mouse_any_flag}')$(pane '#{mouse_standard_flag}')$(pane '#{mouse_button_flag}')" = 000 ] &&
		ok "SIG$sig: mouse reporting off" || bad "SIG$sig: mouse reporting still on"
	if grep -q -- ' icanon ' "$t/stty" && grep -q -- ' echo ' "$t/stty"; then ok "SIG$sig: tty canonical with echo"
	else bad "SIG$sig: tty modes not restored:"; cat "$t/stty"; fi
	tmux -L "$sock" kill-server 2>/dev/null
done
exit $fail
