/*
 * A GCPerHeapHistory with sizes no heap can have (issue 25): a crafted
 * trace put 0x8000000000000002 in a SizeBefore, and PerfView's object-space
 * figure (size - free list - free objects, as signed 64-bit numbers)
 * overflowed (UBSan aborted; the normal build stored a wrapped value).
 *
 * Process 7, times in us, one heap:
 *   GC1 (count 1): suspend 1000 .. restart 2000, its history has
 *       SizeBefore[0] = 2^63 + 2 (>= GCS_HEAP_BYTES_MAX = 2^57): the record
 *       is dropped (nheaps 0) and the GC is incomplete with
 *       GCS_INC_BAD_HEAP_HISTORY alone (0x20), not counted as a GC.
 *   GC2 (count 2): suspend 3000 .. restart 4000, a sane history
 *       (SizeBefore[0] = 5000, SizeAfter[0] = 1000): complete, nheaps 1,
 *       gen0 before = 0.005 MB.
 *   GC3 (count 3): 2^57 - 1 exactly in FreeObjBefore[2]: kept (the bound
 *       is exclusive), complete.
 */
#include "recon_events.h"

int main(void) {
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  const int pid = 7, tid = 70;
  uint64_t after[5] = { 1000, 0, 0, 0, 0 }, surv[5] = { 0 };

  struct blocking b1 = { 1000, 1100, 1200, 1500, 1600, 2000, 1, 0, 0, 0, { 1, 2, 3, 4, 5 }, { 0 } };
  feed_suspend(r, b1.suspend, pid, tid, 1, b1.count);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, b1.suspend_end, pid, tid);
  feed_start(r, b1.start, pid, tid, b1.count, b1.depth, b1.reason, b1.type);
  uint64_t bad[5] = { 0x8000000000000002ull, 0, 0, 0, 0 };
  feed_phh(r, 1400, pid, tid, bad, after, surv);
  feed_end(r, b1.end, pid, tid, b1.count, b1.depth);
  feed_heap_stats(r, b1.heap_stats, pid, tid, b1.size, b1.prom);
  feed_simple(r, gcs_kind_GCRestartEEBegin, b1.restart - 10, pid, tid);
  feed_simple(r, gcs_kind_GCRestartEEEnd, b1.restart, pid, tid);

  struct blocking b2 = { 3000, 3100, 3200, 3500, 3600, 4000, 2, 0, 0, 0, { 1, 2, 3, 4, 5 }, { 0 } };
  feed_suspend(r, b2.suspend, pid, tid, 1, b2.count);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, b2.suspend_end, pid, tid);
  feed_start(r, b2.start, pid, tid, b2.count, b2.depth, b2.reason, b2.type);
  uint64_t good[5] = { 5000, 0, 0, 0, 0 };
  feed_phh(r, 3400, pid, tid, good, after, surv);
  feed_end(r, b2.end, pid, tid, b2.count, b2.depth);
  feed_heap_stats(r, b2.heap_stats, pid, tid, b2.size, b2.prom);
  feed_simple(r, gcs_kind_GCRestartEEBegin, b2.restart - 10, pid, tid);
  feed_simple(r, gcs_kind_GCRestartEEEnd, b2.restart, pid, tid);

  struct blocking b3 = { 5000, 5100, 5200, 5500, 5600, 6000, 3, 0, 0, 0, { 1, 2, 3, 4, 5 }, { 0 } };
  feed_suspend(r, b3.suspend, pid, tid, 1, b3.count);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, b3.suspend_end, pid, tid);
  feed_start(r, b3.start, pid, tid, b3.count, b3.depth, b3.reason, b3.type);
  {
    struct gcs_event e = ev_at(gcs_kind_GCPerHeapHistory, 5400, pid, tid);
    e.u.GCPerHeapHistory.Count = 5;
    e.u.GCPerHeapHistory.SizeBefore[2] = (1ull << 57) - 1;
    e.u.GCPerHeapHistory.FreeObjBefore[2] = (1ull << 57) - 1;
    gcs_recon_feed(r, &e);
  }
  feed_end(r, b3.end, pid, tid, b3.count, b3.depth);
  feed_heap_stats(r, b3.heap_stats, pid, tid, b3.size, b3.prom);
  feed_simple(r, gcs_kind_GCRestartEEBegin, b3.restart - 10, pid, tid);
  feed_simple(r, gcs_kind_GCRestartEEEnd, b3.restart, pid, tid);
  gcs_recon_finish(r);

  CHECK_EQ_INT(gcs_recon_process_count(r), 1);
  const struct gcs_gc *g1 = gcs_recon_gc(r, 0, 0), *g2 = gcs_recon_gc(r, 0, 1), *g3 = gcs_recon_gc(r, 0, 2);
  CHECK(g1 && g2 && g3);
  if (g1 && g2 && g3) {
    CHECK_EQ_INT(g1->complete, 0);
    CHECK_EQ_U64(g1->incomplete, GCS_INC_BAD_HEAP_HISTORY);
    CHECK_EQ_INT(g1->nheaps, 0);
    char why[256];
    CHECK_STR(gcs_gc_incomplete_text(g1->incomplete, why, sizeof why),
              "a GCPerHeapHistory with impossible sizes (dropped)");
    CHECK_EQ_INT(g2->complete, 1);
    CHECK_EQ_INT(g2->nheaps, 1);
    CHECK_NEAR(g2->gen_before_mb[0], 0.005, 1e-12);
    CHECK_EQ_INT(g3->complete, 1);
    CHECK_EQ_INT(g3->nheaps, 1);
  }
  CHECK_EQ_INT(gcs_recon_process(r, 0)->gc_count, 2);
  gcs_recon_free(r);
  return check_done();
}
