/* stats_overhead.c — GC overhead over time for `gcscope stats`: the
 * worst 60 s window's % paused (JMC's rule) and the MMU curve (Go's), computed
 * by gcs_analysis (core/analysis, ins_overhead.h) over the same pauses and run span as
 * `gcscope advise`, so the two commands print the same figures. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_enums.h"
#include "gcs_gcdb.h"
#include "ins_overhead.h"
#include "ins_timeline.h"
#include "stats_model.h"

_Static_assert(ST_MMU_N == INS_MMU_N, "stats_model.h's ST_MMU_N must match ins_overhead.h");

/* The process's pauses (the gc_pauses view) as the timeline's input. */
static int load_pauses(sqlite3 *db, const struct st_proc *p, struct ins_pause **out, size_t *n) {
  struct gcs_gcdb_pause *v;
  size_t nv;
  char err[256];
  *out = NULL;
  *n = 0;
  if (gcs_gcdb_pauses(db, p->trace_id, p->pid, &v, &nv, err, sizeof err)) return -1;
  *out = malloc(sizeof **out * (nv ? nv : 1));
  if (!*out) {
    free(v);
    return -1;
  }
  for (size_t i = 0; i < nv; i++) (*out)[i] = (struct ins_pause){v[i].gc_index, v[i].start_ns, v[i].end_ns};
  *n = nv;
  free(v);
  return 0;
}

/* The process's first/last event and the trace's start (0 when unknown). */
static int load_span(sqlite3 *db, const struct st_proc *p, int64_t *first, int64_t *last, int64_t *trace_start) {
  static const char sql[] =
      "SELECT coalesce((SELECT first_ns FROM processes WHERE trace_id = ?1 AND pid = ?2 LIMIT 1), 0), "
      "coalesce((SELECT last_ns FROM processes WHERE trace_id = ?1 AND pid = ?2 LIMIT 1), 0), "
      "coalesce((SELECT start_ns FROM traces WHERE id = ?1), 0)";
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int64(s, 1, p->trace_id);
  sqlite3_bind_int(s, 2, p->pid);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    *first = sqlite3_column_int64(s, 0);
    *last = sqlite3_column_int64(s, 1);
    *trace_start = sqlite3_column_int64(s, 2);
  }
  sqlite3_finalize(s);
  return rc == SQLITE_ROW ? 0 : -1;
}

int st_load_overhead(sqlite3 *db, struct st_proc *p) {
  struct ins_pause *pz;
  size_t n;
  if (load_pauses(db, p, &pz, &n)) return -1;
  int rc = st_overhead_of(db, p, pz, n);
  free(pz);
  return rc;
}

void st_pause_of_gc(const struct gcs_gcdb_gc *g, struct ins_pause *out, size_t *n) {
  struct gcs_gcdb_pause v[2];
  size_t nv = 0;
  gcs_gcdb_pauses_of(g, v, &nv);
  for (size_t i = 0; i < nv; i++) out[(*n)++] = (struct ins_pause){v[i].gc_index, v[i].start_ns, v[i].end_ns};
}

int st_overhead_of(sqlite3 *db, struct st_proc *p, const struct ins_pause *pz, size_t n) {
  struct st_overhead *o = &p->ov;
  memset(o, 0, sizeof *o);
  o->window_s = ST_OVERHEAD_WINDOW_S;
  o->worst_pct = o->worst_start_ms = o->worst_len_ms = o->worst_paused_ms = NAN;
  for (int i = 0; i < ST_MMU_N; i++) o->mmu[i] = NAN;
  int64_t t0, t1, tstart;
  if (load_span(db, p, &t0, &t1, &tstart)) return -1;
  if (n == 0) return 0;
  for (size_t i = 0; i < n; i++) {
    if (t0 == 0 || pz[i].start_ns < t0) t0 = pz[i].start_ns;
    if (pz[i].end_ns > t1) t1 = pz[i].end_ns;
  }
  struct ins_timeline tl;
  if (ins_timeline_build(&tl, pz, n) != 0) return -1;
  struct ins_window *wins = NULL, worst;
  size_t nw = 0;
  if (t1 > t0 &&
      ins_overhead_windows(&tl, t0, t1, (int64_t)ST_OVERHEAD_WINDOW_S * 1000000000LL, &wins, &nw, &worst) == 0) {
    o->have = 1;
    o->worst_pct = worst.paused_pct;
    o->worst_start_ms = (double)(worst.start_ns - tstart) / 1e6;
    o->worst_len_ms = (double)(worst.end_ns - worst.start_ns) / 1e6;
    o->worst_paused_ms = (double)worst.paused_ns / 1e6;
    for (int i = 0; i < ST_MMU_N; i++) o->mmu[i] = ins_mmu(&tl, t0, t1, ins_mmu_windows_ns[i]);
  }
  free(wins);
  ins_timeline_free(&tl);
  return 0;
}
