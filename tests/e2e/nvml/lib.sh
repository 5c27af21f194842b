# Shared by the NVML e2e scripts (sourced). Expects $t (a temp folder) and
# $fake (the fake libnvidia-ml.so.1's folder).
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
check_rc() { # name, expected, actual (stderr of the run in $t/e is shown on failure)
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: exit $3, expected $2"; cat "$t/e" 2>/dev/null; fi
}
expect_out() { # name, pattern, file
	if grep -q -- "$2" "$3"; then ok "$1"; else bad "$1: no '$2' in:"; cat "$3"; fi
}
# scenario TEXT: replaces the scenario atomically.
scenario() {
	printf '%s\n' "$1" >"$t/scenario.tmp" && mv "$t/scenario.tmp" "$t/scenario"
}
# gtm ARGS...: the binary against the fake NVML and the view in $root.
gtm() {
	GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake" GPUTASKMAN_ROOT="$root" "$bin" "$@"
}
# make_root DIR [container]: a replay of /proc holding its system files and
# only the PIDs added with view_add (copied by capture_proc: a root never
# follows a link out of itself), so the run sees the processes the test
# chose, as in a container's /proc.
make_root() {
	"$GTM_CAPTURE_PROC" "$1" || exit 1
	[ "${2:-}" = container ] && : >"$1/.dockerenv"
	root=$1
}
view_add() { "$GTM_CAPTURE_PROC" "$root" "$1" || exit 1; }
# view_stage PID / view_commit PID: the copy made beside the root, then
# renamed into it, so a process and a scenario change (written just before
# view_commit) reach a live view in the same refresh however slow the copy.
view_stage() { mkdir -p "$root.stage/proc"; "$GTM_CAPTURE_PROC" "$root.stage" "$1" || exit 1; }
view_commit() { mv "$root.stage/proc/$1" "$root/proc/$1"; }
# view_drop PID: the copy goes, as the folder of an exited process does.
view_drop() { rm -rf "$root/proc/$1"; }
# absent_pid FROM: a PID at or above FROM that is no process here.
absent_pid() {
	p=$1
	while kill -0 "$p" 2>/dev/null || [ -d "/proc/$p" ]; do p=$((p + 1)); done
	echo "$p"
}
# start_standin VAR: a process mapping libcuda.so.1; its PID goes into VAR.
start_standin() {
	mkfifo "$t/in.$1"
	"$standin" "$libcuda" <>"$t/in.$1" >"$t/out.$1" 2>&1 &
	eval "$1=\$!"
	standins="${standins:-} $!"
	for _ in $(seq 1200); do grep -q ready "$t/out.$1" 2>/dev/null && break; sleep 0.05; done # 60 s at most
	grep -q ready "$t/out.$1" || { echo "FAIL stand-in did not start:"; cat "$t/out.$1"; exit 1; }
	sleep 0.05 # distinct start times (clock ticks): creation order is defined
}
stop_standins() {
	for p in ${standins:-}; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	standins=
}
# jcheck FILE NAME PYTHON: runs assertions on the JSON in FILE (variable d).
jcheck() {
	if python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
def rows(label=None, **kw):
    return [p for p in d['processes'] if (label is None or p['label'] == label) and all(p.get(k) == v for k, v in kw.items())]
def row(label):
    r = rows(label)
    assert len(r) == 1, 'no single row %s in %s' % (label, [p['label'] for p in d['processes']])
    return r[0]
$3
" "$1"; then ok "$2"; else bad "$2"; fi
}

# The live view in tmux session "gtm" on server $sock (the caller sets sock):
# screen prints it; wait_for NAME PATTERN [absent] waits until PATTERN shows
# (or, with absent, is gone) and says ok, else bad with the screen.
screen() { tmux -L "$sock" capture-pane -p -t gtm 2>/dev/null; }
wait_for() { # name, pattern, [absent]
	for _ in $(seq 600); do # 30 s: a loaded CI machine is slow
		if screen | grep -q -- "$2"; then [ "${3:-}" = absent ] || { ok "$1"; return 0; }
		elif [ "${3:-}" = absent ]; then ok "$1"; return 0; fi
		sleep 0.05
	done
	bad "$1: screen:"; screen | sed 's/^/     | /'; return 1
}
