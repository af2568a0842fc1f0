#!/usr/bin/env bash
# neograde report --publish: the site plus dataset/ (the scorecards, the results files copied as
# they were, LICENSE, manifest.json). The published results re-derive byte-identical scorecards
# through `neograde report`; publishing the same runs again gives the same files; the manifest
# verifies, and a changed byte does not.
# Usage: publish_test.sh NEOGRADE WORK_DIR
set -uo pipefail
neograde=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || { echo "skipped: no jq"; exit 77; }

"$neograde" demo --out demo --only lambda --only bodgewell >demo.txt 2>&1 || { tail -5 demo.txt >&2; fail "neograde demo failed"; }
# One provider through a history, the other given with --in, the fictional observation too.
"$neograde" history add --history hist --in demo/providers/lambda >/dev/null 2>&1 || fail "history add failed"
examples=$(cd "$(dirname "$0")/../../reports/examples/observations" && pwd) || fail "no example observations"
publish() {
  "$neograde" report --history hist --in demo/providers/bodgewell --observations "$examples" --publish "$1" >"$1.txt" 2>"$1.err" ||
    { cat "$1.err" >&2; fail "report --publish $1 failed"; }
}
publish pub
for f in index.html providers/lambda.html providers/bodgewell.html badges/lambda.svg badges/bodgewell.json reliability.json \
  dataset/scorecard.json dataset/scorecards/lambda.json dataset/scorecards/bodgewell.json dataset/LICENSE dataset/manifest.json \
  dataset/results/in-001/results.jsonl dataset/observations/obs-001/bodgewell.json; do
  [ -s "pub/$f" ] || fail "--publish wrote no $f"
done
cmp -s pub/dataset/results/in-001/results.jsonl demo/providers/bodgewell/results.jsonl || fail "the results were not copied as they were"
run=$(ls -d hist/lambda/emulated/*/ | head -1)
cmp -s "pub/dataset/results/history/${run#hist/}results.jsonl" "${run}results.jsonl" || fail "the history's run was not copied"
cmp -s pub/dataset/scorecard.json pub/scorecard.json || fail "the dataset's scorecards are not the report's"
grep -q 'CC BY 4.0' pub/dataset/LICENSE || fail "no licence statement"

m=pub/dataset/manifest.json
jq -e '.methodology.version == 1 and .licence.spdx == "CC-BY-4.0" and (.catalogue.version | startswith("sha256:"))
       and .suite_version != "" and .catalogue.specs.lambda != null' "$m" >/dev/null || fail "the manifest lacks a version or the licence"
# The generation time is the newest run's finish, so that publishing again reproduces it.
newest=$(for r in demo/providers/*/results.jsonl; do tail -1 "$r" | jq -r .finished_at; done | sort | tail -1)
[ "$(jq -r .generated_at "$m")" = "$newest" ] || fail "generated_at is $(jq -r .generated_at "$m"), not the newest finish $newest"
grep -q "Generated $newest" pub/index.html || fail "the index does not state the same generation time"
# Every file but the manifest is listed, each with the SHA-256 sha256sum gives.
listed=$(jq -r '.files[].path' "$m" | sort)
present=$(cd pub && find . -type f ! -path ./dataset/manifest.json | sed 's|^\./||' | LC_ALL=C sort)
[ "$listed" = "$(echo "$present" | sort)" ] || fail "the manifest does not list exactly the published files"
jq -r '.files[] | "\(.sha256)  \(.path)"' "$m" | (cd pub && sha256sum --quiet -c -) || fail "a listed SHA-256 is not the file's"

"$neograde" report --verify pub >verify.txt 2>&1 || { cat verify.txt >&2; fail "the published report does not verify"; }

# The published results, read back by `neograde report` with the manifest's arguments, give the
# same scorecards byte for byte.
mapfile -t args < <(jq -r '.rederive.args[]' "$m")
(cd pub/dataset && "$neograde" report "${args[@]}" --out ../../rederived >/dev/null 2>&1) || fail "re-deriving from the dataset failed"
cmp pub/dataset/scorecard.json rederived/scorecard.json || fail "scorecard.json re-derived differently"
for card in pub/dataset/scorecards/*.json; do
  name=$(basename "$card" .json)
  cmp "$card" "rederived/providers/$name/scorecard.json" || fail "$name's scorecard re-derived differently"
done

# Publishing the same runs again writes the same files, the manifest included.
publish pub2
cmp pub/dataset/manifest.json pub2/dataset/manifest.json || fail "publishing again gave another manifest"

# One changed byte fails verification, naming the file; so does a file added.
cp -r pub tampered
sed -i '0,/"tier"/s//"tiEr"/' tampered/dataset/scorecards/lambda.json
cmp -s pub/dataset/scorecards/lambda.json tampered/dataset/scorecards/lambda.json && fail "the test did not change the file"
"$neograde" report --verify tampered >tampered.txt 2>&1 && fail "a changed byte verified"
grep -q 'dataset/scorecards/lambda.json: SHA-256 differs' tampered.txt || fail "verification does not name the changed file: $(cat tampered.txt)"
cp -r pub added && echo x >added/dataset/extra.txt
"$neograde" report --verify added >added.txt 2>&1 && fail "an added file verified"
grep -q 'dataset/extra.txt: not in the manifest' added.txt || fail "verification does not name the added file"
echo "ok: publish"
