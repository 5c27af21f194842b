#!/bin/sh
# The WDDM adapters and their telemetry against the test doubles:
#   wine_adapters.sh TEST_WDDM_ADAPTERS_EXE DOUBLES_DIR
# test_wddm_adapters puts nvml.dll and atiadlxx.dll into System32 and
# NVIDIA's NVSMI folder and takes them away again, so it runs in a Wine
# prefix of its own: hard links to the run's prefix (scripts/run-tests.sh
# makes it; a cold one takes ~10 s and ~700 MB), with the files Wine
# rewrites (the registry) copied, and System32's dxgi.dll replaced by the
# double (unlinked first: the run's prefix keeps Wine's). Wine prefers its
# own builtin for a DLL in System32, so WINEDLLOVERRIDES gets dxgi=n;
# nvml.dll and atiadlxx.dll have no builtin and need none.
set -u
exe=$1 doubles=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/gtm-wine-adapters-XXXXXX)
cleanup() {
	own_prefix_stop "$tmp/prefix"
	rm -rf "$tmp"
}
. "$here/own_prefix.sh"
trap cleanup EXIT
own_prefix "$tmp/prefix" || fail "cannot copy the run's Wine prefix"
export WINEPREFIX="$tmp/prefix"
sys32="$WINEPREFIX/drive_c/windows/system32"
[ -d "$sys32" ] || fail "no System32 in the prefix ($sys32)"
rm -f "$sys32/dxgi.dll"
cp "$doubles/dxgi.dll" "$sys32/dxgi.dll" || fail "cannot put the dxgi.dll double into System32"

# Wine's Z: is the Unix root
GTM_DOUBLES="Z:$(printf '%s' "$doubles" | tr / '\\')"
export GTM_DOUBLES GTM_WINEDLLOVERRIDES="dxgi=n"
mkdir "$tmp/work" && cd "$tmp/work" || fail "no work folder"
sh "$here/../../scripts/wine-run.sh" "$exe"
