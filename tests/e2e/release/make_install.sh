#!/bin/sh
# make install honours PREFIX whatever the build folder was made with: a
# plain `make` (prefix /usr/local), then `make install PREFIX=/usr
# DESTDIR=D` puts everything under D/usr and nothing under D/usr/local, the
# WSL2 helper (a stand-in gputaskman.exe in WIN_BUILD) beside the binary;
# then PREFIX=/opt/gtm into another DESTDIR the same. The release build is
# kept in BUILD_DIR, so a second make check rebuilds only what changed.
#   make_install.sh BUILD_DIR
set -u
keep=$1
src=${GTM_SOURCE_ROOT:?}
command -v make >/dev/null || { echo "SKIP: no make (apt-get install make)"; exit 77; }
tmp=$(mktemp -d /tmp/gtm-make-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
mkdir -p "$keep" "$tmp/win/src"
b=$keep/build
printf 'MZ stand-in for the WSL2 helper\n' >"$tmp/win/src/gputaskman.exe"
# a plain `make`, as a user types it first (its prefix: /usr/local)
make -C "$src" BUILD="$b" build >"$tmp/make.txt" 2>&1 || {
	grep -q "scripts/deps.sh\|apt-get install" "$tmp/make.txt" &&
		{ echo "SKIP: build packages missing: $(tail -n 3 "$tmp/make.txt")"; exit 77; }
	fail "make: $(tail -n 20 "$tmp/make.txt")"
}
# the build folder may hold another prefix from an earlier run: set it back, as `make` made it
meson configure "$b" --prefix=/usr/local >/dev/null || fail "meson configure"

install_into() { # PREFIX DESTDIR
	make -C "$src" BUILD="$b" WIN_BUILD="$tmp/win" install PREFIX="$1" DESTDIR="$2" >"$tmp/install.txt" 2>&1 ||
		fail "make install PREFIX=$1: $(tail -n 20 "$tmp/install.txt")"
	[ -x "$2$1/bin/gputaskman" ] || fail "PREFIX=$1: no $1/bin/gputaskman; installed: $(cd "$2" && find . -type f | head -20)"
	"$2$1/bin/gputaskman" --version >/dev/null 2>&1 || fail "PREFIX=$1: the installed binary does not run"
	cmp -s "$tmp/win/src/gputaskman.exe" "$2$1/bin/gputaskman.exe" || fail "PREFIX=$1: the WSL2 helper is not beside the binary"
	grep -q "installed the WSL2 helper $1/bin/gputaskman.exe" "$tmp/install.txt" || fail "PREFIX=$1: says where the helper went"
	others=$(cd "$2" && find . -type f ! -path ".$1/*")
	[ -z "$others" ] || fail "PREFIX=$1: files outside it: $others"
	echo "ok   make install PREFIX=$1 DESTDIR=...: every file under $1, the helper beside the binary"
}
install_into /usr "$tmp/d1"
[ -e "$tmp/d1/usr/local" ] && fail "PREFIX=/usr: something went to /usr/local"
install_into /opt/gtm "$tmp/d2"
exit 0
