#!/usr/bin/env bash
# The container image (Containerfile). `static`, always: two stages from debian:12, the build
# stage installing only packages that scripts/install-deps names, the runtime stage no build tool
# and every shared library package the binary needs, the entrypoint and the demo as the default
# command, scripts/grade where `scripts/grade k8s` runs it, as the user its pods run as; the build
# context leaves build trees out. `image`: builds the image with docker or podman and runs the
# demo in it; skipped (77) unless NEOGRADE_TEST_CONTAINER=1 (a release build in the image takes
# longer than CI's whole budget on two cores), and where neither has a working daemon.
# Usage: container_test.sh static|image NEOGRADE WORK_DIR
set -uo pipefail
mode=$1 neograde=$2 work=$3
here=$(cd "$(dirname "$0")/../.." && pwd)
file=$here/Containerfile
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }

if [ "$mode" = image ]; then
  [ "${NEOGRADE_TEST_CONTAINER:-}" = 1 ] ||
    { echo "skipped: set NEOGRADE_TEST_CONTAINER=1 to build the image (a release build of the whole tree)"; exit 77; }
  engine=""
  for e in docker podman; do
    command -v "$e" >/dev/null && "$e" info >"$e.info" 2>&1 && { engine=$e; break; }
  done
  if [ -z "$engine" ]; then
    why="neither docker nor podman is installed"
    command -v docker >/dev/null && why="docker info fails: $(grep -m1 -iE 'cannot|error' docker.info 2>/dev/null || echo 'no daemon')"
    echo "SKIP: no container engine with a working daemon ($why)" >&2
    exit 77
  fi
  tag=neograde-test:$$
  trap '"$engine" rmi -f "$tag" >/dev/null 2>&1' EXIT
  "$engine" build -f "$file" -t "$tag" "$here" >build.log 2>&1 || { tail -40 build.log >&2; fail "$engine build failed"; }
  # The default command is the demo; its report is written in the container's /out.
  "$engine" run --rm --entrypoint /bin/bash "$tag" -c 'neograde demo --jobs 2 --out /out >/dev/null && test -s /out/index.html && echo demo-ok' \
    >demo.out 2>demo.err || { cat demo.err >&2; fail "the demo failed in the image"; }
  grep -qx demo-ok demo.out || fail "the demo wrote no report in the image"
  "$engine" run --rm "$tag" providers >providers.out 2>&1 || fail "neograde providers failed in the image: $(cat providers.out)"
  [ "$(grep -c '^[a-z]' providers.out)" -gt 10 ] || fail "the image's catalogue: $(cat providers.out)"
  "$engine" run --rm --entrypoint /usr/local/share/neograde/scripts/grade "$tag" sweep --providers lambda >grade.out 2>&1 ||
    fail "scripts/grade does not run in the image: $(cat grade.out)"
  echo "ok: container image ($engine)"
  exit 0
fi

[ "$mode" = static ] || { echo "usage: container_test.sh static|image NEOGRADE WORK_DIR" >&2; exit 2; }
[ -f "$file" ] || fail "no Containerfile"
# The stages: the build one, then the runtime one, both from Debian 12.
mapfile -t froms < <(grep -E '^FROM ' "$file")
[ "${#froms[@]}" -eq 2 ] || fail "not two stages: ${froms[*]}"
[ "${froms[0]}" = "FROM debian:12 AS build" ] || fail "the first stage: ${froms[0]}"
[ "${froms[1]}" = "FROM debian:12" ] || fail "the runtime stage: ${froms[1]}"
grep -qE '^COPY --from=build /usr/local/ /usr/local/$' "$file" || fail "the runtime stage does not take the installed tree"
grep -qE '^ENTRYPOINT \["neograde"\]$' "$file" || fail "the entrypoint is not neograde"
grep -qE '^CMD \["demo", "--out", "[^"]+"\]$' "$file" || fail "the default command is not the demo with an output dir"
grep -qE 'cmake --preset release' "$file" && grep -qE 'cmake --install build/release' "$file" || fail "not built with the release preset and installed"

# Each stage's apt-get install packages (the words after --no-install-recommends, to the next &&).
packages_of() {  # $1: 1 (build) or 2 (runtime)
  awk -v stage="$1" '/^FROM /{n++} n==stage' "$file" | sed 's/\\$//' | tr '\n' ' ' |
    grep -oE 'install -y -qq --no-install-recommends [^&]*' | sed 's/.*--no-install-recommends//' | tr ' ' '\n' | grep -v '^$'
}
build_packages=$(packages_of 1)
runtime_packages=$(packages_of 2)
[ -n "$build_packages" ] && [ -n "$runtime_packages" ] || fail "a stage installs nothing"
deps=$(sed -n '/^packages=(/,/^)/p' "$here/scripts/install-deps" | sed '1d;$d' | tr ' ' '\n' | grep -v '^$')
for p in $build_packages; do
  echo "$deps" | grep -x "$p" >/dev/null || fail "the build stage installs $p, which scripts/install-deps does not name"
done
for p in cmake ninja-build g++ libboost1.81-dev libssl-dev; do echo "$build_packages" | grep -x "$p" >/dev/null || fail "the build stage lacks $p"; done
for p in $runtime_packages; do
  case "$p" in *-dev|cmake|ninja-build|g++|gcc|clang*|make) fail "the runtime stage installs the build tool $p" ;; esac
done
# Every shared library the binary needs is in a package the runtime stage installs, but the C
# library's and libgcc's. The test binary links the same libraries as the release one (its
# sanitizers are linked statically).
if command -v readelf >/dev/null && command -v dpkg >/dev/null && command -v dpkg-query >/dev/null; then
  for lib in $(readelf -d "$neograde" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    path=$(ldconfig -p 2>/dev/null | awk -v l="$lib" '$1 == l { print $NF; exit }')
    [ -n "$path" ] || continue
    pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1)
    [ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1)
    [ -n "$pkg" ] || continue
    case "$pkg" in libc6|libgcc-s1) continue ;; esac  # what every Debian image holds (the Essential packages need them)
    echo "$runtime_packages" | grep -x "$pkg" >/dev/null || fail "the binary needs $lib ($pkg), which the runtime stage does not install"
  done
else
  echo "note: no readelf or dpkg: the runtime libraries were not compared with the binary's"
fi
# scripts/grade where the Kubernetes jobs run it, and the user they run as.
script=$(sed -n 's/^  script=\(\/.*\)$/\1/p' "$here/scripts/grade")
[ -n "$script" ] && grep -qE "^COPY scripts/grade $script$" "$file" || fail "scripts/grade is not where \`scripts/grade k8s\` runs it ($script)"
uid=$(sed -n 's/.*runAsUser: \([0-9]*\).*/\1/p' "$here/scripts/grade" | head -1)
grep -qE "^USER $uid$" "$file" && grep -q -- "--uid $uid " "$file" || fail "the image's user is not the pods' ($uid)"
# The build context: no build tree, output or git metadata.
for p in .git build neograde-out; do grep -qx "$p" "$here/.dockerignore" || fail ".dockerignore does not leave out $p"; done
echo "ok: Containerfile"
