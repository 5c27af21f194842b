#!/bin/sh
# Builds the libraries Debian does not ship for mingw-w64 (jansson, cmocka,
# zstd, and pcre2 for its POSIX regex API)
# from Debian's own source packages into a cached sysroot:
#   scripts/mingw-sysroot.sh BUILD_DIR  ->  BUILD_DIR/sysroot/{include,lib}
# Nothing is vendored: `apt-get source` fetches the packages of this Debian
# release (a deb-src entry is added when none exists), and the static
# libraries are built with the cross compiler. A finished sysroot is reused.
set -eu
build=${1:?usage: mingw-sysroot.sh BUILD_DIR}
mkdir -p "$build"
build=$(cd "$build" && pwd)
sysroot=$build/sysroot
host=x86_64-w64-mingw32
cc=$host-gcc-posix
stamp=$sysroot/.complete
# The stamp names what the sysroot holds: a sysroot made by an older version
# of this script (without zstd, say) is built again.
contents="jansson cmocka libzstd pcre2; licences 1"
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$contents" ] && exit 0

command -v "$cc" >/dev/null || { echo "mingw-sysroot: $cc not found (apt-get install gcc-mingw-w64-x86-64-posix)" >&2; exit 77; }
command -v cmake >/dev/null || { echo "mingw-sysroot: cmake not found" >&2; exit 77; }

# A deb-src entry for this release's main archive, so `apt-get source` works.
if ! apt-get source --print-uris jansson >/dev/null 2>&1; then
	[ "$(id -u)" = 0 ] || { echo "mingw-sysroot: no deb-src entry; run as root once to add one" >&2; exit 77; }
	. /etc/os-release
	cat >/etc/apt/sources.list.d/gputaskman-deb-src.sources <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $VERSION_CODENAME
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt-get update -qq >/dev/null 2>&1 || true
fi

src=$build/sysroot-src
rm -rf "$src" "$sysroot"
mkdir -p "$src" "$sysroot"
cd "$src"
# --download-only + dpkg-source: unpacking needs no build dependencies.
for pkg in jansson cmocka libzstd pcre2; do
	apt-get source --download-only -qq "$pkg" >/dev/null 2>&1 ||
		{ echo "mingw-sysroot: apt-get source $pkg failed" >&2; exit 1; }
done
for dsc in *.dsc; do dpkg-source -x --no-check "$dsc" >/dev/null; done

cat >"$src/toolchain.cmake" <<TC
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER $cc)
set(CMAKE_RC_COMPILER $host-windres)
set(CMAKE_FIND_ROOT_PATH /usr/$host)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
TC

# One static library each, installed under the sysroot; cmake for jansson,
# cmocka and pcre2 (C only, 8-bit, no JIT).
cmake_build() { # NAME SRCDIR OPTIONS...
	name=$1 dir=$2; shift 2
	cmake -S "$dir" -B "$src/$name-build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$src/toolchain.cmake" \
		-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$sysroot" "$@" >"$src/$name.log" 2>&1 &&
		ninja -C "$src/$name-build" install >>"$src/$name.log" 2>&1 ||
		{ echo "mingw-sysroot: building $name failed, see $src/$name.log" >&2; exit 1; }
}
cmake_build jansson "$(ls -d "$src"/jansson-[0-9]*/)" -DJANSSON_BUILD_SHARED_LIBS=OFF -DJANSSON_BUILD_DOCS=OFF \
	-DJANSSON_EXAMPLES=OFF -DJANSSON_WITHOUT_TESTS=ON
cmake_build cmocka "$(ls -d "$src"/cmocka-[0-9]*/)" -DCMAKE_C_FLAGS=-D__USE_MINGW_ANSI_STDIO=1 -DBUILD_SHARED_LIBS=OFF -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF \
	-DUNIT_TESTING=OFF -DPICKY_DEVELOPER=OFF
cmake_build pcre2 "$(ls -d "$src"/pcre2-[0-9]*/)" -DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON \
	-DPCRE2_BUILD_PCRE2_8=ON -DPCRE2_SUPPORT_JIT=OFF -DPCRE2_BUILD_PCRE2GREP=OFF -DPCRE2_BUILD_TESTS=OFF \
	-DPCRE2_SUPPORT_LIBZ=OFF -DPCRE2_SUPPORT_LIBBZ2=OFF -DPCRE2_SUPPORT_LIBREADLINE=OFF -DPCRE2_SUPPORT_LIBEDIT=OFF
# zstd's cmake project also enables C++ (no mingw g++ here): its lib/Makefile
# builds the static library, the headers and libzstd.pc with the C compiler.
zdir=$(ls -d "$src"/libzstd-[0-9]*/)lib
{ make -C "$zdir" -j2 CC="$cc" AR=$host-gcc-ar-posix ZSTD_LEGACY_SUPPORT=0 ZSTD_NO_ASM=1 libzstd.a-release &&
	make -C "$zdir" PREFIX="$sysroot" install-static install-includes install-pc; } >"$src/zstd.log" 2>&1 ||
	{ echo "mingw-sysroot: building zstd failed, see $src/zstd.log" >&2; exit 1; }
# Static only: cmocka installs an import library beside its static one, which
# the linker would prefer (and the tests would then need its DLL).
rm -f "$sysroot"/lib/libcmocka.dll.a "$sysroot"/bin/*.dll
[ -f "$sysroot/lib/libcmocka-static.a" ] && mv "$sysroot/lib/libcmocka-static.a" "$sysroot/lib/libcmocka.a"
# The licences of what is linked into gputaskman.exe go into its zip
# (scripts/dist-windows.sh): each source package's debian/copyright, the
# text Debian installs as /usr/share/doc/PACKAGE/copyright. cmocka links
# only into the tests.
mkdir -p "$sysroot/licenses"
for pkg in jansson libzstd pcre2; do
	cp "$(ls -d "$src/$pkg"-[0-9]*/)debian/copyright" "$sysroot/licenses/$pkg.txt"
done
echo "$contents" >"$stamp"
