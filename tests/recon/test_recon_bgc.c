/*
 * A background GC with an ephemeral GC at its start, a foreground gen1 inside
 * and its second (SuspendForGCPrep) pause: the event sequence of seed 002
 * ("GC event sequence"), times in ms. Events the seed leaves out are added:
 * the BGC's suspension (SuspendEEBegin 160,551.50 / End 160,551.60) and the
 * GCHeapStats of each GC. GC thread tid 200, BGC thread tid 300.
 *
 * GC188 2B : pause start 160,551.50, suspend 0.10 (pre-seeded pause 0.10).
 * GC189 0N (ephemeral at BGC start): pause start = its GCStart 160,551.89,
 *   suspend 0; RestartEEEnd 160,799.91 -> pause = 248.02, complete.
 *   The BGC's real initial pause (ours, bgc_pause1) = 160,799.91-160,551.50 = 248.41.
 * GC190 1F : SuspendEEBegin 161,803.36, End 161,803.42, RestartEEEnd 161,847.23
 *   -> suspend 0.06, pause 43.87.
 * GCPrep: SuspendEEBegin(6) 161,988.57 (tid 300), End 161,988.71 (+0.14 suspend),
 *   RestartEEEnd 162,239.94 -> final pause 251.37; PerfView's BGC pause =
 *   0.10 + 251.37 = 251.47; BGC suspend = 0.10 + 0.14 = 0.24.
 * GCEnd 188 at 162,413.70 -> duration 1,861.96; HeapStats 162,413.80 completes it.
 *   since last restart = 162,413.80 - 161,847.145 (GC190's HeapStats) = 566.655.
 *   % pause (BGC, index 0: prev stop = own start) = 251.47*100/1,861.96.
 * Peak: GC190 (index 2) before = GC189's sizes (5+1+20 MB) + LOH max(3, 3.5)
 *   = 29.5 MB; BGC peak = max over GCs started during it = 29.5; After 24.5.
 * LOH wait: BGCAllocWaitBegin(11) 161,000.00 -> End 161,300.50 on tid 500: 300.5 ms.
 * Totals: 248.02 + 43.87 + 251.47 = 543.36.
 * The runtime's own pauses (runtime_pause_msec; a blocking GC's to its GCEnd,
 * a background GC's to RestartEEBegin, the ephemeral GC's own GCStart ->
 * GCEnd): GC189 160,577.48 - 160,551.89 = 25.59; GC190 161,847.14 -
 * 161,803.36 = 43.78; GC188 (160,799.87 - 160,551.50) - 25.59 = 222.78 plus
 * 162,239.84 - 161,988.57 = 251.27, 474.05. Total 543.42.
 */
#include "recon_events.h"

int main(void) {
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  int pid = 9, gt = 200, bt = 300;
  const double ms = 1000.0; /* us per ms */
  feed_suspend(r, 160551.50 * ms, pid, gt, 1, 188);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 160551.60 * ms, pid, gt);
  feed_start(r, 160551.74 * ms, pid, gt, 188, 2, 0, 1);
  feed_start(r, 160551.89 * ms, pid, gt, 189, 0, 0, 0);
  feed_end(r, 160577.48 * ms, pid, gt, 189, 0);
  uint64_t s189[5] = { 5000000, 1000000, 20000000, 3000000, 0 }, p189[5] = { 1000000, 0, 0, 0, 0 };
  feed_heap_stats(r, 160577.50 * ms, pid, gt, s189, p189);
  feed_simple(r, gcs_kind_GCRestartEEBegin, 160799.87 * ms, pid, gt);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 160799.91 * ms, pid, gt);

  struct gcs_event w = ev_at(gcs_kind_BGCAllocWaitBegin, 161000.00 * ms, pid, 500);
  w.u.BGCAllocWaitBegin.Reason = 11;
  gcs_recon_feed(r, &w);
  w = ev_at(gcs_kind_BGCAllocWaitEnd, 161300.50 * ms, pid, 500);
  w.u.BGCAllocWaitEnd.Reason = 11;
  gcs_recon_feed(r, &w);

  feed_suspend(r, 161803.36 * ms, pid, gt, 1, 188);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 161803.42 * ms, pid, gt);
  feed_start(r, 161803.61 * ms, pid, gt, 190, 1, 0, 2);
  feed_end(r, 161847.14 * ms, pid, gt, 190, 1);
  uint64_t s190[5] = { 4000000, 2000000, 21000000, 3500000, 0 }, p190[5] = { 500000, 600000, 0, 0, 0 };
  feed_heap_stats(r, 161847.145 * ms, pid, gt, s190, p190);
  feed_simple(r, gcs_kind_GCRestartEEBegin, 161847.15 * ms, pid, gt);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 161847.23 * ms, pid, gt);

  feed_suspend(r, 161988.57 * ms, pid, bt, 6, 188);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 161988.71 * ms, pid, bt);
  feed_simple(r, gcs_kind_GCRestartEEBegin, 162239.84 * ms, pid, bt);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 162239.94 * ms, pid, bt);
  feed_end(r, 162413.70 * ms, pid, bt, 188, 2);
  uint64_t s188[5] = { 4000000, 2000000, 15000000, 3500000, 0 }, p188[5] = { 0, 0, 14000000, 0, 0 };
  feed_heap_stats(r, 162413.80 * ms, pid, bt, s188, p188);
  gcs_recon_finish(r);

  CHECK(gcs_recon_gc_count(r, 0) == 3);
  const struct gcs_gc *bgc = gcs_recon_gc(r, 0, 0), *eph = gcs_recon_gc(r, 0, 1), *fg = gcs_recon_gc(r, 0, 2);
  CHECK(bgc->number == 188 && eph->number == 189 && fg->number == 190);
  CHECK(bgc->complete && eph->complete && fg->complete);
  CHECK(strcmp(bgc->gen_name, "2B") == 0);
  CHECK(strcmp(eph->gen_name, "0N") == 0);
  CHECK(strcmp(fg->gen_name, "1F") == 0);

  CHECK_REL(eph->pause_start_msec, 160551.89, 1e-9);
  CHECK_REL(eph->suspend_msec, 0.0, 1e-9);
  CHECK_REL(eph->pause_msec, 248.02, 1e-9);
  CHECK_REL(fg->suspend_msec, 0.06, 1e-9);
  CHECK_REL(fg->pause_msec, 43.87, 1e-9);
  CHECK_NAN(fg->bgc_pause1_msec);

  CHECK_REL(bgc->pause_start_msec, 160551.50, 1e-9);
  CHECK_REL(bgc->suspend_msec, 0.24, 1e-9);
  CHECK_REL(bgc->pause_msec, 251.47, 1e-9);
  CHECK_REL(bgc->bgc_pause1_msec, 248.41, 1e-9);
  CHECK_REL(bgc->bgc_pause2_msec, 251.37, 1e-9);
  CHECK_REL(bgc->duration_msec, 1861.96, 1e-9);
  CHECK_REL(bgc->since_last_restart_msec, 566.655, 1e-9);
  CHECK_REL(bgc->pct_pause_time, 251.47 * 100 / 1861.96, 1e-9);
  CHECK(bgc->bgc_prep_suspend_begin_ns == T0 + 161988570000ull);
  CHECK(bgc->bgc_prep_restart_end_ns == T0 + 162239940000ull);
  CHECK(bgc->restart_end_ns == T0 + 160799910000ull);
  CHECK_REL(fg->before_mb, 29.5, 1e-9);
  CHECK_REL(bgc->peak_mb, 29.5, 1e-9);
  CHECK_REL(bgc->after_mb, 24.5, 1e-9);
  CHECK_REL(bgc->ratio_peak_after, 29.5 / 24.5, 1e-9);

  CHECK(bgc->nloh_waits == 1);
  CHECK(bgc->loh_waits[0].tid == 500 && bgc->loh_waits[0].reason == 11);
  CHECK_REL(bgc->loh_waits[0].stop_msec - bgc->loh_waits[0].start_msec, 300.5, 1e-9);

  const struct gcs_proc_summary *s = gcs_recon_process(r, 0);
  CHECK(s->gc_count == 3);
  CHECK_REL(s->total_pause_msec, 543.36, 1e-9);
  CHECK_REL(s->max_pause_msec, 251.47, 1e-9);
  CHECK_REL(eph->runtime_pause_msec, 25.59, 1e-9);
  CHECK_REL(fg->runtime_pause_msec, 43.78, 1e-9);
  CHECK_REL(bgc->runtime_pause_msec, 474.05, 1e-9);
  CHECK_REL(s->total_runtime_pause_msec, 543.42, 1e-9);
  gcs_recon_free(r);
  return check_done();
}
