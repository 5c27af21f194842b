#!/bin/sh
# Runs the meson test suite in each build dir given (default build-check) and
# closes with one line over all of them: "N passed, N failed, N skipped".
# Progress goes to the console as it happens: each suite's name as it starts,
# then one line per finished test with a running count over all the dirs.
# After each suite: every SKIP with the reason its test printed, and every
# failure with its name, its result and the last lines of its output (the
# whole output is in DIR/meson-logs/testlog-SUITE.txt). Everything meson
# wrote is also kept in DIR/test-output.txt.
# A dir with a skip-reason file (scripts/check-windows.sh: no mingw-w64 or
# Wine here) counts as one skipped test and says why. A Windows build's tests
# run under Wine in one fresh prefix for this run (scripts/wine-run.sh).
# GTM_TEST_TAIL sets how many lines of a failed test's output are shown (30).
set -u
[ $# -eq 0 ] && set -- build-check
here=$(dirname "$0")
report="$here/test-report.py"
# meson writes each result as the test ends only when its stdout is unbuffered
export PYTHONUNBUFFERED=1
rc=0
logs=""
skips=0
# the tests of every dir, for the running count
total=0
for dir in "$@"; do
	[ -f "$dir/skip-reason" ] && continue
	total=$((total + $(python3 "$report" count "$dir")))
done
done_count=0
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
		echo "$dir: starting a Wine prefix for its tests"
		# one cold start (~6 s) before the tests, so parallel tests never race to create it
		GTM_WINE_TIMEOUT=120 sh "$here/wine-run.sh" wineboot --init >/dev/null 2>&1
	fi
	: >"$dir/test-output.txt"
	# one meson run per suite, so each suite's name shows as it starts; a build
	# whose tests name no suite (or several per test) runs in one go
	suites=$(python3 "$report" suites "$dir")
	for suite in ${suites:-ALL}; do
		if [ "$suite" = ALL ]; then
			sel="" logbase=testlog
			echo "$dir: running its tests"
		else
			sel="--suite $suite" logbase="testlog-$suite"
			n=$(python3 "$report" count "$dir" "$suite")
			echo "$dir: suite $suite ($n test$([ "$n" = 1 ] || echo s))"
		fi
		status="$dir/.suite-status"
		log="$dir/meson-logs/$logbase.json"
		rm -f "$log"
		# A test's timeout guards against a hang, never against a slow machine:
		# each is set in its meson.build to 4x or more the slowest time a full
		# run on a loaded 2-CPU machine took, so it is used as it is (a hang then
		# costs minutes, not the 20 the old factor of 5 allowed).
		# GTM_TIMEOUT_MULTIPLIER scales them all on a slower machine.
		# shellcheck disable=SC2086 # sel is two words or none
		{ meson test -C "$dir" $sel --logbase "$logbase" --num-processes 2 \
			--timeout-multiplier "${GTM_TIMEOUT_MULTIPLIER:-1}" 2>&1; echo $? >"$status"; } |
			tee -a "$dir/test-output.txt" | python3 "$report" progress "$dir" "$done_count" "$total"
		[ "$(cat "$status" 2>/dev/null)" = 0 ] || rc=1
		if [ -f "$log" ]; then
			done_count=$((done_count + $(grep -c . "$log")))
			python3 "$report" details "$dir" "$log"
			logs="$logs $log"
		else
			echo "$dir: meson wrote no $log; its output:" >&2
			tail -n 40 "$dir/test-output.txt" >&2
			rc=1
		fi
	done
	rm -f "$dir/.suite-status"
	if [ -n "$prefix" ]; then
		WINEDEBUG=-all timeout 30 wineserver -k >/dev/null 2>&1
		rm -rf "$prefix"
		unset WINEPREFIX
	fi
done
python3 "$report" total "$skips" $logs
py=$?
[ $rc -ne 0 ] && [ $py -eq 0 ] && exit $rc
exit $py
