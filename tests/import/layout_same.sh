#!/bin/sh
# layout_same.sh GCSCOPE TRACES_DIR TMP GOLDEN — the database layout changes
# nothing a report says: every report on each real trace of the corpus
# (layout_reports.sh: stats in every format, events, allocs, handles, heaps,
# advise, triggers, impact, export, diff, the events and alloc_ticks rows
# through `gcscope sql`) has the md5 recorded in GOLDEN, which was made by
# the gcscope that stored one row per event with its payload as text
# (before event_blocks); netcore31-perfcollect-default's stats-csv since gcs
# ids follow GCStart order over a trace's processes (its id column: two
# processes' GCs, every other value the same); the stats and export lines
# since runtime_pause_msec ends a blocking GC's pause at its GCEnd (its
# value and total_runtime_pause_msec, every other value the same). A change
# of a report on
# purpose regenerates GOLDEN:
#   sh layout_same.sh GCSCOPE TRACES_DIR TMP GOLDEN --update
set -u
g=$1; traces=$(cd "$2" && pwd -P); tmp=$3; golden=$4
here=$(dirname "$0")
rm -rf "$tmp"; mkdir -p "$tmp"
for t in coreclr/netcore31-perfcollect-default coreclr/netcore31-startup-small coreclr/netcore2017-gcstart-gcend \
         coreclr/netcore2017-allocationtick nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace; do
  n=$(basename "$t"); db=$tmp/$n.db
  "$g" import -q -d "$db" "$traces/$t" >/dev/null 2>&1 || { echo "FAIL: import $t"; exit 1; }
  sh "$here/layout_reports.sh" "$g" "$db" "$traces" | sed "s|^|$n |"
done >"$tmp/now.txt"
if [ "${5:-}" = --update ]; then cp "$tmp/now.txt" "$golden"; exit 0; fi
if ! diff -u "$golden" "$tmp/now.txt"; then
  echo "FAIL: a report differs from what the text-payload layout gave (lines above)"
  exit 1
fi
echo "$(wc -l <"$tmp/now.txt") report outputs identical"
