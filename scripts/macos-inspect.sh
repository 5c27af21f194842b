#!/bin/sh
# Checks a macOS build of gputaskman without a Mac: a Mach-O arm64
# executable, linking only libSystem, CoreFoundation and IOKit (ncursesw,
# jansson and zstd are static), built for macOS 13 or later.
#   scripts/macos-inspect.sh BINARY
set -u
bin=${1:?usage: macos-inspect.sh BINARY}
src=$(cd "$(dirname "$0")/.." && pwd)
objdump=$(sh "$src/scripts/macos-tools.sh" objdump) || { echo "macos inspect: SKIP: no llvm-objdump (Debian package llvm)"; exit 77; }
fail=0
check() { # OK MESSAGE
	if [ "$1" = 0 ]; then echo "macos inspect: ok: $2"; else echo "macos inspect: FAIL: $2" >&2; fail=1; fi
}
[ -f "$bin" ] || { echo "macos inspect: FAIL: no $bin" >&2; exit 1; }
hdr=$("$objdump" --macho --private-header "$bin" 2>&1)
echo "$hdr" | grep -Eq "MH_MAGIC_64 +ARM64 .* EXECUTE " ; check $? "Mach-O 64-bit arm64 executable"
libs=$("$objdump" --macho --dylibs-used "$bin" 2>&1 | tail -n +2 | sed 's/^[[:space:]]*//; s/ (.*//' | sort)
want=$(printf '%s\n' /System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation \
	/System/Library/Frameworks/IOKit.framework/Versions/A/IOKit /usr/lib/libSystem.B.dylib | sort)
[ "$libs" = "$want" ]; check $? "links only libSystem, CoreFoundation, IOKit (got: $(echo $libs))"
minos=$("$objdump" --macho --private-headers "$bin" 2>&1 | awk '/cmd LC_BUILD_VERSION/{f=1} f&&/minos/{print $2; exit}')
[ "$minos" = "13.0" ]; check $? "minimum macOS 13.0 (LC_BUILD_VERSION minos: ${minos:-none})"
plat=$("$objdump" --macho --private-headers "$bin" 2>&1 | awk '/cmd LC_BUILD_VERSION/{f=1} f&&/platform/{print $2; exit}')
[ "$plat" = "1" ] || [ "$plat" = "MACOS" ] || [ "$plat" = "macos" ]; check $? "platform macOS (got: ${plat:-none})"
exit $fail
