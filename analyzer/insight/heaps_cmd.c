/*
 * heaps_cmd.c — `gcscope heaps DB|TRACE`: the balance across a process's GC
 * heaps, one row per heap over all its GCs (bytes marked from roots, the
 * heap's share of them, how long after GCStart the heap's last root mark
 * came, on average and at worst: a straggler heap holds every GC up); with
 * --all, then per GC and heap, bytes promoted by root kind (GCMarkWithType:
 * stack, finalize queue, handles, older generation, other) and how
 * unbalanced the heaps are (largest heap's total / mean heap total; 1.000 is
 * perfectly even). A GCMarkWithType belongs to the GC of its process whose
 * GCStart..GCEnd contains it (the latest such GC).
 */
#include <sqlite3.h>
#include <stdio.h>

#include "gcs_enums.h"
#include "gcs_gcdb.h"
#include "gcs_insight.h"
#include "ins_db.h"
#include "ins_sqlview.h"

#define CMD "heaps"

static const char SYNOPSIS[] = "DB|TRACE [--trace ID] [--pid PID] [--all] [--format text|csv] [-d DB]";

/* Payload "HeapNum=N Type=Name Bytes=B" (gcs_event_format). */
#define FIELD(name, next)                                                                                 \
  "substr(e.payload, instr(e.payload, '" name "=') + length('" name "='), "                               \
  "instr(e.payload, '" next "') - instr(e.payload, '" name "=') - length('" name "=') - 1)"

/* A mark belongs to the latest-started GC of its process that contains it.
 * Blocking GCs never overlap one another, and only a background GC spans
 * others, one at a time: so that GC is the latest-started GC if it contains
 * the mark, else the latest-started background GC if that does. Two index
 * lookups per mark (gcs_by_start, gcs_by_type_start), whatever the number of
 * GCs. "%d" is GCS_GC_TYPE_BACKGROUND, filled in at run time. */
#define CONTAINS(alias) alias ".start_ns <= c.ts_ns AND (" alias ".end_ns IS NULL OR " alias ".end_ns >= c.ts_ns)"
#define MARKS_CTE \
    "WITH m AS (SELECT e.trace_id, e.pid, e.ts_ns, CAST(" FIELD("HeapNum", "Type=") " AS INTEGER) AS heap, " \
    " " FIELD("Type", "Bytes=") " AS kind, CAST(substr(e.payload, instr(e.payload, 'Bytes=') + 6) AS INTEGER) " \
    " AS bytes FROM events e WHERE e.name = 'GCMarkWithType' AND " GCS_IN_INPUT("e.trace_id") " AND (?1 < 0 OR e.pid = ?1)), " \
    "c AS (SELECT m.*, (SELECT g.id FROM gcs g WHERE g.trace_id = m.trace_id AND g.pid = m.pid AND " \
    "  g.start_ns <= m.ts_ns ORDER BY g.start_ns DESC LIMIT 1) AS last_id, " \
    " (SELECT g.id FROM gcs g WHERE g.trace_id = m.trace_id AND g.pid = m.pid AND g.type = %d AND " \
    "  g.start_ns <= m.ts_ns ORDER BY g.start_ns DESC LIMIT 1) AS bgc_id FROM m), " \
    "a AS (SELECT CASE WHEN " CONTAINS("l") " THEN l.gc_index WHEN " CONTAINS("b") " THEN b.gc_index END " \
    " AS gc_index, CASE WHEN " CONTAINS("l") " THEN l.start_ns WHEN " CONTAINS("b") " THEN b.start_ns END " \
    " AS gc_start, c.* FROM c LEFT JOIN gcs l ON l.id = c.last_id LEFT JOIN gcs b ON b.id = c.bgc_id), " \
    "h AS (SELECT trace_id, pid, gc_index, heap, sum(CASE WHEN kind = 'Stack' THEN bytes ELSE 0 END) AS stack, " \
    " sum(CASE WHEN kind IN ('Finalizer', 'NewFQ') THEN bytes ELSE 0 END) AS finalize_queue, " \
    " sum(CASE WHEN kind IN ('Handle', 'DependentHandle', 'SizedRef') THEN bytes ELSE 0 END) AS handles, " \
    " sum(CASE WHEN kind = 'Older' THEN bytes ELSE 0 END) AS older, " \
    " sum(CASE WHEN kind NOT IN ('Stack', 'Finalizer', 'NewFQ', 'Handle', 'DependentHandle', 'SizedRef', " \
    "  'Older') THEN bytes ELSE 0 END) AS other, sum(bytes) AS total, max(ts_ns) - min(gc_start) AS mark_ns " \
    " FROM a WHERE gc_index IS NOT NULL " \
    " GROUP BY trace_id, pid, gc_index, heap) "

/* Per GC and heap (--all). */
static const char SQL_FMT[] = MARKS_CTE
    "SELECT trace_id, pid, gc_index, heap, stack, finalize_queue, handles, older, other, total, "
    " round(max(total) OVER w * 1.0 / nullif(avg(total) OVER w, 0), 3) AS imbalance "
    "FROM h WINDOW w AS (PARTITION BY trace_id, pid, gc_index) ORDER BY trace_id, pid, gc_index, heap";

/* Per heap over all GCs: the summary. mark_ns: GCStart to the heap's last
 * root mark in that GC. */
static const char SUMMARY_FMT[] = MARKS_CTE
    "SELECT trace_id, pid, heap, count(*) AS gcs, round(sum(total) / 1e6, 3) AS marked_mb, "
    " round(100.0 * sum(total) / nullif(sum(sum(total)) OVER (PARTITION BY trace_id, pid), 0), 1) AS share_pct, "
    " round(avg(mark_ns) / 1e6, 3) AS mean_mark_ms, round(max(mark_ns) / 1e6, 3) AS max_mark_ms "
    "FROM h GROUP BY trace_id, pid, heap ORDER BY trace_id, pid, heap";

int gcs_cmd_heaps(int argc, char **argv) {
  struct ins_view_opts o;
  int a = ins_view_args(CMD, SYNOPSIS, INS_VIEW_ALL, argc, argv, &o);
  if (a) return a == 1 ? 0 : 2;
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = o.trace, .db_path = o.db_path};
  if (gcs_input_open_report(CMD, o.input, &io, &in)) return 1;

  sqlite3 *db = in.db;
  static char sql[sizeof SQL_FMT + 16], sum[sizeof SUMMARY_FMT + 16];
  snprintf(sql, sizeof sql, SQL_FMT, (int)GCS_GC_TYPE_BACKGROUND);
  snprintf(sum, sizeof sum, SUMMARY_FMT, (int)GCS_GC_TYPE_BACKGROUND);
  long rows = ins_view_print(CMD, db,
                             "Per heap, all GCs (MB marked from roots; ms from GCStart to its last root mark)",
                             sum, &o);
  if (rows > 0 && o.all) {
    if (o.fmt == RPT_TEXT) putchar('\n');
    rows = ins_view_print(CMD, db,
                          "Bytes promoted by root kind, per GC and heap (imbalance = largest heap / mean heap)", sql,
                          &o);
  }
  gcs_input_close(&in);
  if (rows == 0) fprintf(stderr, "gcscope %s: no GCMarkWithType events in %s\n", CMD, o.input);
  return rows > 0 ? 0 : 1;
}
