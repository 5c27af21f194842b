#!/bin/sh
# Configures (once) and builds the macOS arm64 binary into BUILD_DIR, with
# the cache scripts/macos-sysroot.sh set up: release, -Werror, no tests.
#   scripts/macos-build.sh BUILD_DIR CACHE_DIR
set -eu
b=${1:?usage: macos-build.sh BUILD_DIR CACHE_DIR}
cache=${2:?usage: macos-build.sh BUILD_DIR CACHE_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$b"
if [ ! -f "$b/build.ninja" ]; then
	sh "$src/scripts/macos-machine.sh" "$cache" >"$b/machine.txt"
	meson setup "$b" "$src" --cross-file "$src/cross/arm64-apple-macos13.txt" --cross-file "$b/machine.txt" \
		-Dbuildtype=release -Dwerror=true -Dtests=false -Dstatic_deps=true
fi
ninja -C "$b" src/gputaskman
