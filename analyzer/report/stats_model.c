/* stats_model.c — loads GCStats data from the database and derives the
 * rollups, percentiles and histogram (see stats_model.h). */
#include "stats_model.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define ST_COLDEF(Col, H, S, D, W) { #Col, H, S, D, W },
const struct st_col st_cols[STC_COUNT] = { ST_GC_COLS(ST_COLDEF) };
const char *const st_kind_names[ST_KINDS] = { "gen0", "gen1", "gen2 background", "gen2 blocking" };
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

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double maxd(double a, double b) { return isnan(a) ? b : (isnan(b) ? a : (a > b ? a : b)); }

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
    if (g->phh_count > 0 && g->complete) p->has_phh = 1;
    if (!g->complete) continue;
    double pause = g->v[STC_pause_msec];
    for (int r = 0; r < 4; r++) {
      if (r > 0 && g->gen != r - 1) continue;
      struct st_rollup *ro = &p->roll[r];
      ro->count++;
      if (strcmp(g->reason, "Induced") == 0 || strcmp(g->reason, "InducedNotForced") == 0) ro->induced++;
      ro->max_pause = maxd(ro->max_pause, pause);
      ro->max_peak = maxd(ro->max_peak, g->v[STC_peak_mb]);
      ro->total_pause += pause;
      ro->total_promoted += isnan(g->v[STC_promoted_mb]) ? 0 : g->v[STC_promoted_mb];
    }
    int k = g->type == 1 ? ST_K_BGC : g->gen == 0 ? ST_K_GEN0 : g->gen == 1 ? ST_K_GEN1 : ST_K_GEN2N;
    if (vals[k]) vals[k][nv[k]++] = pause;
    int b = 0;
    while (b + 1 < ST_HIST_BUCKETS && pause >= st_hist_edges[b + 1]) b++;
    p->hist[b]++;
  }
  for (int r = 0; r < 4; r++) p->roll[r].mean_pause = p->roll[r].count ? p->roll[r].total_pause / p->roll[r].count : NAN;
  for (int k = 0; k < ST_KINDS; k++) {
    struct st_pausestat *s = &p->kinds[k];
    memset(s, 0, sizeof *s);
    s->count = nv[k];
    if (vals[k] && nv[k]) {
      qsort(vals[k], (size_t)nv[k], sizeof(double), cmpd);
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

#define ST_SEL(Col, H, S, D, W) ", " #Col
static const char *const gc_sql =
    "SELECT gen, type, complete, duration_msec, phh_count" ST_GC_COLS(ST_SEL)
#define ST_CR(Idx, Col, Hdr) ", " #Col
    GCS_CONDEMN_GROUPS(ST_CR)
    " FROM gcs WHERE trace_id = ? AND pid = ? ORDER BY list_index";

static int load_gcs(sqlite3 *db, struct st_proc *p) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, gc_sql, -1, &s, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int64(s, 1, p->trace_id);
  sqlite3_bind_int(s, 2, p->pid);
  int cap = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (p->ngcs == cap) {
      cap = cap ? cap * 2 : 64;
      struct st_gc *n = realloc(p->gcs, sizeof *n * (size_t)cap);
      if (!n) break;
      p->gcs = n;
    }
    struct st_gc *g = &p->gcs[p->ngcs++];
    memset(g, 0, sizeof *g);
    g->gen = icol(s, 0, 0);
    g->type = icol(s, 1, 0);
    g->complete = icol(s, 2, 0);
    g->duration_msec = dcol(s, 3);
    g->phh_count = icol(s, 4, 0);
    for (int c = 0; c < STC_COUNT; c++) g->v[c] = st_cols[c].decimals >= 0 ? dcol(s, 5 + c) : NAN;
    const unsigned char *t = sqlite3_column_text(s, 5 + STC_reason_name);
    snprintf(g->reason, sizeof g->reason, "%s", t ? (const char *)t : "");
    t = sqlite3_column_text(s, 5 + STC_gen_name);
    snprintf(g->gen_name, sizeof g->gen_name, "%s", t ? (const char *)t : "");
    for (int i = 0; i < GCS_CONDEMN_GROUP_COUNT; i++) g->cr[i] = (uint8_t)icol(s, 5 + STC_COUNT + i, 0);
  }
  sqlite3_finalize(s);
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
  return 0;
}

int st_load(sqlite3 *db, int pid, struct st_model *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  const char *sql =
      "SELECT s.trace_id, s.pid, s.gc_count, s.incomplete_count, s.induced_count, s.total_pause_msec, "
      "s.max_pause_msec, s.pct_pause_time, s.max_heap_mb, s.total_alloc_mb, s.process_duration_msec, "
      "s.total_promoted_mb, s.max_suspend_msec, s.total_gc_cpu_msec, s.lost_events, s.heap_count, t.discarded, t.path, "
      "(SELECT name FROM processes p WHERE p.trace_id = s.trace_id AND p.pid = s.pid LIMIT 1), "
      "(SELECT command_line FROM processes p WHERE p.trace_id = s.trace_id AND p.pid = s.pid LIMIT 1), "
      "(SELECT server_gc FROM processes p WHERE p.trace_id = s.trace_id AND p.pid = s.pid LIMIT 1), "
      "(SELECT concurrent_gc FROM processes p WHERE p.trace_id = s.trace_id AND p.pid = s.pid LIMIT 1), "
      "(SELECT runtime_version FROM processes p WHERE p.trace_id = s.trace_id AND p.pid = s.pid LIMIT 1) "
      "FROM gc_process_summary s JOIN traces t ON t.id = s.trace_id "
      "WHERE ?1 < 0 OR s.pid = ?1 ORDER BY s.max_heap_mb DESC, s.trace_id, s.pid";
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
    p->name = dup_col(s, 18);
    p->cmdline = dup_col(s, 19);
    p->server_gc = icol(s, 20, -1);
    p->concurrent_gc = icol(s, 21, -1);
    p->runtime_version = dup_col(s, 22);
  }
  sqlite3_finalize(s);
  for (int i = 0; i < m->nprocs; i++) {
    if (load_gcs(db, &m->procs[i])) {
      snprintf(err, errlen, "cannot read the gcs table (%s)", sqlite3_errmsg(db));
      return -1;
    }
    derive(&m->procs[i]);
    for (int r = 0; r < 4; r++) m->procs[i].roll[r].total_alloc = 0;
  }
  /* Allocation rollup: PerfView's TotalAllocatedMB per generation bucket. */
  sql = "SELECT gen, sum(total_alloc_mb), max(alloc_rate_mb_sec), sum(gc_cpu_msec) FROM gcs "
        "WHERE trace_id = ? AND pid = ? AND complete = 1 GROUP BY gen";
  for (int i = 0; i < m->nprocs; i++) {
    struct st_proc *p = &m->procs[i];
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) continue;
    sqlite3_bind_int64(s, 1, p->trace_id);
    sqlite3_bind_int(s, 2, p->pid);
    while (sqlite3_step(s) == SQLITE_ROW) {
      int gen = sqlite3_column_int(s, 0);
      if (gen < 0 || gen > 2) continue;
      double alloc = dcol(s, 1), rate = dcol(s, 2), cpu = dcol(s, 3);
      struct st_rollup *all = &p->roll[0], *ro = &p->roll[gen + 1];
      ro->total_alloc = isnan(alloc) ? 0 : alloc;
      all->total_alloc += ro->total_alloc;
      ro->max_alloc_rate = rate;
      all->max_alloc_rate = maxd(all->max_alloc_rate, rate);
      ro->gc_cpu = cpu;
      if (!isnan(cpu)) all->gc_cpu = (isnan(all->gc_cpu) ? 0 : all->gc_cpu) + cpu;
    }
    sqlite3_finalize(s);
  }
  return 0;
}

void st_free(struct st_model *m) {
  for (int i = 0; i < m->nprocs; i++) {
    struct st_proc *p = &m->procs[i];
    free(p->name);
    free(p->cmdline);
    free(p->runtime_version);
    free(p->trace_path);
    free(p->gcs);
    free(p->waits);
  }
  free(m->procs);
  memset(m, 0, sizeof *m);
}

void st_warnings(FILE *out, const struct st_model *m, const char *prefix) {
  int64_t last_trace = -1;
  for (int i = 0; i < m->nprocs; i++) {
    const struct st_proc *p = &m->procs[i];
    if (p->trace_discarded > 0 && p->trace_id != last_trace)
      fprintf(out, "%swarning: trace %lld (%s): %lld events were discarded by the tracer; "
                   "GCs they may overlap are marked incomplete and left out of the figures\n",
              prefix, (long long)p->trace_id, p->trace_path ? p->trace_path : "?",
              (long long)p->trace_discarded);
    last_trace = p->trace_id;
  }
}
