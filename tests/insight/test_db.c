/* The insight commands' database inputs: builds a small database with the
 * importer's schema (gcs_db_open) and SQL inserts, checks what ins_db reads
 * and which advisor rules fire; leaves the file (argv[1]) for the command
 * tests (CMakeLists: insight_cli_*). A second database with a healthy
 * history (argv[2]) must give no finding. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcs_db.h"
#include "gcs_gcdb.h"
#include "ins_advise.h"
#include "check.h"
#include "ins_db.h"

static void exec(sqlite3 *db, const char *sql) {
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    CHECK_FAIL("SQL error: %s\n  in: %s", msg, sql);
    sqlite3_free(msg);
  }
}

#define GC_COLS "trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name, reason, reason_name, " \
                "complete, suspend_begin_ns, start_ns, end_ns, restart_end_ns, bgc_prep_suspend_begin_ns, "   \
                "bgc_prep_restart_end_ns, pause_start_msec, pause_msec, suspend_msec, promoted_mb, peak_mb, "  \
                "after_mb, gen0_frag_pct, pinned_obj"

static void common(sqlite3 *db) {
  exec(db, "INSERT INTO traces (id, path, start_ns, end_ns, identity, event_count, gc_event_count, discarded, "
           "source, imported_ns) VALUES (1, 'hand-built', 0, 10000000000, 'x', 0, 0, 0, 'lttng', 0)");
  exec(db, "INSERT INTO processes (trace_id, pid, name, first_ns, last_ns, event_count, gc_event_count) "
           "VALUES (1, 10, 'app', 0, 10000000000, 0, 0)");
}

/* GC 1: induced gen0, pause [1000, 1002] ms. GC 2: full blocking gen2 [3000, 3010],
 * condemned for induced_fullgc_p (bit 0) on heap 0 and max_high_frag_p (bit 7)
 * on heap 1. GC 3: BGC, pauses [5000, 5001] and [5500, 5503]; gen2 before it:
 * heap 0 size 1000 free 150+50, heap 1 size 1000 free 100+50 -> 17.5 %. */
static void build_problem(const char *path) {
  char err[256];
  unlink(path);
  sqlite3 *db = gcs_db_open(path, err, sizeof err);
  CHECK(db != NULL);
  if (!db) return;
  common(db);
  exec(db, "INSERT INTO gcs (" GC_COLS ") VALUES "
           "(1, 10, 0, 1, 0, 0, 0, '0NI', 1, 'Induced', 1, 1000000000, 1000500000, 1001500000, 1002000000, "
           " NULL, NULL, 1000, 2, 0.05, 1, 12, 8, 10, 0),"
           "(1, 10, 0, 2, 1, 2, 0, '2N', 0, 'AllocSmall', 1, 3000000000, 3000500000, 3009500000, 3010000000, "
           " NULL, NULL, 3000, 10, 0.05, 20, 40, 30, 5, 0),"
           "(1, 10, 0, 3, 2, 2, 1, '2B', 0, 'AllocSmall', 1, 5000000000, 5000500000, 5600000000, 5001000000, "
           " 5500000000, 5503000000, 5000, 4, 0.1, 20, 40, 30, 5, 0)");
  exec(db, "INSERT INTO gc_heaps (gc_id, trace_id, pid, gc_index, heap_slot, heap_index, condemn_reasons1) "
           "VALUES (2, 1, 10, 2, 0, 0, 1), (2, 1, 10, 2, 1, 1, 128)");
  exec(db, "INSERT INTO gc_heap_gens (gc_id, trace_id, pid, gc_index, heap_slot, gen, size_before, "
           "free_list_before, free_obj_before) VALUES (3, 1, 10, 3, 0, 2, 1000, 150, 50), "
           "(3, 1, 10, 3, 1, 2, 1000, 100, 50)");
  exec(db, "INSERT INTO gc_process_summary (trace_id, pid, clr_instance, gc_count, incomplete_count, "
           "induced_count, total_pause_msec, total_alloc_mb, total_promoted_mb, process_duration_msec, "
           "pct_pause_time, lost_events) VALUES (1, 10, 0, 3, 0, 1, 16, 0, 41, 10000, 0.16, 0)");
  /* Requests: [999, 1003] (GC 1: 2 of 4 ms), [5501, 5505] (GC 3's final
   * pause: 2 of 4 ms), [7000, 7002] (none). */
  exec(db, "INSERT INTO requests (trace_id, pid, request_id, tid, start_ns, end_ns) VALUES "
           "(1, 10, 1, 5, 999000000, 1003000000), (1, 10, 2, 5, 5501000000, 5505000000), "
           "(1, 10, 3, 5, 7000000000, 7002000000), (1, 10, 4, 5, 8000000000, NULL)");
  /* Events for triggers: GC 1 GCStart->GCEnd 1 ms; the BGC's final pause
   * SuspendEEBegin(SuspendForGCPrep) -> RestartEEEnd 3 ms (suspension 0.1 ms).
   * Written as text, as an older gcscope stored them (the events table, a
   * view now): the first report brings the database up to date, keeping
   * these rows (legacy_events). */
  exec(db, "DROP VIEW events; DROP VIEW alloc_ticks; DROP VIEW gc_lifecycle; " GCS_LEGACY_SQL);
  exec(db, "INSERT INTO events (trace_id, ts_ns, pid, tid, cpu, name, version, payload) VALUES "
           "(1, 1000500000, 10, 5, 0, 'GCStart', 2, 'Count=1 Depth=0 Reason=AllocSmall Type=NonConcurrentGC ClientSequenceNumber=0'),"
           "(1, 1001500000, 10, 5, 0, 'GCEnd', 1, 'Count=1 Depth=0'),"
           "(1, 5500000000, 10, 6, 0, 'GCSuspendEEBegin', 1, 'Reason=SuspendForGCPrep Count=3'),"
           "(1, 5500100000, 10, 6, 0, 'GCSuspendEEEnd', 1, ''),"
           "(1, 5503000000, 10, 6, 0, 'GCRestartEEEnd', 1, '')");
  /* The same events as the importer types them for the triggers (gc_lifecycle):
   * GCStart Type 0 NonConcurrentGC, Reason 0 AllocSmall; SuspendForGCPrep = 6. */
  exec(db, "INSERT INTO gc_lifecycle (trace_id, ts_ns, pid, tid, name, version, count, depth, type, reason) VALUES "
           "(1, 1000500000, 10, 5, 'GCStart', 2, 1, 0, 0, 0),"
           "(1, 1001500000, 10, 5, 'GCEnd', 1, 1, 0, NULL, NULL),"
           "(1, 5500000000, 10, 6, 'GCSuspendEEBegin', 1, 3, NULL, NULL, 6),"
           "(1, 5500100000, 10, 6, 'GCSuspendEEEnd', 1, NULL, NULL, NULL, NULL),"
           "(1, 5503000000, 10, 6, 'GCRestartEEEnd', 1, NULL, NULL, NULL, NULL)");
  sqlite3_close(db);
}

static void build_healthy(const char *path) {
  char err[256];
  unlink(path);
  sqlite3 *db = gcs_db_open(path, err, sizeof err);
  CHECK(db != NULL);
  if (!db) return;
  common(db);
  exec(db, "INSERT INTO gcs (" GC_COLS ") VALUES "
           "(1, 10, 0, 1, 0, 0, 0, '0N', 0, 'AllocSmall', 1, 1000000000, 1000500000, 1001500000, 1002000000, "
           " NULL, NULL, 1000, 2, 0.05, 1, 12, 8, 10, 0),"
           "(1, 10, 0, 2, 1, 2, 1, '2B', 0, 'AllocSmall', 1, 5000000000, 5000500000, 5600000000, 5001000000, "
           " 5500000000, 5503000000, 5000, 4, 0.1, 20, 40, 30, 5, 0)");
  exec(db, "INSERT INTO gc_heap_gens (gc_id, trace_id, pid, gc_index, heap_slot, gen, size_before, "
           "free_list_before, free_obj_before) VALUES (2, 1, 10, 2, 0, 2, 1000, 100, 50)");   /* 15 %: not above */
  exec(db, "INSERT INTO gc_process_summary (trace_id, pid, clr_instance, gc_count, incomplete_count, "
           "induced_count, total_pause_msec, total_alloc_mb, total_promoted_mb, process_duration_msec, "
           "pct_pause_time, lost_events) VALUES (1, 10, 0, 2, 0, 0, 6, 0, 21, 10000, 0.06, 0)");
  sqlite3_close(db);
}

/* pid 10: two GCs, neither complete (the trace ended inside them): advise
 * cannot judge. pid 11: one complete GC, one incomplete. */
static void build_incomplete(const char *path) {
  char err[256];
  unlink(path);
  sqlite3 *db = gcs_db_open(path, err, sizeof err);
  CHECK(db != NULL);
  if (!db) return;
  common(db);
  exec(db, "INSERT INTO gcs (" GC_COLS ", incomplete_why) VALUES "
           "(1, 10, 0, 1, 0, 0, 0, '0N', 0, 'AllocSmall', 0, 1000000000, 1000500000, NULL, NULL, "
           " NULL, NULL, 1000, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trace ended inside'),"
           "(1, 10, 0, 2, 1, 0, 0, '0N', 0, 'AllocSmall', 0, 3000000000, 3000500000, NULL, NULL, "
           " NULL, NULL, 3000, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trace ended inside'),"
           /* pid 11: one complete GC and one that began before the trace: judged, with a note */
           "(1, 11, 0, 7, 1, 0, 0, '0N', 0, 'AllocSmall', 1, 1000000000, 1000500000, 1001500000, 1002000000, "
           " NULL, NULL, 1000, 2, 0.05, 1, 12, 8, 10, 0, NULL),"
           "(1, 11, 0, 6, 0, 0, 0, '0N', 0, 'AllocSmall', 0, NULL, NULL, 900000000, 900500000, "
           " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'began before the trace')");
  sqlite3_close(db);
}

/* ins_db_gcs_pauses: ins_db_gcs's GCs and ins_db_pauses's pauses (as a set)
 * from its single pass, and the complete / incomplete counts of the gcs rows. */
static int cmp_pause(const void *a, const void *b) {
  const struct ins_pause *x = a, *y = b;
  if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
  if (x->end_ns != y->end_ns) return x->end_ns < y->end_ns ? -1 : 1;
  return (x->gc_index > y->gc_index) - (x->gc_index < y->gc_index);
}
static void check_one_pass(sqlite3 *db, const struct ins_proc_key *k) {
  char err[300];
  struct ins_gc *g1 = NULL, *g2 = NULL;
  struct ins_pause *p1 = NULL, *p2 = NULL;
  size_t ng1 = 0, ng2 = 0, np1 = 0, np2 = 0;
  long complete = -1, incomplete = -1;
  CHECK_EQ_INT(ins_db_gcs(db, k, &g1, &ng1, err, sizeof err), 0);
  CHECK_EQ_INT(ins_db_pauses(db, k, &p1, &np1, err, sizeof err), 0);
  CHECK_EQ_INT(ins_db_gcs_pauses(db, k, &g2, &ng2, &p2, &np2, &complete, &incomplete, err, sizeof err), 0);
  CHECK_EQ_INT(ng1, ng2);
  CHECK_EQ_INT(np1, np2);
  int same = ng1 == ng2;
  for (size_t i = 0; same && i < ng1; i++) {
    const struct ins_gc *a = &g1[i], *b = &g2[i];
    const double da[] = {a->start_ms, a->pause_ms, a->suspend_ms, a->promoted_mb, a->peak_mb, a->after_mb,
                         a->gen0_frag_pct, a->gen2_frag_before_pct, a->gen0_survival_pct, a->gen1_survival_pct,
                         a->gen2_survival_pct, a->finalizable_surv_mb};
    const double db_[] = {b->start_ms, b->pause_ms, b->suspend_ms, b->promoted_mb, b->peak_mb, b->after_mb,
                          b->gen0_frag_pct, b->gen2_frag_before_pct, b->gen0_survival_pct, b->gen1_survival_pct,
                          b->gen2_survival_pct, b->finalizable_surv_mb};
    same = a->index == b->index && a->gen == b->gen && a->type == b->type && a->reason == b->reason &&
           a->pinned_objects == b->pinned_objects && a->condemn_conditions == b->condemn_conditions &&
           memcmp(da, db_, sizeof da) == 0;   /* bit for bit: NaN (unknown) included */
  }
  CHECK(same);
  if (np1 == np2 && np1 > 0) {   /* the view's order differs (GC pauses, then final pauses) */
    qsort(p1, np1, sizeof *p1, cmp_pause);
    qsort(p2, np2, sizeof *p2, cmp_pause);
    int eq = 1;
    for (size_t i = 0; i < np1; i++) eq &= cmp_pause(&p1[i], &p2[i]) == 0;   /* fields: not the padding */
    CHECK(eq);
  }
  sqlite3_stmt *st;
  long c = -2, ic = -2;
  if (sqlite3_prepare_v2(db, "SELECT sum(complete = 1), sum(complete = 0) FROM gcs WHERE trace_id = ?1 AND pid = ?2",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, k->trace_id);
    sqlite3_bind_int(st, 2, k->pid);
    if (sqlite3_step(st) == SQLITE_ROW) {
      c = (long)sqlite3_column_int64(st, 0);
      ic = (long)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
  }
  CHECK_EQ_INT(complete, c);
  CHECK_EQ_INT(incomplete, ic);
  free(g1);
  free(g2);
  free(p1);
  free(p2);
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: test_insight_db PROBLEM.db HEALTHY.db [INCOMPLETE.db]\n"); return 2; }
  build_problem(argv[1]);
  build_healthy(argv[2]);
  if (argc > 3) build_incomplete(argv[3]);

  struct gcs_input in;
  const struct gcs_input_opts io = {.trace_id = -1, .db_only = 1};
  char err[600];
  sqlite3 *db = gcs_input_open(argv[1], &io, &in, err, sizeof err) == 0 ? in.db : NULL;
  CHECK(db != NULL);
  if (!db) return check_done();
  struct ins_proc_key *procs;
  size_t np;
  CHECK_EQ_INT(ins_db_processes(db, 1, &procs, &np, err, sizeof err), 0);
  CHECK_EQ_INT(np, 1);
  CHECK_EQ_INT(procs[0].pid, 10);
  check_one_pass(db, &procs[0]);

  struct ins_pause *p;
  size_t n;
  CHECK_EQ_INT(ins_db_pauses(db, &procs[0], &p, &n, err, sizeof err), 0);
  CHECK_EQ_INT(n, 4);   /* 3 first pauses + the BGC's final pause */
  int64_t total = 0;
  for (size_t i = 0; i < n; i++) total += p[i].end_ns - p[i].start_ns;
  CHECK_EQ_INT(total, 2000000 + 10000000 + 1000000 + 3000000);
  free(p);

  struct ins_request *r;
  CHECK_EQ_INT(ins_db_requests(db, &procs[0], &r, &n, err, sizeof err), 0);
  CHECK_EQ_INT(n, 3);   /* the open request is left out */
  free(r);

  struct ins_gc *g;
  CHECK_EQ_INT(ins_db_gcs(db, &procs[0], &g, &n, err, sizeof err), 0);
  CHECK_EQ_INT(n, 3);
  if (n == 3) {
    CHECK_EQ_INT(g[1].condemn_conditions, 129);      /* 1 | 128 over the two heaps */
    CHECK_REL(g[2].gen2_frag_before_pct, 17.5, 1e-9);  /* 350 / 2000 */
    CHECK(isnan(g[0].gen2_frag_before_pct));
    CHECK(isnan(g[0].gen0_survival_pct));   /* NULL columns are unknown, not 0 */
    CHECK_EQ_INT(g[0].reason, 1);
  }
  struct ins_proc_summary ps;
  CHECK_EQ_INT(ins_db_summary(db, &procs[0], &ps), 0);
  CHECK_REL(ps.duration_ms, 10000, 1e-9);
  struct ins_advise_opts o;
  ins_advise_default_opts(&o);
  struct ins_advice a;
  /* GC 2's heaps were condemned for gen2 fragmentation (bit 7, max_high_frag_p): gen2-frag-gcs too */
  CHECK_EQ_INT(ins_advise(g, n, &ps, &o, &a), 4);
  CHECK(ins_advice_find(&a, "induced") != NULL);
  if (a.n == 4) {   /* warnings first (in rule order), the single induced GC (info) last */
    CHECK_STR(a.f[0].rule, "full-blocking-gen2");
    CHECK_STR(a.f[1].rule, "gen2-frag-bgc");
    CHECK_STR(a.f[2].rule, "gen2-frag-gcs");
    CHECK_STR(a.f[3].rule, "induced");
    CHECK_EQ_INT(a.f[3].severity, INS_SEV_INFO);
  }
  CHECK_EQ_INT(ps.server_gc, -1);  /* processes.server_gc NULL: unknown (workstation advice; JSON null) */
  CHECK(ins_advice_find(&a, "gen2-frag-bgc") != NULL);
  const struct ins_finding *f = ins_advice_find(&a, "full-blocking-gen2");
  CHECK(f != NULL);
  if (f) {
    CHECK_HAS(f->evidence, "induced_fullgc_p max_high_frag_p");
    CHECK_HAS(f->next, "fragmentation");
  }
  free(g);
  free(procs);
  sqlite3_close(db);

  db = gcs_input_open(argv[2], &io, &in, err, sizeof err) == 0 ? in.db : NULL;
  CHECK(db != NULL);
  if (!db) return check_done();
  CHECK_EQ_INT(ins_db_processes(db, 0, &procs, &np, err, sizeof err), 0);
  check_one_pass(db, &procs[0]);
  CHECK_EQ_INT(ins_db_gcs(db, &procs[0], &g, &n, err, sizeof err), 0);
  CHECK_EQ_INT(ins_db_summary(db, &procs[0], &ps), 0);
  CHECK_EQ_INT(ins_advise(g, n, &ps, &o, &a), 0);
  free(g);
  free(procs);
  sqlite3_close(db);

  if (argc > 3) {   /* incomplete GCs: left out of the GCs, their pauses kept, counted */
    db = gcs_input_open(argv[3], &io, &in, err, sizeof err) == 0 ? in.db : NULL;
    CHECK(db != NULL);
    if (!db) return check_done();
    CHECK_EQ_INT(ins_db_processes(db, 0, &procs, &np, err, sizeof err), 0);
    CHECK_EQ_INT(np, 2);
    for (size_t i = 0; i < np; i++) check_one_pass(db, &procs[i]);
    if (np == 2) {
      long c, ic;
      CHECK_EQ_INT(ins_db_gcs_pauses(db, &procs[1], &g, &n, &p, &np, &c, &ic, err, sizeof err), 0);
      CHECK_EQ_INT(n, 1);
      CHECK_EQ_INT(c, 1);
      CHECK_EQ_INT(ic, 1);
      free(g);
      free(p);
    }
    free(procs);
    sqlite3_close(db);
  }
  return check_done();
}
