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
# File times in the zip are the last commit's, so a zip made again from the
# same build is the same file (the exe itself differs between build folders).
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
d=$stage/$name
mkdir -p "$d/licenses"
x86_64-w64-mingw32-strip -o "$d/gputaskman.exe" "$exe"
# Windows editors want CRLF in text files
crlf() { sed 's/$/\r/' "$1" >"$2"; }
crlf "$src/LICENSE" "$d/LICENSE.txt"
crlf "$src/README.md" "$d/README.md"
crlf "$lic/jansson.txt" "$d/licenses/jansson.txt"
crlf "$lic/libzstd.txt" "$d/licenses/zstd.txt"
crlf "$lic/pcre2.txt" "$d/licenses/pcre2.txt"
crlf /usr/share/doc/mingw-w64-x86-64-dev/copyright "$d/licenses/mingw-w64-runtime-and-winpthreads.txt"
crlf /usr/share/doc/gcc-mingw-w64-base/copyright "$d/licenses/gcc-runtime.txt"
stamp=$(git -C "$src" log -1 --format=%cd --date=format:%Y%m%d%H%M.%S 2>/dev/null || date -u +%Y%m%d%H%M.%S)
find "$d" -exec touch -t "$stamp" {} +
rm -f "$out/$name.zip" "$out/$name.zip.sha256"
(cd "$stage" && find "$name" -type f | LC_ALL=C sort | zip -q -X -9 "$out/$name.zip" -@)
(cd "$out" && sha256sum "$name.zip" >"$name.zip.sha256")
echo "$out/$name.zip"
