#!/usr/bin/env bash
# The GitHub Action's script (scripts/action-run, which action.yml runs) against emulators, as a
# provider's CI runs it against its staging API: the conformance run with spending off by default
# (the read-only audit: the emulator's count of create requests stays 0), JUnit XML naming the
# checks, the scorecard appended to the job summary, the results in the output directory; the key
# from the credential input, from a variable named by api-key-env, or for a spec given by its
# path; no key is a usage error; a provider that misbehaves (an emulator quirk that a read-only
# check catches) makes the script exit 1 with the failure in the JUnit XML; a short fuzz campaign
# gets the same report. No key is ever printed.
# Usage: action_test.sh NEOGRADE WORK_DIR
set -uo pipefail
neograde=$1 work=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v curl >/dev/null || { echo "SKIP: curl is not installed" >&2; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed" >&2; exit 77; }

. "$here/tests/app/emulators.sh"
unset GITHUB_STEP_SUMMARY GITHUB_OUTPUT NEOGRADE_ACTION_CREDENTIAL NEOGRADE_ACTION_SECOND_CREDENTIAL NEOGRADE_LIVE
export NEOGRADE_SPECS_DIR=$here/specs/providers

# A well-behaved emulator, and one whose missing-credential answers are not 401 (a read-only check fails).
quirk=auth_missing_accepted
"$neograde" checks --quirks >quirks.txt 2>&1 || fail "neograde checks --quirks failed"
grep -q "$quirk" quirks.txt || fail "no quirk $quirk: $(head -5 quirks.txt)"
declare -A base key origin
for e in good bad; do
  extra=()
  [ "$e" = bad ] && extra=(--quirk "$quirk")
  start_emulator "$e" lambda --time-scale 0.01 --no-rate-limit "${extra[@]}"
done
for e in good bad; do
  await_emulator "$e"
  base[$e]=${emulator_base[$e]} key[$e]=${emulator_key[$e]} origin[$e]=${emulator_origin[$e]}
done
creates() { curl -sf "${origin[$1]}/_neograde/state" | jq .create_requests; }

action() {  # $1: a name for its files; the rest: scripts/action-run's arguments
  local name=$1
  shift
  "$here/scripts/action-run" --neograde "$neograde" --out "$name" --summary "$name.summary.md" "$@" >"$name.out" 2>"$name.err"
}

# The default: conformance, spending off, the key from the credential input.
NEOGRADE_ACTION_CREDENTIAL=${key[good]} action default --spec lambda --base-url "${base[good]}"
rc=$?
[ "$rc" -eq 0 ] || { cat default.err >&2; fail "against a well-behaved emulator: exit $rc"; }
[ "$(creates good)" -eq 0 ] || fail "spending is off by default, yet the emulator got a create request"
grep -q 'spending off' default.err || fail "the script does not say spending is off"
head -1 default/results.jsonl | jq -e '.read_only == true and .allow_spend == false' >/dev/null || fail "not the read-only audit: $(head -1 default/results.jsonl)"
[ -s default/junit.xml ] || fail "no junit.xml"
grep -q '<testsuite' default/junit.xml || fail "junit.xml is not JUnit: $(head -3 default/junit.xml)"
grep -q 'name="auth\.' default/junit.xml || fail "junit.xml names no auth check"
[ "$(grep -c '<testcase' default/junit.xml)" -ge 20 ] || fail "junit.xml has $(grep -c '<testcase' default/junit.xml) test cases"
grep -q '<failure' default/junit.xml && fail "a failure in junit.xml against a well-behaved emulator"
[ -f default/report/index.html ] || fail "no HTML report"
grep -q '^## neograde conformance: lambda$' default.summary.md || fail "the summary has no heading: $(head -3 default.summary.md)"
card_line=$(head -1 default/scorecard.md)
[ -n "$card_line" ] && grep -qF -- "$card_line" default.summary.md || fail "the summary lacks the scorecard"
[ "$(wc -l <default.summary.md)" -ge 10 ] || fail "the summary is short: $(cat default.summary.md)"

# The key from a variable that api-key-env names, and a spec given by its path; GITHUB_OUTPUT filled.
: >outputs.txt
MY_STAGING_KEY=${key[good]} GITHUB_OUTPUT=$work/outputs.txt action by-path --spec "$here/specs/providers/lambda.json" \
  --base-url "${base[good]}" --api-key-env MY_STAGING_KEY
rc=$?
[ "$rc" -eq 0 ] || { cat by-path.err >&2; fail "a spec by its path, the key in MY_STAGING_KEY: exit $rc"; }
grep -qx "exit-code=0" outputs.txt && grep -qx "junit=$work/by-path/junit.xml" outputs.txt || fail "the action's outputs: $(cat outputs.txt)"

# No key: a usage error, before anything is sent.
action nokey --spec lambda --base-url "${base[good]}"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'no key' nokey.err || fail "without a key: exit $rc, $(cat nokey.err)"

# A provider that misbehaves: exit 1, the failure in the JUnit XML and the summary.
NEOGRADE_ACTION_CREDENTIAL=${key[bad]} action bad --spec lambda --base-url "${base[bad]}"
rc=$?
[ "$rc" -eq 1 ] || { cat bad.err >&2; fail "against the $quirk emulator: exit $rc, expected 1"; }
grep -q '<failure' bad/junit.xml || fail "the failure is not in junit.xml"
grep -qi 'fail' bad.summary.md || fail "the summary does not show the failure"
[ "$(creates bad)" -eq 0 ] || fail "spending is off, yet the quirky emulator got a create request"

# A short fuzz campaign: findings.jsonl, and the same report.
NEOGRADE_ACTION_CREDENTIAL=${key[good]} action fuzz --spec lambda --base-url "${base[good]}" --command fuzz --args "--seed 7 --max-requests 300"
rc=$?
[ "$rc" -le 1 ] || { cat fuzz.err >&2; fail "fuzz: exit $rc"; }
[ -f fuzz/findings.jsonl ] || fail "fuzz wrote no findings.jsonl"
[ -s fuzz/junit.xml ] || { cat fuzz/report.log fuzz.err >&2; fail "fuzz: no junit.xml"; }
grep -q '^## neograde fuzz: lambda$' fuzz.summary.md || fail "fuzz: no summary"

# A bad input is refused.
NEOGRADE_ACTION_CREDENTIAL=x action badcmd --spec lambda --command preflight
[ $? -eq 2 ] || fail "--command preflight was not refused"

# action.yml runs this script with its inputs, spending off by default, and keeps the results
# whatever happened; parsed as YAML where python3's yaml module is installed.
action_yml=$here/action.yml
grep -q '"$GITHUB_ACTION_PATH/scripts/action-run" --spec "$SPEC"' "$action_yml" || fail "action.yml does not run scripts/action-run"
grep -q 'NEOGRADE_ACTION_CREDENTIAL: ${{ inputs.credential }}' "$action_yml" || fail "action.yml does not pass the credential in the environment"
if python3 -c 'import yaml' 2>/dev/null; then
  python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)' "$action_yml" >action.json || fail "action.yml is not YAML"
  jq -e '.runs.using == "composite" and .inputs["allow-spend"].default == "false" and .inputs.command.default == "conformance"
         and .inputs.spec.required == true and (.inputs | has("base-url") and has("credential") and has("api-key-env") and has("args") and has("out"))
         and ([.runs.steps[] | select(.uses // "" | startswith("actions/upload-artifact")) | .if] == ["always()"])
         and ([.runs.steps[] | select(.shell != null) | .shell] | all(. == "bash"))' action.json >/dev/null ||
    fail "action.yml: $(jq -c '{inputs: (.inputs | keys), steps: [.runs.steps[] | {name, if, uses}]}' action.json)"
fi

# No key in any output.
for e in good bad; do
  leaked=$(grep -rlF --exclude="*.emulator.out" -- "${key[$e]}" . 2>/dev/null | head -3)
  [ -z "$leaked" ] || fail "the $e emulator's key is written in $leaked"
done
echo "ok: action"
