#!/bin/bash
# trace_test.sh CHECK GCSIM CHECKER [gcsim args...] — record one gcsim run with
# the lttng CLI (user-space rgc:* events) and judge the scenario signature
# from babeltrace2's text output with trace_check.py (label lttng). Exits 77
# (skipped) when no session daemon is reachable. Only processes started here
# are stopped, by PID.
set -u
CHECK=$1 GCSIM=$2 CHECKER=$3
shift 3
EXTRA=()
if [ "$CHECK" = slow-suspension ]; then EXTRA=(100); fi   # longest suspension must exceed 100 ms
WORK=$(mktemp -d /tmp/gcsim-trace-test.XXXXXX)
SESSION="gcsim-test-$$"
cleanup() {
  lttng destroy "$SESSION" >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL ($CHECK): $*" >&2; for f in out err check; do [ -f "$WORK/$f.txt" ] && sed "s/^/  $f: /" "$WORK/$f.txt" >&2; done; exit 1; }

command -v lttng >/dev/null && command -v babeltrace2 >/dev/null || { echo "SKIP: lttng or babeltrace2 missing"; exit 77; }
lttng create "$SESSION" --output="$WORK/trace" >"$WORK/err.txt" 2>&1 || { echo "SKIP: no LTTng session daemon ($(head -1 "$WORK/err.txt"))"; exit 77; }
lttng enable-channel -u --session="$SESSION" --subbuf-size=4M --num-subbuf=8 gcsim >>"$WORK/err.txt" 2>&1 || fail "enable-channel"
# the high-volume events are left out so that no GC event is discarded
lttng enable-event -u --session="$SESSION" -c gcsim 'rgc:*' \
  --exclude='rgc:GCAllocationTick_V4,rgc:SetGCHandle,rgc:DestroyGCHandle,rgc:GCCreateSegment_V1,rgc:GCFreeSegment_V1,rgc:PinObjectAtGCTime,rgc:GCMarkWithType' >>"$WORK/err.txt" 2>&1 || fail "enable-event"
lttng add-context -u --session="$SESSION" -c gcsim -t vpid >>"$WORK/err.txt" 2>&1 || fail "add-context"
lttng start "$SESSION" >>"$WORK/err.txt" 2>&1 || fail "start"
"$GCSIM" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" &
PID=$!
wait $PID
rc=$?
lttng stop "$SESSION" >/dev/null 2>&1
[ $rc = 0 ] || fail "gcsim exited $rc"
babeltrace2 --clock-seconds "$WORK/trace" >"$WORK/bt.txt" 2>"$WORK/bterr.txt" || fail "babeltrace2 failed: $(head -1 "$WORK/bterr.txt")"
# a lossy trace cannot prove a signature
grep -qi 'discarded' "$WORK/bterr.txt" "$WORK/bt.txt" && fail "the trace lost events: $(grep -i -m1 discarded "$WORK/bterr.txt" "$WORK/bt.txt")"
python3 "$CHECKER" "$CHECK" "$WORK/out.txt" "$WORK/bt.txt" "$PID" "${EXTRA[@]}" >"$WORK/check.txt" 2>&1 || fail "trace signature"
cat "$WORK/check.txt"
