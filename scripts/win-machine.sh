#!/bin/sh
# Prints the machine file with the absolute paths a cross build needs: the
# sysroot's pkg-config folder and Wine as the exe_wrapper. The sysroot is
# BUILD_DIR's own, or SYSROOT_DIR's (the check's build reuses build-win's).
set -eu
b=$(cd "${2:-${1:?usage: win-machine.sh BUILD_DIR [SYSROOT_DIR]}}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
cat <<M
[binaries]
exe_wrapper = '$src/scripts/wine-run.sh'

[properties]
pkg_config_libdir = '$b/sysroot/lib/pkgconfig'
M
