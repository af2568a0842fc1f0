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
      (if .fuzz.one_connection then
         "| neograde fuzz on 1 connection, req/s (\(.fuzz.one_connection.reached_logic_share * 100 | floor)% reached operation logic) | \(.fuzz.one_connection.requests_per_s | f) | \(.fuzz.one_connection.peak_rss_mb) |"
       else empty end),
      "| neograde fuzz\(if .fuzz.connections then " on \(.fuzz.connections) connections" else "" end), req/s (\(.fuzz.reached_logic_share * 100 | floor)% reached operation logic) | \(.fuzz.requests_per_s | f) | \(.fuzz.peak_rss_mb) |",
      "| conformance of the catalogue, zero delays, s | \(.conformance.zero_delays.wall_s | f) | \(.conformance.zero_delays.peak_rss_mb) |",
      (.conformance.one_second_boots as $b
       | if $b.together_wall_s == null then "| conformance of the catalogue, 1 s boots, one after another, s | \($b.wall_s | f) | \($b.peak_rss_mb) |" else
         "| conformance of the catalogue (\($b.providers) providers), 1 s boots, all at once, s | \($b.together_wall_s | f) (\($b.together_wall_s / $b.slowest_alone_wall_s | . * 100 | floor / 100)x the slowest alone) | \($b.together_peak_rss_mb) |",
         "| the slowest provider alone (\($b.slowest_provider)), 1 s boots, s | \($b.slowest_alone_wall_s | f) | \($b.alone_peak_rss_mb) |",
         "| the catalogue one provider after another, 1 s boots, s | \($b.sequential_wall_s | f) | \($b.alone_peak_rss_mb) |" end),
      "", "| micro-benchmark (median) | time | throughput |", "|---|---:|---:|",
      (.micro[] | "| \(.name) | \(.ns / 1000 | f) µs | \(if .items_per_s then "\(.items_per_s | floor) items/s" elif .bytes_per_s then "\(.bytes_per_s / 1048576 | f) MiB/s" else "" end) |"),
      "", "| growth: work | size | wall (s) | per unit (ms) | peak RSS (MB) |", "|---|---:|---:|---:|---:|",
      ((.growth // [])[] | "| \(.work) | \(.size) | \(.wall_s | f) | \(.wall_s * 1000 / .size | f) | \(.peak_rss_mb) |")
  ' "$1"
}
if [ "${1:-}" = --table ]; then table "$2"; exit; fi


reps=${BENCH_REPS:-3}
secs=${BENCH_SECONDS:-10}
fuzz_requests=${BENCH_FUZZ_REQUESTS:-20000}
fuzz_connections=${BENCH_FUZZ_CONNECTIONS:-4}

# BENCH_BUILD=build/dev: measure another build tree as it is (a quick look; not for the table).
build=${BENCH_BUILD:-build/bench}
if [ -z "${BENCH_BUILD:-}" ]; then
  scripts/install-deps bench
  cmake --preset bench >/dev/null
  cmake --build --preset bench >/dev/null
fi
neograde=$build/app/neograde
work=$(mktemp -d)
emulator_pid=
emulators=()
cleanup() {
  [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null && wait "$emulator_pid" 2>/dev/null
  [ "${#emulators[@]}" -gt 0 ] && kill "${emulators[@]}" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Peak RSS in MB of a command (GNU time), its output kept in $work/out.
# A conformance run that found failures (exit 1) is measured like any other: PEAK_OK_RC=1.
peak_rss() {
  local rc=0
  /usr/bin/time -f '%M' -o "$work/rss" "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" -le "${PEAK_OK_RC:-0}" ] || { cat "$work/err" >&2; return 1; }
  tail -n1 "$work/rss" | awk '{ printf "%.1f", $1 / 1024 }'
}

# Lambda's emulator with these keys, rate limit off, zero delays: $emulator_pid, $base_url.
start_emulator() {
  "$neograde" emulate --provider lambda --keys "$1" --time-scale 0 --no-rate-limit >"$work/emulator.out" 2>"$work/emulator.err" &
  emulator_pid=$!
  for _ in $(seq 100); do [ -s "$work/emulator.out" ] && break; sleep 0.1; done
  base_url=$(head -n1 "$work/emulator.out")
  [ -n "$base_url" ] || { cat "$work/emulator.err" >&2; exit 1; }
}
stop_emulator() { kill "$emulator_pid"; wait "$emulator_pid" 2>/dev/null || true; emulator_pid=; }

# The emulator for the load figures: one account.
start_emulator bench-key
url="$base_url/instances"
auth="Authorization: Bearer bench-key"

echo "micro-benchmarks ($reps repetitions)..." >&2
"$build/bench/neograde-bench-micro" --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true \
  --benchmark_format=json --benchmark_out="$work/micro.json" --benchmark_out_format=json >/dev/null 2>&1
micro=$(jq '[.benchmarks[] | select(.aggregate_name == "median")
             | {name: (.run_name), ns: .real_time, time_unit, items_per_s: .items_per_second, bytes_per_s: .bytes_per_second}]' "$work/micro.json")

# The client as wrk runs: as many event loops (threads) as wrk's, each driving its share of the
# connections; like wrk, keeping no transcript (a conformance run keeps one: see BENCHMARKS.md).
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
        raw) rss=$(peak_rss "$build/bench/neograde-bench-load" --url "$url" --header "$auth" --connections "$conns" --seconds "$secs" \
                     --threads "$threads" --no-transcript)
             rate=$(jq .requests_per_s "$work/out") ;;
        typed) rss=$(peak_rss "$build/bench/neograde-bench-load" --spec lambda --base-url "$base_url" --api-key bench-key \
                       --connections "$conns" --seconds "$secs" --threads "$threads" --no-transcript)
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
stop_emulator

# A fresh emulator for each campaign: what one leaves (terminated instances) does not slow the next.
# fuzz CONNECTIONS REQUESTS SEED: a campaign's peak RSS; its footer in $work/fuzz/findings.jsonl.
fuzz() {
  local rc=0
  start_emulator fuzz-1,fuzz-2
  peak_rss "$neograde" fuzz --spec lambda --base-url "$base_url" --api-key fuzz-1 --second-api-key fuzz-2 \
    --seed "$3" --max-requests "$2" --connections "$1" --out "$work/fuzz" || rc=$?
  stop_emulator
  return "$rc"
}

# On one connection (a seed replays the campaign exactly) and on several.
declare -A fuzz_rate fuzz_share fuzz_rss
for conns in 1 "$fuzz_connections"; do
  echo "fuzz: $fuzz_requests requests on $conns connection(s) ($reps runs)..." >&2
  rates=() shares=()
  for seed in $(seq "$reps"); do
    fuzz_rss[$conns]=$(fuzz "$conns" "$fuzz_requests" "$seed")
    footer=$(tail -n1 "$work/fuzz/findings.jsonl")
    rates+=("$(jq .measurements.requests_per_s <<<"$footer")")
    shares+=("$(jq .measurements.reached_logic_share <<<"$footer")")
  done
  fuzz_rate[$conns]=$(printf '%s\n' "${rates[@]}" | median)
  fuzz_share[$conns]=$(printf '%s\n' "${shares[@]}" | median)
done

# The whole catalogue graded with zero delays: neograde demo (conformance of every spec against
# its embedded emulator, all at once, then the reports).
echo "conformance of the catalogue, zero delays ($reps runs)..." >&2
zero_walls=() zero_rss=0
for _ in $(seq "$reps"); do
  start=$(now)
  zero_rss=$(peak_rss "$neograde" demo --time-scale 0 --out "$work/demo0")
  zero_walls+=("$(add "$(now)" "-$start")")
done

# The whole catalogue with every boot taking 1 s, as a live grade would be run: one emulator per
# spec (its time scale 1 / its boot seconds; specs that boot at once keep 0.01), then one
# `neograde conformance` grading every provider at once, against each provider graded alone
# (the slowest of those bounds the concurrent run; their sum is what grading in sequence costs).
echo "conformance of the catalogue, 1 s boots ($reps runs)..." >&2
conformance_args=() ids=()
for spec in specs/providers/*.json; do
  id=$(jq -r .provider.id "$spec")
  scale=$(jq -r 'if (.emulator.boot_s // 0) > 0 then 1 / .emulator.boot_s else 0.01 end' "$spec")
  "$neograde" emulate --provider "$spec" --time-scale "$scale" >"$work/$id.emu.out" 2>"$work/$id.emu.err" &
  emulators+=($!)
  ids+=("$id")
done
for id in "${ids[@]}"; do
  for _ in $(seq 100); do [ -s "$work/$id.emu.out" ] && grep -q '^key: ' "$work/$id.emu.out" && break; sleep 0.1; done
  k1=$(sed -n 's/^key: //p' "$work/$id.emu.out" | sed -n 1p)
  k2=$(sed -n 's/^key: //p' "$work/$id.emu.out" | sed -n 2p)
  conformance_args+=(--spec "$id" --base-url "$id=$(head -n1 "$work/$id.emu.out")" --api-key "$id=$k1" --second-api-key "$id=$k2")
done
together_walls=() slowest_walls=() sequential_walls=() together_rss=0 alone_rss=0 slowest_id=
for _ in $(seq "$reps"); do
  start=$(now)
  together_rss=$(PEAK_OK_RC=1 peak_rss "$neograde" conformance "${conformance_args[@]}" --out "$work/together")
  together_walls+=("$(add "$(now)" "-$start")")
  slowest=0 sum=0
  for ((i = 0; i < ${#ids[@]}; i++)); do
    start=$(now)
    rss=$(PEAK_OK_RC=1 peak_rss "$neograde" conformance "${conformance_args[@]:$((i * 8)):8}" --out "$work/alone")
    wall=$(add "$(now)" "-$start")
    sum=$(add "$sum" "$wall")
    if awk -v a="$wall" -v b="$slowest" 'BEGIN { exit !(a > b) }'; then slowest=$wall slowest_id=${ids[$i]}; fi
    alone_rss=$(printf '%s\n' "$rss" "$alone_rss" | sort -g | tail -n1)
  done
  slowest_walls+=("$slowest")
  sequential_walls+=("$sum")
done
kill "${emulators[@]}" 2>/dev/null; wait "${emulators[@]}" 2>/dev/null || true
emulators=()

# How cost grows with the work: the catalogue (copies of the specs under new ids, graded with
# zero delays), a fuzz campaign's requests, and a report merging runs.
echo "growth: catalogue size, fuzz requests, runs merged..." >&2
growth='[]'
grow() { growth=$(jq --arg w "$1" --argjson n "$2" --argjson s "$3" --argjson rss "$4" '. + [{work: $w, size: $n, wall_s: $s, peak_rss_mb: $rss}]' <<<"$growth"); }
mapfile -t all_specs < <(ls specs/providers/*.json)
for n in 1 7 14 50; do
  dir=$work/specs-$n
  mkdir -p "$dir"
  for ((i = 0; i < n; i++)); do
    src=${all_specs[$((i % ${#all_specs[@]}))]}
    id=$(jq -r .provider.id "$src")
    [ "$i" -ge "${#all_specs[@]}" ] && id="$id-copy$((i / ${#all_specs[@]}))"
    jq --arg id "$id" '.provider.id = $id' "$src" >"$dir/$id.json"
  done
  start=$(now)
  rss=$(NEOGRADE_SPECS_DIR=$dir peak_rss "$neograde" demo --time-scale 0 --out "$work/grow-$n")
  grow catalogue_specs "$n" "$(add "$(now)" "-$start")" "$rss"
done
for n in 2000 20000 200000; do
  start=$(now)
  rss=$(fuzz "$fuzz_connections" "$n" 1)
  grow fuzz_requests "$n" "$(add "$(now)" "-$start")" "$rss"
done
# N runs: the zero-delay demo's runs (one per provider) repeated until there are N.
runs_in_demo=$(grep -c '"record":"header"' "$work/demo0/results.jsonl")
for n in 10 100 1000; do
  for ((i = 0; i < (n + runs_in_demo - 1) / runs_in_demo; i++)); do cat "$work/demo0/results.jsonl"; done |
    awk -v n="$n" '/"record":"header"/ { c++ } c <= n' >"$work/runs-$n.jsonl"
  start=$(now)
  rss=$(peak_rss "$neograde" report --in "$work/runs-$n.jsonl" --out "$work/report-$n")
  grow report_runs "$n" "$(add "$(now)" "-$start")" "$rss"
done

date=$(date +%F)
mkdir -p bench/results
out=bench/results/$date.json
# A second run on the same day keeps the first: the file of this one names its commit.
[ -e "$out" ] && out=bench/results/$date-$(git rev-parse --short HEAD).json
jq -n --arg date "$date" --arg commit "$(git rev-parse --short HEAD)" --arg cpu "$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)" \
  --argjson cores "$(nproc)" --argjson reps "$reps" --argjson secs "$secs" --argjson micro "$micro" --argjson load "$load_rows" \
  --argjson emulator_rss "$emulator_rss" \
  --argjson fuzz_rate "${fuzz_rate[$fuzz_connections]}" --argjson fuzz_share "${fuzz_share[$fuzz_connections]}" \
  --argjson fuzz_rss "${fuzz_rss[$fuzz_connections]}" --argjson fuzz_connections "$fuzz_connections" \
  --argjson fuzz1_rate "${fuzz_rate[1]}" --argjson fuzz1_share "${fuzz_share[1]}" --argjson fuzz1_rss "${fuzz_rss[1]}" \
  --argjson fuzz_requests "$fuzz_requests" \
  --argjson zero_s "$(printf '%s\n' "${zero_walls[@]}" | median)" --argjson zero_rss "$zero_rss" \
  --argjson together_s "$(printf '%s\n' "${together_walls[@]}" | median)" --argjson together_rss "$together_rss" \
  --argjson slowest_s "$(printf '%s\n' "${slowest_walls[@]}" | median)" --arg slowest_id "$slowest_id" \
  --argjson sequential_s "$(printf '%s\n' "${sequential_walls[@]}" | median)" --argjson alone_rss "$alone_rss" \
  --argjson providers "${#ids[@]}" --argjson growth "$growth" \
  '{date: $date, commit: $commit, machine: {cpu: $cpu, cores: $cores}, build: "Release (bench preset)",
    repetitions: $reps, seconds_per_load_run: $secs, micro: $micro, load: $load,
    emulator: {provider: "lambda", peak_rss_mb: $emulator_rss},
    fuzz: {provider: "lambda", requests: $fuzz_requests, connections: $fuzz_connections,
           requests_per_s: $fuzz_rate, reached_logic_share: $fuzz_share, peak_rss_mb: $fuzz_rss,
           one_connection: {requests_per_s: $fuzz1_rate, reached_logic_share: $fuzz1_share, peak_rss_mb: $fuzz1_rss}},
    conformance: {zero_delays: {wall_s: $zero_s, peak_rss_mb: $zero_rss},
                  one_second_boots: {providers: $providers, together_wall_s: $together_s, together_peak_rss_mb: $together_rss,
                                     slowest_alone_wall_s: $slowest_s, slowest_provider: $slowest_id,
                                     sequential_wall_s: $sequential_s, alone_peak_rss_mb: $alone_rss}},
    growth: $growth}' >"$out"

table "$out"
echo "wrote $out" >&2
