#!/bin/sh
# Installs the Debian packages gputaskman builds and tests with, when run as
# root; otherwise prints the one line that would, and fails. With --check
# (make check) it adds the test-only packages: Prometheus (promtool and a real
# server for serve's tests) and the Windows build's (mingw-w64, Wine, and what
# builds the mingw sysroot from Debian source packages), and zsh, fish and
# mandoc for the completion and man page tests. They are optional:
# when one cannot be installed, the tests that need it say SKIP and why, and
# the build goes on. `make run` installs none of them. --release (make deb,
# make dist-linux; --check adds them too) installs the packaging tools and
# the arm64 libraries of Debian's multiarch, for the arm64 tarball.
set -u
pkgs="meson ninja-build pkg-config gcc python3 libncurses-dev libcurl4-openssl-dev libjansson-dev libcmocka-dev libzstd-dev tmux"
# serve: libmicrohttpd (headers to build, the library to run)
pkgs="$pkgs libmicrohttpd-dev libmicrohttpd12"
# the probes' HTTP: libevent's client, loaded at run time with our own
# declarations (no headers); libcurl above is the fallback
pkgs="$pkgs libevent-2.1-7"
optional=""
# the .deb (dpkg-buildpackage, dh, lintian), the tarballs' cross compiler,
# their clean-root runner and qemu for the arm64 one
release="dpkg-dev debhelper lintian bubblewrap gcc-aarch64-linux-gnu qemu-user-static"
arm64=""
for a in "$@"; do
	case $a in
	--fuzz) pkgs="$pkgs clang" ;;
	--check) optional="prometheus gcc-mingw-w64-x86-64-posix mingw-w64-x86-64-dev wine64 cmake make dpkg-dev zip unzip zsh fish mandoc $release" arm64=1 ;;
	--release) optional="$release" arm64=1 ;;
	esac
done
missing_of() {
	out=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || out="$out $p"
	done
	echo "$out"
}
missing=$(missing_of $pkgs)
missing_opt=$(missing_of $optional)
# The arm64 tarball links Debian's own arm64 libraries, installed through
# multiarch. Optional like the rest: where apt cannot fetch arm64 packages the
# architecture is taken back out and the arm64 test SKIPs.
if [ -n "$arm64" ]; then
	arm64_pkgs="libjansson-dev:arm64 libzstd-dev:arm64 libncurses-dev:arm64 libcurl4-openssl-dev:arm64 libmicrohttpd-dev:arm64"
	missing_arm=$(missing_of $arm64_pkgs)
	if [ -n "$missing_arm" ] && [ "$(id -u)" = 0 ]; then
		echo "gputaskman: installing the arm64 libraries (multiarch):$missing_arm"
		added=""
		dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64 && added=1; }
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing_arm >/dev/null 2>&1 || {
			echo "gputaskman: could not install$missing_arm: the arm64 tarball's test will SKIP" >&2
			[ -n "$added" ] && dpkg --remove-architecture arm64 2>/dev/null
		}
	elif [ -n "$missing_arm" ]; then
		echo "gputaskman: the arm64 tarball's test will SKIP (sudo dpkg --add-architecture arm64; sudo apt-get update; sudo apt-get install -y$missing_arm)" >&2
	fi
fi
[ -z "$missing" ] && [ -z "$missing_opt" ] && exit 0
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
			echo "gputaskman: could not install$missing_opt: the tests that need them will SKIP" >&2
	fi
	exit 0
fi
[ -n "$missing_opt" ] && echo "gputaskman: the tests that need$missing_opt will SKIP (sudo apt-get install -y$missing_opt)" >&2
[ -z "$missing" ] && exit 0
echo "gputaskman: missing build packages. Run:" >&2
echo "  sudo apt-get install -y$missing" >&2
exit 1
