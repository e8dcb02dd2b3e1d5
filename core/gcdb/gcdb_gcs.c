/* gcdb_gcs.c — the one loader of GC rows and pauses (see gcs_gcdb.h). */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_enums.h"
#include "gcs_gcdb.h"
#include "gcs_tables.h"

#define GCS_GCDB_R_NAME(Col) #Col,
static const char *const real_names[GCS_GCDB_NREALS] = {GCS_GCDB_REALS(GCS_GCDB_R_NAME)};
#undef GCS_GCDB_R_NAME

#define GCS_GCDB_CR_NAME(Idx, Col, Hdr) #Col,
static const char *const condemned_names[GCS_CONDEMN_GROUP_COUNT] = {GCS_CONDEMN_GROUPS(GCS_GCDB_CR_NAME)};
#undef GCS_GCDB_CR_NAME

const char *gcs_gcdb_real_name(int r) { return r >= 0 && r < GCS_GCDB_NREALS ? real_names[r] : NULL; }

int gcs_gcdb_real_index(const char *col) {
  for (int r = 0; r < GCS_GCDB_NREALS; r++)
    if (strcmp(real_names[r], col) == 0) return r;
  return -1;
}

/* How gcs_base stores each real column (gcs_tables.h, "Compact tables"): the
 * loader reads gcs_base itself and divides E6 integers here, which costs
 * less than the view's CASE per value (the export and stats read every GC). */
struct gcs_col { const char *name, *type, *unit; };
#define GCS_GCDB_COL(N, T, U, ...) {#N, T, U},
static const struct gcs_col gcs_cols[] = {GCS_COLS_gcs(GCS_GCDB_COL)};
#undef GCS_GCDB_COL
static enum gcs_store store_of(const char *name) {
  for (size_t i = 0; i < sizeof gcs_cols / sizeof gcs_cols[0]; i++)
    if (strcmp(gcs_cols[i].name, name) == 0) return gcs_compact_store("gcs", name, gcs_cols[i].type, gcs_cols[i].unit);
  return GCS_STORE_PLAIN;
}

int gcs_gcdb_compact(sqlite3 *db) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE (type = 'view' AND name = 'gcs') OR "
                             "(type = 'table' AND name = 'gcs_base')", -1, &s, NULL) != SQLITE_OK)
    return 0;
  int yes = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == 2;
  sqlite3_finalize(s);
  return yes;
}

/* Result columns that are always read, in this order. */
enum { C_ID, C_TRACE, C_PID, C_GC_INDEX, C_LIST_INDEX, C_GEN, C_TYPE, C_REASON, C_COMPLETE, C_PHH, C_GEN_NAME,
       C_REASON_NAME, C_START_NS, C_END_NS, C_SUSPEND_BEGIN_NS, C_RESTART_END_NS, C_HEAP_STATS_NS,
       C_BGC_PREP_SUSPEND_BEGIN_NS, C_BGC_PREP_RESTART_END_NS, C_FIXED };

struct sqlbuf { char *s; size_t len, cap; int oom; };

#define ROW_FN "gcs_gcdb_row"

static void sql_append(struct sqlbuf *b, const char *text) {
  size_t l = strlen(text);
  if (b->oom) return;
  if (b->len + l + 1 > b->cap) {
    size_t nc = (b->cap ? b->cap * 2 : 2048) + l;
    char *n = realloc(b->s, nc);
    if (!n) {
      b->oom = 1;
      return;
    }
    b->s = n;
    b->cap = nc;
  }
  memcpy(b->s + b->len, text, l + 1);
  b->len += l;
}

/* The SELECT for q; *real_at[r] / *cr_at / *hh_at: result column of each
 * part (-1 when not read). */
static char *build_select(const struct gcs_gcdb_query *q, int as_fn, int compact, int real_at[GCS_GCDB_NREALS],
                          unsigned char real_e6[GCS_GCDB_NREALS], int *cr_at, int *hh_at) {
  struct sqlbuf b = {0};
  if (as_fn) sql_append(&b, "SELECT " ROW_FN "(:state, ");
  else sql_append(&b, "SELECT ");
  if (!compact)
    sql_append(&b, "g.id, g.trace_id, g.pid, g.gc_index, g.list_index, g.gen, g.type, g.reason, g.complete, "
            "coalesce(g.phh_count, 0), g.gen_name, g.reason_name, g.start_ns, g.end_ns, g.suspend_begin_ns, "
            "g.restart_end_ns, g.heap_stats_ns, g.bgc_prep_suspend_begin_ns, g.bgc_prep_restart_end_ns");
  else   /* gcs_base: the event times but start_ns are offsets from it */
    sql_append(&b, "g.id, g.trace_id, g.pid, g.gc_index, g.list_index, g.gen, g.type, g.reason, g.complete, "
            "coalesce(g.phh_count, 0), g.gen_name, g.reason_name, g.start_ns, g.end_ns + " GCS_COMPACT_TIME_BASE("g") ", "
            "g.suspend_begin_ns + " GCS_COMPACT_TIME_BASE("g") ", g.restart_end_ns + " GCS_COMPACT_TIME_BASE("g") ", "
            "g.heap_stats_ns + " GCS_COMPACT_TIME_BASE("g") ", g.bgc_prep_suspend_begin_ns + " GCS_COMPACT_TIME_BASE("g") ", "
            "g.bgc_prep_restart_end_ns + " GCS_COMPACT_TIME_BASE("g") "");
  int at = C_FIXED;
  for (int r = 0; r < GCS_GCDB_NREALS; r++) {
    real_at[r] = -1;
    if (!(q->reals & (UINT64_C(1) << r))) continue;
    real_at[r] = at++;
    enum gcs_store k = compact ? store_of(real_names[r]) : GCS_STORE_PLAIN;
    real_e6[r] = k == GCS_STORE_E6;
    sql_append(&b, ", g.");
    sql_append(&b, real_names[r]);
    if (k == GCS_STORE_DELTA_NS) sql_append(&b, " + " GCS_COMPACT_TIME_BASE("g") "");
  }
  *cr_at = *hh_at = -1;
  if (q->parts & GCS_GCDB_CONDEMNED) {
    *cr_at = at;
    at += GCS_CONDEMN_GROUP_COUNT;
    for (int i = 0; i < GCS_CONDEMN_GROUP_COUNT; i++) {
      char packed[48];
      snprintf(packed, sizeof packed, ", (g.condemned >> %d) & 3", 2 * i);
      if (compact) sql_append(&b, packed);
      else {
        sql_append(&b, ", g.");
        sql_append(&b, condemned_names[i]);
      }
    }
  }
  if (q->parts & GCS_GCDB_HEAP_HISTORY) {
    /* gen2 fragmentation before the GC over every heap; condemned
     * conditions (CondemnReasons1) of every heap, OR-ed by the reader. */
    *hh_at = at;
    sql_append(&b, ", (SELECT CASE WHEN sum(h.size_before) > 0 THEN "
            "sum(h.free_list_before + h.free_obj_before) * 100.0 / sum(h.size_before) END "
            "FROM gc_heap_gens h WHERE h.gc_id = g.id AND h.gen = :gen2), "
            "(SELECT group_concat(coalesce(x.condemn_reasons1, 0)) FROM gc_heaps x WHERE x.gc_id = g.id), "
            /* issue 26: the pinned share of gen0-gen2's survivors, over every heap; the pinned plugs */
            "(SELECT CASE WHEN sum(h.pinned_surv + h.non_pinned_surv) > 0 THEN "
            "sum(h.pinned_surv) * 100.0 / sum(h.pinned_surv + h.non_pinned_surv) END "
            "FROM gc_heap_gens h WHERE h.gc_id = g.id AND h.gen <= :gen2), g.pinned_plug_bytes");
  }
  /* Only the clauses in use, so the planner picks the (trace_id, pid) index. */
  if (as_fn) sql_append(&b, ")");
  sql_append(&b, compact ? " FROM gcs_base g WHERE 1" : " FROM gcs g WHERE 1");
  if (q->trace_id >= 0) sql_append(&b, " AND g.trace_id = :trace");
  if (q->pid >= 0) sql_append(&b, " AND g.pid = :pid");
  if (q->complete_only) sql_append(&b, " AND g.complete = 1");
  if (q->after_id >= 0) sql_append(&b, " AND g.id > :after");
  sql_append(&b, q->trace_id >= 0 && q->pid >= 0 ? " ORDER BY g.list_index, g.id" : " ORDER BY g.id");
  if (q->limit > 0) sql_append(&b, " LIMIT :limit");
  if (b.oom) {
    free(b.s);
    return NULL;
  }
  return b.s;
}

/* A row's values: the arguments of ROW_FN, or the statement's columns. */
static double col_real(sqlite3_value **v, int i) {
  return sqlite3_value_type(v[i]) == SQLITE_NULL ? NAN : sqlite3_value_double(v[i]);
}
double gcs_gcdb_e6(sqlite3_stmt *s, int i) {
  int t = sqlite3_column_type(s, i);
  if (t == SQLITE_INTEGER) return (double)sqlite3_column_int64(s, i) / 1e6;
  return t == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}
/* An E6 column of gcs_base: an integer count of 10^-6, or the REAL. */
static double col_e6(sqlite3_value **v, int i) {
  int t = sqlite3_value_type(v[i]);
  if (t == SQLITE_INTEGER) return (double)sqlite3_value_int64(v[i]) / 1e6;
  return t == SQLITE_NULL ? NAN : sqlite3_value_double(v[i]);
}
/* An event time; *set gets bit when it is not NULL. */
static uint64_t col_ns(sqlite3_value **v, int i, unsigned *set, unsigned bit) {
  if (sqlite3_value_type(v[i]) == SQLITE_NULL) return 0;
  *set |= bit;
  return (uint64_t)sqlite3_value_int64(v[i]);
}
static void col_text(sqlite3_value **v, int i, char *buf, size_t n) {
  const unsigned char *t = sqlite3_value_text(v[i]);
  size_t l = t ? (size_t)sqlite3_value_bytes(v[i]) : 0;
  if (l >= n) l = n - 1;
  if (l) memcpy(buf, t, l);
  buf[l] = 0;
}

static void bind_named(sqlite3_stmt *s, const char *name, int64_t v) {
  int i = sqlite3_bind_parameter_index(s, name);
  if (i > 0) sqlite3_bind_int64(s, i, v);
}

/* The names of the columns read_row reads, for the error of a damaged row. */
static const char *const fixed_names[C_FIXED] = {
  "id", "trace_id", "pid", "gc_index", "list_index", "gen", "type", "reason", "complete", "phh_count", "gen_name",
  "reason_name", "start_ns", "end_ns", "suspend_begin_ns", "restart_end_ns", "heap_stats_ns",
  "bgc_prep_suspend_begin_ns", "bgc_prep_restart_end_ns"};

/* A number column holding text or a blob (a database edited or crafted by
 * hand): SQLite would read it as 0, a silently wrong figure. Returns the
 * first such column's name, or NULL; *kind: "text" or "a blob". */
static int not_number(sqlite3_value *v) {
  int t = sqlite3_value_type(v);
  return t == SQLITE_TEXT || t == SQLITE_BLOB;
}
static const char *bad_column(sqlite3_value **s, const int real_at[GCS_GCDB_NREALS], int cr_at, int hh_at,
                              const char **kind) {
  const char *name = NULL;
  int at = -1;
  for (int i = 0; i < C_FIXED && !name; i++)
    if (i != C_GEN_NAME && i != C_REASON_NAME && not_number(s[i])) name = fixed_names[at = i];
  for (int r = 0; r < GCS_GCDB_NREALS && !name; r++)
    if (real_at[r] >= 0 && not_number(s[real_at[r]])) name = real_names[r], at = real_at[r];
  for (int i = 0; cr_at >= 0 && i < GCS_CONDEMN_GROUP_COUNT && !name; i++)
    if (not_number(s[cr_at + i])) name = condemned_names[i], at = cr_at + i;
  if (hh_at >= 0 && !name) {
    if (not_number(s[hh_at])) name = "gen2 fragmentation (gc_heap_gens)", at = hh_at;
    else if (not_number(s[hh_at + 2])) name = "pinned survival (gc_heap_gens)", at = hh_at + 2;
    else if (not_number(s[hh_at + 3])) name = "pinned_plug_bytes", at = hh_at + 3;
  }
  if (name) *kind = sqlite3_value_type(s[at]) == SQLITE_TEXT ? "text" : "a blob";
  return name;
}

static void read_row(sqlite3_value **s, const int real_at[GCS_GCDB_NREALS], const unsigned char real_e6[GCS_GCDB_NREALS],
                     int cr_at, int hh_at, struct gcs_gcdb_gc *g) {
  g->id = sqlite3_value_int64(s[C_ID]);
  g->trace_id = sqlite3_value_int64(s[C_TRACE]);
  g->pid = sqlite3_value_int(s[C_PID]);
  g->gc_index = (uint32_t)sqlite3_value_int64(s[C_GC_INDEX]);
  g->list_index = sqlite3_value_int(s[C_LIST_INDEX]);
  g->gen = (uint32_t)sqlite3_value_int(s[C_GEN]);
  g->type = (uint32_t)sqlite3_value_int(s[C_TYPE]);
  g->reason = (uint32_t)sqlite3_value_int(s[C_REASON]);
  g->complete = sqlite3_value_int(s[C_COMPLETE]);
  g->phh_count = sqlite3_value_int(s[C_PHH]);
  col_text(s, C_GEN_NAME, g->gen_name, sizeof g->gen_name);
  col_text(s, C_REASON_NAME, g->reason_name, sizeof g->reason_name);
  unsigned set = 0;
  g->start_ns = col_ns(s, C_START_NS, &set, GCS_GCDB_HAS_START);
  g->end_ns = col_ns(s, C_END_NS, &set, GCS_GCDB_HAS_END);
  g->suspend_begin_ns = col_ns(s, C_SUSPEND_BEGIN_NS, &set, GCS_GCDB_HAS_SUSPEND_BEGIN);
  g->restart_end_ns = col_ns(s, C_RESTART_END_NS, &set, GCS_GCDB_HAS_RESTART_END);
  g->heap_stats_ns = col_ns(s, C_HEAP_STATS_NS, &set, GCS_GCDB_HAS_HEAP_STATS);
  g->bgc_prep_suspend_begin_ns = col_ns(s, C_BGC_PREP_SUSPEND_BEGIN_NS, &set, GCS_GCDB_HAS_BGC_PREP_SUSPEND_BEGIN);
  g->bgc_prep_restart_end_ns = col_ns(s, C_BGC_PREP_RESTART_END_NS, &set, GCS_GCDB_HAS_BGC_PREP_RESTART_END);
  g->ns_set = set;
  for (int r = 0; r < GCS_GCDB_NREALS; r++)
    g->real[r] = real_at[r] < 0 ? NAN : real_e6[r] ? col_e6(s, real_at[r]) : col_real(s, real_at[r]);
  memset(g->condemned, 0, sizeof g->condemned);
  if (cr_at >= 0)
    for (int i = 0; i < GCS_CONDEMN_GROUP_COUNT; i++) g->condemned[i] = (uint8_t)sqlite3_value_int(s[cr_at + i]);
  g->gen2_frag_before_pct = g->pinned_surv_pct = g->pinned_plug_bytes = NAN;
  g->condemn_conditions = 0;
  if (hh_at >= 0) {
    g->gen2_frag_before_pct = col_real(s, hh_at);
    g->pinned_surv_pct = col_real(s, hh_at + 2);
    g->pinned_plug_bytes = col_real(s, hh_at + 3);
    const char *c = (const char *)sqlite3_value_text(s[hh_at + 1]);
    while (c && *c) {
      char *end;
      g->condemn_conditions |= (uint32_t)strtoul(c, &end, 10);
      c = *end == ',' ? end + 1 : NULL;
    }
  }
}

/* One gcs_gcdb_each: the row callback and where each part of a row is. */
struct each_state {
  int real_at[GCS_GCDB_NREALS], cr_at, hh_at;
  unsigned char real_e6[GCS_GCDB_NREALS];
  int (*row)(const struct gcs_gcdb_gc *g, void *ctx);
  void *ctx;
  int stop;
  struct gcs_gcdb_gc g;
  /* A damaged row: its column, what it holds, its GC. */
  const char *bad, *bad_kind;
  int64_t bad_gc, bad_pid;
};

/* 1 (and st->bad set, st->stop -1) when the row has text where a number belongs. */
static int damaged(struct each_state *st, sqlite3_value **s) {
  st->bad = bad_column(s, st->real_at, st->cr_at, st->hh_at, &st->bad_kind);
  if (!st->bad) return 0;
  st->bad_gc = sqlite3_value_int64(s[C_GC_INDEX]);
  st->bad_pid = sqlite3_value_int64(s[C_PID]);
  st->stop = -1;
  return 1;
}

/* ROW_FN(:state, columns...): the row as the arguments of an SQL function.
 * SQLite passes its registers, which costs much less per value than
 * sqlite3_column_*() (a third of the load at 100,000 GCs). The state comes
 * bound as a pointer, so nested loads on one connection do not meet. */
static void row_fn(sqlite3_context *cx, int argc, sqlite3_value **argv) {
  struct each_state *st = argc > 0 ? sqlite3_value_pointer(argv[0], ROW_FN) : NULL;
  if (!st || st->stop) return;
  if (damaged(st, argv + 1)) return;
  read_row(argv + 1, st->real_at, st->real_e6, st->cr_at, st->hh_at, &st->g);
  st->stop = st->row(&st->g, st->ctx);
  (void)cx;
}

/* ROW_FN on this connection: 1, or 0 when it cannot be had (then columns are read). */
static int have_row_fn(sqlite3 *db) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT " ROW_FN "(NULL)", -1, &s, NULL) == SQLITE_OK) {
    sqlite3_finalize(s);
    return 1;
  }
#ifndef SQLITE_DIRECTONLY
#define SQLITE_DIRECTONLY 0   /* SQLite < 3.30: no such flag */
#endif
  return sqlite3_create_function(db, ROW_FN, -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL, row_fn, NULL, NULL) ==
         SQLITE_OK;
}

int gcs_gcdb_each(sqlite3 *db, const struct gcs_gcdb_query *q,
                  int (*row)(const struct gcs_gcdb_gc *g, void *ctx), void *ctx, char *err, size_t errlen) {
  struct each_state st = {.row = row, .ctx = ctx};
  int as_fn = have_row_fn(db);
  char *sql = build_select(q, as_fn, gcs_gcdb_compact(db), st.real_at, st.real_e6, &st.cr_at, &st.hh_at);
  if (!sql) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  sqlite3_stmt *s;
  int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
  free(sql);
  if (rc != SQLITE_OK) {
    snprintf(err, errlen, "cannot read the gcs table (%s)", sqlite3_errmsg(db));
    return -1;
  }
  if (as_fn && sqlite3_bind_pointer(s, sqlite3_bind_parameter_index(s, ":state"), &st, ROW_FN, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "cannot read the gcs table (%s)", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return -1;
  }
  bind_named(s, ":trace", q->trace_id);
  bind_named(s, ":pid", q->pid);
  bind_named(s, ":after", q->after_id);
  bind_named(s, ":limit", q->limit);
  bind_named(s, ":gen2", GCS_GEN2);
  int ncol = sqlite3_column_count(s);
  sqlite3_value *cols[C_FIXED + GCS_GCDB_NREALS + GCS_CONDEMN_GROUP_COUNT + 4];
  if (!as_fn && ncol > (int)(sizeof cols / sizeof cols[0])) ncol = 0;
  while (!st.stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (as_fn) continue;   /* row_fn read it */
    for (int i = 0; i < ncol; i++) cols[i] = sqlite3_column_value(s, i);
    if (damaged(&st, cols)) break;
    read_row(cols, st.real_at, st.real_e6, st.cr_at, st.hh_at, &st.g);
    st.stop = row(&st.g, ctx);
  }
  if (st.bad)
    snprintf(err, errlen, "damaged database: GC #%lld of pid %lld: %s holds %s, not a number",
             (long long)st.bad_gc, (long long)st.bad_pid, st.bad, st.bad_kind);
  else if (!st.stop && rc != SQLITE_DONE) {
    snprintf(err, errlen, "cannot read the gcs table (%s)", sqlite3_errmsg(db));
    st.stop = -1;
  }
  sqlite3_finalize(s);
  return st.stop;
}

struct collect { struct gcs_gcdb_gc *v; size_t n, cap; };

static int collect_row(const struct gcs_gcdb_gc *g, void *ctx) {
  struct collect *c = ctx;
  if (c->n == c->cap) {
    size_t nc = c->cap ? c->cap * 2 : 64;
    struct gcs_gcdb_gc *v = realloc(c->v, nc * sizeof *v);
    if (!v) return 1;
    c->v = v;
    c->cap = nc;
  }
  c->v[c->n++] = *g;
  return 0;
}

int gcs_gcdb_load(sqlite3 *db, const struct gcs_gcdb_query *q, struct gcs_gcdb_gc **out, size_t *n, char *err,
                  size_t errlen) {
  struct collect c = {0};
  int rc = gcs_gcdb_each(db, q, collect_row, &c, err, errlen);
  if (rc > 0) snprintf(err, errlen, "out of memory");
  if (rc) {
    free(c.v);
    *out = NULL;
    *n = 0;
    return -1;
  }
  *out = c.v;
  *n = c.n;
  return 0;
}

int gcs_gcdb_pauses(sqlite3 *db, int64_t trace_id, int32_t pid, struct gcs_gcdb_pause **out, size_t *n, char *err,
                    size_t errlen) {
  static const char sql[] =
      "SELECT gc_index, kind = 'bgc_final', start_ns, end_ns FROM gc_pauses WHERE trace_id = ?1 AND pid = ?2";
  *out = NULL;
  *n = 0;
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "cannot read the GC pauses (%s)", sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_int64(s, 1, trace_id);
  sqlite3_bind_int(s, 2, pid);
  size_t cap = 0;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (*n == cap) {
      size_t nc = cap ? cap * 2 : 64;
      struct gcs_gcdb_pause *v = realloc(*out, nc * sizeof *v);
      if (!v) break;
      *out = v;
      cap = nc;
    }
    (*out)[(*n)++] = (struct gcs_gcdb_pause){(uint32_t)sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1),
                                             sqlite3_column_int64(s, 2), sqlite3_column_int64(s, 3)};
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) {
    if (rc == SQLITE_ROW) snprintf(err, errlen, "out of memory");
    else snprintf(err, errlen, "cannot read the GC pauses (%s)", sqlite3_errmsg(db));
    free(*out);
    *out = NULL;
    *n = 0;
    return -1;
  }
  return 0;
}

void gcs_gcdb_pauses_of(const struct gcs_gcdb_gc *g, struct gcs_gcdb_pause *out, size_t *n) {
  /* gc_pauses: a complete GC's coalesce(suspend_begin_ns, start_ns) ..
   * restart_end_ns, both not NULL; and a background GC's prep suspend ..
   * prep restart. */
  if (!g->complete) return;
  if ((g->ns_set & GCS_GCDB_HAS_RESTART_END) && (g->ns_set & (GCS_GCDB_HAS_SUSPEND_BEGIN | GCS_GCDB_HAS_START)))
    out[(*n)++] = (struct gcs_gcdb_pause){g->gc_index, 0,
                                          (int64_t)(g->ns_set & GCS_GCDB_HAS_SUSPEND_BEGIN ? g->suspend_begin_ns
                                                                                            : g->start_ns),
                                          (int64_t)g->restart_end_ns};
  const unsigned prep = GCS_GCDB_HAS_BGC_PREP_SUSPEND_BEGIN | GCS_GCDB_HAS_BGC_PREP_RESTART_END;
  if (g->type == GCS_GC_TYPE_BACKGROUND && (g->ns_set & prep) == prep)
    out[(*n)++] = (struct gcs_gcdb_pause){g->gc_index, 1, (int64_t)g->bgc_prep_suspend_begin_ns,
                                          (int64_t)g->bgc_prep_restart_end_ns};
}
