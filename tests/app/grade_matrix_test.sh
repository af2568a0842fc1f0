#!/usr/bin/env bash
# `scripts/grade matrix` against .github/workflows/grade.yml: every non-fictional spec is a job of
# the matrix (and no fictional one), each entry names the spec's credential variable and every
# variable it reads in its slots, no entry needs more slots than the workflow gives a job, and the
# time limits are sane. Then the workflow itself: one job per provider with fail-fast off, its
# own time limit and only its own secrets (secrets[matrix.var_<n>], never toJSON(secrets)), the
# sweep always, and a publish job that runs whatever the grading jobs did. The workflow is parsed
# as YAML where python3's yaml module or yq is installed; the same is checked on its text always.
# Usage: grade_matrix_test.sh NEOGRADE WORK_DIR
set -uo pipefail
neograde=$1 work=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
workflow=$here/.github/workflows/grade.yml
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed" >&2; exit 77; }
export NEOGRADE_SPECS_DIR=$here/specs/providers

# The slots of grade.yml: NEOGRADE_VAR_<n>_NAME from matrix.var_<n>, NEOGRADE_VAR_<n> from secrets[matrix.var_<n>].
slots=$(grep -cE '^ +NEOGRADE_VAR_[0-9]+_NAME: \$\{\{ matrix\.var_[0-9]+ \}\}$' "$workflow")
[ "$slots" -ge 1 ] || fail "grade.yml gives a job no variable slot"
for n in $(seq "$slots"); do
  grep -qE "^ +NEOGRADE_VAR_${n}_NAME: \\$\\{\\{ matrix\\.var_${n} \\}\\}$" "$workflow" || fail "grade.yml: slot $n has no name"
  grep -qE "^ +NEOGRADE_VAR_${n}: \\$\\{\\{ secrets\\[matrix\\.var_${n}\\] \\}\\}$" "$workflow" || fail "grade.yml: slot $n has no secrets[matrix.var_$n]"
done
grep -qE "scripts/grade matrix .*--slots $slots( |$)" "$workflow" || fail "grade.yml does not ask scripts/grade matrix for its $slots slots"

"$here/scripts/grade" matrix --neograde "$neograde" --slots "$slots" >matrix.json 2>matrix.err ||
  { cat matrix.err >&2; fail "scripts/grade matrix exited $?"; }
jq -e '.include | type == "array" and length > 0' matrix.json >/dev/null || fail "not a matrix: $(head -c 300 matrix.json)"

for spec in "$here"/specs/providers/*.json; do
  id=$(jq -r .provider.id "$spec")
  entry=$(jq -c --arg id "$id" '.include[] | select(.provider == $id)' matrix.json)
  if jq -e '.provider.fictional == true' "$spec" >/dev/null; then
    [ -z "$entry" ] || fail "$id is fictional and has a grading job"
    continue
  fi
  [ -n "$entry" ] || fail "$id is not in the matrix"
  [ "$(echo "$entry" | jq '[keys[] | select(startswith("var_"))] | length')" -eq "$slots" ] || fail "$id: not exactly $slots slots: $entry"
  # The names in the slots: the credential variable first, every variable the spec reads, nothing else.
  names=$(echo "$entry" | jq -r '[to_entries[] | select(.key | startswith("var_")) | .value | select(. != "")] | .[]' | sort)
  credential=$(jq -r .auth.env "$spec")
  [ "$(echo "$entry" | jq -r .var_1)" = "$credential" ] || fail "$id: var_1 is not its credential variable $credential: $entry"
  expected=$( { echo "$credential"; jq -r '.variables // {} | .[] | objects | .env // empty | select(. != "")' "$spec"; } | sort -u)
  [ "$names" = "$expected" ] || fail "$id: the slots name $(echo $names), the spec reads $(echo $expected)"
  echo "$entry" | jq -e '.timeout_minutes >= 60 and .grade_timeout_minutes > 0 and .grade_timeout_minutes < .timeout_minutes' >/dev/null ||
    fail "$id: time limits $(echo "$entry" | jq -c '{timeout_minutes, grade_timeout_minutes}')"
done
# A spec that boots and holds longer gets a longer job: Spheron's 20-minute minimum runtime.
[ "$(jq '.include[] | select(.provider == "spheron") | .timeout_minutes' matrix.json)" -gt 60 ] || fail "spheron's job has the default time limit"
# A provider that reads more variables than there are slots is refused, not cut short.
"$here/scripts/grade" matrix --neograde "$neograde" --slots 1 --providers lambda,cudo >one.json 2>one.err
rc=$?
[ "$rc" -eq 2 ] && grep -q 'cudo reads 2 variables' one.err || fail "--slots 1 with cudo: exit $rc, $(cat one.err)"
# --providers picks the jobs (a fictional one too, when named).
"$here/scripts/grade" matrix --neograde "$neograde" --providers lambda,bodgewell >two.json 2>two.err || fail "matrix --providers: $(cat two.err)"
[ "$(jq -c '[.include[].provider]' two.json)" = '["bodgewell","lambda"]' ] || fail "matrix --providers lambda,bodgewell: $(cat two.json)"

# The workflow's text: what the jobs must keep however the file is edited.
grep -q 'toJSON(secrets' "$workflow" && fail "grade.yml hands a job every secret (toJSON(secrets))"
[ "$(grep -v '^ *#' "$workflow" | grep -c 'secrets\[')" -eq "$slots" ] || fail "grade.yml reads secrets other than through its slots"
[ "$(grep -v '^ *#' "$workflow" | grep -c 'secrets\.')" -eq 0 ] || fail "grade.yml reads a secret by name: each job gets its own through the slots"
grep -qE '^ +fail-fast: false$' "$workflow" || fail "grade.yml: the matrix is not fail-fast: false"
grep -qE '^ +matrix: \$\{\{ fromJSON\(needs\.plan\.outputs\.matrix\) \}\}$' "$workflow" || fail "grade.yml: the matrix is not the plan's"
grep -qE '^ +timeout-minutes: \$\{\{ matrix\.timeout_minutes \}\}$' "$workflow" || fail "grade.yml: a grading job has not its own time limit"
grep -qE '^ +timeout-minutes: \$\{\{ matrix\.grade_timeout_minutes \}\}$' "$workflow" || fail "grade.yml: the grading step has not its own time limit"
grep -qE '^  publish:$' "$workflow" || fail "grade.yml has no publish job"
sed -n '/^  publish:$/,/^  [a-z]*:$/p' "$workflow" | grep -E '^    if: always\(\)' >/dev/null || fail "grade.yml: publish does not run whatever the grading jobs did (if: always())"
grep -qE 'scripts/grade merge ' "$workflow" || fail "grade.yml: publish does not run scripts/grade merge"
grep -qE 'scripts/grade run --job --env-slots ' "$workflow" || fail "grade.yml: a grading job does not run scripts/grade run --job --env-slots"
grep -qE 'scripts/grade sweep --env-slots ' "$workflow" || fail "grade.yml: a grading job does not sweep"
grep -qE -- '--run-id "\$RUN_ID"' "$workflow" || fail "grade.yml: the grading jobs have no run id"
grep -qE '^  group: grade$' "$workflow" || fail "grade.yml: concurrency group grade is gone"

# The same parsed as YAML, where a parser is installed.
to_json() {
  if python3 -c 'import yaml' 2>/dev/null; then
    python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)' "$1"
  elif command -v yq >/dev/null; then
    yq -o=json '.' "$1" 2>/dev/null || yq '.' "$1"  # mikefarah's yq, or the jq wrapper
  else
    return 77
  fi
}
to_json "$workflow" >workflow.json
rc=$?
if [ "$rc" -eq 77 ]; then
  echo "note: neither python3's yaml module nor yq is installed: grade.yml was checked as text only"
else
  [ "$rc" -eq 0 ] || fail "grade.yml is not valid YAML"
  # PyYAML reads the key `on` as true.
  jq -e '(.on // .["true"]) | has("schedule") and has("workflow_dispatch")' workflow.json >/dev/null || fail "grade.yml: not scheduled"
  jq -e '.concurrency.group == "grade" and .concurrency["cancel-in-progress"] == false' workflow.json >/dev/null || fail "grade.yml: concurrency"
  jq -e '.jobs.grade as $g
         | $g.needs == "plan" and $g.strategy["fail-fast"] == false
           and $g.strategy.matrix == "${{ fromJSON(needs.plan.outputs.matrix) }}"
           and $g["timeout-minutes"] == "${{ matrix.timeout_minutes }}"
           and ([$g.steps[] | select(.run // "" | test("scripts/grade sweep")) | .if] == ["always()"])
           and ([$g.steps[] | select(.uses // "" | startswith("actions/upload-artifact")) | select(.if == "always()") | .with.name]
                == ["grade-${{ matrix.provider }}"])' workflow.json >/dev/null ||
    fail "grade.yml: the grading job: $(jq -c .jobs.grade workflow.json | head -c 600)"
  [ "$(jq --argjson n "$slots" '[.jobs.grade.env | keys[] | select(test("^NEOGRADE_VAR_[0-9]+(_NAME)?$"))] | length == 2 * $n' workflow.json)" = true ] ||
    fail "grade.yml: the grading job's env has not exactly $slots slots"
  jq -e '.jobs.publish as $p | ($p.if | startswith("always()")) and ($p.needs | index("grade")) != null
         and ([$p.steps[] | select(.uses // "" | startswith("actions/download-artifact")) | .with.pattern] | index("grade-*")) != null
         and ([$p.steps[] | select(.run // "" | test("scripts/grade merge"))] | length == 1)' workflow.json >/dev/null ||
    fail "grade.yml: the publish job: $(jq -c .jobs.publish workflow.json | head -c 600)"
  # Only the publish job may write the repository; the grading jobs read it.
  jq -e '.permissions.contents == "read" and .jobs.publish.permissions.contents == "write" and (.jobs.grade.permissions == null)' \
    workflow.json >/dev/null || fail "grade.yml: permissions"
fi
echo "ok: grade matrix ($(jq '.include | length' matrix.json) jobs, $slots slots)"
