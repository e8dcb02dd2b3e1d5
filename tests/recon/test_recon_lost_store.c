/*
 * gcs_recon_store_final and loss windows (gcs_recon_lost_horizon): a GC is
 * written early only when no window still to come can reach it.
 *
 * 40 blocking GCs of process 7, GC k from k ms (SuspendEEBegin) to k ms +
 * 0.5 (RestartEEEnd), each followed by gcs_recon_store_final.
 * A: the horizon is 0 (a reader's stream may still report events lost from
 *    the trace's start): nothing is written while it is; a window [start,
 *    3.5 ms] then marks GCs 1, 2 and 3 (GC 4 begins at 4 ms); the horizon
 *    lifted, GC 41 fed, the early stores write GCs, and at the end the table
 *    holds 41 GCs, those three marked "events lost".
 * B: no horizon given (windows come in the order of their beginnings): GCs
 *    are written early (the first 40 - 16 at most: the last 16 may still get
 *    events); a window reaching back to the start, against that contract,
 *    can only mark the GCs not written: GC 1 stays complete, GC 40 is marked.
 */
#include <stdint.h>

#include "recon_db.h"
#include "recon_events.h"

static void gc(struct gcs_recon *r, uint32_t k) {
  struct blocking b = { k * 1000.0, k * 1000.0 + 100, k * 1000.0 + 200, k * 1000.0 + 300, k * 1000.0 + 400,
                        k * 1000.0 + 500, k, 0, 0, 0, { 100000, 0, 0, 0, 0 }, { 0 } };
  feed_blocking(r, 7, 70, &b);
}

#define LOST "FROM gcs WHERE incomplete_why LIKE '%events lost%'"

int main(void) {
  /* A */
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  gcs_recon_lost_horizon(r, 0);
  sqlite3 *db = recon_db_new();
  for (uint32_t k = 1; k <= 40; k++) {
    gc(r, k);
    CHECK(gcs_recon_store_final(r, db, 1) == SQLITE_OK);
  }
  CHECK(recon_q1(db, "SELECT count(*) FROM gcs") == 0);
  gcs_recon_lost(r, -1, 0, T0 + 3500000, 1);
  gcs_recon_lost_horizon(r, UINT64_MAX);
  gc(r, 41);
  CHECK(gcs_recon_store_final(r, db, 1) == SQLITE_OK);
  int64_t early = recon_q1(db, "SELECT count(*) FROM gcs");
  CHECK(early > 0 && early <= 41 - 16);
  CHECK(recon_q1(db, "SELECT count(*) " LOST) == 3);   /* written early, marked */
  CHECK(gcs_recon_store(r, db, 1) == SQLITE_OK);
  CHECK(recon_q1(db, "SELECT count(*) FROM gcs") == 41);
  CHECK(recon_q1(db, "SELECT count(*) " LOST) == 3 && recon_q1(db, "SELECT sum(gc_index) " LOST) == 1 + 2 + 3);
  CHECK(recon_q1(db, "SELECT count(*) FROM gcs WHERE complete = 1") == 38);
  sqlite3_close(db);
  gcs_recon_free(r);

  /* B */
  r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  db = recon_db_new();
  for (uint32_t k = 1; k <= 40; k++) {
    gc(r, k);
    CHECK(gcs_recon_store_final(r, db, 1) == SQLITE_OK);
  }
  early = recon_q1(db, "SELECT count(*) FROM gcs");
  CHECK(early > 0 && early <= 40 - 16);
  gcs_recon_lost(r, -1, 0, T0 + 40500000, 1);
  CHECK(gcs_recon_store(r, db, 1) == SQLITE_OK);
  CHECK(recon_q1(db, "SELECT count(*) FROM gcs") == 40);
  CHECK(recon_q1(db, "SELECT complete FROM gcs WHERE gc_index = 1") == 1);
  CHECK(recon_q1(db, "SELECT complete FROM gcs WHERE gc_index = 40") == 0);
  CHECK(recon_q1(db, "SELECT count(*) " LOST) == 40 - early);
  sqlite3_close(db);
  gcs_recon_free(r);
  return check_done();
}
