/* stats_model.c — loads GCStats data from the database and derives the
 * rollups, percentiles and histogram (see stats_model.h). */
#include "stats_model.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_db.h"
#include "gcs_enums.h"
#include "gcs_gcdb.h"
#include "gcs_output.h"
#include "ins_stats.h"
#include "ins_timeline.h"
#include "stats_details.h"

#define ST_COLDEF(Col, H, S, D, W) { #Col, H, S, D, W },
const struct st_col st_cols[STC_COUNT] = { ST_GC_COLS(ST_COLDEF) };
const char *const st_kind_names[ST_KINDS] = { "gen0", "gen1", "gen2 background", "gen2 blocking" };
#define ST_PHN(C, Name, Label) #Name,
#define ST_PHL(C, Name, Label) Label,
const char *const st_phase_names[GCS_GC_PHASE_COUNT] = { GCS_GC_PHASES(ST_PHN) };
const char *const st_phase_labels[GCS_GC_PHASE_COUNT] = { GCS_GC_PHASES(ST_PHL) };
#undef ST_PHN
#undef ST_PHL
const double st_hist_edges[ST_HIST_BUCKETS] = { 0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 };

static char *dup_col(sqlite3_stmt *s, int i) {
  const unsigned char *t = sqlite3_column_text(s, i);
  return t ? strdup((const char *)t) : NULL;
}
static double dcol(sqlite3_stmt *s, int i) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}
static int icol(sqlite3_stmt *s, int i, int dflt) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? dflt : sqlite3_column_int(s, i);
}
double st_percentile(const double *x, int n, double p) {
  if (n <= 0) return NAN;
  double rank = p / 100.0 * (n - 1);
  int lo = (int)floor(rank);
  if (lo >= n - 1) return x[n - 1];
  double frac = rank - lo;
  return x[lo] + frac * (x[lo + 1] - x[lo]);
}

static double maxd(double a, double b) { return isnan(a) ? b : (isnan(b) ? a : (a > b ? a : b)); }

/* "Where the GC time went": each phase's mean and P95 per pause kind, over
 * the complete GCs of that kind that timed it. */
static void derive_phases(struct st_proc *p) {
  double *vals = malloc(sizeof(double) * (size_t)(p->ngcs ? p->ngcs : 1));
  p->has_phases = 0;
  for (int k = 0; k < ST_KINDS; k++)
    for (int ph = 0; ph <= GCS_GC_PHASE_COUNT; ph++) {
      struct st_phasestat *c = &p->phases[k][ph];
      int n = 0;
      for (int i = 0; vals && i < p->ngcs; i++) {
        const struct st_gc *g = &p->gcs[i];
        if (!g->complete || (int)gcs_gc_pause_kind((uint32_t)g->gen, (uint32_t)g->type) != k) continue;
        double v = ph < GCS_GC_PHASE_COUNT ? g->phase_usec[ph] : NAN;
        for (int j = 0; ph == GCS_GC_PHASE_COUNT && j < GCS_GC_PHASE_COUNT; j++)
          if (!isnan(g->phase_usec[j])) v = (isnan(v) ? 0 : v) + g->phase_usec[j];
        if (isnan(v)) continue;
        vals[n++] = v;
      }
      c->count = n;
      c->mean = c->p95 = NAN;
      if (!n) continue;
      p->has_phases = 1;
      ins_sort_doubles(vals, (size_t)n);
      double sum = 0;
      for (int i = 0; i < n; i++) sum += vals[i];
      c->mean = sum / n;
      c->p95 = st_percentile(vals, n, 95);
    }
  free(vals);
}

static void derive(struct st_proc *p) {
  for (int r = 0; r < 4; r++) {
    memset(&p->roll[r], 0, sizeof p->roll[r]);
    p->roll[r].max_pause = p->roll[r].max_peak = p->roll[r].max_alloc_rate = NAN;
    p->roll[r].gc_cpu = NAN;
  }
  double *vals[ST_KINDS];
  int nv[ST_KINDS] = { 0 };
  for (int k = 0; k < ST_KINDS; k++) vals[k] = malloc(sizeof(double) * (size_t)(p->ngcs ? p->ngcs : 1));
  for (int i = 0; i < p->ngcs; i++) {
    const struct st_gc *g = &p->gcs[i];
    if (!g->complete) continue;
    double pause = g->v[STC_pause_msec];
    for (int r = 0; r < 4; r++) {
      if (r > 0 && g->gen != r - 1) continue;
      struct st_rollup *ro = &p->roll[r];
      ro->count++;
      if (gcs_reason_is_induced(g->reason_code)) ro->induced++;
      ro->max_pause = maxd(ro->max_pause, pause);
      ro->max_peak = maxd(ro->max_peak, g->v[STC_peak_mb]);
      ro->total_pause += pause;
      ro->total_promoted += isnan(g->v[STC_promoted_mb]) ? 0 : g->v[STC_promoted_mb];
    }
    int k = (int)gcs_gc_pause_kind((uint32_t)g->gen, (uint32_t)g->type);
    if (vals[k]) vals[k][nv[k]++] = pause;
    int b = 0;
    while (b + 1 < ST_HIST_BUCKETS && pause >= st_hist_edges[b + 1]) b++;
    p->hist[b]++;
  }
  for (int r = 0; r < 4; r++) p->roll[r].mean_pause = p->roll[r].count ? p->roll[r].total_pause / p->roll[r].count : NAN;
  derive_phases(p);
  for (int k = 0; k < ST_KINDS; k++) {
    struct st_pausestat *s = &p->kinds[k];
    memset(s, 0, sizeof *s);
    s->count = nv[k];
    if (vals[k] && nv[k]) {
      ins_sort_doubles(vals[k], (size_t)nv[k]);
      for (int i = 0; i < nv[k]; i++) s->total += vals[k][i];
      s->mean = s->total / nv[k];
      s->max = vals[k][nv[k] - 1];
      s->p50 = st_percentile(vals[k], nv[k], 50);
      s->p95 = st_percentile(vals[k], nv[k], 95);
      s->p99 = st_percentile(vals[k], nv[k], 99);
    } else {
      s->mean = s->max = s->p50 = s->p95 = s->p99 = NAN;
    }
    free(vals[k]);
  }
}

/* Does the report need column c? ST_LOAD_TEXT: the 120-column text report (its
 * GC tables, the background GC table and the derived figures). */
static int col_needed(int c, int what) {
  return what == ST_LOAD_ALL || !st_cols[c].wide || c == STC_bgc_pause1_msec || c == STC_bgc_pause2_msec ||
         c == STC_runtime_pause_msec;
}

/* Which loader figure each st column reads: its index in gcs_gcdb_gc.real,
 * ST_FROM_INDEX (the GC Index), ST_FROM_TEXT (reason_name, gen_name). */
enum { ST_FROM_INDEX = -1, ST_FROM_TEXT = -2 };
static int st_source(int c) {
  if (c == STC_gc_index) return ST_FROM_INDEX;
  if (st_cols[c].decimals < 0) return ST_FROM_TEXT;
  return gcs_gcdb_real_index(st_cols[c].name);
}

static uint64_t phase_bits(void) {
  uint64_t b = 0;
  for (int ph = 0; ph < GCS_GC_PHASE_COUNT; ph++) b |= UINT64_C(1) << (GCS_GCDB_R_PHASE0 + ph);
  return b;
}

int st_mark_flagged(const struct st_gc *g) {
  return !isnan(g->mark_kind) && g->mark_slow_msec >= ST_MARK_RATIO * g->mark_fast_msec &&
         g->mark_slow_msec - g->mark_fast_msec >= ST_MARK_MIN_MSEC;
}

static uint64_t committed_bits(void) {
  uint64_t b = 0;
  for (int f = 0; f < 10; f++) b |= UINT64_C(1) << (GCS_GCDB_R_COMMITTED0 + f);
  return b;
}

/* The loader query for one process: the needed columns, plus the duration and
 * the allocation rollup's figures. */
static struct gcs_gcdb_query gc_query(const struct st_proc *p, int what) {
  struct gcs_gcdb_query q = {.trace_id = p->trace_id, .pid = p->pid, .after_id = -1,
                             .reals = GCS_GCDB_BIT(duration_msec) | GCS_GCDB_BIT(total_alloc_mb) |
                                      GCS_GCDB_BIT(alloc_rate_mb_sec) | GCS_GCDB_BIT(gc_cpu_msec) |
                                      GCS_GCDB_BIT(global_mechanisms) | GCS_GCDB_BIT(pause_mode) |
                                      GCS_GCDB_BIT(memory_pressure) | phase_bits() |
                                      GCS_GCDB_BIT(committed_before_mb) | GCS_GCDB_BIT(committed_after_mb) |
                                      committed_bits() | GCS_GCDB_BIT(mark_heaps) |
                                      GCS_GCDB_BIT(mark_unbalanced_kind) | GCS_GCDB_BIT(mark_slow_heap) |
                                      GCS_GCDB_BIT(mark_slow_msec) | GCS_GCDB_BIT(mark_fast_msec),
                             .parts = what == ST_LOAD_ALL ? GCS_GCDB_CONDEMNED : 0};
  for (int c = 0; c < STC_COUNT; c++) {
    int r = st_source(c);
    if (r >= 0 && col_needed(c, what)) q.reals |= UINT64_C(1) << r;
  }
  return q;
}

/* PerfView's allocation rollup per generation, over complete GCs: what
 * "SELECT gen, sum(total_alloc_mb), max(alloc_rate_mb_sec), sum(gc_cpu_msec)
 * ... GROUP BY gen" returns, summed in the same (list_index) order so the sums
 * are bit-identical (SQLite's GROUP BY sort keeps ties in input order), without
 * a second pass and a sort over every GC. n_*: non-NULL values seen. */
struct alloc_acc {
  int rows, n_alloc, n_rate, n_cpu;
  double alloc, rate, cpu;
};

static void alloc_add(struct alloc_acc acc[GCS_NGENS_SOH], const struct gcs_gcdb_gc *g) {
  if (g->complete != 1 || g->gen >= GCS_NGENS_SOH) return;
  struct alloc_acc *a = &acc[g->gen];
  double alloc = g->real[GCS_GCDB_R_total_alloc_mb], rate = g->real[GCS_GCDB_R_alloc_rate_mb_sec];
  double cpu = g->real[GCS_GCDB_R_gc_cpu_msec];
  a->rows++;
  if (!isnan(alloc)) {
    a->alloc += alloc;
    a->n_alloc++;
  }
  if (!isnan(rate) && (!a->n_rate++ || rate > a->rate)) a->rate = rate;
  if (!isnan(cpu)) {
    a->cpu += cpu;
    a->n_cpu++;
  }
}

/* Into the rollup rows (after derive()), generations in order as the GROUP BY returned them. */
static void alloc_apply(struct st_proc *p, const struct alloc_acc acc[GCS_NGENS_SOH]) {
  for (int r = 0; r < 4; r++) p->roll[r].total_alloc = 0;
  struct st_rollup *all = &p->roll[0];
  for (int gen = GCS_GEN0; gen < GCS_NGENS_SOH; gen++) {
    const struct alloc_acc *a = &acc[gen];
    if (!a->rows) continue;
    struct st_rollup *ro = &p->roll[gen + 1];
    ro->total_alloc = a->n_alloc ? a->alloc : 0;
    all->total_alloc += ro->total_alloc;
    ro->max_alloc_rate = a->n_rate ? a->rate : NAN;
    all->max_alloc_rate = maxd(all->max_alloc_rate, ro->max_alloc_rate);
    ro->gc_cpu = a->n_cpu ? a->cpu : NAN;
    if (!isnan(ro->gc_cpu)) all->gc_cpu = (isnan(all->gc_cpu) ? 0 : all->gc_cpu) + ro->gc_cpu;
  }
}

struct gc_sink {
  struct st_proc *p;
  int cap, what, src[STC_COUNT];
  struct alloc_acc *acc;
  struct ins_pause *pauses;     /* the gc_pauses view's rows, from the same GC rows */
  size_t npauses, pauses_cap;
};

/* snprintf(dst, n, "%s", src) */
static void copy_text(char *dst, size_t n, const char *src) {
  size_t l = strnlen(src, n - 1);
  memcpy(dst, src, l);
  dst[l] = 0;
}

static int add_gc(const struct gcs_gcdb_gc *r, void *ctx) {
  struct gc_sink *k = ctx;
  struct st_proc *p = k->p;
  if (p->ngcs == k->cap) {
    int cap = k->cap ? k->cap * 2 : 64;
    struct st_gc *n = realloc(p->gcs, sizeof *n * (size_t)cap);
    if (!n) return 1;
    p->gcs = n;
    k->cap = cap;
  }
  struct st_gc *g = &p->gcs[p->ngcs++];
  g->id = r->id;
  g->gen = (int)r->gen;
  g->type = (int)r->type;
  g->reason_code = r->reason;
  g->complete = r->complete;
  g->duration_msec = r->real[GCS_GCDB_R_duration_msec];
  g->phh_count = r->phh_count;
  for (int c = 0; c < STC_COUNT; c++) {
    int src = k->src[c];
    g->v[c] = !col_needed(c, k->what) || src == ST_FROM_TEXT ? NAN : src == ST_FROM_INDEX ? (double)r->gc_index
                                                                                           : r->real[src];
  }
  for (int ph = 0; ph < GCS_GC_PHASE_COUNT; ph++) g->phase_usec[ph] = r->real[GCS_GCDB_R_PHASE0 + ph];
  g->global_mechanisms = r->real[GCS_GCDB_R_global_mechanisms];
  g->pause_mode = r->real[GCS_GCDB_R_pause_mode];
  g->memory_pressure = r->real[GCS_GCDB_R_memory_pressure];
  for (int w = 0; w < 2; w++)
    for (int f = 0; f < 5; f++) g->committed[w][f] = r->real[GCS_GCDB_R_COMMITTED0 + 5 * w + f];
  g->mark_heaps = r->real[GCS_GCDB_R_mark_heaps];
  g->mark_kind = r->real[GCS_GCDB_R_mark_unbalanced_kind];
  g->mark_slow_heap = r->real[GCS_GCDB_R_mark_slow_heap];
  g->mark_slow_msec = r->real[GCS_GCDB_R_mark_slow_msec];
  g->mark_fast_msec = r->real[GCS_GCDB_R_mark_fast_msec];
  if (!isnan(g->mark_kind)) p->mark_multi = 1;
  if (g->complete && st_mark_flagged(g)) p->mark_flagged++;
  for (int w = 0; w < 2; w++) {
    double c = r->real[w ? GCS_GCDB_R_committed_after_mb : GCS_GCDB_R_committed_before_mb];
    if (isnan(c)) continue;
    p->has_committed = 1;
    if (isnan(p->max_committed) || c > p->max_committed) p->max_committed = c;
  }
  copy_text(g->reason, sizeof g->reason, r->reason_name);
  copy_text(g->gen_name, sizeof g->gen_name, r->gen_name);
  if (k->npauses + 2 > k->pauses_cap) {
    size_t cap = k->pauses_cap ? k->pauses_cap * 2 : 128;
    struct ins_pause *n = realloc(k->pauses, sizeof *n * cap);
    if (!n) return 1;
    k->pauses = n;
    k->pauses_cap = cap;
  }
  st_pause_of_gc(r, k->pauses, &k->npauses);
  memcpy(g->cr, r->condemned, sizeof g->cr);
  if (g->phh_count > 0 && g->complete) p->has_phh = 1;
  if (g->complete && st_pause_differs(g)) p->rt_pause_differs++;
  alloc_add(k->acc, r);
  return 0;
}

const char *st_gc_cell(char *buf, size_t n, const struct st_gc *g, int col) {
  double v = g->v[col];
  if (isnan(v) && (col == STC_pct_gc || col == STC_runtime_pause_msec || col == STC_alloc_measured_mb ||
                   col == STC_committed_after_mb || col == STC_heap_count)) {
    snprintf(buf, n, "%s", RPT_UNKNOWN);
    return buf;
  }
  return rpt_num(buf, n, v, st_cols[col].decimals);
}

int st_pause_differs(const struct st_gc *g) {
  double pv = g->v[STC_pause_msec], rt = g->v[STC_runtime_pause_msec];
  if (isnan(pv) || isnan(rt)) return 0;
  double d = fabs(pv - rt), big = pv > rt ? pv : rt;
  return d > 0.1 && d > 0.05 * big;
}

/* The condemned-reasons columns sit at the end of the widest table row; the
 * text report reads them in a second pass, only for a process that has them. */
struct cr_sink { struct st_proc *p; int i; };
static int add_condemned(const struct gcs_gcdb_gc *r, void *ctx) {
  struct cr_sink *k = ctx;
  if (k->i >= k->p->ngcs) return 1;
  memcpy(k->p->gcs[k->i++].cr, r->condemned, sizeof r->condemned);
  return 0;
}

/* The process's GCs, loh waits and firings, and its overhead figures (from
 * the pauses of the same GC rows). */
static int load_gcs(sqlite3 *db, struct st_proc *p, int what, struct alloc_acc acc[3], char err[256]) {
  struct gc_sink k = {.p = p, .what = what, .acc = acc};
  p->max_committed = NAN;
  for (int c = 0; c < STC_COUNT; c++) k.src[c] = st_source(c);
  int64_t expect = (int64_t)p->gc_count + p->incomplete_count; /* the summary's count: usually exact */
  if (expect > 0 && expect < (1 << 26)) {
    p->gcs = malloc(sizeof *p->gcs * (size_t)expect);
    k.cap = p->gcs ? (int)expect : 0;
    k.pauses = malloc(sizeof *k.pauses * 2 * (size_t)expect);
    k.pauses_cap = k.pauses ? 2 * (size_t)expect : 0;
  }
  struct gcs_gcdb_query q = gc_query(p, what);
  err[0] = '\0';
  int rc = gcs_gcdb_each(db, &q, add_gc, &k, err, 256);
  if (rc == 0) rc = st_overhead_of(db, p, k.pauses, k.npauses) ? -2 : 0;
  free(k.pauses);
  if (rc) return rc == -2 ? -2 : -1;
  if (!(q.parts & GCS_GCDB_CONDEMNED) && p->has_phh) {
    struct gcs_gcdb_query cq = {.trace_id = p->trace_id, .pid = p->pid, .after_id = -1, .parts = GCS_GCDB_CONDEMNED};
    struct cr_sink ck = {p, 0};
    if (gcs_gcdb_each(db, &cq, add_condemned, &ck, err, 256) < 0) return -1;
  }
  sqlite3_stmt *s;
  int cap;
  if (sqlite3_prepare_v2(db,
                         "SELECT bgc_index, tid, start_msec, pause_msec, reason FROM gc_loh_waits "
                         "WHERE trace_id = ? AND pid = ? AND pause_msec > 200 ORDER BY start_msec",
                         -1, &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(s, 1, p->trace_id);
  sqlite3_bind_int(s, 2, p->pid);
  cap = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (p->nwaits == cap) {
      cap = cap ? cap * 2 : 8;
      struct st_wait *n = realloc(p->waits, sizeof *n * (size_t)cap);
      if (!n) break;
      p->waits = n;
    }
    struct st_wait *w = &p->waits[p->nwaits++];
    w->bgc_index = (uint32_t)sqlite3_column_int64(s, 0);
    w->tid = sqlite3_column_int(s, 1);
    w->start = dcol(s, 2);
    w->pause = dcol(s, 3);
    w->reason = sqlite3_column_int(s, 4);
  }
  sqlite3_finalize(s);
  if (sqlite3_prepare_v2(db,
                         "SELECT rule, kind, gc_index, value, capture, verdict FROM trigger_firings "
                         "WHERE trace_id = ? AND pid = ? ORDER BY end_ns, rowid",
                         -1, &s, NULL) != SQLITE_OK)
    return 0;   /* a database without the table: no firings */
  sqlite3_bind_int64(s, 1, p->trace_id);
  sqlite3_bind_int(s, 2, p->pid);
  cap = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (p->nfirings == cap) {
      cap = cap ? cap * 2 : 8;
      struct st_firing *n = realloc(p->firings, sizeof *n * (size_t)cap);
      if (!n) break;
      p->firings = n;
    }
    struct st_firing *f = &p->firings[p->nfirings++];
    f->rule = dup_col(s, 0);
    f->kind = dup_col(s, 1);
    f->gc_index = (uint32_t)sqlite3_column_int64(s, 2);
    f->value = dcol(s, 3);
    f->capture = dup_col(s, 4);
    f->verdict = dup_col(s, 5);
  }
  sqlite3_finalize(s);
  return 0;
}

int st_load(sqlite3 *db, int pid, int what, struct st_model *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  const char *sql =
      "SELECT s.trace_id, s.pid, s.gc_count, s.incomplete_count, s.induced_count, s.total_pause_msec, "
      "s.max_pause_msec, s.pct_pause_time, s.max_heap_mb, s.total_alloc_mb, s.process_duration_msec, "
      "s.total_promoted_mb, s.max_suspend_msec, s.total_gc_cpu_msec, s.lost_events, s.heap_count, t.discarded, t.path, "
      "(SELECT name FROM processes p WHERE p.trace_id = s.trace_id AND p.pid = s.pid LIMIT 1), "
      "(SELECT command_line FROM processes p WHERE p.trace_id = s.trace_id AND p.pid = s.pid LIMIT 1), "
      "(SELECT server_gc FROM processes p WHERE p.trace_id = s.trace_id AND p.pid = s.pid LIMIT 1), "
      "(SELECT concurrent_gc FROM processes p WHERE p.trace_id = s.trace_id AND p.pid = s.pid LIMIT 1), "
      "(SELECT runtime_version FROM processes p WHERE p.trace_id = s.trace_id AND p.pid = s.pid LIMIT 1), "
      "(SELECT g.incomplete_why FROM gcs g WHERE g.trace_id = s.trace_id AND g.pid = s.pid AND g.complete = 0 "
      " GROUP BY g.incomplete_why ORDER BY count(*) DESC, g.incomplete_why LIMIT 1), t.truncated_at, "
      "s.total_alloc_measured_mb, s.heap_count_min, s.heap_count_max, s.heap_count_changes, "
      "s.total_runtime_pause_msec, "
      "(SELECT gc_hard_limit FROM processes p WHERE p.trace_id = s.trace_id AND p.pid = s.pid LIMIT 1), "
      "t.packet_gaps, coalesce(t.truncated_file, t.path) "
      "FROM gc_process_summary s JOIN traces t ON t.id = s.trace_id "
      "WHERE " GCS_IN_INPUT("s.trace_id") " AND (?1 < 0 OR s.pid = ?1) ORDER BY s.max_heap_mb DESC, s.trace_id, s.pid";
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "not a gcscope database (%s)", sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_int(s, 1, pid);
  int cap = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (m->nprocs == cap) {
      cap = cap ? cap * 2 : 8;
      struct st_proc *n = realloc(m->procs, sizeof *n * (size_t)cap);
      if (!n) break;
      m->procs = n;
    }
    struct st_proc *p = &m->procs[m->nprocs++];
    memset(p, 0, sizeof *p);
    p->trace_id = sqlite3_column_int64(s, 0);
    p->pid = sqlite3_column_int(s, 1);
    p->gc_count = sqlite3_column_int(s, 2);
    p->incomplete_count = sqlite3_column_int(s, 3);
    p->induced_count = sqlite3_column_int(s, 4);
    p->total_pause = dcol(s, 5);
    p->max_pause = dcol(s, 6);
    p->pct_pause = dcol(s, 7);
    p->max_heap = dcol(s, 8);
    p->total_alloc = dcol(s, 9);
    p->process_duration = dcol(s, 10);
    p->total_promoted = dcol(s, 11);
    p->max_suspend = dcol(s, 12);
    p->total_gc_cpu = dcol(s, 13);
    p->lost_events = sqlite3_column_int64(s, 14);
    p->heap_count = icol(s, 15, -1);
    p->trace_discarded = sqlite3_column_int64(s, 16);
    p->trace_path = dup_col(s, 17);
    p->trace_truncated_file = dup_col(s, 32);
    p->name = dup_col(s, 18);
    p->cmdline = dup_col(s, 19);
    p->server_gc = icol(s, 20, -1);
    p->concurrent_gc = icol(s, 21, -1);
    p->runtime_version = dup_col(s, 22);
    p->incomplete_why = dup_col(s, 23);
    p->trace_truncated_at = sqlite3_column_type(s, 24) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 24);
    p->total_alloc_measured = dcol(s, 25);
    p->heap_count_min = icol(s, 26, -1);
    p->heap_count_max = icol(s, 27, -1);
    p->heap_count_changes = icol(s, 28, 0);
    p->total_runtime_pause = dcol(s, 29);
    p->hard_limit = sqlite3_column_type(s, 30) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 30);
    p->trace_packet_gaps = sqlite3_column_type(s, 31) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 31);
    /* PerfView's % paused over a process duration of 0 (no complete GC, or
     * no GCHeapStats after one) is stored as 0: unknown, not 0 %. */
    if (p->gc_count == 0 || !(p->process_duration > 0)) p->pct_pause = p->process_duration = NAN;
  }
  sqlite3_finalize(s);
  if (m->nprocs > 1) gcs_input_overlaps(db, &m->overlaps, &m->noverlaps);
  if (what == ST_LOAD_PROCS) return 0;
  for (int i = 0; i < m->nprocs; i++) {
    struct alloc_acc acc[3];
    memset(acc, 0, sizeof acc);
    char gerr[256];
    int rc = load_gcs(db, &m->procs[i], what, acc, gerr);
    if (rc) {
      if (rc == -2) snprintf(err, errlen, "cannot read the GC pauses (%s)", sqlite3_errmsg(db));
      else if (gerr[0]) snprintf(err, errlen, "%s", gerr);   /* the loader's: a damaged row, say */
      else snprintf(err, errlen, "cannot read the gcs table (%s)", sqlite3_errmsg(db));
      st_free(m);
      return -1;
    }
    derive(&m->procs[i]);
    alloc_apply(&m->procs[i], acc);
    st_load_settings(db, &m->procs[i]);
    if (what == ST_LOAD_ALL) st_load_details(db, &m->procs[i]);
    if (st_datas_load(db, &m->procs[i])) {
      snprintf(err, errlen, "cannot read the DATAS events (%s)", sqlite3_errmsg(db));
      st_free(m);
      return -1;
    }
  }
  return 0;
}

void st_free(struct st_model *m) {
  for (int i = 0; i < m->nprocs; i++) {
    struct st_proc *p = &m->procs[i];
    free(p->name);
    free(p->cmdline);
    free(p->runtime_version);
    free(p->incomplete_why);
    free(p->trace_path);
    free(p->trace_truncated_file);
    free(p->gcs);
    free(p->waits);
    st_free_details(p);
    for (int f = 0; f < p->nfirings; f++) {
      free(p->firings[f].rule);
      free(p->firings[f].kind);
      free(p->firings[f].capture);
      free(p->firings[f].verdict);
    }
    free(p->firings);
    st_datas_free(p->datas);
  }
  free(m->procs);
  free(m->overlaps);
  memset(m, 0, sizeof *m);
}

void st_warnings(FILE *out, const struct st_model *m, const char *prefix) {
  int64_t last_trace = -1;
  for (int i = 0; i < m->nprocs; i++) {
    const struct st_proc *p = &m->procs[i];
    if (p->trace_discarded > 0 && p->trace_id != last_trace)
      gcs_input_warn_lost(out, prefix, p->trace_id, p->trace_path, p->trace_discarded, p->trace_packet_gaps);
    if (p->trace_truncated_at >= 0 && p->trace_id != last_trace)
      gcs_input_warn_cut(out, prefix, p->trace_id, p->trace_truncated_file, p->trace_truncated_at);
    last_trace = p->trace_id;
  }
  for (int i = 0; i < m->noverlaps; i++) gcs_overlap_note(out, prefix, &m->overlaps[i]);
}
