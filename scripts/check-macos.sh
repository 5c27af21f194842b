#!/bin/sh
# make check's macOS part: builds the arm64 Mach-O with -Werror into
# BUILD_DIR and checks what came out (scripts/macos-inspect.sh). No Mac runs
# it here; the pure darwin modules are tested on Linux (tests/unit/darwin).
#   scripts/check-macos.sh BUILD_DIR [CACHE_DIR]
# Exits 77 with the reason (written to BUILD_DIR/skip-reason) when the
# cross tools or the set-up's packages cannot be had; 1 when a check fails.
set -u
b=${1:?usage: check-macos.sh BUILD_DIR [CACHE_DIR]}
cache=${2:-${GTM_MACOS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gputaskman/macos-arm64}}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$b"
rm -f "$b/skip-reason"
skip() {
	echo "$1" >"$b/skip-reason"
	echo "macos build: SKIP: $1"
	exit 77
}
sh "$src/scripts/macos-sysroot.sh" "$cache" 2>"$b/sysroot-error.txt"
rc=$?
[ $rc -eq 77 ] && skip "$(cat "$b/sysroot-error.txt")"
[ $rc -ne 0 ] && { cat "$b/sysroot-error.txt" >&2; exit 1; }
sh "$src/scripts/macos-build.sh" "$b" "$cache" >"$b/build-output.txt" 2>&1 ||
	{ tail -n 40 "$b/build-output.txt" >&2; exit 1; }
sh "$src/scripts/macos-inspect.sh" "$b/src/gputaskman"
