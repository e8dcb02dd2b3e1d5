/*
 * The rows of the per-GC tables without a key of their own (gc_loh_waits,
 * gc_loh_compact, gc_fit_buckets, the DATAS tables) come in the same rowid
 * order however often gcs_recon_store_final writes: by their GC's id, then
 * as the GC holds them, as writing every GC at the end gives.
 *
 * Two processes, 7 and 9, their GCs interleaved: 70 units each, process 7's
 * unit u at 10,000 u us, process 9's at 10,000 u + 5,000. Unit u is a
 * background GC when u modulo 20 is 5 (u = 5, 25, 45, 65), with an
 * allocation wait of thread 100 + u begun and ended inside it; 18 units
 * later (u = 23, 43, 63) the end of a wait of thread 200 + u whose
 * beginning was not seen, which goes to the last complete background GC,
 * 18 GCs back (written already when GCs are written while reading: its
 * gc_loh_waits rows are deleted and written again). The others are
 * blocking GCs, with inside them a GCLOHCompact of 2 heaps when u modulo 3
 * is 0, a GCFitBucketInfo of 3 buckets when u modulo 4 is 1, and DATAS's
 * SizeAdaptationSample naming the GC when u modulo 5 is 2. Per process:
 * 4 + 3 = 7 waits; the 24 multiples of 3 below 70 but 45, 23 GCs of 2
 * LOH compaction rows, 46; u = 1, 5, ..., 69 (18) but the 4 background GCs
 * (each 1 modulo 4), 14 GCs of 3 buckets, 42; u = 2, 7, ..., 67, 14
 * samples. Both processes: 14, 92, 84 and 28 rows.
 *
 * Run A writes every GC at the end (gcs_recon_store); runs B, C and D call
 * gcs_recon_store_final after every event, every 7th and every 100th. The
 * tables read in rowid order (what sqlite3's .dump and a SELECT without
 * ORDER BY give), every value's storage class and bits, must be the same
 * in all four, and each table's gc_id never decreases along the rowids.
 * Before, each row went after the last one inserted: run A had process 7's
 * rows, then process 9's; the early stores interleaved them as each
 * process's GCs became final, and a rewritten background GC's waits went
 * after every row inserted before.
 *
 * Then every GC is deleted from the base table (DELETE FROM gcs_base: the
 * per-GC rows stay; through the view they would go) and the same GCs stored
 * again into the database: 140 GCs, 28 waits of which 14 join a GC (the
 * new ones), 84 fit-bucket rows joining; the new ids above every old
 * row's GC. Without the store looking past gcs_base's ids (the rowids'
 * GC slots), the new GC 1 took id 1 and its first row rowid 2^32, held by
 * an old row: the store failed.
 */
#include <stdlib.h>
#include <string.h>

#include "recon_db.h"
#include "recon_events.h"

#define GT 70
#define BT 80
#define UNITS 70

struct run {
  struct gcs_recon *r;
  sqlite3 *db;
  int every;     /* store_final after every this many events; 0: at the end only */
  int events;
};

static void ev(struct run *s, struct gcs_event e) {
  gcs_recon_feed(s->r, &e);
  if (s->every && ++s->events % s->every == 0) CHECK(gcs_recon_store_final(s->r, s->db, 1) == SQLITE_OK);
}
static void simple(struct run *s, int pid, enum gcs_kind k, double us, int tid) { ev(s, ev_at(k, us, pid, tid)); }
static void suspend(struct run *s, int pid, double us, int tid, uint32_t reason, uint32_t count) {
  struct gcs_event e = ev_at(gcs_kind_GCSuspendEEBegin, us, pid, tid);
  e.u.GCSuspendEEBegin.Reason = reason;
  e.u.GCSuspendEEBegin.Count = count;
  ev(s, e);
}
static void start(struct run *s, int pid, double us, int tid, uint32_t count, uint32_t depth, uint32_t type) {
  struct gcs_event e = ev_at(gcs_kind_GCStart, us, pid, tid);
  e.u.GCStart.Count = count;
  e.u.GCStart.Depth = depth;
  e.u.GCStart.Reason = GCS_GC_REASON_ALLOC_SMALL;
  e.u.GCStart.Type = type;
  ev(s, e);
}
static void end(struct run *s, int pid, double us, int tid, uint32_t count, uint32_t depth) {
  struct gcs_event e = ev_at(gcs_kind_GCEnd, us, pid, tid);
  e.u.GCEnd.Count = count;
  e.u.GCEnd.Depth = depth;
  ev(s, e);
}
static void stats(struct run *s, int pid, double us, int tid, uint32_t k) {
  struct gcs_event e = ev_at(gcs_kind_GCHeapStats, us, pid, tid);
  e.u.GCHeapStats.GenerationSize0 = 1000000 + k * 1000;
  e.u.GCHeapStats.GenerationSize1 = 2000000 + k * 100;
  e.u.GCHeapStats.TotalPromotedSize0 = 100000 + k;
  ev(s, e);
}
static void wait_event(struct run *s, int pid, double us, int tid, int begin) {
  struct gcs_event w = ev_at(begin ? gcs_kind_BGCAllocWaitBegin : gcs_kind_BGCAllocWaitEnd, us, pid, tid);
  if (begin) w.u.BGCAllocWaitBegin.Reason = 11;
  else w.u.BGCAllocWaitEnd.Reason = 11;
  ev(s, w);
}

/* Blocking GC k of unit u at t us, with its per-GC rows. */
static void blocking(struct run *s, int pid, double t, uint32_t k, int u) {
  suspend(s, pid, t, GT, GCS_SUSPEND_REASON_SUSPEND_FOR_GC, k - 1);
  simple(s, pid, gcs_kind_GCSuspendEEEnd, t + 20, GT);
  start(s, pid, t + 40, GT, k, 0, GCS_GC_TYPE_NON_CONCURRENT);
  if (u % 3 == 0) {
    struct gcs_event e = ev_at(gcs_kind_GCLOHCompact, t + 100, pid, GT);
    e.u.GCLOHCompact.Count = 2;
    for (int h = 0; h < 2; h++) {
      e.u.GCLOHCompact.TimePlan[h] = (uint32_t)(u * 10 + h);
      e.u.GCLOHCompact.TimeCompact[h] = (uint32_t)(pid * 1000 + u);
      e.u.GCLOHCompact.TimeRelocate[h] = 7;
      e.u.GCLOHCompact.TotalRefs[h] = (uint64_t)(100 + u);
      e.u.GCLOHCompact.ZeroRefs[h] = (uint64_t)h;
    }
    ev(s, e);
  }
  if (u % 4 == 1) {
    struct gcs_event e = ev_at(gcs_kind_GCFitBucketInfo, t + 110, pid, GT);
    e.u.GCFitBucketInfo.BucketKind = 0;
    e.u.GCFitBucketInfo.TotalSize = (uint64_t)(pid * 100000 + u);
    e.u.GCFitBucketInfo.Count = 3;
    for (int b = 0; b < 3; b++) {
      e.u.GCFitBucketInfo.Index[b] = (uint16_t)b;
      e.u.GCFitBucketInfo.ItemCount[b] = (uint32_t)(u + b);
      e.u.GCFitBucketInfo.Size[b] = (uint64_t)(1000 * b + u);
    }
    ev(s, e);
  }
  if (u % 5 == 2) {
    struct gcs_event e = ev_at(gcs_kind_GCSizeAdaptationSample, t + 120, pid, GT);
    e.u.GCSizeAdaptationSample.Version = 1;
    e.u.GCSizeAdaptationSample.GCIndex = k;
    e.u.GCSizeAdaptationSample.GCPauseTime = (uint64_t)(pid * 1000 + u);
    ev(s, e);
  }
  end(s, pid, t + 300, GT, k, 0);
  stats(s, pid, t + 310, GT, k);
  simple(s, pid, gcs_kind_GCRestartEEBegin, t + 480, GT);
  simple(s, pid, gcs_kind_GCRestartEEEnd, t + 500, GT);
}

/* Background GC k of unit u from t to t + 3,000 us, a wait inside it. */
static void background(struct run *s, int pid, double t, uint32_t k, int u) {
  suspend(s, pid, t, GT, GCS_SUSPEND_REASON_SUSPEND_FOR_GC, k - 1);
  simple(s, pid, gcs_kind_GCSuspendEEEnd, t + 20, GT);
  start(s, pid, t + 40, GT, k, 2, GCS_GC_TYPE_BACKGROUND);
  simple(s, pid, gcs_kind_GCRestartEEBegin, t + 90, GT);
  simple(s, pid, gcs_kind_GCRestartEEEnd, t + 100, GT);
  wait_event(s, pid, t + 500, 100 + u, 1);
  wait_event(s, pid, t + 1500, 100 + u, 0);
  suspend(s, pid, t + 2000, BT, GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP, k);
  simple(s, pid, gcs_kind_GCSuspendEEEnd, t + 2020, BT);
  simple(s, pid, gcs_kind_GCRestartEEBegin, t + 2200, BT);
  simple(s, pid, gcs_kind_GCRestartEEEnd, t + 2210, BT);
  end(s, pid, t + 2900, BT, k, 2);
  stats(s, pid, t + 3000, BT, k);
}

static void feed(struct run *s) {
  for (int u = 0; u < UNITS; u++)
    for (int p = 0; p < 2; p++) {
      int pid = p ? 9 : 7;
      double t = u * 10000.0 + p * 5000.0;
      if (u % 20 == 5) background(s, pid, t, (uint32_t)u + 1, u);
      else blocking(s, pid, t, (uint32_t)u + 1, u);
      if (u % 20 == 3 && u > 20) wait_event(s, pid, t + 4000, 200 + u, 0);
    }
  CHECK(gcs_recon_store(s->r, s->db, 1) == SQLITE_OK);
}

static const char *const tables[] = { "gc_loh_waits", "gc_loh_compact", "gc_fit_buckets", "gc_datas_samples" };
#define NTABLES (sizeof tables / sizeof tables[0])

/* The tables in rowid order, each value's storage class and bits. */
static char *dump(sqlite3 *db) {
  size_t cap = 1 << 16, n = 0;
  char *out = malloc(cap);
  CHECK(out != NULL);
  for (size_t i = 0; i < NTABLES; i++) {
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT * FROM %s", tables[i]);
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(st); c++) {
        char cell[64];
        int t = sqlite3_column_type(st, c);
        if (t == SQLITE_FLOAT) {
          double v = sqlite3_column_double(st, c);
          uint64_t bits;
          memcpy(&bits, &v, sizeof bits);
          snprintf(cell, sizeof cell, "F%016llx|", (unsigned long long)bits);
        } else if (t == SQLITE_INTEGER) {
          snprintf(cell, sizeof cell, "I%lld|", (long long)sqlite3_column_int64(st, c));
        } else {
          snprintf(cell, sizeof cell, t == SQLITE_NULL ? "N|" : "T|");
        }
        size_t len = strlen(cell);
        if (n + len + 64 > cap) {
          cap *= 2;
          out = realloc(out, cap);
          CHECK(out != NULL);
        }
        memcpy(out + n, cell, len);
        n += len;
      }
      out[n++] = '\n';
    }
    n += (size_t)snprintf(out + n, cap - n, "-- %s\n", tables[i]);
    sqlite3_finalize(st);
  }
  out[n] = 0;
  return out;
}

static void run(struct run *s, int every) {
  memset(s, 0, sizeof *s);
  s->r = gcs_recon_new(NULL, NULL);
  s->db = recon_db_new();
  s->every = every;
  gcs_recon_set_time_origin(s->r, T0);
  feed(s);
}

static void done(struct run *s) {
  gcs_recon_free(s->r);
  sqlite3_close(s->db);
}

int main(void) {
  struct run a, b;
  run(&a, 0);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs") == 2 * UNITS);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_loh_waits") == 14);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_loh_waits WHERE start_msec IS NULL AND tid >= 200") == 6);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_loh_compact") == 92);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_fit_buckets") == 84);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_datas_samples") == 28);
  /* the late ends: to the background GC 18 units back (u = 5, 25, 45) */
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_loh_waits w JOIN gcs g ON g.id = w.gc_id "
                       "WHERE w.tid >= 200 AND g.gc_index = w.tid - 200 - 18 + 1 AND g.type = 1") == 6);
  char *da = dump(a.db);
  for (size_t i = 0; i < NTABLES; i++) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM (SELECT gc_id, lag(gc_id) OVER (ORDER BY rowid) AS prev FROM %s) "
             "WHERE gc_id < prev", tables[i]);
    CHECK(recon_q1(a.db, sql) == 0);
  }
  static const int cadences[] = { 1, 7, 100 };
  for (size_t c = 0; c < sizeof cadences / sizeof cadences[0]; c++) {
    run(&b, cadences[c]);
    CHECK(gcs_recon_stored_final(b.r) > 0);
    char *db = dump(b.db);
    CHECK(strcmp(da, db) == 0);
    if (strcmp(da, db) != 0) {
      size_t i = 0;
      while (da[i] && da[i] == db[i]) i++;
      size_t from = i > 200 ? i - 200 : 0;
      fprintf(stderr, "every %d: first difference at byte %zu:\nA: %.300s\nB: %.300s\n", cadences[c], i,
              da + from, db + from);
    }
    char *full_a = recon_dump(a.db), *full_b = recon_dump(b.db);
    CHECK(strcmp(full_a, full_b) == 0);
    free(full_a);
    free(full_b);
    free(db);
    done(&b);
  }
  free(da);

  /* The GCs deleted by hand from the base table (DELETE FROM gcs_base;
   * through the view gcs the per-GC rows go too, import.gc_delete): the
   * per-GC rows stay, and the same GCs stored again get ids above their
   * rowids' GC slots, so no rowid is taken twice (before the store looked
   * for the ids above the largest in gcs_base, 0 here: the insert failed on
   * the first rowid) and no old row joins a new GC. */
  CHECK(sqlite3_exec(a.db, "DELETE FROM gcs_base", NULL, NULL, NULL) == SQLITE_OK);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs_base") == 0);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_loh_waits") == 14);
  gcs_recon_free(a.r);
  a.r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(a.r, T0);
  feed(&a);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs") == 2 * UNITS);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_loh_waits") == 28);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_loh_waits w JOIN gcs g ON g.id = w.gc_id") == 14);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_fit_buckets w JOIN gcs g ON g.id = w.gc_id") == 84);
  CHECK(recon_q1(a.db, "SELECT min(id) > (SELECT max(gc_id) FROM gc_loh_compact WHERE gc_id NOT IN "
                       "(SELECT id FROM gcs)) FROM gcs") == 1);
  done(&a);
  return check_done();
}
