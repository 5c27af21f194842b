#!/bin/sh
# The Windows process layer on real Wine processes (issue 12):
#   wine_processes.sh GPUTASKMAN_EXE STANDIN_EXE
# starts the stand-in llama-server.exe in the model's folder (it loads
# ggml-cuda.dll and llama.dll, maps a real GGUF file named by a relative -m,
# folder and file named in letters outside every ANSI code page,
# and has a command line with a mark of this run), then checks that
# gputaskman.exe --json under the same Wine lists it with those runtimes,
# that model at its full path (evidence mapped and cmdline: the relative
# path resolved against the working folder read from the PEB), that command
# line and that working folder. Listening ports are not checked here: Wine's GetExtendedTcpTable
# says PID 0 for every listener, so no port joins a process; test_win_paths
# tests that join (win_ports_of) instead.
# A second stand-in (--behind-dll) maps the model in the first free slot
# after llama.dll, whose header in memory then claims 16 MiB more than it
# maps: the model must still be found mapped, so the scan's walk of the
# address space never steps over an allocation on a header's word alone.
set -u
# Wine maps Unix file names to UTF-16 by the locale's charset: under LANG=C
# the non-ASCII names below would not exist for Windows programs
export LC_ALL=C.UTF-8
gtm=$1 standin=$2
here=$(cd "$(dirname "$0")" && pwd)
wine="sh $here/../../scripts/wine-run.sh"
tmp=$(mktemp -d /tmp/gtm-wine-e2e-XXXXXX)
pid=""
pid2=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	[ -n "$pid2" ] && kill "$pid2" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
# wait_ready OUT PID WHAT: until the stand-in started as PID says ready in OUT
wait_ready() {
	for _ in $(seq 100); do
		grep -q ready "$1" && return 0
		kill -0 "$2" 2>/dev/null || fail "$3 exited: $(cat "$1")"
		sleep 0.2
	done
	fail "$3 never said ready"
}

# a folder and a file name no ANSI code page holds: paths are UTF-16 from
# Windows and UTF-8 inside gputaskman
folder="$tmp/modèles-模型"
model="$folder/模型 ß.gguf"
mkdir "$folder"
$wine "$standin" --write-gguf "$tmp/written.gguf" || fail "the stand-in could not write $tmp/written.gguf"
mv "$tmp/written.gguf" "$model"
dosmodel=$($wine winepath -w "$model" 2>/dev/null | tr -d '\r')
[ -n "$dosmodel" ] || fail "winepath gave no Windows path for $model"
mark="gtm-e2e-$$"
standin=$(cd "$(dirname "$standin")" && pwd)/$(basename "$standin")
(cd "$folder" && exec $wine "$standin" -m "模型 ß.gguf" --port 18080 --alias "$mark") >"$tmp/standin.out" 2>&1 &
pid=$!
wait_ready "$tmp/standin.out" "$pid" "the stand-in"
# --all: a runtime that uses no GPU (no GPU source on Windows yet) is listed only with it
$wine "$gtm" --json --all >"$tmp/snap.json" 2>"$tmp/gtm.err" || fail "gputaskman.exe --json failed: $(cat "$tmp/gtm.err")"
python3 - "$tmp/snap.json" "$mark" "$dosmodel" <<'PY' || exit 1
import json, sys
snap, mark, model = json.load(open(sys.argv[1], encoding="utf-8")), sys.argv[2], sys.argv[3]
procs = [p for p in snap["processes"] if mark in (p.get("cmdline") or [])]
if len(procs) != 1:
    seen = [(p["name"], p.get("cmdline")) for p in snap["processes"]]
    sys.exit(f"FAIL: {len(procs)} processes with {mark} in their command line; listed: {seen}")
p = procs[0]
problems = []
if p["cmdline"] != [p["cmdline"][0], "-m", "模型 ß.gguf", "--port", "18080", "--alias", mark]:
    problems.append(f"command line {p['cmdline']}")
if not p["cmdline"][0].lower().endswith("llama-server.exe"):
    problems.append(f"argv[0] {p['cmdline'][0]}")
if not (p.get("exe") or "").lower().endswith("llama-server.exe"):
    problems.append(f"exe {p.get('exe')}")
rts = {r["id"]: r for r in p["runtimes"]}
for want in ("llama.cpp", "ggml-cuda"):
    if want not in rts:
        problems.append(f"runtime {want} missing (have {sorted(rts)})")
if "ggml-cuda" in rts and "mapped ggml-cuda.dll" not in rts["ggml-cuda"]["evidence"]:
    problems.append(f"ggml-cuda evidence {rts['ggml-cuda']['evidence']}")
if "llama.cpp" in rts and "mapped llama.dll" not in rts["llama.cpp"]["evidence"]:
    problems.append(f"llama.cpp evidence {rts['llama.cpp']['evidence']}")
models = [m for m in p["models"] if (m.get("path") or "").lower() == model.lower()]
if len(models) != 1:
    problems.append(f"model {model}: {[m.get('path') for m in p['models']]}")
else:
    m = models[0]
    if sorted(m["evidence"]) != ["cmdline", "mapped"]:
        problems.append(f"model evidence {m['evidence']}")
    if not m.get("gguf") or m["gguf"].get("arch") != "llama":
        problems.append(f"model header {m.get('gguf')} {m.get('error')}")
if (p.get("cwd") or "").lower() != model.rsplit("\\", 1)[0].lower():
    problems.append(f"cwd {p.get('cwd')}, expected the folder of {model}")
if snap["mode"] != "native":
    problems.append(f"mode {snap['mode']}")
if problems:
    sys.exit("FAIL: " + "; ".join(problems))
print(f"ok: pid {p['pid']} {p['name']} in {p['cwd']}: runtimes {sorted(rts)}, model {model} ({', '.join(models[0]['evidence'])}), mode native")
print("not checked under Wine: listening ports (Wine reports PID 0 for every listener; test_win_paths checks win_ports_of)")
PY

# the second stand-in: the model's view behind llama.dll, whose header lies
mark2="gtm-behind-$$"
(cd "$folder" && exec $wine "$standin" -m "模型 ß.gguf" --alias "$mark2" --behind-dll) >"$tmp/standin2.out" 2>&1 &
pid2=$!
wait_ready "$tmp/standin2.out" "$pid2" "the --behind-dll stand-in"
$wine "$gtm" --json --all >"$tmp/snap2.json" 2>"$tmp/gtm2.err" || fail "gputaskman.exe --json failed: $(cat "$tmp/gtm2.err")"
python3 - "$tmp/snap2.json" "$mark2" "$dosmodel" <<'PY'
import json, sys
snap, mark, model = json.load(open(sys.argv[1], encoding="utf-8")), sys.argv[2], sys.argv[3]
procs = [p for p in snap["processes"] if mark in (p.get("cmdline") or [])]
if len(procs) != 1:
    sys.exit(f"FAIL: {len(procs)} processes with {mark} in their command line")
p = procs[0]
rts = {r["id"]: r for r in p["runtimes"]}
models = [m for m in p["models"] if (m.get("path") or "").lower() == model.lower()]
if "mapped llama.dll" not in rts.get("llama.cpp", {}).get("evidence", []):
    sys.exit(f"FAIL: behind-dll: llama.cpp evidence {rts.get('llama.cpp')}")
if len(models) != 1 or sorted(models[0]["evidence"]) != ["cmdline", "mapped"]:
    sys.exit(f"FAIL: behind-dll: the model mapped after llama.dll was not found mapped: {[(m.get('path'), m.get('evidence')) for m in p['models']]}")
print(f"ok: behind-dll: pid {p['pid']}: model {model} ({', '.join(models[0]['evidence'])}) though llama.dll's header claims 16 MiB more")
PY
