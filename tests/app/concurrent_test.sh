#!/usr/bin/env bash
# Several providers graded at once by one process (neograde conformance with several --spec),
# each against an emulator of its own started here:
#   equal_to_sequential  the concurrent run's per-provider results decide every check as each
#                        provider's run alone does (outcomes, headers and footers equal apart
#                        from run ids, times and ports), and its results.jsonl is theirs, joined
#   sigint_during_boots  live mode (--treat-as-live) on every emulator; SIGINT once every
#                        provider's instance is booting: exit 130, every run says it stopped, and
#                        every emulator counts no instance left
# Usage: concurrent_test.sh CASE NEOGRADE WORK_DIR
set -uo pipefail
case_name=$1 neograde=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v curl >/dev/null && command -v jq >/dev/null || { echo "SKIP: needs curl and jq" >&2; exit 77; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$here/tests/app/emulators.sh"

# Bearer keys (lambda, vastai), an API key in a header of its own (runpod), a paginated API
# (digitalocean): the runs share nothing but the process.
providers=(lambda runpod digitalocean vastai)
# Boots are long enough (time scale 0.1: 6 to 18 s) for the signal to find every instance booting.
scale=0.01
[ "$case_name" = sigint_during_boots ] && scale=0.1
# Whether the rate-limit probe meets a 429 within its 300 requests depends on how fast they go
# against a bucket that refills in real time: slower when four runs share the machine. Without
# the limit, the probe's checks are skipped alike in both runs, and every other check compared.
emulate_args=()
[ "$case_name" = equal_to_sequential ] && emulate_args=(--no-rate-limit)
run_pid=""
# A run still going when the script ends is killed outright, before the emulators are stopped.
cleanup() {
  [ -n "$run_pid" ] && kill -9 "$run_pid" 2>/dev/null
  stop_background
}
trap cleanup EXIT
# Starts an emulator of every provider, named by $1 (fresh state: an emulator's rate limit, for
# one, is spent by a run), and sets args to grade them all.
start_emulators() {
  local p
  args=()
  for p in "${providers[@]}"; do start_emulator "$p.$1" "$p" --time-scale "$scale" "${emulate_args[@]}"; done
  for p in "${providers[@]}"; do
    await_emulator "$p.$1"
    echo "${emulator_base[$p.$1]}" >"$p.base"
    args+=(--spec "$p" --base-url "$p=${emulator_base[$p.$1]}" --api-key "$p=${emulator_key[$p.$1]}"
      --second-api-key "$p=${emulator_second_key[$p.$1]}")
  done
}
start_emulators first
# The emulator's own count of instances not terminated.
live_instances() { curl -sf "$(sed -E 's|^(https?://[^/]+).*|\1|' "$1.base")/_neograde/state" | jq .live_instances; }

# One results.jsonl's decisions, without what differs between any two runs (ids, times, ports).
decisions() {
  jq -c 'if .record == "header" then del(.run_id, .started_at, .base_url)
         elif .record == "outcome" then {check_id, outcome}
         elif .record == "footer" then del(.finished_at, .measurements)
         else {record} end' "$1"
}

case "$case_name" in
  equal_to_sequential)
    "$neograde" conformance "${args[@]}" --jobs 4 --out together >together.out 2>together.err
    rc=$?
    [ "$rc" -le 1 ] || { cat together.err >&2; fail "the concurrent run: exit code $rc"; }
    start_emulators alone
    for ((i = 0; i < ${#providers[@]}; i++)); do
      p=${providers[$i]}
      "$neograde" conformance "${args[@]:$((i * 8)):8}" --out "alone/$p" >"alone.$p.out" 2>"alone.$p.err"
      [ "$?" -le 1 ] || { cat "alone.$p.err" >&2; fail "$p alone failed to run"; }
      for f in results.jsonl scorecard.json scorecard.md; do [ -s "together/providers/$p/$f" ] || fail "no providers/$p/$f"; done
      diff <(decisions "alone/$p/results.jsonl") <(decisions "together/providers/$p/results.jsonl") >&2 ||
        fail "$p graded at once with three others decides otherwise than alone"
      [ "$(grep -c '"record":"outcome"' "together/providers/$p/results.jsonl")" -ge 60 ] || fail "$p's run decided too few checks"
      grep -q "^$p (emulated): score" together.out || fail "no summary line for $p"
    done
    joined=$(for p in "${providers[@]}"; do cat "together/providers/$p/results.jsonl"; done)
    [ "$joined" = "$(cat together/results.jsonl)" ] || fail "results.jsonl is not the providers' results joined in order"
    for f in index.html index.md scorecard.json junit.xml matrix.csv; do [ -s "together/$f" ] || fail "no report file $f"; done
    [ "$(jq length together/scorecard.json)" -eq 4 ] || fail "the report does not hold four scorecards"
    # Given twice, or a per-provider value naming no given provider: refused before any request.
    "$neograde" conformance --spec lambda --spec lambda --out twice >twice.out 2>twice.err
    [ "$?" -eq 2 ] && grep -q 'given twice' twice.err || fail "a provider given twice was not refused"
    "$neograde" conformance --spec lambda --spec runpod --base-url "nobody=http://127.0.0.1:9" --out bad >bad.out 2>bad.err
    [ "$?" -eq 2 ] && grep -q 'takes ID=VALUE' bad.err || fail "--base-url naming no given provider was not refused"
    ;;
  sigint_during_boots)
    NEOGRADE_LIVE=1 "$neograde" conformance "${args[@]}" --allow-spend --treat-as-live --journal "$work/journal.jsonl" \
      --out out </dev/null >run.out 2>run.err &
    run_pid=$!
    for p in "${providers[@]}"; do
      for _ in $(seq 600); do
        [ "$(live_instances "$p")" -ge 1 ] 2>/dev/null && break
        kill -0 "$run_pid" 2>/dev/null || { cat run.err >&2; fail "the run ended before $p's instance was booting"; }
        sleep 0.1
      done
      [ "$(live_instances "$p")" -ge 1 ] || fail "$p's instance never booted"
    done
    kill -INT "$run_pid"
    wait "$run_pid"
    rc=$?
    run_pid=""
    [ "$rc" -eq 130 ] || { cat run.err >&2; fail "exit code $rc, expected 130"; }
    # Before any started: what the four live runs, each with its own budget, may spend in all.
    grep -q '4 live runs at once, each with its own budget: up to 4 x 1 instance(s) and \$20.00 estimated in all' run.err ||
      fail "the run did not say what the four live runs may spend in all"
    for p in "${providers[@]}"; do
      [ "$(live_instances "$p")" = 0 ] || { cat run.err >&2; fail "the $p emulator reports $(live_instances "$p") instance(s) not terminated"; }
      grep -q '"stopped":"stopped by SIGINT after ' "out/providers/$p/results.jsonl" || fail "$p's results do not say the run stopped"
      grep -q '"check_id":"lifecycle.run.nothing_left_behind".*"outcome":"pass"' "out/providers/$p/results.jsonl" ||
        fail "$p's results have no passing leak check"
      if grep -q '"outcome":"fail"' "out/providers/$p/results.jsonl"; then fail "the stopped run graded a failure of $p"; fi
    done
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "PASS: $case_name"
