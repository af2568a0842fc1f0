#!/usr/bin/env bash
# ctest real-client lane: installs a provider's own npm client, unmodified, into a cache under the
# build tree and runs a provisioning flow script with it against an emulator fixture.
# Usage: npm_client.sh CACHE_DIR 'PACKAGE@VERSION [PACKAGE@VERSION...]' SCRIPT FIXTURE_STATE_DIR
# Each set of packages gets its own prefix under CACHE_DIR: an `npm install --no-save` into a
# prefix removes what an earlier one installed there, so sets cannot share one.
# Exit 77 (ctest: skipped) with the reason when node or the npm registry is not available.
set -euo pipefail
cache=$1 package=$2 script=$3 state=$4

command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "SKIPPED: node and npm are not installed (scripts/install-deps test installs them)"; exit 77; }
prefix="$cache/${package//[^A-Za-z0-9._@-]/_}"
mkdir -p "$prefix"
marker="$prefix/.installed"
if [ ! -f "$marker" ]; then
  timeout 60 npm ping --loglevel=error >"$prefix/npm-ping.log" 2>&1 ||
    { echo "SKIPPED: the npm registry is not reachable:"; tail -3 "$prefix/npm-ping.log"; exit 77; }
  # The registry answers: a failed install is our error (a wrong name or version), not a skip.
  read -ra packages <<<"$package"
  if ! timeout 300 npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error "${packages[@]}" \
      >"$prefix/npm-install.log" 2>&1; then
    echo "npm could not install $package:"
    tail -5 "$prefix/npm-install.log"
    exit 1
  fi
  touch "$marker"
fi
url=$(head -1 "$state/emulator.out")
key=$(sed -n 's/^key: //p' "$state/emulator.out" | head -1)
echo "client: $package ($(node --version)); emulator: $url"
NODE_PATH="$prefix/node_modules" exec timeout 120 node "$script" "$url" "$key"
