#!/bin/sh
# Prints the machine file with the absolute paths a cross build needs: the
# sysroot's pkg-config folder and Wine as the exe_wrapper.
set -eu
b=$(cd "${1:?usage: win-machine.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
cat <<M
[binaries]
exe_wrapper = '$src/scripts/wine-run.sh'

[properties]
pkg_config_libdir = '$b/sysroot/lib/pkgconfig'
M
