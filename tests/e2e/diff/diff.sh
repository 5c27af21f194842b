#!/bin/sh
# `gputaskman diff` end to end: snapshot pairs taken by the real binary ($1)
# against the fake NVML ($2: its folder), with stand-in GPU processes ($4, which
# maps the fake libcuda $3): a server restarted under a new PID on the same
# port, a process that appears only after, small movers hidden, a host-only PID;
# then bad inputs, each one line naming the file, exit 2.
set -u
bin=$1 nvml_dir=$2 libcuda=$3 standin=$4
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
check_rc() { # name, expected, actual
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: exit $3, expected $2"; cat "$t/err" 2>/dev/null; fi
}
expect() { # name, fixed string, file
	if grep -qF -- "$2" "$3"; then ok "$1"; else bad "$1: no '$2' in $3:"; cat "$3"; fi
}
expect_not() {
	if grep -qF -- "$2" "$3"; then bad "$1: '$2' in $3:"; cat "$3"; else ok "$1"; fi
}
t=$(mktemp -d /tmp/gtm-diff-XXXXXX)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$t"
}
trap cleanup EXIT INT TERM

# start NAME PORT: a stand-in called NAME (its comm) listening on PORT (-1: none).
# Sets $started to its PID and $port to the port it listens on.
start() {
	[ -e "$t/$1" ] || cp "$standin" "$t/$1" || exit 1
	"$t/$1" --lib "$libcuda" --port "$2" --seconds 120 >"$t/$1.$$.out" 2>&1 &
	started=$!
	pids="$pids $started"
	n=0
	until grep -q '^ready' "$t/$1.$$.out" 2>/dev/null; do
		n=$((n + 1))
		if [ $n -gt 100 ] || ! kill -0 "$started" 2>/dev/null; then
			echo "FAIL stand-in $1 did not start:"; cat "$t/$1.$$.out"; exit 1
		fi
		sleep 0.05
	done
	port=$(sed -n 's/^ready //p' "$t/$1.$$.out")
	rm -f "$t/$1.$$.out"
}

# scenario FILE LINES...: written whole, then renamed, as the fake expects.
scenario() {
	f=$1; shift
	printf '%s\n' "$@" >"$t/scn.tmp" && mv "$t/scn.tmp" "$f"
}
snap() { # OUT: a --json snapshot against the current scenario
	LD_LIBRARY_PATH="$nvml_dir" GTM_FAKE_NVML_SCENARIO="$t/scenario" "$bin" --json --no-probe >"$1" 2>"$t/err" ||
		{ bad "gputaskman --json exited $?"; cat "$t/err"; }
}
GiB=1073741824 MiB=1048576

start llama-server 0; srv1=$started; port1=$port
start llama-server 0; srv2=$started; port2=$port
start worker -1; worker=$started
dev='device name="NVIDIA H100 80GB HBM3" uuid=GPU-1111 bus=00000000:1A:00.0 mem_total=85899345920'
scenario "$t/scenario" "$dev mem_used=$((3 * GiB + 104 * MiB))" \
	"process dev=0 pid=$srv1 mem=$GiB" \
	"process dev=0 pid=$srv2 mem=$((2 * GiB))" \
	"process dev=0 pid=$worker mem=$((4 * MiB))" \
	"process dev=0 pid=4000001 mem=$((100 * MiB))"
snap "$t/before.json"

# The first server restarts under a new PID on its port; a job appears.
kill "$srv1"; wait "$srv1" 2>/dev/null
start llama-server "$port1"; srv1b=$started
[ "$port" = "$port1" ] || bad "restarted stand-in got port $port, not $port1"
start python-job -1; job=$started
scenario "$t/scenario" "$dev mem_used=$((6 * GiB + 117 * MiB))" \
	"process dev=0 pid=$srv1b mem=$((3 * GiB))" \
	"process dev=0 pid=$srv2 mem=$((2 * GiB + 512 * MiB))" \
	"process dev=0 pid=$worker mem=$((5 * MiB))" \
	"process dev=0 pid=4000001 mem=$((100 * MiB))" \
	"process dev=0 pid=$job mem=$((500 * MiB))"
snap "$t/after.json"

"$bin" diff "$t/before.json" "$t/after.json" >"$t/text" 2>"$t/err"; check_rc "diff exits 0" 0 $?
echo "--- gputaskman diff before.json after.json:"; cat "$t/text"; echo "---"
expect "device used grew" "+3.01 GiB" "$t/text"
expect "restart paired by name and port" "llama-server $srv1 -> $srv1b" "$t/text"
expect "restart is said" "restarted (same name and ports)" "$t/text"
expect "restarted server measured" "+2.00 GiB" "$t/text"
expect "new process: not listed before" "not listed before" "$t/text"
expect "same server by PID" "+512.00 MiB" "$t/text"
expect "small movers hidden, counted" "moved by less than 16 MiB and" "$t/text"
expect_not "worker hidden" "worker" "$t/text"
"$bin" diff --all "$t/before.json" "$t/after.json" >"$t/all" 2>"$t/err"; check_rc "diff --all exits 0" 0 $?
expect "--all shows the worker" "worker $worker" "$t/all"
echo "--- --all:"; sed -n '/^Processes/,$p' "$t/all"; echo "---"

"$bin" diff --json "$t/before.json" - <"$t/after.json" >"$t/diff.json" 2>"$t/err"; check_rc "diff --json (after on stdin)" 0 $?
python3 - "$t/diff.json" "$srv1" "$srv1b" "$srv2" "$worker" "$job" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
srv1, srv1b, srv2, worker, job = map(int, sys.argv[2:])
assert d["diff_schema_version"] == 1 and d["warnings"] == [], d["warnings"]
rows = {}
for p in d["processes"]:
    side = p["after"] or p["before"]
    rows[side["pid"] if side["pid"] is not None else "H:%s" % side["host_pid"]] = p
def chk(cond, what):
    if not cond:
        print("FAIL", what); print(json.dumps(d, indent=1)); sys.exit(1)
    print("ok  ", what)
r = rows[srv1b]
chk(r["before"]["pid"] == srv1 and r["paired_by"] == "name+ports" and r["restarted"], "json: restart paired by name+ports")
chk(r["measured"]["vram_total_bytes"]["delta"] == 2 << 30, "json: restart delta 2 GiB")
chk(rows[srv2]["paired_by"] == "pid+start_time", "json: same server by pid+start_time")
chk(rows[job]["before"] is None and rows[job]["paired_by"] is None, "json: new job not listed before")
chk(rows[job]["measured"]["vram_total_bytes"]["delta"] is None, "json: no delta against not listed")
chk(rows[worker]["hidden_in_text"] and rows[worker]["measured"]["vram_total_bytes"]["delta"] == 1 << 20, "json: worker listed, hidden in text")
h = [p for k, p in rows.items() if isinstance(k, str)]
chk(len(h) == 1, "json: one host-only row (PID 4000001 is in no /proc)")
chk(h[0]["paired_by"] == "host_pid" and h[0]["hidden_in_text"], "json: H: row paired by host PID, unmoved")
chk(d["hidden_in_text"] == sum(p["hidden_in_text"] for p in d["processes"]), "json: hidden count matches rows")
g = d["gpus"][0]
chk(g["paired_by"] == "uuid" and g["memory"]["used_bytes"]["delta"] == 3 * (1 << 30) + 13 * (1 << 20), "json: device used delta")
PY

# Another GPU in the same machine's after snapshot: warned, compared anyway.
scenario "$t/scenario" 'device name="NVIDIA RTX A4000" uuid=GPU-2222 bus=00000000:02:00.0 mem_total=17179869184 mem_used=0'
snap "$t/other_gpu.json"
"$bin" diff "$t/before.json" "$t/other_gpu.json" >"$t/text" 2>"$t/err"; check_rc "different GPU: exit 0" 0 $?
expect "different GPU warned" "warning: GPU 0 (NVIDIA H100 80GB HBM3, GPU-1111) is in the before snapshot only" "$t/text"

# Bad input: one line on stderr naming the file and the problem, exit 2.
refused() { # name, expected text, args...
	name=$1 want=$2; shift 2
	"$bin" diff "$@" >"$t/out" 2>"$t/err"; check_rc "$name: exit 2" 2 $?
	expect "$name: says why" "$want" "$t/err"
	[ "$(wc -l <"$t/err")" -eq 1 ] && ok "$name: one line" || { bad "$name: not one line"; cat "$t/err"; }
	[ -s "$t/out" ] && { bad "$name: wrote to stdout"; cat "$t/out"; }
}
refused "missing file" "$t/nope.json: no such file" "$t/before.json" "$t/nope.json"
head -c 300 "$t/after.json" >"$t/cut.json"
refused "truncated" "$t/cut.json: truncated JSON" "$t/before.json" "$t/cut.json"
echo '{"hello": "world"}' >"$t/other.json"
refused "not a snapshot" "$t/other.json: not a gputaskman snapshot" "$t/other.json" "$t/after.json"
sed 's/"schema_version": 1,/"schema_version": 7,/' "$t/after.json" >"$t/v7.json"
refused "newer schema" "$t/v7.json: schema_version 7 is newer" "$t/before.json" "$t/v7.json"
refused "a diff is not a snapshot" "is a gputaskman diff" "$t/diff.json" "$t/after.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["hostname"]="elsewhere"; json.dump(d, open(sys.argv[2],"w"))' \
	"$t/after.json" "$t/host.json"
refused "other machine" "different machines" "$t/before.json" "$t/host.json"
"$bin" diff --force "$t/before.json" "$t/host.json" >"$t/text" 2>"$t/err"; check_rc "--force compares other machines" 0 $?
expect "--force still warns" "warning: the snapshots are from different machines" "$t/text"
refused "one file" "needs two snapshots" "$t/before.json"
refused "unknown option" "unknown option '--bogus'" --bogus "$t/before.json" "$t/after.json"
"$bin" diff --help >"$t/out" 2>&1; check_rc "diff --help" 0 $?
expect "--help shows usage" "gputaskman diff BEFORE.json AFTER.json" "$t/out"
exit $fail
