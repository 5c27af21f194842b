#!/bin/sh
# A build that loads ncursesw and zstd at run time (a Linux build linking
# them shared) runs without them wherever it does not need them, and says
# so where it does. In a bwrap sandbox whose libncursesw.so.6 (then
# libzstd.so.1) is an empty file, as if the package were not installed:
# - the live view, on a pseudo-terminal (script), exits non-zero at once and
#   names libncursesw and its Debian package;
# - --once --json prints a snapshot and exits 0;
# - without libzstd, record exits non-zero naming libzstd, and --once still
#   works.
# The real binary $1 against the fake NVML in $2.
set -u
bin=$1 fakedir=$2
command -v bwrap >/dev/null 2>&1 || { echo "SKIP: no bwrap (Debian bubblewrap)"; exit 77; }
command -v script >/dev/null 2>&1 || { echo "SKIP: no script (Debian bsdutils)"; exit 77; }
lib_of() { # the file behind a soname, as this machine's loader finds it
	p=$(ldconfig -p | sed -n "s/^[[:space:]]*$1 (libc6,x86-64) => //p; s/^[[:space:]]*$1 ([^)]*) => //p" | head -n1)
	[ -n "$p" ] && readlink -f "$p"
}
curses=$(lib_of libncursesw.so.6) zstd=$(lib_of libzstd.so.1)
[ -n "$curses" ] && [ -n "$zstd" ] || { echo "SKIP: libncursesw.so.6 or libzstd.so.1 not installed here"; exit 77; }
bwrap --ro-bind / / --dev /dev --proc /proc true 2>/dev/null || { echo "SKIP: bwrap cannot make a sandbox here"; exit 77; }
t=$(mktemp -d /tmp/gtm-nolibs-XXXXXX)
trap 'rm -rf "$t"' EXIT
cat >"$t/scn" <<SCN
device name="NVIDIA NoLibs GPU" uuid=GPU-nolibs-0 bus=0000:01:00.0 mem_total=17179869184 mem_used=1073741824
SCN
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
without() { # LIBFILE CMD...: CMD with LIBFILE (the file its sonames link to) an empty file
	lib=$1
	shift
	set -- --ro-bind /dev/null "$lib" "$@"
	bwrap --ro-bind / / --dev /dev --proc /proc --bind "$t" "$t" "$@"
}
export LD_LIBRARY_PATH="$fakedir" GTM_FAKE_NVML_SCENARIO="$t/scn"

# the live view on a terminal, without ncursesw
without "$curses" script -qec "$bin -i 0.5 2>$t/live-err; echo \$? >$t/live-rc" /dev/null </dev/null >"$t/live-out" 2>&1
rc=$(cat "$t/live-rc" 2>/dev/null)
[ -n "$rc" ] && [ "$rc" != 0 ] && ok "live view without libncursesw: exit status $rc" || bad "live view without libncursesw: exit status '$rc' (expected non-zero); $(cat "$t/live-out")"
grep -q 'the live view needs libncursesw (Debian: libncursesw6' "$t/live-err" && grep -q 'libncursesw.so.6' "$t/live-err" &&
	ok "it says so: $(cat "$t/live-err")" || bad "no clear message: '$(cat "$t/live-err" 2>/dev/null)'"
[ "$(grep -c . "$t/live-err")" = 1 ] && ok "in one line" || bad "more than one line of stderr: $(cat "$t/live-err")"

# a one-shot snapshot without ncursesw
without "$curses" "$bin" --once --json --no-probe >"$t/once.json" 2>"$t/once-err"
rc=$?
[ $rc = 0 ] && ok "--once --json without libncursesw: exit status 0" || bad "--once --json without libncursesw: exit $rc: $(cat "$t/once-err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["gpus"][0]["name"] == "NVIDIA NoLibs GPU"' "$t/once.json" 2>/dev/null &&
	ok "its JSON names the GPU" || bad "its JSON: $(head -c 300 "$t/once.json")"

# recording without zstd; a snapshot without it
without "$zstd" "$bin" record -i 0.1 --count 2 --no-probe -o "$t/r.rec" >"$t/rec-out" 2>"$t/rec-err"
rc=$?
[ $rc != 0 ] && ok "record without libzstd: exit status $rc" || bad "record without libzstd: exit status 0"
grep -q 'recordings need libzstd (Debian: libzstd1): libzstd.so.1' "$t/rec-err" && ok "it says so: $(head -n1 "$t/rec-err")" ||
	bad "record's message: '$(cat "$t/rec-err")'"
without "$zstd" "$bin" --once --json --no-probe >"$t/once2.json" 2>"$t/once2-err" && ok "--once --json without libzstd: exit status 0" ||
	bad "--once --json without libzstd: $(cat "$t/once2-err")"
# and with both there, the same recording works (the loader's other half)
"$bin" record -i 0.1 --count 2 --no-probe -o "$t/r.rec" >"$t/rec-out" 2>"$t/rec-err" && "$bin" replay "$t/r.rec" --json >"$t/replay.json" 2>&1 &&
	grep -q 'NVIDIA NoLibs GPU' "$t/replay.json" && ok "with libzstd: record and replay --json" || bad "with libzstd: $(cat "$t/rec-err" "$t/replay.json" | head -5)"
exit $fail
