/*
 * Allocation figures on older runtimes (issue 29, item 4). Workstation,
 * one heap; sizes in bytes, times in ms; MB = 10^6 bytes.
 *
 * (a) pid 5: a per-heap history with no per-generation data (a 2016
 * CoreCLR's LTTng event: V3, Count 5, but no arrays; the decoders mark
 * such an event truncated) or with Count 0. TraceEvent does not recognise
 * it and drops it, so PerfView's per-GC allocations fall back to the
 * AllocationTick sums since the previous GCHeapStats (kind 0 Small, 1 Large):
 *   GC1 (5 ms):  7 x 100,000 small                    -> gen0 0.7
 *   GC2 (10 ms): 3 x 100,000 small, 1 x 150,000 large -> gen0 0.3, LOH 0.15
 *   GC3 (15 ms): 2 x 100,000 small (its history: Count 0) -> gen0 0.2
 *   PerfView's POH column takes the Large bucket too (its quirk): GC2 POH
 *   0.15, total 0.7 + 0.3 + 0.15 + 0.15 + 0.2 = 1.5 MB. No GC keeps a per-heap history (nheaps 0), so gcscope's
 *   measured figure has no observation: unknown (NaN).
 * Kept as a history, GC2's and GC3's gen0 would be 0 (their histories' sizes).
 *
 * (b) pid 6: .NET Core 3.0 reports the LOH's size after a gen0 or gen1 GC
 * as 0. A generation the GC did not condemn is unchanged (the LOH is
 * collected with gen2 only), so the measured LOH counts only its growth:
 *   GC  gen  gen0 before  LOH before   LOH after
 *   1   0N   3,000,000    36,016       0 (not condemned)
 *   2   0N   2,500,000    36,016       0
 *   3   1N   2,000,000    1,036,016    0
 *   4   2N   1,000,000    1,036,016    500,000 (condemned: collected)
 *   5   0N   1,500,000    700,000      0
 *   gen0 after = 0 each time: SOH 3.0 + 2.5 + 2.0 + 1.0 + 1.5 = 10.0 MB.
 *   LOH: GC1 +0.036016 (from an empty heap), GC2 0, GC3 +1.0, GC4 0,
 *   (level 0.5 after GC4) GC5 +0.2 -> 1.236016 MB; total 11.236016 MB.
 *   Taking the 0 as the LOH's level gave GC2 +0.036016, GC3 +1.036016,
 *   GC4 +1.036016, GC5 +0.7.
 * PerfView's LOH column keeps its own rule (prev's LOH after 0 and prev a
 * gen0 GC: prev's LOH before): GC3 1.0, but GC4 1.036016 (prev is gen1).
 */
#include "recon_events.h"

static const uint64_t none[5] = { 0, 0, 0, 0, 0 };

/* a blocking GC with the given per-heap history event (NULL: none) */
static void blocking(struct gcs_recon *r, int pid, double ms, uint32_t count, uint32_t depth,
                     const struct gcs_event *phh, const uint64_t after_stats[5]) {
  double us = ms * 1000;
  int tid = 10;
  feed_suspend(r, us, pid, tid, 1, count);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, us + 10, pid, tid);
  feed_start(r, us + 20, pid, tid, count, depth, 0, 0);
  if (phh) {
    struct gcs_event e = *phh;
    e.pid = pid;
    e.tid = tid;
    e.ts_ns = T0 + (uint64_t)llround((us + 500) * 1000.0);
    gcs_recon_feed(r, &e);
  }
  feed_end(r, us + 600, pid, tid, count, depth);
  feed_heap_stats(r, us + 610, pid, tid, after_stats, none);
  feed_simple(r, gcs_kind_GCRestartEEBegin, us + 900, pid, tid);
  feed_simple(r, gcs_kind_GCRestartEEEnd, us + 1000, pid, tid);
}

static struct gcs_event phh_event(const uint64_t before[5], const uint64_t after[5]) {
  struct gcs_event e = ev_at(gcs_kind_GCPerHeapHistory, 0, 0, 0);
  struct gcs_ev_GCPerHeapHistory *p = &e.u.GCPerHeapHistory;
  p->Count = 5;
  for (int g = 0; g < 5; g++) {
    p->SizeBefore[g] = before[g];
    p->SizeAfter[g] = after[g];
  }
  return e;
}

static void ticks(struct gcs_recon *r, double ms, int pid, uint32_t kind, int n, uint64_t amount) {
  for (int i = 0; i < n; i++) feed_tick(r, ms * 1000 + i, pid, kind, amount);
}

static void case_no_gen_data(void) {
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  int pid = 5;
  uint64_t stats[5] = { 100000, 0, 0, 0, 0 };
  struct gcs_event cut = phh_event(none, none); /* V3, Count 5, no data */
  cut.truncated = 1;
  struct gcs_event empty = phh_event(none, none);
  empty.u.GCPerHeapHistory.Count = 0;

  ticks(r, 1, pid, 0, 7, 100000);
  blocking(r, pid, 5, 1, 0, &cut, stats);
  ticks(r, 7, pid, 0, 3, 100000);
  ticks(r, 8, pid, 1, 1, 150000);
  blocking(r, pid, 10, 2, 0, &cut, stats);
  ticks(r, 12, pid, 0, 2, 100000);
  blocking(r, pid, 15, 3, 0, &empty, stats);
  gcs_recon_finish(r);

  CHECK(gcs_recon_gc_count(r, 0) == 3);
  const struct gcs_gc *g1 = gcs_recon_gc(r, 0, 0), *g2 = gcs_recon_gc(r, 0, 1), *g3 = gcs_recon_gc(r, 0, 2);
  CHECK(g1->complete && g2->complete && g3->complete);
  CHECK(g1->nheaps == 0 && g2->nheaps == 0 && g3->nheaps == 0);
  CHECK_REL(g1->user_alloc_mb[GCS_GEN0], 0.7, 1e-12);
  CHECK_REL(g2->user_alloc_mb[GCS_GEN0], 0.3, 1e-12);
  CHECK_REL(g2->user_alloc_mb[GCS_GEN_LOH], 0.15, 1e-12);
  CHECK_REL(g3->user_alloc_mb[GCS_GEN0], 0.2, 1e-12);
  const struct gcs_proc_summary *s = gcs_recon_process(r, 0);
  CHECK_REL(g2->user_alloc_mb[GCS_GEN_POH], 0.15, 1e-12);
  CHECK_REL(s->total_alloc_mb, 1.5, 1e-12);
  CHECK(isnan(s->total_alloc_measured_mb));
  CHECK(isnan(g2->total_alloc_measured_mb));
  gcs_recon_free(r);
}

static void case_loh_after_zero(void) {
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  int pid = 6;
  const struct { uint32_t gen; uint64_t gen0, loh_before, loh_after; } gc[5] = {
    { 0, 3000000, 36016, 0 },  { 0, 2500000, 36016, 0 },      { 1, 2000000, 1036016, 0 },
    { 2, 1000000, 1036016, 500000 }, { 0, 1500000, 700000, 0 },
  };
  for (int i = 0; i < 5; i++) {
    uint64_t before[5] = { gc[i].gen0, 0, 0, gc[i].loh_before, 0 }, after[5] = { 0, 0, 0, gc[i].loh_after, 0 };
    struct gcs_event e = phh_event(before, after);
    blocking(r, pid, 10.0 * (i + 1), (uint32_t)i + 1, gc[i].gen, &e, after);
  }
  gcs_recon_finish(r);

  CHECK(gcs_recon_gc_count(r, 0) == 5);
  const double soh[5] = { 3.0, 2.5, 2.0, 1.0, 1.5 }, loh[5] = { 0.036016, 0, 1.0, 0, 0.2 };
  for (int i = 0; i < 5; i++) {
    const struct gcs_gc *g = gcs_recon_gc(r, 0, i);
    CHECK(g->complete && (int)g->gen == (int)gc[i].gen);
    CHECK_REL(g->alloc_measured_mb[0], soh[i], 1e-12);
    CHECK_REL(g->alloc_measured_mb[1], loh[i], 1e-12);
  }
  const struct gcs_proc_summary *s = gcs_recon_process(r, 0);
  CHECK_REL(s->total_alloc_measured_mb, 11.236016, 1e-12);
  /* PerfView's column, its rule unchanged */
  CHECK_REL(gcs_recon_gc(r, 0, 2)->user_alloc_mb[GCS_GEN_LOH], 1.0, 1e-12);
  CHECK_REL(gcs_recon_gc(r, 0, 3)->user_alloc_mb[GCS_GEN_LOH], 1.036016, 1e-12);
  gcs_recon_free(r);
}

int main(void) {
  case_no_gen_data();
  case_loh_after_zero();
  return check_done();
}
