#!/bin/sh
# `make run ARGS="--json ..." > f.json` writes JSON and nothing else: no
# recipe line echoed, the build's messages on stderr. Runs the Makefile in the
# source tree ($1) with BUILD set to this build ($2: up to date, so nothing is
# rebuilt), from a clean environment as a user's shell has it (no make check
# around it). SKIP without make.
set -u
src=$1 build=$2
command -v make >/dev/null 2>&1 || { echo "SKIP: make is not installed (apt-get install make)"; exit 77; }
t=$(mktemp -d /tmp/gtm-make-run-XXXXXX)
trap 'rm -rf "$t"' EXIT
# the path as a user would type it, relative to the source tree
rel=$(python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$build" "$src")
cd "$src" || exit 1
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u MAKEOVERRIDES make run BUILD="$rel" ARGS="--json --no-probe" >"$t/f.json" 2>"$t/err"
rc=$?
if [ $rc -ne 0 ] && grep -q "missing build packages" "$t/err"; then
	echo "SKIP: make run needs packages this machine lacks: $(cat "$t/err")"; exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL make run exited $rc:"; cat "$t/err"; exit 1; }
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert "gpus" in d and "processes" in d' "$t/f.json" 2>"$t/py"; then
	echo "ok   make run ARGS=\"--json\" > f.json is a JSON snapshot ($(wc -c <"$t/f.json") bytes)"
else
	echo "FAIL f.json is not a JSON snapshot: $(cat "$t/py")"; echo "its first lines:"; head -n 5 "$t/f.json"; exit 1
fi
