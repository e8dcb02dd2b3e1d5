#!/bin/sh
# readers.sh GCSCOPE TRACES TMP — reports never fail because an import is
# writing: `gcscope stats` and `gcscope sql` run in a loop on a database while
# `gcscope import` adds a trace to it (the readers set SQLite's busy timeout
# before reading the schema, and wait for the writer's commit). Every read
# must succeed and report the trace already committed.
G=$1 TRACES=$2 TMP=$3
set -u
rm -rf "$TMP"; mkdir -p "$TMP"
DB=$TMP/r.db
"$G" import -q -d "$DB" "$TRACES/nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace" || { echo "FAIL: first import"; exit 1; }
reads=0 fails=0
for round in 1 2 3; do
  rm -f "$TMP/second.db"
  "$G" import -q -d "$DB" "$TRACES/coreclr/netcore31-perfcollect-default" & ip=$!
  while kill -0 $ip 2>/dev/null; do
    if ! "$G" stats "$DB" --trace 1 --no-pager >"$TMP/out.txt" 2>"$TMP/err.txt"; then
      fails=$((fails + 1)); echo "FAIL: stats during the import: $(head -1 "$TMP/err.txt")"
    elif ! grep -q "GC Stats for Process 10064" "$TMP/out.txt"; then
      fails=$((fails + 1)); echo "FAIL: stats during the import lost the committed trace"
    fi
    "$G" sql "$DB" "SELECT count(*) FROM gcs WHERE trace_id = 1" --csv >"$TMP/sql.txt" 2>"$TMP/err.txt" ||
      { fails=$((fails + 1)); echo "FAIL: sql during the import: $(head -1 "$TMP/err.txt")"; }
    reads=$((reads + 1))
  done
  wait $ip || { echo "FAIL: the import failed"; exit 1; }
  # the next round imports the same trace again: remove it so it is written again
  "$G" sql "$DB" --write "DELETE FROM traces WHERE id > 1" >/dev/null 2>&1 || true
done
echo "$reads reads during 3 imports, $fails failed"
[ "$fails" -eq 0 ] || exit 1
