/*
 * recon_run.h — a reconstruction fed synthetic events that, like import,
 * may store its final GCs as it goes (tests only; test_recon_row_order.c
 * and test_recon_lost_held.c). Times in us since T0; GT is the thread of
 * a GC's suspension, BT the background GC thread's.
 */
#ifndef RECON_RUN_H
#define RECON_RUN_H

#include "recon_db.h"
#include "recon_events.h"

#define GT 70
#define BT 80

struct run {
  struct gcs_recon *r;
  sqlite3 *db;
  int every;    /* gcs_recon_store_final after every this many events and windows; 0: never */
  int events;   /* events and windows fed */
  int reported; /* GCs the gc_done callback reported, for the tests that set it */
};

static inline void step(struct run *s) {
  if (s->every && ++s->events % s->every == 0) CHECK(gcs_recon_store_final(s->r, s->db, 1) == SQLITE_OK);
}
static inline void ev(struct run *s, struct gcs_event e) {
  gcs_recon_feed(s->r, &e);
  step(s);
}
/* A window of lost events of process pid from from_us to to_us. */
static inline void lost(struct run *s, int pid, double from_us, double to_us) {
  gcs_recon_lost(s->r, pid, T0 + (uint64_t)(from_us * 1000), T0 + (uint64_t)(to_us * 1000), 1);
  step(s);
}
static inline void simple(struct run *s, int pid, enum gcs_kind k, double us, int tid) {
  ev(s, ev_at(k, us, pid, tid));
}
static inline void suspend(struct run *s, int pid, double us, int tid, uint32_t reason, uint32_t count) {
  ev(s, ev_suspend(us, pid, tid, reason, count));
}
static inline void start(struct run *s, int pid, double us, int tid, uint32_t count, uint32_t depth,
                         uint32_t type) {
  ev(s, ev_start(us, pid, tid, count, depth, GCS_GC_REASON_ALLOC_SMALL, type));
}
static inline void end(struct run *s, int pid, double us, int tid, uint32_t count, uint32_t depth) {
  ev(s, ev_end(us, pid, tid, count, depth));
}
static inline void stats(struct run *s, int pid, double us, int tid, uint32_t k) {
  ev(s, ev_stats_k(us, pid, tid, k));
}

/* Background GC k of process pid begun at t us: its suspension, GCStart
 * (depth 2) and restart, t to t + 100. */
static inline void bgc_begin(struct run *s, int pid, double t, uint32_t k) {
  suspend(s, pid, t, GT, GCS_SUSPEND_REASON_SUSPEND_FOR_GC, k - 1);
  simple(s, pid, gcs_kind_GCSuspendEEEnd, t + 20, GT);
  start(s, pid, t + 40, GT, k, 2, GCS_GC_TYPE_BACKGROUND);
  simple(s, pid, gcs_kind_GCRestartEEBegin, t + 90, GT);
  simple(s, pid, gcs_kind_GCRestartEEEnd, t + 100, GT);
}

/* The rest of that GC on BT: its suspension for the final mark at
 * t + 2,000 to t + 2,210, GCEnd at t + 2,900, GCHeapStats at t + 3,000. */
static inline void bgc_finish(struct run *s, int pid, double t, uint32_t k) {
  suspend(s, pid, t + 2000, BT, GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP, k);
  simple(s, pid, gcs_kind_GCSuspendEEEnd, t + 2020, BT);
  simple(s, pid, gcs_kind_GCRestartEEBegin, t + 2200, BT);
  simple(s, pid, gcs_kind_GCRestartEEEnd, t + 2210, BT);
  end(s, pid, t + 2900, BT, k, 2);
  stats(s, pid, t + 3000, BT, k);
}

static inline void done(struct run *s) {
  gcs_recon_free(s->r);
  sqlite3_close(s->db);
}

#endif
