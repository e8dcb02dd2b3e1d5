# fake_runtime.sh — sourced by the shell tests that run fake_runtime.py,
# after setting here (this directory) and tmp (their work directory): a
# short TMPDIR (the diagnostic sockets' paths must fit sockaddr_un, 108
# bytes), fail (counts in fails), start_fake MODE (its pid in fake_pid once
# it listens; fail and exit when not ready within 20 s), stop_fake (by that
# pid), and an EXIT trap that stops it and removes TMPDIR.
TMPDIR=$(mktemp -d /tmp/gcs-peer.XXXXXX) || exit 1
export TMPDIR
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
fake_pid=
start_fake() {   # MODE: sets fake_pid
  rm -f "$tmp/ready"
  python3 "$here/fake_runtime.py" "$1" "$tmp/ready" </dev/null &
  for _ in $(seq 1 400); do [ -s "$tmp/ready" ] && break; sleep 0.05; done
  fake_pid=$(cat "$tmp/ready" 2>/dev/null)
  [ -n "$fake_pid" ] || { fail "fake_runtime.py $1 not ready within 20 s"; exit "$fails"; }
}
stop_fake() { [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null && wait "$fake_pid" 2>/dev/null; fake_pid=; }
trap 'stop_fake; rm -rf "$TMPDIR"' EXIT
