#!/bin/bash
# trace_test.sh CHECK GCSIM CHECKER [gcsim args...] — record one gcsim run with
# the lttng CLI (user-space rgc:* events, tests/support/rgc_trace.sh) and judge
# the scenario signature from babeltrace2's text output with trace_check.py
# (label lttng: the CTest fixture provides the session daemon). Exits 77
# (skipped) only when lttng or babeltrace2 is not installed.
set -u
CHECK=$1 GCSIM=$2 CHECKER=$3
shift 3
# shellcheck source=../support/rgc_trace.sh
. "$(dirname "$0")/../support/rgc_trace.sh"
EXTRA=()
if [ "$CHECK" = slow-suspension ]; then EXTRA=(100); fi   # longest suspension must exceed 100 ms
WORK=$(mktemp -d /tmp/gcsim-trace-test.XXXXXX)
cleanup() {
  rgc_trace_close
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL ($CHECK): $*" >&2; for f in out err check; do [ -f "$WORK/$f.txt" ] && sed "s/^/  $f: /" "$WORK/$f.txt" >&2; done; exit 1; }

rgc_trace_require_tools
# the high-volume events are left out so that no GC event is discarded
rgc_trace_open "gcsim-test-$$" "$WORK" "$WORK/err.txt" 4M \
  'rgc:GCAllocationTick_V4,rgc:SetGCHandle,rgc:DestroyGCHandle,rgc:GCCreateSegment_V1,rgc:GCFreeSegment_V1,rgc:PinObjectAtGCTime,rgc:GCMarkWithType' \
  || fail "$RGC_TRACE_ERROR"
rgc_trace_run "$WORK/out.txt" "$WORK/err.txt" "$GCSIM" "$@" || fail "$RGC_TRACE_ERROR"
[ "$RGC_TRACE_RC" = 0 ] || fail "gcsim exited $RGC_TRACE_RC"
rgc_trace_text "$WORK/bt.txt" "$WORK/bterr.txt" || fail "$RGC_TRACE_ERROR"
python3 "$CHECKER" "$CHECK" "$WORK/out.txt" "$WORK/bt.txt" "$RGC_TRACE_PID" "${EXTRA[@]}" >"$WORK/check.txt" 2>&1 \
  || fail "trace signature"
cat "$WORK/check.txt"
