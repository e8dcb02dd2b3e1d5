/*
 * stats-bench: how long `gcscope stats DB --format F` takes for text, json,
 * csv and html on a database of NGCS GCs (default 100,000; target < 0.3 s
 * each, issue 13), as a user runs it: each configuration a separate process
 * (open, load, format, write to /dev/null, exit), against a baseline measured
 * in the same run, the process `gcscope sql DB "SELECT count(*),
 * sum(pause_msec) FROM gcs"` (start-up plus one pass over the table). ROUNDS
 * rounds (default 7) run the five commands in an order rotated each round;
 * printed per command: the median wall time with the lowest and highest, and
 * the median CPU time (user + sys, all threads: csv writes its halves on two
 * threads from 20,000 rows); then per format the median and the ratio to the
 * baseline process with its range over the rounds:
 *   stats text 100000 GCs: 0.18 s (ratio to the count(*) process 9.0, 8.1-10.2; target < 0.3 s)
 * html includes the advisor's findings block, as `gcscope stats --format
 * html` prints it. docs/stats.md, "Benchmark and speed", says how README's
 * figures were measured. The database is built by feeding synthetic
 * blocking/background GC event sequences through gcs_recon and
 * gcs_recon_store. STATS_BENCH_KEEP=1 keeps it; STATS_BENCH_GCSCOPE names
 * another gcscope binary to time (a build of older code, say).
 * usage: stats-bench [NGCS] [DB_PATH] [ROUNDS]
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cmd.h"

#include "gcs_recon.h"
#include "gcs_tables.h"

static void feed(struct gcs_recon *r, enum gcs_kind k, uint64_t ts, int tid, struct gcs_event *e) {
  e->kind = k;
  e->version = gcs_event_descs[k].version;
  e->ts_ns = ts;
  e->pid = 1000;
  e->tid = tid;
  gcs_recon_feed(r, e);
}

int main(int argc, char **argv) {
  struct bench_args args = { 100000, "stats_bench.db", 7 };
  if (bench_parse_args(argc, argv, "stats-bench", "NGCS", &args)) return 2;
  long n = args.n; const char *path = args.path; int rounds = args.rounds;
  unlink(path);
  sqlite3 *db;
  if (sqlite3_open(path, &db) != SQLITE_OK) return 1;
  sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;", NULL, NULL, NULL);
  char *err = NULL;
  if (sqlite3_exec(db, gcs_schema_sql_kept(), NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "stats-bench: %s\n", err);
    return 1;
  }
  sqlite3_exec(db, "INSERT INTO traces (id, path, identity, event_count, gc_event_count, discarded, source, imported_ns) "
                   "VALUES (1, 'synthetic', 'x', 0, 0, 0, 'lttng', 0)", NULL, NULL, NULL);
  double t0 = bench_now();
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  uint64_t ts = 1000000000000ull;
  struct gcs_event e;
  for (long i = 1; i <= n; i++) {
    memset(&e, 0, sizeof e);
    e.u.GCSuspendEEBegin.Reason = 1;
    feed(r, gcs_kind_GCSuspendEEBegin, ts, 7, &e);
    memset(&e, 0, sizeof e);
    feed(r, gcs_kind_GCSuspendEEEnd, ts + 20000, 7, &e);
    e.u.GCStart.Count = (uint32_t)i;
    e.u.GCStart.Depth = (uint32_t)(i % 10 == 0 ? 2 : i % 3 == 0 ? 1 : 0);
    feed(r, gcs_kind_GCStart, ts + 30000, 7, &e);
    memset(&e, 0, sizeof e);
    e.u.GCEnd.Count = (uint32_t)i;
    feed(r, gcs_kind_GCEnd, ts + 30000 + (uint64_t)(i % 97) * 100000, 7, &e);
    memset(&e, 0, sizeof e);
    e.u.GCHeapStats.GenerationSize0 = 1000000 + (uint64_t)(i % 13) * 10000;
    e.u.GCHeapStats.GenerationSize2 = 5000000;
    feed(r, gcs_kind_GCHeapStats, ts + 40000 + (uint64_t)(i % 97) * 100000, 7, &e);
    memset(&e, 0, sizeof e);
    feed(r, gcs_kind_GCRestartEEEnd, ts + 50000 + (uint64_t)(i % 97) * 100000, 7, &e);
    ts += 20000000;
  }
  gcs_recon_finish(r);
  sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
  int rc = gcs_recon_store(r, db, 1);
  sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  sqlite3_exec(db, GCS_INDEX_SQL, NULL, NULL, NULL);
  gcs_recon_free(r);
  sqlite3_close(db);
  if (rc) {
    fprintf(stderr, "stats-bench: store failed (%d)\n", rc);
    return 1;
  }
  printf("built %ld GCs in %.3f s\n", n, bench_now() - t0);

  /* Each configuration is a separate process, as a user runs it: the
   * baseline `gcscope sql DB "SELECT count(*), sum(pause_msec) FROM gcs"`
   * and `gcscope stats DB --format F` for each format, output to /dev/null.
   * Rounds rotate the order so that a change in load hits every one. */
  const char *gcscope = getenv("STATS_BENCH_GCSCOPE") ? getenv("STATS_BENCH_GCSCOPE") : GCSCOPE_BIN;
  static const char *const names[] = { "count(*)", "text", "json", "csv", "html" };
  enum { NC = sizeof names / sizeof names[0] };
  static double wall[NC][BENCH_MAX_ROUNDS], cpu[NC][BENCH_MAX_ROUNDS];
  for (int round = 0; round < rounds; round++)
    for (int k = 0; k < NC; k++) {
      int c = (k + round) % NC;
      const char *argv_sql[] = { gcscope, "sql", path, "SELECT count(*), sum(pause_msec) FROM gcs", NULL };
      const char *argv_stats[] = { gcscope, "stats", path, "--format", names[c], NULL };
      if (bench_run_cmd("stats-bench", c == 0 ? argv_sql : argv_stats, &wall[c][round], &cpu[c][round]) != 0) return 1;
    }
  if (!getenv("STATS_BENCH_KEEP")) unlink(path);
  printf("%d rounds, each configuration a separate process, order rotated; median (lowest-highest)\n", rounds);
  double base = bench_median(wall[0], rounds);
  for (int c = 0; c < NC; c++) {
    double lo, hi;
    bench_range(wall[c], rounds, &lo, &hi);
    printf("%-38s wall %.3f s (%.3f-%.3f), CPU %.3f s\n", c == 0 ? "gcscope sql DB 'SELECT count(*) ...'" : names[c],
           bench_median(wall[c], rounds), lo, hi, bench_median(cpu[c], rounds));
  }
  for (int c = 1; c < NC; c++) {
    double lo, hi, r[BENCH_MAX_ROUNDS];
    for (int i = 0; i < rounds; i++) r[i] = wall[0][i] > 0 ? wall[c][i] / wall[0][i] : 0;
    bench_range(r, rounds, &lo, &hi);
    printf("stats %s %ld GCs: %.2f s (ratio to the count(*) process %.1f, %.1f-%.1f; target < 0.3 s)\n", names[c], n,
           bench_median(wall[c], rounds), base > 0 ? bench_median(wall[c], rounds) / base : 0.0, lo, hi);
  }
  return 0;
}
