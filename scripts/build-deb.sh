#!/bin/sh
# The Debian package (make deb): scripts/build-deb.sh OUT_DIR
# copies the working tree's files (tracked and untracked, not ignored) into
# OUT_DIR/gputaskman-VERSION and runs dpkg-buildpackage there, since it
# builds in the source folder and writes the package beside it, in its
# parent: the checkout and its parent stay untouched. The copy has no .git:
# GIT_DIR points the build's git (vcs_tag, for --version's commit) at the
# checkout's, so the package names the commit it was built from ('unknown'
# outside a checkout, as for any build). Then lintian checks the source and
# binary packages; any error fails (a warning we could not fix would go into
# debian/gputaskman.lintian-overrides with its reason; there is none today).
# Prints the .deb's path. Rules-Requires-Root: no, so no fakeroot is needed.
set -eu
out=${1:?usage: build-deb.sh OUT_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n "s/^  version : '\(.*\)',/\1/p" "$src/meson.build")
# debian/changelog names the package's version; it must be meson's
debver=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
[ "$debver" = "$version" ] || { echo "build-deb: debian/changelog is at $debver, meson.build at $version: add a debian/changelog entry" >&2; exit 1; }
for t in dpkg-buildpackage dh lintian; do
	command -v $t >/dev/null || { echo "build-deb: no $t (apt-get install dpkg-dev debhelper lintian)" >&2; exit 77; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
tree=$out/gputaskman-$version
rm -rf "$tree" "$out"/gputaskman_"$version"*
mkdir -p "$tree"
(cd "$src" && git ls-files -co --exclude-standard -z 2>/dev/null | xargs -0 cp --parents -d -t "$tree" 2>/dev/null) ||
	{ echo "build-deb: cannot list the checkout's files with git" >&2; exit 1; }
gitdir=$(git -C "$src" rev-parse --absolute-git-dir 2>/dev/null) && export GIT_DIR="$gitdir"
(cd "$tree" && dpkg-buildpackage -us -uc >"$out/build.log" 2>&1) ||
	{ tail -n 40 "$out/build.log" >&2; echo "build-deb: dpkg-buildpackage failed (log: $out/build.log)" >&2; exit 1; }
changes=$(ls "$out"/gputaskman_"$version"_*.changes)
# --fail-on error: warnings are reported, not fatal (they are in lintian.txt)
lintian --fail-on error --info "$changes" >"$out/lintian.txt" 2>&1 ||
	{ cat "$out/lintian.txt" >&2; echo "build-deb: lintian reports errors" >&2; exit 1; }
ls "$out"/gputaskman_"$version"_*.deb
