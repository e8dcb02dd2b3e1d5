#!/bin/bash
# record_test.sh CASE GCSCOPE SCRIPTED_GC RGC_LONG_SUSPEND — end-to-end tests
# of `gcscope record` (label lttng). Expected values come from the scripted
# emitter's arguments, from what the librgc program reports about its own GCs,
# and from babeltrace2's text output of the written traces, never from
# gcscope's own figures. Every process started here is stopped by its PID.
set -u
CASE=$1 GCSCOPE=$2 EMIT=$3 RGCPROG=${4:-}
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
captures() { find "$1" -maxdepth 1 -name 'capture-*' -type d | wc -l; }

run_rec() { "$GCSCOPE" record "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"; }

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
  run_rec -o "$WORK/t" --stop-on-gc-over 50 --delay-after-trigger 0 --collect-multiple 3 -- \
    "$EMIT" --gcs 12 --interval-ms 30 --long-gc 3:300 --long-gc 6:300 --long-gc 9:300 --long-gc 11:300 || fail "exit $?"
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
  n=$(babeltrace2 "$WORK/t" | grep -c "rgc:GCStart_V2.*vpid = $tp,")
  [ "$n" -ge 5 ] || fail "only $n GCs of the target recorded"
  babeltrace2 "$WORK/t" | grep -q "vpid = $dp," && fail "events of the other process were recorded"
  kill -0 "$tp" || fail "the target process was stopped"
  expect_line "$WORK/out.txt" '^gcscope record: [0-9]+ GCs in 1 process'
  ;;
bad_input)
  check_bad() {   # expected-phrase args...
    local phrase=$1; shift
    "$GCSCOPE" record "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"; rc=$?
    [ "$rc" != 0 ] || fail "'$*' exited 0"
    [ "$(wc -l <"$WORK/err.txt")" = 1 ] || fail "'$*' printed $(wc -l <"$WORK/err.txt") lines on stderr"
    grep -q "^gcscope record: .*$phrase" "$WORK/err.txt" || fail "'$*': stderr lacks '$phrase'"
  }
  check_bad "unknown profile 'heavy'" --profile heavy -o "$WORK/x" -- true
  check_bad "negative" --stop-on-gc-over -5 -o "$WORK/x" -- true
  check_bad "no process with PID 2147483646" --pid 2147483646 -o "$WORK/x"
  check_bad "cannot write to output directory" -o /dev/null/trace -- true
  check_bad "cannot run the command: No such file or directory" -o "$WORK/x" -- /nonexistent/prog
  [ -d "$WORK/x" ] && [ -z "$(lttng list 2>/dev/null | grep gcscope-record)" ] || true
  ;;
no_daemon)
  # A user without a session daemon of their own: gcscope starts one for the
  # recording and stops it afterwards.
  H="$WORK/home"; mkdir -p "$H"; chown 65534:65534 "$H" "$WORK"
  asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH="$PATH" HOME="$H" LTTNG_HOME="$H" "$@"; }
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
  run_rec -o "$WORK/t" --stop-on-suspend-over 50 --delay-after-trigger 0 --collect-multiple 3 -- \
    "$RGCPROG" --gcs 9 --interval-ms 30 --long-suspend 2:200 --long-suspend 4:200 --long-suspend 6:200 \
    --long-suspend 8:200 || fail "exit $?"
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
rgc_none)
  # librgc without long pauses: 20 quick induced GCs, every trigger at 100 ms.
  run_rec -o "$WORK/t" --stop-on-gc-over 100 --stop-on-suspend-over 100 --stop-on-bgc-final-pause-over 100 \
    --delay-after-trigger 0 -- "$RGCPROG" --gcs 20 --interval-ms 5 || fail "exit $?"
  expect_line "$WORK/out.txt" '^rgc_long_suspend: done$'
  [ "$(captures "$WORK/t")" = 0 ] || fail "captures were written"
  expect_line "$WORK/out.txt" '^gcscope record: no trigger fired; nothing written$'
  expect_line "$WORK/out.txt" '^gcscope record: 20 GCs in 1 process'
  ;;
*) fail "unknown case" ;;
esac
echo "ok $CASE"
