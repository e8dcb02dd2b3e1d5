/*
 * Edge cases: a trace that begins inside a GC and ends inside another, and
 * events lost during a GC (times in ms).
 *
 * Process 5 (trace starts mid-GC):
 *   GC5: SuspendEEEnd 1.0 (its SuspendEEBegin is before the trace), GCStart 1.1,
 *        GCEnd 3.0, HeapStats 3.1, RestartEEEnd 3.2 -> incomplete ("began before").
 *   GC6: 10.0 / 10.1 / 10.2 / 11.0 / 11.1 / 11.5 -> complete, pause 1.5,
 *        since last restart = 10.0 - 3.1 = 6.9 (GC5's HeapStats still counts),
 *        % pause = 1.5*100/8.4.
 *   GC7: SuspendEEBegin 20.0, End 20.1, GCStart 20.2, then the trace ends ->
 *        incomplete ("trace ended inside").
 *   Summary: 1 GC, 2 incomplete, total pause 1.5, duration 11.1-10.0 = 1.1.
 * Process 6 (lost events): GC1 complete (pause 1.0), GC2 with 5 events lost
 *   between its GCStart and GCEnd -> incomplete (events lost), excluded;
 *   GC3 complete (pause 2.0). Lost events in process 6 leave process 5 alone.
 */
#include "recon_events.h"

static int done_complete, done_incomplete;
static void on_done(const struct gcs_gc *gc, void *ud) {
  (void)ud;
  if (gc->complete) done_complete++;
  else done_incomplete++;
}

int main(void) {
  struct gcs_recon_callbacks cb = { .gc_done = on_done };
  struct gcs_recon *r = gcs_recon_new(&cb, NULL);
  gcs_recon_set_time_origin(r, T0);
  uint64_t sz[5] = { 100000, 0, 0, 0, 0 }, pr[5] = { 0 };
  int p5 = 5, p6 = 6, t = 11;

  feed_simple(r, gcs_kind_GCSuspendEEEnd, 1000, p5, t);
  feed_start(r, 1100, p5, t, 5, 0, 0, 0);
  feed_end(r, 3000, p5, t, 5, 0);
  feed_heap_stats(r, 3100, p5, t, sz, pr);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 3200, p5, t);
  struct blocking g6 = { 10000, 10100, 10200, 11000, 11100, 11500, 6, 0, 0, 0, { 1, 2, 3, 4, 5 }, { 0 } };
  feed_blocking(r, p5, t, &g6);

  struct blocking g1 = { 1000, 1100, 1200, 1500, 1600, 2000, 1, 0, 0, 0, { 1000000, 0, 0, 0, 0 }, { 0 } };
  feed_blocking(r, p6, 12, &g1);
  feed_suspend(r, 4000, p6, 12, 1, 2);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 4100, p6, 12);
  feed_start(r, 4200, p6, 12, 2, 1, 0, 0);
  gcs_recon_lost(r, p6, T0 + 4300000, T0 + 4300000, 5);
  feed_end(r, 4400, p6, 12, 2, 1);
  feed_heap_stats(r, 4500, p6, 12, sz, pr);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 4600, p6, 12);
  struct blocking g3 = { 8000, 8100, 8200, 9000, 9100, 10000, 3, 0, 0, 0, { 1000000, 0, 0, 0, 0 }, { 0 } };
  feed_blocking(r, p6, 12, &g3);

  feed_suspend(r, 20000, p5, t, 1, 7);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 20100, p5, t);
  feed_start(r, 20200, p5, t, 7, 0, 0, 0);
  gcs_recon_finish(r);

  CHECK(gcs_recon_process_count(r) == 2);
  const struct gcs_proc_summary *s5 = gcs_recon_process(r, 0), *s6 = gcs_recon_process(r, 1);
  CHECK(s5->pid == 5 && s6->pid == 6);
  CHECK(gcs_recon_gc_count(r, 0) == 3);
  const struct gcs_gc *a = gcs_recon_gc(r, 0, 0), *b = gcs_recon_gc(r, 0, 1), *c = gcs_recon_gc(r, 0, 2);
  CHECK(!a->complete && (a->incomplete & GCS_INC_BEGAN_BEFORE_TRACE));
  CHECK(b->complete);
  CHECK_REL(b->pause_msec, 1.5, 1e-9);
  CHECK_REL(b->since_last_restart_msec, 6.9, 1e-9);
  CHECK_REL(b->pct_pause_time, 1.5 * 100 / 8.4, 1e-9);
  CHECK(!c->complete && c->incomplete == GCS_INC_TRACE_ENDED);
  CHECK_NAN(c->pause_msec);
  CHECK(s5->gc_count == 1 && s5->incomplete_count == 2);
  CHECK_REL(s5->total_pause_msec, 1.5, 1e-9);
  CHECK_REL(s5->process_duration_msec, 1.1, 1e-9);
  CHECK(s5->lost_events == 0);

  CHECK(gcs_recon_gc_count(r, 1) == 3);
  const struct gcs_gc *l1 = gcs_recon_gc(r, 1, 0), *l2 = gcs_recon_gc(r, 1, 1), *l3 = gcs_recon_gc(r, 1, 2);
  CHECK(l1->complete && l3->complete);
  CHECK(!l2->complete && (l2->incomplete & GCS_INC_EVENTS_LOST));
  CHECK(s6->gc_count == 2 && s6->incomplete_count == 1 && s6->lost_events == 5);
  CHECK_REL(s6->total_pause_msec, 1.0 + 2.0, 1e-9);
  CHECK(done_complete == 3 && done_incomplete == 3);

  char buf[200];
  CHECK(strcmp(gcs_gc_incomplete_text(GCS_INC_TRACE_ENDED, buf, sizeof buf), "trace ended inside it") == 0);
  gcs_recon_free(r);
  return check_done();
}
