#!/usr/bin/env bash
# The grading workflow spread over machines (.github/workflows/grade.yml), on emulators treated as
# live: four jobs, each with its own work dir and only its own credentials (given in slots, as
# the matrix gives them: --env-slots), then `scripts/grade merge` as the publish job runs it.
#   lambda        a launching run, which finishes;
#   digitalocean  the read-only audit, which finishes;
#   runpod        a launching run stopped by SIGTERM once it has created its instance (a job that
#                 reached its time limit): what it created is torn down and swept; the run, stopped,
#                 still writes its results (as `neograde conformance` does on a signal), but the job
#                 never writes its summary row, and the partial run is not a grade;
#   vastai        a job killed outright (made up: only results.jsonl.part, as such a run leaves);
#   cudo          no credentials: skipped;
#   tensordock    no work dir at all (a job that failed before grading).
# merge adds the finished runs to the history (and their run id to <history>/<provider>/run-ids),
# builds the report, names runpod and vastai as not finished (their runs left out) and
# tensordock as without output in the summary, and exits 1; merged again, it adds nothing twice. A job run again with the same --run-id (in its work dir before the merge, or in a
# fresh one after it) launches nothing: the emulator's count of create requests stays the same.
# Nothing prints a credential.
# Usage: grade_merge_test.sh NEOGRADE WORK_DIR
set -uo pipefail
neograde=$1 work=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v curl >/dev/null || { echo "SKIP: curl is not installed" >&2; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed" >&2; exit 77; }

# No credential may leak in from the environment (emulators.sh clears them): each job gets its own in slots.
. "$here/tests/app/emulators.sh"
for var in $(compgen -v | grep -E '^NEOGRADE_VAR_'); do unset "$var"; done
unset GITHUB_STEP_SUMMARY
export NEOGRADE_SPECS_DIR=$here/specs/providers

# runpod's instances never boot, and its emulator's delays are a twentieth of the real ones: its
# run waits for the boot long enough to be stopped while it waits.
declare -A origin key
for p in lambda digitalocean runpod; do
  extra=(--time-scale 0.01)
  [ "$p" = runpod ] && extra=(--time-scale 0.05 --quirk stuck_booting)
  start_emulator "$p" "$p" --no-rate-limit "${extra[@]}"
done
for p in lambda digitalocean runpod; do
  await_emulator "$p"
  origin[$p]=${emulator_origin[$p]}
  key[$p]=${emulator_key[$p]}
  export "NEOGRADE_GRADE_BASE_URL_$(echo "$p" | tr 'a-z-' 'A-Z_')=${emulator_base[$p]}"
done
state() { curl -sf "${origin[$1]}/_neograde/state"; }
creates() { state "$1" | jq .create_requests; }

run_id=2026-12-06
mkdir -p history-ro
# One grading job: scripts/grade as grade.yml's job runs it, the credential in slot 1.
job() {
  local p=$1 dir=$2 var=$3 secret=$4
  shift 4
  NEOGRADE_VAR_1_NAME=$var NEOGRADE_VAR_1=$secret NEOGRADE_VAR_2_NAME="" NEOGRADE_VAR_2="" \
    "$here/scripts/grade" run --job --env-slots --providers "$p" --run-id "$run_id" --treat-as-live \
    --neograde "$neograde" --history history-ro --work "$dir" --summary "$dir.summary.md" "$@" >"$dir.out" 2>"$dir.err"
}

job lambda job-lambda LAMBDA_API_KEY "${key[lambda]}"
rc=$?
[ "$rc" -eq 0 ] || { cat job-lambda.err >&2; fail "the lambda job exited $rc"; }
grep -q 'slot 1: LAMBDA_API_KEY set' job-lambda.err || fail "the lambda job did not take its credential from slot 1"
[ -f job-lambda/runs/lambda/results.jsonl ] || fail "the lambda job left no finished run"
[ "$(creates lambda)" -ge 1 ] || fail "the lambda job did not launch: $(state lambda)"
job digitalocean job-digitalocean DIGITALOCEAN_TOKEN "${key[digitalocean]}" --read-only ||
  { cat job-digitalocean.err >&2; fail "the digitalocean job failed"; }
[ "$(creates digitalocean)" -eq 0 ] || fail "the digitalocean audit created something: $(state digitalocean)"
job cudo job-cudo CUDO_API_KEY "" || { cat job-cudo.err >&2; fail "the cudo job (no credentials) failed"; }
grep -q 'cudo skipped: CUDO_API_KEY is not set' job-cudo.err || fail "cudo was not skipped for want of credentials"
# A slot may only name a variable of the job's own specs.
NEOGRADE_VAR_1_NAME=PATH NEOGRADE_VAR_1=/nowhere "$here/scripts/grade" sweep --env-slots --providers lambda --neograde "$neograde" \
  --work job-bad >bad.out 2>bad.err
rc=$?
[ "$rc" -eq 2 ] && grep -q 'slot 1 names PATH, which no spec of lambda reads' bad.err || fail "a slot naming PATH: exit $rc, $(cat bad.err)"

# The runpod job, stopped by its time limit (SIGTERM) while its instance boots.
NEOGRADE_VAR_1_NAME=RUNPOD_API_KEY NEOGRADE_VAR_1=${key[runpod]} "$here/scripts/grade" run --job --env-slots --providers runpod \
  --run-id "$run_id" --treat-as-live --neograde "$neograde" --history history-ro --work job-runpod --summary job-runpod.summary.md \
  >job-runpod.out 2>job-runpod.err &
grade_pid=$!
background_pids=("$grade_pid" "${background_pids[@]}")
for _ in $(seq 600); do
  [ "$(creates runpod)" -ge 1 ] && break
  kill -0 "$grade_pid" 2>/dev/null || break
  sleep 0.1
done
[ "$(creates runpod)" -ge 1 ] || { cat job-runpod.err >&2; fail "the runpod job never launched"; }
kill -TERM "$grade_pid"
wait "$grade_pid"
rc=$?
[ "$rc" -eq 143 ] || { cat job-runpod.err >&2; fail "the stopped runpod job exited $rc, expected 143"; }
[ "$(state runpod | jq .live_instances)" -eq 0 ] || fail "the stopped runpod job left an instance: $(state runpod)"
grep -q 'sweeping runpod after an interrupted pass' job-runpod.err || fail "the stopped runpod job did not sweep"
grep -q 'stopped by SIGTERM' job-runpod/runpod.run.err || fail "the runpod run was not stopped by the signal: $(tail -3 job-runpod/runpod.run.err)"
[ -f job-runpod/runs/runpod/results.jsonl ] || fail "the stopped runpod run wrote no results"
[ -f job-runpod/runpod.row ] && fail "the stopped runpod job wrote its summary row"
[ -n "$(find history-ro -type f)" ] && fail "a job wrote the history: $(find history-ro -type f)"

# A job killed outright: its run's lines so far, and no results.jsonl.
mkdir -p job-vastai/runs/vastai
head -3 job-lambda/runs/lambda/results.jsonl >job-vastai/runs/vastai/results.jsonl.part
echo "$run_id" >job-vastai/vastai.run-id

# The same jobs again before the merge (a schedule that fired twice): the finished run is in the work dir.
before=$(creates lambda)
job lambda job-lambda LAMBDA_API_KEY "${key[lambda]}" || { cat job-lambda.err >&2; fail "the lambda job, again, failed"; }
grep -q "lambda skipped: run $run_id is already graded (in $work/job-lambda)" job-lambda.err || fail "the lambda job ran again: $(cat job-lambda.err)"
[ "$(creates lambda)" -eq "$before" ] || fail "the lambda job, again, launched"
[ -f job-lambda/runs/lambda/results.jsonl ] || fail "the lambda job, again, lost its run"

# The publish job: merge every job's work dir.
merge() {
  "$here/scripts/grade" merge --neograde "$neograde" --providers lambda,digitalocean,runpod,vastai,cudo,tensordock \
    --history history --work "merge$1" --summary "merge$1.md" --in job-lambda --in job-digitalocean --in job-runpod --in job-vastai --in job-cudo >"merge$1.out" 2>"merge$1.err"
}
merge 1
rc=$?
[ "$rc" -eq 1 ] || { cat merge1.err >&2; fail "merge with a job not finished exited $rc, expected 1"; }
for p in lambda digitalocean; do
  [ "$(find "history/$p" -name results.jsonl | wc -l)" -eq 1 ] || fail "$p: not one run in the history: $(find history)"
  [ "$(cat "history/$p/run-ids")" = "$run_id" ] || fail "$p: the run id is not recorded: $(cat "history/$p/run-ids" 2>&1)"
done
[ -d history/runpod ] && fail "runpod's stopped run is in the history"
[ -d history/vastai ] && fail "vastai's torn run is in the history"
grep -q '^| lambda | 0 | full | [01] | terminated and confirmed .* | yes |$' merge1.md || { cat merge1.md >&2; fail "no lambda row"; }
grep -q '^| digitalocean | - | audit | [01] | terminated and confirmed .* | yes |$' merge1.md || { cat merge1.md >&2; fail "no digitalocean row"; }
grep -q '^| runpod | - | not finished (timed out or stopped) | - | not known | no |$' merge1.md || { cat merge1.md >&2; fail "runpod not named as not finished"; }
grep -q '^| vastai | - | not finished (timed out or stopped) | - | not known | no |$' merge1.md || { cat merge1.md >&2; fail "vastai not named as not finished"; }
grep -q '^| cudo | - | skipped: CUDO_API_KEY is not set | - | - | no |$' merge1.md || { cat merge1.md >&2; fail "cudo not named as skipped"; }
grep -q '^| tensordock | - | no job output' merge1.md || { cat merge1.md >&2; fail "tensordock, with no job, not named"; }
grep -q '^## neograde diff' merge1.md || fail "merge wrote no diff summary"
grep -q "^Report: $work/merge1/report/index.html" merge1.md || fail "merge names no report"
for p in lambda digitalocean; do grep -q "\"id\": \"$p\"" merge1/report/scorecard.json || fail "$p is not in the report"; done
for p in runpod vastai; do grep -q "\"id\": \"$p\"" merge1/report/scorecard.json && fail "$p is in the report"; done

# Merged again (the publish job re-run): nothing is added twice.
merge 2
[ "$(find history -name results.jsonl | wc -l)" -eq 2 ] || fail "the second merge added a run: $(find history -name results.jsonl)"
grep -q '^| lambda | .* | already in the history |$' merge2.md || { cat merge2.md >&2; fail "the second merge did not say lambda is in the history"; }
[ "$(cat history/lambda/run-ids)" = "$run_id" ] || fail "the run id recorded twice: $(cat history/lambda/run-ids)"

# A later job with the same run id in a fresh work dir (the next workflow run of a schedule that
# fired twice) finds it in the history and launches nothing.
cp -r history history-ro2
before=$(creates lambda)
export LAMBDA_API_KEY=${key[lambda]}
"$here/scripts/grade" run --job --providers lambda --run-id "$run_id" --treat-as-live --neograde "$neograde" --history history-ro2 \
  --work job-lambda2 --summary job-lambda2.md >job-lambda2.out 2>job-lambda2.err || { cat job-lambda2.err >&2; fail "the third lambda job failed"; }
grep -q "lambda skipped: run $run_id is already graded (in the history)" job-lambda2.err || fail "the third lambda job ran: $(cat job-lambda2.err)"
grep -q "^| lambda | - | skipped: run $run_id is already graded |" job-lambda2.md || fail "its summary does not say so: $(cat job-lambda2.md)"
[ "$(creates lambda)" -eq "$before" ] || fail "the third lambda job launched"
[ -d job-lambda2/runs ] && fail "the third lambda job left a run directory"
# With another run id it is graded: the skip above is the run id's doing.
"$here/scripts/grade" run --job --providers lambda --run-id "$run_id.b" --treat-as-live --neograde "$neograde" --history history-ro2 \
  --work job-lambda3 --summary job-lambda3.md --read-only >job-lambda3.out 2>job-lambda3.err || { cat job-lambda3.err >&2; fail "lambda with another run id failed"; }
[ -f job-lambda3/runs/lambda/results.jsonl ] || fail "lambda with another run id was not graded: $(cat job-lambda3.err)"
unset LAMBDA_API_KEY

# No output, summary or log holds a credential.
for p in lambda digitalocean runpod; do
  leaked=$(grep -rlF --exclude="*.emulator.out" -- "${key[$p]}" . 2>/dev/null | head -3)
  [ -z "$leaked" ] || fail "$p's key is written in $leaked"
done
echo "ok: grade merge"
