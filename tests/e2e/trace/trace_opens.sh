#!/bin/sh
# gputaskman --trace-opens end to end, as root: a stand-in that opens, reads
# and closes a model file (a GGUF from the suite's writer) while
# `--json --trace-opens` traces is named with `opened`, the VRAM the fake NVML
# reports before and after the open beside it; a non-model file and a .bin
# that is no model are not named; the text view and `inspect`-free --once say
# it too; without root (setpriv) and without CAP_SYS_ADMIN it refuses with a
# note and the plain scan follows. SKIP (77) where fanotify cannot run here.
# Args: gputaskman, make_models, fake NVML folder
set -u
bin=$1 make_models=$2 fake=$3
t=$(mktemp -d /tmp/gtm-e2e-trace-XXXXXX)
chmod 755 "$t"
. "$(dirname "$0")/../nvml/lib.sh"
S= g= mounted=
trap '[ -n "$S" ] && kill "$S" 2>/dev/null; [ -n "$g" ] && kill "$g" 2>/dev/null; [ -n "$mounted" ] && umount -l "$t/mnt"; rm -rf "$t"' EXIT
unset GPUTASKMAN_ROOT
mkdir -p "$t/models" "$t/home"
"$make_models" "$t/models" >/dev/null || { echo "FAIL make_models"; exit 1; }
printf 'plain text\n' >"$t/models/notes.txt"
printf '\177ELF not a model\n' >"$t/models/tool.bin"
[ "$(id -u)" = 0 ] || { echo "SKIP: --trace-opens needs root (CI runs as root)"; exit 77; }

# The stand-in: waits for go, then opens, reads and closes each file with its
# own shell (no child), says done, and stays.
cat >"$t/standin.sh" <<'SH'
cd "$1"
while [ ! -e go ]; do sleep 0.05; done
read -r x < models/Qwen3-0.6B-Q8_0.gguf
read -r x < models/notes.txt
read -r x < models/tool.bin
: > done
exec sleep 120
SH
# start_standin: a fresh stand-in ($S), listed by the fake NVML with 1 GiB
start_standin() {
	rm -f "$t/go" "$t/done"
	[ -n "$S" ] && { kill "$S" 2>/dev/null; wait "$S" 2>/dev/null; }
	sh "$t/standin.sh" "$t" >/dev/null 2>&1 &
	S=$!
	scenario "device name=\"NVIDIA RTX A4000\" bus=00000000:02:00.0 mem_total=17179869184 mem_used=1073741824
process dev=0 pid=$S list=compute mem=1073741824"
}
# traced_run OUT ARGS...: gputaskman ARGS in the background; when it says it
# traces, the stand-in is told to read; waits for it and checks its status
traced_run() {
	out=$1; shift
	run_gtm "$bin" "$@" >"$t/$out" 2>"$t/e" &
	g=$!
	for _ in $(seq 600); do grep -q 'tracing model file opens' "$t/e" && break; kill -0 $g 2>/dev/null || break; sleep 0.05; done
	: >"$t/go"
	wait $g; check_rc "$* exits 0" 0 $?
}
start_standin

run_gtm() { # the binary against the fake NVML, HOME (the model folders' mount) in $t
	HOME="$t/home" GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake" "$@"
}
# (each trace's window is a bound on the steps inside it: the stand-in's read
# and the scenario change take milliseconds, far less on any machine than the
# window, and each step waits for the one before, never for a time)
run_gtm "$bin" --json --trace-opens --trace-wait 10 --no-probe >"$t/j" 2>"$t/e" &
g=$!
for _ in $(seq 600); do grep -q 'tracing model file opens' "$t/e" && break; kill -0 $g 2>/dev/null || break; sleep 0.05; done
if ! grep -q 'tracing model file opens' "$t/e"; then
	wait $g
	if grep -q -e 'no fanotify' -e 'cannot be traced' -e 'file-handle reporting' "$t/e" "$t/j"; then
		echo "SKIP: fanotify is unavailable here:"; cat "$t/e"; exit 77
	fi
	echo "FAIL: the tracer did not start:"; cat "$t/e"; exit 1
fi
: >"$t/go"
for _ in $(seq 600); do [ -e "$t/done" ] && break; sleep 0.05; done
[ -e "$t/done" ] || { echo "FAIL the stand-in did not read its files"; exit 1; }
# the VRAM grows after the open (the fake NVML re-reads its scenario each refresh)
scenario "device name=\"NVIDIA RTX A4000\" bus=00000000:02:00.0 mem_total=17179869184 mem_used=5368709120
process dev=0 pid=$S list=compute mem=5368709120"
wait $g; check_rc "--json --trace-opens exits 0" 0 $?
jcheck "$t/j" "the read-and-closed model is named with opened" "
p = row('$S')
ms = {m['path'].rsplit('/', 1)[-1]: m for m in p['models']}
m = ms['Qwen3-0.6B-Q8_0.gguf']
assert m['evidence'] == ['opened'], m
assert m['path'] == '$t/models/Qwen3-0.6B-Q8_0.gguf', m
o = m['opened']
assert o['vram_before_bytes'] == 1073741824 and o['vram_after_bytes'] == 5368709120, o
assert o['at'].endswith('Z') and o['opens'] == 1, o
assert 'VRAM 1.00 GiB before, 5.00 GiB after (+4.00 GiB)' in m['evidence_detail']['opened'], m
assert 'notes.txt' not in ms and 'tool.bin' not in ms, ms
assert any('--trace-opens: on' in n for n in d['notes']), d['notes']
"

# the text snapshot says it as well (a shorter trace: the open is long done,
# so only a new open would be seen: the stand-in reads again)
start_standin
traced_run txt --once --trace-opens --trace-wait 6 --no-probe
expect_out "text: the model opened" "Qwen3-0.6B-Q8_0.gguf.*opened" "$t/txt"
expect_out "text: the tracer's note" "trace-opens: on" "$t/txt"

# inspect PID --trace-opens: the same evidence in the inspector's report
start_standin
traced_run insp inspect "$S" --trace-opens --trace-wait 6 --no-probe
expect_out "inspect PID: the model with opened" "Qwen3-0.6B-Q8_0.gguf.*\\[opened\\]" "$t/insp"
expect_out "inspect PID: when and the VRAM" "opened: .*Z; VRAM 1.00 GiB before" "$t/insp"

# A busy folder (many non-model opens in one drain window) is muted in the
# kernel for GPUTASKMAN_TRACE_MUTE_S, then unmuted: a model opened in a known
# model folder meanwhile is still named, one opened in the muted folder while
# muted is missed (said in a note), one opened there after the unmute is seen.
# The mute is watched in the tracer's fdinfo (an inode mark), not timed.
# On a mount of its own where it can have one (a tmpfs: the machine's other
# opens, on the mount the test's folder is on, make other folders busy, fill
# the drain windows and the mute table, and a busy folder of the test's may
# then go unmuted); else the test folder's mount.
m=$t
if mkdir -p "$t/mnt" && mount -t tmpfs -o size=4g tmpfs "$t/mnt" 2>/dev/null; then
	m=$t/mnt mounted=1
	echo "     (the busy folder on a tmpfs of its own)"
fi
hub="$m/home/.cache/huggingface/hub"
mkdir -p "$hub" "$m/busy"
cp "$t/models/Qwen3-0.6B-Q8_0.gguf" "$hub/" && cp "$t/models/Qwen3-0.6B-Q8_0.gguf" "$m/busy/m.gguf"
for i in $(seq 600); do : >"$m/busy/f$i.txt"; done
cat >"$t/standin2.sh" <<'SH'
cd "$1"
while [ ! -e go2 ]; do sleep 0.05; done
read -r x < home/.cache/huggingface/hub/Qwen3-0.6B-Q8_0.gguf
read -r x < busy/m.gguf
: > step1
while [ ! -e go3 ]; do sleep 0.05; done
read -r x < busy/m.gguf
: > done2
exec sleep 120
SH
[ -n "$S" ] && { kill "$S" 2>/dev/null; wait "$S" 2>/dev/null; }
sh "$t/standin2.sh" "$m" >/dev/null 2>&1 &
S=$!
scenario "device name=\"NVIDIA RTX A4000\" bus=00000000:02:00.0 mem_total=17179869184 mem_used=1073741824
process dev=0 pid=$S list=compute mem=1073741824"
HOME="$m/home" GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake" GPUTASKMAN_TRACE_MUTE_S=5 \
	"$bin" --json --trace-opens --trace-wait 3600 --no-probe >"$t/mu" 2>"$t/e" &
g=$!
for _ in $(seq 600); do grep -q 'tracing model file opens' "$t/e" && break; kill -0 $g 2>/dev/null || break; sleep 0.05; done
# the ignore marks on the busy folder itself (fdinfo names each inode mark's
# inode in hex): another folder of the same mount, busy with whatever else runs
# on this machine, may be muted too and must not pass for it
busy_ino=$(printf '%x' "$(stat -c %i "$m/busy")")
inode_marks() { cat /proc/$g/fdinfo/* 2>/dev/null | grep -c "^fanotify ino:$busy_ino "; }
# A burst of 600 opens, then time for the tracer to drain them all: it mutes
# once its queue is empty, and an ASan build on a loaded machine reads slower
# than cat opens, so bursts one after another would keep it from ever getting
# there; up to 4 s a burst, 6 bursts.
for _ in 1 2 3 4 5 6; do
	cat "$m"/busy/f*.txt >/dev/null
	for _ in $(seq 40); do [ "$(inode_marks)" -gt 0 ] && break; sleep 0.1; done
	[ "$(inode_marks)" -gt 0 ] && break
done
[ "$(inode_marks)" -gt 0 ] || {
	echo "FAIL the busy folder was not muted (gputaskman $(kill -0 $g 2>/dev/null && echo running || echo ended)):"
	cat /proc/$g/fdinfo/* 2>/dev/null; cat "$t/e"; exit 1; }
echo "ok - the busy folder is muted (an ignore mark on it)"
: >"$m/go2"
for _ in $(seq 600); do [ -e "$m/step1" ] && break; sleep 0.05; done
# the read in the muted folder came while the mute held (else the check below
# would judge a read made after it)
[ -e "$m/step1" ] && [ "$(inode_marks)" -gt 0 ] || { echo "FAIL the stand-in's reads did not come while the folder was muted"; exit 1; }
for _ in $(seq 400); do [ "$(inode_marks)" = 0 ] && break; sleep 0.05; done
[ "$(inode_marks)" = 0 ] || { echo "FAIL the busy folder was not unmuted"; exit 1; }
echo "ok - the busy folder is unmuted after its time"
: >"$m/go3"
for _ in $(seq 600); do [ -e "$m/done2" ] && break; sleep 0.05; done
# The trace ends when told (SIGINT, as Ctrl-C), not at a time guessed to
# cover the steps above on a loaded machine (a fixed --trace-wait 40 ended
# before the last read there); the reader thread drains its queue at least
# every 250 ms, so 3 s leave it a dozen turns for the one open just made.
sleep 3
kill -INT $g
wait $g; check_rc "busy folder: --json --trace-opens exits 0 when Ctrl-C ends the trace" 0 $?
expect_out "busy folder: the signal's end of the trace said" "tracing ended by a signal after" "$t/e"
jcheck "$t/mu" "busy folder muted: the known model folder's open named, the muted folder's after the unmute" "
p = row('$S')
ms = {m['path']: m for m in p['models']}
k = ms['$hub/Qwen3-0.6B-Q8_0.gguf']
assert k['evidence'] == ['opened'] and k['opened']['opens'] == 1, k
b = ms['$m/busy/m.gguf']
assert b['evidence'] == ['opened'] and b['opened']['opens'] == 1, b
# (at least this one: other folders of the mount, busy with whatever else runs here, may be muted too)
import re
assert any(re.search(r'[0-9]+ busy folders? muted \(a model opened there while muted is missed\)', n) for n in d['notes']), d['notes']
"

# A filesystem without file handles (procfs) holding the model folders: a note, the rest goes on.
HOME=/proc/self GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake" \
	"$bin" --json --trace-opens --trace-wait 0 --no-probe >"$t/pf" 2>"$t/e"
check_rc "unsupported filesystem: the snapshot still prints" 0 $?
expect_out "unsupported filesystem: said" "the mount of /proc/self cannot be traced: its filesystem gives no file handles" "$t/pf"

# Not root: refused, said on stderr and in the snapshot, the plain scan follows.
if command -v setpriv >/dev/null 2>&1; then
	HOME="$t/home" GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" --json --trace-opens --no-probe >"$t/nr" 2>"$t/e"
	check_rc "not root: --trace-opens still prints the snapshot" 0 $?
	expect_out "not root: refused on stderr" "trace-opens needs root" "$t/e"
	expect_out "not root: the plain scan follows" "the plain scan follows" "$t/e"
	expect_out "not root: the snapshot's note" "trace-opens needs root.*mapped models only" "$t/nr"
	# root without CAP_SYS_ADMIN: no mount can be marked
	HOME="$t/home" GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake" \
		setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin "$bin" --json --trace-opens --trace-wait 0 --no-probe >"$t/nc" 2>"$t/e"
	check_rc "no CAP_SYS_ADMIN: the snapshot still prints" 0 $?
	expect_out "no CAP_SYS_ADMIN: said" "CAP_SYS_ADMIN" "$t/nc"
else
	echo "SKIP (part): no setpriv to drop privileges with"
fi
exit $fail
