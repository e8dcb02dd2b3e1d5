/*
 * gcscope's measured allocations (core/recon/recon_alloc.c) when a background
 * GC's per-heap history arrives while a foreground GC inside it is still the
 * last GC in the list: the foreground GC ended (GCEnd, GCHeapStats) but has
 * not restarted the runtime yet when the background GC thread fires its
 * GlobalHeapHistory and PerHeapHistory. Seen on .NET 10 with both cores busy
 * (gcprog bgc, GCs 17/19: the BGC's history landed on GC 19, which counted
 * gen0 twice, and the BGC had no figure: +6.8 % and one NULL).
 *
 * Same heaps as test_recon_alloc.c, one heap, sizes in bytes, times in ms:
 * GC1 0N  5..6:      gen0 before 5,000,000 after 0; LOH 2,000,000 = after.
 * GC2 2B  100..162:  final suspension (SuspendForGCPrep) 140..141 on its
 *                    thread; history at 161 on its thread: gen0 before
 *                    1,000,000 after 400,000; LOH before 3,000,000, after
 *                    3,600,000, survived 1,500,000.
 * GC3 1F  150..161.5: gen0 before 1,200,000 after 0; LOH before = after
 *                    4,500,000; GCEnd 150.6, RestartEEEnd 161.5 (after GC2's
 *                    history).
 * GC4 0N  300..301:  gen0 before 2,000,000 after 0; LOH before 3,900,000 = after.
 *
 * Measured (as in test_recon_alloc.c): GC1 5.0 + 2.0; GC2 1.4 + 1.6; GC3
 * 0.2 + 1.5; GC4 1.6 + 0.3; total 13.6 MB. PerfView's attribution (the last
 * GC in the list) is kept for its own columns: GC3 has two per-heap
 * histories, GC2 none.
 * Replayed with GC2's history on a thread not known as GC2's: GC3's history
 * then holds heap 0 twice, and GC2 and GC3 have no measured figure (NaN).
 */
#include "recon_events.h"

static const uint64_t none[5] = { 0, 0, 0, 0, 0 };

static void blocking(struct gcs_recon *r, int pid, int tid, double ms, uint32_t count, const uint64_t before[5],
                     const uint64_t after[5]) {
  double us = ms * 1000;
  feed_suspend(r, us, pid, tid, 1, count);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, us + 10, pid, tid);
  feed_start(r, us + 20, pid, tid, count, 0, 0, 0);
  feed_phh(r, us + 500, pid, tid, before, after, none);
  feed_end(r, us + 600, pid, tid, count, 0);
  feed_heap_stats(r, us + 610, pid, tid, after, none);
  feed_simple(r, gcs_kind_GCRestartEEBegin, us + 900, pid, tid);
  feed_simple(r, gcs_kind_GCRestartEEEnd, us + 1000, pid, tid);
}

/* The sequence above; GC2's history on thread phh_tid. */
static struct gcs_recon *replay(int phh_tid) {
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  int pid = 5, gt = 10, bt = 11;
  uint64_t b1[5] = { 5000000, 0, 0, 2000000, 0 }, a1[5] = { 0, 0, 0, 2000000, 0 };
  blocking(r, pid, gt, 5, 1, b1, a1);

  /* GC2: background, its initial pause, then its final pause on its thread */
  feed_suspend(r, 100000, pid, gt, 1, 2);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 100010, pid, gt);
  feed_start(r, 100020, pid, gt, 2, 2, 0, 1);
  feed_simple(r, gcs_kind_GCRestartEEBegin, 100100, pid, gt);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 100200, pid, gt);
  feed_suspend(r, 140000, pid, bt, 6, 2);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 140010, pid, bt);
  feed_simple(r, gcs_kind_GCRestartEEBegin, 140900, pid, bt);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 141000, pid, bt);

  /* GC3: foreground gen1; GC2's history arrives between its GCEnd and its
   * RestartEEEnd */
  uint64_t b3[5] = { 1200000, 0, 0, 4500000, 0 }, a3[5] = { 0, 0, 0, 4500000, 0 };
  feed_suspend(r, 150000, pid, gt, 1, 3);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 150010, pid, gt);
  feed_start(r, 150020, pid, gt, 3, 1, 0, 2);
  feed_phh(r, 150500, pid, gt, b3, a3, none);
  feed_end(r, 150600, pid, gt, 3, 1);
  feed_heap_stats(r, 150610, pid, gt, a3, none);
  feed_simple(r, gcs_kind_GCRestartEEBegin, 150900, pid, gt);
  uint64_t b2[5] = { 1000000, 0, 0, 3000000, 0 }, a2[5] = { 400000, 0, 0, 3600000, 0 },
           s2[5] = { 0, 0, 0, 1500000, 0 };
  feed_phh(r, 161000, pid, phh_tid, b2, a2, s2);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 161500, pid, gt);
  feed_end(r, 162000, pid, bt, 2, 2);
  feed_heap_stats(r, 162010, pid, bt, a2, none);

  uint64_t b4[5] = { 2000000, 0, 0, 3900000, 0 }, a4[5] = { 0, 0, 0, 3900000, 0 };
  blocking(r, pid, gt, 300, 4, b4, a4);
  gcs_recon_finish(r);
  return r;
}

int main(void) {
  struct gcs_recon *r = replay(11);

  CHECK(gcs_recon_gc_count(r, 0) == 4);
  const struct gcs_gc *g1 = gcs_recon_gc(r, 0, 0), *g2 = gcs_recon_gc(r, 0, 1), *g3 = gcs_recon_gc(r, 0, 2),
                      *g4 = gcs_recon_gc(r, 0, 3);
  CHECK(g1->number == 1 && g2->number == 2 && g3->number == 3 && g4->number == 4);
  CHECK(g1->complete && g2->complete && g3->complete && g4->complete);
  CHECK(gcs_type_is_background(g2->type));
  /* PerfView's attribution, unchanged */
  CHECK(g2->nheaps == 0 && g3->nheaps == 2);
  CHECK_REL(g1->alloc_measured_mb[0], 5.0, 1e-12);
  CHECK_REL(g1->alloc_measured_mb[1], 2.0, 1e-12);
  CHECK_REL(g2->alloc_measured_mb[0], 1.4, 1e-12);
  CHECK_REL(g2->alloc_measured_mb[1], 1.6, 1e-12);
  CHECK_REL(g2->total_alloc_measured_mb, 3.0, 1e-12);
  CHECK_REL(g3->alloc_measured_mb[0], 0.2, 1e-12);
  CHECK_REL(g3->alloc_measured_mb[1], 1.5, 1e-12);
  CHECK_REL(g4->alloc_measured_mb[0], 1.6, 1e-12);
  CHECK_REL(g4->alloc_measured_mb[1], 0.3, 1e-12);
  const struct gcs_proc_summary *s = gcs_recon_process(r, 0);
  CHECK_REL(s->total_alloc_measured_mb, 13.6, 1e-12);
  gcs_recon_free(r);

  /* GC2's history on a thread that is not known as its own: GC3 holds heap 0
   * twice and cannot be told apart, so neither has a figure (not a wrong one) */
  r = replay(12);
  g2 = gcs_recon_gc(r, 0, 1);
  g3 = gcs_recon_gc(r, 0, 2);
  CHECK(g2->complete && g3->complete && g3->nheaps == 2);
  CHECK(isnan(g2->total_alloc_measured_mb) && isnan(g3->total_alloc_measured_mb));
  CHECK(isnan(g3->alloc_measured_mb[0]) && isnan(g3->alloc_measured_mb[1]));
  gcs_recon_free(r);
  return check_done();
}
