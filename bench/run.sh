#!/bin/sh
# Runs every benchmark folder's run.sh against build dir $1 (a release build).
set -u
build=${1:-build}
[ -f "$build/build.ninja" ] && meson configure "$build" -Dtests=true >/dev/null 2>&1
ninja -C "$build" >/dev/null || exit 1
rc=0
for s in bench/*/run.sh; do
	[ -f "$s" ] || continue
	echo "== $s"
	sh "$s" "$build" || rc=1
done
exit $rc
