#!/bin/sh
# `gputaskman inspect PID` ($1) on a stand-in llama-server ($3, from
# tests/e2e/identify) holding a model (-m) and a draft (-md) written by
# make_models ($2), with no GPU visible: --no-probe and --help are accepted,
# a GPU build's estimate is labelled as the flags' planned placement (no GPU use), and
# the draft counts as a second model and is said not to be estimated.
set -u
bin=$1
make_models=$2
# meson passes paths relative to the build folder; the stand-in starts in $t
standin=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
# a library named like llama.cpp's CUDA backend ($4): a GPU build, on no GPU here
cuda=$(cd "$(dirname "$4")" && pwd)/$(basename "$4")
fail=0
t=$(mktemp -d /tmp/gtm-inspect-pid-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$t"' EXIT
mkdir -p "$t/models" "$t/nolib"
"$make_models" "$t/models" || { echo "FAIL make_models"; exit 1; }
# No NVML on the library path: the process is on no GPU.
unset GTM_FAKE_NVML_SCENARIO GPUTASKMAN_ROOT
export LD_LIBRARY_PATH="$t/nolib"

check_rc() { # name, expected, actual
	if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; cat "$t/out.err" 2>/dev/null; fail=1; else echo "ok   $1"; fi
}
expect() { # name, fixed string, file
	if grep -qF -- "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: no '$2' in:"; cat "$3"; fail=1; fi
}
inspect() { # out-file, args...
	out=$1; shift
	"$bin" inspect "$@" >"$t/$out" 2>"$t/out.err"
}

start_standin() { # stand-in arguments...; sets pid
	rm -f "$t/ready"
	(cd "$t" && exec "$standin" "$@" --ready "$t/ready") &
	pid=$!
	i=0
	while [ ! -e "$t/ready" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done # 60 s at most
	[ -e "$t/ready" ] || { echo "FAIL the stand-in ($*) did not start"; exit 1; }
}

start_standin -m models/Qwen3-0.6B-Q8_0.gguf -md models/draft.gguf -c 4096 --lib "$cuda"

inspect text "$pid"; check_rc "inspect PID" 0 $?
expect "PID text: no GPU use" "no GPU use reported for this process" "$t/text"
expect "PID text: planned placement" "planned placement from the flags (no GPU use observed)" "$t/text"
expect "PID text: estimate is the main model's" "main model only" "$t/text"
expect "PID text: draft not estimated" "draft model draft.gguf (-md): not estimated" "$t/text"
expect "PID text: draft counts as a second model" "2 models in one process: per-model KV accounting" "$t/text"
expect "PID text: draft's plan says whose flags" "a draft model: planned with the process's main flags" "$t/text"
inspect json "$pid" --json --no-probe; check_rc "inspect PID --json --no-probe" 0 $?
expect "PID json: planned flag" '"planned_placement": true' "$t/json"
expect "PID json: draft plan role" '"role": "draft"' "$t/json"
inspect noprobe "$pid" --no-probe; check_rc "inspect PID --no-probe" 0 $?
expect "PID --no-probe: the same report" "planned placement from the flags (no GPU use observed)" "$t/noprobe"
inspect help "$pid" --help; check_rc "inspect PID --help" 0 $?
expect "PID --help prints usage" "usage: gputaskman inspect" "$t/help"
inspect help2 "$pid" -h; check_rc "inspect PID -h" 0 $?
expect "PID -h prints usage" "gputaskman inspect PID [--json] [--no-probe]" "$t/help2"
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=

# A process holding a half-downloaded model: its model row says so, its plan is marked.
cp --sparse=always "$t/models/Qwen3-0.6B-Q8_0.gguf" "$t/models/partial.gguf" && truncate -s 300000000 "$t/models/partial.gguf"
start_standin -m models/partial.gguf -c 4096
inspect ptext "$pid"; check_rc "inspect PID of a partial model" 0 $?
expect "PID partial: model row" "incomplete file: 320.71 MiB of tensor data missing" "$t/ptext"
expect "PID partial: plan marked" "from an INCOMPLETE file" "$t/ptext"
inspect pjson "$pid" --json; check_rc "inspect PID --json of a partial model" 0 $?
expect "PID partial json: incomplete" '"incomplete": true' "$t/pjson"
expect "PID partial json: bytes missing" '"missing_bytes": 336290080' "$t/pjson"
exit $fail
