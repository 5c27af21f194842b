# Shared by the Wine tests (sourced): the cross compiler, a fresh Wine prefix
# per run, every run under a timeout. A test skips (exit 77, with the reason)
# when mingw-w64 or Wine is absent, so the Linux tests still pass.
CROSS_CC=${CROSS_CC:-x86_64-w64-mingw32-gcc-posix}
WINE=${WINE:-/usr/lib/wine/wine64}
command -v "$CROSS_CC" >/dev/null 2>&1 || { echo "SKIP: $CROSS_CC is not installed (apt-get install gcc-mingw-w64-x86-64)"; exit 77; }
[ -x "$WINE" ] || { echo "SKIP: $WINE is not installed (apt-get install wine64 wine)"; exit 77; }
command -v timeout >/dev/null 2>&1 || { echo "SKIP: timeout(1) is not installed"; exit 77; }

wine_need() { command -v "$1" >/dev/null 2>&1 || { echo "SKIP: $1 is not installed"; exit 77; }; }

# mingw_cc ARGS...: C17 with the project's warnings as errors, static: the
# .exe needs no DLL beside it.
mingw_cc() {
	"$CROSS_CC" -std=c17 -Wall -Wextra -Werror -Wno-format-truncation -O1 -static \
		-DGTM_VERSION='"test"' -D_WIN32_WINNT=0x0A00 -I"$src/src" \
		-I"$src/src/compat/windows" -I"$src/src/compat/endian" -I"$src/src/compat/windows/posix" \
		-I"$src/src/platform/windows" -include portable.h "$@"
}

# wine_prefix DIR: a fresh prefix under DIR (its own wineserver).
wine_prefix() {
	export WINEPREFIX="$1/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
	mkdir -p "$WINEPREFIX"
}

# wine_run SECONDS PROG ARGS...: runs PROG under Wine, killed after SECONDS.
wine_run() {
	secs=$1; shift
	timeout -k 5 "$secs" "$WINE" "$@"
}

wine_cleanup() {
	[ -n "${WINEPREFIX:-}" ] && WINEPREFIX=$WINEPREFIX timeout 10 "${WINE%/*}/wineserver" -k 2>/dev/null
	return 0
}
