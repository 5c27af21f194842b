#!/bin/sh
# make deb's package (scripts/build-deb.sh: dpkg-buildpackage, then lintian
# with no error), checked as a package, not as a folder of files:
# - its Depends (dpkg-shlibdeps) name the package of every library the
#   installed binary links, found with ldd and dpkg -S, and ncursesw's and
#   zstd's (dlopen'd by the live view and the recorder); libcurl is
#   Recommended and libmicrohttpd Suggested (both dlopen'd); no field names
#   NVIDIA's libraries;
# - dpkg installs it into a scratch root (dpkg --root: its own package
#   database; --force-depends, since that database lists no other package)
#   and lists its files; the files of the packages its Depends name (this
#   machine's copies, from dpkg -L) are added to that root and nothing else,
#   and there, run with bwrap, the installed gputaskman and gtm print
#   --version (this version and commit), --help and --once: Depends is
#   enough to run it;
# - dpkg removes it from that root and leaves none of its files.
#   deb.sh OUT_DIR VERSION
set -u
out=$1 version=$2
src=${GTM_SOURCE_ROOT:?}
tmp=$(mktemp -d /tmp/gtm-deb-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
for t in dpkg-buildpackage dh lintian; do
	command -v $t >/dev/null || { echo "SKIP: no $t (make deb installs dpkg-dev, debhelper and lintian: scripts/deps.sh --release)"; exit 77; }
done
sh "$src/scripts/build-deb.sh" "$out" >"$tmp/deb-path" 2>"$tmp/build-err"
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: $(cat "$tmp/build-err")"; exit 77; }
[ $rc -eq 0 ] || fail "build-deb.sh failed: $(tail -n 30 "$tmp/build-err")"
deb=$(cat "$tmp/deb-path")
[ -f "$deb" ] || fail "no .deb: '$deb'"
grep '^E:' "$out/lintian.txt" && fail "lintian errors"
warnings=$(grep -c '^W:' "$out/lintian.txt")

# the fields
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = gputaskman ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), meson says $version"
depends=$(field Depends)
for f in Pre-Depends Depends Recommends Suggests; do
	case $(field $f) in *nvidia* | *cuda*) fail "$f names NVIDIA's libraries: $(field $f)" ;; esac
done
case $(field Recommends) in *libcurl4*) ;; *) fail "Recommends: '$(field Recommends)' lacks libcurl4 (the probes dlopen it)" ;; esac
case $(field Suggests) in *libmicrohttpd12*) ;; *) fail "Suggests: '$(field Suggests)' lacks libmicrohttpd12 (serve dlopens it)" ;; esac
# every linked library's package is in Depends (ldd: this machine's copy;
# dpkg -S knows each under /lib or /usr/lib, whichever the package ships)
dpkg-deb -x "$deb" "$tmp/x"
# the exporter's unit where systemd looks for a package's, running the packaged binary
u=$tmp/x/usr/lib/systemd/system/gputaskman-exporter.service
[ -f "$u" ] || fail "no usr/lib/systemd/system/gputaskman-exporter.service in the package"
grep -q '^ExecStart=/usr/bin/gputaskman serve' "$u" || fail "the unit's ExecStart is not /usr/bin/gputaskman: $(grep ExecStart "$u")"
ldd "$tmp/x/usr/bin/gputaskman" >"$tmp/ldd" || fail "ldd failed"
grep -q 'not found' "$tmp/ldd" && fail "a linked library is missing: $(cat "$tmp/ldd")"
n=0
for path in $(sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p' "$tmp/ldd"); do
	alt=$(echo "$path" | sed 's|^/usr/lib/|/lib/|; t; s|^/lib/|/usr/lib/|')
	pkg=$({ dpkg -S "$path" || dpkg -S "$alt"; } 2>/dev/null | head -n1 | cut -d: -f1)
	[ -n "$pkg" ] || fail "no package owns $path"
	echo "$depends" | tr ',' '\n' | grep -q "^ *$pkg\( \|$\)" || fail "$path is linked, its package $pkg is not in Depends: $depends"
	n=$((n + 1))
done
# libc and jansson at least (ncursesw and zstd are loaded at run time, libm is not needed)
[ $n -ge 2 ] || fail "ldd listed only $n libraries: $(cat "$tmp/ldd")"
# the libraries loaded with dlopen by the live view (ncursesw) and the
# recorder (zstd) are Depends too: no shlibs entry finds them
for pkg in libncursesw6 libzstd1; do
	echo "$depends" | tr ',' '\n' | grep -q "^ *$pkg\( \|$\)" || fail "Depends lacks $pkg (loaded with dlopen): $depends"
done

# installed with dpkg into a scratch root
root=$tmp/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: >"$root/var/lib/dpkg/status"
: >"$root/var/lib/dpkg/available"
dpkg --root="$root" --log=/dev/null --force-depends -i "$deb" >"$tmp/dpkg-i" 2>&1 || fail "dpkg -i: $(cat "$tmp/dpkg-i")"
dpkg --root="$root" -s gputaskman | grep -q '^Status: install ok installed' || fail "dpkg -s: $(dpkg --root="$root" -s gputaskman 2>&1)"
dpkg --root="$root" -L gputaskman >"$tmp/files"
for f in /usr/bin/gputaskman /usr/bin/gtm /usr/share/man/man1/gputaskman.1.gz /usr/share/man/man1/gtm.1.gz \
	/usr/share/doc/gputaskman/copyright /usr/share/bash-completion/completions/gputaskman \
	/usr/share/zsh/site-functions/_gputaskman /usr/share/fish/vendor_completions.d/gputaskman.fish; do
	grep -qx "$f" "$tmp/files" || fail "dpkg -L lists no $f"
	[ -e "$root$f" ] || fail "$f is not in the root"
done
gzip -dc "$root/usr/share/man/man1/gputaskman.1.gz" | grep -q '^\.TH GPUTASKMAN 1' || fail "the man page is not gputaskman(1)"
# the Depends packages' files, and only those, beside it
host_arch=$(dpkg --print-architecture)
: >"$tmp/dep-files"
for pkg in $(echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/[ (].*//'); do
	dpkg -L "$pkg:$host_arch" >"$tmp/pkg-files" 2>/dev/null || dpkg -L "$pkg" >"$tmp/pkg-files" || fail "dpkg -L $pkg"
	while read -r f; do
		[ -d "$f" ] && [ ! -L "$f" ] && continue
		case $f in /usr/share/*) continue ;; esac # documents, man pages: not needed to run
		if [ -e "$f" ] || [ -L "$f" ]; then echo "${f#/}" >>"$tmp/dep-files"; fi
	done <"$tmp/pkg-files"
done
# a merged /usr here makes /lib and /lib64 links into usr/: their targets first
mkdir -p "$root/usr/lib" "$root/usr/lib64"
tar -cf - -C / --no-recursion -T "$tmp/dep-files" | tar -xf - -C "$root" || fail "copying the Depends' files"
if command -v bwrap >/dev/null && bwrap --bind "$root" / --proc /proc --dev /dev /usr/bin/gputaskman --version >/dev/null 2>&1; then
	where="in the scratch root holding only it and its Depends (bwrap)"
	run() {
		bwrap --bind "$root" / --proc /proc --dev /dev --tmpfs /tmp --unshare-pid --unshare-net --setenv PATH /usr/bin:/bin "$@"
	}
	bin=/usr/bin/gputaskman gtm=/usr/bin/gtm
else
	# no sandbox here: the binary runs from the scratch root with this machine's libraries
	where="from the scratch root with this machine's libraries (no usable bwrap: make deb installs bubblewrap, scripts/deps.sh --release)"
	run() { "$@"; }
	bin=$root/usr/bin/gputaskman gtm=$root/usr/bin/gtm
fi
run "$bin" --version >"$tmp/version" 2>&1 || fail "--version failed: $(cat "$tmp/version")"
[ "$(head -n1 "$tmp/version")" = "gputaskman $version" ] || fail "--version said: $(head -n1 "$tmp/version")"
commit=$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
grep -qx "commit: $commit" "$tmp/version" || fail "--version: no 'commit: $commit' in $(cat "$tmp/version")"
[ "$(run "$gtm" --version | head -n1)" = "gputaskman $version" ] || fail "gtm --version"
run "$bin" --help >"$tmp/help" 2>&1 || fail "--help failed: $(cat "$tmp/help")"
grep -q "gputaskman inspect PID" "$tmp/help" || fail "--help printed no usage: $(head -5 "$tmp/help")"
run "$bin" --once >"$tmp/once" 2>&1 || fail "--once exited $?: $(cat "$tmp/once")"
case $(head -n1 "$tmp/once") in "gputaskman $version "*) ;; *) fail "--once printed: $(head -5 "$tmp/once")" ;; esac

dpkg --root="$root" --log=/dev/null -r gputaskman >"$tmp/dpkg-r" 2>&1 || fail "dpkg -r: $(cat "$tmp/dpkg-r")"
while read -r f; do
	[ -d "$root$f" ] && [ ! -L "$root$f" ] && continue
	if [ -e "$root$f" ] || [ -L "$root$f" ]; then fail "dpkg -r left $f"; fi
done <"$tmp/files"
echo "ok: $(basename "$deb") ($(wc -c <"$deb") bytes), Depends: $depends; lintian: no error, $warnings warnings; installed with dpkg, ran --version/--help/--once $where; removed"
