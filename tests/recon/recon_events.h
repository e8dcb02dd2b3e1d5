/*
 * recon_events.h — tiny builders for synthetic GC event sequences (tests only).
 * Times are given in microseconds since the trace origin T0 so that the
 * expected figures in the tests can be computed by hand in milliseconds.
 */
#ifndef RECON_EVENTS_H
#define RECON_EVENTS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gcs_events.h"
#include "gcs_gc.h"
#include "check.h"
#include "gcs_test_event.h"
#include "gcs_recon.h"

#define T0 1000000000000ull /* origin, ns */

static inline struct gcs_event ev_at(enum gcs_kind k, double us, int pid, int tid) {
  struct gcs_event e = gcs_test_event(k, pid, tid, T0 + (uint64_t)llround(us * 1000.0));
  e.cpu = 0;
  return e;
}

/* The events of a GC's phases, built for a test to feed as it likes. */
static inline struct gcs_event ev_suspend(double us, int pid, int tid, uint32_t reason, uint32_t count) {
  struct gcs_event e = ev_at(gcs_kind_GCSuspendEEBegin, us, pid, tid);
  e.u.GCSuspendEEBegin = (struct gcs_ev_GCSuspendEEBegin){ .Reason = reason, .Count = count };
  return e;
}
static inline struct gcs_event ev_start(double us, int pid, int tid, uint32_t count, uint32_t depth, uint32_t reason,
                                        uint32_t type) {
  struct gcs_event e = ev_at(gcs_kind_GCStart, us, pid, tid);
  e.u.GCStart = (struct gcs_ev_GCStart){ .Count = count, .Depth = depth, .Reason = reason, .Type = type };
  return e;
}
static inline struct gcs_event ev_end(double us, int pid, int tid, uint32_t count, uint32_t depth) {
  struct gcs_event e = ev_at(gcs_kind_GCEnd, us, pid, tid);
  e.u.GCEnd = (struct gcs_ev_GCEnd){ .Count = count, .Depth = depth };
  return e;
}
/* GC k's GCHeapStats: generation 0 of 1,000,000 + 1,000 k bytes after it,
 * generation 1 of 2,000,000 + 100 k, 100,000 + k promoted from gen 0. */
static inline struct gcs_event ev_stats_k(double us, int pid, int tid, uint32_t k) {
  struct gcs_event e = ev_at(gcs_kind_GCHeapStats, us, pid, tid);
  e.u.GCHeapStats = (struct gcs_ev_GCHeapStats){ .GenerationSize0 = 1000000 + k * 1000,
                                                 .GenerationSize1 = 2000000 + k * 100,
                                                 .TotalPromotedSize0 = 100000 + k };
  return e;
}

static inline void feed_suspend(struct gcs_recon *r, double us, int pid, int tid, uint32_t reason, uint32_t count) {
  struct gcs_event e = ev_suspend(us, pid, tid, reason, count);
  gcs_recon_feed(r, &e);
}

static inline void feed_simple(struct gcs_recon *r, enum gcs_kind k, double us, int pid, int tid) {
  struct gcs_event e = ev_at(k, us, pid, tid);
  gcs_recon_feed(r, &e);
}

static inline void feed_start(struct gcs_recon *r, double us, int pid, int tid, uint32_t count, uint32_t depth,
                       uint32_t reason, uint32_t type) {
  struct gcs_event e = ev_start(us, pid, tid, count, depth, reason, type);
  gcs_recon_feed(r, &e);
}

static inline void feed_end(struct gcs_recon *r, double us, int pid, int tid, uint32_t count, uint32_t depth) {
  struct gcs_event e = ev_end(us, pid, tid, count, depth);
  gcs_recon_feed(r, &e);
}

/* sizes[5] after the GC, promoted[5] */
static inline void feed_heap_stats(struct gcs_recon *r, double us, int pid, int tid, const uint64_t size[5],
                            const uint64_t prom[5]) {
  struct gcs_event e = ev_at(gcs_kind_GCHeapStats, us, pid, tid);
  struct gcs_ev_GCHeapStats *h = &e.u.GCHeapStats;
  h->GenerationSize0 = size[0]; h->GenerationSize1 = size[1]; h->GenerationSize2 = size[2];
  h->GenerationSize3 = size[3]; h->GenerationSize4 = size[4];
  h->TotalPromotedSize0 = prom[0]; h->TotalPromotedSize1 = prom[1]; h->TotalPromotedSize2 = prom[2];
  h->TotalPromotedSize3 = prom[3]; h->TotalPromotedSize4 = prom[4];
  h->PinnedObjectCount = 3;
  gcs_recon_feed(r, &e);
}

/* One heap's GCPerHeapHistory (heap 0, five generations) on thread tid. */
static inline void feed_phh(struct gcs_recon *r, double us, int pid, int tid, const uint64_t before[5],
                            const uint64_t after[5], const uint64_t surv[5]) {
  struct gcs_event e = ev_at(gcs_kind_GCPerHeapHistory, us, pid, tid);
  struct gcs_ev_GCPerHeapHistory *p = &e.u.GCPerHeapHistory;
  p->HeapIndex = 0;
  p->Count = 5;
  for (int g = 0; g < 5; g++) {
    p->SizeBefore[g] = before[g];
    p->SizeAfter[g] = after[g];
    p->NonePinnedSurv[g] = surv[g];
  }
  gcs_recon_feed(r, &e);
}

static inline void feed_tick(struct gcs_recon *r, double us, int pid, uint32_t kind, uint64_t amount) {
  struct gcs_event e = ev_at(gcs_kind_GCAllocationTick, us, pid, 1);
  e.u.GCAllocationTick.AllocationKind = kind;
  e.u.GCAllocationTick.AllocationAmount = (uint32_t)amount;
  e.u.GCAllocationTick.AllocationAmount64 = amount;
  gcs_recon_feed(r, &e);
}

/* A plain blocking GC: suspend (tid) -> ... -> restart; times in us. */
struct blocking {
  double suspend, suspend_end, start, end, heap_stats, restart;
  uint32_t count, depth, reason, type;
  uint64_t size[5], prom[5];
};

static inline void feed_blocking(struct gcs_recon *r, int pid, int tid, const struct blocking *b) {
  feed_suspend(r, b->suspend, pid, tid, 1, b->count);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, b->suspend_end, pid, tid);
  feed_start(r, b->start, pid, tid, b->count, b->depth, b->reason, b->type);
  feed_end(r, b->end, pid, tid, b->count, b->depth);
  feed_heap_stats(r, b->heap_stats, pid, tid, b->size, b->prom);
  feed_simple(r, gcs_kind_GCRestartEEBegin, b->restart - 10, pid, tid);
  feed_simple(r, gcs_kind_GCRestartEEEnd, b->restart, pid, tid);
}

#endif /* RECON_EVENTS_H */
