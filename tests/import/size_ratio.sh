#!/bin/bash
# size_ratio.sh GCSCOPE CTFGEN GCSIM TMP — the database stays small: a librgc
# trace with the GC event mix of a real .NET trace (nettrace-bench-ctfgen,
# 3,000 rounds of 74 GCAllocationTick, 11 suspensions and one GC with its
# history events: 396,000 events whose fields do not depend on timing)
# imported, its database must be at most 0.35x the CTF trace (issue 13; the
# text payload layout gave about 0.9x). Then the verbose profile (issue 27):
# `gcscope record --profile verbose -- gcsim --scenario bgc --alloc-mb 8000`
# (about 120,000 events of 25 kinds, 8 MB; the allocation volume bounds it,
# not the time), also at most 0.35x (0.386x before delta-coded ticks and 8 KB
# pages). Then the gc and handles profiles (`--profile gc|handles -- gcsim
# --scenario alloc-heavy --alloc-mb 45000`: about 8,000 GCs of 20 events, 1.1 KB
# of CTF each; the allocation volume bounds it, not the time),
# whose databases were 1.03-1.10x the trace before the compact GC tables and
# are 0.71x with them on 13,000 GCs (15 MB; docs/import.md): at most 0.80x
# (the issue's goal, 0.35x, is not met). A smaller trace weighs the fixed
# cost more (a page per table and index, 0.1 MB of view and trigger SQL):
# 0.77x on 3,800 GCs (4.4 MB), so at least 6,000 GCs. The figure also
# depends on load: pauses, durations and timestamp gaps are longer on a busy
# machine and take wider integers in the rows and the event blocks. On 8,540
# GCs: 0.724x quiet, 0.731x with both cores busy, 0.754x on a CI run. 0.80x
# still fails the layouts this guards against (1.03x and more).
# Label lttng (the CTest fixture's daemon).
set -u
G=$1 GEN=$2 GCSIM=$3 TMP=$4
# shellcheck source=../support/rgc_trace.sh
. "$(dirname "$0")/../support/rgc_trace.sh"
rm -rf "$TMP"; mkdir -p "$TMP"
trap rgc_trace_close EXIT
fail() { echo "FAIL: $*"; exit 1; }
# measure TRACE DB: import TRACE into DB (fail naming it otherwise) and set
# trace, db (their sizes in bytes) and ratio (db / trace, 3 decimals).
measure() {
  "$G" import -q -d "$2" "$1" >"$TMP/imp.txt" 2>&1 || { cat "$TMP/imp.txt"; fail "import of $1"; }
  trace=$(du -sb "$1" | cut -f1)
  db=$(stat -c %s "$2")
  ratio=$(awk -v d="$db" -v t="$trace" 'BEGIN { printf "%.3f", d / t }')
}
# at_most LIMIT: ratio <= LIMIT
at_most() { awk -v r="$ratio" -v l="$1" 'BEGIN { exit !(r <= l) }'; }
rgc_trace_require_tools
rgc_trace_open "gcs-size-$$" "$TMP" "$TMP/lttng.log" 4M || fail "$RGC_TRACE_ERROR"
rgc_trace_run "$TMP/out.txt" "$TMP/err.txt" "$GEN" 3000 || fail "$RGC_TRACE_ERROR"
[ "$RGC_TRACE_RC" = 0 ] || fail "the generator exited $RGC_TRACE_RC"
measure "$TMP/trace" "$TMP/t.db"
events=$("$G" sql "$TMP/t.db" "SELECT event_count - 0 FROM traces" --csv | tail -1)
echo "$events events: database $db bytes, trace $trace bytes: ${ratio}x"
[ "$events" -ge 300000 ] || fail "only $events events recorded"
at_most 0.35 || fail "the database is ${ratio}x the trace, more than 0.35x"

# The verbose profile, as `gcscope record` writes it.
"$G" record -q -o "$TMP/verbose" --profile verbose -- "$GCSIM" --scenario bgc --alloc-mb 8000 --seconds 30 \
  >"$TMP/rec.txt" 2>&1 || { cat "$TMP/rec.txt"; fail "record --profile verbose"; }
measure "$TMP/verbose" "$TMP/v.db"
events=$("$G" sql "$TMP/v.db" "SELECT event_count - 0 FROM traces" --csv | tail -1)
kinds=$("$G" sql "$TMP/v.db" "SELECT count(DISTINCT name) FROM events" --csv | tail -1)
echo "verbose: $events events ($kinds kinds besides the ticks): database $db bytes, trace $trace bytes: ${ratio}x"
[ "$events" -ge 100000 ] || fail "only $events events recorded with --profile verbose"
[ "$kinds" -ge 15 ] || fail "only $kinds event kinds recorded with --profile verbose"
at_most 0.35 || fail "the verbose database is ${ratio}x the trace, more than 0.35x"

# The gc and handles profiles: the GC tables are most of their database.
for p in gc handles; do
  "$G" record -q -o "$TMP/$p" --profile "$p" -- "$GCSIM" --scenario alloc-heavy --alloc-mb 45000 --seconds 30 \
    >"$TMP/rec.txt" 2>&1 || { cat "$TMP/rec.txt"; fail "record --profile $p"; }
  measure "$TMP/$p" "$TMP/$p.db"
  gcs=$("$G" sql "$TMP/$p.db" "SELECT count(*) FROM gcs" --csv | tail -1)
  echo "$p: $gcs GCs: database $db bytes, trace $trace bytes: ${ratio}x"
  [ "$gcs" -ge 6000 ] || fail "only $gcs GCs recorded with --profile $p"
  at_most 0.80 || fail "the $p database is ${ratio}x the trace, more than 0.80x"
done
