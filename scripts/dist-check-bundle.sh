#!/bin/sh
# What a portable Linux tarball may carry (scripts/dist-linux.sh runs it on
# the folder it is about to pack; tests/e2e/release runs it on folders made
# to break it): scripts/dist-check-bundle.sh DIR READELF
# fails when DIR holds one of NVIDIA's libraries (libnvidia-*, libcuda*,
# libnvcuvid*: they belong to the driver, must match the kernel module and
# are not ours to redistribute) or when an ELF file in DIR needs a shared
# library other than the C library's (libc, libm, the loader), NVIDIA's
# above all: those are all a target machine is sure to have.
set -u
dir=${1:?usage: dist-check-bundle.sh DIR READELF}
readelf=${2:?usage: dist-check-bundle.sh DIR READELF}
bad=$(find "$dir" \( -name 'libnvidia-*' -o -name 'libcuda*' -o -name 'libnvcuvid*' \) -print)
[ -z "$bad" ] || { echo "dist: refusing to bundle NVIDIA's libraries: $bad" >&2; exit 1; }
rc=0
# (file names are ours: no newline in them)
find "$dir" -type f >"${TMPDIR:-/tmp}/gtm-bundle-$$"
while read -r f; do
	head -c 4 "$f" | grep -q 'ELF' || continue
	for lib in $("$readelf" -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		case $lib in
		libnvidia-* | libcuda* | libnvcuvid*)
			echo "dist: ${f#"$dir"/} links NVIDIA's $lib: it must be loaded at run time from the driver, never linked or bundled" >&2
			rc=1
			;;
		libc.so.6 | libm.so.6 | ld-linux-x86-64.so.2 | ld-linux-aarch64.so.1) ;;
		*)
			echo "dist: ${f#"$dir"/} needs $lib, which a target machine may lack (link it statically: -Dstatic_deps=true)" >&2
			rc=1
			;;
		esac
	done
done <"${TMPDIR:-/tmp}/gtm-bundle-$$"
rm -f "${TMPDIR:-/tmp}/gtm-bundle-$$"
exit $rc
