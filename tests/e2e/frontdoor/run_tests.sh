#!/bin/sh
# scripts/run-tests.sh ($1) on a small meson project of its own: one test that
# passes, one that fails after 40 lines of output, one that skips with a
# reason, one that hangs past its 3 s timeout with a child holding its output
# (cut at the timeout, the child too), in two suites. The console must show each suite as it starts, a
# running count, the failing test's name and its last lines (not its first),
# the skip's reason, and the closing count; the exit status says it failed.
set -u
script=$1
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
has() { # name, fixed string
	if grep -qF -- "$2" "$t/console"; then ok "$1"; else bad "$1: no '$2' on the console"; fi
}
line_of() { grep -nF -- "$1" "$t/console" | head -n 1 | cut -d: -f1; }
command -v meson >/dev/null 2>&1 || { echo "SKIP: meson is not installed"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
t=$(mktemp -d /tmp/gtm-run-tests-XXXXXX)
trap 'rm -rf "$t"' EXIT
mkdir "$t/p"
cat >"$t/p/meson.build" <<'EOF'
project('runtests-probe')
sh = find_program('sh')
test('passes', sh, args : ['-c', 'echo fine'], suite : 'first')
test('fails', sh, args : ['-c', 'i=1; while [ $i -le 40 ]; do echo "output line $i"; i=$((i + 1)); done; echo "the reason it failed" >&2; exit 1'],
  suite : 'second')
test('skips', sh, args : ['-c', 'echo "SKIP: no frobnicator here (apt-get install frobnicator)"; exit 77'], suite : 'second')
test('hangs', sh, args : ['-c', 'echo "the line before the hang"; sleep 120 & wait'], suite : 'second', timeout : 3)
EOF
# the surrounding meson test's variables are not the user's
env -u MESON_TEST_ITERATION meson setup "$t/b" "$t/p" >"$t/setup" 2>&1 || { cat "$t/setup"; echo "FAIL meson setup"; exit 1; }
s0=$(date +%s)
sh "$script" "$t/b" >"$t/console" 2>&1
rc=$?
took=$(($(date +%s) - s0))
cat "$t/console"
[ $rc -ne 0 ] && ok "a failed test fails the run" || bad "exit status 0 with a failed test"
has "the first suite is named" "suite first (1 test)"
has "the second suite is named" "suite second (3 tests)"
has "a running count over all the tests" "[1/4] first / passes OK"
has "the count goes on across suites" "[4/4] second /"
a=$(line_of "suite second"); b=$(line_of "second / fails FAIL")
[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] && ok "a suite's name comes before its results" ||
	bad "suite second's name is not printed before its results"
has "the failing test is named" "FAILED second / fails"
has "its last line of stdout" "output line 40"
has "its stderr" "the reason it failed"
grep -qx ".*output line 1" "$t/console" && bad "the whole output, not its last lines" || ok "only its last lines"
has "the skip's reason" "SKIP second / skips: no frobnicator here (apt-get install frobnicator)"
has "a hung test is named with its timeout" "FAILED second / hangs: TIMEOUT"
has "and its last line" "the line before the hang"
# cut at its timeout, its child too: not when the child holding the output ends (120 s)
[ "$took" -lt 100 ] && ok "the hang ends at its timeout, not with its child ($took s for the run)" ||
	bad "the run took $took s with a 3 s timeout"
has "the closing count" "1 passed, 2 failed, 1 skipped"
exit $fail
