#!/bin/sh
# --version: the version, the commit the binary was built from (git at build
# time, "unknown" outside a checkout), the optional parts, and which run-time
# libraries load (NVML absent, then the fake libnvidia-ml.so.1 found); only
# --version looks for them: --once never loads libmicrohttpd.
# usage: version.sh GPUTASKMAN FAKE_NVML_DIR SOURCE_ROOT VERSION
set -u
bin=$1 fake_nvml=$2 src=$3 version=$4
fail=0
t=$(mktemp -d /tmp/gtm-version-XXXXXX)
trap 'rm -rf "$t"' EXIT
expect() { # name, pattern, file
	if grep -q -- "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: no '$2' in:"; cat "$3"; fail=1; fi
}
LD_LIBRARY_PATH="$t/nolib" "$bin" --version >"$t/v" 2>&1 || { echo "FAIL --version exit $?"; fail=1; }
[ "$(head -n1 "$t/v")" = "gputaskman $version" ] && echo "ok   first line: gputaskman $version" || { echo "FAIL first line: $(head -n1 "$t/v")"; fail=1; }
commit=$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
expect "the commit it was built from ($commit)" "^commit: $commit\$" "$t/v"
expect "the exporter is built in" "^  exporter (serve): built in" "$t/v"
expect "the recorder is built in" "^  recorder (record, replay, --record): built in" "$t/v"
expect "no Windows helper beside the build's binary" "^  Windows helper (WSL2): not found (.*/gputaskman.exe; make windows" "$t/v"
# beside a copy of the binary, as make install places it: an MZ file is found, anything else is not
mkdir "$t/bin"
cp "$bin" "$t/bin/gputaskman"
printf 'not a program' >"$t/bin/gputaskman.exe"
LD_LIBRARY_PATH="$t/nolib" "$t/bin/gputaskman" --version >"$t/v3" 2>&1
expect "a gputaskman.exe that is no Windows program is not the helper" "^  Windows helper (WSL2): not found ($t/bin/gputaskman.exe is not a Windows executable)" "$t/v3"
printf 'MZ\220\0' >"$t/bin/gputaskman.exe"
LD_LIBRARY_PATH="$t/nolib" "$t/bin/gputaskman" --version >"$t/v3" 2>&1
expect "the helper beside the binary is found" "^  Windows helper (WSL2): found ($t/bin/gputaskman.exe)" "$t/v3"
expect "NVML not found without a driver" "^  NVML (NVIDIA GPUs): none found (tried libnvidia-ml.so.1" "$t/v"
expect "libevent or libcurl is looked for" "^  HTTP (local API probes): lib\(event\|curl\)" "$t/v"
expect "libmicrohttpd is looked for" "^  HTTP (serve): libmicrohttpd.so.12 " "$t/v"
LD_LIBRARY_PATH="$fake_nvml" "$bin" -V >"$t/v2" 2>&1
expect "NVML found where a libnvidia-ml.so.1 is" "^  NVML (NVIDIA GPUs): libnvidia-ml.so.1 found" "$t/v2"
# the loader's own log of what it opens: --version opens libmicrohttpd, --once does not
LD_DEBUG=libs LD_LIBRARY_PATH="$t/nolib" "$bin" --version >/dev/null 2>"$t/dv"
LD_DEBUG=libs LD_LIBRARY_PATH="$t/nolib" "$bin" --once >/dev/null 2>"$t/do" </dev/null
if grep -q "libmicrohttpd" "$t/dv"; then
	grep -q "libmicrohttpd" "$t/do" && { echo "FAIL --once loads libmicrohttpd"; fail=1; } || echo "ok   --once loads no libmicrohttpd"
else
	echo "skip the loader log: LD_DEBUG shows no libmicrohttpd for --version (not installed?)"
fi
# ncursesw and zstd: a build that loads them at run time names them, and
# --once maps neither (a static build has them inside: no line, no library)
if grep -q "^  terminal (the live view): " "$t/v"; then
	expect "ncursesw is looked for" "^  terminal (the live view): libncursesw.so.6 found" "$t/v"
	expect "zstd is looked for" "^  zstd (record, replay): libzstd.so.1 found" "$t/v"
fi
for lib in libncursesw libtinfo libzstd; do
	grep -q "$lib" "$t/do" && { echo "FAIL --once loads $lib"; fail=1; } || echo "ok   --once loads no $lib"
done
exit $fail
