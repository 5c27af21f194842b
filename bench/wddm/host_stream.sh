#!/bin/sh
# The WSL2 helper's --host-stream mode under Wine: time to its first line and
# CPU per interval with 200 processes (bench/wddm/host_stream.py says how).
# Usage: sh bench/wddm/host_stream.sh WIN_BUILD_DIR (a release cross build:
# make windows; the pdh.dll double comes from its bench/wddm).
set -u
b=${1:-build-win}
ninja -C "$b" src/gputaskman.exe bench/wddm/pdh.dll >/dev/null || exit 1
exec python3 "$(dirname "$0")/host_stream.py" "$b" "${2:-200}"
