#!/usr/bin/env bash
# Builds neograde-gpu-smoke on its own and runs it on this machine's GPUs with the reference
# comparison (a plain cudaMemcpy device-to-device copy, cuBLASLt's best algorithm): writes
# gpu_smoke/results/<date>-<gpu>.json and prints each figure beside its reference.
# Needs CUDA (nvcc) and nlohmann-json; about a minute to build on 16 cores, 90 s to run.
# Usage: gpu_smoke/run_on_gpu.sh [--expect SKU --count N]   (BUILD_DIR overrides build/gpu-smoke)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build/gpu-smoke}
start=$(date +%s)

if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root/gpu_smoke" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DNEOGRADE_CUDA=ON >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log" >&2; exit 2; }
cmake --build "$build" -j "$(nproc)"
echo "built in $(( $(date +%s) - start )) s" >&2

# cuBLASLt from the toolkit when the loader does not know it.
if [ -z "${NEOGRADE_CUBLASLT:-}" ] && ! ldconfig -p 2>/dev/null | grep libcublasLt.so.13 >/dev/null; then
  for f in /usr/local/cuda/lib64/libcublasLt.so.13 /usr/local/cuda/targets/*/lib/libcublasLt.so.13; do
    [ -e "$f" ] && { export NEOGRADE_CUBLASLT=$f; break; }
  done
fi

out=$(mktemp "$root/gpu_smoke/results/.run-XXXXXX")
set +e
"$build/neograde-gpu-smoke" --reference --out "$out" "$@"
rc=$?
set -e
if [ "$rc" -eq 77 ] || [ ! -s "$out" ]; then rm -f "$out"; echo "no GPU here (exit $rc)" >&2; exit "$rc"; fi

gpu=$(sed -n 's/^ *"name": "\(NVIDIA [^"]*\)",$/\1/p' "$out" | head -1 | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-')
result="$root/gpu_smoke/results/$(date -u +%F)-${gpu:-gpu}.json"
mv "$out" "$result"
echo "wrote $result (exit $rc) in $(( $(date +%s) - start )) s" >&2

# Each measured figure beside its reference; within 10% is the goal.
python3 - "$result" <<'PY' || true
import json, sys
doc = json.load(open(sys.argv[1]))
print(f"{'GPU':>3}  {'measurement':<10} {'ours':>10} {'reference':>10} {'ratio':>6}  reference")
for g in doc["gpus"]:
    for name, m in sorted(g["measurements"].items()):
        ref = m.get("reference")
        if ref:
            flag = "" if 0.9 <= ref["ratio"] <= 1.1 else "  <-- more than 10% apart"
            print(f"{g['index']:>3}  {name:<10} {m['value']:>10.1f} {ref['value']:>10.1f} {ref['ratio']:>6.3f}  {ref['what']}{flag}")
            if "first_algorithm_short_runs" in ref:
                first = ref["first_algorithm_short_runs"]
                print(f"{'':>3}  {'':<10} {'':>10} {first:>10.1f} {m['value'] / first:>6.3f}  the same algorithm in ten short runs")
PY
exit "$rc"
