/*
 * handles_cmd.c — `gcscope handles DB|TRACE`: GC handles created/destroyed by
 * kind over time (--bucket SEC), pinned handles (Pinned, AsyncPinned) alive at
 * each GC, and the longest-lived pins, from SetGCHandle/DestroyGCHandle
 * (gc_handles). A destroy's kind is the kind of the handle's latest set.
 */
#include <sqlite3.h>
#include <stdio.h>

#include "gcs_enums.h"
#include "gcs_gcdb.h"
#include "gcs_insight.h"
#include "ins_db.h"
#include "ins_sqlview.h"

#define CMD "handles"

static const char SYNOPSIS[] = "DB|TRACE [--trace ID] [--pid PID] [--bucket SEC] [--top N] [--format text|csv] [-d DB]";

/* Each query is linear-logarithmic in the handle events and GCs: window
 * functions over (trace, process, handle) ordered by time, no correlated
 * subquery. The pinned kinds are filled in at run time ("%d" below: the
 * schema's GCS_HANDLE_KIND_PINNED and GCS_HANDLE_KIND_ASYNC_PINNED). */

/* Every handle event with its kind: a destroy takes the kind of its handle's
 * latest set (grp numbers a handle's sets; a destroy before any set has none). */
#define KINDED_SELECT                                                                                   \
  "WITH e AS (SELECT h.rowid AS rid, h.trace_id, h.pid, h.ts_ns, h.action, h.handle, h.kind AS set_kind, " \
  " sum(h.action = 'set') OVER (PARTITION BY h.trace_id, h.pid, h.handle ORDER BY h.ts_ns, h.rowid "      \
  "  ROWS UNBOUNDED PRECEDING) AS grp FROM gc_handles h "                                                 \
  " WHERE " GCS_IN_INPUT("h.trace_id") " AND (?1 < 0 OR h.pid = ?1)) "                                  \
  "SELECT rid, trace_id, pid, ts_ns, action, handle, CASE WHEN action = 'set' THEN set_kind "           \
  " WHEN grp > 0 THEN first_value(set_kind) OVER (PARTITION BY trace_id, pid, handle, grp ORDER BY ts_ns, rid) " \
  " END AS kind FROM e"
/* The three reports read the kinded events once computed (a temporary table
 * of the connection: the database itself stays read-only). */
static const char SQL_MAKE_KINDED[] = "CREATE TEMP TABLE handle_kinds AS " KINDED_SELECT;
#define KINDED "WITH k AS (SELECT * FROM temp.handle_kinds) "

/* The schema's handle_kind names, as a SQL CASE on k.kind. */
#define KIND_NAME_WHEN(Value, Name, Const) " WHEN " #Value " THEN '" #Name "'"
#define KIND_NAME_CASE "CASE k.kind" GCS_MAP_handle_kind(KIND_NAME_WHEN) " ELSE coalesce(k.kind, '?') END"

static const char SQL_OVER_TIME[] = KINDED
    "SELECT k.trace_id, k.pid, CAST((k.ts_ns - t.start_ns) / ?3 AS INTEGER) * (?3 / 1e9) AS from_s, "
    KIND_NAME_CASE " AS kind, "
    " sum(k.action = 'set') AS created, sum(k.action = 'destroy') AS destroyed "
    "FROM k JOIN traces t ON t.id = k.trace_id GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4";

/* Pinned handles alive at a GC's start: the handles whose latest event at or
 * before it is a pinned set. Each event changes the count by its handle's
 * state after it minus before it; the GCs are merged into the events' time
 * order (after the events of the same instant) and read the running sum. A
 * GC without a GCStart sees no handle. */
static const char SQL_AT_GC_FMT[] = KINDED
    ", s AS (SELECT trace_id, pid, ts_ns, (action = 'set' AND kind IN (%d, %d)) AS st, "
    " lag(action = 'set' AND kind IN (%d, %d), 1, 0) OVER (PARTITION BY trace_id, pid, handle ORDER BY ts_ns, rid) "
    "  AS prev FROM k), "
    "x AS (SELECT trace_id, pid, ts_ns, 0 AS is_gc, st - prev AS delta, NULL AS gid FROM s "
    " UNION ALL SELECT g.trace_id, g.pid, coalesce(g.start_ns, -1), 1, 0, g.id FROM gcs g "
    " WHERE " GCS_IN_INPUT("g.trace_id") " AND (?1 < 0 OR g.pid = ?1)), "
    "r AS (SELECT gid, is_gc, sum(delta) OVER (PARTITION BY trace_id, pid ORDER BY ts_ns, is_gc "
    " ROWS UNBOUNDED PRECEDING) AS alive FROM x) "
    "SELECT g.trace_id, g.pid, g.gc_index, g.gen_name AS gen, round(g.start_msec, 3) AS start_ms, "
    " r.alive AS pinned_alive, g.pinned_obj "
    "FROM r JOIN gcs g ON g.id = r.gid WHERE r.is_gc = 1 ORDER BY g.trace_id, g.pid, g.list_index";

/* Pins: a pinned set until the handle's next event (or the trace's end: still_alive). */
static const char SQL_LONGEST_FMT[] = KINDED
    ", n AS (SELECT trace_id, pid, handle, ts_ns, action, kind, "
    " lead(ts_ns) OVER (PARTITION BY trace_id, pid, handle ORDER BY ts_ns, rid) AS next_ns FROM k), "
    "pins AS (SELECT trace_id, pid, handle, ts_ns AS set_ns, next_ns AS end_ns, kind FROM n "
    " WHERE action = 'set' AND kind IN (%d, %d)) "
    "SELECT p.trace_id, p.pid, printf('0x%%x', p.handle) AS handle, "
    " CASE p.kind WHEN %d THEN 'Pinned' ELSE 'AsyncPinned' END AS kind, "
    " round((p.set_ns - t.start_ns) / 1e6, 3) AS set_ms, "
    " round((coalesce(p.end_ns, t.end_ns) - p.set_ns) / 1e6, 3) AS lifetime_ms, "
    " p.end_ns IS NULL AS still_alive FROM pins p JOIN traces t ON t.id = p.trace_id "
    "ORDER BY lifetime_ms DESC LIMIT ?2";

int gcs_cmd_handles(int argc, char **argv) {
  struct ins_view_opts o;
  int a = ins_view_args(CMD, SYNOPSIS, INS_VIEW_TOP | INS_VIEW_BUCKET, argc, argv, &o);
  if (a) return a == 1 ? 0 : 2;
  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = o.trace, .db_path = o.db_path};
  if (gcs_input_open(o.input, &io, &in, err, sizeof err)) {
    fprintf(stderr, "gcscope %s: %s\n", CMD, err);
    return 1;
  }

  sqlite3 *db = in.db;
  int any = ins_view_any(CMD, db, "SELECT EXISTS (SELECT 1 FROM gc_handles h WHERE " GCS_IN_INPUT("h.trace_id")
                         " AND (?1 < 0 OR h.pid = ?1))", &o);
  if (any <= 0) {
    if (any == 0)
      fprintf(stderr, "gcscope %s: no GC handle events in %s: record them with `gcscope record --profile handles` "
                      "(the GCHandle keyword)\n", CMD, o.input);
    gcs_input_close(&in);
    return 1;
  }
  gcs_input_warn_discarded(&in, stderr, "gcscope " CMD ": ");
  sqlite3_stmt *mk;
  if (sqlite3_prepare_v2(db, SQL_MAKE_KINDED, -1, &mk, NULL) != SQLITE_OK) {
    fprintf(stderr, "gcscope %s: database: %s\n", CMD, sqlite3_errmsg(db));
    gcs_input_close(&in);
    return 1;
  }
  sqlite3_bind_int64(mk, 1, o.pid);
  int made = sqlite3_step(mk);
  sqlite3_finalize(mk);
  if (made != SQLITE_DONE) {
    fprintf(stderr, "gcscope %s: database: %s\n", CMD, sqlite3_errmsg(db));
    gcs_input_close(&in);
    return 1;
  }
  long n = ins_view_print(CMD, db, "GC handles created and destroyed, by kind and time bucket", SQL_OVER_TIME, &o);
  enum { PIN = GCS_HANDLE_KIND_PINNED, APIN = GCS_HANDLE_KIND_ASYNC_PINNED };
  static char at_gc[sizeof SQL_AT_GC_FMT + 64], longest[sizeof SQL_LONGEST_FMT + 64];
  snprintf(at_gc, sizeof at_gc, SQL_AT_GC_FMT, PIN, APIN, PIN, APIN);
  snprintf(longest, sizeof longest, SQL_LONGEST_FMT, PIN, APIN, PIN);
  long m = n < 0 ? -1 : ins_view_print(CMD, db, "Pinned handles alive at the start of each GC", at_gc, &o);
  long l = m < 0 ? -1 : ins_view_print(CMD, db, "Longest-lived pins", longest, &o);
  gcs_input_close(&in);
  return n > 0 && m >= 0 && l >= 0 ? 0 : 1;
}
