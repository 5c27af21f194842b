#!/bin/sh
# `gputaskman diff` end to end: snapshot pairs taken by the real binary ($1)
# against the fake NVML ($2: its folder), with stand-in GPU processes ($4, which
# maps the fake libcuda $3): a server restarted under a new PID on the same
# port, a llama-server restarted with a larger -c (the KV estimate beside the
# measured growth, through identify and explain), a process that appears only
# after, small movers hidden, a host-only PID; then bad inputs, each one line
# naming the file, exit 2.
set -u
bin=$1 nvml_dir=$2 libcuda=$3 standin=$4
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
# The stand-ins run in their own folder: every path they are given is absolute.
bin=$(abs "$bin") nvml_dir=$(abs "$nvml_dir") libcuda=$(abs "$libcuda") standin=$(abs "$standin")
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

# start NAME PORT [ARGS...]: a stand-in called NAME (its comm) listening on PORT
# (-1: none), run in $t. Sets $started to its PID and $port to its port.
start() {
	name=$1 p=$2; shift 2
	[ -e "$t/$name" ] || cp "$standin" "$t/$name" || exit 1
	(cd "$t" && exec "./$name" --lib "$libcuda" --port "$p" --seconds 120 "$@") >"$t/$name.$$.out" 2>&1 &
	started=$!
	pids="$pids $started"
	n=0
	until grep -q '^ready' "$t/$name.$$.out" 2>/dev/null; do
		n=$((n + 1))
		if [ $n -gt 1200 ] || ! kill -0 "$started" 2>/dev/null; then # 60 s at most
			echo "FAIL stand-in $name did not start:"; cat "$t/$name.$$.out"; exit 1
		fi
		sleep 0.05
	done
	port=$(sed -n 's/^ready //p' "$t/$name.$$.out")
	rm -f "$t/$name.$$.out"
}

# scenario FILE LINES...: written whole, then renamed, as the fake expects.
scenario() {
	f=$1; shift
	printf '%s\n' "$@" >"$t/scn.tmp" && mv "$t/scn.tmp" "$f"
}
# The stand-ins' /proc, copied into a replay tree without the container marker
# files (capture_proc: a root never follows a link out of itself): gputaskman
# runs in native mode even inside a test container, so a PID in no /proc is an
# H: row rather than a guess at someone else's process. The model file is put
# where the stand-ins' paths name it, inside the tree.
snap() { # OUT: a --json snapshot against the current scenario
	rm -rf "$t/root" && mkdir -p "$t/root$t" && cp "$t/llama.gguf" "$t/root$t/" || exit 1
	live=""
	for p in $pids; do kill -0 "$p" 2>/dev/null && live="$live $p"; done
	# shellcheck disable=SC2086 # one PID a word
	"$GTM_CAPTURE_PROC" "$t/root" $live || exit 1
	GPUTASKMAN_ROOT="$t/root" LD_LIBRARY_PATH="$nvml_dir" GTM_FAKE_NVML_SCENARIO="$t/scenario" \
		"$bin" --json --no-probe >"$1" 2>"$t/err" ||
		{ bad "gputaskman --json exited $?"; cat "$t/err"; }
}
GiB=1073741824 MiB=1048576

"$standin" --write-gguf "$t/llama.gguf" || { echo "FAIL writing the GGUF"; exit 1; }
start llama-server 0; srv1=$started; port1=$port
start llama-server 0; srv2=$started
start worker -1; worker=$started
# 32 layers x 8 KV heads x 128 x f16 x (K+V) = 128 KiB per token: 512 MiB at -c 4096.
start llama-server 0 -m llama.gguf -c 4096 -ngl 99; model1=$started; portm=$port
dev='device name="NVIDIA H100 80GB HBM3" uuid=GPU-1111 bus=00000000:1A:00.0 mem_total=85899345920'
scenario "$t/scenario" "$dev mem_used=$((4 * GiB + 616 * MiB))" \
	"process dev=0 pid=$srv1 mem=$GiB" \
	"process dev=0 pid=$srv2 mem=$((2 * GiB))" \
	"process dev=0 pid=$worker mem=$((4 * MiB))" \
	"process dev=0 pid=4194401 mem=$((100 * MiB))" \
	"process dev=0 pid=$model1 mem=$((1536 * MiB))"
snap "$t/before.json"

# The first server restarts under a new PID on its port; a job appears.
kill "$srv1"; wait "$srv1" 2>/dev/null
start llama-server "$port1"; srv1b=$started
[ "$port" = "$port1" ] || bad "restarted stand-in got port $port, not $port1"
start python-job -1; job=$started
# The model server restarts with twice the context: the KV estimate grows by
# 512 MiB, the measured VRAM (as lazily as a real one may) by 256 MiB.
kill "$model1"; wait "$model1" 2>/dev/null
start llama-server "$portm" -m llama.gguf -c 8192 -ngl 99; model2=$started
scenario "$t/scenario" "$dev mem_used=$((7 * GiB + 885 * MiB))" \
	"process dev=0 pid=$srv1b mem=$((3 * GiB))" \
	"process dev=0 pid=$srv2 mem=$((2 * GiB + 512 * MiB))" \
	"process dev=0 pid=$worker mem=$((5 * MiB))" \
	"process dev=0 pid=4194401 mem=$((100 * MiB))" \
	"process dev=0 pid=$job mem=$((500 * MiB))" \
	"process dev=0 pid=$model2 mem=$((1792 * MiB))"
snap "$t/after.json"

"$bin" diff "$t/before.json" "$t/after.json" >"$t/text" 2>"$t/err"; check_rc "diff exits 0" 0 $?
echo "--- gputaskman diff before.json after.json:"; cat "$t/text"; echo "---"
expect "device used grew" "+3.26 GiB" "$t/text"
expect "restart paired by name and port" "llama-server $srv1 -> $srv1b" "$t/text"
expect "restart is said" "restarted (same name and ports)" "$t/text"
expect "restarted server measured" "+2.00 GiB" "$t/text"
expect "new process: not listed before" "not listed before" "$t/text"
expect "same server by PID" "+512.00 MiB" "$t/text"
expect "small movers hidden, counted" "moved by less than 16 MiB and" "$t/text"
expect_not "worker hidden" "worker" "$t/text"
expect "model server restart paired" "llama-server $model1 -> $model2" "$t/text"
expect "KV estimate beside measured growth" \
	"KV cache estimate changed by +512.00 MiB; measured VRAM changed by +256.00 MiB (0.50x the estimate)" "$t/text"
expect "lazy allocation note" "Lazy allocation, allocator caching and sliding-window attention" "$t/text"
expect "advice: after one request" 'Take the "after" snapshot once the model has answered one request.' "$t/text"
expect "estimate listed apart" "breakdown kv_cache GPU [estimate]" "$t/text"
expect "the -c change is shown" "llama.cpp flags: -c 4096 -> 8192" "$t/text"
expect "model file is evidence" "llama.gguf  [" "$t/text"
"$bin" diff --all "$t/before.json" "$t/after.json" >"$t/all" 2>"$t/err"; check_rc "diff --all exits 0" 0 $?
expect "--all shows the worker" "worker $worker" "$t/all"
echo "--- --all:"; sed -n '/^Processes/,$p' "$t/all"; echo "---"

"$bin" diff --json "$t/before.json" - <"$t/after.json" >"$t/diff.json" 2>"$t/err"; check_rc "diff --json (after on stdin)" 0 $?
python3 - "$t/diff.json" "$srv1" "$srv1b" "$srv2" "$worker" "$job" "$model1" "$model2" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
srv1, srv1b, srv2, worker, job, model1, model2 = map(int, sys.argv[2:])
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
# In container mode a host PID may be paired with a local process (attribution's
# rules, not diff's): the H: row is only certain in native mode.
if json.load(open(sys.argv[1].replace("diff.json", "before.json")))["mode"] == "native":
    chk(len(h) == 1, "json: one host-only row (PID 4194401 is in no /proc)")
    chk(h[0]["paired_by"] == "host_pid" and h[0]["hidden_in_text"], "json: H: row paired by host PID, unmoved")
else:
    print("skip H: row checks: the snapshots were taken in", d["before"]["file"], "container mode")
chk(d["hidden_in_text"] == sum(p["hidden_in_text"] for p in d["processes"]), "json: hidden count matches rows")
g = d["gpus"][0]
chk(g["paired_by"] == "uuid" and g["memory"]["used_bytes"]["delta"] == 3 * (1 << 30) + 269 * (1 << 20), "json: device used delta")
m = rows[model2]
chk(m["before"]["pid"] == model1 and m["paired_by"] == "name+ports", "json: model server restart paired")
kv = m["kv_check"]
chk(kv and kv["estimate_delta_bytes"] == 512 << 20 and kv["measured_vram_delta_bytes"] == 256 << 20 and abs(kv["ratio"] - 0.5) < 1e-9,
    "json: kv_check 512 MiB estimate, 256 MiB measured, ratio 0.5")
est = {e["label"]: e for e in m["estimated"]}
chk(est["breakdown kv_cache GPU"]["delta"] == 512 << 20 and est["breakdown kv_cache GPU"]["source"] == "estimate",
    "json: KV estimate listed under estimated")
chk(m["measured"]["vram_total_bytes"]["delta"] == 256 << 20, "json: measured VRAM is the driver's, no estimate added")
mods = [x for x in m["models"] if x["name"].endswith("llama.gguf")]
chk(len(mods) == 1 and mods[0]["change"] == "kept" and "mapped" in mods[0]["evidence_after"], "json: model kept, with evidence")
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
# A schema_version alone, or GPUs and processes that name nothing, is not a
# snapshot: refused with the key named, not compared as "GPU -1" and "?" rows.
echo '{"schema_version": 1}' >"$t/bare.json"
refused "schema_version alone" "$t/bare.json: not a gputaskman snapshot: \"taken_at\" is missing" "$t/before.json" "$t/bare.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["gpus"]=[{}]; json.dump(d, open(sys.argv[2],"w"))' \
	"$t/after.json" "$t/noindex.json"
refused "GPU without index" "not a gputaskman snapshot: \"gpus[0].index\" is missing" "$t/before.json" "$t/noindex.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["processes"]=[{}]; json.dump(d, open(sys.argv[2],"w"))' \
	"$t/after.json" "$t/nolabel.json"
refused "process without label" "not a gputaskman snapshot: \"processes[0].label\" is missing" "$t/before.json" "$t/nolabel.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["gpus"][0]["memory"]["used_bytes"]=-5; json.dump(d, open(sys.argv[2],"w"))' \
	"$t/after.json" "$t/negative.json"
refused "negative bytes" "gpus[0].memory.used_bytes: expected a byte count (an integer >= 0) or null, found a negative integer" \
	"$t/before.json" "$t/negative.json"
sed 's/"schema_version": 1,/"schema_version": 7,/' "$t/after.json" >"$t/v7.json"
refused "newer schema" "$t/v7.json: schema_version 7 is newer" "$t/before.json" "$t/v7.json"
refused "a diff is not a snapshot" "is a gputaskman diff" "$t/diff.json" "$t/after.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["hostname"]="elsewhere"; json.dump(d, open(sys.argv[2],"w"))' \
	"$t/after.json" "$t/host.json"
refused "other machine" "different machines" "$t/before.json" "$t/host.json"
"$bin" diff --force "$t/before.json" "$t/host.json" >"$t/text" 2>"$t/err"; check_rc "--force compares other machines" 0 $?
expect "--force still warns" "warning: the snapshots are from different machines" "$t/text"
mkfifo "$t/fifo"
refused "a FIFO (refused, not read: it would block)" "$t/fifo: is a FIFO, not a file" "$t/before.json" "$t/fifo"
refused "a device" "/dev/zero: is a device, not a file" /dev/zero "$t/after.json"
# A C1 control (U+009B is a one-byte CSI) in a process's name reaches neither
# the JSON nor the text raw.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [p.update(name="evil\u009b31m\u0085x") for p in d["processes"]]; json.dump(d, open(sys.argv[2],"w"), ensure_ascii=False)' \
	"$t/after.json" "$t/c1.json"
grep -q "$(printf '\302\233')" "$t/c1.json" || bad "the C1 fixture has no raw U+009B"
"$bin" diff --json --all "$t/before.json" "$t/c1.json" >"$t/c1.out" 2>"$t/err"; check_rc "diff --json with C1 names" 0 $?
"$bin" diff --all "$t/before.json" "$t/c1.json" >>"$t/c1.out" 2>>"$t/err"; check_rc "diff with C1 names" 0 $?
if LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$t/c1.out"; then bad "a raw C1 control in diff output"; else ok "no raw C1 control in diff output"; fi
expect "C1 escaped in JSON as in text" 'evil\\xc2\\x9b31m\\xc2\\x85x' "$t/c1.out"
expect "C1 escaped in text" 'evil\xc2\x9b31m\xc2\x85x' "$t/c1.out"
refused "one file" "needs two snapshots" "$t/before.json"
refused "unknown option" "unknown option '--bogus'" --bogus "$t/before.json" "$t/after.json"
cp "$t/after.json" "$t/-after.json"
(cd "$t" && "$bin" diff --all -- before.json -after.json) >"$t/out" 2>"$t/err"; check_rc "-- before file names" 0 $?
expect "-- reads a file named like an option" "after:  -after.json" "$t/out"
"$bin" diff --help >"$t/out" 2>&1; check_rc "diff --help" 0 $?
expect "--help shows usage" "gputaskman diff BEFORE.json AFTER.json" "$t/out"
exit $fail
