#!/usr/bin/env bash
# End-to-end tests of the neograde CLI: exit codes, one-line errors, written files.
# Usage: cli_test.sh CASE NEOGRADE WORK_DIR [FIXTURE_STATE_DIR]
set -uo pipefail
case_name=$1 neograde=$2 work=$3 state=${4:-}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }

# Runs neograde, capturing stdout, stderr and the exit code.
run() {
  "$neograde" "$@" >out.txt 2>err.txt
  rc=$?
}

# The error output is exactly one line starting "neograde: error:", containing $1.
one_error_line() {
  [ "$(wc -l <err.txt)" -eq 1 ] || { cat err.txt >&2; fail "expected one error line"; }
  grep -q "^neograde: error: .*$1" err.txt || { cat err.txt >&2; fail "expected an error mentioning '$1'"; }
}

base_url() { head -1 "$state/emulator.out"; }
key() { sed -n 's/^key: //p' "$state/emulator.out" | sed -n "${1}p"; }

case "$case_name" in
  conformance_clean)
    run conformance --spec "$PROVIDER" --base-url "$(base_url)" --api-key "$(key 1)" \
      --second-api-key "$(key 2)" --out out
    [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; fail "exit code $rc, expected 0"; }
    for f in results.jsonl scorecard.json scorecard.md; do [ -s "out/$f" ] || fail "missing out/$f"; done
    # Whole-line captures: grep -q closing a pipe early would fail the pipeline under pipefail.
    first=$(head -1 out/results.jsonl)
    last=$(tail -1 out/results.jsonl)
    [[ $first == *'"record":"header"'* ]] || fail "results.jsonl has no header first"
    [[ $last == *'"record":"footer"'* ]] || fail "results.jsonl has no footer last"
    grep -q '"source":"emulated"' out/results.jsonl || fail "results not labelled emulated"
    grep -q 'EMULATED' out/scorecard.md || fail "scorecard.md lacks the EMULATED banner"
    if grep -qE '"outcome":"(fail|warn|errored)"' out/results.jsonl; then fail "a check did not pass on the clean emulator"; fi
    for k in "$(key 1)" "$(key 2)"; do
      secret=${k#*:}
      if grep -rqF -- "$k" out || grep -rqF -- "$secret" out; then fail "an API key leaked into the output"; fi
    done
    ;;
  preflight)
    # Every provider's emulator treated as live: ready, read-only, with the offer it would launch,
    # its cost and what the run would create. The required variables come from the environment
    # (their emulator values, set by CMake), as a live user would set them.
    NEOGRADE_LIVE=1 run preflight --spec "$PROVIDER" --base-url "$(base_url)" --api-key "$(key 1)" \
      --second-api-key "$(key 2)" --treat-as-live --allow-spend --max-spend 1000
    [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; fail "exit code $rc, expected 0 (ready)"; }
    grep -q '^the API key works' out.txt || fail "no key line"
    grep -q '^offer: ' out.txt || fail "no offer line"
    # What the run would create, or (a catalogue without prices) why live launching would be refused.
    grep -qE '^(would create an instance |the run launches nothing: the pre-check would refuse)' out.txt ||
      fail "no line saying what would be created"
    grep -q '^READY$' out.txt || fail "not READY"
    run preflight --spec "$PROVIDER" --base-url "$(base_url)" --api-key "$(key 1)" --treat-as-live --json
    [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; fail "--json: exit code $rc"; }
    grep -q '"ready": true' out.txt || fail "--json: not ready"
    grep -q '"allowed": false' out.txt || fail "--json: spending allowed without --allow-spend and NEOGRADE_LIVE=1"
    grep -q '"check": "isolation.instance.get_denied"' out.txt || fail "--json: isolation not predicted skipped without a second key"
    run preflight --spec "$PROVIDER" --base-url "$(base_url)" --api-key not-a-key --treat-as-live
    [ "$rc" -eq 1 ] || fail "a rejected key: exit code $rc, expected 1 (not ready)"
    grep -q 'API key was rejected' out.txt || fail "a rejected key is not named"
    if grep -q 'not-a-key' out.txt err.txt; then fail "the key was printed"; fi
    ;;
  preflight_missing_variable)
    # A required variable unset on a live run: exit 2 naming it and its environment variable,
    # before any request (the URL is a closed port: a request would be "cannot reach").
    env -u CRUSOE_PROJECT_ID "$neograde" preflight --spec crusoe --base-url http://127.0.0.1:9/v1alpha5 \
      --api-key id:c2VjcmV0 --treat-as-live >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq 2 ] || { cat out.txt err.txt >&2; fail "exit code $rc, expected 2"; }
    one_error_line "project_id (set CRUSOE_PROJECT_ID or --set project_id=...)"
    env -u CRUSOE_PROJECT_ID "$neograde" conformance --spec crusoe --base-url http://127.0.0.1:9/v1alpha5 \
      --api-key id:c2VjcmV0 --treat-as-live --out out >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq 2 ] || fail "conformance: exit code $rc, expected 2"
    one_error_line "CRUSOE_PROJECT_ID"
    [ ! -e out/results.jsonl ] || fail "conformance wrote results without its variables"
    run preflight --spec crusoe --base-url http://127.0.0.1:9/v1alpha5 --api-key id:c2VjcmV0 --set projectid=x
    [ "$rc" -eq 2 ] || fail "--set of an unknown variable: exit code $rc, expected 2"
    one_error_line "has no such variable"
    # With the variable set, the same command gets as far as the network (and says so).
    run preflight --spec crusoe --base-url http://127.0.0.1:9/v1alpha5 --api-key id:c2VjcmV0 --treat-as-live \
      --set project_id=00000000-0000-0000-0000-000000000000
    [ "$rc" -eq 1 ] || fail "an unreachable provider: exit code $rc, expected 1 (not ready)"
    grep -q 'cannot reach' out.txt || fail "the unreachable provider is not named"
    ;;
  variable_discovered)
    # Spheron's team id unset on a live run: read from GET /api/teams (the first team's id, as
    # SkyPilot's Spheron back-end reads it) instead of refusing to start; when that read fails,
    # exit 2 naming the variable, where it was read and how to set it.
    env -u SPHERON_TEAM_ID "$neograde" preflight --spec spheron --base-url "$(base_url)" --api-key "$(key 1)" \
      --treat-as-live --json >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; fail "exit code $rc, expected 0 (the team id read from /teams)"; }
    grep -q '"ready": true' out.txt || fail "not ready with the team id read from /teams"
    env -u SPHERON_TEAM_ID "$neograde" preflight --spec spheron --base-url "$(base_url)" --api-key not-a-key \
      --treat-as-live >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq 2 ] || { cat out.txt err.txt >&2; fail "an unreadable team id: exit code $rc, expected 2"; }
    one_error_line "team_id, which GET /teams did not give .*SPHERON_TEAM_ID or --set team_id="
    if grep -q 'not-a-key' out.txt err.txt; then fail "the key was printed"; fi
    ;;
  timing_override)
    # Timings a user replaces are recorded and shown, never passed off as the spec's.
    run conformance --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --out out \
      --time-to-running 900 --time-to-gone 450
    [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; fail "exit code $rc, expected 0"; }
    first=$(head -1 out/results.jsonl)
    [[ $first == *'"overridden":{"time_to_gone_s":{"spec":300'*'"value":450'*'"time_to_running_s":{"spec":600'*'"value":900'* ]] ||
      fail "the header does not record the overrides: $first"
    grep -q 'non-standard, set by the user' out/scorecard.md || fail "scorecard.md does not say the timings are non-standard"
    run conformance --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --out out2 --time-to-running 0
    [ "$rc" -eq 2 ] || fail "--time-to-running 0: exit code $rc, expected 2"
    ;;
  read_only)
    # The read-only audit on an emulator of its own: exit 0, the launching checks not run, and the
    # emulator's own count says no create request was sent, no instance and no key made.
    command -v curl >/dev/null || { echo "SKIP: curl is not installed" >&2; exit 77; }
    run conformance --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --second-api-key "$(key 2)" --read-only --out out
    [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; fail "exit code $rc, expected 0"; }
    grep -q '^read-only audit .* of lambda: creates nothing' err.txt || { cat err.txt >&2; fail "no line saying the audit creates nothing"; }
    head -1 out/results.jsonl | grep '"read_only":true' >/dev/null || fail "the header does not say read_only"
    grep -q '"check_id":"lifecycle.instance.launch_returns_id".*"reason":"not run: read-only audit (launches an instance)"' out/results.jsonl ||
      fail "the launch is not reported as not run"
    grep -q '"check_id":"lifecycle.ssh_key.visible_after_add".*"reason":"not run: read-only audit (registers an SSH key)"' out/results.jsonl ||
      fail "the key check is not reported as not run"
    tail -1 out/results.jsonl | grep '"api_traffic":{' >/dev/null || fail "no api_traffic measurement"
    tail -1 out/results.jsonl | grep '"catalogue":{' >/dev/null || fail "no catalogue measurement"
    state=$(curl -sf "$(base_url | sed -E 's#^(https?://[^/]+).*#\1#')/_neograde/state") || fail "no emulator state"
    [[ $state == *'"create_requests":0'* && $state == *'"instances_created":0'* && $state == *'"ssh_keys_created":0'* ]] ||
      fail "the audit created something: $state"
    # The results load as any run's: a report, and the history.
    run report --in out/results.jsonl --out report
    [ "$rc" -eq 0 ] || { cat err.txt >&2; fail "report of the audit: exit $rc"; }
    run history add --history history --in out
    [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; fail "history add of the audit: exit $rc"; }
    # Nothing that spends goes with it.
    run conformance --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --read-only --allow-spend --out out2
    [ "$rc" -eq 2 ] || fail "--read-only --allow-spend: exit $rc, expected 2"
    [ ! -e out2/results.jsonl ] || fail "--read-only --allow-spend ran"
    run conformance --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --read-only --remote-exec --out out2
    [ "$rc" -eq 2 ] || fail "--read-only --remote-exec: exit $rc, expected 2"
    ;;
  conformance_quirk)
    run conformance --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --out out
    [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1 under a quirk"
    grep -q '"check_id":"lifecycle.instance.gone_after_terminate".*"outcome":"fail"' out/results.jsonl ||
      fail "gone_after_terminate did not fail under ghost_after_terminate"
    grep -q '"check_id":"lifecycle.run.nothing_left_behind".*"outcome":"fail"' out/results.jsonl ||
      fail "the run's leak check did not report the ghosts"
    # The worked example of reports/README.md: 100 x (191 - 2 x 8) / 191, capped at Bronze. A slow
    # (sanitized) build may not reach the emulator's rate limit within the probe's 300 requests:
    # its two (low) checks are then skipped, and the same formula gives 100 x (189 - 2 x 8) / 189.
    expected='"score": 91.5'
    if grep -q '"check_id":"ratelimit.response.has_retry_after".*"outcome":"pass"' out/results.jsonl; then expected='"score": 91.6'; fi
    grep -q "$expected" out/scorecard.json && grep -q '"tier": "Bronze"' out/scorecard.json ||
      fail "the worked example in reports/README.md no longer holds: $(grep -E '"(score|tier)"' out/scorecard.json)"
    ;;
  record_replay)
    # A run recorded from the emulator (with a quirk), then re-graded from the cassette alone.
    run conformance --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --out rec --record run.cassette
    [ "$rc" -eq 1 ] || { cat err.txt >&2; fail "recording: exit code $rc, expected 1 under a quirk"; }
    [ -s run.cassette ] || fail "no cassette written"
    if grep -qF "$(key 1)" run.cassette; then fail "the API key is in the cassette"; fi
    run conformance --spec lambda --replay run.cassette --out rep
    [ "$rc" -eq 1 ] || { cat err.txt >&2; fail "replay: exit code $rc, expected 1 (the same failure)"; }
    grep -q '"source":"replay"' rep/results.jsonl || fail "replayed results are not labelled replay"
    grep -q '"check_id":"lifecycle.instance.gone_after_terminate".*"outcome":"fail"' rep/results.jsonl ||
      fail "the replay lost the recorded failure"
    [ "$(grep -E '"(score|tier)"' rec/scorecard.json)" = "$(grep -E '"(score|tier)"' rep/scorecard.json)" ] ||
      fail "the replay graded differently: $(grep -E '"(score|tier)"' rec/scorecard.json rep/scorecard.json)"
    # One request changed in the cassette: the replay stops trusting it and says where.
    sed '5s#"url":"\([^"]*\)"#"url":"\1-changed"#' run.cassette >changed.cassette
    run conformance --spec lambda --replay changed.cassette --out bad
    [ "$rc" -eq 2 ] || { cat err.txt >&2; fail "a changed cassette: exit code $rc, expected 2"; }
    grep -q 'does not match the cassette .*request #3' err.txt || { cat err.txt >&2; fail "the mismatch is not named"; }
    run conformance --spec vastai --replay run.cassette --out wrong
    [ "$rc" -eq 2 ] && one_error_line "recorded from lambda"
    ;;
  secret_scan)
    # Distinctive keys (the fixture's --keys: "<id>:<secret>" for the composite schemes) through
    # every command that writes or prints: conformance with a recording, its replay, fuzz, report.
    # Not one of the values may appear in any file written or anything printed.
    k1=$(key 1) k2=$(key 2)
    run conformance --spec "$PROVIDER" --base-url "$(base_url)" --api-key "$k1" --second-api-key "$k2" \
      --out conf --record run.cassette
    [ "$rc" -le 1 ] || { cat err.txt >&2; fail "conformance: exit code $rc"; }
    cat out.txt err.txt >printed.txt
    run conformance --spec "$PROVIDER" --replay run.cassette --out replay
    [ "$rc" -le 1 ] || { cat err.txt >&2; fail "replay: exit code $rc"; }
    cat out.txt err.txt >>printed.txt
    run fuzz --spec "$PROVIDER" --base-url "$(base_url)" --api-key "$k1" --second-api-key "$k2" --seed 11 \
      --max-requests 300 --out fuzz
    [ "$rc" -le 1 ] || { cat err.txt >&2; fail "fuzz: exit code $rc"; }
    cat out.txt err.txt >>printed.txt
    run report --in conf --in fuzz --in replay --out report
    [ "$rc" -le 1 ] || { cat err.txt >&2; fail "report: exit code $rc"; }
    cat out.txt err.txt >>printed.txt
    [ -s run.cassette ] && [ -s report/index.html ] || fail "nothing was written to scan"
    # The scan sees secrets where they are: a control file with the key in it is found.
    echo "$k1" >control.txt
    grep -rlF -- "${k1#*:}" control.txt >/dev/null || fail "the scan cannot see the key"
    rm control.txt
    for k in "$k1" "$k2"; do
      for part in "$k" "${k%%:*}" "${k#*:}"; do
        if hits=$(grep -rlF -- "$part" . 2>/dev/null); then fail "a key (${part:0:6}...) leaked into: $hits"; fi
      done
    done
    ;;
  fuzz_clean)
    run fuzz --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --second-api-key "$(key 2)" \
      --seed 3 --max-requests 400 --out out
    [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; fail "exit code $rc, expected 0 on the clean emulator"; }
    first=$(head -1 out/findings.jsonl)
    last=$(tail -1 out/findings.jsonl)
    [[ $first == *'"record":"header"'* && $first == *'"source":"emulated"'* ]] || fail "findings.jsonl has no emulated header"
    [[ $last == *'"record":"footer"'* && $last == *'"requests":400'* ]] || fail "findings.jsonl footer lacks 400 requests"
    if grep -q '"record":"outcome"' out/findings.jsonl; then fail "a finding on the clean emulator"; fi
    grep -q "0 findings from 400 requests" out.txt || fail "no summary line"
    # On several connections: the same budget to the request, still nothing found.
    run fuzz --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --second-api-key "$(key 2)" \
      --seed 3 --max-requests 400 --connections 3 --out out4
    [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; fail "--connections 3: exit code $rc, expected 0"; }
    last=$(tail -1 out4/findings.jsonl)
    [[ $last == *'"requests":400'* && $last == *'"connections":3'* ]] || fail "--connections 3: footer $last"
    run fuzz --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --connections 0 --out out5
    [ "$rc" -eq 2 ] || fail "--connections 0: exit code $rc, expected 2"
    ;;
  fuzz_quirk)
    # The emulator answers a body that is not JSON with 500: the finding's curl line, run with
    # the key in the environment, must get that 500 again.
    run fuzz --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --seed 5 --max-requests 400 --out out
    [ "$rc" -eq 1 ] || { cat err.txt >&2; fail "exit code $rc, expected 1"; }
    grep -q '"check_id":"fuzz.server_error.' out/findings.jsonl || fail "no server_error finding"
    line=$(grep -m1 '^  reproduce: curl .*--data-raw' err.txt | sed 's/^  reproduce: //')
    [ -n "$line" ] || { cat err.txt >&2; fail "no curl line printed"; }
    key1=$(key 1)
    if grep -qF -- "$key1" out/findings.jsonl err.txt out.txt; then fail "the API key leaked"; fi
    status=$(LAMBDA_API_KEY=$key1 bash -c "$line" | head -1)
    [[ $status == *" 500"* ]] || fail "the curl line did not reproduce the 500: $status ($line)"
    # The same seed finds the same things.
    ids1=$(grep -o '"check_id":"[^"]*"' out/findings.jsonl)
    run fuzz --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --seed 5 --max-requests 400 --out out2
    ids2=$(grep -o '"check_id":"[^"]*"' out2/findings.jsonl)
    [ "$ids1" = "$ids2" ] || fail "seed 5 found different things: $ids1 / $ids2"
    # --max-findings 1: the same first finding, and the campaign ends there.
    run fuzz --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --seed 5 --max-requests 400 --max-findings 1 --out out3
    [ "$rc" -eq 1 ] || { cat err.txt >&2; fail "--max-findings 1: exit code $rc, expected 1"; }
    ids3=$(grep -o '"check_id":"[^"]*"' out3/findings.jsonl)
    [ "$ids3" = "$(head -n1 <<<"$ids1")" ] || fail "--max-findings 1 found: $ids3 (all: $ids1)"
    if grep -q "1 findings from 400 requests" out.txt; then fail "--max-findings 1 spent the whole budget"; fi
    ;;
  malformed_spec)
    printf '{\n "spec_version": "1.0.0",\n "provider": 3\n}\n' >broken.json
    run conformance --spec broken.json --base-url http://127.0.0.1:9/ --api-key k
    [ "$rc" -eq 2 ] || fail "exit code $rc, expected 2"
    one_error_line "broken.json at /"
    ;;
  unreachable_url)
    run conformance --spec lambda --base-url http://127.0.0.1:9/api/v1 --api-key k --out out
    [ "$rc" -eq 2 ] || fail "exit code $rc, expected 2"
    one_error_line "cannot reach http://127.0.0.1:9/api/v1"
    ;;
  bad_url)
    run conformance --spec lambda --base-url "http://127.0.0.1.example.com/" --api-key k
    [ "$rc" -eq 2 ] || fail "exit code $rc, expected 2"
    one_error_line "not an http(s) URL"
    ;;
  wrong_key)
    run conformance --spec lambda --base-url "$(base_url)" --api-key not-a-key --out out
    [ "$rc" -eq 2 ] || fail "exit code $rc, expected 2"
    one_error_line "API key was rejected"
    if grep -q 'not-a-key' err.txt; then fail "the key was printed"; fi
    ;;
  missing_key)
    env -u LAMBDA_API_KEY "$neograde" conformance --spec lambda --base-url "$(base_url)" >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq 2 ] || fail "exit code $rc, expected 2"
    one_error_line "set LAMBDA_API_KEY"
    ;;
  tls)
    url=$(base_url)
    ca=$(sed -n 's/^ca: //p' "$state/emulator.out")
    case "$url" in https://*) ;; *) fail "fixture is not TLS: $url" ;; esac
    run conformance --spec lambda --base-url "$url" --api-key "$(key 1)" --out out
    [ "$rc" -eq 2 ] || fail "exit code $rc without the CA, expected 2"
    one_error_line "certificate verify failed"
    run conformance --spec lambda --base-url "$url" --api-key "$(key 1)" --ca-file "$state/$ca" --out out
    [ "$rc" -eq 0 ] || { cat err.txt >&2; fail "exit code $rc with the CA, expected 0"; }
    ;;
  unknown_quirk)
    run emulate --provider lambda --quirk no_such_quirk
    [ "$rc" -eq 2 ] || fail "exit code $rc, expected 2"
    one_error_line "unknown quirk"
    ;;
  help)
    for sub in conformance emulate demo providers checks; do
      "$neograde" "$sub" --help >out.txt 2>&1 || fail "$sub --help failed"
      grep -q "Usage" out.txt || fail "$sub --help printed no usage"
    done
    run no-such-command
    [ "$rc" -eq 2 ] || fail "unknown subcommand gave exit code $rc"
    ;;
  demo)
    run demo --out demo-out
    [ "$rc" -eq 0 ] || { cat err.txt >&2; fail "demo exit code $rc"; }
    [ -s demo-out/index.md ] && [ -s demo-out/results.jsonl ] || fail "demo wrote no index.md or results.jsonl"
    for card in demo-out/providers/*/scorecard.md; do
      grep -q 'EMULATED' "$card" || fail "$card lacks the EMULATED banner"
    done
    [ "$(ls demo-out/providers | wc -l)" -ge 2 ] || fail "demo graded fewer than two providers"
    grep -q 'fictional' demo-out/index.md || fail "index does not mark the fictional provider"
    grep -q 'EMULATED' demo-out/index.md || fail "index lacks the EMULATED banner"
    # Grouped by kind (issue 23): each kind its own table, in order; the DePIN networks with
    # Bodgenet's findings (fake supply, a deposit kept, another node operator, a reseller's claim).
    kinds=$(grep '^## ' demo-out/index.md | tr '\n' '|')
    [ "$kinds" = "## Neoclouds|## Marketplaces|## Aggregators|## DePIN networks|## Hyperscalers|" ] ||
      fail "index not grouped by kind: $kinds"
    depin=$(sed -n '/^## DePIN networks/,/^## /p' demo-out/index.md)  # whole: grep -q would cut sed off (pipefail)
    grep -q 'Bodgenet (fictional) | depin' <<<"$depin" || fail "Bodgenet is not among the DePIN networks"
    for finding in '`capacity.offers.advertised_is_launchable` | capacity | high | fail' \
      '`billing.deposit.released_after_teardown` | billing | high | fail' \
      '`transparency.instance.underlying_provider_as_listed` | transparency | high | fail' '**contradicted**'; do
      grep -qF "$finding" demo-out/providers/bodgenet/scorecard.md || fail "Bodgenet's card lacks $finding"
    done
    # Supply composition (issue 40): Bodgenet's "community" is two centralised suppliers, a
    # contradiction of its claim; Spheron's catalogue is of the suppliers it names; every
    # aggregator and DePIN card has the supply row and, where its offers name suppliers, the table.
    grep -q '^| supply | decentralised supply .* | 2 suppliers over 5 GPU offer rows .*HHI 6,800.* | \*\*contradicted\*\* |' \
      demo-out/providers/bodgenet/scorecard.md || fail "Bodgenet's supply claim is not contradicted"
    grep -q '^| Supplier hyperlease-dc | 4 offer rows, 80% |' demo-out/providers/bodgenet/scorecard.md ||
      fail "Bodgenet's card lacks the supply composition table"
    grep -q '^| supply | named suppliers: .* | consistent |' demo-out/providers/spheron/scorecard.md ||
      fail "Spheron's supply claim is not consistent"
    for kind in aggregator depin; do
      for card in $(grep -l "\"kind\": *\"$kind\"" demo-out/providers/*/scorecard.json); do
        grep -q '^| supply | ' "${card%.json}.md" || fail "$card ($kind) has no supply row"
      done
    done
    # Every demo key (and secret half) carries "demokey_": none may appear in a file or on a terminal.
    if grep -rq 'demokey_' demo-out out.txt err.txt; then fail "an emulator key leaked into the demo's output"; fi
    ;;
  checks_doc)
    "$neograde" checks --format md >checks.md || fail "neograde checks failed"
    diff -u "$DOCS_DIR/checks.md" checks.md >&2 || fail "docs/checks.md is out of date: run neograde checks --format md > docs/checks.md"
    "$neograde" checks --format json >checks.json || fail "neograde checks --format json failed"
    grep -q '"quirk"' checks.json || fail "the JSON catalogue lacks quirks"
    ;;
  demo_busy)
    # The demo's rate-limit verdicts do not depend on the machine's speed: the same with two busy
    # loops beside it (issue 39: the emulator's bucket refills on the run's clock, not the wall's).
    ratelimit_verdicts() {
      grep '"check_id":"ratelimit\.' "$1/results.jsonl" |
        sed -E 's/.*"check_id":"([^"]*)".*"outcome":"([^"]*)","provider":"([^"]*)","reason":"(([^"\\]|\\.)*)".*/\3 \1 \2 \4/' | sort
    }
    "$neograde" demo --out calm >calm.txt 2>calm.err || { cat calm.err >&2; fail "the calm demo failed"; }
    busy=""
    for _ in 1 2; do
      (while :; do :; done) &
      busy="$busy $!"
    done
    # shellcheck disable=SC2086
    trap 'kill $busy 2>/dev/null' EXIT
    "$neograde" demo --out loaded >loaded.txt 2>loaded.err || { cat loaded.err >&2; fail "the loaded demo failed"; }
    # shellcheck disable=SC2086
    kill $busy
    trap - EXIT
    ratelimit_verdicts calm >calm.verdicts
    ratelimit_verdicts loaded >loaded.verdicts
    grep -q ' pass every 429 says when to retry' calm.verdicts || { cat calm.verdicts >&2; fail "no provider's probe met a 429"; }
    diff -u calm.verdicts loaded.verdicts >&2 || fail "the rate-limit verdicts changed under load"
    ;;
  report_diff)
    # Two demo runs that differ by one quirk: diff names the regression, report merges both.
    "$neograde" demo --out a --only lambda --only vastai >a.txt 2>a.err || { cat a.err >&2; fail "demo a failed"; }
    "$neograde" demo --out b --only lambda --only vastai --quirk lambda:ghost_after_terminate >b.txt 2>b.err ||
      { cat b.err >&2; fail "demo b failed"; }
    run diff a b
    [ "$rc" -eq 1 ] || { cat out.txt err.txt >&2; fail "diff a b: exit $rc, expected 1 (a regression)"; }
    grep -qP '^regression\tlambda \(emulated\)\tlifecycle.instance.gone_after_terminate\tpass -> fail' out.txt ||
      { cat out.txt >&2; fail "the regression is not listed"; }
    grep -qP '^regression\tlambda \(emulated\)\ttier\tPlatinum -> Bronze' out.txt || { cat out.txt >&2; fail "the tier drop is not listed"; }
    if grep -q 'vastai' out.txt; then fail "vastai did not change, yet is listed"; fi
    run diff b a
    [ "$rc" -eq 0 ] && grep -qP '^improvement\tlambda \(emulated\)\tlifecycle.instance.gone_after_terminate\tfail -> pass' out.txt ||
      { cat out.txt >&2; fail "diff b a: exit $rc, the improvement not listed"; }
    run diff a a
    [ "$rc" -eq 0 ] && grep -q '^0 regression(s), 0 improvement(s), 0 other change(s)' out.txt || fail "a report differs from itself"
    run diff a nowhere
    [ "$rc" -eq 2 ] && one_error_line "no results.jsonl or findings.jsonl in nowhere"
    run report --in a --in b --out merged
    [ "$rc" -eq 0 ] || { cat err.txt >&2; fail "report failed"; }
    for f in index.html index.md scorecard.json junit.xml matrix.csv providers/lambda/scorecard.md; do
      [ -s "merged/$f" ] || fail "report did not write $f"
    done
    grep -q '"runs": 2' merged/scorecard.json || fail "the two lambda runs were not merged"
    grep -A2 '"flaky_checks"' merged/providers/lambda/scorecard.json | grep 'gone_after_terminate' >/dev/null ||
      fail "the check that changed between the runs is not marked flaky"
    grep -q '<testcase classname="lambda.lifecycle" name="lifecycle.instance.gone_after_terminate"' merged/junit.xml ||
      fail "junit.xml lacks the testcase"
    head -1 merged/matrix.csv | grep '^check_id,category,severity,lambda,vastai' >/dev/null || fail "matrix.csv header: $(head -1 merged/matrix.csv)"
    ;;
  remote_exec_endpoint)
    # The SSH endpoint as the provider states it: an emulator of $PROVIDER whose instances report
    # the sshd fixture's address, port and user through the provider's own fields (RunPod's
    # ssh.direct and runtime ports, Vast.ai's ports['22/tcp'], Prime Intellect's sshConnection,
    # Spheron's sshPort and user). No --ssh-port: the sshd listens on a random port other than
    # 22, so a run that ignored the spec's endpoint would find nothing there and fail.
    [ -f "$SSHD_STATE/unavailable" ] && { cat "$SSHD_STATE/unavailable"; exit 77; }
    sshd_port=$(cat "$SSHD_STATE/port") sshd_user=$(cat "$SSHD_STATE/user")
    [ "$sshd_port" != 22 ] || fail "the sshd fixture listens on 22: the test could not tell the endpoint was used"
    state=$work/emulator
    "$EMULATOR_FIXTURE" start "$state" "$neograde" "$PROVIDER" --instance-address 127.0.0.1 \
      --instance-ssh-port "$sshd_port" --instance-ssh-user "$sshd_user" || fail "the emulator did not start"
    trap '"$EMULATOR_FIXTURE" stop "$state" "$neograde" "$PROVIDER"' EXIT
    # A provider whose API states no user logs in as its documented one (root): where the tests
    # do not run as root, that one user is given, and the port still comes from the spec alone.
    user_override=()
    [ "$sshd_user" = root ] || user_override=(--ssh-user "$sshd_user")
    run conformance --spec "$PROVIDER" --base-url "$(base_url)" --api-key "$(key 1)" --remote-exec \
      --ssh-identity "$SSHD_STATE/id_ed25519" "${user_override[@]}" --ssh-wait 20 \
      --smoke-binary "$SMOKE" --expect-sku h100-sxm5-80gb --expect-count 1 --out out
    rec=$(grep '"record":"hardware"' out/results.jsonl) || { cat out.txt err.txt >&2; fail "results.jsonl has no hardware record"; }
    [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; echo "$rec" >&2; fail "exit code $rc, expected 0"; }
    [[ $rec == *'"status":"no_gpu"'* ]] || fail "the smoke test did not run on the instance: $rec"
    [[ $rec == *'"ssh_port":'"$sshd_port"[,}]* ]] || fail "the record does not name the sshd's port $sshd_port: $rec"
    [[ $rec == *'"ssh_host":"127.0.0.1"'* ]] || fail "the record does not name the sshd's host: $rec"
    [[ $rec == *'"time_to_ssh_s":'[0-9]* ]] || fail "no time to SSH: $rec"
    [[ $rec == *'"endpoint_from":"'* ]] || fail "the record does not say where the endpoint came from: $rec"
    grep -q '"time_to_ssh_s":[0-9]' out/results.jsonl || fail "no time_to_ssh_s measurement"
    if grep -rq 'PRIVATE KEY' out; then fail "a private key reached the output"; fi
    ;;
  remote_exec_no_endpoint)
    # A running instance that states no endpoint where the spec says (RunPod's ssh.direct null,
    # no runtime ports: quirk no_address) is read again within --ssh-wait, then recorded as
    # unreachable with why; SSH is never tried on a guessed port.
    [ -f "$SSHD_STATE/unavailable" ] && { cat "$SSHD_STATE/unavailable"; exit 77; }
    state=$work/emulator
    "$EMULATOR_FIXTURE" start "$state" "$neograde" runpod --quirk no_address || fail "the emulator did not start"
    trap '"$EMULATOR_FIXTURE" stop "$state" "$neograde" runpod' EXIT
    run conformance --spec runpod --base-url "$(base_url)" --api-key "$(key 1)" --remote-exec \
      --ssh-identity "$SSHD_STATE/id_ed25519" --ssh-wait 1 --smoke-binary "$SMOKE" --out out
    [ "$rc" -eq 1 ] || { cat out.txt err.txt >&2; fail "exit code $rc, expected 1"; }
    rec=$(grep '"record":"hardware"' out/results.jsonl) || fail "results.jsonl has no hardware record"
    [[ $rec == *'"status":"unreachable"'* && $rec == *'states no SSH endpoint where the spec says'* ]] || fail "hardware record: $rec"
    [[ $rec == *'"time_to_ssh_s":null'* ]] || fail "a time to SSH without SSH: $rec"
    [[ $rec == *'within 1 s of running'* ]] || fail "the record does not say how long it waited: $rec"
    ;;
  remote_exec_*)
    # The emulator's instances report 127.0.0.1, where the sshd fixture listens: the run copies
    # a smoke binary there over SSH and runs it before terminating.
    [ -f "$SSHD_STATE/unavailable" ] && { cat "$SSHD_STATE/unavailable"; exit 77; }
    remote=(--remote-exec --ssh-port "$(cat "$SSHD_STATE/port")" --ssh-user "$(cat "$SSHD_STATE/user")"
            --ssh-identity "$SSHD_STATE/id_ed25519")
    hardware() { grep '"record":"hardware"' out/results.jsonl; }
    case "$case_name" in
      remote_exec_no_gpu)
        # The real neograde-gpu-smoke on this CPU-only "instance": no_gpu end to end.
        run conformance --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" "${remote[@]}" \
          --smoke-binary "$SMOKE" --expect-sku h100-sxm5-80gb --expect-count 1 --out out
        [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; fail "exit code $rc, expected 0 (no GPU is not a failure)"; }
        rec=$(hardware) || fail "results.jsonl has no hardware record"
        [[ $rec == *'"status":"no_gpu"'* && $rec == *'"schema":"neograde.gpu-smoke/1"'* ]] || fail "hardware record: $rec"
        [[ $rec == *'"source":"emulated"'* ]] || fail "hardware record not labelled emulated"
        [[ $rec == *'"time_to_ssh_s":'[0-9]* ]] || fail "no time to SSH: $rec"
        grep -q '^hardware: no_gpu' out.txt || fail "no hardware line on stdout"
        grep -q '## Hardware' out/scorecard.md || fail "scorecard.md has no hardware section"
        grep -q '"hardware":\[{' out/scorecard.json || grep -q '"hardware": \[' out/scorecard.json || fail "scorecard.json has no hardware"
        # The binary removed itself from the instance, and the run's key was only the one given.
        # (This run's binary only: other remote_exec cases share the sshd and may run beside it.)
        run_id=$(head -1 out/results.jsonl | sed -n 's/.*"run_id":"\([0-9a-f]*\)".*/\1/p')
        [ -n "$run_id" ] || fail "no run id in the results header"
        if [ -e "/tmp/neograde-gpu-smoke-$run_id" ]; then fail "the smoke binary was left on the instance"; fi
        ;;
      remote_exec_fail)
        # A smoke test that finds a PCIe card sold as SXM: the run fails and the scorecard says why.
        "$SMOKE" --regrade "$FIXTURES/pcie-sold-as-sxm.json" --expect h100-sxm5-80gb --count 1 --out doc.json 2>/dev/null
        [ $? -eq 1 ] || fail "regrading the fixture did not fail"
        { echo '#!/bin/sh'; echo 'cat <<"NEOGRADE_DOC"'; cat doc.json; echo 'NEOGRADE_DOC'; echo 'exit 1'; } >fake-smoke
        chmod +x fake-smoke
        run conformance --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" "${remote[@]}" \
          --smoke-binary ./fake-smoke --out out
        [ "$rc" -eq 1 ] || { cat out.txt err.txt >&2; fail "exit code $rc, expected 1 under a failed smoke test"; }
        rec=$(hardware) || fail "results.jsonl has no hardware record"
        [[ $rec == *'"status":"fail"'* && $rec == *'gpu.sku [GPU 0]: delivered NVIDIA H100 PCIe'* ]] || fail "hardware record: $rec"
        grep -q 'gpu.sku' out/scorecard.md || fail "scorecard.md does not name the failing check"
        grep -q 'h100-pcie-80gb' out/scorecard.md || fail "scorecard.md does not name the SKU delivered"
        ;;
      remote_exec_unreachable)
        # "running" but nothing answers SSH on the port: the hardware record says so, the run fails.
        run conformance --spec lambda --base-url "$(base_url)" --api-key "$(key 1)" --remote-exec --ssh-port 1 \
          --ssh-identity "$SSHD_STATE/id_ed25519" --ssh-wait 1 --smoke-binary "$SMOKE" --out out
        [ "$rc" -eq 1 ] || { cat out.txt err.txt >&2; fail "exit code $rc, expected 1"; }
        rec=$(hardware) || fail "results.jsonl has no hardware record"
        [[ $rec == *'"status":"unreachable"'* && $rec == *'did not answer within 1 s'* ]] || fail "hardware record: $rec"
        ;;
    esac
    # Nothing the run created is left running, and no key material reached the outputs.
    if grep -rq 'PRIVATE KEY' out; then fail "a private key reached the output"; fi
    ;;
  installed)
    # cmake --install into a temporary prefix: the installed binary reads the installed specs,
    # never the source tree it was built from, and runs the demo from there.
    build=$(cd "$(dirname "$neograde")/.." && pwd)
    cmake --install "$build" --prefix "$work/prefix" >install.log 2>&1 || { cat install.log >&2; fail "cmake --install failed"; }
    installed=$work/prefix/bin/neograde
    [ -x "$installed" ] || fail "no bin/neograde under the prefix"
    [ -x "$work/prefix/bin/neograde-gpu-smoke" ] || fail "no bin/neograde-gpu-smoke under the prefix"
    for d in specs/providers specs/skus specs/schema schemas; do
      [ -d "$work/prefix/share/neograde/$d" ] || fail "no share/neograde/$d"
    done
    # Keep two specs in the prefix: the catalogue the installed binary lists is the prefix's.
    find "$work/prefix/share/neograde/specs/providers" -name '*.json' ! -name lambda.json ! -name runpod.json -delete
    neograde=$installed
    run providers
    [ "$rc" -eq 0 ] || { cat err.txt >&2; fail "providers: exit $rc"; }
    [ "$(grep -cE '^(lambda|runpod) ' out.txt)" -eq 2 ] && [ "$(wc -l <out.txt)" -eq 3 ] ||
      { cat out.txt >&2; fail "the installed binary did not list the prefix's two specs alone"; }
    run demo --out demo
    [ "$rc" -eq 0 ] || { cat err.txt >&2; fail "installed demo: exit $rc"; }
    [ -s demo/index.html ] && grep -q 'EMULATED' demo/index.md || fail "the installed demo wrote no labelled report"
    # NEOGRADE_SPECS_DIR still comes first.
    mkdir -p own && cp "$work/prefix/share/neograde/specs/providers/lambda.json" own/
    NEOGRADE_SPECS_DIR=$work/own "$installed" providers >out.txt 2>err.txt
    [ "$(wc -l <out.txt)" -eq 2 ] || { cat out.txt >&2; fail "NEOGRADE_SPECS_DIR did not override the installed specs"; }
    ;;
  spec_lint)
    run spec lint
    [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; fail "the catalogue has spec lint errors (exit $rc)"; }
    grep -q ' 0 error(s)' out.txt || { cat out.txt >&2; fail "no error count"; }
    # An unknown placeholder: the lint names it and exits 1; loading the spec refuses it.
    jq '.operations.launch.body.ssh_key_ids = ["{{ssh_key_uuid}}"]' "$(dirname "$0")/../../specs/providers/lambda.json" >bad.json
    run spec lint bad.json
    [ "$rc" -eq 1 ] || { cat out.txt err.txt >&2; fail "spec lint of a bad spec: exit $rc, expected 1"; }
    grep -q 'bad.json:/operations/launch/body/ssh_key_ids/0: error: unknown placeholder "ssh_key_uuid"' out.txt ||
      { cat out.txt >&2; fail "the placeholder is not named with its place"; }
    run conformance --spec bad.json --base-url http://127.0.0.1:9 --api-key k --out out
    [ "$rc" -eq 2 ] || { cat err.txt >&2; fail "a spec with a lint error loaded (exit $rc)"; }
    one_error_line 'unknown placeholder'
    ;;
  spec_draft)
    # A draft from the hand-written fixture document (a made-up provider): it loads, the lint
    # finds no error, and every guess is listed with its pointer.
    doc="$(dirname "$0")/../fixtures/openapi/example-compute.yaml"
    run spec draft --openapi "$doc" --kind neocloud --out draft.json
    [ "$rc" -eq 0 ] || { cat err.txt >&2; fail "spec draft: exit $rc, expected 0"; }
    grep -q '^  1\. /' err.txt || { cat err.txt >&2; fail "no numbered guess with its pointer"; }
    grep -q 'warning: /paths/~1instances~1{instance_id}~1snapshot/post: left out' err.txt ||
      { cat err.txt >&2; fail "the unknown operation is not named as left out"; }
    grep -q '^the draft loads; spec lint: 0 error(s)' err.txt || { cat err.txt >&2; fail "the draft does not say it loads"; }
    run spec lint draft.json
    [ "$rc" -eq 0 ] || { cat out.txt >&2; fail "spec lint of the draft: exit $rc"; }
    grep -q "draft.json:/operations/launch/source: warning: a guess of \`neograde spec draft\`" out.txt ||
      { cat out.txt >&2; fail "the lint does not list the guesses to confirm"; }
    # The draft is a spec: its emulator serves and its client reads it.
    jq -e '.operations.get.path == "/instances/{id}"' draft.json >/dev/null || fail "the instance path is not /instances/{id}"
    # A document that is no OpenAPI document: refused with why, exit 2, nothing written.
    printf '{"name": "not an API"}' >not-openapi.json
    run spec draft --openapi not-openapi.json --out refused.json
    [ "$rc" -eq 2 ] || { cat err.txt >&2; fail "a non-OpenAPI document: exit $rc, expected 2"; }
    grep -q 'not an OpenAPI document' err.txt || { cat err.txt >&2; fail "the refusal does not say why"; }
    [ ! -e refused.json ] || fail "a refused document still wrote a draft"
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
