/*
 * stats-bench: time to print GCStats (`gcscope stats DB`, text) for a database
 * holding N GCs (default 100,000; target < 1 s), against a baseline measured
 * in the same run: one plain `SELECT count(*), sum(pause_msec) FROM gcs` pass.
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

#include "gcs_recon.h"
#include "gcs_tables.h"
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

  sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
  double b0 = now();
  sqlite3_stmt *s;
  sqlite3_prepare_v2(db, "SELECT count(*), sum(pause_msec) FROM gcs", -1, &s, NULL);
  sqlite3_step(s);
  long cnt = (long)sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  double base = now() - b0;

  FILE *devnull = fopen("/dev/null", "w");
  double s0 = now(), c0 = cpu_now();
  struct st_model m;
  char lerr[256];
  if (st_load(db, -1, &m, lerr, sizeof lerr) != 0) {
    fprintf(stderr, "stats-bench: %s\n", lerr);
    return 1;
  }
  double l1 = now();
  st_write_text(devnull, &m, 0, 0);
  printf("  (load %.4f s, text %.4f s)\n", l1 - s0, now() - l1);
  double stats = now() - s0, stats_cpu = cpu_now() - c0;
  st_free(&m);
  fclose(devnull);
  sqlite3_close(db);
  if (!getenv("STATS_BENCH_KEEP")) unlink(path);
  printf("baseline SELECT count(*) pass over %ld GCs: %.4f s\n", cnt, base);
  printf("gcscope stats (text) over %ld GCs: %.4f s (target < 1 s)\n", cnt, stats);
  printf("gcscope stats CPU time: %.4f s\n", stats_cpu);
  printf("ratio stats/baseline: %.1f\n", base > 0 ? stats / base : 0.0);
  return 0;
}
