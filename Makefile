# A thin wrapper over the CMake presets (as Neovim's Makefile is): `make demo`, `make test`.
PRESET ?= dev
NEOGRADE := build/$(PRESET)/app/neograde

.PHONY: all deps configure build demo test fuzz-test clean

all: build

deps:
	@scripts/install-deps $(DEPS_TARGET)

configure: deps
	@cmake --preset $(PRESET) >/dev/null

build: configure
	@cmake --build --preset $(PRESET)

demo: build
	$(NEOGRADE) demo --out neograde-out

test: DEPS_TARGET = test
test: build
	ctest --preset $(PRESET)
	@$(MAKE) --no-print-directory fuzz-test

# The libFuzzer targets, built with clang-14, ASan and UBSan: each corpus replayed, then each
# target fuzzed for a few seconds (ctest label fuzz).
fuzz-test:
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz
	ctest --preset fuzz

clean:
	rm -rf build neograde-out
