#!/bin/sh
# Installs the Debian packages gputaskman builds and tests with, when run as
# root; otherwise prints the one line that would, and fails.
#   (none)     make run, make build: the build packages
#   --check    make check: adds the test-only packages (the README's "What
#              make check installs" lists them and why). They are optional:
#              when one cannot be installed, the tests that need it say SKIP
#              and why, and the build goes on.
#   --release  make deb, make dist-linux: the packaging tools and, through
#              Debian's multiarch (a second dpkg architecture), the arm64
#              libraries of the arm64 tarball. make check never installs
#              these; their tests SKIP with the reason when they are absent.
#   --fuzz     make fuzz: clang.
#   --list     prints what the other flags given would install, installs nothing.
# No system service is left running or enabled: a package whose Debian
# install starts one (prometheus: a server on :9090) is installed with
# service starts forbidden (policy-rc.d), and its unit is masked after; the
# tests run the package's programs themselves, on loopback ports of their own.
# GTM_DEPS_DRY_RUN=1 prints the commands an install as root would run, as if
# none of the packages were installed, and runs none of them.
set -u
dry=${GTM_DEPS_DRY_RUN:-}
export DEBIAN_FRONTEND=noninteractive
pkgs="meson ninja-build pkg-config gcc python3 libncurses-dev libcurl4-openssl-dev libjansson-dev libcmocka-dev libzstd-dev tmux"
# serve: libmicrohttpd (headers to build, the library to run) and zlib's
# headers (its gzip replies load libz at run time)
pkgs="$pkgs libmicrohttpd-dev libmicrohttpd12 zlib1g-dev"
# the probes' HTTP: libevent's client, loaded at run time with our own
# declarations (no headers); libcurl above is the fallback
pkgs="$pkgs libevent-2.1-7"
# make check's: Prometheus (promtool and a server the serve test starts) and
# curl for that test, python3-yaml for the DaemonSet manifest's test; the Windows build (mingw-w64, Wine, and cmake, make and
# dpkg-dev's dpkg-source to build its libraries from Debian source packages;
# zip and unzip for the zip); zsh and fish for the completions; mandoc to lint
# the man page
check="prometheus curl python3-yaml gcc-mingw-w64-x86-64-posix mingw-w64-x86-64-dev wine64 cmake make dpkg-dev zip unzip zsh fish mandoc"
# make deb's and make dist-linux's: dpkg-buildpackage, dh, lintian, the
# tarballs' cross compiler, their clean-root runner and qemu for the arm64 one
release="dpkg-dev debhelper lintian bubblewrap gcc-aarch64-linux-gnu qemu-user-static"
arm64_pkgs="libjansson-dev:arm64 libzstd-dev:arm64 libncurses-dev:arm64 libcurl4-openssl-dev:arm64 libmicrohttpd-dev:arm64 zlib1g-dev:arm64"
# package:unit, for each package whose install enables and starts a service
services="prometheus:prometheus.service"
optional=""
arm64=""
list=""
for a in "$@"; do
	case $a in
	--fuzz) pkgs="$pkgs clang" ;;
	--check) optional="$optional $check" ;;
	--release) optional="$optional $release" arm64=1 ;;
	--list) list=1 ;;
	*) echo "deps.sh: unknown flag $a (--check, --release, --fuzz, --list)" >&2; exit 2 ;;
	esac
done
optional=$(printf '%s\n' $optional | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//')
if [ -n "$list" ]; then
	echo "build: $pkgs"
	[ -n "$optional" ] && echo "optional: $optional"
	[ -n "$arm64" ] && echo "arm64 (dpkg --add-architecture arm64): $arm64_pkgs"
	for s in $services; do
		case " $optional " in *" ${s%%:*} "*) echo "masked: ${s#*:} (installed with ${s%%:*}, never started)" ;; esac
	done
	exit 0
fi
say() { echo "gputaskman: $*" >&2; }
# run CMD...: runs it, or under GTM_DEPS_DRY_RUN prints it (on fd 3, the
# script's stdout: the commands' own output is often sent to /dev/null)
exec 3>&1
run() { if [ -n "$dry" ]; then echo "+ $*" >&3; else "$@"; fi; }
as_root() { [ -n "$dry" ] || [ "$(id -u)" = 0 ]; }
missing_of() {
	out=""
	for p in "$@"; do
		[ -z "$dry" ] && dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
		out="$out $p"
	done
	echo "$out"
}
# Installs packages with every service start forbidden (Debian's policy-rc.d:
# exit 101, "action forbidden"; one already there, a container's say, stays),
# then masks the units of the services those packages bring, so none starts
# later either. A machine that had the package before keeps its service as it was.
install_no_services() {
	policy=""
	if [ -n "$dry" ]; then
		echo "+ write /usr/sbin/policy-rc.d: exit 101" >&3
		policy=1
	elif [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\n# gputaskman deps.sh: no service starts during its install\nexit 101\n' >/usr/sbin/policy-rc.d &&
			chmod 755 /usr/sbin/policy-rc.d && policy=1
	fi
	run apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1
	st=$?
	for s in $services; do
		case " $* " in *" ${s%%:*} "*) ;; *) continue ;; esac
		unit=${s#*:}
		if [ -d /run/systemd/system ]; then
			run systemctl mask --now "$unit" >/dev/null 2>&1
		else # no systemd running: the unit file is masked offline, a SysV script stopped
			run systemctl --root=/ mask "$unit" >/dev/null 2>&1
			[ -x "/etc/init.d/${s%%:*}" ] && run "/etc/init.d/${s%%:*}" stop >/dev/null 2>&1
		fi
		say "installed ${s%%:*} with its service $unit masked: make check runs the programs itself (systemctl unmask $unit to use the service)"
	done
	[ -n "$policy" ] && run rm -f /usr/sbin/policy-rc.d
	return $st
}
missing=$(missing_of $pkgs)
missing_opt=$(missing_of $optional)
# The arm64 tarball links Debian's own arm64 libraries, installed through
# multiarch. Optional like the rest: where apt cannot fetch arm64 packages the
# architecture is taken back out and the arm64 test SKIPs.
if [ -n "$arm64" ]; then
	missing_arm=$(missing_of $arm64_pkgs)
	if [ -n "$missing_arm" ] && as_root; then
		say "installing the arm64 libraries (multiarch):$missing_arm"
		added=""
		{ [ -z "$dry" ] && dpkg --print-foreign-architectures | grep -qx arm64; } ||
			{ run dpkg --add-architecture arm64 && added=1; }
		run apt-get update -qq >/dev/null 2>&1
		run apt-get install -y -qq --no-install-recommends $missing_arm >/dev/null 2>&1 || {
			say "could not install$missing_arm: the arm64 tarball's test will SKIP"
			[ -n "$added" ] && run dpkg --remove-architecture arm64 2>/dev/null
		}
	elif [ -n "$missing_arm" ]; then
		say "the arm64 tarball's test will SKIP (sudo dpkg --add-architecture arm64; sudo apt-get update; sudo apt-get install -y$missing_arm)"
	fi
fi
[ -z "$missing" ] && [ -z "$missing_opt" ] && exit 0
if as_root; then
	run apt-get update -qq >/dev/null 2>&1 || true
	if [ -n "$missing" ]; then
		say "installing build packages:$missing"
		run apt-get install -y -qq $missing >/dev/null || { say "apt-get install failed:$missing"; exit 1; }
	fi
	if [ -n "$missing_opt" ]; then
		say "installing test and packaging packages:$missing_opt"
		# shellcheck disable=SC2086 # one word a package
		install_no_services $missing_opt || say "could not install$missing_opt: the tests that need them will SKIP"
	fi
	exit 0
fi
# through this script, so that no service is left enabled
[ -n "$missing_opt" ] && say "the tests that need$missing_opt will SKIP (sudo sh scripts/deps.sh $* installs them)"
[ -z "$missing" ] && exit 0
say "missing build packages. Run:"
echo "  sudo apt-get install -y$missing" >&2
exit 1
