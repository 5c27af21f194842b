#!/bin/sh
# The probe's WinHTTP backend under Wine: cross-builds probe_winhttp_test.exe
# from src/explain/probe.c + probe_winhttp.c with mingw-w64 (static, no DLL of
# ours), starts http_server.py on loopback and runs the test in a fresh Wine
# prefix. Skips (77) when mingw-w64, Wine or python3 is absent.
# usage: probe.sh SOURCE_ROOT BUILD_DIR
set -u
src=$1 build=$2
here="$src/tests/wine"
. "$here/wine_env.sh"
wine_need python3
out="$build/wine-probe"
mkdir -p "$out"
mingw_cc -o "$out/probe_winhttp_test.exe" "$here/probe_winhttp_test.c" "$src/src/explain/probe.c" \
	"$src/src/explain/probe_winhttp.c" "$src/src/core/util.c" "$src/src/compat/windows/portable.c" \
	"$src/src/platform/windows/time_windows.c" -lwinhttp || { echo "FAIL cross-build"; exit 1; }

t=$(mktemp -d /tmp/gtm-wine-probe-XXXXXX)
cleanup() { [ -n "${srv:-}" ] && kill "$srv" 2>/dev/null; wine_cleanup; rm -rf "$t"; }
trap cleanup EXIT INT TERM
python3 "$here/http_server.py" "$t/port" "$t/requests" >"$t/server.out" 2>&1 & srv=$!
i=0; while [ ! -s "$t/port" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$t/port" ] || { echo "FAIL the loopback server did not start"; exit 1; }
read -r port v6 <"$t/port"
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
wine_prefix "$t"
wine_run 120 "$out/probe_winhttp_test.exe" "$port" "$v6" "$dead"
rc=$?
echo "requests the server saw:"; sed 's/^/  /' "$t/requests"
if grep -q '/api/v0/models' "$t/requests"; then echo "FAIL the redirect was followed"; rc=1; fi
[ $rc -eq 0 ] && echo "ok   all checks under Wine"
exit $rc
