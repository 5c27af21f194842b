#!/bin/sh
# The macOS arm64 tarball (make dist-macos):
#   scripts/dist-macos.sh BUILD_DIR VERSION CACHE_DIR [OUT_DIR]
# writes OUT_DIR (default BUILD_DIR)/gputaskman-VERSION-macos-arm64.tar.gz
# and its .sha256 ("HASH  NAME", as sha256sum -c and shasum -a 256 -c read
# it). One folder of that name: gputaskman (ad-hoc signed by ld64.lld, as
# arm64 macOS requires), README.md, LICENSE and licenses/ for what is
# linked in statically (jansson, zstd, ncurses: their Debian source
# packages' debian/copyright, kept by scripts/macos-sysroot.sh). File times
# are the last commit's, so a tarball of the same build is the same file.
set -eu
build=${1:?usage: dist-macos.sh BUILD_DIR VERSION CACHE_DIR [OUT_DIR]}
version=${2:?usage: dist-macos.sh BUILD_DIR VERSION CACHE_DIR [OUT_DIR]}
cache=${3:?usage: dist-macos.sh BUILD_DIR VERSION CACHE_DIR [OUT_DIR]}
out=${4:-$build}
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$build/src/gputaskman
name=gputaskman-$version-macos-arm64
lic=$cache/sysroot/licenses
[ -f "$bin" ] || { echo "dist-macos: no $bin (make macos first)" >&2; exit 1; }
for f in jansson libzstd ncurses; do
	[ -f "$lic/$f.txt" ] || { echo "dist-macos: no $lic/$f.txt (scripts/macos-sysroot.sh writes it)" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/gtm-dist-XXXXXX")
trap 'rm -rf "$stage"' EXIT
d=$stage/$name
mkdir -p "$d/licenses"
# not stripped: stripping after the link would break its code signature
cp "$bin" "$d/gputaskman"
cp "$src/LICENSE" "$d/LICENSE"
cp "$src/README.md" "$d/README.md"
cp "$lic/jansson.txt" "$d/licenses/jansson.txt"
cp "$lic/libzstd.txt" "$d/licenses/zstd.txt"
cp "$lic/ncurses.txt" "$d/licenses/ncurses.txt"
chmod 0755 "$d/gputaskman"
stamp=$(git -C "$src" log -1 --format=%cd --date=format:%Y%m%d%H%M.%S 2>/dev/null || date -u +%Y%m%d%H%M.%S)
find "$d" -exec touch -t "$stamp" {} +
rm -f "$out/$name.tar.gz" "$out/$name.tar.gz.sha256"
(cd "$stage" && find "$name" -print | LC_ALL=C sort |
	tar --no-recursion --owner=0 --group=0 --numeric-owner -cf - -T - | gzip -n -9 >"$out/$name.tar.gz")
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "dist-macos: $out/$name.tar.gz"
