#!/usr/bin/env bash
# scripts/grade as the scheduled workflow runs it, on three emulators treated as live (lambda,
# digitalocean and the fictional bodgewell; runpod has no credentials and is skipped): two passes,
# so that the second has a previous run to diff. Checks the history (two runs per provider), the
# report's reliability section, the diff summary, and that every emulator has no instance left.
# Then a third pass with no spending budget (--max-spend 0, no --allow-spend): the read-only audit
# of every provider, kept in the history, which the emulators' own counts show created nothing (no
# create request, instance or SSH key more than before it).
# Usage: grade_test.sh NEOGRADE WORK_DIR
set -uo pipefail
neograde=$1 work=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v curl >/dev/null || { echo "SKIP: curl is not installed" >&2; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed" >&2; exit 77; }

providers=(lambda digitalocean bodgewell)
# No credential of another provider may leak in from the environment (emulators.sh clears them).
. "$here/tests/app/emulators.sh"
unset GITHUB_STEP_SUMMARY
for p in "${providers[@]}"; do start_emulator "$p" "$p" --time-scale 0.01 --no-rate-limit; done
declare -A origin
for p in "${providers[@]}"; do
  await_emulator "$p"
  origin[$p]=${emulator_origin[$p]}
  key=${emulator_key[$p]}
  upper=$(echo "$p" | tr 'a-z-' 'A-Z_')
  export "NEOGRADE_GRADE_BASE_URL_$upper=${emulator_base[$p]}"
  case "$p" in
    lambda) export LAMBDA_API_KEY=$key ;;
    digitalocean) export DIGITALOCEAN_TOKEN=$key ;;
    bodgewell) export BODGEWELL_API_KEY=$key ;;
  esac
done

grade() {
  local pass=$1
  shift
  "$here/scripts/grade" --neograde "$neograde" --providers lambda,digitalocean,bodgewell,runpod --treat-as-live \
    --history history --work "work$pass" --summary "summary$pass.md" "$@" >"grade$pass.out" 2>"grade$pass.err"
}
started=$(date +%s)
for pass in 1 2; do
  grade "$pass" || { cat "grade$pass.err" >&2; fail "pass $pass: scripts/grade exited $?"; }
  grep -q 'runpod skipped: RUNPOD_API_KEY is not set' "grade$pass.err" || fail "pass $pass: runpod was not skipped for want of credentials"
done
echo "two passes in $(($(date +%s) - started)) s"

for p in "${providers[@]}"; do
  n=$(find "history/$p" -name results.jsonl 2>/dev/null | wc -l)
  [ "$n" -eq 2 ] || { ls -R history >&2; fail "$p: $n run(s) in the history, expected 2"; }
  state=$(curl -sf "${origin[$p]}/_neograde/state") || fail "$p: no state from the emulator"
  live=$(echo "$state" | sed -n 's/.*"live_instances":\([0-9]*\).*/\1/p')
  created=$(echo "$state" | sed -n 's/.*"instances_created":\([0-9]*\).*/\1/p')
  [ "$live" = "0" ] || fail "$p: the emulator reports $live instance(s) not terminated"
  [ "${created:-0}" -ge 2 ] || fail "$p: only ${created:-0} instance(s) created: the runs did not launch as live runs"
  grep -q "^| $p | 0 | full | [01] | terminated and confirmed" summary2.md || { cat summary2.md >&2; fail "$p: no row in the summary"; }
done
[ -d history/runpod ] && fail "runpod, without credentials, is in the history"
report=work2/report
grep -q '<section id="reliability">' "$report/index.html" || fail "the report has no reliability section"
# One trend chart per provider, on its own page (the index has the table, linking to them).
charts=$(cat "$report"/providers/*.html | grep -o '<svg class="chart trend"' | wc -l)
[ "$charts" -eq 3 ] || fail "$charts trend chart(s) in the report, expected 3"
grep -q '^## Reliability over time' "$report/index.md" || fail "index.md has no reliability section"
grep -q '"reliability_version": 1' "$report/reliability.json" || fail "no reliability.json"
# One row per provider, two runs each (labelled emulated: --treat-as-live changes the rules, not the label).
[ "$(grep -cE '^\| [^|]+ \| emulated \| 2 \|' "$report/reliability.md")" -eq 3 ] ||
  fail "reliability.md does not count two runs of each provider: $(cat "$report/reliability.md")"
grep -q '^## neograde diff' summary2.md || fail "the second pass wrote no diff summary"
grep -q 'regression(s),' summary2.md || fail "the diff summary has no counts"
grep -q '^| added | ' summary1.md || fail "the first pass's diff does not say the providers are new"
# Two histories compared (the same one: nothing changed); an empty history is a usage error.
"$neograde" diff history history >same.out 2>same.err || { cat same.out same.err >&2; fail "diff of a history with itself failed"; }
grep -q '^0 regression(s), 0 improvement(s), 0 other change(s)' same.out || fail "a history differs from itself: $(cat same.out)"
# Every run kept the contract it met (the footer's contract_shape); the second pass met the same
# emulators as the first, so its answers drifted in nothing.
for p in "${providers[@]}"; do
  [ "$(grep -l '"contract_shape":{"operations":{' $(find "history/$p" -name results.jsonl) | wc -l)" -eq 2 ] ||
    fail "$p: not every run kept its contract_shape"
done
"$neograde" diff --history history >drift.out 2>drift.err
grep -q ' 0 contract drift(s)$' drift.out || fail "the same emulators twice drifted: $(grep '^drift' drift.out)"
mkdir -p empty
"$neograde" report --history empty --out empty-report >empty.out 2>empty.err
rc=$?
[ "$rc" -eq 2 ] && grep -q 'no complete run' empty.err || fail "report over an empty history: exit $rc, $(cat empty.err)"
# The sweep phase alone (the workflow's always() step) finds nothing left.
"$here/scripts/grade" sweep --neograde "$neograde" --providers lambda,digitalocean,bodgewell --work work2 >sweep.out 2>sweep.err ||
  { cat sweep.err >&2; fail "grade sweep failed"; }
[ "$(grep -c 'swept: terminated and confirmed 0' sweep.out)" -eq 3 ] || { cat sweep.out >&2; fail "grade sweep found something"; }

# The third pass: no spending budget, so the read-only audit of each provider.
counts() { curl -sf "${origin[$1]}/_neograde/state" | jq -c '{create_requests, instances_created, ssh_keys_created}'; }
declare -A before
for p in "${providers[@]}"; do
  before[$p]=$(counts "$p") || fail "$p: no state from the emulator"
  [ "$(echo "${before[$p]}" | jq .create_requests)" -gt 0 ] || fail "$p: the launching passes sent no create: ${before[$p]}"
done
grade 3 --max-spend 0 || { cat grade3.err >&2; fail "pass 3 (the audit): scripts/grade exited $?"; }
for p in "${providers[@]}"; do
  after=$(counts "$p")
  [ "$after" = "${before[$p]}" ] || fail "$p: the read-only audit created something: ${before[$p]} before, $after after"
  [ -f "work3/$p.preflight.out" ] && fail "$p: the audit pass ran preflight (a launching run's)"
  grep -q "^| $p | - | audit | [01] | terminated and confirmed" summary3.md || { cat summary3.md >&2; fail "$p: no audit row in the summary"; }
  n=$(find "history/$p" -name results.jsonl | wc -l)
  [ "$n" -eq 3 ] || fail "$p: $n run(s) in the history after the audit, expected 3"
  latest=$(find "history/$p" -name results.jsonl | sort | tail -1)
  head -1 "$latest" | jq -e '.read_only == true and .allow_spend == false' >/dev/null || fail "$p: the audit's header: $(head -1 "$latest")"
  tail -1 "$latest" | jq -e '.measurements.catalogue.rows > 0 and .measurements.api_traffic.requests > 0 and .measurements.spend.instances_created == 0' \
    >/dev/null || fail "$p: the audit's footer lacks its figures: $(tail -1 "$latest")"
  grep '"check_id":"lifecycle.instance.launch_returns_id"' "$latest" | grep '"reason":"not run: read-only audit' >/dev/null ||
    fail "$p: the launch is not reported as not run by the audit"
done
[ "$(grep -cE '^\| [^|]+ \| emulated \| 3 \|' work3/report/reliability.md)" -eq 3 ] ||
  fail "the report over the history does not count the audit: $(cat work3/report/reliability.md)"
echo "ok: grade"
