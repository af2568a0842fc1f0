#!/usr/bin/env bash
# ctest fixture: a throw-away sshd on a loopback port, standing in for a rented instance
# (start), or its shutdown (stop). It has its own host key and accepts one throw-away user key,
# for whoever runs the tests. Writes STATE/port, STATE/user and STATE/id_ed25519(.pub).
# Without /usr/sbin/sshd it writes STATE/unavailable; the tests then skip (exit 77).
# Usage: sshd_fixture.sh start|stop STATE_DIR
set -euo pipefail
action=$1 state=$2
case "$action" in
  start)
    rm -rf "$state" && mkdir -p "$state" && chmod 700 "$state"
    sshd=/usr/sbin/sshd
    if [ ! -x "$sshd" ] || ! command -v ssh-keygen >/dev/null; then
      echo "no $sshd or ssh-keygen (Debian: openssh-server)" >"$state/unavailable"
      exit 0
    fi
    ssh-keygen -q -t ed25519 -N '' -f "$state/host_key"
    ssh-keygen -q -t ed25519 -N '' -f "$state/id_ed25519" -C neograde-test
    cp "$state/id_ed25519.pub" "$state/authorized_keys"
    id -un >"$state/user"
    mkdir -p /run/sshd 2>/dev/null || true  # sshd's privilege separation directory, when root
    for _ in 1 2 3 4 5; do
      port=$((20000 + RANDOM % 20000))
      cat >"$state/sshd_config" <<CONFIG
Port $port
ListenAddress 127.0.0.1
HostKey $state/host_key
PidFile $state/sshd.pid
AuthorizedKeysFile $state/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
PrintMotd no
CONFIG
      "$sshd" -D -e -f "$state/sshd_config" </dev/null >/dev/null 2>"$state/sshd.log" &
      echo $! >"$state/sshd.pid.shell"
      for _ in $(seq 50); do
        if grep -q "Server listening" "$state/sshd.log" 2>/dev/null; then
          echo "$port" >"$state/port"
          exit 0
        fi
        kill -0 "$(cat "$state/sshd.pid.shell")" 2>/dev/null || break
        sleep 0.1
      done
      kill "$(cat "$state/sshd.pid.shell")" 2>/dev/null || true
    done
    echo "sshd did not start:" >&2
    cat "$state/sshd.log" >&2
    exit 1
    ;;
  stop)
    [ -f "$state/sshd.pid.shell" ] && kill "$(cat "$state/sshd.pid.shell")" 2>/dev/null || true
    ;;
esac
