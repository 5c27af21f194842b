#!/bin/sh
# `meson install --destdir` into a scratch folder: the binary, the gtm alias,
# the man pages, the three shells' completions, the licence and the docs.
# usage: install.sh BUILD_DIR PREFIX BINDIR MANDIR DATADIR
set -u
build=$1 prefix=$2 bindir=$3 mandir=$4 datadir=$5
fail=0
t=$(mktemp -d /tmp/gtm-install-XXXXXX)
trap 'rm -rf "$t"' EXIT
meson install -C "$build" --no-rebuild --quiet --destdir "$t" >"$t.log" 2>&1 || { echo "FAIL meson install"; cat "$t.log"; fail=1; }
rm -f "$t.log"
r=$t$prefix
case $bindir in /*) ;; *) bindir=$prefix/$bindir;; esac
case $mandir in /*) ;; *) mandir=$prefix/$mandir;; esac
case $datadir in /*) ;; *) datadir=$prefix/$datadir;; esac
for f in "$bindir/gputaskman" "$mandir/man1/gputaskman.1" "$mandir/man1/gtm.1" \
	"$datadir/bash-completion/completions/gputaskman" "$datadir/bash-completion/completions/gtm" \
	"$datadir/zsh/site-functions/_gputaskman" "$datadir/fish/vendor_completions.d/gputaskman.fish" \
	"$datadir/doc/gputaskman/LICENSE" "$datadir/doc/gputaskman/README.md" "$datadir/doc/gputaskman/CHANGELOG.md" \
	"$datadir/doc/gputaskman/json-schema.md" "$datadir/doc/gputaskman/recording.md"; do
	[ -s "$t$f" ] && echo "ok   $f" || { echo "FAIL not installed: $f"; fail=1; }
done
[ "$(readlink "$t$bindir/gtm")" = gputaskman ] && echo "ok   $bindir/gtm -> gputaskman" || { echo "FAIL no gtm alias"; fail=1; }
"$t$bindir/gtm" --version | grep -q "^gputaskman [0-9]" && echo "ok   the installed gtm runs" || { echo "FAIL installed gtm --version"; fail=1; }
grep -q '^\.TH GPUTASKMAN 1' "$t$mandir/man1/gputaskman.1" && echo "ok   the installed man page" || { echo "FAIL man page"; fail=1; }
exit $fail
