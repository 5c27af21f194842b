#!/bin/sh
# Prepares make check's Windows build: scripts/check-windows.sh BUILD_DIR SYSROOT_DIR
# cross-builds the Windows tests into BUILD_DIR (tests on, Wine as the
# exe_wrapper) with the sysroot of SYSROOT_DIR (make windows's build-win, so
# the libraries are built once). Exits 77 with the reason, also written to
# BUILD_DIR/skip-reason for scripts/run-tests.sh, when mingw-w64 or Wine is
# not installed or the sysroot cannot be built here; 1 when the build fails.
set -u
b=${1:?usage: check-windows.sh BUILD_DIR SYSROOT_DIR}
s=${2:?usage: check-windows.sh BUILD_DIR SYSROOT_DIR}
mkdir -p "$b"
rm -f "$b/skip-reason"
skip() {
	echo "$1" >"$b/skip-reason"
	echo "windows tests: SKIP: $1"
	exit 77
}
command -v x86_64-w64-mingw32-gcc-posix >/dev/null || skip "no mingw-w64 cross compiler (x86_64-w64-mingw32-gcc-posix; apt-get install gcc-mingw-w64-x86-64-posix)"
wine=${GTM_WINE:-/usr/lib/wine/wine64}
[ -x "$wine" ] || skip "no Wine ($wine; apt-get install wine64)"
sh scripts/mingw-sysroot.sh "$s" 2>"$b/sysroot-error.txt"
rc=$?
[ $rc -eq 77 ] && skip "the mingw sysroot cannot be built here: $(cat "$b/sysroot-error.txt")"
[ $rc -ne 0 ] && { cat "$b/sysroot-error.txt" >&2; exit 1; }
# the zip test (tests/windows/dist_zip.sh) finds the licences in BUILD_DIR/sysroot
[ -e "$b/sysroot" ] || ln -s "$(cd "$s" && pwd)/sysroot" "$b/sysroot"
if [ ! -f "$b/build.ninja" ]; then
	sh scripts/win-machine.sh "$b" "$s" >"$b/machine.txt" &&
		meson setup "$b" --cross-file cross/x86_64-w64-mingw32.txt --cross-file "$b/machine.txt" \
			-Dbuildtype=debug -Dwerror=true -Dtests=true >/dev/null || exit 1
fi
ninja -C "$b" >"$b/ninja-output.txt" 2>&1 || { tail -n 40 "$b/ninja-output.txt" >&2; exit 1; }
