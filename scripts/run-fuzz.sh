#!/bin/sh
# Runs every libFuzzer target in build dir $1 for $2 seconds each, on a copy
# of its seed corpus (new finds go to build-fuzz/corpus-NAME, crashes to fuzz/).
set -u
dir=$1; secs=${2:-30}; rc=0
for exe in "$dir"/fuzz/fuzz_*; do
	[ -f "$exe" ] && [ -x "$exe" ] || continue
	name=$(basename "$exe" | sed 's/^fuzz_//')
	work="$dir/corpus-$name"; mkdir -p "$work"
	echo "== fuzz $name for ${secs}s"
	"$exe" -max_total_time="$secs" -artifact_prefix=fuzz/"$name"/ -print_final_stats=1 "$work" fuzz/"$name"/corpus 2>&1 | tail -n 12 || rc=1
done
exit $rc
