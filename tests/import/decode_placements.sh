#!/bin/sh
# decode_placements.sh GCSCOPE TRACE TMP — GCSCOPE_IMPORT_DECODE=thread and
# =inline (the decoding in a thread of the importing process, or in the
# writing thread; docs/import.md, "Round three") write the database the
# decoding process writes: the events, ticks, processes and every GC table
# of a real CoreCLR LTTng trace are the same rows, and so is the imported
# event count.
set -u
g=$1; trace=$2; tmp=$3
rm -rf "$tmp"; mkdir -p "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
dump() {  # DB: every row a report reads
  for q in "SELECT event_count, gc_event_count, discarded, start_ns, end_ns FROM traces" \
           "SELECT pid, name, event_count, gc_event_count, first_ns, last_ns FROM processes ORDER BY pid" \
           "SELECT ts_ns, pid, tid, cpu, name, version, fields FROM events" \
           "SELECT ts_ns, pid, tid, kind, amount, type_id, fields FROM alloc_ticks" \
           "SELECT * FROM gcs" "SELECT * FROM gc_gens" "SELECT * FROM gc_heaps" "SELECT * FROM gc_heap_gens"; do
    "$g" sql "$1" "$q" --csv || return 1
  done
}
for m in process thread inline; do
  GCSCOPE_IMPORT_DECODE=$m "$g" import -q -d "$tmp/$m.db" "$trace" >"$tmp/$m.out" 2>&1 || { cat "$tmp/$m.out"; fail "import ($m)"; }
  dump "$tmp/$m.db" >"$tmp/$m.txt" || fail "reading the $m database"
done
n=$(wc -l <"$tmp/process.txt")
[ "$n" -gt 500 ] || fail "only $n rows read from the database"
for m in thread inline; do
  cmp -s "$tmp/process.txt" "$tmp/$m.txt" || { diff "$tmp/process.txt" "$tmp/$m.txt" | head -5; fail "$m: rows differ"; }
done
echo "ok: $n rows the same with the decoding in a process, a thread and inline"
