# Sourced by the WSL e2e scripts: the fixture WSL root under $t/root (the
# WSLInterop binfmt entry, a WSL2 kernel release, a boot id, /dev/dxg) and a
# CUDA stand-in ($cuda) holding /dev/dxg open, captured into the tree.
# Needs t (a temp folder), standin, libcuda and pids (appended to) set.
root=$t/root
"$GTM_CAPTURE_PROC" "$root" || exit 1
mkdir -p "$root/proc/sys/fs/binfmt_misc" "$root/proc/sys/kernel/random" "$root/dev"
printf 'enabled\ninterpreter /init\nflags: PF\noffset 0\nmagic 4d5a\n' >"$root/proc/sys/fs/binfmt_misc/WSLInterop"
echo 5.15.167.4-microsoft-standard-WSL2 >"$root/proc/sys/kernel/osrelease"
echo 8d2c3a4e-1111-4222-8333-444455556666 >"$root/proc/sys/kernel/random/boot_id"
: >"$root/dev/dxg"
# a CUDA process holding /dev/dxg (its context: the host's one instance)
mkfifo "$t/hold"
"$standin" "$libcuda" <"$t/hold" 3<"$root/dev/dxg" >"$t/standin.out" &
cuda=$!
pids="$pids $cuda"
exec 9>"$t/hold"
# (captured once it has mapped libcuda: it says ready; 60 s at most on a loaded machine)
for i in $(seq 1200); do grep -q ready "$t/standin.out" 2>/dev/null && break; sleep 0.05; done
grep -q ready "$t/standin.out" 2>/dev/null || { echo "FAIL the CUDA stand-in did not start:"; cat "$t/standin.out"; exit 1; }
"$GTM_CAPTURE_PROC" "$root" "$cuda" || exit 1
