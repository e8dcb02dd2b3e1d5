#!/bin/bash
# gcsim_e2e.sh MODE GCSIM GCSCOPE CHECKER — record a gcsim run with the lttng
# CLI (user-space rgc:* events, vpid/vtid context), import it with gcscope and
# let gcsim_e2e_check.py compare gcscope's figures with ones it computes from
# babeltrace2's text output of the same trace (only gcsim's vpid counts).
#   impact: request mode -> `gcscope impact --format json`
#   views:  server GC with pinned handles and the verbose events (SetGCHandle,
#           DestroyGCHandle, PinObjectAtGCTime, GCMarkWithType per heap)
#           -> `gcscope handles` and `gcscope heaps` (csv)
# Recording: tests/support/rgc_trace.sh (label lttng: the CTest fixture
# provides the session daemon). Exits 77 (skipped) only without lttng or
# babeltrace2, or when this librgc cannot run server GC.
set -u
MODE=$1 GCSIM=$2 GCSCOPE=$3 CHECKER=$4
# shellcheck source=../support/rgc_trace.sh
. "$(dirname "$0")/../support/rgc_trace.sh"
WORK=$(mktemp -d "/tmp/gcscope-e2e-$MODE.XXXXXX")
cleanup() {
  rgc_trace_close
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

rgc_trace_require_tools
rgc_trace_open "gcscope-e2e-$MODE-$$" "$WORK" "$WORK/err.txt" 8M "$EXCLUDE" || fail "$RGC_TRACE_ERROR"
rgc_trace_run "$WORK/out.txt" "$WORK/err.txt" "$GCSIM" "${ARGS[@]}" || fail "$RGC_TRACE_ERROR"
PID=$RGC_TRACE_PID
[ "$RGC_TRACE_RC" = 77 ] && { echo "SKIP: gcsim cannot run ${ARGS[*]} here"; exit 77; }
[ "$RGC_TRACE_RC" = 0 ] || fail "gcsim exited $RGC_TRACE_RC"
rgc_trace_text "$WORK/bt.txt" "$WORK/bterr.txt" || fail "$RGC_TRACE_ERROR"

"$GCSCOPE" import "$WORK/trace" -d "$WORK/e2e.db" >"$WORK/import.txt" 2>&1 || fail "gcscope import: $(tail -1 "$WORK/import.txt")"
case "$MODE" in
  impact)
    "$GCSCOPE" impact "$WORK/e2e.db" --pid "$PID" --slowest 3 --format json >"$WORK/impact.json" 2>"$WORK/err.txt" \
      || fail "gcscope impact"
    OUTS=("$WORK/impact.json") ;;
  views)
    "$GCSCOPE" handles "$WORK/e2e.db" --pid "$PID" --top 5 --format csv >"$WORK/handles.csv" 2>"$WORK/err.txt" \
      || fail "gcscope handles"
    "$GCSCOPE" heaps "$WORK/e2e.db" --pid "$PID" --all --format csv >"$WORK/heaps.csv" 2>"$WORK/err.txt" || fail "gcscope heaps"
    OUTS=("$WORK/handles.csv" "$WORK/heaps.csv") ;;
esac
python3 "$CHECKER" "$MODE" "$WORK/bt.txt" "$PID" "$WORK/out.txt" "${OUTS[@]}" >"$WORK/check.txt" 2>&1 || fail "figures differ"
cat "$WORK/check.txt"
