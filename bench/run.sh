#!/usr/bin/env bash
# bench/run.sh: builds the bench preset (Release) and measures neograde end to end on this
# machine; prints a table and writes bench/results/<date>.json. BENCHMARKS.md explains each row.
#
#   bench/run.sh            # 3 repetitions of 10 s per load figure (about 6 minutes)
#   BENCH_REPS=1 BENCH_SECONDS=3 bench/run.sh   # a quick look
#
# Every figure is the median of BENCH_REPS runs. The emulator serves Lambda's spec with its rate
# limit off and zero delays; wrk (Debian's) is the reference for what this machine's loopback
# can carry on the same endpoint with the same connections.
set -euo pipefail
cd "$(dirname "$0")/.."

# The table of a results file (also: bench/run.sh --table bench/results/<date>.json).
table() {
  jq -r '
    def f: if . >= 100 then (. | floor | tostring) else ((. * 100 | floor) / 100 | tostring) end;
    def wrk($c): [.load[] | select(.tool == "wrk" and .connections == $c)][0].requests_per_s;
    . as $r
    | "| figure | value | peak RSS (MB) |", "|---|---:|---:|",
      (.load[] | .connections as $c
       | "| \(.tool) on \($c) connection(s), req/s | \(.requests_per_s | f)\(if .tool != "wrk" then " (\((100 * .requests_per_s / ($r | wrk($c))) | floor)% of wrk)" else "" end) | \(.peak_rss_mb) |"),
      "| emulator under wrk, 32 connections, req/s | \(wrk(32) | f) | \(.emulator.peak_rss_mb) |",
      "| neograde fuzz, req/s (\(.fuzz.reached_logic_share * 100 | floor)% reached operation logic) | \(.fuzz.requests_per_s | f) | \(.fuzz.peak_rss_mb) |",
      "| conformance of the catalogue, zero delays, s | \(.conformance.zero_delays.wall_s | f) | \(.conformance.zero_delays.peak_rss_mb) |",
      "| conformance of the catalogue, 1 s boots, s | \(.conformance.one_second_boots.wall_s | f) | \(.conformance.one_second_boots.peak_rss_mb) |",
      "", "| micro-benchmark (median) | time | throughput |", "|---|---:|---:|",
      (.micro[] | "| \(.name) | \(.ns / 1000 | f) µs | \(if .items_per_s then "\(.items_per_s | floor) items/s" elif .bytes_per_s then "\(.bytes_per_s / 1048576 | f) MiB/s" else "" end) |")
  ' "$1"
}
if [ "${1:-}" = --table ]; then table "$2"; exit; fi


reps=${BENCH_REPS:-3}
secs=${BENCH_SECONDS:-10}
fuzz_requests=${BENCH_FUZZ_REQUESTS:-20000}

scripts/install-deps bench
cmake --preset bench >/dev/null
cmake --build --preset bench >/dev/null
build=build/bench
neograde=$build/app/neograde
work=$(mktemp -d)
emulator_pid=
cleanup() {
  [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null && wait "$emulator_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Peak RSS in MB of a command (GNU time), its output kept in $work/out.
peak_rss() { /usr/bin/time -f '%M' -o "$work/rss" "$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; return 1; }; awk '{ printf "%.1f", $1 / 1024 }' "$work/rss"; }

# The emulator for the load figures: one account, rate limit off, zero delays.
"$neograde" emulate --provider lambda --keys bench-key --time-scale 0 --no-rate-limit >"$work/emulator.out" 2>"$work/emulator.err" &
emulator_pid=$!
for _ in $(seq 100); do [ -s "$work/emulator.out" ] && break; sleep 0.1; done
base_url=$(head -n1 "$work/emulator.out")
[ -n "$base_url" ] || { cat "$work/emulator.err" >&2; exit 1; }
url="$base_url/instances"
auth="Authorization: Bearer bench-key"

echo "micro-benchmarks ($reps repetitions)..." >&2
"$build/bench/neograde-bench-micro" --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true \
  --benchmark_format=json --benchmark_out="$work/micro.json" --benchmark_out_format=json >/dev/null 2>&1
micro=$(jq '[.benchmarks[] | select(.aggregate_name == "median")
             | {name: (.run_name), ns: .real_time, time_unit, items_per_s: .items_per_second, bytes_per_s: .bytes_per_second}]' "$work/micro.json")

load_rows='[]'
for conns in 1 32; do
  threads=$((conns < 2 ? 1 : 2))
  for mode in wrk raw typed; do
    echo "load: $mode on $conns connection(s) ($reps x ${secs}s)..." >&2
    rates=() rss=0
    for _ in $(seq "$reps"); do
      case $mode in
        wrk) rss=$(peak_rss wrk -t"$threads" -c"$conns" -d"${secs}s" -H "$auth" "$url")
             rate=$(awk '/^Requests\/sec:/ { print $2 }' "$work/out") ;;
        raw) rss=$(peak_rss "$build/bench/neograde-bench-load" --url "$url" --header "$auth" --connections "$conns" --seconds "$secs")
             rate=$(jq .requests_per_s "$work/out") ;;
        typed) rss=$(peak_rss "$build/bench/neograde-bench-load" --spec lambda --base-url "$base_url" --api-key bench-key \
                       --connections "$conns" --seconds "$secs")
               rate=$(jq .requests_per_s "$work/out") ;;
      esac
      rates+=("$rate")
    done
    rate=$(printf '%s\n' "${rates[@]}" | median)
    load_rows=$(jq --arg m "$mode" --argjson c "$conns" --argjson r "$rate" --argjson rss "$rss" \
      '. + [{tool: $m, connections: $c, requests_per_s: $r, peak_rss_mb: $rss}]' <<<"$load_rows")
  done
done
emulator_rss=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$emulator_pid/status")
kill "$emulator_pid"; wait "$emulator_pid" 2>/dev/null || true; emulator_pid=

echo "fuzz: $fuzz_requests requests ($reps runs)..." >&2
"$neograde" emulate --provider lambda --keys fuzz-1,fuzz-2 --time-scale 0 --no-rate-limit >"$work/emulator.out" 2>"$work/emulator.err" &
emulator_pid=$!
for _ in $(seq 100); do [ -s "$work/emulator.out" ] && break; sleep 0.1; done
base_url=$(head -n1 "$work/emulator.out")
fuzz_rates=() fuzz_share=() fuzz_rss=0
for seed in $(seq "$reps"); do
  fuzz_rss=$(peak_rss "$neograde" fuzz --spec lambda --base-url "$base_url" --api-key fuzz-1 --second-api-key fuzz-2 \
               --seed "$seed" --max-requests "$fuzz_requests" --out "$work/fuzz")
  footer=$(tail -n1 "$work/fuzz/findings.jsonl")
  fuzz_rates+=("$(jq .measurements.requests_per_s <<<"$footer")")
  fuzz_share+=("$(jq .measurements.reached_logic_share <<<"$footer")")
done
kill "$emulator_pid"; wait "$emulator_pid" 2>/dev/null || true; emulator_pid=

# The whole catalogue graded against its emulators (neograde demo: conformance of every spec,
# then the reports), with zero delays and with every boot taking 1 s (each spec's time scale
# is 1 / its emulator's boot seconds; specs that boot at once keep a scale of 0.01).
echo "conformance of the catalogue ($reps runs each)..." >&2
zero_walls=() zero_rss=0
for _ in $(seq "$reps"); do
  start=$(now)
  zero_rss=$(peak_rss "$neograde" demo --time-scale 0 --out "$work/demo0")
  zero_walls+=("$(add "$(now)" "-$start")")
done
boot_walls=() boot_rss=0
for _ in $(seq "$reps"); do
  total=0
  for spec in specs/providers/*.json; do
    id=$(jq -r .provider.id "$spec")
    scale=$(jq -r 'if (.emulator.boot_s // 0) > 0 then 1 / .emulator.boot_s else 0.01 end' "$spec")
    start=$(now)
    rss=$(peak_rss "$neograde" demo --only "$id" --time-scale "$scale" --out "$work/demo1")
    total=$(add "$total" "$(add "$(now)" "-$start")")
    boot_rss=$(printf '%s\n' "$rss" "$boot_rss" | sort -g | tail -n1)
  done
  boot_walls+=("$total")
done

date=$(date +%F)
mkdir -p bench/results
out=bench/results/$date.json
jq -n --arg date "$date" --arg commit "$(git rev-parse --short HEAD)" --arg cpu "$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)" \
  --argjson cores "$(nproc)" --argjson reps "$reps" --argjson secs "$secs" --argjson micro "$micro" --argjson load "$load_rows" \
  --argjson emulator_rss "$emulator_rss" \
  --argjson fuzz_rate "$(printf '%s\n' "${fuzz_rates[@]}" | median)" --argjson fuzz_share "$(printf '%s\n' "${fuzz_share[@]}" | median)" \
  --argjson fuzz_requests "$fuzz_requests" --argjson fuzz_rss "$fuzz_rss" \
  --argjson zero_s "$(printf '%s\n' "${zero_walls[@]}" | median)" --argjson zero_rss "$zero_rss" \
  --argjson boot_s "$(printf '%s\n' "${boot_walls[@]}" | median)" --argjson boot_rss "$boot_rss" \
  '{date: $date, commit: $commit, machine: {cpu: $cpu, cores: $cores}, build: "Release (bench preset)",
    repetitions: $reps, seconds_per_load_run: $secs, micro: $micro, load: $load,
    emulator: {provider: "lambda", peak_rss_mb: $emulator_rss},
    fuzz: {provider: "lambda", requests: $fuzz_requests, requests_per_s: $fuzz_rate, reached_logic_share: $fuzz_share, peak_rss_mb: $fuzz_rss},
    conformance: {zero_delays: {wall_s: $zero_s, peak_rss_mb: $zero_rss}, one_second_boots: {wall_s: $boot_s, peak_rss_mb: $boot_rss}}}' >"$out"

table "$out"
echo "wrote $out" >&2
