#!/bin/sh
# record / replay end to end (see meson.build). Args: gputaskman, fake NVML dir.
set -u
bin=$1; fake=$2
t=$(mktemp -d); sock="gtm-rec-$$"
trap 'kill $bg 2>/dev/null; tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$t"' EXIT
bg=
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; [ -f "$t/e" ] && cat "$t/e"; fi; }
# a replay of /proc with no process in it: the fake's PIDs are host PIDs
# (H:), never paired with CUDA processes other tests run meanwhile
"$GTM_CAPTURE_PROC" "$t/root" || exit 1
export GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake" TZ=UTC GPUTASKMAN_ROOT="$t/root"
gtm() { "$bin" "$@"; }
GB=1073741824
dev() { echo "device name=\"NVIDIA H100 80GB HBM3\" uuid=GPU-$1 bus=00000000:0$1:00.0 mem_total=$((80 * GB)) mem_used=$2 util_gpu=50"; }
# phase N: the GPUs as they stand in step N of the story, in step.N; the
# recording steps through them by refreshes (the fake NVML's
# GTM_FAKE_NVML_STEP_REFRESHES), so it holds every step however loaded the
# machine is
phase() {
	case $1 in
	0) s="$(dev 1 $((2 * GB)))
$(dev 2 $((1 * GB)))
process dev=0 pid=4300001 mem=$((2 * GB))
process dev=1 pid=4300002 mem=$((1 * GB))" ;;
	1) s="$(dev 1 $((6 * GB)))
$(dev 2 $((1 * GB)))
process dev=0 pid=4300001 mem=$((6 * GB))
process dev=1 pid=4300002 mem=$((1 * GB))
process dev=1 pid=4300003 mem=$((3 * GB))" ;;
	2) s="$(dev 1 $((6 * GB)))
$(dev 2 $((3 * GB)))
process dev=0 pid=4300001 mem=$((6 * GB))
process dev=1 pid=4300003 mem=$((3 * GB))" ;;
	3) s="$(dev 1 $((78 * GB)))
$(dev 2 $((8 * GB)))
process dev=0 pid=4300001 mem=$((78 * GB))
process dev=1 pid=4300003 mem=$((3 * GB))
process dev=1 pid=4300002 mem=$((5 * GB))" ;;
	4) s="$(dev 1 $((1 * GB)))
$(dev 2 $((8 * GB)))
process dev=1 pid=4300003 mem=$((3 * GB))
process dev=1 pid=4300002 mem=$((5 * GB))" ;;
	esac
	printf '%s\n' "$s" >"$t/step.$1"
}
for p in 0 1 2 3 4; do phase $p; done
cp "$t/step.4" "$t/scenario"
GTM_FAKE_NVML_SCENARIO="$t/step" GTM_FAKE_NVML_STEP_REFRESHES=100 \
	gtm record -i 0.01 --count 600 --frame-seconds 1 -o "$t/r.rec" 2>"$t/e"
check "record: 600 refreshes, exit 0" '[ $? -eq 0 ] && grep -q "600 snapshots" "$t/e"'
check "the file is JSON Lines under zstd: zstdcat reads 600 snapshots" '[ "$(zstdcat "$t/r.rec" | wc -l)" = 600 ]'
zstdcat "$t/r.rec" >"$t/all.jsonl"
python3 - "$t/all.jsonl" >"$t/story" <<'PY'
import json, sys
seen = []
for line in open(sys.argv[1]):
    s = json.loads(line)
    assert s["schema_version"] == 1
    rows = {p["label"]: p["vram_total_bytes"] for p in s["processes"]}
    key = tuple(sorted(rows.items()))
    if not seen or seen[-1] != key:
        seen.append(key)
for k in seen:
    print(" ".join(f"{l}={v >> 30}G" for l, v in k))
PY
check "every line is a snapshot; the story is in order" 'grep -q "H:4300001=78G" "$t/story" && [ "$(head -1 "$t/story")" = "H:4300001=2G H:4300002=1G" ] && [ "$(tail -1 "$t/story")" = "H:4300002=5G H:4300003=3G" ]'
check "PID 4300002 exits and comes back with other memory" 'grep -n "4300002" "$t/story" | head -1 | grep -q "=1G" && grep -q "^H:4300001=6G H:4300003=3G$" "$t/story" && grep -q "H:4300002=5G" "$t/story"'

first=$(head -1 "$t/all.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["taken_at"])')
last=$(tail -1 "$t/all.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["taken_at"])')
gtm replay "$t/r.rec" --json >"$t/last.json" 2>"$t/e"
check "replay --json: the last snapshot, as --json lays it out" '[ $? -eq 0 ] && grep -q "^  \"taken_at\": \"$last\",$" "$t/last.json" && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$t/last.json"'
gtm replay "$t/r.rec" --json --at "$first" >"$t/first.json" 2>"$t/e"
check "replay --json --at the first second" '[ $? -eq 0 ] && grep -q "\"taken_at\": \"$first\"" "$t/first.json"'
hhmm=$(echo "$last" | cut -c12-19)
gtm replay "$t/r.rec" --json --at "$hhmm" >"$t/hhmm.json" 2>"$t/e"
check "replay --json --at HH:MM:SS (local)" '[ $? -eq 0 ] && grep -q "\"taken_at\": \"$last\"" "$t/hhmm.json"'
gtm replay "$t/r.rec" --json --at 2000-01-01T00:00:00Z >/dev/null 2>"$t/e"
check "a TIME before the recording: exit 2, said" '[ $? -eq 2 ] && grep -q "before the recording starts" "$t/e"'
gtm replay "$t/r.rec" --json --at tomorrow >/dev/null 2>"$t/e"
check "a TIME that is no time: exit 2, said" '[ $? -eq 2 ] && grep -q "ISO 8601" "$t/e"'

gtm diff "$t/r.rec@$first" "$t/r.rec@$last" --json >"$t/d.json" 2>"$t/e"
check "diff PATH@TIME PATH@TIME" '[ $? -eq 0 ] && python3 -c "
import json,sys
d = json.load(open(sys.argv[1]))
labels = [(p[\"before\"] or p[\"after\"])[\"label\"] for p in d[\"processes\"]]
assert \"H:4300003\" in labels and \"H:4300001\" in labels, labels
" "$t/d.json"'
gtm diff "$t/first.json" "$t/r.rec@$last" >"$t/d.txt" 2>"$t/e"
check "diff a --json file against a recording" '[ $? -eq 0 ] && grep -q "not listed before" "$t/d.txt"'

# a second recorder on the same file, SIGKILL, and the one after it
# (each wait is for what it needs, with a bound: the first recorder holds the
# file once its first snapshot is out, and has written more than 10 before the
# kill; the second stops after one snapshot should it not be refused)
"$bin" record -i 0.01 -o "$t/k.rec" >/dev/null 2>"$t/k.e" &
bg=$!
for _ in $(seq 1200); do grep -q "1 snapshot," "$t/k.e" 2>/dev/null && break; sleep 0.05; done
gtm record --count 1 -o "$t/k.rec" 2>"$t/e"
check "a second recorder on the file: refused, exit 2" '[ $? -eq 2 ] && grep -q "another gputaskman is recording" "$t/e"'
for _ in $(seq 1200); do [ "$(zstdcat "$t/k.rec" 2>/dev/null | wc -l)" -gt 10 ] && break; sleep 0.05; done
kill -9 $bg; wait $bg 2>/dev/null; bg=
n=$(zstdcat "$t/k.rec" 2>/dev/null | wc -l)
gtm replay "$t/k.rec" --json >/dev/null 2>"$t/e"
check "SIGKILL: the recording reads ($n snapshots)" '[ $? -eq 0 ] && [ "$n" -gt 10 ]'
gtm record --count 2 -i 0.01 -o "$t/k.rec" 2>"$t/e"
check "the next recorder closes the open frame and appends" '[ $? -eq 0 ] && grep -q "snapshots kept" "$t/e" && [ "$(zstdcat "$t/k.rec" | wc -l)" -ge $((n + 2)) ]'

python3 - "$t/r.rec" "$t" <<'PY'
import random, struct, sys
data = open(sys.argv[1], "rb").read()
random.seed(16)
for i, cut in enumerate(sorted(random.sample(range(1, len(data)), 40))):
    open(f"{sys.argv[2]}/cut{i}.rec", "wb").write(data[:cut])
new = bytearray(data[:32]); new[16:20] = struct.pack("<I", 2)
open(f"{sys.argv[2]}/newer.rec", "wb").write(bytes(new))
PY
cutok=1
for f in "$t"/cut*.rec; do
	gtm replay "$f" --json >/dev/null 2>"$t/e"; rc=$?
	{ [ $rc -eq 0 ] || { [ $rc -eq 2 ] && grep -q "no snapshot" "$t/e"; }; } || { cutok=0; echo "rc $rc on $f"; cat "$t/e"; }
done
check "40 cuts at random offsets: each reads or says it holds no snapshot" '[ $cutok = 1 ]'
gtm replay "$t/newer.rec" --json >/dev/null 2>"$t/e"
check "a newer format version: exit 2, said" '[ $? -eq 2 ] && grep -q "format version 2 is newer" "$t/e"'
gtm record -o "$t/newer.rec" --count 1 2>"$t/e"
check "record refuses to append to a newer format" '[ $? -eq 2 ] && grep -q "newer" "$t/e"'
echo '{}' >"$t/x.json"
gtm record -o "$t/x.json" --count 1 2>"$t/e"
check "record refuses a file that is no recording, and leaves it" '[ $? -eq 2 ] && [ "$(cat "$t/x.json")" = "{}" ]'
# What record says while it runs, on stderr only: where, how often, the size so far.
binabs=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
(cd "$t" && "$binabs" record --count 3 -i 0.01 -o said.rec >"$t/o" 2>"$t/e")
check "record writes nothing on stdout" '[ ! -s "$t/o" ]'
check "record says where it records, how often and how many" 'grep -q "recording to said.rec in $t (a new file), a snapshot every 0.01 s, 3 snapshots, kept under 256.00 MiB" "$t/e"'
check "record says the size so far after its first snapshot" 'grep -q "^gputaskman record: 1 snapshot, [0-9.]* [KMG]*i*B written, the file is [0-9.]* [KMG]*i*B$" "$t/e"'
gtm record --count 1 -i 0.01 -o "$t/said.rec" 2>"$t/e" >/dev/null
check "record says it appends to an existing file" 'grep -q "recording to $t/said.rec (appending to [0-9.]* [KMG]*i*B)" "$t/e"'
# while it runs, before any stop: the first status line is there
"$bin" record -i 0.05 -o "$t/live.rec" 2>"$t/live.e" >/dev/null &
bg=$!
for _ in $(seq 1200); do grep -q "1 snapshot," "$t/live.e" && break; sleep 0.05; done
check "a running record shows its size before it is stopped" 'grep -q "1 snapshot, .* written" "$t/live.e" && kill -0 $bg'
kill -TERM $bg; wait $bg; bg= # (a background job of a script ignores SIGINT)
check "a stop signal ends it with the summary" 'grep -q "snapshots, [0-9]* bytes" "$t/live.e"'
# on a terminal one line is rewritten in place
if command -v tmux >/dev/null 2>&1; then
	tmux -L "$sock" -f /dev/null new-session -d -s rec -x 120 -y 10 \
		"env GTM_FAKE_NVML_SCENARIO='$t/scenario' LD_LIBRARY_PATH='$fake' GPUTASKMAN_ROOT='$t/root' '$binabs' record -i 0.02 -o '$t/tty.rec'; sleep 30"
	seen=
	for _ in $(seq 1200); do
		tmux -L "$sock" capture-pane -p -t rec | grep -q "^gputaskman record: [1-9][0-9]* snapshots," && { seen=1; break; }
		sleep 0.05
	done
	lines=$(tmux -L "$sock" capture-pane -p -t rec | grep -c "snapshots\?, .* written")
	check "on a terminal the count goes up on one line, rewritten in place" '[ -n "$seen" ] && [ "$lines" = 1 ]'
	tmux -L "$sock" send-keys -t rec C-c
	sleep 0.5
	tmux -L "$sock" kill-server 2>/dev/null
else
	echo "skip the terminal line: tmux is not installed"
fi
exit $fail
