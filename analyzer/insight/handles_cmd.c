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
#include "ins_sqlview.h"

#define CMD "handles"

static const char SYNOPSIS[] = "DB|TRACE [--trace ID] [--pid PID] [--bucket SEC] [--top N] [--format text|csv] [-d DB]";

/* One pass in C over the handle events (sorted by trace, process, time),
 * with the state of every handle in a hash table: each event's kind (a
 * destroy takes the kind of its handle's latest set), the handles created
 * and destroyed per bucket and kind, the pinned handles alive at each GC's
 * start (those whose latest event at or before it is a pinned set; a GC
 * without a GCStart sees none), and each pin's life (a pinned set until its
 * handle's next event, or the trace's end: still alive). The results go to
 * three small temporary tables that the printed queries read (the database
 * itself stays read-only). O(n log n) in the events: 1,000,000 of them in
 * well under 2 s (the window-function queries this replaces took 9 s). */

struct hev { int64_t trace_id, ts_ns, rid; int64_t handle; int32_t pid; int16_t kind; uint8_t set; };
struct hgc { int64_t trace_id, start_ns, id; int32_t pid; };
struct hstate {
  int64_t trace_id, handle;
  int32_t pid;
  int used;
  int16_t kind;            /* the latest set's kind, -1 before any */
  int16_t kind_at_pin;     /* the kind of the pinned set that holds now */
  uint8_t pinned_now;      /* its latest event is a pinned set */
  int64_t pin_set_ns;
};

static int cmp_ev(const void *x, const void *y) {
  const struct hev *a = x, *b = y;
  if (a->trace_id != b->trace_id) return a->trace_id < b->trace_id ? -1 : 1;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  if (a->ts_ns != b->ts_ns) return a->ts_ns < b->ts_ns ? -1 : 1;
  return a->rid < b->rid ? -1 : a->rid > b->rid;
}

static int cmp_gc(const void *x, const void *y) {
  const struct hgc *a = x, *b = y;
  if (a->trace_id != b->trace_id) return a->trace_id < b->trace_id ? -1 : 1;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

static uint64_t mix(uint64_t h) {
  h ^= h >> 33; h *= 0xff51afd7ed558ccdull; h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53ull; h ^= h >> 33;
  return h;
}

struct htab { struct hstate *v; size_t cap; };

static struct hstate *lookup(struct htab *t, int64_t trace, int32_t pid, int64_t handle) {
  size_t i = (size_t)mix((uint64_t)handle * 31u + (uint64_t)trace * 1000003u + (uint32_t)pid) & (t->cap - 1);
  for (;; i = (i + 1) & (t->cap - 1)) {
    struct hstate *e = &t->v[i];
    if (!e->used) { *e = (struct hstate){ trace, handle, pid, 1, -1, -1, 0, 0 }; return e; }
    if (e->handle == handle && e->trace_id == trace && e->pid == pid) return e;
  }
}

static int is_pinned_kind(int k) { return k == GCS_HANDLE_KIND_PINNED || k == GCS_HANDLE_KIND_ASYNC_PINNED; }

struct hagg { int64_t trace_id, bucket; int32_t pid; int kind; int64_t created, destroyed; };
struct hpin { int64_t trace_id, handle, set_ns, end_ns; int32_t pid; int kind; };

static int exec1(sqlite3 *db, const char *sql) { return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1; }

static int cmp_life_desc(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a > b ? -1 : a < b;
}

/* Computes the three temporary tables; 0 or -1 (sqlite's message in db). */
static int compute_handles(sqlite3 *db, const struct ins_view_opts *o) {
  int rc = -1;
  struct hev *ev = NULL;
  struct hgc *gc = NULL;
  struct htab t = { 0 };
  struct hagg *agg = NULL;
  struct hpin *pins = NULL;
  int64_t *lives = NULL;
  size_t nev = 0, capev = 0, ngc = 0, capgc = 0, nagg = 0, capagg = 0, npins = 0, cappins = 0;
  sqlite3_stmt *st = NULL;
  int64_t bns = (int64_t)(o->bucket_s * 1e9);
  if (bns <= 0) bns = 1;
  /* the events */
  if (sqlite3_prepare_v2(db, "SELECT h.rowid, h.trace_id, h.pid, h.ts_ns, h.action = 'set', h.handle, h.kind "
                             "FROM gc_handles h WHERE " GCS_IN_INPUT("h.trace_id") " AND (?1 < 0 OR h.pid = ?1)",
                         -1, &st, NULL) != SQLITE_OK) goto out;
  sqlite3_bind_int64(st, 1, o->pid);
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (nev == capev) {
      capev = capev ? 2 * capev : 4096;
      struct hev *v = realloc(ev, capev * sizeof *v);
      if (!v) goto out;
      ev = v;
    }
    ev[nev++] = (struct hev){ sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 0),
                              sqlite3_column_int64(st, 5), sqlite3_column_int(st, 2),
                              (int16_t)(sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 6)),
                              (uint8_t)sqlite3_column_int(st, 4) };
  }
  sqlite3_finalize(st);
  st = NULL;
  /* the GCs, by start (no GCStart: -1, before every event) */
  if (sqlite3_prepare_v2(db, "SELECT g.trace_id, g.pid, coalesce(g.start_ns, -1), g.id FROM gcs g WHERE "
                             GCS_IN_INPUT("g.trace_id") " AND (?1 < 0 OR g.pid = ?1)", -1, &st, NULL) != SQLITE_OK)
    goto out;
  sqlite3_bind_int64(st, 1, o->pid);
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (ngc == capgc) {
      capgc = capgc ? 2 * capgc : 4096;
      struct hgc *v = realloc(gc, capgc * sizeof *v);
      if (!v) goto out;
      gc = v;
    }
    gc[ngc++] = (struct hgc){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                              sqlite3_column_int(st, 1) };
  }
  sqlite3_finalize(st);
  st = NULL;
  qsort(ev, nev, sizeof *ev, cmp_ev);
  qsort(gc, ngc, sizeof *gc, cmp_gc);
  t.cap = 1024;
  while (t.cap < 2 * nev + 2) t.cap *= 2;
  t.v = calloc(t.cap, sizeof *t.v);
  if (!t.v) goto out;
  if (exec1(db, "CREATE TEMP TABLE h_over(trace_id INTEGER, pid INTEGER, bucket INTEGER, kind INTEGER, "
                "created INTEGER, destroyed INTEGER);"
                "CREATE TEMP TABLE h_atgc(gid INTEGER PRIMARY KEY, alive INTEGER);"
                "CREATE TEMP TABLE h_pins(trace_id INTEGER, pid INTEGER, handle INTEGER, kind INTEGER, "
                "set_ns INTEGER, end_ns INTEGER)")) goto out;
  sqlite3_stmt *ins_gc = NULL;
  if (sqlite3_prepare_v2(db, "INSERT INTO temp.h_atgc VALUES (?1, ?2)", -1, &ins_gc, NULL) != SQLITE_OK) goto out;
  if (exec1(db, "BEGIN")) { sqlite3_finalize(ins_gc); goto out; }
  /* trace start times for the buckets */
  sqlite3_stmt *ts = NULL;
  if (sqlite3_prepare_v2(db, "SELECT coalesce(start_ns, 0) FROM traces WHERE id = ?1", -1, &ts, NULL) != SQLITE_OK) {
    sqlite3_finalize(ins_gc);
    goto out;
  }
  int64_t cur_trace = INT64_MIN, start_ns = 0;
  size_t gi = 0;
  int ok = 1;
  /* Walk the events of each (trace, pid) in time order, giving each GC that starts after
   * the events of its instant the running count of pinned handles. */
  for (size_t i = 0; ok && (i < nev || gi < ngc);) {
    /* the next (trace, pid) group: the smaller of the next event and the next GC */
    int take_gc_group = i >= nev || (gi < ngc && (gc[gi].trace_id < ev[i].trace_id ||
                                     (gc[gi].trace_id == ev[i].trace_id && gc[gi].pid < ev[i].pid)));
    int64_t tr = take_gc_group ? gc[gi].trace_id : ev[i].trace_id;
    int32_t pid = take_gc_group ? gc[gi].pid : ev[i].pid;
    int64_t alive = 0;
    while (ok && ((i < nev && ev[i].trace_id == tr && ev[i].pid == pid) ||
                  (gi < ngc && gc[gi].trace_id == tr && gc[gi].pid == pid))) {
      int gc_next = !(i < nev && ev[i].trace_id == tr && ev[i].pid == pid) ||
                    (gi < ngc && gc[gi].trace_id == tr && gc[gi].pid == pid && gc[gi].start_ns < ev[i].ts_ns);
      if (gc_next) {
        sqlite3_bind_int64(ins_gc, 1, gc[gi].id);
        sqlite3_bind_int64(ins_gc, 2, alive);
        ok = sqlite3_step(ins_gc) == SQLITE_DONE;
        sqlite3_reset(ins_gc);
        gi++;
        continue;
      }
      struct hev *e = &ev[i++];
      struct hstate *h = lookup(&t, e->trace_id, e->pid, e->handle);
      int kind = e->set ? e->kind : h->kind;              /* a destroy: its handle's latest set's kind */
      if (e->set) h->kind = e->kind;
      if (h->pinned_now) {                                /* a pin ends at its handle's next event */
        if (npins == cappins) {
          cappins = cappins ? 2 * cappins : 1024;
          struct hpin *v = realloc(pins, cappins * sizeof *v);
          if (!v) { ok = 0; break; }
          pins = v;
        }
        pins[npins++] = (struct hpin){ e->trace_id, e->handle, h->pin_set_ns, e->ts_ns, e->pid, h->kind_at_pin };
      }
      int pinned = e->set && is_pinned_kind(e->kind);
      alive += pinned - h->pinned_now;
      h->pinned_now = (uint8_t)pinned;
      if (pinned) { h->pin_set_ns = e->ts_ns; h->kind_at_pin = e->kind; }
      /* the bucket row */
      if (e->trace_id != cur_trace) {
        cur_trace = e->trace_id;
        sqlite3_bind_int64(ts, 1, cur_trace);
        start_ns = sqlite3_step(ts) == SQLITE_ROW ? sqlite3_column_int64(ts, 0) : 0;
        sqlite3_reset(ts);
      }
      int64_t bucket = (e->ts_ns - start_ns) / bns;
      if (!nagg || agg[nagg - 1].trace_id != e->trace_id || agg[nagg - 1].pid != e->pid ||
          agg[nagg - 1].bucket != bucket || agg[nagg - 1].kind != kind) {
        /* rows of one bucket and kind are adjacent only per kind: search the bucket's rows */
        size_t j = nagg;
        while (j > 0 && agg[j - 1].trace_id == e->trace_id && agg[j - 1].pid == e->pid && agg[j - 1].bucket == bucket) {
          if (agg[j - 1].kind == kind) break;
          j--;
        }
        if (j == 0 || agg[j - 1].trace_id != e->trace_id || agg[j - 1].pid != e->pid || agg[j - 1].bucket != bucket ||
            agg[j - 1].kind != kind) {
          if (nagg == capagg) {
            capagg = capagg ? 2 * capagg : 256;
            struct hagg *v = realloc(agg, capagg * sizeof *v);
            if (!v) { ok = 0; break; }
            agg = v;
          }
          agg[nagg++] = (struct hagg){ e->trace_id, bucket, e->pid, kind, 0, 0 };
          j = nagg;
        }
        if (e->set) agg[j - 1].created++; else agg[j - 1].destroyed++;
      } else if (e->set) {
        agg[nagg - 1].created++;
      } else {
        agg[nagg - 1].destroyed++;
      }
    }
  }
  sqlite3_finalize(ts);
  sqlite3_finalize(ins_gc);
  if (!ok) { exec1(db, "ROLLBACK"); goto out; }
  /* pins still alive at the end */
  for (size_t k = 0; ok && k < t.cap; k++) {
    struct hstate *h = &t.v[k];
    if (!h->used || !h->pinned_now) continue;
    if (npins == cappins) {
      cappins = cappins ? 2 * cappins : 1024;
      struct hpin *v = realloc(pins, cappins * sizeof *v);
      if (!v) { ok = 0; break; }
      pins = v;
    }
    pins[npins++] = (struct hpin){ h->trace_id, h->handle, h->pin_set_ns, INT64_MIN, h->pid, h->kind_at_pin };
  }
  /* Keep the pins that can be among the longest (ties at the cut included). */
  sqlite3_stmt *te = NULL, *ip = NULL, *ia = NULL;
  if (ok && sqlite3_prepare_v2(db, "SELECT coalesce(end_ns, 0) FROM traces WHERE id = ?1", -1, &te, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(db, "INSERT INTO temp.h_pins VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &ip, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(db, "INSERT INTO temp.h_over VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &ia, NULL) == SQLITE_OK) {
    lives = malloc((npins ? npins : 1) * sizeof *lives);
    int64_t end_trace = INT64_MIN, end_ns = 0;
    for (size_t k = 0; lives && k < npins; k++) {
      if (pins[k].end_ns == INT64_MIN) {
        if (pins[k].trace_id != end_trace) {
          end_trace = pins[k].trace_id;
          sqlite3_bind_int64(te, 1, end_trace);
          end_ns = sqlite3_step(te) == SQLITE_ROW ? sqlite3_column_int64(te, 0) : 0;
          sqlite3_reset(te);
        }
        lives[k] = end_ns - pins[k].set_ns;   /* still alive: end_ns stays NULL in the table */
      } else {
        lives[k] = pins[k].end_ns - pins[k].set_ns;
      }
    }
    int64_t cut = INT64_MIN;
    if (lives && (size_t)o->top < npins && o->top > 0) {
      int64_t *sorted = malloc(npins * sizeof *sorted);
      if (sorted) {
        memcpy(sorted, lives, npins * sizeof *sorted);
        qsort(sorted, npins, sizeof *sorted, cmp_life_desc);
        cut = sorted[o->top - 1] - 1000000;   /* a ms below: the printed order rounds to microseconds */
        free(sorted);
      }
    }
    for (size_t k = 0; lives && ok && k < npins; k++) {
      if (lives[k] < cut) continue;
      sqlite3_bind_int64(ip, 1, pins[k].trace_id);
      sqlite3_bind_int(ip, 2, pins[k].pid);
      sqlite3_bind_int64(ip, 3, pins[k].handle);
      sqlite3_bind_int(ip, 4, pins[k].kind);
      sqlite3_bind_int64(ip, 5, pins[k].set_ns);
      if (pins[k].end_ns == INT64_MIN) sqlite3_bind_null(ip, 6); else sqlite3_bind_int64(ip, 6, pins[k].end_ns);
      ok = sqlite3_step(ip) == SQLITE_DONE;
      sqlite3_reset(ip);
    }
    for (size_t k = 0; ok && k < nagg; k++) {
      sqlite3_bind_int64(ia, 1, agg[k].trace_id);
      sqlite3_bind_int(ia, 2, agg[k].pid);
      sqlite3_bind_int64(ia, 3, agg[k].bucket);
      if (agg[k].kind < 0) sqlite3_bind_null(ia, 4); else sqlite3_bind_int(ia, 4, agg[k].kind);
      sqlite3_bind_int64(ia, 5, agg[k].created);
      sqlite3_bind_int64(ia, 6, agg[k].destroyed);
      ok = sqlite3_step(ia) == SQLITE_DONE;
      sqlite3_reset(ia);
    }
    if (!lives) ok = 0;
  } else {
    ok = 0;
  }
  sqlite3_finalize(te);
  sqlite3_finalize(ip);
  sqlite3_finalize(ia);
  if (!ok || exec1(db, "COMMIT")) { exec1(db, "ROLLBACK"); goto out; }
  rc = 0;
out:
  sqlite3_finalize(st);
  free(ev);
  free(gc);
  free(t.v);
  free(agg);
  free(pins);
  free(lives);
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
      fprintf(stderr, "gcscope %s: no GC handle events in %s: record them with `gcscope record --profile handles` "
                      "(the GCHandle keyword)\n", CMD, o.input);
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
