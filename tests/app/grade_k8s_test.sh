#!/usr/bin/env bash
# `scripts/grade k8s`: the manifests of the grading pass on Kubernetes (docs/grading.md). Checked
# for structure with jq: one CronJob per non-fictional provider (none for a fictional one), each
# with concurrencyPolicy Forbid, a deadline, no retry, the run id of the day, its variables and only
# its own from its own Secret (neograde-<provider>), the shared volume; a publishing CronJob that
# merges every provider's work dir; the PersistentVolumeClaim they share; deploy/k8s/example.json
# is the generator's output. Where kubectl is installed, the CronJobs also go through its typed
# decoding offline (`kubectl set resources --local`, which needs no cluster): a field of the wrong
# type fails, an unknown field is dropped, and the test compares what comes back with what went
# in. Without kubectl (CI) that part is skipped.
# Usage: grade_k8s_test.sh NEOGRADE WORK_DIR
set -uo pipefail
neograde=$1 work=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed" >&2; exit 77; }
export NEOGRADE_SPECS_DIR=$here/specs/providers

"$here/scripts/grade" k8s --neograde "$neograde" --image registry.example/neograde:1.0 --namespace grading \
  --max-instances 2 --max-spend 7.5 >manifests.json 2>k8s.err || { cat k8s.err >&2; fail "scripts/grade k8s exited $?"; }
jq -e '.apiVersion == "v1" and .kind == "List" and (.items | length > 2)' manifests.json >/dev/null || fail "not a List: $(head -c 300 manifests.json)"
jq -e '[.items[] | .apiVersion and .kind and .metadata.name and .metadata.namespace == "grading"] | all' manifests.json >/dev/null ||
  fail "an object without apiVersion, kind, name or the namespace"
# Names are DNS labels; a CronJob's at most 52 characters (its Jobs get a suffix).
jq -e '[.items[] | .metadata.name | test("^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$")] | all' manifests.json >/dev/null || fail "a name is not a DNS label of 52 at most"
[ "$(jq '[.items[].metadata.name] | length == (unique | length)' manifests.json)" = true ] || fail "two objects have the same name"
jq -e '[.items[] | select(.kind == "PersistentVolumeClaim" and .metadata.name == "neograde-data")
        | .spec.accessModes == ["ReadWriteMany"] and (.spec.resources.requests.storage | test("^[0-9]+Gi$"))] == [true]' manifests.json >/dev/null ||
  fail "no PersistentVolumeClaim neograde-data"
# Every pod: the image, not root, the shared volume mounted at /data.
jq -e '[.items[] | select(.kind == "CronJob") | .spec.jobTemplate.spec.template.spec
        | .restartPolicy == "Never" and .securityContext.runAsNonRoot == true
          and .volumes == [{name: "data", persistentVolumeClaim: {claimName: "neograde-data"}}]
          and (.containers | length == 1) and .containers[0].image == "registry.example/neograde:1.0"
          and .containers[0].volumeMounts == [{name: "data", mountPath: "/data"}]
          and .containers[0].command[0:2] == ["/bin/bash", "-c"]] | all' manifests.json >/dev/null ||
  fail "a pod is not as it should be"

graded=()
for spec in "$here"/specs/providers/*.json; do
  id=$(jq -r .provider.id "$spec")
  cj=$(jq -c --arg n "neograde-grade-$id" '.items[] | select(.kind == "CronJob" and .metadata.name == $n)' manifests.json)
  if jq -e '.provider.fictional == true' "$spec" >/dev/null; then
    [ -z "$cj" ] || fail "$id is fictional and has a CronJob"
    continue
  fi
  [ -n "$cj" ] || fail "$id has no CronJob"
  graded+=("$id")
  echo "$cj" | jq -e '.apiVersion == "batch/v1" and .spec.concurrencyPolicy == "Forbid" and .spec.schedule == "23 5 * * *"
                      and .spec.jobTemplate.spec.backoffLimit == 0 and .spec.jobTemplate.spec.activeDeadlineSeconds >= 1800
                      and .spec.jobTemplate.spec.template.spec.terminationGracePeriodSeconds >= 300' >/dev/null ||
    fail "$id: the CronJob's policy: $(echo "$cj" | jq -c '.spec | del(.jobTemplate.spec.template)')"
  command=$(echo "$cj" | jq -r '.spec.jobTemplate.spec.template.spec.containers[0].command[2]')
  for part in "/usr/local/share/neograde/scripts/grade run --job --providers $id " '--run-id "$(date -u +%F)"' \
      "--history /data/history --work /data/work/$id " '--max-instances 2 --max-spend 7.5'; do
    [[ "$command" == *"$part"* ]] || fail "$id: the command lacks '$part': $command"
  done
  # Its variables, each from its own Secret, and nothing else.
  expected=$( { jq -r .auth.env "$spec"; jq -r '.variables // {} | .[] | objects | .env // empty | select(. != "")' "$spec"; } | sort -u)
  names=$(echo "$cj" | jq -r '.spec.jobTemplate.spec.template.spec.containers[0].env[] | select(.valueFrom) | .name' | sort)
  [ "$names" = "$expected" ] || fail "$id: the pod reads $(echo $names), the spec $(echo $expected)"
  echo "$cj" | jq -e --arg s "neograde-$id" '[.spec.jobTemplate.spec.template.spec.containers[0].env[] | select(.valueFrom)
                                               | .valueFrom.secretKeyRef | .name == $s and .optional == true] | all' >/dev/null ||
    fail "$id: a variable comes from another Secret than neograde-$id"
  echo "$cj" | jq -e --arg s "neograde-$id" '.metadata.annotations["neograde-secret"] == $s' >/dev/null || fail "$id: no annotation names its Secret"
done
[ "$(jq '[.items[] | select(.kind == "CronJob")] | length' manifests.json)" -eq $((${#graded[@]} + 1)) ] || fail "CronJobs other than one per provider and publish"
publish=$(jq -c '.items[] | select(.kind == "CronJob" and .metadata.name == "neograde-publish")' manifests.json)
[ -n "$publish" ] || fail "no publishing CronJob"
echo "$publish" | jq -e '.spec.concurrencyPolicy == "Forbid" and .spec.schedule == "23 9 * * *"
                         and (.spec.jobTemplate.spec.template.spec.containers[0].env | map(select(.valueFrom)) | length == 0)' >/dev/null ||
  fail "the publishing CronJob: $(echo "$publish" | jq -c .spec)"
command=$(echo "$publish" | jq -r '.spec.jobTemplate.spec.template.spec.containers[0].command[2]')
[[ "$command" == *"scripts/grade merge --providers $(IFS=,; echo "${graded[*]}") --history /data/history "* ]] || fail "publish does not merge every provider: $command"
for id in "${graded[@]}"; do [[ "$command" == *"--in /data/work/$id"* ]] || fail "publish does not merge $id's work dir"; done
# --read-only goes to every grading job.
"$here/scripts/grade" k8s --neograde "$neograde" --providers lambda --read-only >ro.json 2>ro.err || fail "k8s --read-only: $(cat ro.err)"
jq -e '[.items[] | select(.metadata.name == "neograde-grade-lambda") | .spec.jobTemplate.spec.template.spec.containers[0].command[2]
        | endswith(" --read-only")] == [true] and ([.items[] | .metadata | has("namespace")] | any | not)' ro.json >/dev/null ||
  fail "k8s --read-only, no namespace: $(jq -c '.items[1]' ro.json)"

# deploy/k8s/example.json is the generator's output for two providers, kept in step.
"$here/scripts/grade" k8s --neograde "$neograde" --providers lambda,cudo >example.json 2>example.err || fail "k8s --providers lambda,cudo: $(cat example.err)"
[ "$(jq -S . example.json)" = "$(jq -S . "$here/deploy/k8s/example.json")" ] ||
  fail "deploy/k8s/example.json is not what scripts/grade k8s --providers lambda,cudo prints: regenerate it"

if ! command -v kubectl >/dev/null; then
  echo "note: kubectl is not installed: the manifests were checked for structure only"
else
  # kubectl's typed decoding, offline: the objects with a pod template (the CronJobs) come back as Go structs.
  jq '.items |= map(select(.kind == "CronJob"))' manifests.json >cronjobs.json
  kubectl set resources --local -f cronjobs.json --limits=cpu=2,memory=1Gi -o json >typed.json 2>typed.err ||
    fail "kubectl does not decode the manifests: $(cat typed.err)"
  jq -s 'map(if .kind == "List" then .items[] else . end) | map(del(.. | .creationTimestamp?)) | sort_by(.metadata.name)' typed.json >typed.sorted.json
  jq '[.items[] | select(.kind == "CronJob")] | sort_by(.metadata.name)' manifests.json >ours.sorted.json
  [ "$(jq length typed.sorted.json)" -eq "$(jq length ours.sorted.json)" ] || fail "kubectl decoded $(jq length typed.sorted.json) CronJobs"
  # Recursively, every field we wrote came back with the same value (a field kubectl does not
  # know is dropped; what kubectl adds of its own is ignored).
  jq -n --slurpfile a ours.sorted.json --slurpfile b typed.sorted.json '
    def lost($x; $y; $path): if ($x | type) == "object" then ($x | to_entries[] | . as $e | lost($e.value; $y[$e.key]?; $path + [$e.key]))
                             elif ($x | type) == "array" then (range($x | length) as $i | lost($x[$i]; $y[$i]?; $path + [$i]))
                             elif $x == $y then empty
                             else {path: ($path | map(tostring) | join(".")), ours: $x, kubectl: $y} end;
    [lost($a[0]; $b[0]; [])]' >lost.json || fail "jq could not compare the CronJobs"
  [ "$(jq length lost.json)" -eq 0 ] || fail "kubectl's decoding of the CronJobs lost or changed fields (unknown, or of a wrong type): $(jq -c '.[0:3]' lost.json)"
fi
echo "ok: grade k8s (${#graded[@]} providers)"
