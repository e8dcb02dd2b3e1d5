/*
 * gcs' event times in the compact table (schemas/gcs_tables.h): stored as
 * offsets from start_ns, unless an offset would not fit in 64 bits, as a
 * crafted trace's times can make it: then the row's times are absolute (bit
 * GCS_COMPACT_ABS_TIMES of gcs_base.condemned). The view gives, either way,
 * the value the previous layout stored: the time as a signed 64-bit integer.
 *
 * GC 1 (index 1): SuspendEEBegin at T0 + 1 us, GCStart + 2, GCEnd + 3,
 *   RestartEEEnd + 4 us: offsets 1000 ns before / after GCStart.
 * GC 2 (index 2): GCStart at 2^63 - 1000 ns (a positive int64), GCEnd at
 *   2^63 + 1000 ns (as int64: -(2^63) + 1000): GCEnd - GCStart as int64
 *   overflows, so GC 2's times are stored absolute.
 */
#include <stdint.h>

#include "recon_db.h"
#include "recon_events.h"

static struct gcs_event at_ns(enum gcs_kind k, uint64_t ns) {
  struct gcs_event e = gcs_test_event(k, 7, 7, ns);
  e.cpu = 0;
  return e;
}

static void feed_gc(struct gcs_recon *r, uint64_t begin, uint64_t start, uint64_t end, uint64_t restart, uint32_t n) {
  struct gcs_event e = at_ns(gcs_kind_GCSuspendEEBegin, begin);
  e.u.GCSuspendEEBegin.Reason = 1;
  e.u.GCSuspendEEBegin.Count = n;
  gcs_recon_feed(r, &e);
  e = at_ns(gcs_kind_GCStart, start);
  e.u.GCStart.Count = n;
  gcs_recon_feed(r, &e);
  e = at_ns(gcs_kind_GCEnd, end);
  e.u.GCEnd.Count = n;
  gcs_recon_feed(r, &e);
  e = at_ns(gcs_kind_GCRestartEEEnd, restart);
  gcs_recon_feed(r, &e);
}

int main(void) {
  const uint64_t big = UINT64_C(1) << 63;
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  feed_gc(r, T0 + 1000, T0 + 2000, T0 + 3000, T0 + 4000, 1);
  feed_gc(r, big - 2000, big - 1000, big + 1000, big + 2000, 2);
  gcs_recon_finish(r);
  CHECK(gcs_recon_gc(r, 0, 1) != NULL);

  sqlite3 *db = recon_db_new();
  CHECK(gcs_recon_store(r, db, 1) == SQLITE_OK);
  CHECK(recon_q1(db, "SELECT count(*) FROM gcs") == 2);
  /* GC 1: offsets stored, the times back */
  CHECK(recon_q1(db, "SELECT suspend_begin_ns FROM gcs_base WHERE gc_index = 1") == -1000);
  CHECK(recon_q1(db, "SELECT end_ns FROM gcs_base WHERE gc_index = 1") == 1000);
  CHECK(recon_q1(db, "SELECT suspend_begin_ns FROM gcs WHERE gc_index = 1") == (int64_t)(T0 + 1000));
  CHECK(recon_q1(db, "SELECT restart_end_ns FROM gcs WHERE gc_index = 1") == (int64_t)(T0 + 4000));
  CHECK(recon_q1(db, "SELECT (condemned >> 60) & 1 FROM gcs_base WHERE gc_index = 1") == 0);
  /* GC 2: absolute, flagged; the view's values as the previous layout's */
  CHECK(recon_q1(db, "SELECT (condemned >> 60) & 1 FROM gcs_base WHERE gc_index = 2") == 1);
  CHECK(recon_q1(db, "SELECT start_ns FROM gcs WHERE gc_index = 2") == (int64_t)(big - 1000));
  CHECK(recon_q1(db, "SELECT end_ns FROM gcs WHERE gc_index = 2") == (int64_t)(big + 1000));
  CHECK(recon_q1(db, "SELECT suspend_begin_ns FROM gcs WHERE gc_index = 2") == (int64_t)(big - 2000));
  CHECK(recon_q1(db, "SELECT restart_end_ns FROM gcs WHERE gc_index = 2") == (int64_t)(big + 2000));
  CHECK(recon_q1(db, "SELECT cr_initial_generation FROM gcs WHERE gc_index = 2") == 0);   /* the flag is no group */
  sqlite3_close(db);
  gcs_recon_free(r);
  return check_done();
}
