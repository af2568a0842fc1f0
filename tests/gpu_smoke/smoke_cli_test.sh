#!/usr/bin/env bash
# neograde-gpu-smoke as a program: the no-GPU path, regrading recorded fixtures, usage errors.
# Usage: smoke_cli_test.sh CASE SMOKE WORK_DIR FIXTURES_DIR
set -uo pipefail
case_name=$1 smoke=$2 work=$3 fixtures=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
run() {
  "$smoke" "$@" >out.txt 2>err.txt
  rc=$?
}

case "$case_name" in
  no_gpu)
    # On a machine without an NVIDIA driver: the no_gpu document, exit 77. Where there is a
    # GPU this path cannot be shown: skip (77, the test's SKIP_RETURN_CODE).
    run --expect h100-sxm5-80gb --count 8
    if [ "$rc" -ne 77 ]; then echo "a GPU is present (exit $rc): the no-GPU path is not testable here"; exit 77; fi
    doc=$(tr -d '\n ' <out.txt)
    [[ $doc == *'"status":"no_gpu"'* ]] || fail "no no_gpu status: $doc"
    [[ $doc == *'"no_gpu":{"reason":"'* ]] || fail "no reason: $doc"
    [[ $doc == *'"expected":{"count":8,"sku":"h100-sxm5-80gb"}'* ]] || fail "expectation not echoed: $doc"
    grep -q '^neograde-gpu-smoke: no GPU' err.txt || fail "no summary on stderr"
    # The host's fingerprint is recorded even without a GPU.
    [[ $doc == *'"fingerprint":{"gpus":[],"hash":{"algorithm":"HMAC-SHA256","key":"neograde-gpu-fingerprint-v1"'* ]] || fail "no fingerprint: $doc"
    [[ $doc == *'"virtualisation":{'* && $doc == *'"container":{'* && $doc == *'"kernel":{"source":"uname(2)'* ]] || fail "no host in the fingerprint: $doc"
    # --out writes the same document to a file, and nothing to stdout.
    run --out doc.json
    [ "$rc" -eq 77 ] && [ ! -s out.txt ] && grep -q '"status": "no_gpu"' doc.json || fail "--out did not write the document"
    ;;
  regrade)
    run --regrade "$fixtures/healthy-h100-sxm-8gpu.json" --expect h100-sxm5-80gb --count 8
    [ "$rc" -eq 0 ] || { cat err.txt >&2; fail "healthy node: exit $rc, expected 0"; }
    grep -q '"status": "pass"' out.txt || fail "healthy node not pass"
    grep -q '"regraded_from"' out.txt || fail "a regraded document must say so"
    run --regrade "$fixtures/one-gpu-missing.json" --expect h100-sxm5-80gb --count 8
    [ "$rc" -eq 1 ] || fail "one GPU missing: exit $rc, expected 1"
    grep -q 'FAIL node.gpu_count: 7 GPU(s) usable by CUDA; 8 ordered' err.txt || { cat err.txt >&2; fail "summary does not say why"; }
    run --regrade "$fixtures/no-gpu.json"
    [ "$rc" -eq 77 ] || fail "no-GPU record: exit $rc, expected 77"
    # A healthy H100 PCIe (cuBLAS at 496 of 756 TFLOPS) passes with its GEMM green; at 400 it fails.
    run --regrade "$fixtures/healthy-h100-pcie.json" --expect h100-pcie-80gb --count 1
    [ "$rc" -eq 0 ] || { cat err.txt >&2; fail "healthy H100 PCIe: exit $rc, expected 0"; }
    grep -q 'GPU 0 gemm_bf16: 496 TFLOPS (65.6% of datasheet, pass)' err.txt || { cat err.txt >&2; fail "496 TFLOPS not green"; }
    run --regrade "$fixtures/h100-pcie-gemm-400.json" --expect h100-pcie-80gb --count 1
    [ "$rc" -eq 1 ] || fail "H100 PCIe at 400 TFLOPS: exit $rc, expected 1"
    grep -q 'FAIL gpu.gemm_bf16 \[GPU 0\]: 400 TFLOPS = 52.9% of 756 TFLOPS' err.txt || { cat err.txt >&2; fail "400 TFLOPS not red"; }
    # The first record from real hardware (a healthy H200 SXM alone in a VM) passes when regraded.
    run --regrade "$fixtures/../../../gpu_smoke/results/2026-12-04-nvidia-h200.json" --expect h200-sxm-141gb --count 1
    [ "$rc" -eq 0 ] || { cat err.txt >&2; fail "healthy H200: exit $rc, expected 0"; }
    grep -q 'gpu.nvlink' err.txt && { cat err.txt >&2; fail "a lone GPU was held to its NVLinks"; }
    # Per direction: GPU 4's D2H fails on its own threshold, its H2D does not.
    run --regrade "$fixtures/d2h-wrong-numa.json" --expect h100-sxm5-80gb --count 8
    [ "$rc" -eq 1 ] || fail "D2H on the wrong NUMA node: exit $rc, expected 1"
    grep -q 'FAIL gpu.d2h \[GPU 4\]: 20.5 GB/s' err.txt || { cat err.txt >&2; fail "the slow D2H did not fail"; }
    if grep -q 'gpu.h2d' err.txt; then cat err.txt >&2; fail "H2D was flagged with D2H"; fi
    ;;
  schema)
    # Every fixture and the program's own document against gpu_smoke/smoke-record.schema.json
    # ($SCHEMA_CHECK: tests/support/schema_check.cpp, with $SMOKE_SCHEMA; no unhashed GPU UUID). With a GPU, the whole run's document.
    [ -n "${SCHEMA_CHECK:-}" ] && [ -n "${SMOKE_SCHEMA:-}" ] || { echo "SCHEMA_CHECK or SMOKE_SCHEMA is not set"; exit 77; }
    run --out doc.json --gemm-seconds 1
    case $rc in 0|1|77) ;; *) cat err.txt >&2; fail "exit $rc" ;; esac
    grep -q '"fingerprint"' doc.json || fail "no fingerprint in the document"
    "$SCHEMA_CHECK" "$SMOKE_SCHEMA" --forbid '"GPU-' "$fixtures"/*.json doc.json || fail "a record is not valid against the schema"
    # A regraded record keeps its fingerprint.
    run --regrade "$fixtures/fingerprint-kvm-guest.json" --out regraded.json
    [ "$rc" -eq 0 ] || { cat err.txt >&2; fail "kvm guest fixture: exit $rc, expected 0"; }
    grep -q '"uuid_hash"' regraded.json || fail "the regraded document lost its fingerprint"
    "$SCHEMA_CHECK" "$SMOKE_SCHEMA" --forbid '"GPU-' regraded.json || fail "the regraded document is not valid against the schema"
    # A graded document with per-direction host copies and healthy figures merged in.
    run --regrade "$fixtures/d2h-wrong-numa.json" --out graded.json
    [ "$rc" -eq 1 ] || { cat err.txt >&2; fail "d2h-wrong-numa fixture: exit $rc, expected 1"; }
    grep -q '"healthy": 46.8' graded.json || fail "the graded D2H carries no healthy figure"
    "$SCHEMA_CHECK" "$SMOKE_SCHEMA" graded.json || fail "the graded document is not valid against the schema"
    ;;
  usage)
    run --expect h100-sxm9
    [ "$rc" -eq 2 ] && grep -q 'unknown SKU "h100-sxm9"; the catalogue has: .*h100-sxm5-80gb' err.txt || fail "unknown SKU accepted"
    run --count 0
    [ "$rc" -eq 2 ] && grep -q -- '--count takes a whole number from 1 to 64' err.txt || fail "--count 0 accepted"
    run --bogus
    [ "$rc" -eq 2 ] && grep -q 'unknown option --bogus' err.txt || fail "unknown option accepted"
    echo '{"gpus": [{"index": "zero"}]}' >bad.json
    run --regrade bad.json
    [ "$rc" -eq 2 ] && grep -q 'bad.json is not a neograde-gpu-smoke record' err.txt || { cat err.txt >&2; fail "a broken record was graded"; }
    run --list-skus
    [ "$rc" -eq 0 ] && [ "$(wc -l <out.txt)" -eq 12 ] || fail "--list-skus does not list the 12 SKUs"
    ;;
  portable)
    # Runs where only the driver is installed: no CUDA library is linked dynamically (cudart is
    # static, NVML and cuBLASLt are dlopen'ed), and glibc 2.34 (RHEL 9; Ubuntu 22.04 has 2.35) is enough.
    command -v objdump >/dev/null || { echo "no objdump"; exit 77; }
    # A sanitizer build carries its runtime: portability is checked on the build that ships.
    if objdump -t "$smoke" | grep '__asan_init' >/dev/null; then echo "a sanitizer build"; exit 77; fi
    needed=$(objdump -p "$smoke" | awk '/NEEDED/ {print $2}' | sort | tr '\n' ' ')
    for lib in $needed; do
      case "$lib" in libc.so.6|libm.so.6|libstdc++.so.6|libgcc_s.so.1|libdl.so.2|libpthread.so.0|librt.so.1|ld-linux-*) ;;
        *) fail "links $lib dynamically (needed: $needed)" ;;
      esac
    done
    newest=$(objdump -T "$smoke" | grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2 -n | tail -1)
    [ "${newest#GLIBC_2.}" -le 34 ] || fail "needs $newest; RHEL 9 has glibc 2.34, Ubuntu 22.04 2.35"
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
