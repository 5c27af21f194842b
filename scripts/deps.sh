#!/bin/sh
# Installs the Debian packages gputaskman builds and tests with, when run as
# root; otherwise prints the one line that would, and fails.
set -u
pkgs="meson ninja-build pkg-config gcc python3 libncurses-dev libcurl4-openssl-dev libjansson-dev libcmocka-dev libzstd-dev tmux"
# serve: libmicrohttpd (headers to build, the library to run)
pkgs="$pkgs libmicrohttpd-dev libmicrohttpd12"
# For the tests only (--check: promtool and a real Prometheus server): when
# one cannot be installed, the tests that need it say SKIP and the build goes
# on. `make run` installs none of them.
optional=""
for a in "$@"; do
	case $a in
	--fuzz) pkgs="$pkgs clang" ;;
	--check) optional="$optional prometheus" ;;
	esac
done
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=""
for p in $pkgs; do
	installed "$p" || missing="$missing $p"
done
missing_opt=""
for p in $optional; do
	installed "$p" || missing_opt="$missing_opt $p"
done
[ -z "$missing$missing_opt" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null 2>&1 || true
	if [ -n "$missing" ]; then
		echo "gputaskman: installing build packages:$missing"
		apt-get install -y -qq $missing >/dev/null || { echo "gputaskman: apt-get install failed:$missing" >&2; exit 1; }
	fi
	if [ -n "$missing_opt" ]; then
		echo "gputaskman: installing test packages:$missing_opt"
		apt-get install -y -qq --no-install-recommends $missing_opt >/dev/null 2>&1 ||
			echo "gputaskman: could not install$missing_opt: the tests that need it will SKIP" >&2
	fi
	exit 0
fi
[ -z "$missing" ] && { echo "gputaskman: optional test packages missing (tests SKIP):$missing_opt" >&2; exit 0; }
echo "gputaskman: missing build packages. Run:" >&2
echo "  sudo apt-get install -y$missing" >&2
exit 1
