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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- the marks' rows of h, computed in C ---------------------------------------
 *
 * MARKS_CTE above reads every mark through SQL: the payload cut apart with
 * substr/instr and two correlated look-ups per mark (1.8 s for 278,000 marks
 * of 69,500 GCs). The same h rows are made here in one pass: each trace's GCs
 * loaded once, sorted by (pid, start_ns, id) (an index scan of gcs_by_start
 * walks them in that order too, so "ORDER BY start_ns DESC LIMIT 1" is the
 * last of them, the highest id among equal starts), each mark placed by a
 * binary search, and the sums kept per (pid, gc_index, heap) in a hash table.
 * They go into temp.ins_heaps_h, and the reports' own SELECTs run over it.
 * Anything the fast path cannot say exactly as SQL would (a payload of
 * another shape, a sum past 64 bits) makes the command use MARKS_CTE. */
struct hp_gc { int64_t id, start, end, gc_index; int32_t pid; int has_end, is_bgc; };
struct hp_sum {
  int used;
  int32_t pid;
  int64_t gc_index, heap;
  int64_t stack, finalize_queue, handles, older, other, total, max_ts, min_start;
};
struct hp_map { struct hp_sum *v; size_t cap, n; };

static int hp_gc_cmp(const void *a, const void *b) {
  const struct hp_gc *x = a, *y = b;
  if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

/* The last GC of pid whose start <= ts in v[0..n) (sorted), or NULL. */
static const struct hp_gc *hp_latest(const struct hp_gc *v, size_t n, int32_t pid, int64_t ts) {
  size_t lo = 0, hi = n;   /* first element > (pid, ts) */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid].pid < pid || (v[mid].pid == pid && v[mid].start <= ts)) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && v[lo - 1].pid == pid ? &v[lo - 1] : NULL;
}

static int hp_contains(const struct hp_gc *g, int64_t ts) {
  return g && g->start <= ts && (!g->has_end || g->end >= ts);
}

static uint64_t hp_hash(int32_t pid, int64_t gc_index, int64_t heap) {
  uint64_t h = (uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ull;
  h ^= (uint64_t)gc_index + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
  h ^= (uint64_t)heap * 0xbf58476d1ce4e5b9ull + (h << 6) + (h >> 2);
  return h ^ (h >> 31);
}

static struct hp_sum *hp_slot(struct hp_map *m, int32_t pid, int64_t gc_index, int64_t heap) {
  if ((m->n + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 1024;
    struct hp_sum *v = calloc(cap, sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < m->cap; i++) {
      if (!m->v[i].used) continue;
      size_t k = hp_hash(m->v[i].pid, m->v[i].gc_index, m->v[i].heap) & (cap - 1);
      while (v[k].used) k = (k + 1) & (cap - 1);
      v[k] = m->v[i];
    }
    free(m->v);
    m->v = v;
    m->cap = cap;
  }
  size_t k = hp_hash(pid, gc_index, heap) & (m->cap - 1);
  while (m->v[k].used && !(m->v[k].pid == pid && m->v[k].gc_index == gc_index && m->v[k].heap == heap))
    k = (k + 1) & (m->cap - 1);
  if (!m->v[k].used) {
    m->v[k] = (struct hp_sum){ .used = 1, .pid = pid, .gc_index = gc_index, .heap = heap, .max_ts = INT64_MIN,
                               .min_start = INT64_MAX };
    m->n++;
  }
  return &m->v[k];
}

/* Digits only, as CAST(... AS INTEGER) reads them (beyond 2^63 - 1 it gives
 * 2^63 - 1). 0 if s[0..n) is not 1..20 digits. */
static int hp_digits(const char *s, size_t n, int64_t *out) {
  if (n == 0 || n > 20) return 0;
  uint64_t v = 0;
  int big = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) big = 1;
    else v = v * 10 + d;
  }
  *out = big || v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
  return 1;
}

/* "HeapNum=N Type=KIND Bytes=B" (gcs_event_format's text, KIND letters and
 * digits): 1 with the three parts, 0 for any other text. */
static int hp_parse(const char *p, int64_t *heap, const char **kind, size_t *kind_len, int64_t *bytes) {
  if (!p || strncmp(p, "HeapNum=", 8) != 0) return 0;
  const char *a = p + 8, *sp = strchr(a, ' ');
  if (!sp || !hp_digits(a, (size_t)(sp - a), heap) || strncmp(sp + 1, "Type=", 5) != 0) return 0;
  const char *k = sp + 6, *e = k;
  while ((*e >= 'A' && *e <= 'Z') || (*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9')) e++;
  if (e == k || strncmp(e, " Bytes=", 7) != 0) return 0;
  *kind = k;
  *kind_len = (size_t)(e - k);
  const char *b = e + 7;
  return hp_digits(b, strlen(b), bytes);
}

static int hp_is(const char *k, size_t n, const char *w) { return strlen(w) == n && memcmp(k, w, n) == 0; }

static int hp_add(int64_t *acc, int64_t v) { return __builtin_add_overflow(*acc, v, acc); }

/* One trace's marks into m (rows of trace tr). 0; 1 when the SQL path must
 * say it; -1 after a message. */
static int hp_trace(sqlite3 *db, int64_t tr, long pid, struct hp_map *m) {
  sqlite3_stmt *q;
  struct hp_gc *all = NULL, *bgc = NULL;
  size_t n = 0, nb = 0, cap = 0;
  int rc = 0;
  if (sqlite3_prepare_v2(db, "SELECT id, pid, gc_index, start_ns, end_ns, type = ?3 FROM gcs WHERE trace_id = ?1 "
                             "AND start_ns IS NOT NULL AND (?2 < 0 OR pid = ?2)", -1, &q, NULL) != SQLITE_OK) {
    fprintf(stderr, "gcscope " CMD ": database: %s\n", sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_int64(q, 1, tr);
  sqlite3_bind_int64(q, 2, pid);
  sqlite3_bind_int(q, 3, (int)GCS_GC_TYPE_BACKGROUND);
  int step;
  while ((step = sqlite3_step(q)) == SQLITE_ROW) {
    if (n == cap) {
      cap = cap ? cap * 2 : 1024;
      struct hp_gc *v = realloc(all, cap * sizeof *v);
      if (!v) { step = SQLITE_NOMEM; break; }
      all = v;
    }
    struct hp_gc *g = &all[n++];
    g->id = sqlite3_column_int64(q, 0);
    g->pid = sqlite3_column_int(q, 1);
    g->gc_index = sqlite3_column_int64(q, 2);
    g->start = sqlite3_column_int64(q, 3);
    g->has_end = sqlite3_column_type(q, 4) != SQLITE_NULL;
    g->end = sqlite3_column_int64(q, 4);
    if ((g->is_bgc = sqlite3_column_int(q, 5)) != 0) nb++;
    /* the pid, gc_index or start of a hand-made row that is no integer: SQL says */
    if (sqlite3_column_type(q, 1) != SQLITE_INTEGER || sqlite3_column_type(q, 2) != SQLITE_INTEGER ||
        sqlite3_column_type(q, 3) != SQLITE_INTEGER || (g->has_end && sqlite3_column_type(q, 4) != SQLITE_INTEGER))
      rc = 1;
  }
  sqlite3_finalize(q);
  if (step != SQLITE_DONE) {
    fprintf(stderr, "gcscope " CMD ": %s\n", step == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    free(all);
    return -1;
  }
  if (rc) { free(all); return 1; }
  if (n) qsort(all, n, sizeof *all, hp_gc_cmp);
  /* the background GCs, in the same order */
  if (nb && !(bgc = malloc(nb * sizeof *bgc))) {
    free(all);
    fprintf(stderr, "gcscope " CMD ": out of memory\n");
    return -1;
  }
  nb = 0;
  for (size_t i = 0; i < n; i++)
    if (all[i].is_bgc) bgc[nb++] = all[i];
  char err[600];
  sqlite3_stmt *s = gcs_gcdb_events_prepare(db, tr, "e.ts_ns, e.pid, e.payload",
                                            "e.name = 'GCMarkWithType' AND (?2 < 0 OR e.pid = ?2)", NULL, err,
                                            sizeof err);
  if (!s) {
    fprintf(stderr, "gcscope " CMD ": %s\n", err);
    free(all); free(bgc);
    return -1;
  }
  sqlite3_bind_int64(s, 2, pid);
  while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
    int64_t ts = sqlite3_column_int64(s, 0), heap, bytes;
    int32_t mpid = sqlite3_column_int(s, 1);
    const char *kind;
    size_t kl;
    if (sqlite3_column_type(s, 0) != SQLITE_INTEGER || sqlite3_column_type(s, 1) != SQLITE_INTEGER ||
        sqlite3_column_int64(s, 1) != mpid ||
        !hp_parse((const char *)sqlite3_column_text(s, 2), &heap, &kind, &kl, &bytes)) {
      rc = 1;
      break;
    }
    const struct hp_gc *l = hp_latest(all, n, mpid, ts), *b = hp_latest(bgc, nb, mpid, ts), *g = NULL;
    if (hp_contains(l, ts)) g = l;
    else if (hp_contains(b, ts)) g = b;
    if (!g) continue;   /* in no GC: left out (gc_index IS NULL) */
    struct hp_sum *h = hp_slot(m, mpid, g->gc_index, heap);
    if (!h) { rc = -1; fprintf(stderr, "gcscope " CMD ": out of memory\n"); break; }
    int64_t *bucket = hp_is(kind, kl, "Stack") ? &h->stack
                      : hp_is(kind, kl, "Finalizer") || hp_is(kind, kl, "NewFQ") ? &h->finalize_queue
                      : hp_is(kind, kl, "Handle") || hp_is(kind, kl, "DependentHandle") || hp_is(kind, kl, "SizedRef")
                          ? &h->handles
                      : hp_is(kind, kl, "Older") ? &h->older
                                                 : &h->other;
    if (hp_add(bucket, bytes) || hp_add(&h->total, bytes)) { rc = 1; break; }
    if (ts > h->max_ts) h->max_ts = ts;
    if (g->start < h->min_start) h->min_start = g->start;
  }
  if (rc == 0 && step != SQLITE_DONE) {
    fprintf(stderr, "gcscope " CMD ": %s\n", sqlite3_errmsg(db));
    rc = -1;
  }
  sqlite3_finalize(s);
  free(all);
  free(bgc);
  return rc;
}

/* temp.ins_heaps_h: h's rows for the input. 0; 1 when the SQL path must say
 * them; -1 after a message. */
static int hp_fill(sqlite3 *db, long pid) {
  if (sqlite3_exec(db, "DROP TABLE IF EXISTS temp.ins_heaps_h; CREATE TEMP TABLE ins_heaps_h (trace_id, pid, "
                       "gc_index, heap, stack, finalize_queue, handles, older, other, total, mark_ns)",
                   NULL, NULL, NULL) != SQLITE_OK) {
    fprintf(stderr, "gcscope " CMD ": database: %s\n", sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_stmt *t, *ins;
  if (sqlite3_prepare_v2(db, "SELECT id FROM temp.input_traces ORDER BY id", -1, &t, NULL) != SQLITE_OK) {
    fprintf(stderr, "gcscope " CMD ": database: %s\n", sqlite3_errmsg(db));
    return -1;
  }
  if (sqlite3_prepare_v2(db, "INSERT INTO temp.ins_heaps_h VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)", -1,
                         &ins, NULL) != SQLITE_OK) {
    fprintf(stderr, "gcscope " CMD ": database: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(t);
    return -1;
  }
  int rc = 0;
  sqlite3_exec(db, "SAVEPOINT ins_heaps", NULL, NULL, NULL);
  while (rc == 0 && sqlite3_step(t) == SQLITE_ROW) {
    int64_t tr = sqlite3_column_int64(t, 0);
    struct hp_map m = { 0 };
    rc = hp_trace(db, tr, pid, &m);
    for (size_t i = 0; rc == 0 && i < m.cap; i++) {
      const struct hp_sum *h = &m.v[i];
      if (!h->used) continue;
      int64_t mark_ns;
      if (__builtin_sub_overflow(h->max_ts, h->min_start, &mark_ns)) { rc = 1; break; }
      const int64_t row[] = { tr, h->pid, h->gc_index, h->heap, h->stack, h->finalize_queue, h->handles,
                              h->older, h->other, h->total, mark_ns };
      for (int c = 0; c < 11; c++) sqlite3_bind_int64(ins, c + 1, row[c]);
      if (sqlite3_step(ins) != SQLITE_DONE) {
        fprintf(stderr, "gcscope " CMD ": database: %s\n", sqlite3_errmsg(db));
        rc = -1;
      }
      sqlite3_reset(ins);
    }
    free(m.v);
  }
  sqlite3_finalize(t);
  sqlite3_finalize(ins);
  sqlite3_exec(db, "RELEASE ins_heaps", NULL, NULL, NULL);
  return rc;
}

#define H_FROM_TEMP "WITH h AS (SELECT * FROM temp.ins_heaps_h) "
static const char SQL_FAST[] = H_FROM_TEMP
    "SELECT trace_id, pid, gc_index, heap, stack, finalize_queue, handles, older, other, total, "
    " round(max(total) OVER w * 1.0 / nullif(avg(total) OVER w, 0), 3) AS imbalance "
    "FROM h WINDOW w AS (PARTITION BY trace_id, pid, gc_index) ORDER BY trace_id, pid, gc_index, heap";
static const char SUMMARY_FAST[] = H_FROM_TEMP
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
  int fast = hp_fill(db, o.pid);
  if (fast < 0) {
    gcs_input_close(&in);
    return 1;
  }
  if (fast == 0) {   /* h made in C (above) */
    snprintf(sql, sizeof sql, "%s", SQL_FAST);
    snprintf(sum, sizeof sum, "%s", SUMMARY_FAST);
  } else {           /* the marks through SQL (MARKS_CTE) */
    snprintf(sql, sizeof sql, SQL_FMT, (int)GCS_GC_TYPE_BACKGROUND);
    snprintf(sum, sizeof sum, SUMMARY_FMT, (int)GCS_GC_TYPE_BACKGROUND);
  }
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
