#!/bin/sh
# WSL2 end to end with the real Windows helper: the Linux gputaskman in the
# fixture WSL root (fixture.sh) starts gputaskman.exe --host-stream under
# Wine (GPUTASKMAN_WSL_RUN=wine64), installed beside a copy of the Linux
# binary as make install places it, with the pdh.dll test double beside the
# exe (WINEDLLOVERRIDES=pdh=n). Copies of gpu_client.exe named vmwp.exe and
# Paint.exe are the processes the double's instances name. Checks --once and
# --json show the VM row, a W: row and the guessed CUDA stand-in from the
# helper's own lines with "host: on", no helper left after, --version finding
# the helper, and Wine's own pdh.dll giving "host: failed" with the reason.
# $1 gputaskman, $2 fake NVML folder, $3 cuda_standin, $4 fake libcuda.so.1;
# the Windows build: GTM_WIN_BUILD, else build-check-win in the source tree
# (make check builds it first).
set -u
bin=$1 fake=$2 standin=$3 libcuda=$4
here=$(cd "$(dirname "$0")" && pwd)
win=${GTM_WIN_BUILD:-${GTM_SOURCE_ROOT:-.}/build-check-win}
wine=${GTM_WINE:-/usr/lib/wine/wine64}
[ -x "$wine" ] || { echo "SKIP: no Wine ($wine; apt-get install wine64)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
for f in src/gputaskman.exe tests/fakes/pdh/pdh.dll tests/fakes/pdh/gpu_client.exe; do
	[ -f "$win/$f" ] || { echo "SKIP: no Windows build ($win/$f; make check cross-builds it with mingw-w64)"; exit 77; }
done
t=$(mktemp -d /tmp/gtm-wsl-wine-XXXXXX)
pids=""
wine_pids=""
fail=0
cleanup() {
	for p in $wine_pids; do kill -TERM "-$p" 2>/dev/null; done
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$t"
}
trap cleanup EXIT INT TERM
. "$here/checks.sh"
. "$here/fixture.sh"

# the installed layout: gputaskman and gputaskman.exe side by side, the double beside the exe
mkdir -p "$t/bin"
cp "$bin" "$t/bin/gputaskman"
cp "$win/src/gputaskman.exe" "$win/tests/fakes/pdh/pdh.dll" "$t/bin/"
cp "$win/tests/fakes/pdh/gpu_client.exe" "$t/bin/vmwp.exe"
cp "$win/tests/fakes/pdh/gpu_client.exe" "$t/bin/Paint.exe"
# the prefix scripts/wine-run.sh picks, for every Wine process of this test
export WINEPREFIX="${WINEPREFIX:-${GTM_WINEPREFIX:-$HOME/.wine-gputaskman}}"
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=;pdh=n" GTM_FAKE_PDH_SCENARIO="$t/pdh"
: >"$t/pdh"
windows_proc() { # exe: starts it under Wine in its own group (ended by cleanup)
	setsid "$wine" "$t/bin/$1" 300 >"$t/$1.out" 2>&1 &
	wine_pids="$wine_pids $!"
}
windows_pid() { # exe: its Windows PID, once it said it is ready
	i=0
	while [ $i -lt 600 ] && ! grep -q ready "$t/$1.out" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
	sed -n 's/^ready \([0-9]*\).*/\1/p' "$t/$1.out"
}
windows_proc vmwp.exe
windows_proc Paint.exe
vm=$(windows_pid vmwp.exe)
app=$(windows_pid Paint.exe)
[ -n "$vm" ] && [ -n "$app" ] || { echo "FAIL the Windows stand-ins did not start under Wine"; exit 1; }
L=0x00000000_0x0000D1A5
tab=$(printf '\t')
cat >"$t/pdh" <<EOS
GPU Adapter Memory${tab}Dedicated Usage${tab}luid_${L}_phys_0${tab}3221225472
GPU Adapter Memory${tab}Total Committed${tab}luid_${L}_phys_0${tab}4000000000
GPU Process Memory${tab}Local Usage${tab}pid_${vm}_luid_${L}_phys_0${tab}2147483648
GPU Process Memory${tab}Non Local Usage${tab}pid_${vm}_luid_${L}_phys_0${tab}1048576
GPU Process Memory${tab}Total Committed${tab}pid_${vm}_luid_${L}_phys_0${tab}2300000000
GPU Process Memory${tab}Local Usage${tab}pid_${app}_luid_${L}_phys_0${tab}104857600
GPU Process Memory${tab}Non Local Usage${tab}pid_${app}_luid_${L}_phys_0${tab}0
GPU Process Memory${tab}Total Committed${tab}pid_${app}_luid_${L}_phys_0${tab}125829120
GPU Engine${tab}Running Time${tab}pid_${app}_luid_${L}_phys_0_eng_0_engtype_3D${tab}5000000
EOS
cat >"$t/scenario" <<EOS
device name="NVIDIA GeForce RTX 4090" uuid=GPU-1111 bus=00000000:01:00.0 mem_total=25769803776 mem_used=3221225472
EOS
gtm() {
	env -u WSL_DISTRO_NAME -u GPUTASKMAN_WSL_HELPER GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake" \
		GPUTASKMAN_ROOT="$root" HOME="$t/home" GPUTASKMAN_WSL_RUN="$wine" "$t/bin/gputaskman" "$@"
}
helpers_alive() { # processes running this test's gputaskman.exe --host-stream
	n=0
	for c in /proc/[0-9]*/cmdline; do
		line=$(tr '\0' ' ' 2>/dev/null <"$c")
		case $line in *"${t##*/}"*"gputaskman.exe --host-stream"*) n=$((n + 1)) ;; esac
	done
	echo $n
}

gtm --version >"$t/version" 2>&1
expect "--version finds the helper beside the binary" "^  Windows helper (WSL2): found ($t/bin/gputaskman.exe)" "$t/version"
s0=$(date +%s%N)
gtm --once >"$t/once" 2>"$t/e"
el=$(( ($(date +%s%N) - s0) / 1000000 ))
echo "     --once took $el ms (its bound for the first sample: 5 s)"
expect "header: the real helper's stream is on" "wsl, host: on (GPUTASKMAN_WSL_RUN)" "$t/once"
# the prefix may be shared: another test's vmwp.exe makes the row "VM worker"
expect "the VM row from the helper's V record" "W:$vm *\(vmwp.exe\|VM worker\)" "$t/once"
expect "a Windows app from its P record, named by Toolhelp" "W:$app *Paint.exe" "$t/once"
# running before gputaskman: a guess, never '*'
expect "the CUDA stand-in guessed to own vmwp.exe's context" "?$cuda " "$t/once"
[ "$(helpers_alive)" = 0 ] && ok "no helper left after --once" || bad "a helper outlived gputaskman --once"
gtm --json >"$t/j" 2>"$t/e"
jq_ok "json: host_stream on, from GPUTASKMAN_WSL_RUN" "j['host_stream']['state'] == 'on' and j['host_stream']['helper'] == 'GPUTASKMAN_WSL_RUN' and j['host_stream']['seq'] >= 1 and j['host_stream']['bad_lines'] == 0" "$t/j"
jq_ok "json: the VM row holds vmwp.exe's context" "any(p['label'] == 'W:$vm' and p['gpus'][0]['vram_bytes'] == 2147483648 and p['gpus'][0]['spill_bytes'] == 1048576 for p in j['processes'])" "$t/j"
jq_ok "json: the W: app row's VRAM, spill and paged" "any(p['label'] == 'W:$app' and p['gpus'][0]['vram_bytes'] == 104857600 and p['gpus'][0]['spill_bytes'] == 0 and p['gpus'][0]['paged_bytes'] == 20971520 for p in j['processes'])" "$t/j"
# the helper's first line has no loads (a Running Time delta): --json waits for its second
jq_ok "json: the W: app's load from the helper's second line (0 %, not null)" "any(p['label'] == 'W:$app' and p['gpus'][0]['gpu_pct'] == 0 for p in j['processes']) and j['host_stream']['seq'] >= 2" "$t/j"
jq_ok "json: the CUDA stand-in guessed with the context's size" "any(p['pid'] == $cuda and p['owner'] == 'guessed' and p['gpus'][0]['vram_bytes'] == 2147483648 for p in j['processes'])" "$t/j"
[ "$(helpers_alive)" = 0 ] && ok "no helper left after --json" || bad "a helper outlived gputaskman --json"
# Wine's own pdh.dll (builtin): no GPU counters, said through the stream
WINEDLLOVERRIDES="mscoree,mshtml=;pdh=b" gtm --once >"$t/once" 2>"$t/e"
expect "Wine's own pdh.dll: the helper's reason in the header" "host: failed: no GPU counters" "$t/once"
exit $fail
