#!/bin/sh
# hostile_peer.sh GCSCOPE TMP — `record --pid`, `top --pid` and `ps` against a
# fake .NET runtime on the diagnostics socket (fake_runtime.py), issue 25:
#  sortbomb  a valid stream whose every event asks for a partial delivery of
#            a buffer it unsorts: --duration 3 ends the recording in < 10 s
#            (it ran for hours), SIGINT ends it in < 5 s, top quits on `q`;
#  garbage   exit 1, one line naming what was wrong and where the bytes are
#            (was exit 0, "...trace.nettrace: Not a directory");
#  empty     exit 1, one line, no empty trace file or -o directory left;
#  flood     1 MB StackBlocks as fast as the socket takes them: --max-size 20
#            stops the file at 20,000,000 bytes at most (6.6 GB were written);
#  escapes   `ps` prints the runtime version's escape sequences as '?'.
# Every fake runtime is stopped by its PID.
set -u
gcscope=$1; tmp=$2/hostile_peer
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$tmp"; mkdir -p "$tmp"
. "$here/fake_runtime.sh"
now() { date +%s%N | cut -c1-13; }   # ms

# sortbomb, live triggers, --duration 3.
start_fake sortbomb
t0=$(now)
timeout 60 "$gcscope" record --pid "$fake_pid" --stop-on-gc-over 1 --duration 3 -o "$tmp/sb" >"$tmp/out" 2>"$tmp/err"; rc=$?
ms=$(($(now) - t0))
[ $rc -eq 0 ] || fail "sortbomb --duration 3: exit $rc: $(cat "$tmp/err")"
[ $ms -lt 10000 ] || fail "sortbomb --duration 3: took $ms ms"
grep -q '^gcscope record: no trigger fired; nothing written$' "$tmp/out" || fail "sortbomb: $(cat "$tmp/out")"
stop_fake

# sortbomb, whole stream to disk, SIGINT after 1.5 s.
start_fake sortbomb
timeout 60 "$gcscope" record --pid "$fake_pid" -o "$tmp/sb2" >"$tmp/out" 2>"$tmp/err" &
rec=$!
sleep 1.5
t0=$(now)
kill -INT $rec
wait $rec; rc=$?
ms=$(($(now) - t0))
[ $rc -eq 0 ] || fail "sortbomb SIGINT: exit $rc: $(cat "$tmp/err")"
[ $ms -lt 5000 ] || fail "sortbomb SIGINT: took $ms ms to stop"
[ -s "$tmp/sb2/trace.nettrace" ] || fail "sortbomb SIGINT: no trace"
stop_fake

# top --pid on the sortbomb: `q` quits at once.
if command -v tmux >/dev/null; then
  start_fake sortbomb
  sock=gcs-hostile-$$
  tmux -L "$sock" -f /dev/null new-session -d -s t -x 100 -y 30 "$gcscope top --pid $fake_pid; echo \$? >$tmp/top.rc"
  tmux_pid=$(tmux -L "$sock" display-message -p '#{pid}')
  sleep 3
  t0=$(now)
  tmux -L "$sock" send-keys -t t q
  for _ in $(seq 1 100); do [ -s "$tmp/top.rc" ] && break; sleep 0.05; done
  ms=$(($(now) - t0))
  [ "$(cat "$tmp/top.rc" 2>/dev/null)" = 0 ] || fail "top q: $(cat "$tmp/top.rc" 2>/dev/null) after $ms ms"
  [ $ms -lt 3000 ] || fail "top q: took $ms ms"
  # the tmux server by its PID, then its socket (tmux leaves it in /tmp/tmux-UID)
  kill "$tmux_pid" 2>/dev/null
  for _ in $(seq 1 100); do kill -0 "$tmux_pid" 2>/dev/null || break; sleep 0.02; done
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"
  stop_fake
else
  echo "SKIP: top q (no tmux)"
fi

# garbage: exit 1, one line.
start_fake garbage
timeout 60 "$gcscope" record --pid "$fake_pid" -o "$tmp/g" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "garbage: exit $rc"
want="gcscope record: pid $fake_pid: what its diagnostic socket sent is not a nettrace stream (no \"Nettrace\" magic); the bytes received are in $tmp/g/trace.nettrace"
[ "$(cat "$tmp/err")" = "$want" ] || fail "garbage: stderr '$(cat "$tmp/err")'"
stop_fake

# empty: exit 1, one line, nothing left.
start_fake empty
timeout 60 "$gcscope" record --pid "$fake_pid" -o "$tmp/e" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "empty: exit $rc"
want="gcscope record: pid $fake_pid: the session ended without a byte of trace (the diagnostic socket closed it at once; no trace written)"
[ "$(cat "$tmp/err")" = "$want" ] || fail "empty: stderr '$(cat "$tmp/err")'"
[ ! -e "$tmp/e" ] || fail "empty: left $(ls -R "$tmp/e")"
stop_fake

# flood: --max-size 20 (MB, 10^6 bytes).
start_fake flood
t0=$(now)
timeout 60 "$gcscope" record --pid "$fake_pid" --max-size 20 --duration 30 -o "$tmp/f" >"$tmp/out" 2>"$tmp/err"; rc=$?
ms=$(($(now) - t0))
size=$(stat -c %s "$tmp/f/trace.nettrace" 2>/dev/null || echo missing)
[ $rc -eq 0 ] || fail "flood: exit $rc: $(cat "$tmp/err")"
[ "$size" != missing ] && [ "$size" -le 20000000 ] && [ "$size" -gt 19000000 ] || fail "flood: trace of $size bytes"
grep -q '^gcscope record: the trace reached --max-size (20 MB): the recording stopped there$' "$tmp/out" || fail "flood: $(cat "$tmp/out")"
[ $ms -lt 20000 ] || fail "flood: took $ms ms"
stop_fake

# ps: escape sequences replaced.
start_fake escapes
"$gcscope" ps >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "ps: exit $rc"
grep -q "^ *$fake_pid  .* ?\]0;pwned??\[2J8\.0\.1 " "$tmp/out" || fail "ps: $(cat "$tmp/out")"
grep -q "$(printf '\033')" "$tmp/out" && fail "ps: raw ESC printed"
stop_fake

trap - EXIT
rm -rf "$tmp" "$TMPDIR"
[ $fails -eq 0 ] && echo "hostile_peer: all passed"
exit $fails
