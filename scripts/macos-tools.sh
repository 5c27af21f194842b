#!/bin/sh
# Prints the path of a cross tool the macOS build uses (Debian's lld and
# llvm packages name them with the LLVM version): ld64 (ld64.lld), objdump
# (llvm-objdump), ar (llvm-ar), ranlib (llvm-ranlib). Exits 1 when none is installed.
set -eu
case ${1:?usage: macos-tools.sh ld64|objdump|ar|ranlib} in
ld64) names="ld64.lld ld64.lld-14 ld64.lld-15 ld64.lld-16"; tool=ld64.lld ;;
objdump) names="llvm-objdump llvm-objdump-14 llvm-objdump-15 llvm-objdump-16"; tool=llvm-objdump ;;
ar) names="llvm-ar llvm-ar-14 llvm-ar-15 llvm-ar-16"; tool=llvm-ar ;;
ranlib) names="llvm-ranlib llvm-ranlib-14 llvm-ranlib-15 llvm-ranlib-16"; tool=llvm-ranlib ;;
*) echo "macos-tools: unknown tool $1" >&2; exit 2 ;;
esac
for n in $names; do
	p=$(command -v "$n" 2>/dev/null) && { echo "$p"; exit 0; }
done
for p in /usr/lib/llvm-*/bin/$tool; do
	[ -x "$p" ] && { echo "$p"; exit 0; }
done
exit 1
