/*
 * recon_store.c — gcs_recon_store(): writes the reconstructed GCs into the
 * tables of schemas/tables_gc.def with prepared statements. Parameter numbers
 * and the binding of every column (its Bind entry: which member, as what)
 * come from the same X-macro lists as the tables (parameter 1 is the key
 * column, then the columns in order), so the binding cannot drift from the
 * schema. NaN / infinite figures and unseen timestamps are written as NULL.
 * The caller owns the transaction (and creates the tables).
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_tables.h"
#include "recon_internal.h"

#define P_gcs(N, T, U, D, B) P_gcs_##N,
#define P_gens(N, T, U, D, B) P_gens_##N,
#define P_heaps(N, T, U, D, B) P_heaps_##N,
#define P_hgens(N, T, U, D, B) P_hgens_##N,
#define P_waits(N, T, U, D, B) P_waits_##N,
#define P_sum(N, T, U, D, B) P_sum_##N,
#define P_marks(N, T, U, D, B) P_marks_##N,
#define P_lohc(N, T, U, D, B) P_lohc_##N,
#define P_fit(N, T, U, D, B) P_fit_##N,
#define P_dsam(N, T, U, D, B) P_dsam_##N,
#define P_dtun(N, T, U, D, B) P_dtun_##N,
#define P_dg2(N, T, U, D, B) P_dg2_##N,
#define P_dhs(N, T, U, D, B) P_dhs_##N,
#define P_dht(N, T, U, D, B) P_dht_##N,
enum { P_gcs_key = 1, GCS_COLS_gcs(P_gcs) P_gcs_end };
enum { P_gens_key = 1, GCS_COLS_gc_gens(P_gens) P_gens_end };
enum { P_heaps_key = 1, GCS_COLS_gc_heaps(P_heaps) P_heaps_end };
enum { P_hgens_key = 1, GCS_COLS_gc_heap_gens(P_hgens) P_hgens_end };
enum { P_waits_key = 1, GCS_COLS_gc_loh_waits(P_waits) P_waits_end };
enum { P_sum_key = 1, GCS_COLS_gc_process_summary(P_sum) P_sum_end };
enum { P_marks_key = 1, GCS_COLS_gc_mark_times(P_marks) P_marks_end };
enum { P_lohc_key = 1, GCS_COLS_gc_loh_compact(P_lohc) P_lohc_end };
enum { P_fit_key = 1, GCS_COLS_gc_fit_buckets(P_fit) P_fit_end };
enum { P_dsam_key = 1, GCS_COLS_gc_datas_samples(P_dsam) P_dsam_end };
enum { P_dtun_key = 1, GCS_COLS_gc_datas_tunings(P_dtun) P_dtun_end };
enum { P_dg2_key = 1, GCS_COLS_gc_datas_gen2_tunings(P_dg2) P_dg2_end };
enum { P_dhs_key = 1, GCS_COLS_gc_datas_hc_samples(P_dhs) P_dhs_end };
enum { P_dht_key = 1, GCS_COLS_gc_datas_hc_tunings(P_dht) P_dht_end };

#define COLNAME(N, T, U, D, B) ", " #N
static const char *const sql_names[] = {
  "gcs (id" GCS_COLS_gcs(COLNAME) ")",
  "gc_gens (gc_id" GCS_COLS_gc_gens(COLNAME) ")",
  "gc_heaps (gc_id" GCS_COLS_gc_heaps(COLNAME) ")",
  "gc_heap_gens (gc_id" GCS_COLS_gc_heap_gens(COLNAME) ")",
  "gc_loh_waits (gc_id" GCS_COLS_gc_loh_waits(COLNAME) ")",
  "gc_process_summary (trace_id" GCS_COLS_gc_process_summary(COLNAME) ")",
  "gc_mark_times (gc_id" GCS_COLS_gc_mark_times(COLNAME) ")",
  "gc_loh_compact (gc_id" GCS_COLS_gc_loh_compact(COLNAME) ")",
  "gc_fit_buckets (gc_id" GCS_COLS_gc_fit_buckets(COLNAME) ")",
  "gc_datas_samples (gc_id" GCS_COLS_gc_datas_samples(COLNAME) ")",
  "gc_datas_tunings (gc_id" GCS_COLS_gc_datas_tunings(COLNAME) ")",
  "gc_datas_gen2_tunings (gc_id" GCS_COLS_gc_datas_gen2_tunings(COLNAME) ")",
  "gc_datas_hc_samples (gc_id" GCS_COLS_gc_datas_hc_samples(COLNAME) ")",
  "gc_datas_hc_tunings (gc_id" GCS_COLS_gc_datas_hc_tunings(COLNAME) ")",
};
static const int sql_nparams[] = { P_gcs_end - 1, P_gens_end - 1, P_heaps_end - 1,
                                   P_hgens_end - 1, P_waits_end - 1, P_sum_end - 1,
                                   P_marks_end - 1, P_lohc_end - 1, P_fit_end - 1,
                                   P_dsam_end - 1, P_dtun_end - 1, P_dg2_end - 1,
                                   P_dhs_end - 1, P_dht_end - 1 };
enum { ST_GCS, ST_GENS, ST_HEAPS, ST_HGENS, ST_WAITS, ST_SUM, ST_MARKS, ST_LOHC, ST_FIT,
       ST_DSAM, ST_DTUN, ST_DG2, ST_DHS, ST_DHT, ST_COUNT };

/* The per-GC tables with a rowid (gc_loh_waits, gc_loh_compact,
 * gc_fit_buckets, the DATAS tables): each row's rowid is given, from its
 * GC's id and its place among the GC's rows (row_key), so that their rowid
 * order, which sqlite3's .dump and an unordered SELECT follow, is by GC id,
 * then as the GC holds them, however often gcs_recon_store_final wrote and
 * in whatever order the processes' GCs became final (with SQLite choosing,
 * each row went after the last one inserted: with several processes, or a
 * background GC's waits written again, the order followed the store
 * cadence). Holding GCs back to write them in id order instead would tie
 * every process's memory to the slowest one's. The rowid is the last
 * parameter. */
static int has_row_key(int which) {
  return which == ST_WAITS || which == ST_LOHC || which == ST_FIT || which == ST_DSAM || which == ST_DTUN ||
         which == ST_DG2 || which == ST_DHS || which == ST_DHT;
}
#define ROW_KEY_SHIFT 32
/* gc_id * 2^32 + i (i below 2^31: a count of the GC's rows). NULL (SQLite
 * chooses: after the largest) for an id of 2^31 or more, which only a
 * database whose ids someone set by hand reaches. */
static void bind_row_key(sqlite3_stmt *s, int which, int64_t gc_id, int i) {
  int p = sql_nparams[which] + 1;
  if (gc_id >= 0 && gc_id < (INT64_C(1) << 31) && i >= 0)
    sqlite3_bind_int64(s, p, (gc_id << ROW_KEY_SHIFT) + i);
  else
    sqlite3_bind_null(s, p);
}

static int prepare(sqlite3 *db, int which, sqlite3_stmt **st) {
  if (which == ST_GCS || which == ST_GENS || which == ST_HEAPS || which == ST_HGENS) {   /* compact (gcs_tables.h) */
    char *ins = gcs_compact_insert_sql(which == ST_GCS ? GCS_COMPACT_GCS : which == ST_GENS ? GCS_COMPACT_GC_GENS :
                                       which == ST_HEAPS ? GCS_COMPACT_GC_HEAPS : GCS_COMPACT_GC_HEAP_GENS);
    if (!ins) return SQLITE_NOMEM;
    int rc = sqlite3_prepare_v2(db, ins, -1, st, NULL);
    free(ins);
    return rc;
  }
  char sql[8192];
  const char *name = sql_names[which];   /* "t (gc_id, ...)" */
  int n = has_row_key(which) ? snprintf(sql, sizeof sql, "INSERT INTO %.*s, rowid) VALUES (?", (int)strlen(name) - 1, name)
                             : snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (?", name);
  int nparams = sql_nparams[which] + has_row_key(which);
  for (int i = 1; i < nparams && n < (int)sizeof sql - 8; i++) n += snprintf(sql + n, sizeof sql - (size_t)n, ",?");
  snprintf(sql + n, sizeof sql - (size_t)n, ")");
  return sqlite3_prepare_v2(db, sql, -1, st, NULL);
}

/* A figure: NULL when PerfView would print NaN or Infinity. In a compact
 * table's E6 column (store) the integer count of 10^-6 when it reads back as
 * the very figure (gcs_e6_encode). */
static void bind_figure(sqlite3_stmt *st, int i, double v, enum gcs_store store) {
  if (!isfinite(v)) { sqlite3_bind_null(st, i); return; }
  if (store == GCS_STORE_E6) {
    int exact;
    long long n = gcs_e6_encode(v, &exact);
    if (exact) { sqlite3_bind_int64(st, i, n); return; }
  }
  sqlite3_bind_double(st, i, v);
}
static void bind_int(sqlite3_stmt *st, int i, int64_t v) { sqlite3_bind_int64(st, i, v); }
/* An absolute event time: NULL when the event was not seen (0); less base
 * (gcs' start_ns, 0 when not seen) in a DELTA_NS column. */
static void bind_event_time(sqlite3_stmt *st, int i, uint64_t v, uint64_t base) {
  if (v) sqlite3_bind_int64(st, i, (int64_t)(v - base));
  else sqlite3_bind_null(st, i);
}

static int step_and_reset(sqlite3_stmt *st) {
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* For the statements whose every parameter is bound for every row (gc_gens,
 * gc_heaps, gc_heap_gens: 9 rows of 10): no sqlite3_clear_bindings, 1.5 %
 * of the writing thread's instructions on the alloc-heavy trace. */
static int step_and_reset_all_bound(sqlite3_stmt *st) {
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The column binding of tables_gc.def's Bind entries: each column binds its
 * parameter p_ of statement s. */
#define B_INT(x) bind_int(s, p_, (int64_t)(x))
#define B_FIG(x) bind_figure(s, p_, (x), k_)
#define B_TIME(x) bind_event_time(s, p_, (x), k_ == GCS_STORE_DELTA_NS ? tbase_ : 0)
#define B_TEXT(x) sqlite3_bind_text(s, p_, (x), -1, SQLITE_TRANSIENT)
#define B_IF(cond, b) if (cond) b
/* k_: how the column is stored (gcs_compact_store: a constant the compiler
 * folds); tbase_: the base of gcs' DELTA_NS times. */
#define BIND_C(Table, P, N, T, U, B) \
  { const int p_ = P; const enum gcs_store k_ = gcs_compact_store(Table, #N, T, U); (void)k_; B; }
/* A folded table's (gc_gens, gc_heap_gens) generation k: its copy of each
 * per-generation column, ?(N + k * GCS_COMPACT_STRIDE). */
#define FOLD_P(Table, P, N, T, U) \
  ((P) + (gcs_compact_per_gen(Table, #N, gcs_compact_store(Table, #N, T, U)) ? (int)k * GCS_COMPACT_STRIDE : 0))
#define BIND_gcs(N, T, U, D, B) { const uint64_t tbase_ = tbase; (void)tbase_; BIND_C("gcs", P_gcs_##N, N, T, U, B) }
#define BIND_gens(N, T, U, D, B) BIND_C("gc_gens", FOLD_P("gc_gens", P_gens_##N, N, T, U), N, T, U, B)
#define BIND_heaps(N, T, U, D, B) BIND_C("gc_heaps", P_heaps_##N, N, T, U, B)
#define BIND_hgens(N, T, U, D, B) BIND_C("gc_heap_gens", FOLD_P("gc_heap_gens", P_hgens_##N, N, T, U), N, T, U, B)
/* An absent generation's copies: NULL. */
#define NULL_hgens(N, T, U, D, B) \
  if (gcs_compact_per_gen("gc_heap_gens", #N, gcs_compact_store("gc_heap_gens", #N, T, U))) \
    sqlite3_bind_null(s, FOLD_P("gc_heap_gens", P_hgens_##N, N, T, U));
#define BIND_waits(N, T, U, D, B) BIND_C("", P_waits_##N, N, T, U, B)
#define BIND_sum(N, T, U, D, B) BIND_C("", P_sum_##N, N, T, U, B)
#define BIND_marks(N, T, U, D, B) BIND_C("", P_marks_##N, N, T, U, B)
#define BIND_lohc(N, T, U, D, B) BIND_C("", P_lohc_##N, N, T, U, B)
#define BIND_fit(N, T, U, D, B) BIND_C("", P_fit_##N, N, T, U, B)
#define BIND_dsam(N, T, U, D, B) BIND_C("", P_dsam_##N, N, T, U, B)
#define BIND_dtun(N, T, U, D, B) BIND_C("", P_dtun_##N, N, T, U, B)
#define BIND_dg2(N, T, U, D, B) BIND_C("", P_dg2_##N, N, T, U, B)
#define BIND_dhs(N, T, U, D, B) BIND_C("", P_dhs_##N, N, T, U, B)
#define BIND_dht(N, T, U, D, B) BIND_C("", P_dht_##N, N, T, U, B)

/* gc_heap_gens.survival_pct: survivors * 100 / object space before, truncated
 * (0 when there was none). */
static int64_t recon_hgen_survival_pct(const struct gcs_gc_heap *hh, uint32_t k) {
  int64_t osb = (int64_t)hh->gen[k].size_before - (int64_t)hh->gen[k].free_list_before -
                (int64_t)hh->gen[k].free_obj_before;
  double out = (double)hh->gen[k].pinned_surv + (double)hh->gen[k].non_pinned_surv;
  return osb == 0 ? 0 : (int64_t)(out * 100.0 / (double)osb);
}

static int store_gc(sqlite3 *db, sqlite3_stmt **st, int64_t trace_id, int64_t id, const struct gcs_gc *g,
                    int64_t *row_id) {
  sqlite3_stmt *s = st[ST_GCS];
  char why[160], rbuf[16];
  const char *reason_name = gcs_map_name("gc_reason", g->reason);
  if (!reason_name) {
    snprintf(rbuf, sizeof rbuf, "%u", g->reason);
    reason_name = rbuf;
  }
  /* gcs' DELTA_NS times are offsets from start_ns, unless one would not fit
   * in 64 bits (a crafted trace's times): then the row's are absolute. */
  const uint64_t times[] = { g->suspend_begin_ns, g->suspend_end_ns, g->end_ns, g->restart_begin_ns,
                             g->restart_end_ns, g->heap_stats_ns, g->bgc_prep_suspend_begin_ns,
                             g->bgc_prep_restart_end_ns };
  uint64_t tbase = g->start_ns;
  for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
    int64_t d;
    if (times[i] && __builtin_sub_overflow((int64_t)times[i], (int64_t)g->start_ns, &d)) tbase = 0;
  }
  if (id > 0) sqlite3_bind_int64(s, P_gcs_key, id);
  else sqlite3_bind_null(s, P_gcs_key);
  GCS_COLS_gcs(BIND_gcs)
  /* The condemned-reasons groups packed (gcs_tables.h: each 0..3). */
  uint64_t cr = 0;
  for (int i = 0; i < GCS_CONDEMN_GROUP_COUNT; i++) cr |= (uint64_t)(g->condemned[i] & 3) << (2 * i);
  if (tbase == 0 && g->start_ns) cr |= UINT64_C(1) << GCS_COMPACT_ABS_TIMES;
  bind_int(s, GCS_COMPACT_CR_PARAM, (int64_t)cr);
  int rc = step_and_reset(s);
  if (rc) return rc;
  int64_t gc_id = sqlite3_last_insert_rowid(db);
  if (row_id) *row_id = gc_id;

  /* gc_gens and gc_heap_gens: one row of the five generations (gcs_tables.h). */
  if (g->has_heap_stats) {
    s = st[ST_GENS];
    bind_int(s, P_gens_key, gc_id);
    bind_int(s, GCS_COMPACT_GENS_PARAM, (1 << GCS_GENS) - 1);
    for (int k = 0; k < GCS_GENS; k++) {
      GCS_COLS_gc_gens(BIND_gens)
    }
    if ((rc = step_and_reset_all_bound(s))) return rc;
  }
  for (int h = 0; h < g->nheaps; h++) {
    const struct gcs_gc_heap *hh = &g->heaps[h];
    s = st[ST_HEAPS];
    bind_int(s, P_heaps_key, gc_id);
    GCS_COLS_gc_heaps(BIND_heaps)
    if ((rc = step_and_reset_all_bound(s))) return rc;
    if (hh->gen_count == 0) continue;
    s = st[ST_HGENS];
    bind_int(s, P_hgens_key, gc_id);
    bind_int(s, GCS_COMPACT_GENS_PARAM, (1 << hh->gen_count) - 1);
    for (uint32_t k = 0; k < GCS_GENS; k++) {
      if (k < hh->gen_count) {
        GCS_COLS_gc_heap_gens(BIND_hgens)
      } else {
        GCS_COLS_gc_heap_gens(NULL_hgens)
      }
    }
    if ((rc = step_and_reset_all_bound(s))) return rc;
  }
  /* issue 26: per-heap mark times, LOH compaction, fit buckets */
  s = st[ST_MARKS];
  for (int h = 0; g->mark_msec && g->mark_bytes && h < g->mark_heaps; h++)
    for (int k = 0; k < GCS_ROOT_KIND_N; k++) {
      if (isnan(g->mark_msec[h * GCS_ROOT_KIND_N + k])) continue;
      bind_int(s, P_marks_key, gc_id);
      GCS_COLS_gc_mark_times(BIND_marks)
      if ((rc = step_and_reset(s))) return rc;
    }
  s = st[ST_LOHC];
  for (int i = 0; i < g->nloh_compact; i++) {
    const struct gcs_loh_compact *lc = &g->loh_compact[i];
    bind_int(s, P_lohc_key, gc_id);
    bind_row_key(s, ST_LOHC, gc_id, i);
    GCS_COLS_gc_loh_compact(BIND_lohc)
    if ((rc = step_and_reset(s))) return rc;
  }
  s = st[ST_FIT];
  for (int i = 0; i < g->nfit_buckets; i++) {
    const struct gcs_fit_bucket *fb = &g->fit_buckets[i];
    bind_int(s, P_fit_key, gc_id);
    bind_row_key(s, ST_FIT, gc_id, i);
    GCS_COLS_gc_fit_buckets(BIND_fit)
    if ((rc = step_and_reset(s))) return rc;
  }
  s = st[ST_WAITS];
  for (int w = 0; w < g->nloh_waits; w++) {
    const struct gcs_loh_wait *lw = &g->loh_waits[w];
    bind_int(s, P_waits_key, gc_id);
    bind_row_key(s, ST_WAITS, gc_id, w);
    GCS_COLS_gc_loh_waits(BIND_waits)
    if ((rc = step_and_reset(s))) return rc;
  }
  for (int i = 0; i < g->ndyn_events; i++) {
    const struct gcs_dyn_event *de = &g->dyn_events[i];
    if (de->kind == gcs_kind_GCSizeAdaptationSample) {
      s = st[ST_DSAM];
      bind_int(s, P_dsam_key, gc_id);
      bind_row_key(s, ST_DSAM, gc_id, i);
      GCS_COLS_gc_datas_samples(BIND_dsam)
    } else if (de->kind == gcs_kind_GCSizeAdaptationTuning) {
      s = st[ST_DTUN];
      bind_int(s, P_dtun_key, gc_id);
      bind_row_key(s, ST_DTUN, gc_id, i);
      GCS_COLS_gc_datas_tunings(BIND_dtun)
    } else if (de->kind == gcs_kind_GCHeapCountSample) {
      s = st[ST_DHS];
      bind_int(s, P_dhs_key, gc_id);
      bind_row_key(s, ST_DHS, gc_id, i);
      GCS_COLS_gc_datas_hc_samples(BIND_dhs)
    } else if (de->kind == gcs_kind_GCHeapCountTuning) {
      s = st[ST_DHT];
      bind_int(s, P_dht_key, gc_id);
      bind_row_key(s, ST_DHT, gc_id, i);
      GCS_COLS_gc_datas_hc_tunings(BIND_dht)
    } else {
      s = st[ST_DG2];
      bind_int(s, P_dg2_key, gc_id);
      bind_row_key(s, ST_DG2, gc_id, i);
      GCS_COLS_gc_datas_gen2_tunings(BIND_dg2)
    }
    if ((rc = step_and_reset(s))) return rc;
  }
  return SQLITE_OK;
}

static int store_summary(sqlite3_stmt *s, int64_t trace_id, const struct gcs_proc_summary *p) {
  bind_int(s, P_sum_key, trace_id);
  GCS_COLS_gc_process_summary(BIND_sum)
  return step_and_reset(s);
}

/* The statements, prepared at the first store and kept until the last. */
struct recon_store {
  sqlite3_stmt *st[ST_COUNT];
  sqlite3_stmt *set_waits, *del_waits; /* rewrite_waits, prepared at its first use */
  int64_t id_base;              /* the largest gcs id before the trace's; -1: let SQLite choose */
};

/* A GC's gcs.id: the ids after those in the table before the trace, in
 * GCStart order over every process (recon_gc.seq): each process's in list
 * order, and the same whenever gcs_recon_store_final or gcs_recon_store
 * writes it. One process: list order, the ids SQLite gave them before
 * (max(id) + 1 each). 0 (SQLite chooses) past the last id SQLite can
 * give (a crafted database). */
static int64_t gc_id(const struct gcs_recon *r, const struct recon_gc *gc) {
  int64_t base = r->store->id_base;
  return base >= 0 && gc->seq < INT64_MAX - base ? base + gc->seq + 1 : 0;
}

static int store_open(struct gcs_recon *r, sqlite3 *db) {
  if (r->store) return SQLITE_OK;
  r->store = calloc(1, sizeof *r->store);
  if (!r->store) return SQLITE_NOMEM;
  int rc = SQLITE_OK;
  for (int i = 0; i < ST_COUNT && rc == SQLITE_OK; i++) rc = prepare(db, i, &r->store->st[i]);
  sqlite3_stmt *q = NULL;
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "SELECT max(id) FROM gcs_base", -1, &q, NULL);
  if (rc == SQLITE_OK) {
    int step = sqlite3_step(q);
    if (step != SQLITE_ROW) rc = step == SQLITE_DONE ? SQLITE_ERROR : step;
    else if (sqlite3_column_type(q, 0) == SQLITE_NULL) r->store->id_base = 0;
    else if (sqlite3_column_type(q, 0) == SQLITE_INTEGER) r->store->id_base = sqlite3_column_int64(q, 0);
    else r->store->id_base = -1;
  }
  sqlite3_finalize(q);
  q = NULL;
  /* Above the GC slot of every rowid of the per-GC tables (bind_row_key):
   * rows left there by GCs deleted by hand through the views (whose
   * triggers delete the gcs_base row only) would otherwise meet a new GC
   * of the same id, and its rows the same rowids. */
  if (rc == SQLITE_OK && r->store->id_base >= 0) {
    char sql[1024];
    int n = snprintf(sql, sizeof sql, "SELECT max(0");
    for (int i = 0; i < ST_COUNT; i++)
      if (has_row_key(i))
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", coalesce((SELECT max(rowid) FROM %.*s), 0) >> %d",
                      (int)strcspn(sql_names[i], " "), sql_names[i], ROW_KEY_SHIFT);
    snprintf(sql + n, sizeof sql - (size_t)n, ")");
    rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
    if (rc == SQLITE_OK) {
      int step = sqlite3_step(q);
      if (step != SQLITE_ROW) rc = step == SQLITE_DONE ? SQLITE_ERROR : step;
      else if (sqlite3_column_int64(q, 0) > r->store->id_base) r->store->id_base = sqlite3_column_int64(q, 0);
    }
    sqlite3_finalize(q);
  }
  if (rc != SQLITE_OK) recon_store_free(r);
  return rc;
}

void recon_store_free(struct gcs_recon *r) {
  if (!r->store) return;
  for (int i = 0; i < ST_COUNT; i++) sqlite3_finalize(r->store->st[i]);
  sqlite3_finalize(r->store->set_waits);
  sqlite3_finalize(r->store->del_waits);
  free(r->store);
  r->store = NULL;
}

#define FINAL_LAG RECON_FINAL_LAG

/* A GC that never completed (no done time: the first one of a trace that
 * began inside it, one whose suspension or restart was lost, one restarted
 * without GCHeapStats) stays open to the end, and gcs_recon_lost marks an
 * open GC; but its scan goes back from the newest GC only until it has
 * passed 16 GCs in a row done before the window, at a GC below the running
 * background GC. So a window still to come (beginning at or after the
 * horizon) cannot reach GC i once 16 GCs in a row after it, all below the
 * running background GC, are done before the horizon: the scan stops at
 * the lowest of them at the latest (a background GC that starts later is
 * newer than them; a GC's done time never changes). The run need not
 * follow GC i at once: another open GC between them is out of reach too.
 * And no event reaches a GC 16 older than the newest (the store's limit).
 * Nothing can change it any more but gcs_recon_finish's marks, which the
 * caller applies to the row it writes. */
static int open_out_of_reach(const struct recon_proc *p, int i, uint64_t horizon) {
  int run = 0;
  for (int k = i + 1; k < p->ngcs && (p->current_bgc < 0 || k < p->current_bgc); k++) {
    if (!p->gcs[k]->done_abs || p->gcs[k]->done_abs >= horizon) run = 0;
    else if (++run >= FINAL_LAG) return 1;
  }
  return 0;
}

/* A background GC written early that an allocation wait's end reached
 * since: its loh_wait_count and its gc_loh_waits rows as they are now (the
 * rows deleted and written again, in its waits' order). */
static int rewrite_waits(struct gcs_recon *r, sqlite3 *db, int64_t trace_id, struct recon_gc *gc) {
  if (!gc || !gc->rewrite) return SQLITE_OK;
  struct recon_store *k = r->store;
  int64_t id = gc->row_id;
  int rc = SQLITE_OK;
  if (!k->set_waits) rc = sqlite3_prepare_v2(db, "UPDATE gcs_base SET loh_wait_count = ?1 WHERE id = ?2", -1, &k->set_waits, NULL);
  if (rc == SQLITE_OK && !k->del_waits)
    rc = sqlite3_prepare_v2(db, "DELETE FROM gc_loh_waits WHERE gc_id = ?1", -1, &k->del_waits, NULL);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(k->set_waits, 1, gc->g.nloh_waits);
  sqlite3_bind_int64(k->set_waits, 2, id);
  if ((rc = step_and_reset(k->set_waits)) != SQLITE_OK) return rc;
  sqlite3_bind_int64(k->del_waits, 1, id);
  if ((rc = step_and_reset(k->del_waits)) != SQLITE_OK) return rc;
  sqlite3_stmt *s = k->st[ST_WAITS];
  const struct gcs_gc *g = &gc->g;
  for (int w = 0; w < g->nloh_waits; w++) {
    const struct gcs_loh_wait *lw = &g->loh_waits[w];
    bind_int(s, P_waits_key, id);
    bind_row_key(s, ST_WAITS, id, w);
    GCS_COLS_gc_loh_waits(BIND_waits)
    if ((rc = step_and_reset(s)) != SQLITE_OK) return rc;
  }
  gc->rewrite = 0;
  return SQLITE_OK;
}

/* Every written GC still held (the last one written; kept_bgc) whose
 * waits changed. */
static int rewrite_all(struct gcs_recon *r, sqlite3 *db, int64_t trace_id) {
  int rc = SQLITE_OK;
  for (int i = 0; i < r->nprocs && rc == SQLITE_OK; i++) {
    struct recon_proc *p = r->procs[i];
    rc = rewrite_waits(r, db, trace_id, p->kept_bgc);
    for (int j = 0; j < p->stored && j < p->ngcs && rc == SQLITE_OK; j++) rc = rewrite_waits(r, db, trace_id, p->gcs[j]);
  }
  return rc;
}

/* Store process p's GCs from p->stored on while each is final: no later
 * event, nor gcs_recon_finish's marking and recon_calc_all's
 * recomputation, can change its row. Stops at the first that may still
 * change, so each process's GCs go in in list order; their ids are those
 * gcs_recon_store gives them (gc_id). */
static int store_final_proc(struct gcs_recon *r, struct recon_proc *p, sqlite3 *db, int64_t trace_id,
                            uint64_t horizon) {
  int limit = p->ngcs - FINAL_LAG;
  if (p->current_bgc >= 0 && p->current_bgc < limit) limit = p->current_bgc;
  if (p->last_completed < limit) limit = p->last_completed;
  if (p->alloc.next < limit) limit = p->alloc.next; /* measured allocations still to come */
  if (limit <= p->stored) return SQLITE_OK;
  int rc = store_open(r, db);
  if (rc != SQLITE_OK) return rc;
  /* recon_calc_gc reads this GC and the ones before it only: below limit, the
   * figures are those recon_calc_all will compute. */
  for (; p->calc < limit; p->calc++) recon_calc_gc(r, p, p->gcs[p->calc]);
  for (; p->stored < limit; p->stored++) {
    struct recon_gc *gc = p->gcs[p->stored];
    struct gcs_gc g = gc->g; /* the row as gcs_recon_finish will leave it */
    /* A window still to come may mark it, unless it is done before the
     * horizon, out of the scan's reach, or marked already: a GC marked
     * lost is never complete again (on_end), and marking it once more
     * changes nothing. */
    if (!gc->lost && (gc->done_abs ? gc->done_abs >= horizon : !open_out_of_reach(p, p->stored, horizon)))
      break;
    if (!g.complete) {
      if ((g.incomplete & GCS_INC_BEGAN_BEFORE_TRACE) && !p->seen_suspend) break;
      if (!g.incomplete) g.incomplete = GCS_INC_TRACE_ENDED;
    }
    int pending = 0;
    for (int i = 0; i < p->alloc.npending; i++) pending |= p->alloc.pending[i] == gc;
    if (pending) break; /* a background GC's end may still credit it */
    /* A background GC: its peak window closed. An allocation wait's end
     * may still go to it (the last complete one, however late): written
     * now, kept (kept_bgc), and its waits written again if one comes
     * (rewrite_waits). */
    if (gcs_type_is_background(g.type) && g.complete &&
        !recon_calc_bgc_peak(p, p->stored, limit, &g.peak_mb, &g.ratio_peak_after))
      break;
    if ((rc = store_gc(db, r->store->st, trace_id, gc_id(r, gc), &g, &gc->row_id)) != SQLITE_OK) return rc;
    gc->written = 1;
    recon_fold_add(&p->fold, &g); /* the summary, in list order, as written */
    if (!gc->reported) {
      /* An open GC: reported (gc_done) now, as gcs_recon_finish would, with
       * the marks of its row, before it is freed. */
      gc->g.incomplete = g.incomplete;
      recon_report(r, gc);
    }
  }
  return SQLITE_OK;
}

/* Every process's final GCs (store_final_proc), then the ones written are
 * freed. */
int gcs_recon_store_final(struct gcs_recon *r, sqlite3 *db, int64_t trace_id) {
  if (r->finished || r->nprocs == 0) return SQLITE_OK;
  /* A loss window still to come (gcs_recon_lost) begins at or after the
   * horizon the caller gave, and at or after the last event fed (windows
   * come in the order of their beginnings): a GC done before both is out
   * of its reach. */
  uint64_t horizon = r->lost_horizon < r->now_abs ? r->lost_horizon : r->now_abs;
  int rc = r->store ? rewrite_all(r, db, trace_id) : SQLITE_OK;
  for (int i = 0; i < r->nprocs && rc == SQLITE_OK; i++) rc = store_final_proc(r, r->procs[i], db, trace_id, horizon);
  recon_free_stored(r);
  return rc;
}

int gcs_recon_stored_final(const struct gcs_recon *r) {
  int n = 0;
  for (int i = 0; i < r->nprocs; i++) n += r->procs[i]->base + r->procs[i]->stored;
  return n;
}

int gcs_recon_store(struct gcs_recon *r, sqlite3 *db, int64_t trace_id) {
  if (!r->finished) gcs_recon_finish(r);
  int rc = store_open(r, db);
  if (rc != SQLITE_OK) return rc;
  sqlite3_stmt **st = r->store->st;
  rc = rewrite_all(r, db, trace_id);
  for (int i = 0; i < r->nprocs && rc == SQLITE_OK; i++) {
    struct recon_proc *p = r->procs[i];
    rc = store_summary(st[ST_SUM], trace_id, &p->sum);
    for (int j = p->stored; j < p->ngcs && rc == SQLITE_OK; j++)
      rc = store_gc(db, st, trace_id, gc_id(r, p->gcs[j]), &p->gcs[j]->g, NULL);
  }
  recon_store_free(r);
  return rc;
}
