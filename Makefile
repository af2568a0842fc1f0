# A thin wrapper over the CMake presets (as Neovim's Makefile is): `make demo`, `make test`.
PRESET ?= dev
NEOGRADE := build/$(PRESET)/app/neograde

.PHONY: all deps configure build demo test test-under-load gpu-smoke-check fuzz-test package clean

all: build

deps:
	@scripts/install-deps $(DEPS_TARGET)

configure: deps
	@cmake --preset $(PRESET) >/dev/null

build: configure
	@cmake --build --preset $(PRESET)

# Only what the demo runs (the CLI and the libraries it links), not the test suite.
demo: configure
	@cmake --build --preset $(PRESET) --target neograde
	$(NEOGRADE) demo --out neograde-out

# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer (clang-14; the
# libFuzzer targets replay their corpora and fuzz a few seconds each), then the GPU smoke test
# built as it ships (CUDA when nvcc is found; no sanitizer) and checked to be portable.
test: DEPS_TARGET = test
test: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan
	ctest --preset asan
	@$(MAKE) --no-print-directory gpu-smoke-check

# The same suite with two CPU-bound processes beside it, RUNS times (default 3): a test that
# depends on the machine's speed shows up as a different verdict (scripts/test-under-load).
RUNS ?= 3
test-under-load: DEPS_TARGET = test
test-under-load: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan
	@scripts/test-under-load $(RUNS)

gpu-smoke-check:
	@cmake -S gpu_smoke -B build/gpu_smoke -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build build/gpu_smoke
	@for case in portable no_gpu; do \
	  rc=0; tests/gpu_smoke/smoke_cli_test.sh $$case $(CURDIR)/build/gpu_smoke/neograde-gpu-smoke \
	    $(CURDIR)/build/gpu_smoke/$$case $(CURDIR)/tests/gpu_smoke/fixtures || rc=$$?; \
	  case $$rc in 0) echo "gpu-smoke-check: $$case passed" ;; 77) echo "gpu-smoke-check: $$case skipped" ;; *) exit 1 ;; esac; \
	done

# The libFuzzer targets, built with clang-14, ASan and UBSan: each corpus replayed, then each
# target fuzzed for a few seconds (ctest label fuzz).
fuzz-test:
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz
	ctest --preset fuzz

# A Debian package of the optimised build (CPack): build/release/neograde_<version>_<arch>.deb,
# installable with `apt install ./build/release/neograde_*.deb`.
package: DEPS_TARGET = package
package: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release
	@cd build/release && cpack -G DEB
	@ls build/release/*.deb

clean:
	rm -rf build neograde-out
