#!/usr/bin/env bash
# Live mode's rules, tested on a loopback emulator with --treat-as-live (nothing here can spend
# money): signals during boot and terminate, kill -9 then sweep, the budget, the opt-in, the RDAP
# lookup of the instance's address (at the emulator's own fictional registry, --rdap). Each
# case starts its own emulator (time scale 0.1: boots take 9 s, terminations 2 s) and ends by
# reading the emulator's own count of instances not terminated, which must be zero.
# Usage: live_test.sh CASE NEOGRADE WORK_DIR
set -uo pipefail
case_name=$1 neograde=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v curl >/dev/null || { echo "SKIP: curl is not installed" >&2; exit 77; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$here/tests/app/emulators.sh"

# address_owner: instances report an address of the emulator's fictional RDAP registry
# (2d00::/8 is IANA-reserved: nobody real holds it), which the emulator also serves.
# It sends no signal mid-step, so its emulator runs faster (time scale 0.02: boots take 1.8 s).
emulate_args=(--time-scale 0.1)
[ "$case_name" = address_owner ] && emulate_args=(--time-scale 0.02 --instance-address 2d00:1::10 --rdap)
# multistep_*: Akash's multi-step create (a deployment, its bids, a lease), from a copy of its
# spec whose bids never arrive for multistep_sigint_before_lease, so that the signal lands,
# whatever the machine's speed, after the deployment exists and before any lease.
provider=lambda
if [[ $case_name == multistep_* ]]; then
  specs_dir=$here/specs/providers
  provider=$work/akash.json
  if [ "$case_name" = multistep_sigint_before_lease ]; then
    sed 's/"ready_after_s": 5,/"ready_after_s": 1000000,/' "$specs_dir/akash.json" >"$provider"
    grep -q '"ready_after_s": 1000000' "$provider" || fail "the copy of akash.json does not delay its bids"
  else
    # A copy whose leased deployment boots for ever (in a status word of its own, pending), so
    # that the run is still waiting for it when the lease's journal line is seen, however fast
    # the machine: the kill -9 lands between the lease and the teardown.
    sed -e 's/"booting": "active",/"booting": "starting",/' -e 's/"boot_s": 0,/"boot_s": 1000000,/' \
      -e 's/"active": "running",/"active": "running", "starting": "pending",/' "$specs_dir/akash.json" >"$provider"
    grep -q '"boot_s": 1000000' "$provider" && grep -q '"starting": "pending"' "$provider" && grep -q '"booting": "starting"' "$provider" ||
      fail "the copy of akash.json does not keep its deployments booting"
  fi
  export AKASH_SDL='version: "2.0"'
fi
start_emulator live "$provider" --no-rate-limit "${emulate_args[@]}"
run_pid=""
# A run still going when the script ends is killed outright, before the emulators are stopped.
cleanup() {
  [ -n "$run_pid" ] && kill -9 "$run_pid" 2>/dev/null
  stop_background
}
trap cleanup EXIT
await_emulator live
base=${emulator_base[live]}
origin=${emulator_origin[live]}
key=${emulator_key[live]}
journal=$work/journal.jsonl

# The emulator's count: instances not terminated, and instances ever created.
state() { curl -sf "$origin/_neograde/state"; }
live_instances() { state | sed -n 's/.*"live_instances":\([0-9]*\).*/\1/p'; }
created_instances() { state | sed -n 's/.*"instances_created":\([0-9]*\).*/\1/p'; }

# Starts a live-mode conformance run in the background.
start_run() {
  NEOGRADE_LIVE=1 "$neograde" conformance --spec "$provider" --base-url "$base" --api-key "$key" --allow-spend \
    --treat-as-live --journal "$journal" --out out "$@" </dev/null >run.out 2>run.err &
  run_pid=$!
}

# Waits (up to 60 s) until the journal has a line matching the pattern.
wait_journal() {
  for _ in $(seq 600); do
    [ -f "$journal" ] && grep -q "$1" "$journal" && return 0
    kill -0 "$run_pid" 2>/dev/null || { cat run.err >&2; fail "the run ended before the journal showed $1"; }
    sleep 0.1
  done
  fail "the journal never showed $1"
}

# Waits for the run to end and checks its exit code.
expect_exit() {
  wait "$run_pid"
  rc=$?
  run_pid=""
  [ "$rc" -eq "$1" ] || { cat run.err >&2; fail "exit code $rc, expected $1"; }
}

expect_nothing_left() {
  local n
  n=$(live_instances)
  [ "$n" = "0" ] || { cat run.err >&2; fail "the emulator reports $n instance(s) not terminated"; }
}

lc_created='"event":"created".*-lc"'

case "$case_name" in
  fuzz_sigint_on_connections)
    # A live-mode campaign on four connections: SIGINT once a lane has created an instance stops
    # every lane, and the teardown leaves nothing on the emulator.
    NEOGRADE_LIVE=1 "$neograde" fuzz --spec "$provider" --base-url "$base" --api-key "$key" --allow-spend --treat-as-live \
      --journal "$journal" --connections 4 --max-requests 1000000 --max-instances 3 --out out </dev/null >run.out 2>run.err &
    run_pid=$!
    wait_journal '"event":"created"'
    kill -INT "$run_pid"
    expect_exit 130
    expect_nothing_left
    grep -q 'stopped by SIGINT' run.err || { cat run.err >&2; fail "the campaign did not say it was stopped by SIGINT"; }
    grep -q '"connections":4' out/findings.jsonl || fail "findings.jsonl has no footer for four connections"
    [ "$(created_instances)" -ge 1 ] || fail "the emulator counts no instance created"
    ;;
  sigint_during_boot)
    start_run
    wait_journal "$lc_created"
    [ "$(live_instances)" -ge 1 ] || fail "no instance booting when the signal was sent"
    kill -INT "$run_pid"
    expect_exit 130
    expect_nothing_left
    grep -q 'stopped by SIGINT' run.err || fail "the run did not say it was stopped by SIGINT"
    grep -q '"check_id":"lifecycle.run.nothing_left_behind".*"outcome":"pass"' out/results.jsonl ||
      fail "no passing leak check in results.jsonl"
    grep -q '"stopped":"stopped by SIGINT after ' out/results.jsonl || fail "results.jsonl does not say where the run stopped"
    # What was decided stays; the wait the signal cut short, and every check after it, is errored
    # "interrupted" (not graded), never a provider failure; every check has its line.
    grep -q '"check_id":"lifecycle.instance.launch_returns_id".*"outcome":"pass"' out/results.jsonl ||
      fail "the launch decided before the signal is not in results.jsonl"
    grep -q '"check_id":"lifecycle.instance.reaches_running".*"outcome":"errored".*"reason":"interrupted: stopped by SIGINT' out/results.jsonl ||
      fail "the interrupted wait is not errored \"interrupted\": $(grep reaches_running out/results.jsonl)"
    if grep -q '"outcome":"fail"' out/results.jsonl; then fail "a stopped run graded a provider failure: $(grep '"outcome":"fail"' out/results.jsonl)"; fi
    checks=$("$neograde" checks --format json | grep -o '"id":' | wc -l)
    decided=$(grep -o '"check_id":"[^"]*"' out/results.jsonl | sort -u | wc -l)
    [ "$decided" -eq "$checks" ] || fail "results.jsonl decides $decided of the $checks checks"
    grep -q '"event":"deleted".*-lc"' "$journal" || fail "the journal has no confirmed deletion"
    ;;
  sigterm_during_terminate)
    start_run
    wait_journal '"event":"terminating".*-lc"'
    kill -TERM "$run_pid"
    expect_exit 143
    expect_nothing_left
    grep -q '"event":"deleted".*-lc"' "$journal" || fail "the journal has no confirmed deletion"
    ;;
  sigkill_then_sweep)
    # An earlier report in the same directory must survive the killed run whole.
    mkdir -p out && echo '{"earlier":"results"}' >out/results.jsonl && echo '{"earlier":"card"}' >out/scorecard.json
    start_run
    wait_journal "$lc_created"
    kill -9 "$run_pid"
    expect_exit 137
    [ "$(cat out/results.jsonl)" = '{"earlier":"results"}' ] || fail "the killed run replaced the earlier results.jsonl"
    [ "$(cat out/scorecard.json)" = '{"earlier":"card"}' ] || fail "the killed run replaced the earlier scorecard"
    head -1 out/results.jsonl.part | grep '"record":"header"' >/dev/null || fail "the killed run's lines are not in results.jsonl.part"
    [ "$(live_instances)" -ge 1 ] || fail "kill -9 left nothing to sweep: the test proves nothing"
    "$neograde" sweep --spec lambda --base-url "$base" --api-key "$key" --journal "$journal" --dry-run >dry.out 2>dry.err ||
      { cat dry.err >&2; fail "sweep --dry-run failed"; }
    grep -q '^found.*-lc' dry.out || { cat dry.out >&2; fail "the dry run did not find the instance"; }
    [ "$(live_instances)" -ge 1 ] || fail "the dry run terminated something"
    "$neograde" sweep --spec lambda --base-url "$base" --api-key "$key" --journal "$journal" --older-than 1h >old.out 2>&1 ||
      { cat old.out >&2; fail "sweep --older-than failed"; }
    grep -q '^skipped' old.out || { cat old.out >&2; fail "--older-than 1h swept an instance journaled seconds ago"; }
    "$neograde" sweep --spec lambda --base-url "$base" --api-key "$key" --journal "$journal" >sweep.out 2>sweep.err ||
      { cat sweep.out sweep.err >&2; fail "sweep failed"; }
    grep -q '^gone.*-lc' sweep.out || { cat sweep.out >&2; fail "the sweep did not confirm the instance gone"; }
    expect_nothing_left
    "$neograde" sweep --spec lambda --base-url "$base" --api-key "$key" --journal "$journal" --dry-run >again.out 2>&1
    grep -q '^would terminate 0' again.out || { cat again.out >&2; fail "the journal still lists instances after the sweep"; }
    ;;
  budget_refusal)
    start_run --max-spend 0.01
    expect_exit 0
    [ "$(created_instances)" = "0" ] || fail "an instance was created over the budget"
    grep -q '"check_id":"lifecycle.instance.launch_returns_id".*"outcome":"skipped".*--max-spend' out/results.jsonl ||
      fail "the lifecycle was not skipped with the budget's reason"
    ;;
  no_opt_in)
    # --allow-spend without NEOGRADE_LIVE=1: no create request is ever sent.
    env -u NEOGRADE_LIVE "$neograde" conformance --spec lambda --base-url "$base" --api-key "$key" --allow-spend \
      --treat-as-live --journal "$journal" --out out </dev/null >run.out 2>run.err
    rc=$?
    [ "$rc" -eq 0 ] || { cat run.err >&2; fail "exit code $rc"; }
    [ "$(created_instances)" = "0" ] || fail "an instance was created without NEOGRADE_LIVE=1"
    grep -q 'NEOGRADE_LIVE=1 is not set' out/results.jsonl || fail "the skip reason does not name the opt-in"
    [ ! -s "$journal" ] || fail "a journal was written by a run that may not create anything"
    ;;
  address_owner)
    rdap=$(sed -n 's/^rdap: //p' live.emulator.out | head -1)
    [ -n "$rdap" ] || fail "the emulator does not say where it serves RDAP"
    start_run --rdap-url "$rdap"
    expect_exit 0
    expect_nothing_left
    footer=$(grep '"record":"footer"' out/results.jsonl)
    owner=$(printf '%s' "$footer" | grep -o '"address_owner":{.*"status":"[a-z_]*"}')
    [ -n "$owner" ] || fail "the footer has no address_owner: $footer"
    for expected in '"address":"2d00:1::10"' '"status":"found"' '"name":"Example Cloud Holdings"' '"handle":"EXCH"' \
      '"role":"registrant"' '"country":"ZZ"' '"origin_as":[64500,64501]' "\"query_url\":\"${rdap}ip/2d00:1::10\""; do
      printf '%s' "$owner" | grep -F "$expected" >/dev/null || fail "address_owner lacks $expected: $owner"
    done
    # --no-rdap: no lookup, no address_owner.
    start_run --no-rdap
    expect_exit 0
    if grep '"record":"footer"' out/results.jsonl | grep '"address_owner"' >/dev/null; then fail "--no-rdap still looked the address up"; fi
    ;;
  multistep_sigint_before_lease)
    # SIGINT while the run waits for a bid: the deployment exists, no lease was accepted.
    start_run
    wait_journal "$lc_created"
    [ "$(live_instances)" -ge 1 ] || fail "no deployment when the signal was sent"
    kill -INT "$run_pid"
    expect_exit 130
    expect_nothing_left
    if grep '"event":"step"' "$journal" | grep 'step lease' >/dev/null; then fail "a lease was sent: the signal did not land between bid and lease"; fi
    grep -q '"event":"deleted".*-lc"' "$journal" || fail "the journal has no confirmed deletion"
    dseq=$(grep "$lc_created" "$journal" | grep -o '"id":"[0-9]*"' | head -1 | tr -dc 0-9)
    [ -n "$dseq" ] || fail "no deployment id in the journal"
    curl -sf -H "x-api-key: $key" "$base/v1/deployments/$dseq" | grep '"state":"closed"' >/dev/null || fail "deployment $dseq is not closed"
    ;;
  multistep_sigkill_then_sweep)
    # kill -9 once the lease is accepted (its step journaled): the sweep closes the deployment,
    # and the lease with it.
    start_run
    wait_journal 'step lease.*"event":"step"'
    kill -9 "$run_pid"
    expect_exit 137
    [ "$(live_instances)" -ge 1 ] || fail "kill -9 left nothing to sweep: the test proves nothing"
    dseq=$(grep '"event":"step"' "$journal" | grep 'step lease' | grep -o '"id":"[0-9]*"' | head -1 | tr -dc 0-9)
    [ -n "$dseq" ] || { cat "$journal" >&2; fail "no deployment id in the lease step's journal line"; }
    curl -sf -H "x-api-key: $key" "$base/v1/deployments/$dseq" | grep '"leases":\[{' >/dev/null || fail "no lease on deployment $dseq before the sweep"
    "$neograde" sweep --spec "$provider" --base-url "$base" --api-key "$key" --journal "$journal" >sweep.out 2>sweep.err ||
      { cat sweep.out sweep.err >&2; fail "sweep failed"; }
    grep -q "^gone.*$dseq" sweep.out || { cat sweep.out >&2; fail "the sweep did not confirm deployment $dseq gone"; }
    expect_nothing_left
    answer=$(curl -s -H "x-api-key: $key" "$base/v1/deployments/$dseq")
    printf '%s' "$answer" | grep '"deployment":{[^}]*}[^}]*"state":"closed"' >/dev/null || printf '%s' "$answer" | grep 'NotFoundError' >/dev/null ||
      fail "deployment $dseq is still open after the sweep: $answer"
    if printf '%s' "$answer" | grep '"state":"active"' >/dev/null; then fail "a lease or the deployment is still active after the sweep: $answer"; fi
    "$neograde" sweep --spec "$provider" --base-url "$base" --api-key "$key" --journal "$journal" --dry-run >again.out 2>&1
    grep -q '^would terminate 0' again.out || { cat again.out >&2; fail "the journal still lists the deployment after the sweep"; }
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
