#!/bin/sh
# A stand-in for the Windows helper (GPUTASKMAN_WSL_RUN points here): called as
# `replay_helper.sh HELPER.exe --host-stream --interval-ms N`, it prints the
# host lines of the file $GTM_WSL_LINES one per interval, as gputaskman.exe
# --host-stream would, then keeps repeating the last one (seq counting on).
# GTM_WSL_MODE: replay (default), die (two lines, then exit 3 with a message),
# mute (never a line), garbage (a bad line before each good one), noerr
# (replay with stderr closed at once: the reader must not spin on it);
# GTM_WSL_DELAY: seconds before the first line (a slow start); GTM_WSL_GATE:
# a file, no line before it exists (a start as slow as the test wants, on any
# machine; 300 s at most). Each start
# appends a line to $GTM_WSL_STARTS, so a test counts the helpers started.
ms=1000
while [ $# -gt 0 ]; do
	[ "$1" = --interval-ms ] && ms=$2
	shift
done
[ -n "${GTM_WSL_STARTS:-}" ] && echo "start $$" >>"$GTM_WSL_STARTS"
secs=$(awk "BEGIN { printf \"%.3f\", $ms / 1000 }")
mode=${GTM_WSL_MODE:-replay}
if [ "$mode" = mute ]; then
	exec sleep 3600
fi
[ "$mode" = noerr ] && exec 2>&-
[ -n "${GTM_WSL_DELAY:-}" ] && sleep "$GTM_WSL_DELAY"
if [ -n "${GTM_WSL_GATE:-}" ]; then
	i=0
	while [ ! -e "$GTM_WSL_GATE" ] && [ $i -lt 6000 ]; do sleep 0.05; i=$((i + 1)); done
fi
n=0
last=
emit() { # a line with its seq= replaced by the running count; die mode ends after two
	[ "$mode" = garbage ] && printf 'GTMH1 this is not a line\n'
	n=$((n + 1))
	printf '%s\n' "$1" | sed "s/seq=[0-9]*/seq=$n/"
	if [ "$mode" = die ] && [ $n -ge 2 ]; then
		echo "helper: lost the PDH query" >&2
		exit 3
	fi
}
while IFS= read -r line; do
	emit "$line"
	last=$line
	sleep "$secs"
done <"$GTM_WSL_LINES"
while :; do
	emit "$last"
	sleep "$secs"
done
