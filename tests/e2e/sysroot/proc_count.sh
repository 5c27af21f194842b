#!/bin/sh
# The count of processes (counts.processes_seen) of the real binary ($1) is
# the listing's, whether it came from /proc's link count (the host's own
# procfs) or from a listing (any other /proc):
# - here: a glob of /proc (in a subshell, as the run is one) before and after
#   the run, retried until no process came or went around it (other tests run
#   beside this one); on a machine too busy for that in 100 tries, within the
#   churn seen around each try;
# - in a PID namespace of its own (unshare, root only), where the link count
#   would say the host's count: gputaskman is PID 1 there and alone.
set -u
bin=$1
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
t=$(mktemp -d /tmp/gtm-e2e-count-XXXXXX)
trap 'rm -rf "$t"' EXIT
unset GTM_FAKE_NVML_SCENARIO GPUTASKMAN_ROOT
export LD_LIBRARY_PATH="$t"

seen() { sed -n 's/.*"processes_seen": \([0-9][0-9]*\).*/\1/p' "$1"; }
listed() {
	set -- /proc/[1-9]*
	echo $#
}

matched=no near=no attempt=0
while [ $attempt -lt 100 ] && [ "$matched" = no ]; do
	attempt=$((attempt + 1))
	before=$(listed)
	"$bin" --once --json --no-probe >"$t/out.json" 2>"$t/err"
	after=$(listed)
	n=$(seen "$t/out.json")
	[ -n "$n" ] || break
	[ "$before" = "$after" ] && [ "$n" -eq "$before" ] && matched=yes
	lo=$before hi=$after
	[ "$lo" -le "$hi" ] || { lo=$after hi=$before; }
	[ "$n" -ge "$lo" ] && [ "$n" -le "$hi" ] && near=yes
done
if [ "$matched" = yes ]; then
	ok "processes_seen is the listing's count ($n, attempt $attempt)"
elif [ "$near" = yes ]; then
	ok "processes_seen within the listings around it in some try (the machine never held still)"
else
	bad "processes_seen ${n:-missing} never within the listings around it (last: $before before, $after after)"
	cat "$t/err"
fi

if [ "$(id -u)" -ne 0 ] || ! unshare --pid --fork --mount-proc true 2>/dev/null; then
	echo "SKIP a PID namespace of its own: unshare --pid --mount-proc needs root and a kernel that allows it"
else
	unshare --pid --fork --mount-proc "$bin" --once --json --no-probe >"$t/ns.json" 2>"$t/ns.err"
	n=$(seen "$t/ns.json")
	if [ "$n" = 1 ]; then
		ok "in its own PID namespace it counts itself alone, not the host's processes"
	else
		bad "in its own PID namespace processes_seen is ${n:-missing}, not 1"
		cat "$t/ns.err"
	fi
fi
exit $fail
