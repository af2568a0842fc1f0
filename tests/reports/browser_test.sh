#!/usr/bin/env bash
# The demo's HTML report in headless Chromium: the DOM has the matrix, the leaderboard, every
# provider and the provenance banner; the page requests nothing from any host; the screenshot is
# kept (SCREENSHOT) for people and CI artifacts. Exit 77 (skip) without Chromium.
# Usage: browser_test.sh NEOGRADE WORK_DIR SCREENSHOT
# pipefail: a grep -q that stops reading at its first match kills the writer with SIGPIPE once
# there is more than a pipe's buffer to write, and the pipeline then fails whatever grep found.
# So a pipeline here ends in a grep that reads everything (output to /dev/null), never grep -q.
set -uo pipefail
neograde=$1 work=$2 screenshot=$3
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "skipped: no Chromium (Debian: apt-get install chromium; make test installs it)"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }

providers=(lambda vastai bodgewell)
only=()
for p in "${providers[@]}"; do only+=(--only "$p"); done
"$neograde" demo --out demo "${only[@]}" >demo.txt 2>demo.err || { cat demo.err >&2; fail "neograde demo failed"; }
html=$PWD/demo/index.html
[ -s "$html" ] || fail "no index.html"
grep -q "Report: $html\|Report: demo/index.html" demo.txt || fail "demo does not print the report's path: $(tail -1 demo.txt)"

# Headless, a fresh profile, no browser housekeeping traffic; the net log records every request.
flags=(--headless --no-sandbox --disable-gpu --user-data-dir="$PWD/profile" --no-first-run
       --disable-background-networking --disable-component-update --disable-sync --disable-default-apps
       --disable-domain-reliability --disable-features=Translate,OptimizationHints,MediaRouter,SpellCheck
       --window-size=1400,2200)
timeout 120 "$browser" "${flags[@]}" --log-net-log="$PWD/netlog.json" --dump-dom "file://$html" >dom.html 2>browser.err ||
  { tail -5 browser.err >&2; fail "Chromium could not render the report"; }
timeout 120 "$browser" "${flags[@]}" --screenshot="$PWD/report.png" "file://$html" >/dev/null 2>>browser.err ||
  fail "Chromium could not take the screenshot"
[ -s report.png ] || fail "no screenshot"
mkdir -p "$(dirname "$screenshot")" && cp report.png "$screenshot"

for id in provenance leaderboard matrix charts hall-of-shame; do
  grep -q "id=\"$id\"" dom.html || fail "the rendered page has no #$id"
done
grep -q 'EMULATED' dom.html || fail "no EMULATED banner"
for p in "${providers[@]}"; do
  grep -q "data-provider=\"$p\"" dom.html || fail "the matrix has no column for $p"
  grep -q "id=\"provider-$p\"" dom.html || fail "no section for $p"
done
grep -q 'class="[^"]*fail' dom.html || fail "no failed cell: the fictional provider's findings are missing"
# Declared vs measured transparency and the developer-experience timings, per provider; the
# fictional provider's contradiction (bare metal claimed, a KVM guest found) named in the hall of shame.
for p in "${providers[@]}"; do
  grep -q "id=\"provider-$p-transparency\"" dom.html || fail "no transparency section for $p"
done
[ "$(grep -c '<h3>Developer experience</h3>' dom.html)" -eq "${#providers[@]}" ] || fail "not every provider has its developer-experience timings"
grep -q '<h3>Transparency contradicted</h3>' dom.html || fail "the hall of shame names no contradicted claim"
grep -A3 'table class="contradictions"' dom.html >/dev/null && grep -q 'data-provider="bodgewell"><td><a href="#provider-bodgewell-transparency"' dom.html ||
  fail "the fictional provider's contradiction is not in the hall of shame"
if sed -n '/table class="contradictions"/,/<\/table>/p' dom.html | grep 'data-provider="\(lambda\|vastai\)"' >/dev/null; then
  fail "a real provider's emulated demo shows a contradiction no one measured"
fi
# Requests made for a page (its network isolation key is file://) to any http(s) URL.
page_requests() { grep '"network_isolation_key":"file://' "$1" | grep -o '"url":"https\?://[^"]*"' | sort -u; }
external=$(page_requests netlog.json)
[ -z "$external" ] || fail "the report requested: $external"

# A person's observation of creating an account (the fictional provider's example record), merged
# by `neograde report --observations`: on bodgewell's card alone, labelled OBSERVED with who and
# when, its evidence links requesting nothing, the score the same as without it.
examples=$(cd "$(dirname "$0")/../../reports/examples/observations" && pwd) || fail "no example observations"
in=()
for p in "${providers[@]}"; do in+=(--in "demo/providers/$p"); done
"$neograde" report "${in[@]}" --observations "$examples" --out observed >observed.txt 2>observed.err ||
  { cat observed.err >&2; fail "neograde report --observations failed"; }
grep -q '1 observation(s)' observed.txt || fail "the report does not count the observation: $(cat observed.txt)"
timeout 120 "$browser" "${flags[@]}" --log-net-log="$PWD/observed-netlog.json" --dump-dom "file://$PWD/observed/index.html" \
  >observed-dom.html 2>>browser.err || fail "Chromium could not render the report with the observation"
grep -q 'id="provider-bodgewell-observed"' observed-dom.html || fail "the rendered page has no observation on bodgewell's card"
[ "$(grep -c -- '-observed"' observed-dom.html)" -eq 1 ] || fail "an observation shows on another provider's card"
grep -q '<div class="banner observed"><p class="headline">OBSERVED by Example Person (fictional example) on 2026-11-20: ' observed-dom.html ||
  fail "the observation is not labelled OBSERVED with who and when"
grep -q 'promised \$50, received \$0: \$50 short of the promise' observed-dom.html || fail "the credits promised and received are not shown"
sed -n '/id="provider-bodgewell"/,/<\/section>/p' observed-dom.html | grep 'id="provider-bodgewell-observed"' >/dev/null ||
  fail "the observation is not inside bodgewell's card"
external=$(page_requests observed-netlog.json)
[ -z "$external" ] || fail "the report with an observation requested: $external"
score() { sed -n 's/.*"tier": *"\([^"]*\)".*/\1/p' "$1" | head -1; }
[ "$(score observed/providers/bodgewell/scorecard.json)" = "$(score demo/providers/bodgewell/scorecard.json)" ] ||
  fail "the observation changed the tier"
# The same probe on a page that does fetch something must see it (.invalid never resolves).
echo '<html><body><img src="http://neograde.invalid/probe.png"></body></html>' >control.html
timeout 120 "$browser" "${flags[@]}" --log-net-log="$PWD/control-netlog.json" --dump-dom "file://$PWD/control.html" \
  >/dev/null 2>>browser.err || fail "Chromium could not render the control page"
[[ $(page_requests control-netlog.json) == *neograde.invalid* ]] ||
  fail "the net log probe does not see a page's request: the no-external-request check would pass vacuously"
echo "ok: browser (screenshot: $screenshot)"
