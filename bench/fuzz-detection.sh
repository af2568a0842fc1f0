#!/usr/bin/env bash
# bench/fuzz-detection.sh: requests to first detection per quirk. Runs the fuzz test suite's
# FuzzFindsQuirk cases (Lambda's emulator, seed 7, one connection, a virtual clock: the counts do
# not depend on this machine's speed) and prints a Markdown table of the requests the campaign had
# sent when each quirk was first seen, before shrinking: the currency against a real,
# rate-limited API (BENCHMARKS.md).
#
#   bench/fuzz-detection.sh [BUILD_DIR] [GTEST_FILTER]
#   bench/fuzz-detection.sh build/asan 'Quirks/FuzzFindsQuirk.*/capacity_refusal_500'
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/asan}
filter=${2:-Quirks/FuzzFindsQuirk.*}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/tests/fuzz_test" --gtest_filter="$filter" --gtest_output="json:$out/detection.json" >"$out/log" 2>&1 || {
  tail -n 40 "$out/log" >&2
  echo "fuzz-detection: some quirk was not found (above)" >&2
}
echo "| quirk | requests to first detection | at 5 requests/s (fuzz's default pace) |"
echo "|---|---:|---:|"
jq -r '.testsuites[].testsuite[] | select(.requests_to_detection != null)
       | (.name | split("/") | last) as $q | (.requests_to_detection | tonumber) as $n
       | "| \($q) | \($n) | \(($n / 5) | floor) s |"' "$out/detection.json"
