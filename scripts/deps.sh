#!/bin/sh
# Installs the Debian packages gputaskman builds and tests with, when run as
# root; otherwise prints the one line that would, and fails.
set -u
pkgs="meson ninja-build pkg-config gcc python3 libncurses-dev libcurl4-openssl-dev libjansson-dev libcmocka-dev libzstd-dev tmux"
[ "${1:-}" = "--fuzz" ] && pkgs="$pkgs clang"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "gputaskman: installing build packages:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null 2>&1 || true
	apt-get install -y -qq $missing >/dev/null || { echo "gputaskman: apt-get install failed:$missing" >&2; exit 1; }
	exit 0
fi
echo "gputaskman: missing build packages. Run:" >&2
echo "  sudo apt-get install -y$missing" >&2
exit 1
