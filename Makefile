# Front door: `make run` builds and starts gputaskman; `make check` builds with
# sanitizers and runs every test. Meson + Ninja do the work.
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
CHECK_BUILD ?= build-check
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 30
ARGS ?=

.PHONY: all run build check install fuzz bench deps clean

all: build

deps:
	@sh scripts/deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) --prefix=$(PREFIX) -Dbuildtype=release -Dtests=false >/dev/null

build: deps $(BUILD)/build.ninja
	@ninja -C $(BUILD) >/dev/null

run: build
	./$(BUILD)/src/gputaskman $(ARGS)

$(CHECK_BUILD)/build.ninja:
	meson setup $(CHECK_BUILD) -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true -Dbuildtype=debug >/dev/null

check: deps $(CHECK_BUILD)/build.ninja
	ninja -C $(CHECK_BUILD)
	@sh scripts/run-tests.sh $(CHECK_BUILD)

install: build
	meson configure $(BUILD) --prefix=$(PREFIX) >/dev/null
	DESTDIR=$(DESTDIR) meson install -C $(BUILD) --no-rebuild --quiet

fuzz:
	@sh scripts/deps.sh --fuzz
	[ -f $(FUZZ_BUILD)/build.ninja ] || CC=clang meson setup $(FUZZ_BUILD) -Dfuzzing=true -Dtests=false -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
	ninja -C $(FUZZ_BUILD)
	@sh scripts/run-fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: build
	@sh bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(CHECK_BUILD) $(FUZZ_BUILD)
