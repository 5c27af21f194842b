#!/bin/sh
# contrib/systemd's unit: not root (a dynamic user with CAP_SYS_PTRACE and
# CAP_DAC_READ_SEARCH as ambient capabilities and no others), /proc left
# whole, the GPU device nodes allowed, the .deb's binary path, and
# `systemd-analyze security` rating it 3.0 or better. SKIP where
# systemd-analyze (or its --offline mode, systemd 250+) is absent.
# Args: unit-file
unit=$1
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
has() { grep -qx -- "$1" "$unit" && ok "$1" || bad "the unit lacks: $1"; }
has 'DynamicUser=yes'
has 'AmbientCapabilities=CAP_SYS_PTRACE CAP_DAC_READ_SEARCH'
has 'CapabilityBoundingSet=CAP_SYS_PTRACE CAP_DAC_READ_SEARCH'
has 'ProtectProc=default'
has 'DeviceAllow=char-nvidia-frontend rw'
has 'DeviceAllow=char-drm rw'
grep -q '^ExecStart=/usr/bin/gputaskman serve --listen 127.0.0.1:' "$unit" && ok "ExecStart: /usr/bin, loopback" || bad "ExecStart"
grep -qE '^(User=root|PrivateDevices=yes|ProtectProc=invisible|PrivateUsers=yes)' "$unit" &&
	bad "an option that hides /proc or the devices, or root" || ok "no option hiding /proc or the GPUs"
if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "SKIP: systemd-analyze is not installed (the static checks above passed: $fail failures)"
	[ $fail -eq 0 ] && exit 77 || exit 1
fi
out=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1)
level=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
if [ -z "$level" ]; then
	echo "SKIP: this systemd-analyze cannot rate a unit file offline: $(printf '%s\n' "$out" | tail -n 1)"
	[ $fail -eq 0 ] && exit 77 || exit 1
fi
if awk -v l="$level" 'BEGIN { exit !(l <= 3.0) }'; then ok "systemd-analyze security: $level (at most 3.0)"
else bad "systemd-analyze security: $level, above 3.0"; printf '%s\n' "$out" | grep '✗'; fi
exit $fail
