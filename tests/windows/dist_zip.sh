#!/bin/sh
# make dist-windows's zip, made from this build and unzipped into a folder
# outside the checkout: made twice it is the same file, its checksum file verifies, it holds the exe, our
# licence and those of what is linked in, the exe imports only DLLs every
# Windows has (static: nothing beside it), and under Wine, run from that
# folder, --version prints this version and --help the usage.
#   dist_zip.sh BUILD_DIR VERSION
set -u
build=$1 version=$2
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d /tmp/gtm-dist-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
name=gputaskman-$version-windows-x64
sh "$src/scripts/dist-windows.sh" "$build" "$version" "$tmp/out" >/dev/null || fail "dist-windows.sh failed"
(cd "$tmp/out" && sha256sum -c --quiet "$name.zip.sha256") || fail "the .sha256 does not verify"
# reproducible: made again from the same build a second later, the same bytes
sleep 1
sh "$src/scripts/dist-windows.sh" "$build" "$version" "$tmp/again" >/dev/null || fail "dist-windows.sh failed the second time"
cmp "$tmp/out/$name.zip" "$tmp/again/$name.zip" || fail "the zip made twice from one build differs"
mkdir "$tmp/unzipped"
(cd "$tmp/unzipped" && unzip -q "$tmp/out/$name.zip") || fail "unzip failed"
d=$tmp/unzipped/$name
for f in gputaskman.exe LICENSE.txt README.md licenses/jansson.txt licenses/zstd.txt licenses/pcre2.txt \
	licenses/mingw-w64-runtime-and-winpthreads.txt licenses/gcc-runtime.txt; do
	[ -s "$d/$f" ] || fail "the zip has no $f"
done
grep -q "MIT License" "$d/LICENSE.txt" || fail "LICENSE.txt is not ours"
grep -q "winpthreads" "$d/licenses/mingw-w64-runtime-and-winpthreads.txt" || fail "no winpthreads licence"
grep -q "GCC RUNTIME LIBRARY EXCEPTION" "$d/licenses/gcc-runtime.txt" || fail "no GCC runtime library exception"
[ "$(find "$d" -type f | wc -l)" -eq 8 ] || fail "unexpected files: $(cd "$d" && find . -type f)"
imports=$(x86_64-w64-mingw32-objdump -p "$d/gputaskman.exe" | sed -n 's/^.*DLL Name: //p' | tr 'A-Z' 'a-z' | sort -u | tr '\n' ' ')
for dll in $imports; do
	case $dll in
	kernel32.dll | msvcrt.dll | advapi32.dll | psapi.dll | iphlpapi.dll | shell32.dll | ws2_32.dll | user32.dll | ntdll.dll | winhttp.dll | pdh.dll) ;;
	*) fail "gputaskman.exe imports $dll, which is not part of Windows (imports: $imports)" ;;
	esac
done
wine="sh $src/scripts/wine-run.sh"
cd "$d" || fail "cd $d"
$wine ./gputaskman.exe --version 2>&1 | tr -d '\r' >"$tmp/version.txt"
v=$(head -n1 "$tmp/version.txt")
[ "$v" = "gputaskman $version" ] || fail "--version said '$v'"
# the Windows build: no exporter, WinHTTP for the probes, no NVML yet
grep -q "^  exporter (serve): not built" "$tmp/version.txt" || fail "--version: $(cat "$tmp/version.txt")"
grep -q "^  HTTP (local API probes): winhttp.dll found" "$tmp/version.txt" || fail "--version: $(cat "$tmp/version.txt")"
$wine ./gputaskman.exe --help >"$tmp/help.txt" 2>&1 || fail "--help failed: $(cat "$tmp/help.txt")"
grep -q "gputaskman inspect PID" "$tmp/help.txt" || fail "--help printed no usage: $(head -5 "$tmp/help.txt")"
# Windows's own terms: no command it does not build, no Linux variable or path
for w in "gputaskman serve" GPUTASKMAN_ROOT ESCDELAY /proc /sys "H:<pid>" GPUTASKMAN_WSL_RUN; do
	grep -qF -- "$w" "$tmp/help.txt" && fail "--help speaks Linux: '$w' in $(grep -F -- "$w" "$tmp/help.txt")"
done
$wine ./gputaskman.exe --once >"$tmp/once.txt" 2>&1 || true
grep -q "not inspectable (other users' and protected processes need an administrator)" "$tmp/once.txt" ||
	fail "--once: no Windows reason for what is not inspectable: $(grep inspectable "$tmp/once.txt")"
for w in "need root" "H:PID" "outside this container"; do
	grep -qF -- "$w" "$tmp/once.txt" && fail "--once speaks Linux: '$w'"
done
echo "ok: $name.zip ($(wc -c <"$tmp/out/$name.zip") bytes), unzipped to $d; imports: $imports; --version: $v"
