#!/bin/bash
# size_ratio.sh GCSCOPE CTFGEN TMP — the database stays small: a librgc trace
# with the GC event mix of a real .NET trace (nettrace-bench-ctfgen, 3,000
# rounds of 74 GCAllocationTick, 11 suspensions and one GC with its history
# events: 396,000 events whose fields do not depend on timing) imported,
# its database must be at most 0.35x the CTF trace (issue 13; the text
# payload layout gave about 0.9x). Label lttng (the CTest fixture's daemon).
set -u
G=$1 GEN=$2 TMP=$3
# shellcheck source=../support/rgc_trace.sh
. "$(dirname "$0")/../support/rgc_trace.sh"
rm -rf "$TMP"; mkdir -p "$TMP"
trap rgc_trace_close EXIT
fail() { echo "FAIL: $*"; exit 1; }
rgc_trace_require_tools
rgc_trace_open "gcs-size-$$" "$TMP" "$TMP/lttng.log" 4M || fail "$RGC_TRACE_ERROR"
rgc_trace_run "$TMP/out.txt" "$TMP/err.txt" "$GEN" 3000 || fail "$RGC_TRACE_ERROR"
[ "$RGC_TRACE_RC" = 0 ] || fail "the generator exited $RGC_TRACE_RC"
"$G" import -q -d "$TMP/t.db" "$TMP/trace" >"$TMP/imp.txt" 2>&1 || { cat "$TMP/imp.txt"; fail "import"; }
events=$("$G" sql "$TMP/t.db" "SELECT event_count - 0 FROM traces" --csv | tail -1)
trace=$(du -sb "$TMP/trace" | cut -f1)
db=$(stat -c %s "$TMP/t.db")
ratio=$(awk -v d="$db" -v t="$trace" 'BEGIN { printf "%.3f", d / t }')
echo "$events events: database $db bytes, trace $trace bytes: ${ratio}x"
[ "$events" -ge 300000 ] || fail "only $events events recorded"
awk -v r="$ratio" 'BEGIN { exit !(r <= 0.35) }' || fail "the database is ${ratio}x the trace, more than 0.35x"
