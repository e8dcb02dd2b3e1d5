#!/bin/sh
# record_progress.sh GCSCOPE GCSIM TMP — record --import on a terminal
# (script(1) gives it a pseudo-terminal) shows the import's progress line;
# with -q it does not. Label lttng.
set -u
G=$1 SIM=$2 TMP=$3
rm -rf "$TMP"; mkdir -p "$TMP"
fail() { echo "FAIL: $*"; exit 1; }
GCSCOPE_PROGRESS_MS=1 script -qec "$G record -o $TMP/a --import -d $TMP/a.db -- $SIM --scenario alloc-heavy --seconds 0.5" \
  "$TMP/a.log" >/dev/null 2>&1 || fail "record (terminal) failed: $(tail -c 400 "$TMP/a.log")"
grep -aq ' events (.*/s), .* GCs' "$TMP/a.log" || fail "no progress line on a terminal"
GCSCOPE_PROGRESS_MS=1 script -qec "$G record -q -o $TMP/b --import -d $TMP/b.db -- $SIM --scenario alloc-heavy --seconds 0.5" \
  "$TMP/b.log" >/dev/null 2>&1 || fail "record -q failed: $(tail -c 400 "$TMP/b.log")"
grep -aq ' events (.*/s), .* GCs' "$TMP/b.log" && fail "-q printed a progress line"
grep -aq ': trace 1\b' "$TMP/b.log" || fail "-q: no import summary"
echo ok
