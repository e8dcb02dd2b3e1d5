#!/bin/sh
# layout_reports.sh GCSCOPE DB [STRIP] — one line "NAME md5" per report on DB:
# every report a user reads from a database (stats in every format, events,
# allocs, handles, heaps, advise, triggers, impact, export, diff against
# itself) and the raw rows through `gcscope sql` (events and alloc_ticks
# without their ids). STRIP, if given, and DB are replaced in the outputs (a
# trace directory or the database named in them). The md5 lines of two gcscope builds on the same
# trace must match: the database layout changes nothing a report says.
set -u
g=$1; db=$2; strip=${3:-@@none@@}
sum() {  # NAME CMD...: md5 of the command's stdout and exit status
  name=$1; shift
  out=$("$@" 2>/dev/null; echo "exit $?")
  printf '%s %s\n' "$name" "$(printf '%s' "$out" | sed -e "s|$strip|TRACES|g" -e "s|$db|DB|g" | md5sum | cut -c1-32)"
}
for f in text json csv html; do sum "stats-$f" "$g" stats "$db" --format "$f" --no-pager; done
sum stats-all "$g" stats "$db" --gcs all --wide --no-pager
sum events "$g" events "$db"
sum events-marks "$g" events "$db" --filter MarkWithType
sum allocs "$g" allocs "$db" --top 50
sum allocs-csv "$g" allocs "$db" --format csv
sum handles "$g" handles "$db"
sum heaps "$g" heaps "$db"
sum heaps-csv "$g" heaps "$db" --all --format csv
sum advise "$g" advise "$db" --format json
sum triggers "$g" triggers "$db" --gc-over 1 --format json
sum impact "$g" impact "$db" --begin GCSuspendEEBegin --end GCRestartEEEnd --format json
sum export "$g" export "$db" --format chrome-json
sum diff "$g" diff "$db" "$db"
sum sql-events "$g" sql "$db" "SELECT trace_id, ts_ns, pid, tid, cpu, name, version, payload FROM events"
sum sql-ticks "$g" sql "$db" "SELECT trace_id, ts_ns, pid, tid, kind, amount, type_id, heap, object_size FROM alloc_ticks"
sum sql-counts "$g" sql "$db" "SELECT * FROM event_counts ORDER BY 1, 2, 3"
sum sql-bytype "$g" sql "$db" "SELECT * FROM alloc_by_type ORDER BY 1, 2, 3"
sum sql-named "$g" sql "$db" "SELECT * FROM alloc_ticks_named"
