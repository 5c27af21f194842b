#!/bin/sh
# The process listing's two ways give the same processes (issue 13):
#   wine_listing.sh GPUTASKMAN_EXE STANDIN_EXE
# starts two stand-in llama-server.exe (one the child of a cmd.exe, so a
# parent other than the loader's is listed), then runs gputaskman.exe
# --json --all twice under the same Wine: with SystemProcessInformation
# (the default) and with GTM_PROC_LISTING=toolhelp (Toolhelp plus
# OpenProcess, GetProcessTimes and GetProcessMemoryInfo per process, the
# fallback). Every process both list (but the two gputaskman.exe, each
# run's own) must have the same PID, parent, name and start time, and a
# working set; no other process may be listed by one alone; only the
# fallback's snapshot carries its note. A prefix of its own (a copy of the
# run's, as wine_adapters.sh makes): the other tests' processes, which come
# and go between the two runs, are not in its listing.
set -u
export LC_ALL=C.UTF-8
gtm=$1 standin=$2
here=$(cd "$(dirname "$0")" && pwd)
wine="sh $here/../../scripts/wine-run.sh"
tmp=$(mktemp -d /tmp/gtm-wine-listing-XXXXXX)
pids=""
cleanup() {
	# the stand-in under cmd.exe is no child of this shell: ended by its Windows PID
	winpid=$(sed -n 's/^ready \([0-9]*\).*/\1/p' "$tmp/b.out" 2>/dev/null)
	[ -n "$winpid" ] && $wine taskkill /F /PID "$winpid" >/dev/null 2>&1
	for p in $pids; do kill "$p" 2>/dev/null; done
	own_prefix_stop "$tmp/prefix"
	rm -rf "$tmp"
}
. "$here/own_prefix.sh"
trap cleanup EXIT
own_prefix "$tmp/prefix" || fail "cannot copy the run's Wine prefix"
export WINEPREFIX="$tmp/prefix"

mark="gtm-listing-$$"
$wine "$standin" --write-gguf "$tmp/m.gguf" || fail "the stand-in could not write $tmp/m.gguf"
model=$($wine winepath -w "$tmp/m.gguf" 2>/dev/null | tr -d '\r')
winstandin=$($wine winepath -w "$standin" 2>/dev/null | tr -d '\r')
[ -n "$model" ] && [ -n "$winstandin" ] || fail "winepath gave no Windows paths"
$wine "$standin" -m "$model" --alias "$mark-a" >"$tmp/a.out" 2>&1 &
pids="$pids $!"
$wine cmd.exe /c "$winstandin" -m "$model" --alias "$mark-b" >"$tmp/b.out" 2>&1 &
pids="$pids $!"
for _ in $(seq 100); do
	grep -q ready "$tmp/a.out" && grep -q ready "$tmp/b.out" && break
	sleep 0.2
done
grep -q ready "$tmp/a.out" || fail "stand-in a never said ready: $(cat "$tmp/a.out")"
grep -q ready "$tmp/b.out" || fail "stand-in b never said ready: $(cat "$tmp/b.out")"
# A process of Wine's may still start or end between the two runs: a pair
# that differs is taken again, up to 3 times; a wrong listing differs every
# time.
cat >"$tmp/compare.py" <<'PY'
import json, sys
nt, th = (json.load(open(f, encoding="utf-8")) for f in sys.argv[1:3])
mark = sys.argv[3]
def rows(s):
    return {p["pid"]: p for p in s["processes"] if p.get("pid") is not None and p.get("name") != "gputaskman.exe"}
a, b = rows(nt), rows(th)
problems = []
if set(a) != set(b):
    problems.append(f"listed by one way only: SystemProcessInformation {sorted(set(a) - set(b))}, "
                    f"Toolhelp {sorted(set(b) - set(a))}")
for pid in sorted(set(a) & set(b)):
    x, y = a[pid], b[pid]
    for k in ("ppid", "name", "start_time_ticks"):
        if x.get(k) != y.get(k):
            problems.append(f"pid {pid} {k}: {x.get(k)!r} against Toolhelp's {y.get(k)!r}")
    if not x.get("start_time_ticks"):
        problems.append(f"pid {pid} ({x.get('name')}): no start time")
    if not x.get("rss_bytes") or not y.get("rss_bytes"):
        problems.append(f"pid {pid} ({x.get('name')}): working set {x.get('rss_bytes')} / {y.get('rss_bytes')}")
standins = [p for p in a.values()
            if p.get("name") == "llama-server.exe" and any(mark in c for c in (p.get("cmdline") or []))]
if len(standins) != 2:
    problems.append(f"{len(standins)} stand-ins with {mark} in their command line, expected 2")
elif all(a.get(p["ppid"], {}).get("name") != "cmd.exe" for p in standins):
    problems.append(f"no stand-in is listed with cmd.exe as its parent: {[p['ppid'] for p in standins]}")
note = [n for n in th.get("notes", []) if "Toolhelp" in n]
if not note:
    problems.append(f"the Toolhelp snapshot has no note saying so: {th.get('notes')}")
if any("Toolhelp" in n for n in nt.get("notes", [])):
    problems.append(f"the default snapshot says Toolhelp: {nt.get('notes')}")
if len(a) < 4:
    problems.append(f"only {len(a)} processes listed")
if problems:
    sys.exit("FAIL: " + "; ".join(problems))
print(f"ok (try {sys.argv[4]}): {len(a)} processes with the same PID, parent, name and start time both ways; note: {note[0]}")
PY
for try in 1 2 3; do
	$wine "$gtm" --json --all >"$tmp/nt.json" 2>"$tmp/nt.err" || fail "gputaskman.exe --json failed: $(cat "$tmp/nt.err")"
	GTM_PROC_LISTING=toolhelp $wine "$gtm" --json --all >"$tmp/th.json" 2>"$tmp/th.err" ||
		fail "gputaskman.exe --json with Toolhelp failed: $(cat "$tmp/th.err")"
	python3 "$tmp/compare.py" "$tmp/nt.json" "$tmp/th.json" "$mark" "$try" >"$tmp/result" 2>&1 && { cat "$tmp/result"; exit 0; }
	echo "try $try: $(cat "$tmp/result")"
done
exit 1
