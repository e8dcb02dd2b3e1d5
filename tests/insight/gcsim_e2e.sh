#!/bin/bash
# gcsim_e2e.sh MODE GCSIM GCSCOPE CHECKER — record a gcsim run with the lttng
# CLI (user-space rgc:* events, vpid/vtid context), import it with gcscope and
# let gcsim_e2e_check.py compare gcscope's figures with ones it computes from
# babeltrace2's text output of the same trace (only gcsim's vpid counts).
#   impact: request mode (issue 6) -> `gcscope impact --format json`
#   views:  server GC with pinned handles and the verbose events (SetGCHandle,
#           DestroyGCHandle, PinObjectAtGCTime, GCMarkWithType per heap)
#           -> `gcscope handles` and `gcscope heaps` (csv)
# Exits 77 (skipped) without a session daemon, or when this librgc cannot run
# server GC. Only processes started here are stopped, by PID.
set -u
MODE=$1 GCSIM=$2 GCSCOPE=$3 CHECKER=$4
WORK=$(mktemp -d /tmp/gcscope-e2e-$MODE.XXXXXX)
SESSION="gcscope-e2e-$MODE-$$"
cleanup() {
  lttng destroy "$SESSION" >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL ($MODE): $*" >&2; for f in err out check; do [ -f "$WORK/$f.txt" ] && sed "s/^/  $f: /" "$WORK/$f.txt" >&2; done; exit 1; }

case "$MODE" in
  impact)
    EXCLUDE='rgc:GCAllocationTick_V4,rgc:SetGCHandle,rgc:DestroyGCHandle,rgc:GCCreateSegment_V1,rgc:GCFreeSegment_V1,rgc:PinObjectAtGCTime,rgc:GCMarkWithType'
    ARGS=(--scenario alloc-heavy --requests --request-kb 500 --seconds 1 --threads 2) ;;
  views)
    EXCLUDE='rgc:GCAllocationTick_V4'
    ARGS=(--scenario server --pin-fraction 0.5 --survival 0.05 --lifetime 2000 --seconds 0.5) ;;
  *) echo "usage: gcsim_e2e.sh impact|views GCSIM GCSCOPE CHECKER" >&2; exit 2 ;;
esac

command -v lttng >/dev/null && command -v babeltrace2 >/dev/null || { echo "SKIP: lttng or babeltrace2 missing"; exit 77; }
lttng create "$SESSION" --output="$WORK/trace" >"$WORK/err.txt" 2>&1 || { echo "SKIP: no LTTng session daemon ($(head -1 "$WORK/err.txt"))"; exit 77; }
lttng enable-channel -u --session="$SESSION" --subbuf-size=8M --num-subbuf=8 e2e >>"$WORK/err.txt" 2>&1 || fail "enable-channel"
lttng enable-event -u --session="$SESSION" -c e2e 'rgc:*' --exclude="$EXCLUDE" >>"$WORK/err.txt" 2>&1 || fail "enable-event"
lttng add-context -u --session="$SESSION" -c e2e -t vpid -t vtid >>"$WORK/err.txt" 2>&1 || fail "add-context"
lttng start "$SESSION" >>"$WORK/err.txt" 2>&1 || fail "start"
"$GCSIM" "${ARGS[@]}" >"$WORK/out.txt" 2>"$WORK/err.txt" &
PID=$!
wait $PID
rc=$?
lttng stop "$SESSION" >/dev/null 2>&1
[ $rc = 77 ] && { echo "SKIP: gcsim cannot run ${ARGS[*]} here"; exit 77; }
[ $rc = 0 ] || fail "gcsim exited $rc"
babeltrace2 --clock-seconds "$WORK/trace" >"$WORK/bt.txt" 2>"$WORK/bterr.txt" || fail "babeltrace2 failed: $(head -1 "$WORK/bterr.txt")"
# figures from a lossy trace prove nothing
grep -qi 'discarded' "$WORK/bterr.txt" && fail "the trace lost events: $(grep -i -m1 discarded "$WORK/bterr.txt")"

"$GCSCOPE" import "$WORK/trace" -d "$WORK/e2e.db" >"$WORK/import.txt" 2>&1 || fail "gcscope import: $(tail -1 "$WORK/import.txt")"
case "$MODE" in
  impact)
    "$GCSCOPE" impact "$WORK/e2e.db" --pid "$PID" --slowest 3 --format json >"$WORK/impact.json" 2>"$WORK/err.txt" \
      || fail "gcscope impact"
    OUTS=("$WORK/impact.json") ;;
  views)
    "$GCSCOPE" handles "$WORK/e2e.db" --pid "$PID" --top 5 --format csv >"$WORK/handles.csv" 2>"$WORK/err.txt" \
      || fail "gcscope handles"
    "$GCSCOPE" heaps "$WORK/e2e.db" --pid "$PID" --format csv >"$WORK/heaps.csv" 2>"$WORK/err.txt" || fail "gcscope heaps"
    OUTS=("$WORK/handles.csv" "$WORK/heaps.csv") ;;
esac
python3 "$CHECKER" "$MODE" "$WORK/bt.txt" "$PID" "$WORK/out.txt" "${OUTS[@]}" >"$WORK/check.txt" 2>&1 || fail "figures differ"
cat "$WORK/check.txt"
