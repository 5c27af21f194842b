#!/bin/sh
# Other processes' environments on Windows (issue 12), on real Wine processes:
#   wine_environ.sh GPUTASKMAN_EXE STANDIN_EXE
# starts the stand-in llama-server.exe twice with `-hf gtm-org/tiny-GGUF`,
# once with HF_HOME naming a folder that holds that repo in the Hugging Face
# cache layout and once without it, and a copy named ollama.exe twice (its
# -m a blob of an Ollama models folder with two manifests), once with
# OLLAMA_MODELS naming that folder and once without it. gputaskman.exe
# --json must find what only each process's own environment (read from its
# PEB) tells: the -hf model at its path in HF_HOME, and the Ollama store's
# other model as an installed candidate; the processes without the
# variable must show neither (no home folder of the Wine prefix holds
# them), so the environment, not a guess, found them. `inspect PID` shows
# the HF model too, and Ollama's log is looked for in the LOCALAPPDATA of
# the process (%LOCALAPPDATA%\Ollama\server.log); a copy named Handy.exe
# shows Handy's selected model and log events from %APPDATA%\com.pais.handy
# and lms.exe the model in %USERPROFILE%\.lmstudio\models as installed
# (both written into the Wine prefix for the test, removed after). Wine runs
# only 64-bit processes here: the 32-bit PEB of a WOW64 process is tested
# on bytes (tests/unit/winpure/test_win_env.c).
set -u
export LC_ALL=C.UTF-8
gtm=$1 standin=$2
here=$(cd "$(dirname "$0")" && pwd)
wine="sh $here/../../scripts/wine-run.sh"
tmp=$(mktemp -d /tmp/gtm-wine-env-XXXXXX)
pids=""
handy_dir="" lms_dir=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	[ -n "$handy_dir" ] && rm -rf "$handy_dir"
	[ -n "$lms_dir" ] && rm -rf "$lms_dir"
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
	printf 'FAIL: %s\n' "$*"
	exit 1
}
dos() {
	$wine winepath -w "$1" 2>/dev/null | tr -d '\r'
}

standin=$(cd "$(dirname "$standin")" && pwd)/$(basename "$standin")
$wine "$standin" --write-gguf "$tmp/m.gguf" || fail "the stand-in could not write $tmp/m.gguf"
# the HF cache layout: models--org--repo/refs/main names the snapshot
repo="$tmp/hf-模型 ß/hub/models--gtm-org--tiny-GGUF"
mkdir -p "$repo/refs" "$repo/snapshots/0123abc"
printf 0123abc >"$repo/refs/main"
cp "$tmp/m.gguf" "$repo/snapshots/0123abc/tiny-Q4_K_M.gguf"
# an Ollama models folder: two models, blobs named by their digests; both
# folders named in letters outside the ANSI code pages (a user name such as
# Zoë or 模型 is in every path under it), listed as UTF-16 (posix/dirent.h)
hexes=$(python3 - "$tmp" <<'PY'
import hashlib, json, os, sys
t = sys.argv[1]
data = open(f"{t}/m.gguf", "rb").read()
os.makedirs(f"{t}/om-ü/blobs")
out = []
for name, tag, blob in (("gtmtiny", "latest", data), ("gtmother", "7b", data + b"\0")):
    h = hashlib.sha256(blob).hexdigest()
    open(f"{t}/om-ü/blobs/sha256-{h}", "wb").write(blob)
    d = f"{t}/om-ü/manifests/registry.ollama.ai/library/{name}"
    os.makedirs(d)
    layer = {"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:" + h, "size": len(blob)}
    json.dump({"schemaVersion": 2, "layers": [layer]}, open(f"{d}/{tag}", "w"))
    out.append(h)
print(" ".join(out))
PY
) || fail "could not write the Ollama models folder"
tiny=${hexes% *} other=${hexes#* }
# ollama.exe: the stand-in under Ollama's name, its DLLs beside it
mkdir "$tmp/bin"
cp "$standin" "$tmp/bin/ollama.exe"
cp "$(dirname "$standin")"/*.dll "$tmp/bin/"
# Wine sets APPDATA, LOCALAPPDATA and USERPROFILE to the prefix's profile
# for every process, whatever the Unix environment says: profile_dir VAR SUB
# sets $win to %VAR% and makes SUB under it, as $dir (never one that exists)
profile_dir() {
	win=$($wine cmd /c echo "%$1%" 2>/dev/null | tr -d '\r')
	unix=$($wine winepath -u "$win" 2>/dev/null | tr -d '\r')
	[ -d "$unix" ] || fail "no $1 folder from Wine: $win"
	dir="$unix/$2"
	[ -e "$dir" ] && fail "$dir exists already: not overwritten"
	mkdir -p "$dir"
}
# Handy's data folder: its selected model and log
profile_dir APPDATA com.pais.handy
appdata=$win handy_dir=$dir
mkdir "$handy_dir/logs"
printf '{"settings":{"selected_model":"whisper-small"}}\n' >"$handy_dir/settings_store.json"
printf '[2026-12-01][10:00:00][handy::managers::transcription][INFO] Starting to load model: whisper-small\n' \
	>"$handy_dir/logs/handy.log"
cp "$tmp/bin/ollama.exe" "$tmp/bin/Handy.exe"
# LM Studio's models folder, a model two levels down, for lms.exe (LM
# Studio's CLI) to list as installed
profile_dir USERPROFILE .lmstudio
profile=$win lms_dir=$dir
mkdir -p "$lms_dir/models/gtm-pub/tiny-GGUF"
cp "$tmp/m.gguf" "$lms_dir/models/gtm-pub/tiny-GGUF/tiny-Q8_0.gguf"
cp "$tmp/bin/ollama.exe" "$tmp/bin/lms.exe"
dhf=$(dos "$tmp/hf-模型 ß") dom=$(dos "$tmp/om-ü") dm=$(dos "$tmp/m.gguf")
[ -n "$dhf" ] && [ -n "$dom" ] && [ -n "$dm" ] || fail "winepath gave no Windows paths"
mark="gtm-env-$$"

start() { # OUT VAR=VALUE|- EXE ARGS...: one stand-in, VAR set for it alone
	out=$1 var=$2
	shift 2
	if [ "$var" = - ]; then
		env -u HF_HOME -u OLLAMA_MODELS $wine "$@" >"$tmp/$out" 2>&1 &
	else
		env -u HF_HOME -u OLLAMA_MODELS "$var" $wine "$@" >"$tmp/$out" 2>&1 &
	fi
	pids="$pids $!"
}
start hf.out "HF_HOME=$dhf" "$standin" -m "$dm" -hf gtm-org/tiny-GGUF:Q4_K_M --alias "$mark-hf"
start nohf.out - "$standin" -m "$dm" -hf gtm-org/tiny-GGUF:Q4_K_M --alias "$mark-nohf"
start om.out "OLLAMA_MODELS=$dom" "$tmp/bin/ollama.exe" runner -m "$dom\\blobs\\sha256-$tiny" --alias "$mark-om"
start noom.out - "$tmp/bin/ollama.exe" runner -m "$dom\\blobs\\sha256-$tiny" --alias "$mark-noom"
start handy.out - "$tmp/bin/Handy.exe" -m "$dm" --alias "$mark-handy"
start lms.out - "$tmp/bin/lms.exe" -m "$dm" --alias "$mark-lms"
for out in hf nohf om noom handy lms; do
	for _ in $(seq 100); do
		grep -q ready "$tmp/$out.out" && break
		sleep 0.2
	done
	grep -q ready "$tmp/$out.out" || fail "the $out stand-in never said ready: $(cat "$tmp/$out.out")"
done
$wine "$gtm" --json --all >"$tmp/snap.json" 2>"$tmp/gtm.err" || fail "gputaskman.exe --json failed: $(cat "$tmp/gtm.err")"
# Ollama's log is looked for under the prefix's LOCALAPPDATA
lad=$($wine cmd /c echo %LOCALAPPDATA% 2>/dev/null | tr -d '\r')
case $lad in [A-Za-z]:\\*) ;; *) fail "no LOCALAPPDATA from Wine's cmd: $lad" ;; esac
hfpid=$(python3 - "$tmp/snap.json" "$mark" "$dhf" "$dom" "$tiny" "$other" "$lad" "$appdata" "$profile" <<'PY'
import json, sys
snap, mark, dhf, dom, tiny, other, lad, appdata, profile = json.load(open(sys.argv[1], encoding="utf-8")), *sys.argv[2:]
def die(msg):  # on stdout: the shell shows what $(...) took
    print(msg)
    sys.exit(1)
def proc(suffix):
    ps = [p for p in snap["processes"] if f"{mark}-{suffix}" in (p.get("cmdline") or [])]
    if len(ps) != 1:
        die(f"{len(ps)} processes with {mark}-{suffix}; listed: {[p['name'] for p in snap['processes']]}")
    return ps[0]
def models(p):
    return {(m.get("path") or "").lower(): m for m in p["models"]}
problems = []
hf_file = (dhf + "\\hub\\models--gtm-org--tiny-GGUF\\snapshots\\0123abc\\tiny-Q4_K_M.gguf").lower()
m = models(proc("hf")).get(hf_file)
if not m:
    problems.append(f"HF_HOME: no model at {hf_file}: {list(models(proc('hf')))}")
elif (m["store"], m["name"]) != ("hf", "gtm-org/tiny-GGUF") or "cmdline" not in m["evidence"] or (m.get("gguf") or {}).get("arch") != "llama":
    problems.append(f"HF_HOME model {m['store']} {m['name']} {m['evidence']} {m.get('gguf')}")
if any(k.startswith(dhf.lower()) for k in models(proc("nohf"))):
    problems.append(f"without HF_HOME a model in {dhf} was found: {list(models(proc('nohf')))}")
blob = lambda h: (dom + "\\blobs\\sha256-" + h).lower()
for suffix, want_other in (("om", True), ("noom", False)):
    p = proc(suffix)
    ms = models(p)
    if "ollama" not in {r["id"] for r in p["runtimes"]}:
        problems.append(f"{suffix}: runtimes {[r['id'] for r in p['runtimes']]}")
    t = ms.get(blob(tiny))
    # the running model is named from the path's own layout, with or without the variable
    if not t or (t["store"], t["name"]) != ("ollama", "gtmtiny:latest") or sorted(t["evidence"]) != ["cmdline", "mapped"]:
        problems.append(f"{suffix}: running model {t and (t['store'], t['name'], t['evidence'])}")
    o = ms.get(blob(other))
    if want_other and (not o or o["name"] != "gtmother:7b" or o["evidence"] != ["installed"]):
        problems.append(f"OLLAMA_MODELS: installed candidate {o and (o['name'], o['evidence'])}; models {list(ms)}")
    if not want_other and o:
        problems.append(f"without OLLAMA_MODELS the store's other model was listed: {o['name']}")
    log = ((p.get("explain") or {}).get("log") or {}).get("path") or ""
    if log.lower() != (lad + "\\Ollama\\server.log").lower():
        problems.append(f"{suffix}: Ollama log looked for at {log!r}, not in LOCALAPPDATA {lad}")
app = (proc("handy").get("explain") or {}).get("app") or {}
want = (appdata + "\\com.pais.handy\\settings_store.json").lower()
if (app.get("app"), app.get("selected_model"), (app.get("settings_path") or "").lower()) != ("handy", "whisper-small", want):
    problems.append(f"Handy: {app}")
elif [(e["event"], e["detail"]) for e in app.get("events") or []] != [("load", "whisper-small")]:
    problems.append(f"Handy log events {app.get('events')} from {app.get('log_path')}")
lms_file = (profile + "\\.lmstudio\\models\\gtm-pub\\tiny-GGUF\\tiny-Q8_0.gguf").lower()
m = models(proc("lms")).get(lms_file)
if not m or (m["store"], m["name"], m["evidence"]) != ("lmstudio", "gtm-pub/tiny-GGUF", ["installed"]):
    problems.append(f"LM Studio: {m and (m['store'], m['name'], m['evidence'])}; models {list(models(proc('lms')))}")
if problems:
    die("; ".join(problems))
print(proc("hf")["pid"])
PY
) || fail "$hfpid"
$wine "$gtm" inspect "$hfpid" >"$tmp/inspect.txt" 2>&1 || fail "inspect $hfpid failed: $(cat "$tmp/inspect.txt")"
grep -q "gtm-org/tiny-GGUF" "$tmp/inspect.txt" && grep -q "store hf" "$tmp/inspect.txt" ||
	fail "inspect $hfpid shows no HF model: $(cat "$tmp/inspect.txt")"
printf "%s\n" "ok: HF_HOME and OLLAMA_MODELS read from the processes' PEBs: -hf model in $dhf, Ollama candidate gtmother:7b in $dom; none without them; Ollama's log under $lad, Handy's settings and log under $appdata, LM Studio's model under $profile"
