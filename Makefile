# Front door: `make run` builds and starts gputaskman; `make check` builds with
# sanitizers and runs every test. Meson + Ninja do the work.
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
CHECK_BUILD ?= build-check
FUZZ_BUILD ?= build-fuzz
WIN_BUILD ?= build-win
CHECK_WIN_BUILD ?= build-check-win
DEB_BUILD ?= build-deb
DIST_BUILD ?= build-dist
MAC_BUILD ?= build-macos
CHECK_MAC_BUILD ?= build-check-macos
MACOS_CACHE ?= $(if $(GTM_MACOS_CACHE),$(GTM_MACOS_CACHE),$(HOME)/.cache/gputaskman/macos-arm64)
VERSION := $(shell sed -n "s/^  version : '\\(.*\\)',/\\1/p" meson.build)
FUZZ_SECONDS ?= 30
ARGS ?=

.PHONY: all run build check check-deps install fuzz bench deps clean windows dist-windows
.PHONY: deb dist-linux macos dist-macos

all: build

deps:
	@sh scripts/deps.sh

# Everything but gputaskman's own output goes to stderr, and no recipe line is
# echoed, so `make run ARGS="--json" > f.json` writes JSON only. ninja shows
# its progress when there is something to build, and says nothing otherwise.
$(BUILD)/build.ninja:
	@echo "configuring $(BUILD) (meson setup, release build)" >&2
	@meson setup $(BUILD) --prefix=$(PREFIX) -Dbuildtype=release -Dtests=false >&2

build: deps $(BUILD)/build.ninja
	@ninja -C $(BUILD) -n 2>/dev/null | grep -q '^ninja: no work to do' || ninja -C $(BUILD) >&2

run: build
	@$(BUILD)/src/gputaskman $(ARGS)

$(CHECK_BUILD)/build.ninja:
	meson setup $(CHECK_BUILD) -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true -Dbuildtype=debug >/dev/null

check-deps:
	@sh scripts/deps.sh --check

# The Windows tests (tests/windows: portable unit tests, the process layer on
# Wine processes, the zip) build into $(CHECK_WIN_BUILD) and run under Wine;
# without mingw-w64 or Wine they are reported skipped with the reason.
check: check-deps $(CHECK_BUILD)/build.ninja
	ninja -C $(CHECK_BUILD)
	@echo "make check: the Windows build in $(CHECK_WIN_BUILD) (the first time: its libraries from Debian's sources, then the cross build; several minutes)"
	@sh scripts/check-windows.sh $(CHECK_WIN_BUILD) $(WIN_BUILD); rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 77 ] || exit $$rc
	@sh scripts/check-macos.sh $(CHECK_MAC_BUILD) $(MACOS_CACHE); rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 77 ] || exit $$rc
	@GTM_WIN_BUILD=$(abspath $(CHECK_WIN_BUILD)) sh scripts/run-tests.sh $(CHECK_BUILD) $(CHECK_WIN_BUILD)

# The WSL2 helper (docs/wsl.md): the Windows build, when `make windows` made it,
# goes beside the Linux binary, where gputaskman under WSL looks for it.
# PREFIX is set on the build folder whatever it was built with, and ninja
# runs again before the install: meson writes its install plan when it
# regenerates, so `meson install --no-rebuild` right after `meson configure`
# installed under the old prefix.
install: build
	meson configure $(BUILD) --prefix=$(PREFIX) >/dev/null
	@ninja -C $(BUILD) >/dev/null
	DESTDIR=$(DESTDIR) meson install -C $(BUILD) --no-rebuild --quiet
	@if [ -f $(WIN_BUILD)/src/gputaskman.exe ]; then \
		install -D -m 0755 $(WIN_BUILD)/src/gputaskman.exe $(DESTDIR)$(PREFIX)/bin/gputaskman.exe && \
		echo "installed the WSL2 helper $(PREFIX)/bin/gputaskman.exe"; \
	else echo "no WSL2 helper installed: make windows builds it (mingw-w64)"; fi

fuzz:
	@sh scripts/deps.sh --fuzz
	[ -f $(FUZZ_BUILD)/build.ninja ] || CC=clang meson setup $(FUZZ_BUILD) -Dfuzzing=true -Dtests=false -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
	ninja -C $(FUZZ_BUILD)
	@sh scripts/run-fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: build
	@sh bench/run.sh $(BUILD)

# Windows x64, cross-built with mingw-w64 (cross/x86_64-w64-mingw32.txt);
# jansson and cmocka come from Debian's source packages, built into
# $(WIN_BUILD)/sysroot by scripts/mingw-sysroot.sh. Wine runs its tests.
$(WIN_BUILD)/build.ninja:
	sh scripts/mingw-sysroot.sh $(WIN_BUILD)
	sh scripts/win-machine.sh $(WIN_BUILD) > $(WIN_BUILD)/machine.txt
	meson setup $(WIN_BUILD) --cross-file cross/x86_64-w64-mingw32.txt --cross-file $(WIN_BUILD)/machine.txt \
		-Dbuildtype=release -Dwerror=true -Dtests=false >/dev/null

windows: $(WIN_BUILD)/build.ninja
	ninja -C $(WIN_BUILD) src/gputaskman.exe

dist-windows: windows
	sh scripts/dist-windows.sh $(WIN_BUILD) $(VERSION)

# The Debian package: debian/, built by dpkg-buildpackage in a copy of the
# tree under $(DEB_BUILD) (it writes beside its source folder); lintian must
# report no error. The .deb lands in $(DEB_BUILD).
deb:
	@sh scripts/deps.sh --release
	sh scripts/build-deb.sh $(DEB_BUILD)

# Portable tarballs for Linux x64 and arm64 (cross-built, cross/aarch64-linux-gnu.txt),
# each from its own static release build under $(DIST_BUILD); they land in $(DIST_BUILD).
dist-linux:
	@sh scripts/deps.sh --release
	sh scripts/dist-linux.sh x64 $(DIST_BUILD)/x64 $(VERSION) $(DIST_BUILD)
	sh scripts/dist-linux.sh arm64 $(DIST_BUILD)/arm64 $(VERSION) $(DIST_BUILD)

# macOS arm64 (Apple Silicon, macOS 13+), cross-built with clang and
# ld64.lld (cross/arm64-apple-macos13.txt). scripts/macos-sysroot.sh fetches
# the C library's headers and libSystem.tbd (npm) and builds jansson, zstd
# and ncursesw from Debian's sources into $(MACOS_CACHE), outside the tree.
# No Mac runs it here: scripts/macos-inspect.sh checks the Mach-O.
macos:
	sh scripts/macos-sysroot.sh $(MACOS_CACHE)
	sh scripts/macos-build.sh $(MAC_BUILD) $(MACOS_CACHE)
	sh scripts/macos-inspect.sh $(MAC_BUILD)/src/gputaskman

dist-macos: macos
	sh scripts/dist-macos.sh $(MAC_BUILD) $(VERSION) $(MACOS_CACHE)

clean:
	rm -rf $(BUILD) $(CHECK_BUILD) $(FUZZ_BUILD) $(WIN_BUILD) $(CHECK_WIN_BUILD) $(DEB_BUILD) $(DIST_BUILD) $(MAC_BUILD) $(CHECK_MAC_BUILD)
