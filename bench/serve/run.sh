#!/bin/sh
# Issue 15's targets, with 2 GPUs and 500 processes on the NVML test double
# (cap 32): a scrape under 2 ms of server time, collection CPU per interval no
# more than the live view's, RSS under 12 MiB. Also --once start-up with and
# without serve's code (libmicrohttpd is loaded by serve alone).
set -u
build=${1:-build}
exec python3 "$(dirname "$0")/measure.py" "$build"
