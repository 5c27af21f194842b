#!/bin/sh
# The same GPU process read two ways: live, where this kernel answers the
# maps file's PROCMAP_QUERY ioctl and a pidfd's PIDFD_GET_INFO, and from a
# captured tree under GPUTASKMAN_ROOT, where the text of maps and status is
# read. Its runtimes, mapped model files (one mapped shared, one private),
# owner, exe and cwd must agree. On a kernel without the calls both runs read
# the text, and the test still checks that they agree.
# Args: gputaskman, fake NVML folder, cuda_standin, libcuda.so.1
set -u
bin=$1 fake=$2 standin=$3 libcuda=$4
t=$(mktemp -d /tmp/gtm-e2e-kq-XXXXXX)
. "$(dirname "$0")/lib.sh"
trap 'stop_standins; rm -rf "$t"' EXIT

python3 -c "
import struct, sys
open(sys.argv[1], 'wb').write(b'GGUF' + struct.pack('<IQQ', 3, 0, 0) + bytes(4096))
h = b'{\"__metadata__\":{}}'
open(sys.argv[2], 'wb').write(struct.pack('<Q', len(h)) + h + bytes(4096))
" "$t/tiny.gguf" "$t/w.safetensors" || exit 1

mkfifo "$t/in.A"
"$standin" "$libcuda" "$t/tiny.gguf" "$t/w.safetensors" <>"$t/in.A" >"$t/out.A" 2>&1 &
A=$!
standins=$A
for _ in $(seq 1200); do grep -q ready "$t/out.A" 2>/dev/null && break; sleep 0.05; done
grep -q ready "$t/out.A" || { echo "FAIL stand-in did not start:"; cat "$t/out.A"; exit 1; }

scenario "device name=\"NVIDIA H200\" uuid=GPU-0 bus=00000000:1A:00.0 mem_total=150754820096 mem_used=1073741824
process dev=0 pid=$A list=compute mem=104857600"

GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake" "$bin" --once --json --no-probe >"$t/live" 2>"$t/e"
check_rc "live --json exits 0" 0 $?
make_root "$t/root"
view_add "$A"
# the model files where the tree's maps name them, as a container's root holds them
mkdir -p "$t/root$t" && cp "$t/tiny.gguf" "$t/w.safetensors" "$t/root$t/" || exit 1
gtm --once --json --no-probe >"$t/tree" 2>"$t/e"
check_rc "--json of the captured tree exits 0" 0 $?

if python3 - "$t/live" "$t/tree" "$A" "$t" <<'PY'
import json, sys
def row(f):
    d = json.load(open(f))
    r = [p for p in d['processes'] if p['pid'] == int(sys.argv[3])]
    assert len(r) == 1, [p['pid'] for p in d['processes']]
    return r[0]
def ident(p):
    return {'user': p['user'], 'uid': p['uid'], 'exe': p['exe'], 'cwd': p['cwd'], 'category': p['category'],
            'runtimes': [(r['id'], r['evidence']) for r in p['runtimes']],
            'models': sorted((m['path'], m['format'], m['evidence']) for m in p['models'])}
live, tree = ident(row(sys.argv[1])), ident(row(sys.argv[2]))
assert live == tree, (live, tree)
want = sorted([(sys.argv[4] + '/tiny.gguf', 'gguf', ['mapped']), (sys.argv[4] + '/w.safetensors', 'safetensors', ['mapped'])])
assert live['models'] == want, live['models']
assert ('cuda-driver', ['mapped libcuda.so.1']) in live['runtimes'], live['runtimes']
PY
then ok "live (kernel queries) and captured tree (text) agree"; else bad "live and captured tree differ"; fi
exit $fail
