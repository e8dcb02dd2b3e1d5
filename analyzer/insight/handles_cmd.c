/*
 * handles_cmd.c — `gcscope handles DB|TRACE`: GC handles created/destroyed by
 * kind over time (--bucket SEC), pinned handles (Pinned, AsyncPinned) alive at
 * each GC, and the longest-lived pins, from SetGCHandle/DestroyGCHandle
 * (gc_handles). A destroy's kind is the kind of the handle's latest set.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_enums.h"
#include "gcs_gcdb.h"
#include "gcs_insight.h"
#include "ins_db.h"
#include "ins_handles.h"
#include "ins_sqlview.h"

#define CMD "handles"

static const char SYNOPSIS[] = "DB|TRACE [--trace ID] [--pid PID] [--bucket SEC] [--top N] [--format text|csv] [-d DB]";

/* The analysis is core/analysis's ins_handles (pure, one pass over the events
 * sorted, O(n log n): 1,000,000 events in well under 2 s). This loads its
 * inputs and puts its results in three small temporary tables that the
 * printed queries read (the database itself stays read-only). */

static int exec1(sqlite3 *db, const char *sql) { return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1; }

/* Append to a growing array; 0, or -1 when out of memory. */
static int grow(void **v, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return 0;
  size_t c = *cap ? 2 * *cap : 4096;
  void *p = realloc(*v, c * size);
  if (!p) return -1;
  *v = p;
  *cap = c;
  return 0;
}

/* The analysis' inputs: the handle events, the GCs by start (no GCStart: -1,
 * before every event) and the traces' spans. 0, or -1 (sqlite's message in db). */
static int load_inputs(sqlite3 *db, const struct ins_view_opts *o, struct ins_handle_ev **ev, size_t *nev,
                       struct ins_handle_gc **gc, size_t *ngc, struct ins_handle_trace **tr, size_t *ntr) {
  sqlite3_stmt *st = NULL;
  size_t cap = 0;
  if (sqlite3_prepare_v2(db, "SELECT h.rowid, h.trace_id, h.pid, h.ts_ns, h.action = 'set', h.handle, h.kind "
                             "FROM gc_handles h WHERE " GCS_IN_INPUT("h.trace_id") " AND (?1 < 0 OR h.pid = ?1)",
                         -1, &st, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int64(st, 1, o->pid);
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (grow((void **)ev, &cap, *nev, sizeof **ev)) goto oom;
    (*ev)[(*nev)++] = (struct ins_handle_ev){ sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 3),
                                              sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 5),
                                              sqlite3_column_int(st, 2),
                                              (int16_t)(sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 6)),
                                              (uint8_t)sqlite3_column_int(st, 4) };
  }
  sqlite3_finalize(st);
  cap = 0;
  if (sqlite3_prepare_v2(db, "SELECT g.trace_id, g.pid, coalesce(g.start_ns, -1), g.id FROM gcs g WHERE "
                             GCS_IN_INPUT("g.trace_id") " AND (?1 < 0 OR g.pid = ?1)", -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, o->pid);
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (grow((void **)gc, &cap, *ngc, sizeof **gc)) goto oom;
    (*gc)[(*ngc)++] = (struct ins_handle_gc){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 2),
                                              sqlite3_column_int64(st, 3), sqlite3_column_int(st, 1) };
  }
  sqlite3_finalize(st);
  cap = 0;
  if (sqlite3_prepare_v2(db, "SELECT id, coalesce(start_ns, 0), coalesce(end_ns, 0) FROM traces", -1, &st, NULL) !=
      SQLITE_OK) return -1;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (grow((void **)tr, &cap, *ntr, sizeof **tr)) goto oom;
    (*tr)[(*ntr)++] = (struct ins_handle_trace){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                                 sqlite3_column_int64(st, 2) };
  }
  sqlite3_finalize(st);
  return 0;
oom:
  sqlite3_finalize(st);
  return -1;
}

/* The analysis' results into temp.h_over, temp.h_atgc and temp.h_pins. */
static int store_results(sqlite3 *db, const struct ins_handles *r) {
  sqlite3_stmt *ia = NULL, *ig = NULL, *ip = NULL;
  if (exec1(db, "CREATE TEMP TABLE h_over(trace_id INTEGER, pid INTEGER, bucket INTEGER, kind INTEGER, "
                "created INTEGER, destroyed INTEGER);"
                "CREATE TEMP TABLE h_atgc(gid INTEGER PRIMARY KEY, alive INTEGER);"
                "CREATE TEMP TABLE h_pins(trace_id INTEGER, pid INTEGER, handle INTEGER, kind INTEGER, "
                "set_ns INTEGER, end_ns INTEGER)") || exec1(db, "BEGIN")) return -1;
  int ok = sqlite3_prepare_v2(db, "INSERT INTO temp.h_over VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &ia, NULL) == SQLITE_OK &&
           sqlite3_prepare_v2(db, "INSERT INTO temp.h_atgc VALUES (?1, ?2)", -1, &ig, NULL) == SQLITE_OK &&
           sqlite3_prepare_v2(db, "INSERT INTO temp.h_pins VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &ip, NULL) == SQLITE_OK;
  for (size_t k = 0; ok && k < r->nat_gc; k++) {
    sqlite3_bind_int64(ig, 1, r->at_gc[k].gc_id);
    sqlite3_bind_int64(ig, 2, r->at_gc[k].alive);
    ok = sqlite3_step(ig) == SQLITE_DONE;
    sqlite3_reset(ig);
  }
  for (size_t k = 0; ok && k < r->npins; k++) {
    const struct ins_handle_pin *p = &r->pins[k];
    sqlite3_bind_int64(ip, 1, p->trace_id);
    sqlite3_bind_int(ip, 2, p->pid);
    sqlite3_bind_int64(ip, 3, p->handle);
    sqlite3_bind_int(ip, 4, p->kind);
    sqlite3_bind_int64(ip, 5, p->set_ns);
    if (p->end_ns == INS_HANDLE_ALIVE) sqlite3_bind_null(ip, 6); else sqlite3_bind_int64(ip, 6, p->end_ns);
    ok = sqlite3_step(ip) == SQLITE_DONE;
    sqlite3_reset(ip);
  }
  for (size_t k = 0; ok && k < r->nbuckets; k++) {
    const struct ins_handle_bucket *b = &r->buckets[k];
    sqlite3_bind_int64(ia, 1, b->trace_id);
    sqlite3_bind_int(ia, 2, b->pid);
    sqlite3_bind_int64(ia, 3, b->bucket);
    if (b->kind < 0) sqlite3_bind_null(ia, 4); else sqlite3_bind_int(ia, 4, b->kind);
    sqlite3_bind_int64(ia, 5, b->created);
    sqlite3_bind_int64(ia, 6, b->destroyed);
    ok = sqlite3_step(ia) == SQLITE_DONE;
    sqlite3_reset(ia);
  }
  sqlite3_finalize(ia);
  sqlite3_finalize(ig);
  sqlite3_finalize(ip);
  if (!ok || exec1(db, "COMMIT")) { exec1(db, "ROLLBACK"); return -1; }
  return 0;
}

/* Computes the three temporary tables; 0 or -1 (sqlite's message in db). */
static int compute_handles(sqlite3 *db, const struct ins_view_opts *o) {
  struct ins_handle_ev *ev = NULL;
  struct ins_handle_gc *gc = NULL;
  struct ins_handle_trace *tr = NULL;
  size_t nev = 0, ngc = 0, ntr = 0;
  struct ins_handles r = { 0 };
  int rc = load_inputs(db, o, &ev, &nev, &gc, &ngc, &tr, &ntr);
  if (!rc) rc = ins_handles_compute(ev, nev, gc, ngc, tr, ntr, (int64_t)(o->bucket_s * 1e9), o->top, &r);
  if (!rc) rc = store_results(db, &r);
  ins_handles_free(&r);
  free(ev);
  free(gc);
  free(tr);
  return rc;
}

/* The schema's handle_kind names, as a SQL CASE on k.kind. */
#define KIND_NAME_WHEN(Value, Name, Const) " WHEN " #Value " THEN '" #Name "'"
#define KIND_NAME_CASE "CASE k.kind" GCS_MAP_handle_kind(KIND_NAME_WHEN) " ELSE coalesce(k.kind, '?') END"

static const char SQL_OVER_TIME[] =
    "SELECT k.trace_id, k.pid, CAST(k.bucket AS INTEGER) * (?3 / 1e9) AS from_s, " KIND_NAME_CASE " AS kind, "
    " sum(k.created) AS created, sum(k.destroyed) AS destroyed "
    "FROM temp.h_over k GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4";

static const char SQL_AT_GC[] =
    "SELECT g.trace_id, g.pid, g.gc_index, g.gen_name AS gen, round(g.start_msec, 3) AS start_ms, "
    " r.alive AS pinned_alive, g.pinned_obj "
    "FROM temp.h_atgc r JOIN gcs g ON g.id = r.gid ORDER BY g.trace_id, g.pid, g.list_index";

static const char SQL_LONGEST_FMT[] =
    "SELECT p.trace_id, p.pid, printf('0x%%x', p.handle) AS handle, "
    " CASE p.kind WHEN %d THEN 'Pinned' ELSE 'AsyncPinned' END AS kind, "
    " round((p.set_ns - t.start_ns) / 1e6, 3) AS set_ms, "
    " round((coalesce(p.end_ns, t.end_ns) - p.set_ns) / 1e6, 3) AS lifetime_ms, "
    " p.end_ns IS NULL AS still_alive FROM temp.h_pins p JOIN traces t ON t.id = p.trace_id "
    "ORDER BY lifetime_ms DESC, p.trace_id, p.pid, p.set_ns, p.handle LIMIT ?2";

int gcs_cmd_handles(int argc, char **argv) {
  struct ins_view_opts o;
  int a = ins_view_args(CMD, SYNOPSIS, INS_VIEW_TOP | INS_VIEW_BUCKET, argc, argv, &o);
  if (a) return a == 1 ? 0 : 2;
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = o.trace, .db_path = o.db_path};
  if (gcs_input_open_report(CMD, o.input, &io, &in)) return 1;

  sqlite3 *db = in.db;
  int any = ins_view_any(CMD, db, "SELECT EXISTS (SELECT 1 FROM gc_handles h WHERE " GCS_IN_INPUT("h.trace_id")
                         " AND (?1 < 0 OR h.pid = ?1))", &o);
  if (any <= 0) {
    if (any == 0)
      fprintf(stderr, "gcscope %s: no GC handle events in %s (record with --profile handles)\n", CMD, o.input);
    gcs_input_close(&in);
    return 1;
  }
  if (compute_handles(db, &o) != 0) {
    fprintf(stderr, "gcscope %s: database: %s\n", CMD, sqlite3_errmsg(db));
    gcs_input_close(&in);
    return 1;
  }
  long n = ins_view_print(CMD, db, "GC handles created and destroyed, by kind and time bucket", SQL_OVER_TIME, &o);
  static char longest[sizeof SQL_LONGEST_FMT + 64];
  snprintf(longest, sizeof longest, SQL_LONGEST_FMT, (int)GCS_HANDLE_KIND_PINNED);
  long m = n < 0 ? -1 : ins_view_print(CMD, db, "Pinned handles alive at the start of each GC", SQL_AT_GC, &o);
  long l = m < 0 ? -1 : ins_view_print(CMD, db, "Longest-lived pins", longest, &o);
  gcs_input_close(&in);
  return n > 0 && m >= 0 && l >= 0 ? 0 : 1;
}
