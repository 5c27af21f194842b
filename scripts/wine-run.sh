#!/bin/sh
# Meson's exe_wrapper for the Windows build: runs one .exe under Wine with
# the test run's prefix (WINEPREFIX, made once by scripts/run-tests.sh),
# Wine's own messages off and a time limit.
set -u
export WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="
: "${WINEPREFIX:=${GTM_WINEPREFIX:-$HOME/.wine-gputaskman}}"
export WINEPREFIX
exec timeout "${GTM_WINE_TIMEOUT:-60}" /usr/lib/wine/wine64 "$@"
