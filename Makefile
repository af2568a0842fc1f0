# A thin wrapper over the CMake presets (as Neovim's Makefile is): `make demo`, `make test`.
PRESET ?= dev
NEOGRADE := build/$(PRESET)/app/neograde

.PHONY: all deps configure build demo test clean

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

clean:
	rm -rf build neograde-out
