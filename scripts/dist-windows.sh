#!/bin/sh
# The portable Windows zip (make dist-windows):
#   scripts/dist-windows.sh BUILD_DIR VERSION [OUT_DIR]
# writes OUT_DIR (default BUILD_DIR)/gputaskman-VERSION-windows-x64.zip and
# its .sha256 ("HASH  NAME", as sha256sum -c reads it). The zip holds one
# folder of that name: gputaskman.exe (static: no DLL beside it), README.md,
# LICENSE.txt (ours) and licenses/ with the licence of everything linked in:
# jansson, zstd and pcre2 (their Debian source packages' debian/copyright,
# kept in the sysroot by scripts/mingw-sysroot.sh), the mingw-w64 runtime
# and winpthreads (/usr/share/doc/mingw-w64-x86-64-dev/copyright) and GCC's
# runtime with its library exception (/usr/share/doc/gcc-mingw-w64-base/copyright).
# File times in the zip and the exe's PE time stamp are the last commit's
# (SOURCE_DATE_EPOCH when set), modes are fixed, so a zip made again from the
# same build is the same file, byte for byte: the script makes it twice and
# refuses a zip whose two makings differ (the exe itself differs between
# build folders).
set -eu
build=${1:?usage: dist-windows.sh BUILD_DIR VERSION [OUT_DIR]}
version=${2:?usage: dist-windows.sh BUILD_DIR VERSION [OUT_DIR]}
out=${3:-$build}
src=$(cd "$(dirname "$0")/.." && pwd)
exe=$build/src/gputaskman.exe
name=gputaskman-$version-windows-x64
lic=$build/sysroot/licenses
[ -f "$exe" ] || { echo "dist-windows: no $exe (make windows first)" >&2; exit 1; }
for f in jansson libzstd pcre2; do
	[ -f "$lic/$f.txt" ] || { echo "dist-windows: no $lic/$f.txt (scripts/mingw-sysroot.sh writes it)" >&2; exit 1; }
done
for f in /usr/share/doc/mingw-w64-x86-64-dev/copyright /usr/share/doc/gcc-mingw-w64-base/copyright; do
	[ -f "$f" ] || { echo "dist-windows: no $f (its package is not installed)" >&2; exit 1; }
done
command -v zip >/dev/null || { echo "dist-windows: zip not found (apt-get install zip)" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/gtm-dist-XXXXXX")
trap 'rm -rf "$stage"' EXIT
# One time for everything in the zip, the last commit's: the files' times,
# and the PE header's, which strip would otherwise set to now (binutils
# takes SOURCE_DATE_EPOCH instead); a caller's SOURCE_DATE_EPOCH wins.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct 2>/dev/null || date -u +%s)}
stamp=$(date -u -d "@$epoch" +%Y%m%d%H%M.%S)
# Windows editors want CRLF in text files
crlf() { sed 's/$/\r/' "$1" >"$2"; }
# make_zip STAGE ZIP: the folder staged in STAGE, zipped into ZIP
make_zip() {
	d=$1/$name
	mkdir -p "$d/licenses"
	SOURCE_DATE_EPOCH=$epoch x86_64-w64-mingw32-strip -o "$d/gputaskman.exe" "$exe"
	crlf "$src/LICENSE" "$d/LICENSE.txt"
	crlf "$src/README.md" "$d/README.md"
	crlf "$lic/jansson.txt" "$d/licenses/jansson.txt"
	crlf "$lic/libzstd.txt" "$d/licenses/zstd.txt"
	crlf "$lic/pcre2.txt" "$d/licenses/pcre2.txt"
	crlf /usr/share/doc/mingw-w64-x86-64-dev/copyright "$d/licenses/mingw-w64-runtime-and-winpthreads.txt"
	crlf /usr/share/doc/gcc-mingw-w64-base/copyright "$d/licenses/gcc-runtime.txt"
	# modes and times fixed: neither the umask nor the clock reaches the zip
	find "$d" -type d -exec chmod 0755 {} +
	find "$d" -type f -exec chmod 0644 {} +
	chmod 0755 "$d/gputaskman.exe"
	find "$d" -exec touch -t "$stamp" {} +
	(cd "$1" && find "$name" -type f | LC_ALL=C sort | TZ=UTC zip -q -X -9 "$2" -@)
}
rm -f "$out/$name.zip" "$out/$name.zip.sha256"
# made twice, a second apart, from the same build: the same bytes, or no zip
mkdir "$stage/a" "$stage/b"
make_zip "$stage/a" "$stage/a.zip"
sleep 1
make_zip "$stage/b" "$stage/b.zip"
if ! cmp -s "$stage/a.zip" "$stage/b.zip"; then
	echo "dist-windows: the zip is not reproducible: two zips of the same build differ" >&2
	cmp "$stage/a.zip" "$stage/b.zip" >&2
	exit 1
fi
mv "$stage/a.zip" "$out/$name.zip"
(cd "$out" && sha256sum "$name.zip" >"$name.zip.sha256")
echo "$out/$name.zip"
