#!/usr/bin/env bash
# ctest real-client lane: installs a provider's own npm client, unmodified, into a cache under the
# build tree and runs a provisioning flow script with it against an emulator fixture.
# Usage: npm_client.sh CACHE_DIR PACKAGE@VERSION SCRIPT FIXTURE_STATE_DIR
# Exit 77 (ctest: skipped) with the reason when node or the npm registry is not available.
set -euo pipefail
cache=$1 package=$2 script=$3 state=$4

command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "SKIPPED: node and npm are not installed (scripts/install-deps test installs them)"; exit 77; }
mkdir -p "$cache"
marker="$cache/.installed-${package//[^A-Za-z0-9._@-]/_}"
if [ ! -f "$marker" ]; then
  timeout 60 npm ping --loglevel=error >"$cache/npm-ping.log" 2>&1 ||
    { echo "SKIPPED: the npm registry is not reachable:"; tail -3 "$cache/npm-ping.log"; exit 77; }
  # The registry answers: a failed install is our error (a wrong name or version), not a skip.
  if ! timeout 300 npm install --prefix "$cache" --no-audit --no-fund --no-save --loglevel=error "$package" \
      >"$cache/npm-install.log" 2>&1; then
    echo "npm could not install $package:"
    tail -5 "$cache/npm-install.log"
    exit 1
  fi
  touch "$marker"
fi
url=$(head -1 "$state/emulator.out")
key=$(sed -n 's/^key: //p' "$state/emulator.out" | head -1)
echo "client: $package ($(node --version)); emulator: $url"
NODE_PATH="$cache/node_modules" exec timeout 120 node "$script" "$url" "$key"
