#!/bin/sh
# Faults against the real binary: no NVML, a library lacking a required entry
# point, init failure, an NVML error at refresh (every device, one device).
# Each gives one clear line and the right exit status, never a crash.
# Args: gputaskman, fake NVML folder, fake NVML lacking nvmlDeviceGetHandleByIndex
set -u
bin=$1 fake=$2 nohandle=$3
t=$(mktemp -d /tmp/gtm-e2e-nvmlf-XXXXXX)
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$t"' EXIT
make_root "$t/root"

nvml_message() { # JSON file → the nvml source's "available message"
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
s = [s for s in d['sources'] if s['name'] == 'nvml'][0]
print(s['available'], s['message'])" "$1"
}

gpus='device name="NVIDIA H100 80GB HBM3" bus=00000000:1A:00.0 mem_total=85899345920 mem_used=1024
device name="NVIDIA RTX A4000" bus=00000000:02:00.0 mem_total=17179869184 mem_used=2048
process dev=1 pid=4194401 mem=4096'

# No NVML at all (unless this machine has a real one, which would be found).
if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then
	echo "skip no-library case: a real libnvidia-ml.so.1 is installed"
else
	scenario "$gpus"
	LD_LIBRARY_PATH="$t/nolib" GPUTASKMAN_ROOT="$root" "$bin" --json >"$t/j" 2>"$t/e"
	check_rc "no NVML: --json exits 0" 0 $?
	[ "$(nvml_message "$t/j")" = "False no NVIDIA driver: libnvidia-ml.so.1 not found" ] &&
		ok "no NVML: the reason is given" || bad "no NVML: reason: $(nvml_message "$t/j")"
	LD_LIBRARY_PATH="$t/nolib" GPUTASKMAN_ROOT="$root" "$bin" --once >"$t/o" 2>"$t/e"
	check_rc "no NVML: --once exits 0" 0 $?
	expect_out "no NVML: --once says why" "libnvidia-ml.so.1 not found" "$t/o"
fi

# A library without nvmlDeviceGetHandleByIndex: not usable, said so.
scenario "$gpus"
GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$nohandle" GPUTASKMAN_ROOT="$root" "$bin" --json >"$t/j" 2>"$t/e"
check_rc "missing symbol: --json exits 1 (a driver that is present but broken)" 1 $?
expect_out "missing symbol: one line on stderr" "nvml: libnvidia-ml.so.1 lacks" "$t/e"
[ "$(nvml_message "$t/j")" = "False libnvidia-ml.so.1 lacks nvmlDeviceGetHandleByIndex: not a usable NVML library" ] &&
	ok "missing symbol: named" || bad "missing symbol: $(nvml_message "$t/j")"
jcheck "$t/j" "missing symbol: no GPU, no crash" "assert d['gpus'] == [] and d['processes'] == [] or all(p['owner'] == 'none' for p in d['processes'])"

# nvmlInit fails.
scenario "fail init
$gpus"
gtm --json >"$t/j" 2>"$t/e"; check_rc "init failure: --json exits 1" 1 $?
[ "$(wc -l <"$t/e")" -eq 1 ] && ok "init failure: one line" || { bad "init failure: not one line:"; cat "$t/e"; }
[ "$(nvml_message "$t/j")" = "False NVML could not start: NVIDIA driver not loaded (nvmlInit returned 9)" ] &&
	ok "init failure: explained" || bad "init failure: $(nvml_message "$t/j")"

# Every call fails at the refresh (GPU lost): one line on stderr, exit 1.
scenario "fail all
$gpus"
gtm --json >"$t/j" 2>"$t/e"; check_rc "NVML error: --json exits 1" 1 $?
[ "$(grep -c 'nvml' "$t/e")" -eq 1 ] && ok "NVML error: one line" || { bad "NVML error: not one line:"; cat "$t/e"; }
expect_out "NVML error: the line names the call and the error" "nvml: NVML error: nvmlDeviceGetCount: GPU is lost" "$t/e"
jcheck "$t/j" "NVML error: JSON still written" "assert d['gpus'] == []"

# One device fails: the other stays, its processes too; the lost one keeps its index.
scenario "fail dev=0
$gpus"
gtm --json >"$t/j" 2>"$t/e"; check_rc "one GPU lost: exits 1" 1 $?
expect_out "one GPU lost: named" "NVML error on NVML device 0: nvmlDeviceGetHandleByIndex: GPU is lost" "$t/e"
jcheck "$t/j" "one GPU lost: the other GPU and its process stay" "
assert len(d['gpus']) == 2, d['gpus']
ok = [g for g in d['gpus'] if g['name'] == 'NVIDIA RTX A4000'][0]
lost = [g for g in d['gpus'] if g['name'] == 'NVML device 0: GPU is lost'][0]
assert ok['memory']['used_bytes'] == 2048, ok
assert all(v is None for v in lost['memory'].values()), lost
h = row('H:4194401')
assert h['gpus'][0]['index'] == ok['index'] and h['gpus'][0]['vram_bytes'] == 4096, h
"
gtm --once >"$t/o" 2>"$t/e"; check_rc "one GPU lost: --once exits 1" 1 $?
expect_out "one GPU lost: --once shows the other GPU" "NVIDIA RTX A4000" "$t/o"
exit $fail
