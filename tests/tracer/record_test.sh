#!/bin/bash
# record_test.sh CASE GCSCOPE SCRIPTED_GC RGC_LONG_SUSPEND GCSIM RGC_DEMO REPLAY_PROBE — end-to-end tests
# of `gcscope record` (label lttng). Expected values come from the scripted
# emitter's arguments, from what the librgc program reports about its own GCs,
# and from babeltrace2's text output of the written traces, never from
# gcscope's own figures. Every process started here is stopped by its PID.
set -u
CASE=$1 GCSCOPE=$2 EMIT=$3 RGCPROG=${4:-} GCSIM=${5:-} RGCDEMO=${6:-} PROBE=${7:-}
WORK=$(mktemp -d /tmp/gcscope-trc-test.XXXXXX)
chmod 755 "$WORK"
BG_PIDS=()
cleanup() {
  for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL ($CASE): $*" >&2; [ -f "$WORK/out.txt" ] && sed 's/^/  out: /' "$WORK/out.txt" >&2; [ -f "$WORK/err.txt" ] && sed 's/^/  err: /' "$WORK/err.txt" >&2; exit 1; }
expect_line() { grep -qE -- "$2" "$1" || fail "no line matching '$2' in $(basename "$1")"; }

# Seconds (with ns) of the event timestamps in babeltrace2 text, one per line.
bt_times() { sed -E 's/^\[([0-9]+):([0-9]+):([0-9]+\.[0-9]+)\].*/\1 \2 \3/' | awk '{printf "%.9f\n", $1*3600+$2*60+$3}'; }
# Milliseconds between the first event matching $2 and the first matching $3 in trace $1.
gap_ms() {
  local a b
  a=$(babeltrace2 "$1" | grep -E -- "$2" | head -1 | bt_times)
  b=$(babeltrace2 "$1" | grep -E -- "$3" | head -1 | bt_times)
  [ -n "$a" ] && [ -n "$b" ] || { echo -1; return; }
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%d\n", (b - a) * 1000 }'
}
# Milliseconds from the first event matching $2 to the first event matching $3
# after it, in trace $1.
gap_after_ms() {
  babeltrace2 "$1" | awk -v a="$2" -v b="$3" '
    function secs(l,  t, h) { match(l, /^\[[0-9:.]+\]/); t = substr(l, 2, RLENGTH - 2); split(t, h, ":");
                              return h[1] * 3600 + h[2] * 60 + h[3] }
    !ta && $0 ~ a { ta = secs($0); next }
    ta && $0 ~ b { printf "%d\n", (secs($0) - ta) * 1000; found = 1; exit }
    END { if (!found) print -1 }'
}
# GCStart -> GCEnd in ms of every GC (by Count) of the rgc trace $1: "COUNT MS" lines.
gc_durations() {
  babeltrace2 "$1" | awk '
    function secs(l,  t, h) { match(l, /^\[[0-9:.]+\]/); t = substr(l, 2, RLENGTH - 2); split(t, h, ":");
                              return h[1] * 3600 + h[2] * 60 + h[3] }
    /rgc:GCStart_V2/ { match($0, /Count = [0-9]+/); s[substr($0, RSTART + 8, RLENGTH - 8)] = secs($0) }
    /rgc:GCEnd_V1/ { match($0, /Count = [0-9]+/); c = substr($0, RSTART + 8, RLENGTH - 8)
                     if (c in s) printf "%s %.3f\n", c, (secs($0) - s[c]) * 1000 }'
}
captures() { find "$1" -maxdepth 1 -name 'capture-*' -type d | wc -l; }

run_rec() { "$GCSCOPE" record "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"; }

# Three TCP ports of 127.0.0.1 free right now (bound together, then released).
free_ports() {
  python3 -c 'import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))'
}
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# Our own lttng-relayd on loopback, non-default ports chosen now, writing to
# $WORK/relayd-out; stopped by its PID at exit (cleanup). Sets RELAYD_URL.
# Ports are free when chosen but another process may take one before the
# relayd binds it: then the relayd exits, and new ports are tried (5 times).
start_relayd() {
  local c d l try
  mkdir -p "$WORK/relayd-out"
  for try in 1 2 3 4 5; do
    read -r c d l < <(free_ports) || fail "no free ports"
    lttng-relayd -C "tcp://127.0.0.1:$c" -D "tcp://127.0.0.1:$d" -L "tcp://127.0.0.1:$l" -o "$WORK/relayd-out" \
      >"$WORK/relayd.log" 2>&1 &
    RELAYD_PID=$!
    BG_PIDS+=("$RELAYD_PID")
    RELAYD_URL="net://127.0.0.1:$c:$d"
    for _ in $(seq 100); do
      port_open "$c" && port_open "$d" && return 0
      kill -0 "$RELAYD_PID" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$RELAYD_PID" 2>/dev/null; then
      fail "lttng-relayd does not listen on ports $c and $d"
    fi
    grep -qi "address already in use" "$WORK/relayd.log" || fail "lttng-relayd exited: $(cat "$WORK/relayd.log")"
    echo "ports $c $d $l: one was taken before lttng-relayd bound it (try $try); new ports" >&2
  done
  fail "lttng-relayd exited 5 times on ports taken: $(cat "$WORK/relayd.log")"
}
# The one session directory the relayd wrote (HOST/gcscope-record-PID-DATE),
# checked against the location gcscope printed.
relayd_session_dir() {
  local host dirs
  host=$(uname -n)
  mapfile -t dirs < <(find "$WORK/relayd-out" -mindepth 2 -maxdepth 2 -type d)
  [ "${#dirs[@]}" = 1 ] || fail "the relayd output holds ${#dirs[@]} session directories: ${dirs[*]}"
  [[ ${dirs[0]} == "$WORK/relayd-out/$host/gcscope-record-"* ]] || fail "unexpected relayd directory ${dirs[0]}"
  local sess; sess=$(basename "${dirs[0]}")
  expect_line "$WORK/out.txt" "sent to lttng-relayd at $RELAYD_URL: $host/${sess%-*-*}-\* in its output directory\$"
  echo "${dirs[0]}"
}
# A bad invocation: non-zero exit, one line on stderr with the phrase.
check_bad() {   # expected-phrase args...
  local phrase=$1; shift
  "$GCSCOPE" record "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"; rc=$?
  [ "$rc" != 0 ] || fail "'$*' exited 0"
  [ "$(wc -l <"$WORK/err.txt")" = 1 ] || fail "'$*' printed $(wc -l <"$WORK/err.txt") lines on stderr"
  grep -q "^gcscope record: .*$phrase" "$WORK/err.txt" || fail "'$*': stderr lacks '$phrase'"
}

case $CASE in
gc_over)
  # GC 3 lasts 300 ms (GCStart -> GCEnd); the others take no time.
  run_rec -o "$WORK/t" --stop-on-gc-over 50 --delay-after-trigger 0 -- "$EMIT" --gcs 6 --long-gc 3:300 || fail "exit $?"
  expect_line "$WORK/out.txt" "trigger gc-over 50 ms: pid [0-9]+ GC #3 gen1 NonConcurrentGC: [0-9.]+ ms -> $WORK/t/capture-1\$"
  [ "$(captures "$WORK/t")" = 1 ] || fail "expected 1 capture"
  g=$(gap_ms "$WORK/t/capture-1" 'rgc:GCStart_V2.*Count = 3,' 'rgc:GCEnd_V1.*Count = 3,')
  [ "$g" -ge 300 ] || fail "GC 3 in the capture lasts $g ms, expected >= 300"
  ;;
suspend_over)
  # GC 4's suspension (SuspendEEBegin -> SuspendEEEnd) lasts 300 ms.
  run_rec -o "$WORK/t" --stop-on-suspend-over 50 --delay-after-trigger 0 -- "$EMIT" --gcs 6 --long-suspend 4:300 || fail "exit $?"
  expect_line "$WORK/out.txt" "trigger suspend-over 50 ms: pid [0-9]+ GC #4 gen0 NonConcurrentGC: [0-9.]+ ms -> $WORK/t/capture-1\$"
  [ "$(captures "$WORK/t")" = 1 ] || fail "expected 1 capture"
  g=$(gap_ms "$WORK/t/capture-1" 'rgc:GCSuspendEEBegin_V1.*Count = 4,' 'rgc:GCStart_V2.*Count = 4,')
  [ "$g" -ge 300 ] || fail "GC 4's suspension in the capture lasts $g ms, expected >= 300"
  ;;
bgc_final)
  # GC 2 is a BGC whose final pause lasts 300 ms; GC 4 is a 30 ms gen1 GC (below).
  run_rec -o "$WORK/t" --stop-on-bgc-final-pause-over 50 --delay-after-trigger 0 -- "$EMIT" --gcs 6 --bgc 2:300 --long-gc 4:30 || fail "exit $?"
  expect_line "$WORK/out.txt" "trigger bgc-final-pause-over 50 ms: pid [0-9]+ GC #2 gen2 BackgroundGC: [0-9.]+ ms -> $WORK/t/capture-1\$"
  [ "$(captures "$WORK/t")" = 1 ] || fail "expected 1 capture"
  babeltrace2 "$WORK/t/capture-1" | grep -q 'rgc:GCSuspendEEBegin_V1.*Reason = 6, Count = 2,' || fail "capture lacks the BGC's final suspension"
  g=$(gap_ms "$WORK/t/capture-1" 'rgc:GCSuspendEEBegin_V1.*Reason = 6, Count = 2,' 'rgc:BGC2ndNonConEnd')
  [ "$g" -ge 300 ] || fail "final pause in the capture lasts $g ms, expected >= 300"
  ;;
multiple)
  # Four 300 ms GCs (3, 6, 9, 11); --collect-multiple 3 keeps the first three.
  # Each long GC after the first waits for the previous capture's verified
  # line (--after-capture, wait_capture.h): it begins after that capture's
  # re-arm however slow the capture and the notifications are under load.
  run_rec -o "$WORK/t" --stop-on-gc-over 50 --delay-after-trigger 0 --collect-multiple 3 -- \
    "$EMIT" --gcs 12 --interval-ms 30 --long-gc 3:300 --long-gc 6:300 --long-gc 9:300 --long-gc 11:300 \
    --after-capture "$WORK/out.txt" || fail "exit $?"
  [ "$(captures "$WORK/t")" = 3 ] || fail "expected 3 captures, found $(captures "$WORK/t")"
  k=1
  for gc in 3 6 9; do
    expect_line "$WORK/out.txt" "trigger gc-over 50 ms: pid [0-9]+ GC #$gc gen1 .* -> $WORK/t/capture-$k\$"
    babeltrace2 "$WORK/t/capture-$k" | grep -q "rgc:GCEnd_V1.*Count = $gc," || fail "capture-$k lacks GC $gc's end"
    k=$((k + 1))
  done
  grep -q 'trigger gc-over.*GC #11' "$WORK/out.txt" && fail "a fourth trigger was reported"
  expect_line "$WORK/out.txt" '^gcscope record: 3 captures in '
  ;;
none)
  run_rec -o "$WORK/t" --stop-on-gc-over 100 --stop-on-suspend-over 100 --stop-on-bgc-final-pause-over 100 \
    --delay-after-trigger 0 -- "$EMIT" --gcs 20 --interval-ms 5 --bgc 5:0 || fail "exit $?"
  [ "$(captures "$WORK/t")" = 0 ] || fail "captures were written"
  expect_line "$WORK/out.txt" '^gcscope record: no trigger fired; nothing written$'
  expect_line "$WORK/out.txt" '^gcscope record: 20 GCs in 1 process'
  ;;
quiet_parent)
  # A plain recording (no triggers, no relayd) leaves the command's cores alone:
  # gcscope sleeps until the command exits instead of waking every millisecond
  # (~1,000 context switches a second before). The command is a shell that
  # gcscope exec()s, so its parent is gcscope; it counts gcscope's voluntary
  # context switches over one second of its own run.
  run_rec -o "$WORK/t" -- sh -c 'sw() { awk "/^voluntary_ctxt_switches/ { print \$2 }" /proc/$PPID/status; }
    a=$(sw); sleep 1; b=$(sw); echo "parent_switches=$((b - a))"' || fail "exit $?"
  n=$(sed -n 's/^parent_switches=//p' "$WORK/out.txt")
  [ -n "$n" ] || fail "the command did not report its parent's context switches"
  [ "$n" -lt 100 ] || fail "gcscope switched $n times in 1 s while the command ran (a timer of ~10 ms or less)"
  expect_line "$WORK/out.txt" "^gcscope record: trace in $WORK/t\$"
  ;;
duration)
  # The command would run forever: --duration 1 stops the recording and the command.
  run_rec -o "$WORK/t" --duration 1 -- "$EMIT" --forever --interval-ms 20 || fail "exit $?"
  expect_line "$WORK/out.txt" '^scripted_gc: done$'
  n=$(babeltrace2 "$WORK/t" | grep -c 'rgc:GCStart_V2')
  [ "$n" -ge 5 ] || fail "only $n GCs recorded in 1 s at 20 ms intervals"
  ;;
sigint)
  "$GCSCOPE" record -o "$WORK/t" -- "$EMIT" --forever --interval-ms 20 >"$WORK/out.txt" 2>"$WORK/err.txt" &
  rp=$!
  BG_PIDS+=("$rp")
  for _ in $(seq 100); do grep -q 'scripted_gc: ready' "$WORK/out.txt" && break; sleep 0.1; done
  sleep 1
  kill -INT "$rp"
  wait "$rp"; rc=$?
  [ "$rc" = 0 ] || fail "gcscope record exited $rc after SIGINT"
  expect_line "$WORK/out.txt" '^scripted_gc: done$'          # the command got the signal
  expect_line "$WORK/out.txt" "^gcscope record: trace in $WORK/t\$"
  n=$(babeltrace2 "$WORK/t" | grep -c 'rgc:GCStart_V2')
  [ "$n" -ge 5 ] || fail "only $n GCs kept after SIGINT"
  lttng list 2>/dev/null | grep -q "gcscope-record-$rp" && fail "session gcscope-record-$rp left behind"
  true
  ;;
pid)
  "$EMIT" --forever --interval-ms 20 >"$WORK/target.txt" & tp=$!; BG_PIDS+=("$tp")
  "$EMIT" --forever --interval-ms 20 >"$WORK/decoy.txt" & dp=$!; BG_PIDS+=("$dp")
  sleep 0.5
  run_rec -o "$WORK/t" --pid "$tp" --duration 1 || fail "exit $?"
  # Per-process buffers: babeltrace2 names each event's process (HOST:NAME:(PID)).
  n=$(babeltrace2 "$WORK/t" | grep -c ":($tp) rgc:GCStart_V2")
  [ "$n" -ge 5 ] || fail "only $n GCs of the target recorded"
  babeltrace2 "$WORK/t" | grep -q ":($dp) " && fail "events of the other process were recorded"
  kill -0 "$tp" || fail "the target process was stopped"
  expect_line "$WORK/out.txt" '^gcscope record: [0-9]+ GCs in 1 process'
  ;;
pid_exit)
  # The --pid process exits during the recording and stays a zombie (its
  # parent, sleep, never reaps it: kill(pid, 0) still succeeds): record must
  # see the exit itself (a pidfd), stop at once rather than at --duration 60,
  # and keep all 20 GCs the program made (it starts them 3 s after it is up;
  # record's session is running long before).
  sh -c '"$1" --gcs 20 --interval-ms 20 --start-delay-ms 3000 >"$2" & exec sleep 120' sh "$EMIT" "$WORK/target.txt" &
  BG_PIDS+=("$!")
  for _ in $(seq 100); do grep -q 'scripted_gc: ready' "$WORK/target.txt" 2>/dev/null && break; sleep 0.05; done
  tp=$(sed -nE 's/^scripted_gc: ready ([0-9]+)$/\1/p' "$WORK/target.txt")
  [ -n "$tp" ] || fail "the target did not start"
  run_rec -o "$WORK/t" --pid "$tp" --duration 60 || fail "exit $?"
  expect_line "$WORK/target.txt" '^scripted_gc: done$'
  [ "$(sed -nE 's/^State:[[:space:]]+([A-Z]).*/\1/p' "/proc/$tp/status" 2>/dev/null)" = Z ] ||
    fail "premise: the target is not a zombie"
  expect_line "$WORK/out.txt" "^gcscope record: process $tp exited\$"
  n=$(babeltrace2 "$WORK/t" | grep -c ":($tp) rgc:GCStart_V2")
  [ "$n" = 20 ] || fail "$n of the target's 20 GCs recorded"
  expect_line "$WORK/out.txt" '^gcscope record: 20 GCs in 1 process'
  ;;
bad_input)
  check_bad "unknown profile 'heavy'" --profile heavy -o "$WORK/x" -- true
  check_bad "at least 0" --stop-on-gc-over -5 -o "$WORK/x" -- true
  check_bad "no process with PID 2147483646" --pid 2147483646 -o "$WORK/x"
  check_bad "no process with PID 2147483646" -p 2147483646 -o "$WORK/x"
  check_bad "cannot write to output directory" -o /dev/null/trace -- true
  check_bad "cannot run the command: No such file or directory" -o "$WORK/x" -- /nonexistent/prog
  [ -d "$WORK/x" ] && [ -z "$(lttng list 2>/dev/null | grep gcscope-record)" ] || true
  ;;
no_daemon)
  # A user without a session daemon of their own: gcscope starts one for the
  # recording and stops it afterwards.
  H="$WORK/home"; mkdir -p "$H"; chown 65534:65534 "$H" "$WORK"
  asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH="$PATH" HOME="$H" LTTNG_HOME="$H" "$@"; }
  # A build tree inside a private directory (mktemp -d makes mode 700) is out of
  # nobody's reach: run copies of the two programs from the test's own directory.
  if ! asnobody test -x "$GCSCOPE" || ! asnobody test -x "$EMIT"; then
    mkdir -p "$WORK/bin" && cp "$GCSCOPE" "$EMIT" "$WORK/bin/" || fail "cannot copy the programs for uid 65534"
    GCSCOPE="$WORK/bin/$(basename "$GCSCOPE")" EMIT="$WORK/bin/$(basename "$EMIT")"
  fi
  pgrep -u 65534 lttng-sessiond >/dev/null && fail "a session daemon of uid 65534 already runs"
  asnobody "$GCSCOPE" record -o "$H/t" --stop-on-gc-over 50 --delay-after-trigger 0 -- "$EMIT" --gcs 6 --long-gc 3:300 \
    >"$WORK/out.txt" 2>"$WORK/err.txt" || fail "exit $?"
  expect_line "$WORK/out.txt" "trigger gc-over 50 ms: pid [0-9]+ GC #3 gen1 NonConcurrentGC: [0-9.]+ ms -> $H/t/capture-1\$"
  babeltrace2 "$H/t/capture-1" | grep -q 'rgc:GCEnd_V1.*Count = 3,' || fail "capture lacks GC 3"
  pgrep -u 65534 lttng-sessiond >/dev/null && fail "the session daemon gcscope started is still running"
  true
  ;;
circular_at_exit)
  # --circular-mb without triggers: the ring is written once, at the end.
  run_rec -o "$WORK/t" --circular-mb 8 -- "$EMIT" --gcs 7 --interval-ms 1 || fail "exit $?"
  n=$(babeltrace2 "$WORK/t" | grep -c 'rgc:GCStart_V2')
  [ "$n" = 7 ] || fail "flight recording holds $n GCStarts, expected 7"
  ;;
rgc_suspend_over)
  # librgc: GC 4's suspension waits ~300 ms for a mutator spinning away from
  # safepoints. With a 1 s delay the capture also holds the end of that GC.
  run_rec -o "$WORK/t" --stop-on-suspend-over 50 --delay-after-trigger 1 -- "$RGCPROG" --gcs 6 --long-suspend 4:300 || fail "exit $?"
  # The GC index and generation as librgc itself reports them.
  line=$(grep -E '^rgc_long_suspend: GC #[0-9]+ gen[0-9] suspended 300 ms$' "$WORK/out.txt") || fail "the program did not report its long GC"
  k=$(sed -E 's/.*GC #([0-9]+) gen([0-9]).*/\1/' <<<"$line"); gen=$(sed -E 's/.*GC #([0-9]+) gen([0-9]).*/\2/' <<<"$line")
  expect_line "$WORK/out.txt" "trigger suspend-over 50 ms: pid [0-9]+ GC #$k gen$gen NonConcurrentGC: [0-9.]+ ms -> $WORK/t/capture-1\$"
  [ "$(captures "$WORK/t")" = 1 ] || fail "expected 1 capture"
  bt=$(babeltrace2 "$WORK/t/capture-1")
  for ev in "GCSuspendEEBegin_V1.*Reason = 1, Count = $k," "GCStart_V2.*Count = $k," "GCEnd_V1.*Count = $k,"; do
    grep -qE "rgc:$ev" <<<"$bt" || fail "capture lacks rgc:$ev"
  done
  g=$(gap_ms "$WORK/t/capture-1" "rgc:GCSuspendEEBegin_V1.*Count = $k," "rgc:GCStart_V2.*Count = $k,")
  [ "$g" -ge 250 ] || fail "GC $k's suspension in the capture lasts $g ms, expected about 300"
  ;;
rgc_multiple)
  # librgc: four GCs with ~200 ms suspensions; --collect-multiple 3 keeps three.
  # Each long suspension after the first begins once the previous capture is
  # verified (--after-capture): after its re-arm. A fixed 300 ms between GCs
  # was not enough under load: the notifications lagged 670 ms, GC 6's
  # suspension began before capture-2's re-arm and never fired (1 run in 3
  # with 4 CPU hogs).
  run_rec -o "$WORK/t" --stop-on-suspend-over 50 --delay-after-trigger 0 --collect-multiple 3 -- \
    "$RGCPROG" --gcs 9 --interval-ms 300 --long-suspend 2:200 --long-suspend 4:200 --long-suspend 6:200 \
    --long-suspend 8:200 --after-capture "$WORK/out.txt" || fail "exit $?"
  [ "$(captures "$WORK/t")" = 3 ] || fail "expected 3 captures, found $(captures "$WORK/t")"
  mapfile -t ks < <(sed -nE 's/^rgc_long_suspend: GC #([0-9]+) gen[0-9] suspended 200 ms$/\1/p' "$WORK/out.txt")
  [ "${#ks[@]}" = 4 ] || fail "the program reported ${#ks[@]} long GCs, expected 4"
  for c in 1 2 3; do
    k=${ks[$((c - 1))]}
    expect_line "$WORK/out.txt" "trigger suspend-over 50 ms: pid [0-9]+ GC #$k gen0 .* -> $WORK/t/capture-$c\$"
    babeltrace2 "$WORK/t/capture-$c" | grep -qE "rgc:GCSuspendEEBegin_V1.*Count = $k," || fail "capture-$c lacks GC $k's suspension"
  done
  grep -q "trigger suspend-over.*GC #${ks[3]} " "$WORK/out.txt" && fail "a fourth trigger was reported"
  expect_line "$WORK/out.txt" '^gcscope record: 3 captures in '
  ;;
rgc_gc_over)
  # librgc: right before GC 3 the program builds 1000 MB of live linked
  # objects, which that GC marks (GCStart -> GCEnd >= 3x the 50 ms threshold;
  # ~390 ms on an idle machine); every other GC lasts <= 1/5 of the threshold
  # (checked in the capture: the premise).
  run_rec -o "$WORK/t" --stop-on-gc-over 50 --delay-after-trigger 0 -- "$RGCPROG" --gcs 6 --long-gc 3:1000 || fail "exit $?"
  pid=$(sed -nE 's/^rgc_long_suspend: ready ([0-9]+)$/\1/p' "$WORK/out.txt")
  line=$(grep -E '^rgc_long_suspend: GC #[0-9]+ gen[0-9] marked 1000 MB live' "$WORK/out.txt") || fail "the program did not report its long GC"
  k=$(sed -E 's/.*GC #([0-9]+) gen([0-9]).*/\1/' <<<"$line"); gen=$(sed -E 's/.*GC #([0-9]+) gen([0-9]).*/\2/' <<<"$line")
  expect_line "$WORK/out.txt" "trigger gc-over 50 ms: pid $pid GC #$k gen$gen NonConcurrentGC: [0-9.]+ ms -> $WORK/t/capture-1\$"
  [ "$(grep -c 'trigger gc-over 50 ms:' "$WORK/out.txt")" = 1 ] || fail "expected exactly one trigger"
  [ "$(captures "$WORK/t")" = 1 ] || fail "expected 1 capture"
  bt=$(babeltrace2 "$WORK/t/capture-1")
  for ev in "GCStart_V2.*Count = $k, Depth = $gen, Reason = 1, Type = 0," "GCEnd_V1.*Count = $k, Depth = $gen,"; do
    grep -qE "rgc:$ev" <<<"$bt" || fail "capture lacks rgc:$ev"
  done
  gc_durations "$WORK/t/capture-1" >"$WORK/durations.txt"
  awk -v k="$k" '$1 == k && $2 >= 150 { ok = 1 } END { exit !ok }' "$WORK/durations.txt" ||
    fail "premise: GC $k in the capture lasts $(awk -v k="$k" '$1 == k { print $2 }' "$WORK/durations.txt") ms, not >= 150"
  awk -v k="$k" '$1 != k && $2 > 10 { bad = 1 } END { exit bad }' "$WORK/durations.txt" ||
    fail "premise: another GC lasts > 10 ms: $(awk -v k="$k" '$1 != k' "$WORK/durations.txt" | tr '\n' ' ')"
  [ "$(wc -l <"$WORK/durations.txt")" -ge "$k" ] || fail "the capture lacks the GCs before GC $k"
  ;;
rgc_bgc_final)
  # librgc: GC 3 is a background GC; a mutator sleeps 600 ms in cooperative
  # mode as soon as its first pause is over, so its final pause (SuspendEE
  # reason 6 -> RestartEEEnd) lasts >= 250 ms (5x the threshold). A 32 MB gen2
  # list keeps the concurrent mark busy until then. With a 1 s delay the
  # capture also holds the BGC's end.
  run_rec -o "$WORK/t" --stop-on-bgc-final-pause-over 50 --delay-after-trigger 1 -- \
    "$RGCPROG" --gcs 5 --old-mb 32 --bgc 3:600 || fail "exit $?"
  pid=$(sed -nE 's/^rgc_long_suspend: ready ([0-9]+)$/\1/p' "$WORK/out.txt")
  line=$(grep -E '^rgc_long_suspend: BGC #[0-9]+ gen2 final pause held 600 ms' "$WORK/out.txt") || fail "the program did not report its BGC"
  k=$(sed -E 's/.*BGC #([0-9]+) gen.*/\1/' <<<"$line")
  expect_line "$WORK/out.txt" "trigger bgc-final-pause-over 50 ms: pid $pid GC #$k gen2 BackgroundGC: [0-9.]+ ms -> $WORK/t/capture-1\$"
  [ "$(grep -c 'trigger bgc-final-pause-over 50 ms:' "$WORK/out.txt")" = 1 ] || fail "expected exactly one trigger"
  [ "$(captures "$WORK/t")" = 1 ] || fail "expected 1 capture"
  bt=$(babeltrace2 "$WORK/t/capture-1")
  for ev in "GCStart_V2.*Count = $k, Depth = 2, Reason = 1, Type = 1," "GCSuspendEEBegin_V1.*Reason = 6, Count = $k," \
            "BGC2ndNonConEnd" "GCEnd_V1.*Count = $k, Depth = 2,"; do
    grep -qE "rgc:$ev" <<<"$bt" || fail "capture lacks rgc:$ev"
  done
  g=$(gap_after_ms "$WORK/t/capture-1" "rgc:GCSuspendEEBegin_V1.*Reason = 6, Count = $k," 'rgc:GCRestartEEEnd_V1')
  [ "$g" -ge 250 ] || fail "premise: the final pause of BGC $k in the capture lasts $g ms, not >= 250"
  n6=$(grep -cE 'rgc:GCSuspendEEBegin_V1.*Reason = 6,' <<<"$bt")
  [ "$n6" = 1 ] || fail "the capture holds $n6 BGC final pauses, expected 1"
  ;;
rgc_bgc_multiple)
  # librgc: four BGCs with ~600 ms final pauses (the concurrent mark before
  # them takes up to 350 ms, ASan build included, and the pause stays >= 250);
  # --collect-multiple 3 keeps the first three (each BGC after the first
  # starts once the previous capture is verified, --after-capture: after its
  # re-arm, however loaded the machine).
  run_rec -o "$WORK/t" --stop-on-bgc-final-pause-over 50 --delay-after-trigger 0 --collect-multiple 3 -- \
    "$RGCPROG" --gcs 9 --interval-ms 200 --old-mb 32 --bgc 2:600 --bgc 4:600 --bgc 6:600 --bgc 8:600 \
    --after-capture "$WORK/out.txt" || fail "exit $?"
  expect_line "$WORK/out.txt" '^rgc_long_suspend: done$'
  [ "$(captures "$WORK/t")" = 3 ] || fail "expected 3 captures, found $(captures "$WORK/t")"
  mapfile -t ks < <(sed -nE 's/^rgc_long_suspend: BGC #([0-9]+) gen2 final pause held 600 ms.*/\1/p' "$WORK/out.txt")
  [ "${#ks[@]}" = 4 ] || fail "the program reported ${#ks[@]} held BGCs, expected 4"
  for c in 1 2 3; do
    k=${ks[$((c - 1))]}
    expect_line "$WORK/out.txt" "trigger bgc-final-pause-over 50 ms: pid [0-9]+ GC #$k gen2 BackgroundGC: [0-9.]+ ms -> $WORK/t/capture-$c\$"
    babeltrace2 "$WORK/t/capture-$c" | grep -qE "rgc:GCSuspendEEBegin_V1.*Reason = 6, Count = $k," ||
      fail "capture-$c lacks BGC $k's final suspension"
    g=$(gap_after_ms "$WORK/t/capture-$c" "rgc:GCSuspendEEBegin_V1.*Reason = 6, Count = $k," 'rgc:GCRestartEEEnd_V1')
    [ "$g" -ge 250 ] || fail "premise: BGC $k's final pause in capture-$c lasts $g ms, not >= 250"
  done
  grep -q "trigger bgc-final-pause-over.*GC #${ks[3]} " "$WORK/out.txt" && fail "a fourth trigger was reported"
  [ "$(grep -c 'trigger bgc-final-pause-over 50 ms:' "$WORK/out.txt")" = 3 ] || fail "expected exactly three triggers"
  expect_line "$WORK/out.txt" '^gcscope record: 3 captures in '
  ;;
gcsim_bgc_none)
  # gcsim's bgc scenario (background GCs with foreground GCs inside, both
  # pauses of each BGC checked by --check) under a 2 s final-pause threshold
  # no BGC reaches: nothing is written.
  run_rec -o "$WORK/t" --stop-on-bgc-final-pause-over 2000 --delay-after-trigger 0 -- \
    "$GCSIM" --scenario bgc --seconds 2 --check || fail "exit $?"
  expect_line "$WORK/out.txt" '^signature=met$'
  nbgc=$(sed -nE 's/^background_gcs_with_two_pauses=([0-9]+)$/\1/p' "$WORK/out.txt")
  [ "${nbgc:-0}" -ge 1 ] || fail "gcsim ran no background GC with two pauses"
  [ "$(captures "$WORK/t")" = 0 ] || fail "captures were written"
  [ -z "$(ls -A "$WORK/t" 2>/dev/null)" ] || fail "the output directory is not empty: $(ls "$WORK/t")"
  expect_line "$WORK/out.txt" '^gcscope record: no trigger fired; nothing written$'
  # The watcher saw gcsim's GCs: gc_count (GCs ended when gcsim reported)
  # or one more (a BGC still running then), unless notifications were lost.
  ngc=$(sed -nE 's/^gc_count=([0-9]+)$/\1/p' "$WORK/out.txt")
  seen=$(sed -nE 's/^gcscope record: ([0-9]+) GCs in 1 process.*/\1/p' "$WORK/out.txt")
  [ -n "$ngc" ] && [ -n "$seen" ] || fail "no GC counts"
  if ! grep -q '^gcscope record: .*approximate' "$WORK/out.txt"; then
    [ "$seen" = "$ngc" ] || [ "$seen" = $((ngc + 1)) ] || fail "gcscope saw $seen GCs, gcsim ran $ngc"
  fi
  ;;
replay_verify)
  # A live firing is checked against the capture's own timestamps before it
  # counts (trc_replay): GC 3 lasts 120 ms, GC 5 30 ms. Over a 100 ms
  # threshold the replay confirms GC 3 and contradicts GC 5 (what record does
  # when a late notification made GC 5 look long), each with the duration
  # babeltrace2's timestamps give, in integer nanoseconds.
  run_rec -o "$WORK/t" -- "$EMIT" --gcs 6 --long-gc 3:120 --long-gc 5:30 || fail "exit $?"
  for c in 3 5; do
    want=$(babeltrace2 "$WORK/t" | awk -v c="$c" '
      function ns(l,  t, h, f) { match(l, /^\[[0-9:.]+\]/); t = substr(l, 2, RLENGTH - 2); split(t, h, ":");
                                 split(h[3], f, "."); return ((h[1] * 60 + h[2]) * 60 + f[1]) * 1000000000 + f[2] }
      $0 ~ ("rgc:GCStart_V2.*Count = " c ",") { s = ns($0) }
      $0 ~ ("rgc:GCEnd_V1.*Count = " c ",") { printf "%.3f\n", (ns($0) - s) / 1e6 }')
    [ -n "$want" ] || fail "GC $c not in the trace"
    got=$("$PROBE" "$WORK/t" gc-over "$c" 100) || fail "probe failed"
    fires=0; [ "$c" = 3 ] && fires=1
    [ "$got" = "matched=1 ms=$want fires=$fires" ] || fail "GC $c: probe says '$got', babeltrace2 $want ms"
  done
  [ "$("$PROBE" "$WORK/t" gc-over 9 100)" = "matched=0" ] || fail "GC 9 (not in the trace) matched"
  ;;
summary_exact)
  # A local recording is summarised from the trace's own timestamps: the GC
  # count and the longest pause (PerfView: a blocking GC's pause runs from its
  # GCSuspendEEBegin to its GCRestartEEEnd) computed here from babeltrace2's
  # text, in integer nanoseconds, must be what record prints.
  run_rec -o "$WORK/t" -- "$RGCPROG" --gcs 20 --interval-ms 5 || fail "exit $?"
  expect_line "$WORK/out.txt" '^rgc_long_suspend: done$'
  grep -q 'notification' "$WORK/out.txt" "$WORK/err.txt" && fail "a recording without triggers mentions notifications"
  want=$(babeltrace2 "$WORK/t" | awk '
    function ns(l,  t, h, f) { match(l, /^\[[0-9:.]+\]/); t = substr(l, 2, RLENGTH - 2); split(t, h, ":");
                               split(h[3], f, "."); return ((h[1] * 60 + h[2]) * 60 + f[1]) * 1000000000 + f[2] }
    /rgc:GCSuspendEEBegin_V1/ { s = ns($0) }
    /rgc:GCStart_V2/ { match($0, /Count = [0-9]+/); c = substr($0, RSTART + 8, RLENGTH - 8); n++ }
    /rgc:GCRestartEEEnd_V1/ { d = ns($0) - s; if (d > max) { max = d; maxc = c } }
    END { printf "%d GCs in 1 process, max pause %.3f ms [(]pid [0-9]+ GC #%d[)]\n", n, max / 1e6, maxc }')
  expect_line "$WORK/out.txt" "^gcscope record: $want\$"
  ;;
lost_events)
  # Buffers far too small for a burst: the scripted emitter writes 50,000 GCs
  # of 8 events each plus RuntimeInformation (400,001 events) back to back, with
  # no syscall between them (~8 M events/s here, far faster than the consumer
  # daemon can drain 4 KiB sub-buffers on any machine; a workload with GC work
  # between events, as gcsim's, is not: a CI machine once kept up with it).
  # record's line must give the counts babeltrace2 reads from the trace (events
  # it prints; "discarded N events" warnings, summed), which add up to what the
  # emitter wrote, and the rate.
  run_rec -o "$WORK/t" --profile verbose --buffer-size 4096 --num-subbuf 2 -- \
    "$EMIT" --gcs 50000 --interval-ms 0 || fail "exit $?"
  babeltrace2 "$WORK/t" >"$WORK/bt.txt" 2>"$WORK/bt.err" || fail "babeltrace2 failed"
  kept=$(wc -l <"$WORK/bt.txt")
  # babeltrace2 gives each packet's discarded count as the counter's change,
  # modulo 2^64 (a counter seen going back prints as 18446744073709551594):
  # summed modulo 2^64 the changes telescope to the total.
  lost=$(grep -oE 'discarded [0-9]+ event' "$WORK/bt.err" |
         python3 -c 'import sys; print(sum(int(l.split()[1]) for l in sys.stdin) % 2**64)')
  [ "$lost" -gt 0 ] || fail "no events were discarded: the premise failed (buffers too large?)"
  all=$((kept + lost))
  [ "$all" = 400001 ] || fail "babeltrace2 reads $kept events and $lost discarded: $all, the emitter wrote 400001"
  expect_line "$WORK/out.txt" "; the tracer discarded $lost of 400001 events \\([0-9.]+ %\\): --profile verbose made [0-9]+ events/s into buffers of 2 x 4 KiB per CPU; a larger --buffer-size/--num-subbuf, or a lighter --profile, avoids it\$"
  ;;
rgc_none)
  # librgc without long pauses: 20 quick induced GCs (GC 10 a background GC
  # whose final pause is not held up), every trigger at 100 ms.
  run_rec -o "$WORK/t" --stop-on-gc-over 100 --stop-on-suspend-over 100 --stop-on-bgc-final-pause-over 100 \
    --delay-after-trigger 0 -- "$RGCPROG" --gcs 20 --interval-ms 5 --bgc 10:0 || fail "exit $?"
  expect_line "$WORK/out.txt" '^rgc_long_suspend: BGC #10 gen2 final pause held 0 ms'
  expect_line "$WORK/out.txt" '^rgc_long_suspend: done$'
  [ "$(captures "$WORK/t")" = 0 ] || fail "captures were written"
  expect_line "$WORK/out.txt" '^gcscope record: no trigger fired; nothing written$'
  expect_line "$WORK/out.txt" '^gcscope record: 20 GCs in 1 process'
  ;;
relayd_stream)
  # Streamed to our own relayd: nothing local (the default output directory
  # would be in the working directory), the relayd's copy holds the GCs
  # rgc-demo reports (its total, and per generation by GCEnd's Depth).
  start_relayd
  mkdir "$WORK/cwd"
  (cd "$WORK/cwd" && run_rec --relayd "$RELAYD_URL" -- "$RGCDEMO" --seconds 1) || fail "exit $?"
  [ -z "$(ls -A "$WORK/cwd")" ] || fail "written locally: $(ls -A "$WORK/cwd")"
  line=$(grep -E '^rgc-demo: .* [0-9]+ GCs \(gen0 [0-9]+, gen1 [0-9]+, gen2 [0-9]+\)' "$WORK/out.txt") ||
    fail "rgc-demo did not report its GCs"
  read -r n g0 g1 g2 < <(sed -E 's/.* ([0-9]+) GCs \(gen0 ([0-9]+), gen1 ([0-9]+), gen2 ([0-9]+)\).*/\1 \2 \3 \4/' <<<"$line")
  dir=$(relayd_session_dir) || exit 1
  [ -n "$(find "$dir" -name metadata)" ] || fail "no CTF metadata in $dir"
  babeltrace2 "$dir" >"$WORK/bt.txt" 2>"$WORK/bt-err.txt" || fail "babeltrace2 cannot read the relayd's copy: $(head -3 "$WORK/bt-err.txt")"
  ns=$(grep -c 'rgc:GCStart_V2' "$WORK/bt.txt")
  [ "$ns" = "$n" ] || fail "the relayd's copy holds $ns GCStarts, rgc-demo ran $n GCs"
  for g in 0 1 2; do
    want=$(eval echo "\$g$g")
    got=$(grep -cE "rgc:GCEnd_V1.*Depth = $g," "$WORK/bt.txt")
    [ "$got" = "$want" ] || fail "the relayd's copy holds $got gen$g GCEnds, rgc-demo reports $want"
  done
  # Per-process buffers: the trace's environment names the process, events carry vtid.
  [ "$(grep -vcE ':\([0-9]+\) rgc:.*vtid = ' "$WORK/bt.txt")" = 0 ] || fail "events without their process or vtid"
  ;;
relayd_trigger)
  # A trigger capture with --relayd lands on the relayd: librgc's GC 4 has a
  # ~300 ms suspension; with a 1 s delay the capture also holds its end.
  start_relayd
  mkdir "$WORK/cwd"
  (cd "$WORK/cwd" && run_rec --relayd "$RELAYD_URL" --stop-on-suspend-over 50 --delay-after-trigger 1 -- \
     "$RGCPROG" --gcs 6 --long-suspend 4:300) || fail "exit $?"
  [ -z "$(ls -A "$WORK/cwd")" ] || fail "written locally: $(ls -A "$WORK/cwd")"
  line=$(grep -E '^rgc_long_suspend: GC #[0-9]+ gen[0-9] suspended 300 ms$' "$WORK/out.txt") || fail "the program did not report its long GC"
  k=$(sed -E 's/.*GC #([0-9]+) gen([0-9]).*/\1/' <<<"$line"); gen=$(sed -E 's/.*GC #([0-9]+) gen([0-9]).*/\2/' <<<"$line")
  expect_line "$WORK/out.txt" "trigger suspend-over 50 ms: pid [0-9]+ GC #$k gen$gen NonConcurrentGC: [0-9.]+ ms -> capture-1-\* on lttng-relayd at $RELAYD_URL\$"
  [ "$(grep -c 'trigger suspend-over 50 ms:' "$WORK/out.txt")" = 1 ] || fail "expected exactly one trigger"
  dir=$(relayd_session_dir) || exit 1
  mapfile -t caps < <(find "$dir" -mindepth 1 -maxdepth 1 -type d)
  [ "${#caps[@]}" = 1 ] && [[ $(basename "${caps[0]}") == capture-1-* ]] || fail "the relayd holds captures: ${caps[*]}"
  bt=$(babeltrace2 "${caps[0]}")
  for ev in "GCSuspendEEBegin_V1.*Reason = 1, Count = $k," "GCStart_V2.*Count = $k," "GCEnd_V1.*Count = $k,"; do
    grep -qE "rgc:$ev" <<<"$bt" || fail "the relayd's capture lacks rgc:$ev"
  done
  g=$(gap_ms "${caps[0]}" "rgc:GCSuspendEEBegin_V1.*Count = $k," "rgc:GCStart_V2.*Count = $k,")
  [ "$g" -ge 250 ] || fail "GC $k's suspension in the relayd's capture lasts $g ms, expected about 300"
  ;;
relayd_bad)
  # No relayd on the ports (nothing listens: fresh free ports), for a
  # streaming and a flight-recorder session; a malformed URL; -o with
  # --relayd. Each: one line, non-zero exit, the command never runs, and no
  # session is left in the daemon.
  read -r c d _ < <(free_ports) || fail "no free ports"
  port_open "$c" && fail "premise: port $c is in use"
  for trig in "" "--stop-on-suspend-over 50"; do
    # shellcheck disable=SC2086
    check_bad "cannot connect to lttng-relayd at net://127.0.0.1:$c:$d (control port 127.0.0.1:$c: Connection refused)" \
      --relayd "net://127.0.0.1:$c:$d" $trig -- touch "$WORK/ran"
    [ "$rc" = 1 ] || fail "unreachable relayd: exit $rc, expected 1"
  done
  check_bad "invalid relayd URL 'net://127.0.0.1:x'" --relayd "net://127.0.0.1:x" -- touch "$WORK/ran"
  check_bad "invalid relayd URL 'bogus://h'" --relayd "bogus://h" -- touch "$WORK/ran"
  check_bad "-o and --relayd exclude each other" -o "$WORK/x" --relayd "net://127.0.0.1:$c:$d" -- touch "$WORK/ran"
  [ "$rc" = 2 ] || fail "-o with --relayd: exit $rc, expected 2 (usage)"
  [ -e "$WORK/ran" ] && fail "the command ran"
  [ -e "$WORK/x" ] && fail "-o was created"
  # No session left behind (the daemon is shared: look for ours by PID).
  "$GCSCOPE" record --relayd "net://127.0.0.1:$c:$d" -- true >/dev/null 2>&1 & gp=$!
  wait "$gp"
  lttng list 2>/dev/null | grep -q "gcscope-record-$gp " && fail "session gcscope-record-$gp left behind"
  true
  ;;
contexts_same)
  # gcscope record keeps each process in its own buffers and adds only the
  # vtid context (vpid and procname come from the trace's environment). The
  # same deterministic gcsim run recorded that way and the way it was before
  # (per-user buffers, vpid/vtid/procname contexts, here with the lttng CLI)
  # must import to the same figures: process, GCs, allocation ticks, threads.
  sim=("$GCSIM" --scenario alloc-heavy --threads 1 --gc-concurrent 0 --alloc-mb 150 --quiet)
  run_rec -o "$WORK/new" --profile verbose -- "${sim[@]}" || fail "record exit $?"   # rgc:*, as below
  [ -n "$(find "$WORK/new/ust/pid" -name metadata)" ] || fail "no per-process trace under $WORK/new/ust/pid"
  babeltrace2 "$WORK/new" | grep -q 'vpid = \|procname = ' && fail "the vpid or procname context was recorded"
  S=gcscope-ctx-test-$$
  lttng create "$S" --output="$WORK/old" >/dev/null || fail "lttng create"
  trap 'lttng destroy "$S" >/dev/null 2>&1; cleanup' EXIT
  lttng enable-channel -u -s "$S" gcscope >/dev/null &&
    lttng enable-event -u -s "$S" -c gcscope 'rgc:*' >/dev/null &&
    lttng add-context -u -s "$S" -c gcscope -t vpid -t vtid -t procname >/dev/null || fail "lttng session setup"
  mkfifo "$WORK/gate"
  ( read -r _ <"$WORK/gate" && exec "${sim[@]}" ) & op=$!; BG_PIDS+=("$op")
  lttng track -u -s "$S" --vpid="$op" >/dev/null && lttng start "$S" >/dev/null || fail "lttng start"
  echo go >"$WORK/gate"
  wait "$op" || fail "gcsim exit $?"
  lttng stop "$S" >/dev/null; lttng destroy "$S" >/dev/null
  np=$(find "$WORK/new/ust/pid" -name metadata | sed -E 's|.*/gcsim-([0-9]+)-[0-9]+-[0-9]+/metadata|\1|')
  "$GCSCOPE" import -d "$WORK/new.db" "$WORK/new" >/dev/null 2>&1 || fail "import of the new trace"
  "$GCSCOPE" import -d "$WORK/old.db" "$WORK/old" >/dev/null 2>&1 || fail "import of the old-style trace"
  python3 - "$WORK/new.db" "$WORK/old.db" "$np" "$op" "$GCSCOPE" <<'PY' || fail "the imports differ"
import json, subprocess, sys
# Through gcscope sql: the alloc_ticks and gc_lifecycle views need its gcs_unpack.
new, old = sys.argv[1:3]
pids = {new: int(sys.argv[3]), old: int(sys.argv[4])}
def q(db, sql):
    out = subprocess.run([sys.argv[5], "sql", db, sql, "--json"], capture_output=True, text=True, check=True).stdout
    return [tuple(r.values()) for r in json.loads(out)]
ok = True
def same(what, a, b):
    global ok
    if a != b:
        ok = False
        print(f"{what}: new {a[:5]} ... old {b[:5]} ...")
for db in (new, old):
    procs = q(db, "SELECT pid, name FROM processes")
    if procs != [(pids[db], "gcsim")]:
        ok = False
        print(f"processes {procs}, expected [({pids[db]}, 'gcsim')]")
same("process figures", q(new, "SELECT command_line, heap_count, event_count, gc_event_count FROM processes"),
     q(old, "SELECT command_line, heap_count, event_count, gc_event_count FROM processes"))
cols = ("gc_index, gen, type, reason, complete, gen0_alloc_mb, total_alloc_mb, alloc_tick_small_mb, before_mb, "
        "after_mb, promoted_mb, gen0_mb, gen1_mb, gen2_mb, gen0_survival_pct, global_mechanisms, heap_count, gc_handles")
same("gcs", q(new, f"SELECT {cols} FROM gcs ORDER BY gc_index"), q(old, f"SELECT {cols} FROM gcs ORDER BY gc_index"))
t = "SELECT count(*), sum(amount), count(DISTINCT tid), min(tid) > 0 FROM alloc_ticks"
same("alloc_ticks", q(new, t), q(old, t))
t = "SELECT name, count(*), count(DISTINCT tid), min(tid) > 0 FROM gc_lifecycle GROUP BY name ORDER BY name"
same("gc_lifecycle", q(new, t), q(old, t))
for db in (new, old):
    if q(db, "SELECT count(*) FROM gcs")[0][0] < 10: ok = False; print("fewer than 10 GCs")
sys.exit(0 if ok else 1)
PY
  ;;
*) fail "unknown case" ;;
esac
echo "ok $CASE"
