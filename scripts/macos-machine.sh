#!/bin/sh
# Prints the machine file with the absolute paths the macOS cross build
# needs: the SDK headers and libSystem.tbd (-isysroot), the static
# libraries' pkg-config folder, the framework stubs (-F) and the linker.
# _DARWIN_C_SOURCE: ncursesw's pkg-config flags define _XOPEN_SOURCE, which
# on macOS would hide the BSD half of the headers (sysctl, libproc's types).
#   scripts/macos-machine.sh CACHE_DIR
set -eu
cache=$(cd "${1:?usage: macos-machine.sh CACHE_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
ar=$(sh "$src/scripts/macos-tools.sh" ar)
ld64=$(sh "$src/scripts/macos-tools.sh" ld64)
t=arm64-apple-macos13
cat <<M
[binaries]
ar = '$ar'

[properties]
pkg_config_libdir = '$cache/sysroot/lib/pkgconfig'

[built-in options]
c_args = ['-target', '$t', '-isysroot', '$cache/sdk', '-mmacosx-version-min=13.0', '-D_DARWIN_C_SOURCE']
c_link_args = ['-target', '$t', '-isysroot', '$cache/sdk', '-mmacosx-version-min=13.0', '-mlinker-version=700', '--ld-path=$ld64', '-F$src/cross/macos/frameworks']
M
