#!/bin/sh
# gputaskman --json / --once / --list-gpus / --gpu N against the fake
# libnvidia-ml.so.1: device readings, N/A never 0, the v1/v2/v3 process
# structs, withheld per-process memory, a GPU PID not in /proc (H:), a PID
# that is in /proc (local), and a scenario changed between runs.
# Args: gputaskman, fake NVML folder, cuda_standin, libcuda.so.1
set -u
bin=$1 fake=$2 standin=$3 libcuda=$4
t=$(mktemp -d /tmp/gtm-e2e-nvml-XXXXXX)
. "$(dirname "$0")/lib.sh"
trap 'stop_standins; rm -rf "$t"' EXIT

make_root "$t/root"
start_standin A
view_add "$A"
host=$(absent_pid 4194401)

gpus='driver 550.54.15
cuda 12.4
device name="NVIDIA H100 80GB HBM3" uuid=GPU-11111111-2222-3333-4444-555555555555 bus=00000000:1A:00.0 mem_total=85899345920 mem_used=21474836480 mem_reserved=536870912 util_gpu=87 util_mem=41 temp=64 power_mw=312500 power_limit_mw=700000 fan=30 clock_sm=1980 clock_mem=2619 clock_video=1755 clock_sm_max=1980 clock_mem_max=2619 pcie_tx_kbs=1000 pcie_rx_kbs=2000 pcie_gen=5 pcie_width=16 enc=3 dec=7
device name="NVIDIA RTX A4000" bus=00000000:02:00.0'
procs="process dev=0 pid=$A list=compute mem=17179869184 sm=40
process dev=0 pid=$host list=both mem=na
process dev=1 pid=$A list=graphics mem=268435456"

for api in v3 v2 v1; do
	scenario "api $api
$gpus
$procs"
	gtm --json >"$t/j" 2>"$t/e"; check_rc "--json (api $api) exits 0" 0 $?
	jcheck "$t/j" "api $api: processes, VRAM, owners" "
a = row('$A'); h = row('H:$host')
assert a['owner'] == 'local' and a['pid'] == $A and a['host_pid'] is None, a
assert a['owner_reason'], a
g = sorted(a['gpus'], key=lambda u: u['index'])
assert [u['index'] for u in g] == [0, 1], g
assert g[0]['vram_bytes'] == 17179869184 and g[0]['compute'] and not g[0]['graphics'], g[0]
assert g[1]['vram_bytes'] == 268435456 and g[1]['graphics'] and not g[1]['compute'], g[1]
assert g[0]['source_pid'] == $A
assert a['vram_total_bytes'] == 17179869184 + 268435456
assert h['owner'] == 'host' and h['pid'] is None and h['host_pid'] == $host, h
assert h['gpus'][0]['vram_bytes'] is None, h
assert h['gpus'][0]['vram_na_reason'] == 'withheld by driver', h
assert h['gpus'][0]['compute'] and h['gpus'][0]['graphics']
assert h['vram_total_bytes'] is None
assert h['cmdline'] is None and h['name'] in (None, '')
assert d['processes'][0]['label'] == '$A', 'GPU rows first, by VRAM'
assert d['counts']['gpu_processes'] == 2, d['counts']
"
done

jcheck "$t/j" "device readings, units and N/A" "
assert d['schema_version'] == 1
nv = [s for s in d['sources'] if s['name'] == 'nvml'][0]
assert nv['available'] is True and '550.54.15' in nv['message'], nv
g0, g1 = d['gpus']
assert g0['name'] == 'NVIDIA H100 80GB HBM3' and g0['vendor'] == 'nvidia' and g0['source'] == 'nvml'
assert g0['pci_bus_id'] == '0000:1a:00.0' and g0['uuid'].startswith('GPU-11111111')
assert g0['driver_version'] == '550.54.15' and g0['cuda_version'] == '12.4'
m = g0['memory']
assert m['total_bytes'] == 85899345920 and m['used_bytes'] == 21474836480 and m['reserved_bytes'] == 536870912
assert m['free_bytes'] == 85899345920 - 21474836480 - 536870912
assert g0['utilization'] == {'gpu_pct': 87, 'memory_activity_pct': 41, 'encoder_pct': 3, 'decoder_pct': 7}, g0['utilization']
assert g0['temperature_c'] == 64 and g0['power_w'] == 312.5 and g0['power_limit_w'] == 700 and g0['fan_pct'] == 30
assert g0['clocks_mhz'] == {'sm': 1980, 'memory': 2619, 'video': 1755, 'sm_max': 1980, 'memory_max': 2619}
assert g0['pcie'] == {'tx_bytes_per_s': 1024000, 'rx_bytes_per_s': 2048000, 'generation': 5, 'width': 16}, g0['pcie']
assert g0['processes_listed'] == 2 and g1['processes_listed'] == 1
# the second device supports nothing but its name and bus: null, never 0
assert g1['name'] == 'NVIDIA RTX A4000' and g1['uuid'] is None
for k, v in g1['memory'].items(): assert v is None, (k, v)
for k, v in g1['utilization'].items(): assert v is None, (k, v)
for k in ('temperature_c', 'power_w', 'power_limit_w', 'fan_pct'): assert g1[k] is None, k
for k, v in list(g1['clocks_mhz'].items()) + list(g1['pcie'].items()): assert v is None, (k, v)
"

# Every row has the same keys, H: rows included (null or empty where nothing is known).
jcheck "$t/j" "every process row carries the identification and explanation keys" "
for p in d['processes']:
    for k in ('category', 'category_reason', 'runtimes', 'models', 'llama_flags', 'explain', 'gpus', 'listening_ports'):
        assert k in p, (k, p['label'])
    if p['owner'] == 'host':
        assert p['category'] is None and p['runtimes'] == [] and p['explain'] is None, p
"

# A one-shot run reads the driver's samples of the last second; a process
# without samples did not run (a measured 0), and a driver without the call
# gives null (the unsupported case is in test_nvml.c).
jcheck "$t/j" "per-process load in a one-shot run comes from the last second's samples" "
for p in d['processes']:
    for u in p['gpus']:
        assert u['sm_pct'] is not None and u['encoder_pct'] is not None, u
"

gtm --once >"$t/o" 2>"$t/e"; check_rc "--once exits 0" 0 $?
expect_out "--once names the GPU" "NVIDIA H100 80GB HBM3" "$t/o"
expect_out "--once shows the host row" "H:$host" "$t/o"
expect_out "--once shows N/A" "N/A" "$t/o"
expect_out "--once uses binary units" "GiB" "$t/o"

gtm --list-gpus >"$t/l" 2>"$t/e"; check_rc "--list-gpus exits 0" 0 $?
expect_out "--list-gpus GPU 0" "NVIDIA H100 80GB HBM3" "$t/l"
expect_out "--list-gpus bus id" "0000:1a:00.0" "$t/l"
expect_out "--list-gpus GPU 1" "NVIDIA RTX A4000" "$t/l"
[ "$(grep -c NVIDIA "$t/l")" -eq 2 ] && ok "--list-gpus lists two" || bad "--list-gpus lists two"

gtm --gpu 1 --json >"$t/j" 2>"$t/e"; check_rc "--gpu 1 exits 0" 0 $?
jcheck "$t/j" "--gpu 1 keeps only GPU 1" "
assert [g['index'] for g in d['gpus']] == [1], d['gpus']
for p in d['processes']:
    for u in p['gpus']: assert u['index'] == 1, p
assert row('$A')['gpus'][0]['vram_bytes'] == 268435456
"
gtm --gpu 2 --json >"$t/j" 2>"$t/e"; check_rc "--gpu 2 (out of range) exits 2" 2 $?
expect_out "--gpu out of range names the valid range" "0-1" "$t/e"

# The scenario changes: the next run sees it.
scenario "$gpus
process dev=0 pid=$host mem=1024"
gtm --json >"$t/j" 2>"$t/e"
jcheck "$t/j" "a changed scenario is seen" "
assert row('H:$host')['gpus'][0]['vram_bytes'] == 1024
assert not rows('$A')
"

# 2 GPUs x 500 processes (the benchmark's load) in one run.
{
	echo "device name=a mem_total=85899345920"
	echo "device name=b mem_total=85899345920"
	i=0
	while [ $i -lt 1000 ]; do echo "process dev=$((i % 2)) pid=$((host + 10 + i)) mem=$((i * 4096))"; i=$((i + 1)); done
} >"$t/scenario.tmp" && mv "$t/scenario.tmp" "$t/scenario"
gtm --json >"$t/j" 2>"$t/e"; check_rc "--json with 1000 GPU processes exits 0" 0 $?
jcheck "$t/j" "1000 GPU processes listed" "
assert d['counts']['gpu_processes'] == 1000, d['counts']
assert [g['processes_listed'] for g in d['gpus']] == [500, 500]
v = [p['vram_total_bytes'] for p in d['processes'][:1000]]
assert v == sorted(v, reverse=True), 'ordered by VRAM'
"
exit $fail
