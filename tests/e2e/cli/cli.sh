#!/bin/sh
# The command line: flags, bad input, exit statuses, N/A never 0. Runs the
# real binary ($1) with no NVIDIA driver on the library path.
set -u
bin=$1
fail=0
check() { # name, expected rc, actual rc
	if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
expect_out() { # name, pattern, file
	if grep -q -- "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: no '$2' in:"; cat "$3"; fail=1; fi
}
t=$(mktemp -d /tmp/gtm-cli-XXXXXX)
sp=
trap '[ -n "$sp" ] && kill "$sp" 2>/dev/null; rm -rf "$t"' EXIT
# An empty library folder first on the path and no system driver: NVML is absent.
export LD_LIBRARY_PATH="$t/nolib"

"$bin" --help >"$t/help" 2>&1; check "--help exits 0" 0 $?
for flag in --once --json --list-gpus --gpu -i --all --version --no-probe inspect diff Example; do
	expect_out "--help mentions $flag" "$flag" "$t/help"
done
"$bin" --version >"$t/v" 2>&1; check "--version" 0 $?
expect_out "--version prints the version" "gputaskman [0-9]" "$t/v"

"$bin" --bogus >"$t/o" 2>"$t/e"; check "unknown flag exits 2" 2 $?
expect_out "unknown flag is named" "unknown option '--bogus'" "$t/e"
[ "$(wc -l <"$t/e")" -eq 1 ] && echo "ok   one line" || { echo "FAIL unknown flag: not one line"; fail=1; }
"$bin" -i abc >"$t/o" 2>"$t/e"; check "bad interval exits 2" 2 $?
expect_out "bad interval explained" "seconds" "$t/e"
"$bin" -i >"$t/o" 2>"$t/e"; check "missing interval exits 2" 2 $?
"$bin" --gpu x >"$t/o" 2>"$t/e"; check "bad --gpu exits 2" 2 $?
"$bin" --gpu 7 --once >"$t/o" 2>"$t/e"; check "--gpu out of range exits 2" 2 $?
expect_out "--gpu out of range explained" "gpu 7" "$t/e"

"$bin" --once >"$t/o" 2>"$t/e" </dev/null; check "--once without a driver exits 0" 0 $?
expect_out "--once says why no NVIDIA GPU is shown" "nvml" "$t/o"
"$bin" --json >"$t/j" 2>"$t/e"; check "--json exits 0" 0 $?
python3 - "$t/j" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1, d
assert isinstance(d["gpus"], list) and isinstance(d["processes"], list)
nv = [s for s in d["sources"] if s["name"] == "nvml"]
assert nv and nv[0]["available"] is False and nv[0]["message"], d["sources"]
print("ok   --json without a driver: nvml unavailable with a reason")
PY
"$bin" --list-gpus --json >"$t/l" 2>"$t/e"; check "--list-gpus --json exits 0" 0 $?
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["gpus"] == [] and d["schema_version"] == 1, d' "$t/l" &&
	echo "ok   --list-gpus --json prints the gpus array" || { echo "FAIL --list-gpus --json"; fail=1; }
"$bin" --gpu >"$t/o" 2>"$t/e"; check "--gpu without a value exits 2" 2 $?
expect_out "--gpu without a value explained" "needs a GPU index" "$t/e"
sleep 300 >/dev/null 2>&1 & sp=$! # a process to inspect (killed below, or on the way out)
"$bin" --no-probe inspect "$sp" >"$t/o" 2>"$t/e"; check "--no-probe before inspect PID" 0 $?
expect_out "--no-probe inspect shows the process" "sleep" "$t/o"
kill "$sp" 2>/dev/null
# A root prefix that cannot be used is refused, never replaced by the real /.
GPUTASKMAN_ROOT="$t/no-such-root" "$bin" --json >"$t/o" 2>"$t/e"; check "missing GPUTASKMAN_ROOT exits 2" 2 $?
expect_out "missing GPUTASKMAN_ROOT is named" "GPUTASKMAN_ROOT=.*not a folder" "$t/e"
long=$(python3 -c 'print("/x" * 2100)')
GPUTASKMAN_ROOT="$long" "$bin" --once >"$t/o" 2>"$t/e"; check "over-long GPUTASKMAN_ROOT exits 2" 2 $?
# A root without /proc: counts are unavailable (null), not 0.
mkdir -p "$t/emptyroot"
GPUTASKMAN_ROOT="$t/emptyroot" "$bin" --json >"$t/j" 2>"$t/e"; check "root without /proc exits 0" 0 $?
python3 - "$t/j" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
c = d["counts"]
assert c["processes_seen"] is None and c["processes_uninspectable"] is None, c
print("ok   no /proc: process counts are null")
PY
# Output to a pipe never starts the live view.
"$bin" | head -1 >"$t/o"; expect_out "plain run to a pipe prints a snapshot" "gputaskman" "$t/o"
exit $fail
