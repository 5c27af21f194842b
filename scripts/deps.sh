#!/bin/sh
# Installs the Debian packages gputaskman builds and tests with, when run as
# root; otherwise prints the one line that would, and fails. The Windows
# build's packages (mingw-w64, Wine, and what builds the sysroot from source
# packages) are installed the same way but are optional: when they cannot be
# installed, make check reports the Windows tests skipped and says why.
set -u
pkgs="meson ninja-build pkg-config gcc python3 libncurses-dev libcurl4-openssl-dev libjansson-dev libcmocka-dev libzstd-dev tmux"
win_pkgs="gcc-mingw-w64-x86-64-posix mingw-w64-x86-64-dev wine64 cmake make dpkg-dev zip unzip"
[ "${1:-}" = "--fuzz" ] && pkgs="$pkgs clang"
missing_of() {
	out=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || out="$out $p"
	done
	echo "$out"
}
missing=$(missing_of $pkgs)
win_missing=$(missing_of $win_pkgs)
[ -z "$missing" ] && [ -z "$win_missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null 2>&1 || true
	if [ -n "$missing" ]; then
		echo "gputaskman: installing build packages:$missing"
		apt-get install -y -qq $missing >/dev/null || { echo "gputaskman: apt-get install failed:$missing" >&2; exit 1; }
	fi
	if [ -n "$win_missing" ]; then
		echo "gputaskman: installing the Windows build's packages:$win_missing"
		apt-get install -y -qq $win_missing >/dev/null 2>&1 ||
			echo "gputaskman: could not install$win_missing; the Windows tests will be skipped" >&2
	fi
	exit 0
fi
[ -n "$win_missing" ] && echo "gputaskman: the Windows tests need:$win_missing (sudo apt-get install -y$win_missing)" >&2
[ -z "$missing" ] && exit 0
echo "gputaskman: missing build packages. Run:" >&2
echo "  sudo apt-get install -y$missing" >&2
exit 1
