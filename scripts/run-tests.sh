#!/bin/sh
# Runs the meson test suite in build dir $1 and closes with "N passed, N failed".
set -u
dir=${1:-build-check}
meson test -C "$dir" --print-errorlogs --num-processes 2 >"$dir/test-output.txt" 2>&1
rc=$?
grep -E '^ *[0-9]+/[0-9]+ ' "$dir/test-output.txt" | sed 's/^ *//'
grep -E -A40 '^(=+ [0-9]+/[0-9]+ =+|--- (stdout|stderr|command))' "$dir/test-output.txt" | grep -v '^$' | tail -n 200 | sed -n '/FAIL\|ERROR\|fail/,+20p' | head -100
python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
ok = fail = skip = 0
for line in open(sys.argv[1]):
    r = json.loads(line).get("result")
    if r in ("OK", "EXPECTEDFAIL"): ok += 1
    elif r == "SKIP": skip += 1
    else: fail += 1
print(f"{ok} passed, {fail} failed, {skip} skipped")
sys.exit(1 if fail else 0)
PY
py=$?
[ $rc -ne 0 ] && [ $py -eq 0 ] && exit $rc
exit $py
