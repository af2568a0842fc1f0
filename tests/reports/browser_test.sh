#!/usr/bin/env bash
# The demo's HTML report in headless Chromium: the index has one provenance banner, the
# leaderboard, the matrix and the charts, and links each provider to its page, which has the
# provider's grade, findings, transparency and timings; no rendered cell holds JSON text (nor does
# a Markdown card's table); each badge is well-formed SVG that Chromium renders as an image; no
# page requests anything from any host; the screenshot is kept (SCREENSHOT) for people and CI
# artifacts. Exit 77 (skip) without Chromium.
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
# One banner, whatever the providers: not a paragraph per provider.
[ "$(grep -o 'class="banner' dom.html | wc -l)" -eq 1 ] || fail "the index has $(grep -o 'class="banner' dom.html | wc -l) banners, not one"
grep -q '<li class="fictional">FICTIONAL PROVIDERS, which do not exist .*: Bodgewell GPU.</li>' dom.html ||
  fail "the banner does not name the fictional provider"
# The real providers' emulated cards differ in nothing the banner names: they are not listed in it.
if sed -n '/id="provenance"/,/<\/ul>/p' dom.html | grep -i 'lambda\|vast' >/dev/null; then fail "the banner names a provider that differs in nothing"; fi
render() { # render FILE DOM: the page's DOM after Chromium has loaded it, its requests in DOM.netlog
  timeout 120 "$browser" "${flags[@]}" --log-net-log="$PWD/$2.netlog" --dump-dom "file://$1" >"$2" 2>>browser.err ||
    fail "Chromium could not render $1"
}
for p in "${providers[@]}"; do
  grep -q "data-provider=\"$p\"" dom.html || fail "the matrix has no column for $p"
  # The leaderboard links the provider to its page, which is there and renders.
  grep -q "<tr data-provider=\"$p\"><td class=\"num\">[0-9]*</td><td><a href=\"providers/$p.html\">" dom.html ||
    fail "the leaderboard does not link $p to its page"
  [ -s "demo/providers/$p.html" ] || fail "no page demo/providers/$p.html"
  render "$PWD/demo/providers/$p.html" "page-$p.html"
  grep -q "id=\"provider-$p\"" "page-$p.html" || fail "$p's page has no section for it"
  grep -q "id=\"provider-$p-grade\"" "page-$p.html" || fail "$p's page has no grade"
  grep -q "id=\"provider-$p-transparency\"" "page-$p.html" || fail "no transparency section for $p"
  grep -q '<h3>Developer experience</h3>' "page-$p.html" || fail "$p's page lacks its developer-experience timings"
  grep -q '<a href="../index.html">' "page-$p.html" || fail "$p's page does not link back to the index"
  grep -q '<svg xmlns="http://www.w3.org/2000/svg" class="neograde-badge"' "page-$p.html" || fail "$p's page does not show its badge"
done
grep -q 'class="[^"]*fail' dom.html || fail "no failed cell: the fictional provider's findings are missing"
grep -q '<pre class="reproduce">curl ' page-bodgewell.html || fail "bodgewell's page has no curl line for its findings"
grep -q '<details class="exchange">' page-bodgewell.html || fail "bodgewell's page has no evidence"
# The fictional provider's contradiction (bare metal claimed, a KVM guest found) named in the hall of shame.
grep -q '<h3>Transparency contradicted</h3>' dom.html || fail "the hall of shame names no contradicted claim"
grep -q 'data-provider="bodgewell"><td><a href="providers/bodgewell.html#provider-bodgewell-transparency"' dom.html ||
  fail "the fictional provider's contradiction is not in the hall of shame"
if sed -n '/table class="contradictions"/,/<\/table>/p' dom.html | grep 'data-provider="\(lambda\|vastai\)"' >/dev/null; then
  fail "a real provider's emulated demo shows a contradiction no one measured"
fi
# No rendered cell, on the index or a provider's page, holds JSON text; nor does a Markdown card's table.
python3 - dom.html page-*.html <<'PY' || fail "a rendered cell holds JSON text"
import html.parser, re, sys
json_like = re.compile(r'^\s*[\[{]|\{"|\[\{|\["')
class Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.depth = 0; self.text = []; self.bad = []
    def handle_starttag(self, tag, attrs):
        if tag in ("td", "th"): self.depth += 1; self.text.append("")
    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.depth:
            self.depth -= 1; t = self.text.pop()
            if json_like.search(t): self.bad.append(t[:120])
    def handle_data(self, data):
        if self.depth: self.text[-1] += data
bad = []
for f in sys.argv[1:]:
    c = Cells(); c.feed(open(f, encoding="utf-8").read()); bad += [f + ": " + b for b in c.bad]
for b in bad: print("JSON in a cell:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
for card in demo/providers/*/scorecard.md; do
  # Evidence bodies are fenced on purpose; table rows are what a reader reads as values.
  rows=$(sed '/^```/,/^```/d' "$card" | grep '^|' | grep -E '\{"|\[\{|\["' || true)
  [ -z "$rows" ] || fail "$card has JSON in a table: $rows"
done
# Each badge is well-formed XML, names its source, and Chromium renders it as an image from a relative path.
for p in "${providers[@]}"; do
  python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "demo/badges/$p.svg" || fail "badges/$p.svg is not well-formed XML"
  grep -q '>neograde EMULATED</text>' "demo/badges/$p.svg" || fail "badges/$p.svg does not say EMULATED"
  jq -e '.schemaVersion == 1 and (.label | contains("EMULATED")) and (.message | length > 0) and (.color | length > 0)' \
    "demo/badges/$p.json" >/dev/null || fail "badges/$p.json is not a shields.io endpoint document"
done
# The harness page (not the report) records whether the image decoded: onerror fires for an SVG that does not.
cat >badge.html <<'HTML'
<!DOCTYPE html><html><body data-badge="pending">
<img src="demo/badges/bodgewell.svg" onload="document.body.dataset.badge = 'loaded ' + this.naturalWidth + 'x' + this.naturalHeight" onerror="document.body.dataset.badge = 'error'">
</body></html>
HTML
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$PWD/badge.html" >badge-dom.html 2>>browser.err || fail "Chromium could not render the badge page"
grep -q 'data-badge="loaded [1-9][0-9]*x20"' badge-dom.html || fail "Chromium did not render the badge: $(grep -o 'data-badge="[^"]*"' badge-dom.html)"
timeout 120 "$browser" "${flags[@]}" --window-size=400,60 --screenshot="$PWD/badge.png" "file://$PWD/badge.html" >/dev/null 2>>browser.err ||
  fail "Chromium could not take the badge's screenshot"
mkdir -p "$(dirname "$screenshot")" && cp badge.png "$(dirname "$screenshot")/badge.png"
# Requests made for a page (its network isolation key is file://) to any http(s) URL.
page_requests() { grep '"network_isolation_key":"file://' "$1" | grep -o '"url":"https\?://[^"]*"' | sort -u; }
for log in netlog.json page-*.html.netlog; do
  external=$(page_requests "$log")
  [ -z "$external" ] || fail "the report requested ($log): $external"
done

# A person's observation of creating an account (the fictional provider's example record), merged
# by `neograde report --observations`: on bodgewell's card alone, labelled OBSERVED with who and
# when, its evidence links requesting nothing, the score the same as without it.
examples=$(cd "$(dirname "$0")/../../reports/examples/observations" && pwd) || fail "no example observations"
in=()
for p in "${providers[@]}"; do in+=(--in "demo/providers/$p"); done
"$neograde" report "${in[@]}" --observations "$examples" --out observed >observed.txt 2>observed.err ||
  { cat observed.err >&2; fail "neograde report --observations failed"; }
grep -q '1 observation(s)' observed.txt || fail "the report does not count the observation: $(cat observed.txt)"
render "$PWD/observed/providers/bodgewell.html" observed-dom.html
grep -q 'id="provider-bodgewell-observed"' observed-dom.html || fail "bodgewell's page has no observation"
for p in lambda vastai; do
  render "$PWD/observed/providers/$p.html" "observed-$p.html"
  if grep -q -- '-observed"' "observed-$p.html"; then fail "an observation shows on $p's page"; fi
done
grep -q '<div class="banner observed"><p class="headline">OBSERVED by Example Person (fictional example) on 2026-11-20: ' observed-dom.html ||
  fail "the observation is not labelled OBSERVED with who and when"
grep -q 'promised \$50, received \$0: \$50 short of the promise' observed-dom.html || fail "the credits promised and received are not shown"
sed -n '/id="provider-bodgewell"/,/<\/section>/p' observed-dom.html | grep 'id="provider-bodgewell-observed"' >/dev/null ||
  fail "the observation is not inside bodgewell's card"
render "$PWD/observed/index.html" observed-index.html
grep -q '<li class="observed">OBSERVED: .*Bodgewell GPU (by Example Person (fictional example) on 2026-11-20)' observed-index.html ||
  fail "the index's banner does not say bodgewell's card carries an observation"
external=$(page_requests observed-dom.html.netlog)
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
