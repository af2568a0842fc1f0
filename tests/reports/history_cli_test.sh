#!/usr/bin/env bash
# `neograde history add`, `report --history` and `diff` on a synthetic history of 30 runs of one
# provider (the same as tests/reports/history_test.cpp's: launches that fail on runs 9, 18 and 27,
# capacity refusals, a flipping check, time to running drifting up 1 s a day), written as
# results.jsonl files in the real format, plus one torn run.
# Usage: history_cli_test.sh NEOGRADE WORK_DIR
set -uo pipefail
neograde=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }

# run I: results.jsonl of run I (0..29), one a day in November 2026.
run() {
  local i=$1 day started succeeded failed=0 attempts=1 cap=0 quota=0 err=0 running ssh kernel answered=true outcome=pass
  day=$(printf '%02d' $((i + 1)))
  started="2026-11-${day}T06:00:00Z"
  [ "$i" -ge 3 ] && [ $((i % 9)) -eq 0 ] && failed=1
  [ $((i % 5)) -eq 0 ] && { cap=1; attempts=2; }
  [ "$i" -eq 9 ] && { quota=2; attempts=2; }
  [ "$i" -eq 18 ] && { err=1; attempts=1; answered=false; }
  [ "$i" -eq 27 ] && { cap=3; attempts=3; }
  [ "$failed" -eq 1 ] && outcome=fail
  [ "$i" -eq 1 ] && outcome=errored  # run 1: the API answered nothing
  echo "{\"record\":\"header\",\"suite\":\"neograde\",\"run_id\":\"run-$i\",\"provider\":\"lambda\",\"display_name\":\"Lambda Cloud\",\"source\":\"live\",\"started_at\":\"$started\"}"
  echo "{\"record\":\"outcome\",\"provider\":\"lambda\",\"check_id\":\"lifecycle.instance.reaches_running\",\"category\":\"lifecycle\",\"severity\":\"high\",\"outcome\":\"$outcome\",\"reason\":\"r\",\"source\":\"live\",\"evidence\":[]}"
  if [ "$i" -lt 3 ]; then
    echo '{"record":"footer","provider":"lambda","measurements":{},"complete":true}'
    return
  fi
  if [ "$failed" -eq 1 ]; then running=null ssh=null kernel=null succeeded=false; else
    running=$((60 + i)) ssh=$((80 + i)) succeeded=true
    if [ "$i" -ge 10 ]; then kernel=$((90 + i)); else kernel=null; fi
  fi
  echo "{\"record\":\"footer\",\"provider\":\"lambda\",\"measurements\":{\"developer_experience\":{\"launch_requested_at\":\"$started\",\"running_at\":null,\"ssh_at\":null,\"first_kernel_at\":null,\"time_to_running_s\":$running,\"time_to_ssh_s\":$ssh,\"time_to_first_kernel_s\":$kernel,\"launch_attempts\":$attempts,\"launch_refused\":{\"capacity\":$cap,\"quota\":$quota,\"error\":$err},\"launch_succeeded\":$succeeded,\"api_answered\":$answered}},\"complete\":true}"
}

for i in $(seq 0 29); do
  mkdir -p "in/$i" && run "$i" >"in/$i/results.jsonl"
  "$neograde" history add --history all --in "in/$i" >add.out 2>&1 || { cat add.out >&2; fail "history add of run $i failed"; }
  if [ "$i" -lt 15 ]; then "$neograde" history add --history first --in "in/$i/results.jsonl" >/dev/null 2>&1 || fail "history add $i"; fi
done
[ -f all/lambda/live/20261130T060000Z-run-29/results.jsonl ] || { find all | head >&2; fail "the history layout is not provider/source/date-run"; }
# Appending the same run again adds nothing and overwrites nothing (exit 1: nothing added).
"$neograde" history add --history all --in in/29 >again.out 2>&1 && fail "a run appended twice was accepted"
grep -q 'already in the history' again.out || fail "the second append does not say why: $(cat again.out)"
# A torn run in the folder is skipped with a note.
mkdir -p all/lambda/live/20261201T000000Z-torn && run 5 | head -2 >all/lambda/live/20261201T000000Z-torn/results.jsonl

"$neograde" report --history all --out report >report.out 2>report.err || { cat report.err >&2; fail "report --history failed"; }
grep -q 'skipped (torn: no footer)' report.err || fail "the torn run was not noted: $(cat report.err)"
grep -q 'reliability over 30 run(s)' report.out || fail "report: $(cat report.out)"
grep -q '^| Lambda Cloud (live) | live | 30 | 88.9% (24/27) | 31.4% (11/35; capacity 8, error 1, quota 2) | 93.3% (28/30) | 75 / 88 (n=24) | 95 / 108 (n=24) | 109 / 119 (n=18) | 1 |$' report/index.md ||
  fail "index.md lacks the reliability row: $(grep -A3 'Reliability over time' report/index.md)"
grep -q '<section id="reliability">' report/index.html || fail "index.html has no reliability section"
# The index has the table, each provider linked to its history; the trend chart is on its page.
grep -q '<tr data-provider="lambda"><td><a href="providers/lambda-live.html#provider-lambda-history">' report/index.html ||
  fail "the reliability table does not link lambda to its history"
[ "$(grep -c '<svg class="chart trend"' report/index.html)" -eq 0 ] || fail "index.html still carries the trend charts"
[ "$(grep -c '<svg class="chart trend"' report/providers/lambda-live.html)" -eq 1 ] || fail "lambda's page has no trend chart"
grep -q 'id="provider-lambda-history"' report/providers/lambda-live.html || fail "lambda's page has no history heading"
[ "$(grep -o 'class="launch-failed"' report/providers/lambda-live.html | wc -l)" -eq 3 ] ||
  fail "the three failed launches are not marked on the trend"
if grep -qi '<script' report/index.html report/providers/*.html; then fail "the report has a script"; fi
grep -q '"percentile_method": "nearest-rank"' report/reliability.json || fail "reliability.json lacks the percentile method"

# diff: the first 15 runs against all 30. Within the default thresholds nothing is reported
# (success rate -2.8 points, p95 +19 %); with tighter ones, regressions and exit 1; reversed, improvements.
"$neograde" diff first all >diff.out 2>&1 || { cat diff.out >&2; fail "diff within the default thresholds reported a regression"; }
grep -q 'reliability\.' diff.out && fail "a figure within the thresholds was reported: $(cat diff.out)"
"$neograde" diff first all --success-rate-points 1 --p95-percent 10 --markdown summary.md >tight.out 2>&1
rc=$?
[ "$rc" -eq 1 ] || { cat tight.out >&2; fail "diff with tight thresholds: exit $rc, expected 1"; }
grep -qP '^regression\tlambda \(live\)\treliability.launch_success_rate\t91.7% -> 88.9%' tight.out || fail "no success-rate regression: $(cat tight.out)"
grep -qP '^regression\tlambda \(live\)\treliability.p95.time_to_running_s\t74 s -> 88 s' tight.out || fail "no p95 regression: $(cat tight.out)"
grep -q '^| regression | lambda | live | `reliability.launch_success_rate` |' summary.md || fail "the Markdown summary lacks the regression"
"$neograde" diff all first --success-rate-points 1 --p95-percent 10 >back.out 2>&1 || fail "the reverse diff found a regression: $(cat back.out)"
grep -qP '^improvement\tlambda \(live\)\treliability.launch_success_rate' back.out || fail "no improvement: $(cat back.out)"
# --history: the latest run (29, a successful launch) against the 29 before it.
"$neograde" diff --history all >latest.out 2>&1
rc=$?
[ "$rc" -le 1 ] && grep -q 'regression(s)' latest.out || fail "diff --history: exit $rc, $(cat latest.out)"
grep -q ' 0 contract drift(s)$' latest.out || fail "runs without contract_shape reported drift: $(cat latest.out)"

# Contract drift (issue 40.3): three runs of a fictional provider whose footers keep the contract
# they met. Runs 1 and 2 match; run 3's instances lost the field ip and read a status word never
# read before. Both are reported, not graded (exit 0); a history of the two matching runs, nothing.
shape_run() {
  local i=$1 fields=$2 words=$3
  echo "{\"record\":\"header\",\"suite\":\"neograde\",\"run_id\":\"shape-$i\",\"provider\":\"bodgenet\",\"display_name\":\"Bodgenet\",\"source\":\"emulated\",\"started_at\":\"2026-12-0${i}T06:00:00Z\"}"
  echo '{"record":"outcome","provider":"bodgenet","check_id":"auth.key.required","category":"auth","severity":"critical","outcome":"pass","reason":"r","source":"emulated","evidence":[]}'
  echo "{\"record\":\"footer\",\"provider\":\"bodgenet\",\"complete\":true,\"measurements\":{\"contract_shape\":{\"operations\":{\"list\":{\"statuses\":[200],\"fields\":[\"\",\"/instances\",\"/instances/*\"$fields]}},\"status_words\":[$words]}}}"
}
all_fields=',"/instances/*/id","/instances/*/ip","/instances/*/status"'
for i in 1 2 3; do
  mkdir -p "shape/$i"
  if [ "$i" -lt 3 ]; then shape_run "$i" "$all_fields" '"active","booting"'; else
    shape_run "$i" ',"/instances/*/id","/instances/*/status"' '"active","booting","degraded"'; fi >"shape/$i/results.jsonl"
  "$neograde" history add --history drifted --in "shape/$i" >/dev/null 2>&1 || fail "history add of shape run $i"
  [ "$i" -lt 3 ] && { "$neograde" history add --history steady --in "shape/$i" >/dev/null 2>&1 || fail "history add of shape run $i"; }
done
"$neograde" diff --history drifted --markdown drift.md >drift.out 2>&1 || { cat drift.out >&2; fail "diff --history: contract drift is not a regression"; }
grep -qP '^drift\tbodgenet \(emulated\)\tdrift.field_vanished\tpresent -> absent\tfield /instances/\*/ip vanished in list answers: present in the previous run \(run shape-2, 2026-12-02T06:00:00Z\)$' drift.out ||
  fail "the vanished field is not reported: $(cat drift.out)"
grep -qP '^drift\tbodgenet \(emulated\)\tdrift.status_word_new\t- -> degraded\tinstance status word "degraded" never read before' drift.out ||
  fail "the new status word is not reported: $(cat drift.out)"
grep -q ' 2 contract drift(s)$' drift.out || fail "diff --history counts: $(tail -1 drift.out)"
grep -q '^| drift | bodgenet | emulated | `drift.field_vanished` |' drift.md || fail "the Markdown summary lacks the drift"
"$neograde" diff --history steady >steady.out 2>&1 || fail "diff --history of an unchanged history: $(cat steady.out)"
grep -q '^0 regression(s), 0 improvement(s), 0 other change(s), 0 contract drift(s)$' steady.out || fail "an unchanged history drifted: $(cat steady.out)"
# The report shows it beside the trend chart, and in reliability.json.
"$neograde" report --history drifted --out drift-report >/dev/null 2>&1 || fail "report --history drifted"
sed -n '/<svg class="chart trend" data-provider="bodgenet"/,$p' drift-report/providers/bodgenet.html |
  grep '<div class="drift" data-provider="bodgenet"' >/dev/null || fail "the drift is not beside bodgenet's trend chart"
grep -qF '<tr data-kind="field_vanished"><td>field_vanished</td><td>list</td><td><code>/instances/*/ip</code>' drift-report/providers/bodgenet.html ||
  fail "the report's drift table lacks the vanished field"
grep -q 'Contract drift: 2 change(s)' drift-report/reliability.md || fail "reliability.md lacks the drift"
grep -q '"kind": "status_word_new"' drift-report/reliability.json || fail "reliability.json lacks the drift"
# End to end, on the embedded emulator: a run of Lambda's, then one whose booting instances report a
# status word Lambda does not document (and never run): that word is the drift, and only that.
"$neograde" demo --only lambda --out e2e-before >/dev/null 2>&1 || fail "demo of lambda"
"$neograde" demo --only lambda --quirk lambda:unknown_status_word --out e2e-after >/dev/null 2>&1 || fail "demo of lambda with a quirk"
"$neograde" diff e2e-before/providers/lambda e2e-after/providers/lambda >e2e.out 2>&1
[ "$(grep -c '^drift' e2e.out)" -eq 1 ] && grep -qP '^drift\tlambda \(emulated\)\tdrift.status_word_new\t- -> ' e2e.out ||
  fail "the undocumented status word is not the one drift: $(grep '^drift' e2e.out)"
"$neograde" diff e2e-before/providers/lambda e2e-before/providers/lambda >e2e-same.out 2>&1
grep -q ' 0 contract drift(s)$' e2e-same.out || fail "a run drifted from itself: $(cat e2e-same.out)"
echo "ok: history"
