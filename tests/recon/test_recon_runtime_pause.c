/*
 * The runtime's own pause beside PerfView's, and each GC's heap count
 * (issue 29, items 3 and 1). Times in ms, one GC thread (tid 10).
 *
 * GC1, announced as background (GCStart Type 1, gen2) but run whole inside
 * its suspension, as .NET 10 runs the first gen2 GC of a run: SuspendEEBegin
 * 0, SuspendEEEnd 0.1, GCStart 0.2, GCEnd 30.0, GCHeapStats 30.1,
 * RestartEEBegin 31.0, RestartEEEnd 32.0. PerfView's pause is its
 * suspension only, 0.1 ms (the GC is over before the restart that would add
 * the rest); the runtime's is SuspendEEBegin -> GCEnd = 30.0 (CoreCLR reads
 * its clock at the end of gc1, before GCEnd: what follows, here 1 ms to
 * RestartEEBegin, is not in its pause).
 * GC2, blocking gen0: SuspendEEBegin 100, GCStart 100.2, GCEnd 104,
 * GCHeapStats 104.1, RestartEEBegin 105.5, RestartEEEnd 108: PerfView 8.0,
 * the runtime 4.0 (the 1.5 ms to the restart and the restart's 2.5 ms are
 * not in it). GCs 3..5: PerfView 2.0, the runtime 1.0 each. Total: PerfView
 * 8.1 + 6.0, the runtime 34.0 + 3.0.
 *
 * Heap counts (GCGlobalHeapHistory NumHeaps, server GC with DATAS): GCs 1..5
 * say 1, 2, 2, 1, 2: each GC keeps its own; PerfView's Number of Heaps is the
 * first (1); the range 1..2 with 3 changes.
 */
#include "recon_events.h"

static void global(struct gcs_recon *r, double ms, int pid, int tid, int heaps) {
  struct gcs_event e = ev_at(gcs_kind_GCGlobalHeapHistory, ms * 1000, pid, tid);
  e.u.GCGlobalHeapHistory.NumHeaps = heaps;
  gcs_recon_feed(r, &e);
}

static void gc(struct gcs_recon *r, int pid, uint32_t n, uint32_t gen, uint32_t type, const double t[7],
               int heaps) {
  const uint64_t none[5] = { 0, 0, 0, 0, 0 };
  int tid = 10;
  feed_suspend(r, t[0] * 1000, pid, tid, 1, n - 1);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, t[1] * 1000, pid, tid);
  feed_start(r, t[2] * 1000, pid, tid, n, gen, 0, type);
  global(r, t[3] - 0.01, pid, tid, heaps);
  feed_end(r, t[3] * 1000, pid, tid, n, gen);
  feed_heap_stats(r, t[4] * 1000, pid, tid, none, none);
  feed_simple(r, gcs_kind_GCRestartEEBegin, t[5] * 1000, pid, tid);
  feed_simple(r, gcs_kind_GCRestartEEEnd, t[6] * 1000, pid, tid);
}

int main(void) {
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  int pid = 7;
  const double g1[7] = { 0, 0.1, 0.2, 30.0, 30.1, 31.0, 32.0 }, g2[7] = { 100, 100.1, 100.2, 104, 104.1, 105.5, 108 };
  gc(r, pid, 1, 2, 1, g1, 1);
  gc(r, pid, 2, 0, 0, g2, 2);
  const int heaps[3] = { 2, 1, 2 };
  for (int i = 0; i < 3; i++) {
    double b = 200.0 + 100 * i, t[7] = { b, b + 0.1, b + 0.2, b + 1, b + 1.1, b + 1.5, b + 2 };
    gc(r, pid, (uint32_t)i + 3, 0, 0, t, heaps[i]);
  }
  gcs_recon_finish(r);

  CHECK(gcs_recon_gc_count(r, 0) == 5);
  const struct gcs_gc *a = gcs_recon_gc(r, 0, 0), *b = gcs_recon_gc(r, 0, 1);
  CHECK(a->complete && b->complete && gcs_type_is_background(a->type));
  CHECK_REL(a->pause_msec, 0.1, 1e-9);
  CHECK_REL(a->runtime_pause_msec, 30.0, 1e-9);
  CHECK_REL(b->pause_msec, 8.0, 1e-9);
  CHECK_REL(b->runtime_pause_msec, 4.0, 1e-9);
  const int want[5] = { 1, 2, 2, 1, 2 };
  for (int i = 0; i < 5; i++) CHECK_EQ_INT(gcs_recon_gc(r, 0, i)->heap_count, want[i]);
  const struct gcs_proc_summary *s = gcs_recon_process(r, 0);
  CHECK_REL(s->total_pause_msec, 8.1 + 3 * 2.0, 1e-9);
  CHECK_REL(s->total_runtime_pause_msec, 34.0 + 3 * 1.0, 1e-9);
  CHECK_EQ_INT(s->heap_count, 1);
  CHECK_EQ_INT(s->heap_count_min, 1);
  CHECK_EQ_INT(s->heap_count_max, 2);
  CHECK_EQ_INT(s->heap_count_changes, 3);
  gcs_recon_free(r);
  return check_done();
}
