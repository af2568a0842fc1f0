#!/usr/bin/env bash
# ctest fixture: starts `neograde emulate` in the background (start) or stops it (stop).
# Usage: emulator_fixture.sh start|stop STATE_DIR NEOGRADE PROVIDER [emulate options...]
set -euo pipefail
action=$1 state=$2 neograde=$3 provider=$4
shift 4
case "$action" in
  start)
    rm -rf "$state" && mkdir -p "$state" && cd "$state"
    "$neograde" emulate --provider "$provider" --port 0 --time-scale 0.01 "$@" >emulator.out 2>emulator.err &
    echo $! >"$state/emulator.pid"
    for _ in $(seq 100); do
      if [ -s "$state/emulator.out" ] && head -1 "$state/emulator.out" | grep '^http' >/dev/null; then exit 0; fi
      kill -0 "$(cat "$state/emulator.pid")" 2>/dev/null || break
      sleep 0.1
    done
    echo "emulator did not start:" >&2
    cat "$state/emulator.err" >&2
    exit 1
    ;;
  stop)
    [ -f "$state/emulator.pid" ] && kill "$(cat "$state/emulator.pid")" 2>/dev/null || true
    ;;
esac
