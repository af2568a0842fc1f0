# Sourced by the end-to-end scripts that run `neograde emulate` in the background (grade_test.sh,
# grade_merge_test.sh, action_test.sh, live_test.sh, concurrent_test.sh): starts emulators, waits for each to say where it listens,
# stops them (and whatever else is in background_pids) when the script exits, and clears every spec's credential variable so that no
# key leaks in from the environment. Needs $neograde and $here, and a fail function.

background_pids=()
stop_background() {
  for pid in "${background_pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
}
trap stop_background EXIT

for var in $(grep -ho '"env": *"[A-Z_]*"' "$here"/specs/providers/*.json | sed 's/.*"\([A-Z_]*\)"$/\1/' | sort -u); do unset "$var"; done

# start_emulator NAME PROVIDER [EMULATE ARGS...]: its output in NAME.emulator.out and .err.
start_emulator() {
  local name=$1 provider=$2
  shift 2
  "$neograde" emulate --provider "$provider" --port 0 "$@" </dev/null >"$name.emulator.out" 2>"$name.emulator.err" &
  background_pids+=($!)
  emulator_pid[$name]=$!
}
declare -A emulator_pid emulator_base emulator_origin emulator_key emulator_second_key

# await_emulator NAME: waits until the emulator has printed its base URL and keys (the line after
# them says what it emulates), or exits (not for a time:
# an emulator slow to start on a busy machine is still waited for), then fills emulator_base,
# emulator_origin (scheme, host and port), emulator_key and emulator_second_key for NAME.
await_emulator() {
  local name=$1 base
  while ! grep -q '^emulating ' "$name.emulator.out" 2>/dev/null; do
    kill -0 "${emulator_pid[$name]}" 2>/dev/null || break
    sleep 0.1
  done
  base=$(head -1 "$name.emulator.out" 2>/dev/null | grep '^http')
  [ -n "$base" ] || { cat "$name.emulator.err" >&2; fail "the $name emulator did not start"; }
  emulator_base[$name]=$base
  emulator_origin[$name]=$(echo "$base" | sed -E 's#^(https?://[^/]+).*#\1#')
  local keys
  keys=$(sed -n 's/^key: //p' "$name.emulator.out")
  emulator_key[$name]=$(sed -n 1p <<<"$keys")
  emulator_second_key[$name]=$(sed -n 2p <<<"$keys")
  [ -n "${emulator_key[$name]}" ] || fail "the $name emulator printed no key"
}
