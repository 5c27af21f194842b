#!/bin/sh
# Runs the meson test suite in each build dir given (default build-check) and
# closes with one line over all of them: "N passed, N failed, N skipped".
# A dir with a skip-reason file (scripts/check-windows.sh: no mingw-w64 or
# Wine here) counts as one skipped test and says why. A Windows build's tests
# run under Wine in one fresh prefix for this run (scripts/wine-run.sh).
set -u
[ $# -eq 0 ] && set -- build-check
rc=0
logs=""
skips=0
for dir in "$@"; do
	if [ -f "$dir/skip-reason" ]; then
		echo "SKIP $dir: $(cat "$dir/skip-reason")"
		skips=$((skips + 1))
		continue
	fi
	prefix=""
	if grep -q "^exe_wrapper" "$dir/machine.txt" 2>/dev/null; then
		prefix=$(mktemp -d /tmp/gtm-wine-XXXXXX)
		export WINEPREFIX="$prefix/prefix"
		# one cold start (~6 s) before the tests, so parallel tests never race to create it
		GTM_WINE_TIMEOUT=120 sh "$(dirname "$0")/wine-run.sh" wineboot --init >/dev/null 2>&1
	fi
	meson test -C "$dir" --print-errorlogs --num-processes 2 >"$dir/test-output.txt" 2>&1 || rc=1
	if [ -n "$prefix" ]; then
		WINEDEBUG=-all timeout 30 wineserver -k >/dev/null 2>&1
		rm -rf "$prefix"
		unset WINEPREFIX
	fi
	grep -E '^ *[0-9]+/[0-9]+ ' "$dir/test-output.txt" | sed "s|^ *|$dir: |"
	grep -E -A40 '^(=+ [0-9]+/[0-9]+ =+|--- (stdout|stderr|command))' "$dir/test-output.txt" | grep -v '^$' | tail -n 200 | sed -n '/FAIL\|ERROR\|fail/,+20p' | head -100
	logs="$logs $dir/meson-logs/testlog.json"
done
python3 - "$skips" $logs <<'PY'
import json, sys
ok = fail = 0
skip = int(sys.argv[1])
for path in sys.argv[2:]:
    for line in open(path):
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
