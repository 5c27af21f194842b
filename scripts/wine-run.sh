#!/bin/sh
# Meson's exe_wrapper for the Windows build: runs one .exe under Wine with
# the test run's prefix (WINEPREFIX, made once by scripts/run-tests.sh),
# Wine's own messages off and a time limit. GTM_WINE names the Wine loader
# (default Debian's /usr/lib/wine/wine64), GTM_WINE_TIMEOUT the limit in s,
# GTM_WINEDLLOVERRIDES more overrides (tests/windows/wine_adapters.sh:
# dxgi=n, so Wine loads the test double from System32 instead of its own).
set -u
export WINEDEBUG=-all
# GTM_WINEDLLOVERRIDES adds a test's own (pdh=n: the PDH test double beside the exe)
export WINEDLLOVERRIDES="mscoree,mshtml=${GTM_WINEDLLOVERRIDES:+;$GTM_WINEDLLOVERRIDES}"
: "${WINEPREFIX:=${GTM_WINEPREFIX:-$HOME/.wine-gputaskman}}"
export WINEPREFIX
exec timeout "${GTM_WINE_TIMEOUT:-60}" "${GTM_WINE:-/usr/lib/wine/wine64}" "$@"
