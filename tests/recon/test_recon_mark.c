/*
 * Server GC mark balance from GCMarkWithType (2 heaps), by hand. Each heap's
 * time on a root kind runs from GCStart (its first event) or from its own
 * previous mark event. GCStart at 1000 us:
 *   heap 0: Stack 1100 (0.100 ms), Handle 1150 (0.050), Older 4150 (3.000)
 *   heap 1: Stack 1300 (0.300 ms), Handle 1310 (0.010), Older 1330 (0.020),
 *           Overflow at 1400 then again at 1500 (0.070 + 0.100 = 0.170, summed)
 * Differences: Stack 0.2, Handle 0.04, Older 2.98 -> the unbalanced kind is
 * Older, slowest heap 0 with 3.000 ms, fastest 0.020 ms. A mark event of the
 * BGC kind is ignored; a workstation GC (one heap) has no kind (-1) and
 * mark_heaps 1.
 */
#include "recon_events.h"

static void mark(struct gcs_recon *r, double us, int tid, uint32_t heap, uint32_t type, uint64_t bytes) {
  struct gcs_event e = ev_at(gcs_kind_GCMarkWithType, us, 42, tid);
  e.u.GCMarkWithType.HeapNum = heap;
  e.u.GCMarkWithType.Type = type;
  e.u.GCMarkWithType.Bytes = bytes;
  gcs_recon_feed(r, &e);
}

int main(void) {
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  feed_suspend(r, 900, 42, 7, 1, 1);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 950, 42, 7);
  feed_start(r, 1000, 42, 7, 1, 0, 0, 0);
  mark(r, 1100, 7, 0, GCS_ROOT_KIND_STACK, 10);
  mark(r, 1150, 7, 0, GCS_ROOT_KIND_HANDLE, 10);
  mark(r, 1300, 8, 1, GCS_ROOT_KIND_STACK, 10);
  mark(r, 1310, 8, 1, GCS_ROOT_KIND_HANDLE, 10);
  mark(r, 1330, 8, 1, GCS_ROOT_KIND_OLDER, 10);
  mark(r, 1400, 8, 1, GCS_ROOT_KIND_OVERFLOW, 10);
  mark(r, 1450, 8, 1, GCS_ROOT_KIND_BGC, 10);
  mark(r, 1500, 8, 1, GCS_ROOT_KIND_OVERFLOW, 10);
  mark(r, 4150, 7, 0, GCS_ROOT_KIND_OLDER, 10);
  feed_end(r, 4200, 42, 7, 1, 0);
  uint64_t size[5] = {1000, 0, 0, 0, 0}, prom[5] = {0};
  feed_heap_stats(r, 4210, 42, 7, size, prom);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 4300, 42, 7);
  /* A workstation GC: one heap. */
  feed_suspend(r, 5900, 42, 7, 1, 2);
  feed_start(r, 6000, 42, 7, 2, 0, 0, 0);
  mark(r, 6100, 7, 0, GCS_ROOT_KIND_STACK, 10);
  feed_end(r, 6200, 42, 7, 2, 0);
  feed_heap_stats(r, 6210, 42, 7, size, prom);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 6300, 42, 7);
  gcs_recon_finish(r);
  CHECK(gcs_recon_gc_count(r, 0) == 2);
  const struct gcs_gc *a = gcs_recon_gc(r, 0, 0), *b = gcs_recon_gc(r, 0, 1);
  CHECK(a->mark_heaps == 2);
  CHECK(a->mark_kind == GCS_ROOT_KIND_OLDER);
  CHECK(a->mark_slow_heap == 0);
  CHECK_REL(a->mark_slow_msec, 3.0, 1e-9);
  CHECK_REL(a->mark_fast_msec, 0.02, 1e-9);
  CHECK(b->mark_heaps == 1 && b->mark_kind == -1 && isnan(b->mark_slow_msec));
  gcs_recon_free(r);
  return check_done();
}
