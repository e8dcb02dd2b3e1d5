/*
 * DATAS events (GCDynamicEvent SizeAdaptation*, decoded) in the
 * reconstruction: each goes to the GC its GCIndex names, in arrival order,
 * with its time since the trace origin; one naming a GC that is not in the
 * trace, or past GCS_GC_DYN_MAX for one GC, is counted unattached; a
 * GCDynamicEvent of a known name (left undecoded) is counted undecoded, one
 * of an unknown name is not counted.
 *
 * GC 5 at 1000 us, GC 6 at 3000 us (each: suspension +0, GCStart +20,
 * GCEnd +599, RestartEEEnd +620).
 * - Sample (GCIndex 5) at 1500 us -> GC 5, time 1.5 ms;
 * - Tuning (GCIndex 5, NewHeapCount 4, MedianThroughputCostPct 12.5) at
 *   1510 us -> GC 5, 1.51 ms, after the sample;
 * - FullGCTuning (GCIndex 6) at 3500 us -> GC 6, 3.5 ms;
 * - Sample (GCIndex 99) at 3550: no such GC -> unattached 1;
 * - 9 more Samples naming GC 6: 7 fit (8 a GC), 2 unattached -> 3;
 * - GCDynamicEvent "SizeAdaptationTuning" (undecoded) -> undecoded 1;
 *   GCDynamicEvent "SomethingElse" -> not counted.
 * dynamic_events = 1 + 1 + 1 + 1 + 9 = 13.
 */
#include "recon_events.h"

static void gc(struct gcs_recon *r, int pid, int tid, double at, uint32_t n) {
  feed_suspend(r, at, pid, tid, 1, n);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, at + 10, pid, tid);
  feed_start(r, at + 20, pid, tid, n, 0, 0, 0);
  feed_end(r, at + 599, pid, tid, n, 0);
  uint64_t size[5] = {1000, 1000, 1000, 0, 0}, prom[5] = {0};
  feed_heap_stats(r, at + 600, pid, tid, size, prom);
  feed_simple(r, gcs_kind_GCRestartEEBegin, at + 610, pid, tid);
  feed_simple(r, gcs_kind_GCRestartEEEnd, at + 620, pid, tid);
}

static void sample(struct gcs_recon *r, double us, int pid, int tid, uint64_t index) {
  struct gcs_event e = ev_at(gcs_kind_GCSizeAdaptationSample, us, pid, tid);
  e.u.GCSizeAdaptationSample.Version = 1;
  e.u.GCSizeAdaptationSample.GCIndex = index;
  e.u.GCSizeAdaptationSample.GCPauseTime = 579;
  gcs_recon_feed(r, &e);
}

static void dynamic(struct gcs_recon *r, double us, int pid, int tid, const char *name) {
  struct gcs_event e = ev_at(gcs_kind_GCDynamicEvent, us, pid, tid);
  e.u.GCDynamicEvent.Name = name;
  e.u.GCDynamicEvent.DataSize = 10;
  gcs_recon_feed(r, &e);
}

int main(void) {
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  int pid = 42, tid = 7;
  gc(r, pid, tid, 1000, 5);
  gc(r, pid, tid, 3000, 6);
  sample(r, 1500, pid, tid, 5);
  struct gcs_event e = ev_at(gcs_kind_GCSizeAdaptationTuning, 1510, pid, tid);
  e.u.GCSizeAdaptationTuning.Version = 1;
  e.u.GCSizeAdaptationTuning.GCIndex = 5;
  e.u.GCSizeAdaptationTuning.NewHeapCount = 4;
  e.u.GCSizeAdaptationTuning.MedianThroughputCostPct = 12.5f;
  gcs_recon_feed(r, &e);
  e = ev_at(gcs_kind_GCSizeAdaptationFullGCTuning, 3500, pid, tid);
  e.u.GCSizeAdaptationFullGCTuning.GCIndex = 6;
  e.u.GCSizeAdaptationFullGCTuning.MedianGen2Tcp = 2.25f;
  gcs_recon_feed(r, &e);
  sample(r, 3550, pid, tid, 99);
  for (int i = 0; i < 9; i++) sample(r, 3600 + i, pid, tid, 6);
  dynamic(r, 3700, pid, tid, "SizeAdaptationTuning");
  dynamic(r, 3710, pid, tid, "SomethingElse");
  gcs_recon_finish(r);

  CHECK(gcs_recon_gc_count(r, 0) == 2);
  const struct gcs_gc *g5 = gcs_recon_gc(r, 0, 0), *g6 = gcs_recon_gc(r, 0, 1);
  CHECK(g5->number == 5 && g5->ndyn_events == 2);
  CHECK(g5->dyn_events[0].kind == gcs_kind_GCSizeAdaptationSample);
  CHECK_REL(g5->dyn_events[0].time_msec, 1.5, 1e-12);
  CHECK(g5->dyn_events[0].u.sample.GCPauseTime == 579);
  CHECK(g5->dyn_events[1].kind == gcs_kind_GCSizeAdaptationTuning);
  CHECK_REL(g5->dyn_events[1].time_msec, 1.51, 1e-12);
  CHECK(g5->dyn_events[1].u.tuning.NewHeapCount == 4 && g5->dyn_events[1].u.tuning.MedianThroughputCostPct == 12.5f);
  CHECK(g6->number == 6 && g6->ndyn_events == GCS_GC_DYN_MAX);
  CHECK(g6->dyn_events[0].kind == gcs_kind_GCSizeAdaptationFullGCTuning);
  CHECK(g6->dyn_events[0].u.full.MedianGen2Tcp == 2.25f);
  CHECK_REL(g6->dyn_events[0].time_msec, 3.5, 1e-12);
  for (int i = 1; i < GCS_GC_DYN_MAX; i++) CHECK(g6->dyn_events[i].kind == gcs_kind_GCSizeAdaptationSample);
  const struct gcs_proc_summary *s = gcs_recon_process(r, 0);
  CHECK(s->dynamic_events == 13 && s->dynamic_events_unattached == 3 && s->dynamic_events_undecoded == 1);
  gcs_recon_free(r);
  return check_done();
}
