/*
 * handles_cmd.c — `gcscope handles DB|TRACE`: GC handles created/destroyed by
 * kind over time (--bucket SEC), pinned handles (Pinned, AsyncPinned) alive at
 * each GC, and the longest-lived pins, from SetGCHandle/DestroyGCHandle
 * (gc_handles). A destroy's kind is the kind of the handle's latest set.
 */
#include <sqlite3.h>
#include <stdio.h>

#include "gcs_gcdb.h"
#include "gcs_insight.h"
#include "ins_db.h"
#include "ins_sqlview.h"

#define CMD "handles"

static const char USAGE[] =
    "usage: gcscope handles DB|TRACE [--trace ID] [--pid PID] [--bucket SEC] [--top N] [--format text|csv]\n";

/* Every handle event with its kind (a destroy takes its handle's latest set). */
#define KINDED                                                                                          \
  "WITH k AS (SELECT h.trace_id, h.pid, h.ts_ns, h.action, h.handle, "                                  \
  " CASE WHEN h.action = 'set' THEN h.kind ELSE (SELECT s.kind FROM gc_handles s WHERE "                \
  " s.trace_id = h.trace_id AND s.pid = h.pid AND s.handle = h.handle AND s.action = 'set' AND "        \
  " s.ts_ns <= h.ts_ns ORDER BY s.ts_ns DESC LIMIT 1) END AS kind FROM gc_handles h "                   \
  " WHERE " GCS_IN_INPUT("h.trace_id") " AND (?1 < 0 OR h.pid = ?1)) "

static const char SQL_OVER_TIME[] = KINDED
    "SELECT k.trace_id, k.pid, CAST((k.ts_ns - t.start_ns) / ?3 AS INTEGER) * (?3 / 1e9) AS from_s, "
    " CASE k.kind WHEN 0 THEN 'WeakShort' WHEN 1 THEN 'WeakLong' WHEN 2 THEN 'Strong' WHEN 3 THEN 'Pinned' "
    " WHEN 4 THEN 'Variable' WHEN 5 THEN 'RefCounted' WHEN 6 THEN 'Dependent' WHEN 7 THEN 'AsyncPinned' "
    " WHEN 8 THEN 'SizedRef' ELSE coalesce(k.kind, '?') END AS kind, "
    " sum(k.action = 'set') AS created, sum(k.action = 'destroy') AS destroyed "
    "FROM k JOIN traces t ON t.id = k.trace_id GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4";

/* Pinned handles alive at a GC's start: latest event of the handle before it is a pinned set. */
static const char SQL_AT_GC[] = KINDED
    ", last AS (SELECT g.trace_id, g.pid, g.gc_index, g.start_msec, k.handle, k.action, k.kind, "
    " row_number() OVER (PARTITION BY g.trace_id, g.pid, g.gc_index, k.handle ORDER BY k.ts_ns DESC) AS rn "
    " FROM gcs g JOIN k ON k.trace_id = g.trace_id AND k.pid = g.pid AND k.ts_ns <= g.start_ns) "
    "SELECT g.trace_id, g.pid, g.gc_index, g.gen_name AS gen, round(g.start_msec, 3) AS start_ms, "
    " (SELECT count(*) FROM last l WHERE l.trace_id = g.trace_id AND l.pid = g.pid AND l.gc_index = g.gc_index "
    "  AND l.rn = 1 AND l.action = 'set' AND l.kind IN (3, 7)) AS pinned_alive, g.pinned_obj "
    "FROM gcs g WHERE " GCS_IN_INPUT("g.trace_id") " AND (?1 < 0 OR g.pid = ?1) ORDER BY g.trace_id, g.pid, g.list_index";

/* Pins: a pinned set until the handle's next destroy or set (or the trace's end: still_alive). */
static const char SQL_LONGEST[] = KINDED
    ", pins AS (SELECT k.trace_id, k.pid, k.handle, k.ts_ns AS set_ns, "
    " (SELECT min(n.ts_ns) FROM k n WHERE n.trace_id = k.trace_id AND n.pid = k.pid AND n.handle = k.handle "
    "  AND n.ts_ns > k.ts_ns) AS end_ns, k.kind FROM k WHERE k.action = 'set' AND k.kind IN (3, 7)) "
    "SELECT p.trace_id, p.pid, printf('0x%x', p.handle) AS handle, "
    " CASE p.kind WHEN 3 THEN 'Pinned' ELSE 'AsyncPinned' END AS kind, "
    " round((p.set_ns - t.start_ns) / 1e6, 3) AS set_ms, "
    " round((coalesce(p.end_ns, t.end_ns) - p.set_ns) / 1e6, 3) AS lifetime_ms, "
    " p.end_ns IS NULL AS still_alive FROM pins p JOIN traces t ON t.id = p.trace_id "
    "ORDER BY lifetime_ms DESC LIMIT ?2";

int gcs_cmd_handles(int argc, char **argv) {
  struct ins_view_opts o;
  int a = ins_view_args(CMD, USAGE, argc, argv, &o);
  if (a) return a == 1 ? 0 : 2;
  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = o.trace};
  if (gcs_input_open(o.input, &io, &in, err, sizeof err)) {
    fprintf(stderr, "gcscope %s: %s\n", CMD, err);
    return 1;
  }
  sqlite3 *db = in.db;
  long n = ins_view_print(CMD, db, "GC handles created and destroyed, by kind and time bucket", SQL_OVER_TIME, &o);
  long m = n < 0 ? -1 : ins_view_print(CMD, db, "Pinned handles alive at the start of each GC", SQL_AT_GC, &o);
  long l = m < 0 ? -1 : ins_view_print(CMD, db, "Longest-lived pins", SQL_LONGEST, &o);
  gcs_input_close(&in);
  if (n == 0) fprintf(stderr, "gcscope %s: no GC handle events (they need the GCHandle keyword)\n", CMD);
  return n > 0 && m >= 0 && l >= 0 ? 0 : 1;
}
