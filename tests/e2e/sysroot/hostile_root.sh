#!/bin/sh
# A replay never leaves its root: the real binary ($1) with GPUTASKMAN_ROOT on
# a hostile tree. Absolute links into the real /proc and out of the tree,
# relative links climbing past its top, a loop, a model and a log named by
# host paths (written by make_models, $2, beside the tree): --json and
# inspect PID show the tree's data or nothing, never the host's. A control
# copies the same model and log into the tree, proving the checks would see
# them read.
set -u
bin=$1 make_models=$2
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
t=$(mktemp -d /tmp/gtm-e2e-root-XXXXXX)
listener=
trap '[ -n "$listener" ] && kill "$listener" 2>/dev/null; rm -rf "$t"' EXIT
marker="LEAKED-FROM-OUTSIDE-$$"
r=$t/root out=$t/outside
mkdir -p "$out" "$r/proc" "$t/nolib"
"$make_models" "$out" >/dev/null || { echo "FAIL make_models"; exit 1; }
model=$out/Qwen3-0.6B-Q8_0.gguf
printf '%s\n' "$marker" >"$out/secret"
printf 'main: build = 1 (%s)\nllama_model_loader: - kv   0: general.architecture str = qwen3\n' "$marker" >"$out/llama.log"
export LD_LIBRARY_PATH="$t/nolib"
unset GTM_FAKE_NVML_SCENARIO

# proc PID COMM CMDLINE: a process of the tree (cmdline words split on spaces).
proc() {
	d=$r/proc/$1
	mkdir -p "$d/fd"
	printf '%s (%s) S 1 %s %s 0 -1 0 120 0 0 0 5 3 0 0 20 0 1 0 %s 8388608 100 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n' \
		"$1" "$2" "$1" "$1" "$1" >"$d/stat"
	printf 'Name:\t%s\nTgid:\t%s\nPid:\t%s\nPPid:\t1\n' "$2" "$1" "$1" >"$d/status"
	[ -n "$3" ] && printf '%s' "$3" | tr ' ' '\0' >"$d/cmdline"
	ln -s / "$d/root"
	ln -s /srv "$d/cwd"
}
proc 1 tree-init "/sbin/tree-init"
ln -s /proc/1 "$r/proc/3100"                            # the host's PID 1, were it followed
proc 3101 leak-abs ""; ln -s "$out/secret" "$r/proc/3101/cmdline"
proc 3102 leak-rel ""; ln -s "../../../../../../../../../..$out/secret" "$r/proc/3102/cmdline"
proc 3103 loop ""; ln -s cmdline2 "$r/proc/3103/cmdline"; ln -s cmdline "$r/proc/3103/cmdline2"
ln -s /proc/3104 "$r/proc/3104"                         # itself
proc 3105 llama-server "/usr/bin/llama-server -m $model --port 8080"
ln -s /usr/bin/llama-server "$r/proc/3105/exe"
ln -s "$out/llama.log" "$r/proc/3105/fd/2"              # stderr into a host file
printf 'Name:\tx\n' >"$r/proc/3105/cmdline2"
mkdir -p "$r/etc" && ln -s /etc/passwd "$r/etc/passwd"  # the tree's passwd is the host's, were it followed

run() { # OUT ARGS...
	o=$1; shift
	GPUTASKMAN_ROOT="$r" "$bin" "$@" >"$t/$o" 2>"$t/$o.err"
	rc=$?
	[ $rc -eq 0 ] && ok "$* exits 0" || { bad "$* exited $rc"; cat "$t/$o.err"; }
}
run json --json --all --no-probe
run inspect inspect 3105 --json --no-probe
run inspect_text inspect 3105 --no-probe
host_init=$(tr '\0' '\n' </proc/1/cmdline 2>/dev/null | head -n 1)
for f in json inspect inspect_text; do
	if grep -q "$marker" "$t/$f" "$t/$f.err"; then bad "$f: the secret outside the root is shown"; grep "$marker" "$t/$f"; else ok "$f: no secret"; fi
	if [ -n "$host_init" ] && [ "$host_init" != /sbin/tree-init ] && grep -qF -- "$host_init" "$t/$f"; then
		bad "$f: the host's PID 1 ($host_init) is shown"
	else ok "$f: not the host's PID 1"; fi
done
python3 - "$t/json" "$t/inspect" "$(id -u)" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1])); ins = json.load(open(sys.argv[2])); uid = sys.argv[3]
rows = {p["pid"]: p for p in d["processes"]}
def chk(cond, what):
    print("ok  " if cond else "FAIL", what)
    if not cond:
        sys.exit(1)
chk(rows.get(3100, {}).get("cmdline") == ["/sbin/tree-init"], "proc/3100 -> /proc/1 is the tree's PID 1: %r" % rows.get(3100))
for pid in (3101, 3102, 3103):
    # ENOENT on cmdline reads as "exited": no row, or a row without a command line
    chk(pid not in rows or not rows[pid]["cmdline"], "PID %d: its cmdline link leads nowhere in the tree: %r" % (pid, rows.get(pid)))
chk(3104 not in rows, "proc/3104 -> itself is no process")
chk(rows and all(p["user"] == uid for p in d["processes"]),
    "users from the tree's passwd only (a link out of it): %r" % sorted({p["user"] for p in d["processes"]}))
text = json.dumps(ins)
chk("qwen3" not in text, "the host's model named on the command line is not read")
log = ins.get("explain", {}).get("log") or {}
chk(log.get("state") in (None, "unreadable"), "the host's log an fd points at is not read: %r" % log)
PY

# A replayed server's ports are not this machine's: without --no-probe nothing
# connects to this loopback (a listener on the port counts); with
# GPUTASKMAN_ROOT_PROBE=1, the opt-in for trees copied from live processes, it does.
python3 - "$t/port" "$t/accepts" <<'PY' >/dev/null 2>&1 &
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8); s.settimeout(0.2)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
n, end = 0, time.time() + 600  # the test kills it; the bound is for a test killed first
open(sys.argv[2], "w").write("0")
while time.time() < end:
    try:
        c, _ = s.accept(); n += 1; open(sys.argv[2], "w").write(str(n)); c.close()
    except socket.timeout:
        pass
PY
listener=$!
i=0; while [ ! -s "$t/port" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
port=$(cat "$t/port")
mkdir -p "$r/proc/net"
printf '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 0100007F:%04X 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0 100 0 0 10 0\n' "$port" >"$r/proc/net/tcp"
ln -s 'socket:[4242]' "$r/proc/3105/fd/5"
run probe_replay --json --all
[ "$(cat "$t/accepts")" = 0 ] && ok "a replay does not probe this machine's loopback" || bad "a replay connected to this machine's port $port"
grep -q "a replay under GPUTASKMAN_ROOT" "$t/probe_replay" && ok "the process says why it was not probed" || bad "no note why the replay was not probed"
GPUTASKMAN_ROOT_PROBE=1 GPUTASKMAN_ROOT="$r" "$bin" --json --all >"$t/probe_optin" 2>&1
# the kernel completes the connection before the listener takes it: wait for it to count
i=0; while [ "$(cat "$t/accepts")" = 0 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
[ "$(cat "$t/accepts")" != 0 ] && ok "GPUTASKMAN_ROOT_PROBE=1 probes the replayed port" || bad "GPUTASKMAN_ROOT_PROBE=1 did not probe port $port"
kill "$listener" 2>/dev/null; rm "$r/proc/3105/fd/5"

# Control: the same model and log inside the tree are read, so the checks above can fail.
mkdir -p "$r$out" && rm "$r/proc/3105/fd/2" && ln -s /var/log/llama.log "$r/proc/3105/fd/2"
mkdir -p "$r/var/log" && cp "$out/llama.log" "$r/var/log/" && cp "$model" "$r$out/"
run control inspect 3105 --json --no-probe
if grep -q qwen3 "$t/control"; then ok "control: a model inside the tree is read"; else bad "control: model not read"; cat "$t/control"; fi
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["explain"]["log"]["state"]; sys.exit(s == "unreadable")' "$t/control" &&
	ok "control: a log inside the tree is read" || { bad "control: log not read"; cat "$t/control"; }
exit $fail
