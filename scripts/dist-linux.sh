#!/bin/sh
# The portable Linux tarballs (make dist-linux):
#   scripts/dist-linux.sh ARCH BUILD_DIR VERSION [OUT_DIR]
# ARCH is x64 (this machine's gcc) or arm64 (Debian's gcc-aarch64-linux-gnu,
# cross/aarch64-linux-gnu.txt, with the arm64 libraries of Debian's multiarch
# packages). Configures BUILD_DIR the first time (release, -Dstatic_deps=true:
# jansson, zstd and ncursesw linked in from their Debian static archives),
# then builds only the binary, so a second run is cheap. Writes OUT_DIR
# (default BUILD_DIR)/gputaskman-VERSION-linux-ARCH.tar.gz and its .sha256
# ("HASH  NAME", as sha256sum -c reads it). The tarball holds one folder of
# that name: gputaskman (stripped), the gtm alias, gputaskman.1, README.md,
# CHANGELOG.md, LICENSE and licenses/ (the Debian copyright files of what is
# linked in). The binary needs only the C library (glibc, the version the
# README names): libcurl, libmicrohttpd and NVML are loaded with dlopen from
# the machine when present, never bundled (scripts/dist-check-bundle.sh).
# Exits 77 with the reason when the compiler or the arm64 libraries are missing.
set -eu
arch=${1:?usage: dist-linux.sh x64|arm64 BUILD_DIR VERSION [OUT_DIR]}
build=${2:?usage: dist-linux.sh x64|arm64 BUILD_DIR VERSION [OUT_DIR]}
version=${3:?usage: dist-linux.sh x64|arm64 BUILD_DIR VERSION [OUT_DIR]}
out=${4:-$build}
src=$(cd "$(dirname "$0")/.." && pwd)
skip() {
	echo "dist-linux: $1" >&2
	exit 77
}
case $arch in
x64)
	tool=
	cross=
	run=
	;;
arm64)
	tool=aarch64-linux-gnu-
	cross="--cross-file $src/cross/aarch64-linux-gnu.txt"
	command -v aarch64-linux-gnu-gcc >/dev/null || skip "no aarch64-linux-gnu-gcc (apt-get install gcc-aarch64-linux-gnu)"
	PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config --exists jansson libzstd ncursesw libcurl libmicrohttpd ||
		skip "no arm64 libraries (dpkg --add-architecture arm64; apt-get install libjansson-dev:arm64 libzstd-dev:arm64 libncurses-dev:arm64 libcurl4-openssl-dev:arm64 libmicrohttpd-dev:arm64)"
	# gen-man.py runs the binary for its --help texts
	command -v qemu-aarch64-static >/dev/null || skip "no qemu-aarch64-static (apt-get install qemu-user-static)"
	run="qemu-aarch64-static -L /usr/aarch64-linux-gnu"
	;;
*) echo "dist-linux: ARCH is x64 or arm64, not $arch" >&2; exit 2 ;;
esac
if [ ! -f "$build/build.ninja" ]; then
	mkdir -p "$build"
	# shellcheck disable=SC2086 # $cross is two words or none
	meson setup "$build" "$src" $cross -Dbuildtype=release -Dwerror=true -Dtests=false -Dstatic_deps=true >"$build/dist-setup.txt" 2>&1 ||
		{ cat "$build/dist-setup.txt" >&2; exit 1; }
fi
ninja -C "$build" src/gputaskman >"$build/dist-ninja.txt" 2>&1 || { tail -n 40 "$build/dist-ninja.txt" >&2; exit 1; }
bin=$build/src/gputaskman

name=gputaskman-$version-linux-$arch
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/gtm-dist-XXXXXX")
trap 'rm -rf "$stage"' EXIT
d=$stage/$name
mkdir -p "$d/licenses"
"${tool}strip" -o "$d/gputaskman" "$bin"
ln -s gputaskman "$d/gtm"
# the page from this binary's own --help, as the build's docs/gputaskman.1 (a
# wrapper runs the arm64 binary under qemu)
printf '#!/bin/sh\nexec %s %s "$@"\n' "$run" "$(cd "$(dirname "$bin")" && pwd)/gputaskman" >"$stage/run-gputaskman"
chmod +x "$stage/run-gputaskman"
python3 "$src/scripts/gen-man.py" "$stage/run-gputaskman" "$src/src/views/tui/tui_help.c" "$src/CHANGELOG.md" "$version" "$d/gputaskman.1"
rm "$stage/run-gputaskman"
cp "$src/README.md" "$src/CHANGELOG.md" "$src/LICENSE" "$d/"
for p in jansson:libjansson-dev zstd:libzstd-dev ncurses:libncurses-dev; do
	f=/usr/share/doc/${p#*:}/copyright
	[ -f "$f" ] || { echo "dist-linux: no $f (its package is not installed)" >&2; exit 1; }
	cp "$f" "$d/licenses/${p%%:*}.txt"
done
sh "$src/scripts/dist-check-bundle.sh" "$d" "${tool}readelf"
# file times, owners and order fixed, so the same binary makes the same tarball
stamp=$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)
rm -f "$out/$name.tar.gz" "$out/$name.tar.gz.sha256"
(cd "$stage" && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$stamp" -cf - "$name") | gzip -9n >"$out/$name.tar.gz"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "$out/$name.tar.gz"
