/*
 * stats-bench: time to print GCStats (`gcscope stats DB --format F`, for text,
 * json, csv and html) for a database holding N GCs (default 100,000; target
 * < 0.3 s each, issue 13), against a baseline measured in the same run: one
 * plain `SELECT count(*), sum(pause_msec) FROM gcs` pass. The database is
 * opened and read as `gcscope stats DB` does (gcs_input_open, st_load, the
 * format's writer to /dev/null); each pass is timed RUNS times, the formats
 * alternating, and the fastest counts. The last lines are the results:
 *   stats text 100000 GCs: 0.18 s (ratio to count(*) pass 10.3; target < 0.3 s)
 * csv writes its two halves on two threads from 20,000 rows (stats_out.c):
 * its CPU time is then larger than its wall time. docs/stats.md, "Benchmark
 * and speed", says how the README's figures were measured.
 * The database is built by feeding synthetic blocking/background GC event
 * sequences through gcs_recon and gcs_recon_store.
 * usage: stats-bench [NGCS] [DB_PATH]
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gcs_gcdb.h"
#include "gcs_recon.h"
#include "gcs_tables.h"
#include "rpt_util.h"
#include "stats_model.h"

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void feed(struct gcs_recon *r, enum gcs_kind k, uint64_t ts, int tid, struct gcs_event *e) {
  e->kind = k;
  e->version = gcs_event_descs[k].version;
  e->ts_ns = ts;
  e->pid = 1000;
  e->tid = tid;
  gcs_recon_feed(r, e);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  const char *path = argc > 2 ? argv[2] : "stats_bench.db";
  unlink(path);
  sqlite3 *db;
  if (sqlite3_open(path, &db) != SQLITE_OK) return 1;
  sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;", NULL, NULL, NULL);
  char *err = NULL;
  if (sqlite3_exec(db, GCS_SCHEMA_SQL, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "stats-bench: %s\n", err);
    return 1;
  }
  sqlite3_exec(db, "INSERT INTO traces (id, path, identity, event_count, gc_event_count, discarded, source, imported_ns) "
                   "VALUES (1, 'synthetic', 'x', 0, 0, 0, 'lttng', 0)", NULL, NULL, NULL);
  double t0 = now();
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
  printf("built %ld GCs in %.3f s\n", n, now() - t0);

  /* Open as `gcscope stats` does. Each pass runs RUNS times and the fastest
   * counts: the baseline is a few tens of ms, and a single run is noisy. */
  char oerr[512];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = -1, .db_only = 1};
  db = gcs_input_open(path, &io, &in, oerr, sizeof oerr) == 0 ? in.db : NULL;
  if (!db) {
    fprintf(stderr, "stats-bench: %s\n", oerr);
    return 1;
  }
  enum { RUNS = 3 };
  double base = 1e9;
  long cnt = 0;
  for (int run = 0; run < RUNS; run++) {
    double b0 = now();
    sqlite3_stmt *s;
    sqlite3_prepare_v2(db, "SELECT count(*), sum(pause_msec) FROM gcs", -1, &s, NULL);
    sqlite3_step(s);
    cnt = (long)sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    double b = now() - b0;
    if (b < base) base = b;
  }
  FILE *devnull = fopen("/dev/null", "w");
  if (!devnull) return 1;
  /* Each format as `gcscope stats --format F` reads and writes it (stats_cmd.c),
   * output to /dev/null; the formats alternate run by run. */
  static const char *const fmts[] = { "text", "json", "csv", "html" };
  enum { NF = sizeof fmts / sizeof fmts[0] };
  double wall[NF], cpu[NF], load[NF], out[NF];
  for (int f = 0; f < NF; f++) wall[f] = cpu[f] = 1e9, load[f] = out[f] = 0;
  for (int run = 0; run < RUNS; run++)
    for (int f = 0; f < NF; f++) {
      double s0 = now(), c0 = cpu_now(), l1;
      struct st_model m;
      char lerr[256];
      int csv = strcmp(fmts[f], "csv") == 0;
      if (st_load(db, -1, csv ? ST_LOAD_PROCS : f == 0 ? ST_LOAD_TEXT : ST_LOAD_ALL, &m, lerr, sizeof lerr) != 0) {
        fprintf(stderr, "stats-bench: %s\n", lerr);
        return 1;
      }
      l1 = now();
      if (csv) {
        st_warnings(devnull, &m, "");
        st_free(&m);
        if (st_write_csv(devnull, db, -1)) { fprintf(stderr, "stats-bench: csv: %s\n", sqlite3_errmsg(db)); return 1; }
      } else {
        if (f == 0) {
          const struct st_text_opts to = {.wide = 0, .color = 0, .gcs = ST_GCS_ALL};
          st_write_text(devnull, &m, &to);
        } else if (strcmp(fmts[f], "json") == 0) {
          st_warnings(devnull, &m, "");
          st_write_json(devnull, &m);
        } else {
          st_write_html(devnull, &m, NULL);   /* the report alone: the advisor block is gcscope advise's cost */
        }
        st_free(&m);
      }
      fflush(devnull);
      double s1 = now(), c1 = cpu_now();
      if (s1 - s0 < wall[f]) { wall[f] = s1 - s0; load[f] = l1 - s0; out[f] = s1 - l1; }
      if (c1 - c0 < cpu[f]) cpu[f] = c1 - c0;
    }
  fclose(devnull);
  sqlite3_close(db);
  if (!getenv("STATS_BENCH_KEEP")) unlink(path);
  printf("baseline SELECT count(*) pass over %ld GCs: %.4f s (fastest of %d)\n", cnt, base, RUNS);
  for (int f = 0; f < NF; f++)
    printf("gcscope stats --format %-4s over %ld GCs: %.4f s wall (load %.4f s, write %.4f s), %.4f s CPU (fastest of %d)\n",
           fmts[f], cnt, wall[f], load[f], out[f], cpu[f], RUNS);
  for (int f = 0; f < NF; f++)
    printf("stats %s %ld GCs: %.2f s (ratio to count(*) pass %.1f; target < 0.3 s)\n", fmts[f], cnt, wall[f],
           base > 0 ? wall[f] / base : 0.0);
  return 0;
}
