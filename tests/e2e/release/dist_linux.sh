#!/bin/sh
# make dist-linux's tarball for ARCH (x64, or arm64 cross-built), made from
# its own release build (BUILD_DIR, kept between runs so only what changed
# is rebuilt) and checked as a user gets it:
# - the .sha256 verifies and the tarball holds exactly its files;
# - unpacked into a clean root that holds nothing but that folder and the C
#   library (libc, libm, the loader; for arm64 those of Debian's arm64 glibc
#   and qemu-aarch64-static to run them), no build package and no other
#   library, the binary and its gtm alias print --version (no libevent or libcurl, no
#   NVML found: the root is clean), --help and --once, run with bwrap, and
#   the live view draws in tmux (with one terminfo entry added) and quits on q;
# - the newest glibc symbol version it needs (objdump -T) is no newer than
#   the glibc the README names;
# - (x64) the bundle check refuses a folder holding NVIDIA's library, a
#   program linking it, and a dynamically linked build (this build's gputaskman).
#   dist_linux.sh ARCH BUILD_DIR VERSION FAKE_NVML_DIR GPUTASKMAN
set -u
arch=$1 build=$2 version=$3 fake_nvml=$4 dynamic_build=$5
src=${GTM_SOURCE_ROOT:?}
tmp=$(mktemp -d /tmp/gtm-dist-linux-test-XXXXXX)
trap '[ -n "${sock:-}" ] && tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
skip() {
	echo "SKIP: $*"
	exit 77
}
command -v bwrap >/dev/null || skip "no bwrap for the clean root (make dist-linux installs bubblewrap: scripts/deps.sh --release)"
mkdir -p "$tmp/probe"
bwrap --bind "$tmp/probe" / --ro-bind /bin /bin --ro-bind /lib /lib --ro-bind /lib64 /lib64 --ro-bind /usr /usr /bin/true 2>"$tmp/bwrap-err" ||
	skip "bwrap cannot make a sandbox here: $(cat "$tmp/bwrap-err")"
name=gputaskman-$version-linux-$arch
sh "$src/scripts/dist-linux.sh" "$arch" "$build" "$version" "$tmp/out" >/dev/null 2>"$tmp/dist-err"
rc=$?
[ $rc -eq 77 ] && skip "$(cat "$tmp/dist-err")"
[ $rc -eq 0 ] || fail "dist-linux.sh failed: $(tail -n 30 "$tmp/dist-err")"
(cd "$tmp/out" && sha256sum -c --quiet "$name.tar.gz.sha256") || fail "the .sha256 does not verify"
tar -tzf "$tmp/out/$name.tar.gz" | LC_ALL=C sort >"$tmp/list"
printf '%s\n' "$name/" "$name/CHANGELOG.md" "$name/LICENSE" "$name/README.md" "$name/gputaskman" "$name/gputaskman.1" \
	"$name/gtm" "$name/licenses/" "$name/licenses/jansson.txt" "$name/licenses/ncurses.txt" "$name/licenses/zstd.txt" |
	LC_ALL=C sort >"$tmp/want"
cmp -s "$tmp/list" "$tmp/want" || fail "the tarball's files: $(diff "$tmp/want" "$tmp/list")"

root=$tmp/root
mkdir -p "$root"
tar -xzf "$tmp/out/$name.tar.gz" -C "$root" || fail "tar -x failed"
bin=$root/$name/gputaskman
case $arch in
x64)
	machine="X86-64" tool="" wrap=""
	mkdir -p "$root/lib64" "$root/lib/x86_64-linux-gnu"
	cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
	cp -L /lib/x86_64-linux-gnu/libc.so.6 /lib/x86_64-linux-gnu/libm.so.6 "$root/lib/x86_64-linux-gnu/"
	;;
arm64)
	machine="AArch64" tool=aarch64-linux-gnu- wrap=/qemu-aarch64
	arm=/usr/aarch64-linux-gnu/lib
	[ -f "$arm/libc.so.6" ] || skip "no arm64 C library in $arm (apt-get install libc6-arm64-cross)"
	mkdir -p "$root/lib/aarch64-linux-gnu"
	cp -L "$arm/ld-linux-aarch64.so.1" "$root/lib/"
	cp -L "$arm/libc.so.6" "$arm/libm.so.6" "$root/lib/aarch64-linux-gnu/"
	cp "$(command -v qemu-aarch64-static)" "$root/qemu-aarch64"
	;;
esac
"${tool}readelf" -h "$bin" | grep -q "Machine: *.*$machine" || fail "$bin is not $machine: $("${tool}readelf" -h "$bin" | grep Machine)"
# the root as / and nothing of this machine's: its own /proc, /dev, /tmp, no network
run() {
	bwrap --bind "$root" / --proc /proc --dev /dev --tmpfs /tmp --unshare-pid --unshare-net --chdir "/$name" \
		--setenv PATH /usr/bin:/bin $wrap "$@" # $wrap: the qemu path or nothing
}
run ./gputaskman --version >"$tmp/version" 2>&1 || fail "--version in the clean root: $(cat "$tmp/version")"
[ "$(head -n1 "$tmp/version")" = "gputaskman $version" ] || fail "--version said: $(cat "$tmp/version")"
grep -q "HTTP (local API probes): none found (tried libevent-2.1.so.7, libcurl.so.4" "$tmp/version" ||
	fail "libevent or libcurl found in the clean root? $(cat "$tmp/version")"
grep -q "NVML (NVIDIA GPUs): none found (tried libnvidia-ml.so.1" "$tmp/version" || fail "NVML found in the clean root? $(cat "$tmp/version")"
commit=$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
grep -qx "commit: $commit" "$tmp/version" || fail "--version: no 'commit: $commit' in $(cat "$tmp/version")"
[ "$(run ./gtm --version 2>&1 | head -n1)" = "gputaskman $version" ] || fail "gtm --version"
run ./gputaskman --help >"$tmp/help" 2>&1 || fail "--help: $(cat "$tmp/help")"
grep -q "gputaskman inspect PID" "$tmp/help" || fail "--help printed no usage: $(head -5 "$tmp/help")"
run ./gputaskman --once >"$tmp/once" 2>&1 || fail "--once exited $?: $(cat "$tmp/once")"
case $(head -n1 "$tmp/once") in "gputaskman $version "*) ;; *) fail "--once printed: $(head -5 "$tmp/once")" ;; esac
grep -q "no NVIDIA driver" "$tmp/once" || fail "--once does not say why no NVIDIA GPU: $(cat "$tmp/once")"

# the live view in tmux: the static ncursesw finds the terminal's terminfo
# entry in /usr/share/terminfo, where most distributions keep it (the only
# terminfo in the root), draws the view, and q quits with status 0
if command -v tmux >/dev/null; then
	mkdir -p "$root/usr/share/terminfo/x"
	cp /lib/terminfo/x/xterm-256color "$root/usr/share/terminfo/x/" 2>/dev/null ||
		cp /usr/share/terminfo/x/xterm-256color "$root/usr/share/terminfo/x/" || fail "no xterm-256color terminfo here"
	cat >"$tmp/live.sh" <<LIVE
bwrap --bind "$root" / --proc /proc --dev /dev --tmpfs /tmp --unshare-pid --unshare-net --chdir "/$name" \
	--setenv PATH /usr/bin:/bin --setenv TERM xterm-256color $wrap ./gputaskman --no-probe
echo \$? >"$tmp/live-rc"
LIVE
	sock=gtm-dist-$arch-$$
	tmux -L "$sock" new-session -d -x 120 -y 30 "sh $tmp/live.sh" || fail "tmux new-session"
	i=0
	until tmux -L "$sock" capture-pane -p 2>/dev/null | grep -q "No process is using a GPU"; do
		i=$((i + 1))
		[ -s "$tmp/live-rc" ] && fail "the live view exited $(cat "$tmp/live-rc") before drawing (no terminfo found?)"
		[ $i -gt 600 ] && { tmux -L "$sock" capture-pane -p >"$tmp/pane" 2>&1; tmux -L "$sock" kill-server; fail "the live view did not draw: $(cat "$tmp/pane")"; }
		sleep 0.1
	done
	tmux -L "$sock" send-keys q
	i=0
	until [ -s "$tmp/live-rc" ]; do
		i=$((i + 1))
		[ $i -gt 600 ] && { tmux -L "$sock" kill-server; fail "q did not end the live view"; }
		sleep 0.1
	done
	tmux -L "$sock" kill-server 2>/dev/null
	[ "$(cat "$tmp/live-rc")" = 0 ] || fail "the live view exited $(cat "$tmp/live-rc")"
	live=", the live view in tmux"
else
	live=" (no tmux: the live view not run)"
fi

# the glibc floor: the README's "need glibc X.Y or newer" holds
need=$("${tool}objdump" -T "$bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n1)
[ -n "$need" ] || fail "objdump -T found no GLIBC_ version"
readme=$(sed -n 's/.*tarballs need glibc \([0-9][0-9.]*\) or newer.*/\1/p' "$src/README.md" | head -n1)
[ -n "$readme" ] || fail "README.md names no glibc ('tarballs need glibc X.Y or newer')"
[ "$(printf '%s\n%s\n' "$need" "$readme" | sort -V | tail -n1)" = "$readme" ] ||
	fail "the $arch binary needs glibc $need, the README says $readme"

if [ "$arch" = x64 ]; then
	check="sh $src/scripts/dist-check-bundle.sh"
	mkdir "$tmp/bad1" "$tmp/bad2" "$tmp/bad3"
	cp "$fake_nvml/libnvidia-ml.so.1" "$tmp/bad1/" || fail "no fake NVML in $fake_nvml"
	$check "$tmp/bad1" readelf 2>"$tmp/err1" && fail "the bundle check let libnvidia-ml.so.1 in"
	grep -q "refusing to bundle NVIDIA" "$tmp/err1" || fail "bundle check: $(cat "$tmp/err1")"
	echo 'int main(void) { return 0; }' >"$tmp/p.c"
	cc -o "$tmp/bad2/prog" "$tmp/p.c" -Wl,--no-as-needed "$fake_nvml/libnvidia-ml.so.1" || fail "cc failed"
	$check "$tmp/bad2" readelf 2>"$tmp/err2" && fail "the bundle check let a program linking NVML in"
	grep -q "links NVIDIA's libnvidia-ml.so.1" "$tmp/err2" || fail "bundle check: $(cat "$tmp/err2")"
	cp "$dynamic_build" "$tmp/bad3/gputaskman"
	$check "$tmp/bad3" readelf 2>"$tmp/err3" && fail "the bundle check let a dynamically linked build in"
	grep -q "needs libjansson.so.4" "$tmp/err3" || fail "bundle check: $(cat "$tmp/err3")"
fi
echo "ok: $name.tar.gz ($(wc -c <"$tmp/out/$name.tar.gz") bytes): ran --version/--help/--once$live from a clean root${wrap:+ under qemu-aarch64}; needs glibc $need (README: $readme)"
