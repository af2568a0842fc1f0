#!/usr/bin/env bash
# bench/compare-dredd.sh: peer comparison of Dredd (the npm API testing tool) and `neograde
# conformance` against neograde's RunPod REST v2 emulator, one emulator quirk at a time.
#
#   bench/compare-dredd.sh                       # every known quirk (about 15 minutes)
#   bench/compare-dredd.sh --quirk html_errors --quirk unknown_id_200
#   bench/compare-dredd.sh --keep                # keep the work directory (logs, raw results)
#
# Environment (paths relative to the repository root): NEOGRADE (default build/dev/app/neograde;
# nothing is built), RUNPOD_OPENAPI (default ../shared/provider-openapi/runpod-rest-v2.json, the
# official document, read where it is). Needs node (16 or later) and npm; Dredd 14.1.0 is
# installed on first use into build/bench-tools.
#
# Method. Every run gets a fresh `neograde emulate --provider runpod --time-scale 0.01
# --no-rate-limit` (keys k1,k2), so the two tools never see each other's state. First a baseline
# on the clean emulator, then one run of each tool per quirk. A tool FINDS a quirk when something
# that passed on the baseline fails with the quirk on:
#   Dredd:    a transaction (one documented response of one operation) that passed now fails or
#             errors. Also reported, as a weaker signal, "Dredd diff": the transactions whose error
#             messages include one not seen on the baseline, which a user diffing two Dredd reports
#             would notice even where the transaction already failed on the baseline.
#   neograde: a check that passed now has outcome fail, errored or warn (warn: a SHOULD-level
#             violation, which the scorecard reports as a finding), as written in results.jsonl.
# The emulator sends RateLimit and RateLimit-Policy only on 429s, while the document declares them
# on almost every response, and Dredd fails a transaction for any declared header it misses: most
# of its transactions fail on the clean emulator for that alone. "Dredd, RL ignored" is the same
# FINDS test with those two header errors disregarded: what Dredd would find if the emulator sent them.
# Applicability. The emulator accepts every quirk of `neograde checks --quirks` for every spec,
# but some have nothing to act on in RunPod v2 (no SSH-key operations, an unpaginated list, one
# id per terminate, no region in the launch body) or need 429s, which --no-rate-limit rules out.
# A quirk is "n/a" when every check the catalogue links to it is skipped on the clean baseline
# (neograde says why); n/a quirks are still run and shown, but left out of the totals.
# A tool that crashes, hangs (10 min limit) or writes no results is recorded as such, not fatal.
#
# Output: a table on stdout and bench/results/dredd-<date>.json.
set -euo pipefail
cd "$(dirname "$0")/.."

DREDD_VERSION=14.1.0
neograde=${NEOGRADE:-build/dev/app/neograde}
doc=${RUNPOD_OPENAPI:-../shared/provider-openapi/runpod-rest-v2.json}
tools=build/bench-tools
dredd=$tools/node_modules/.bin/dredd

die() { echo "compare-dredd: error: $*" >&2; exit 2; }
note() { echo "compare-dredd: $*" >&2; }

quirks=() keep=
while [ $# -gt 0 ]; do
  case "$1" in
    --quirk) [ $# -ge 2 ] || die "--quirk needs a name"; quirks+=("$2"); shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done

[ -x "$neograde" ] || die "no neograde binary at $neograde (set NEOGRADE, or build it first)"
[ -f "$doc" ] || die "no RunPod v2 OpenAPI document at $doc (set RUNPOD_OPENAPI to its path)"
{ command -v node && command -v npm; } >/dev/null || die "node and npm are needed"
doc=$(cd "$(dirname "$doc")" && pwd)/$(basename "$doc")

# The quirk list comes from the binary itself (emulator/quirks.cpp, known_quirks()).
mapfile -t known < <("$neograde" checks --quirks | cut -f1)
[ ${#quirks[@]} -gt 0 ] || quirks=("${known[@]}")
for q in "${quirks[@]}"; do
  printf '%s\n' "${known[@]}" | grep -xF -- "$q" >/dev/null || die "unknown quirk $q (see \`neograde checks --quirks\`)"
done

# --- Dredd, pinned, installed once into build/bench-tools -----------------------------------------
if [ ! -x "$dredd" ] || ! "$dredd" --version 2>/dev/null | grep -F "v$DREDD_VERSION" >/dev/null; then
  note "installing dredd@$DREDD_VERSION into $tools (first use only)"
  npm install --no-audit --no-fund --loglevel=error --prefix "$tools" "dredd@$DREDD_VERSION" >&2
  [ -x "$dredd" ] || die "npm did not install dredd into $tools"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/compare-dredd.XXXXXX")
emulator_pid=''
stop_emulator() {
  [ -z "$emulator_pid" ] || { kill "$emulator_pid" 2>/dev/null; wait "$emulator_pid" 2>/dev/null; } || true
  emulator_pid=''
}
# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
  stop_emulator
  if [ -n "$keep" ]; then note "work directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# Dredd 14 has no JSON reporter (xunit, dot, markdown, html, apiary, nyan only), so this hook file
# records, once all transactions ran, each one's name, status and Gavel error messages.
cat >"$work/record.js" <<'EOF'
const hooks = require('hooks');
hooks.afterAll((transactions, done) => {
  const rows = transactions.map((t) => {
    const errors = [];
    for (const [field, r] of Object.entries((t.results && t.results.fields) || {}))
      for (const e of r.errors || []) errors.push(`${field}: ${e.message}`);
    return { name: t.name, status: (t.test && t.test.status) || (t.skip ? 'skip' : 'unknown'), errors };
  });
  require('fs').writeFileSync(process.env.COMPARE_DREDD_OUT, JSON.stringify(rows));
  done();
});
EOF

# --- the document as Dredd reads it -----------------------------------------------------------------
# Dredd's OpenAPI 3 support is experimental. 14.1.0 parses this 3.1.0 document with a warning
# ("Version '3.1.0' is not fully supported"; results are the same as with a copy relabelled 3.0.3),
# so it gets the document unchanged. Should a Dredd compile no transaction from it, it gets a
# temporary copy whose `openapi` field says 3.0.3, the one change needed for it to be recognised;
# 3.1-only keywords (type arrays, schema `examples`) stay, and Dredd ignores them with warnings as
# it does allOf/anyOf. (Rewriting them to 3.0 form was tried: it changed the body schemas Dredd
# derives, adding 64 spurious failures, so it is not done.)
dredd_doc=$doc conversion=none
compiled() {  # DOC: how many transactions Dredd compiles from it (a dry run, no request sent)
  COMPARE_DREDD_OUT=$work/dry.json "$dredd" "$1" http://127.0.0.1:9 --dry-run \
    --hookfiles "$work/record.js" --loglevel error >"$work/dry.log" 2>&1 || true
  node -e 'try { console.log(require(process.argv[1]).length) } catch (e) { console.log(0) }' "$work/dry.json"
}
if [ "$(compiled "$dredd_doc")" -eq 0 ]; then
  dredd_doc=$work/runpod-rest-v2.openapi303.json conversion='openapi field 3.1.0 -> 3.0.3'
  node -e 'const fs = require("fs"), d = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
           d.openapi = "3.0.3"; fs.writeFileSync(process.argv[2], JSON.stringify(d));' "$doc" "$dredd_doc"
  note "Dredd compiled no transaction from $doc; using a temporary copy relabelled openapi 3.0.3"
  [ "$(compiled "$dredd_doc")" -gt 0 ] || die "Dredd compiles no transaction from $doc (see $work/dry.log)"
fi
# The emulator prints its base URL with the spec's base path, http://127.0.0.1:PORT/v2. The
# document's server is https://api.runpod.io and its paths already begin with /v2, so Dredd (which
# appends document paths to the URL it is given) gets the bare origin.
node -e 'process.exit(Object.keys(require(process.argv[1]).paths).every((p) => p.startsWith("/v2/")) ? 0 : 1)' \
  "$doc" || die "the paths of $doc do not all begin with /v2, as this script assumes"

# --- one run: a fresh emulator, one tool, its wall time ---------------------------------------------
# run TOOL LABEL [QUIRK]: writes $work/TOOL-LABEL.* and appends a manifest line: tool, label, quirk,
# state (ok, timeout, crashed, no results, incomplete, emulator did not start/died), seconds.
run() {
  local tool=$1 label=$2 quirk=${3:-} base=$work/$1-$2 state=ok rc=0 t0 t1 url _
  "$neograde" emulate --provider runpod --port 0 --keys k1,k2 --time-scale 0.01 --no-rate-limit \
    ${quirk:+--quirk "$quirk"} >"$base.emulator.out" 2>"$base.emulator.err" &
  emulator_pid=$!
  for _ in $(seq 100); do  # up to 10 s for the base URL and the two keys
    [ "$(grep -c '^key: ' "$base.emulator.out" 2>/dev/null)" -ge 2 ] && break
    kill -0 "$emulator_pid" 2>/dev/null || break
    sleep 0.1
  done
  url=$(head -1 "$base.emulator.out")
  if [[ "$url" != http://*/v2 ]] || ! kill -0 "$emulator_pid" 2>/dev/null; then
    stop_emulator
    printf '%s\t%s\t%s\t%s\t0\n' "$tool" "$label" "$quirk" "emulator did not start" >>"$work/manifest.tsv"
    return 0
  fi
  t0=$EPOCHREALTIME
  if [ "$tool" = dredd ]; then
    COMPARE_DREDD_OUT=$base.json timeout 600 "$dredd" "$dredd_doc" "${url%/v2}" \
      --header "Authorization: Bearer k1" --hookfiles "$work/record.js" --no-color >"$base.log" 2>&1 || rc=$?
    [ -s "$base.json" ] || state="no results"
  else
    timeout 600 "$neograde" conformance --spec runpod --base-url "$url" --api-key k1 \
      --second-api-key k2 --out "$base.out" >"$base.log" 2>&1 || rc=$?
    grep -q '"record":"footer"' "$base.out/results.jsonl" 2>/dev/null || state="no results"
    grep -q '"complete":false' "$base.out/results.jsonl" 2>/dev/null && state=incomplete
  fi
  t1=$EPOCHREALTIME
  # Dredd exits 1 when a transaction fails and conformance exits non-zero when a check fails;
  # only a timeout, a signal or a run without results is a crash.
  if [ "$rc" -eq 124 ]; then state=timeout
  elif [ "$rc" -gt 128 ]; then state="crashed (signal $((rc - 128)))"
  elif [ "$state" = "no results" ]; then state="no results (exit $rc)"; fi
  kill -0 "$emulator_pid" 2>/dev/null || state="$state; emulator died"
  stop_emulator
  printf '%s\t%s\t%s\t%s\t%s\n' "$tool" "$label" "$quirk" "$state" \
    "$(echo "$t0 $t1" | tr , . | awk '{ printf "%.2f", $2 - $1 }')" >>"$work/manifest.tsv"
}

: >"$work/manifest.tsv"
note "baseline (no quirk), then ${#quirks[@]} quirk(s); logs in $work"
run dredd baseline
run neograde baseline
for tool in dredd neograde; do
  grep -q "^$tool"$'\tbaseline\t\tok\t' "$work/manifest.tsv" ||
    die "$tool failed on the clean emulator (see $work/$tool-baseline.log; run with --keep)"
done
i=0
for q in "${quirks[@]}"; do
  i=$((i + 1)); note "[$i/${#quirks[@]}] $q"
  run dredd "$q" "$q"
  run neograde "$q" "$q"
done

# --- comparison, table and JSON ---------------------------------------------------------------------
"$neograde" checks --format json >"$work/catalogue.json"
mkdir -p bench/results
out=bench/results/dredd-$(date +%F).json
cat >"$work/compare.js" <<'EOF'
const fs = require('fs');
const [work, out, meta] = [process.argv[2], process.argv[3], JSON.parse(process.argv[4])];
const read = (f) => fs.readFileSync(`${work}/${f}`, 'utf8');
const runs = read('manifest.tsv').trim().split('\n').map((l) => l.split('\t'))
  .map(([tool, label, quirk, state, s]) => ({ tool, label, quirk, state, seconds: Number(s) }));
const run = (tool, label) => runs.find((r) => r.tool === tool && r.label === label);
const dredd = (label) => new Map(JSON.parse(read(`dredd-${label}.json`)).map((t) => [t.name, t]));
const neograde = (label) => new Map(read(`neograde-${label}.out/results.jsonl`).trim().split('\n')
  .map(JSON.parse).filter((r) => r.record === 'outcome').map((r) => [r.check_id, r]));
const BAD_DREDD = new Set(['fail', 'error']), BAD_NG = new Set(['fail', 'errored', 'warn']);
const RL = /^headers: At '\/ratelimit(-policy)?' /;  // the emulator's RateLimit gap (see the script's header)
const badButRL = (t) => t.status === 'error' || t.errors.some((e) => !RL.test(e));
const db = dredd('baseline'), nb = neograde('baseline'), linked = {};
for (const c of JSON.parse(read('catalogue.json'))) (linked[c.quirk] ||= []).push(c.id);

const rows = runs.filter((r) => r.tool === 'dredd' && r.quirk).map(({ quirk }) => {
  const dr = run('dredd', quirk), nr = run('neograde', quirk), checks = linked[quirk] || [];
  const row = { quirk, applicable: true, linked_checks: checks,
                dredd: { state: dr.state, seconds: dr.seconds }, neograde: { state: nr.state, seconds: nr.seconds } };
  const base = checks.map((id) => nb.get(id)).filter(Boolean);
  if (base.length && base.every((o) => o.outcome === 'skipped')) Object.assign(row, { applicable: false, na_reason: base[0].reason });
  if (dr.state === 'ok') {
    const now = [...dredd(quirk).values()];
    row.dredd.newly_failing = now.filter((t) => BAD_DREDD.has(t.status) && db.get(t.name)?.status === 'pass').map((t) => t.name);
    row.dredd.finds = row.dredd.newly_failing.length > 0;
    row.dredd.finds_ratelimit_ignored = now.some((t) => badButRL(t) && db.has(t.name) && !badButRL(db.get(t.name)));
    row.dredd.diff = now.filter((t) => { const b = new Set(db.get(t.name)?.errors); return t.errors.some((e) => !b.has(e)); }).length;
  }
  if (nr.state === 'ok') {
    row.neograde.newly_failing = [...neograde(quirk).values()]
      .filter((o) => BAD_NG.has(o.outcome) && nb.get(o.check_id)?.outcome === 'pass').map((o) => ({ check: o.check_id, outcome: o.outcome }));
    row.neograde.finds = row.neograde.newly_failing.length > 0;
    row.neograde.linked_check_failed = row.neograde.newly_failing.some((f) => checks.includes(f.check));
  }
  return row;
});

const median = (xs) => { const s = [...xs].sort((a, b) => a - b), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const app = rows.filter((r) => r.applicable), n = (f) => app.filter(f).length;
const totals = { quirks: rows.length, applicable: app.length, not_applicable: rows.length - app.length,
  dredd: n((r) => r.dredd.finds), neograde: n((r) => r.neograde.finds), both: n((r) => r.dredd.finds && r.neograde.finds),
  neither: n((r) => !r.dredd.finds && !r.neograde.finds), dredd_diff: n((r) => r.dredd.diff > 0),
  dredd_ratelimit_ignored: n((r) => r.dredd.finds_ratelimit_ignored) };
const median_seconds = {};
for (const t of ['dredd', 'neograde']) median_seconds[t] = median(runs.filter((r) => r.tool === t && r.state === 'ok').map((r) => r.seconds));
const dbl = [...db.values()], count = (s) => dbl.filter((t) => t.status === s).length, ncounts = {};
for (const o of nb.values()) ncounts[o.outcome] = (ncounts[o.outcome] || 0) + 1;
const baseline = {
  dredd: { transactions: dbl.length, passing: count('pass'), failing: count('fail'), errors: count('error'), skipped: count('skip'),
           passing_ratelimit_ignored: dbl.filter((t) => !badButRL(t)).length,
           passing_transactions: dbl.filter((t) => t.status === 'pass').map((t) => t.name), seconds: run('dredd', 'baseline').seconds },
  neograde: { checks: nb.size, outcomes: ncounts, failing: [...nb.values()].filter((o) => BAD_NG.has(o.outcome)).map((o) => o.check_id),
              seconds: run('neograde', 'baseline').seconds } };
fs.writeFileSync(out, JSON.stringify({ ...meta, baseline, totals, median_seconds, quirks: rows }, null, 2) + '\n');

const cell = (t, key = 'finds') => (t.state !== 'ok' ? t.state : t[key] ? 'yes' : 'no');
const short = (ids) => ids.map((id) => id.replace(/^[^.]+\./, '')).slice(0, 2).join(', ') + (ids.length > 2 ? ` +${ids.length - 2}` : '');
const table = [['quirk', 'applies', 'Dredd finds?', 'Dredd, RL ignored', 'Dredd diff', 'neograde finds?', 'neograde checks newly failing']];
for (const r of rows) table.push([r.quirk, r.applicable ? 'yes' : 'n/a', cell(r.dredd), cell(r.dredd, 'finds_ratelimit_ignored'), String(r.dredd.diff ?? '-'),
  cell(r.neograde), r.neograde.newly_failing ? short(r.neograde.newly_failing.map((f) => f.check)) : '-']);
const w = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
for (const row of table) console.log(row.map((c, i) => c.padEnd(w[i])).join(' | ').trimEnd());
console.log('\nRL ignored: RateLimit header errors disregarded; Dredd diff: transactions with an error not seen on the baseline');
if (totals.not_applicable) console.log('n/a (left out of the totals):');
for (const r of rows.filter((r) => !r.applicable)) console.log(`  ${r.quirk}: ${r.na_reason}`);
console.log(`\ntotals over ${totals.applicable} applicable quirks: Dredd finds ${totals.dredd}, neograde finds ${totals.neograde}, ` +
  `both ${totals.both}, neither ${totals.neither}; Dredd with RateLimit errors ignored ${totals.dredd_ratelimit_ignored}, Dredd diff on ${totals.dredd_diff}`);
console.log(`median wall time per run: Dredd ${median_seconds.dredd.toFixed(2)} s, neograde ${median_seconds.neograde.toFixed(2)} s`);
const b = baseline.dredd;
console.log(`clean-emulator baseline: Dredd ${b.transactions} transactions: ${b.passing} pass (${b.passing_ratelimit_ignored} with RateLimit ` +
  `errors ignored), ${b.failing} fail, ${b.errors} error, ${b.skipped} skipped; neograde ${nb.size} checks ${JSON.stringify(ncounts)}, failing: ${baseline.neograde.failing.join(', ') || 'none'}`);
console.log(`wrote ${out}`);
EOF
meta=$(node -e 'const [dredd, neograde, nproc, arch, doc, conversion] = process.argv.slice(1);
  console.log(JSON.stringify({ date: new Date().toISOString(), tools: { dredd, neograde, node: process.version },
    machine: { nproc: Number(nproc), arch }, openapi_document: doc, dredd_document_conversion: conversion,
    dredd_invocation: "dredd DOC http://127.0.0.1:PORT --header \"Authorization: Bearer k1\" --hookfiles record.js --no-color",
    emulator: "neograde emulate --provider runpod --port 0 --keys k1,k2 --time-scale 0.01 --no-rate-limit [--quirk Q]" }))' \
  "$("$dredd" --version 2>/dev/null | head -1)" "$("$neograde" --version)" "$(nproc)" "$(uname -m)" "$doc" "$conversion")
node "$work/compare.js" "$work" "$out" "$meta"
