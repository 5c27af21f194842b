#!/bin/sh
# promtool check metrics on the renderer's golden file: no lint finding.
command -v promtool >/dev/null 2>&1 || { echo "SKIP: promtool not installed (Debian package prometheus)"; exit 77; }
out=$(promtool check metrics <"$1" 2>&1)
rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] && { echo "ok: promtool finds nothing"; exit 0; }
echo "FAIL: promtool check metrics (exit $rc):"
echo "$out"
exit 1
