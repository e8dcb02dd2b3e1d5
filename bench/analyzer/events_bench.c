/*
 * events-bench: how long `gcscope events DB`, `gcscope allocs DB` and
 * `gcscope heaps DB` take on a database of one large trace (NROUNDS rounds,
 * default 23,000: 2.9 M GC events, 1.2 M of them in the events view),
 * with the trace read as stored (traces.time_ordered = 1, as the import
 * records it for a trace whose events came in time order) and, in the same
 * run, with the sorting path (a copy of the database whose time_ordered is
 * NULL, as in a database imported by an older gcscope). Each command is a
 * separate process (open, read, format, write to /dev/null, exit); ROUNDS
 * rounds (default 5) run the commands in an order rotated each round,
 * beside three baselines: start-up alone (`gcscope sql DB "SELECT count(*)
 * FROM traces"`), one pass over the events view formatting every payload,
 * one over alloc_ticks. Printed per command: the median CPU time (user +
 * sys) with the lowest and highest, and the median wall time; then the
 * ratios, per round, of the sorting path to the stored one, of events
 * (stored) to the view scan, and of allocs to the ticks scan, as the median
 * and the range over the rounds:
 *   ratio events sorted / events stored cpu 1.27 (1.25-1.29)
 * The database is built by feeding synthetic events through the import's
 * writer (import_writer.h), as `gcscope import` does, a round being the mix
 * of the .NET Core 3.0 .nettrace of the test corpus per GC: 74
 * GCAllocationTick (50 type names), 10 SuspendEE/RestartEE quadruples (the
 * file's 11.5 SuspendOther), and
 * a blocking GC with GCTriggered, GCStart, 4 GCMarkWithType, GCEnd,
 * GCHeapStats, GCRestartEEBegin/End: 126 events. EVENTS_BENCH_KEEP=1 keeps the databases; EVENTS_BENCH_GCSCOPE
 * names another gcscope binary to time (a build of older code, say).
 * usage: events-bench [NROUNDS] [DB_PATH] [ROUNDS]
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cmd.h"

#include "gcs_db.h"
#include "import_writer.h"

struct gen { struct imw *w; uint64_t ts; int failed; char err[256]; };

static void put(struct gen *g, enum gcs_kind k, int tid, struct gcs_event *e) {
  e->kind = k;
  e->version = gcs_event_descs[k].version;
  e->ts_ns = g->ts;
  e->pid = 4242;
  e->tid = tid;
  e->cpu = tid % 2;
  g->ts += 1000 + (g->ts % 7) * 100;
  imw_count_event(g->w, e->pid, e->ts_ns, "bench", 1);
  if (!g->failed && imw_event(g->w, e, g->err, sizeof g->err) != 0) g->failed = 1;
}

static void quad(struct gen *g, uint32_t reason, uint32_t count) {
  struct gcs_event e;
  memset(&e, 0, sizeof e);
  e.u.GCSuspendEEBegin.Reason = reason;
  e.u.GCSuspendEEBegin.Count = count;
  put(g, gcs_kind_GCSuspendEEBegin, 7, &e);
  memset(&e, 0, sizeof e);
  put(g, gcs_kind_GCSuspendEEEnd, 7, &e);
  memset(&e, 0, sizeof e);
  put(g, gcs_kind_GCRestartEEBegin, 7, &e);
  memset(&e, 0, sizeof e);
  put(g, gcs_kind_GCRestartEEEnd, 7, &e);
}

static int build(const char *path, long rounds, uint64_t *nevents) {
  unlink(path);
  char err[600];
  sqlite3 *db = gcs_db_open(path, err, sizeof err);
  if (!db) { fprintf(stderr, "events-bench: %s\n", err); return -1; }
  sqlite3_exec(db, "BEGIN; INSERT INTO traces (id, path, identity, event_count, gc_event_count, discarded, source, "
                   "imported_ns) VALUES (1, 'synthetic', 'events-bench', 0, 0, 0, 'lttng', 0)", NULL, NULL, NULL);
  struct gen g = { imw_open(db, 1, err, sizeof err), 1000000000000ull, 0, "" };
  if (!g.w) { fprintf(stderr, "events-bench: %s\n", err); return -1; }
  uint64_t start = g.ts;
  imw_set_time_origin(g.w, start);
  char names[50][48];
  for (int i = 0; i < 50; i++) snprintf(names[i], sizeof names[i], "Bench.Namespace.Type%02d", i);
  struct gcs_event e;
  long n = 0;
  for (long r = 1; r <= rounds && !g.failed; r++) {
    for (int i = 0; i < 74; i++, n++) {
      memset(&e, 0, sizeof e);
      struct gcs_ev_GCAllocationTick *t = &e.u.GCAllocationTick;
      t->AllocationAmount = 100000 + (uint32_t)(n % 977);
      t->AllocationAmount64 = t->AllocationAmount;
      t->AllocationKind = n % 37 == 0 ? 1 : 0;
      t->TypeID = 0x7f0000 + (uint64_t)(n % 50) * 64;
      t->TypeName = names[n % 50];
      t->Address = 0x10000000 + (uint64_t)n * 128;
      t->ObjectSize = 24 + (uint64_t)(n % 200);
      put(&g, gcs_kind_GCAllocationTick, 10 + (int)(n % 4), &e);
      if (i % 7 == 6) quad(&g, 2, (uint32_t)r);  /* 10 SuspendOther quadruples */
    }
    memset(&e, 0, sizeof e);
    e.u.GCTriggered.Reason = 0;
    put(&g, gcs_kind_GCTriggered, 10, &e);
    memset(&e, 0, sizeof e);
    e.u.GCSuspendEEBegin.Reason = 1;
    e.u.GCSuspendEEBegin.Count = (uint32_t)r;
    put(&g, gcs_kind_GCSuspendEEBegin, 10, &e);
    memset(&e, 0, sizeof e);
    put(&g, gcs_kind_GCSuspendEEEnd, 10, &e);
    memset(&e, 0, sizeof e);
    e.u.GCStart.Count = (uint32_t)r;
    e.u.GCStart.Depth = r % 10 == 0 ? 2 : r % 3 == 0 ? 1 : 0;
    put(&g, gcs_kind_GCStart, 10, &e);
    for (uint32_t k = 0; k < 4; k++) {
      memset(&e, 0, sizeof e);
      e.u.GCMarkWithType.HeapNum = 0;
      e.u.GCMarkWithType.Type = k;
      e.u.GCMarkWithType.Bytes = 1000 * (k + 1) + (uint64_t)(r % 101);
      put(&g, gcs_kind_GCMarkWithType, 10, &e);
    }
    memset(&e, 0, sizeof e);
    e.u.GCEnd.Count = (uint32_t)r;
    e.u.GCEnd.Depth = r % 10 == 0 ? 2 : r % 3 == 0 ? 1 : 0;
    put(&g, gcs_kind_GCEnd, 10, &e);
    memset(&e, 0, sizeof e);
    e.u.GCHeapStats.GenerationSize0 = 1000000 + (uint64_t)(r % 13) * 10000;
    e.u.GCHeapStats.GenerationSize2 = 5000000;
    put(&g, gcs_kind_GCHeapStats, 10, &e);
    memset(&e, 0, sizeof e);
    put(&g, gcs_kind_GCRestartEEBegin, 10, &e);
    memset(&e, 0, sizeof e);
    put(&g, gcs_kind_GCRestartEEEnd, 10, &e);
  }
  if (g.failed || imw_finish(g.w, NULL, err, sizeof err) != 0) {
    fprintf(stderr, "events-bench: %s\n", g.failed ? g.err : err);
    return -1;
  }
  uint64_t events = imw_gc_events(g.w);
  *nevents = events;
  imw_close(g.w);
  char sql[256];
  snprintf(sql, sizeof sql, "UPDATE traces SET start_ns = %llu, end_ns = %llu, event_count = %llu, gc_event_count = "
           "%llu WHERE id = 1; COMMIT", (unsigned long long)start, (unsigned long long)g.ts,
           (unsigned long long)events, (unsigned long long)events);
  int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  sqlite3_close(db);
  return rc == SQLITE_OK && events > 0 ? 0 : -1;
}

/* A copy of src with time_ordered NULL (the sorting path). */
static int copy_unordered(const char *src, const char *dst) {
  unlink(dst);
  sqlite3 *db;
  if (sqlite3_open(src, &db) != SQLITE_OK) return -1;
  char *sql = sqlite3_mprintf("VACUUM INTO %Q", dst);
  int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  sqlite3_free(sql);
  sqlite3_close(db);
  if (rc != SQLITE_OK || sqlite3_open(dst, &db) != SQLITE_OK) return -1;
  rc = sqlite3_exec(db, "UPDATE traces SET time_ordered = NULL", NULL, NULL, NULL);
  sqlite3_close(db);
  return rc == SQLITE_OK ? 0 : -1;
}

int main(int argc, char **argv) {
  struct bench_args args = { 23000, "events_bench.db", 5 };
  if (bench_parse_args(argc, argv, "events-bench", "NROUNDS", &args)) return 2;
  long nrounds = args.n; const char *path = args.path; int rounds = args.rounds;
  char sorted_path[4096];
  snprintf(sorted_path, sizeof sorted_path, "%s.sorted.db", path);
  double t0 = bench_now();
  uint64_t nevents = 0;
  if (build(path, nrounds, &nevents) != 0 || copy_unordered(path, sorted_path) != 0) {
    fprintf(stderr, "events-bench: building the databases failed\n");
    return 1;
  }
  printf("built %ld rounds (%llu GC events) in %.1f s\n", nrounds, (unsigned long long)nevents, bench_now() - t0);
  const char *g = getenv("EVENTS_BENCH_GCSCOPE");
  if (!g || !*g) g = GCSCOPE_BIN;
  /* Baselines: start-up alone; one pass over the events view formatting
   * every payload (what events cannot do without); one over the ticks. */
  enum { BASE, EV_SCAN, EV_STORED, EV_SORTED, HEAPS, TICK_SCAN, ALLOCS, NC };
  static const char *const names[NC] = { "start-up (count traces)", "events view scan", "events stored",
                                         "events sorted", "heaps", "alloc_ticks scan", "allocs" };
  const char *const cmds[NC][5] = {
    { g, "sql", path, "SELECT count(*) FROM traces", NULL },
    { g, "sql", path, "SELECT count(*), sum(length(payload)) FROM events", NULL },
    { g, "events", path, NULL, NULL },
    { g, "events", sorted_path, NULL, NULL },
    { g, "heaps", path, NULL, NULL },
    { g, "sql", path, "SELECT count(*), sum(amount), sum(kind), sum(type_id) FROM alloc_ticks", NULL },
    { g, "allocs", path, NULL, NULL },
  };
  static double wall[NC][BENCH_MAX_ROUNDS], cpu[NC][BENCH_MAX_ROUNDS];
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < NC; k++) {
      int c = (k + r) % NC;
      if (bench_run_cmd("events-bench", cmds[c], &wall[c][r], &cpu[c][r]) != 0) return 1;
    }
  for (int c = 0; c < NC; c++) {
    double lo, hi;
    bench_range(cpu[c], rounds, &lo, &hi);
    printf("%-24s cpu %.3f s (%.3f-%.3f), wall %.3f s\n", names[c], bench_median(cpu[c], rounds), lo, hi,
           bench_median(wall[c], rounds));
  }
  /* Ratios per round (each round's commands ran within seconds of each other). */
  static const int pairs[][2] = { { EV_SORTED, EV_STORED }, { EV_STORED, EV_SCAN }, { ALLOCS, TICK_SCAN } };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    double ratio[BENCH_MAX_ROUNDS], lo, hi;
    for (int r = 0; r < rounds; r++) ratio[r] = cpu[pairs[i][0]][r] / cpu[pairs[i][1]][r];
    bench_range(ratio, rounds, &lo, &hi);
    printf("ratio %s / %s cpu %.2f (%.2f-%.2f)\n", names[pairs[i][0]], names[pairs[i][1]], bench_median(ratio, rounds), lo,
           hi);
  }
  if (!getenv("EVENTS_BENCH_KEEP")) { unlink(path); unlink(sorted_path); }
  return 0;
}
