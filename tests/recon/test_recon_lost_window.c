/*
 * Events lost somewhere in a window [begin, end] (gcs_recon_lost) mark every
 * GC whose events span it -- from its SuspendEEBegin to the RestartEEEnd that
 * completed it, or still open -- and no other (times in us from T0; each
 * blocking GC below is SuspendEEBegin S, End S+100, GCStart S+200, GCEnd
 * S+400, GCHeapStats S+500, RestartEEBegin R-10, RestartEEEnd R).
 *
 * Process 7: the loss is delivered where its window begins (a CTF reader
 *   delivers it there), window [3000, 9000]:
 *   GC1 1000..2000   ends before the window         -> complete
 *   GC2 4000..5000   begins and completes inside it -> events lost
 *   GC3 8500..9500   begins inside, ends after      -> events lost
 *   GC4 10000..11000 begins after it                -> complete
 * Process 8: a window reaching back over GCs already complete and reported,
 *   delivered at 8300 while GC3 is open, window [5000, 8100]:
 *   GC1 1000..2000   ends before 5000               -> complete
 *   GC2 4000..5000   ends at 5000, the window's begin (inclusive) -> events lost
 *   GC3 8000..9000   open when the loss comes       -> events lost
 *   GC4 10000..11000 begins after 8100              -> complete
 * Process 9: window of unknown begin (0: from the trace's start) to 3500:
 *   GC1 1000..2000 and GC2 3000..4000 -> events lost; GC3 5000..6000 -> complete.
 * Process 10 has no loss: its GC 3000..4000 inside every window stays complete.
 * Losses with pid < 0 are tested by import (tests/import/lost_window.sh).
 */
#include "recon_events.h"

static int done_complete, done_incomplete;
static void on_done(const struct gcs_gc *gc, void *ud) {
  (void)ud;
  if (gc->complete) done_complete++;
  else done_incomplete++;
}

static void blocking(struct gcs_recon *r, int pid, double s, double restart, uint32_t count) {
  struct blocking b = { s, s + 100, s + 200, s + 400, s + 500, restart, count, 0, 0, 0, { 100000, 0, 0, 0, 0 }, { 0 } };
  feed_blocking(r, pid, pid * 10, &b);
}

#define US(x) (T0 + (uint64_t)(x) * 1000u)

static int lost(const struct gcs_gc *g) { return !g->complete && g->incomplete == GCS_INC_EVENTS_LOST; }

int main(void) {
  struct gcs_recon_callbacks cb = { .gc_done = on_done };
  struct gcs_recon *r = gcs_recon_new(&cb, NULL);
  gcs_recon_set_time_origin(r, T0);

  /* process 7 */
  blocking(r, 7, 1000, 2000, 1);
  gcs_recon_lost(r, 7, US(3000), US(9000), 4);
  blocking(r, 7, 4000, 5000, 2);
  blocking(r, 7, 8500, 9500, 3);
  blocking(r, 7, 10000, 11000, 4);

  /* process 8 */
  blocking(r, 8, 1000, 2000, 1);
  blocking(r, 8, 4000, 5000, 2);
  feed_suspend(r, 8000, 8, 80, 1, 3);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 8100, 8, 80);
  feed_start(r, 8200, 8, 80, 3, 0, 0, 0);
  CHECK(done_complete == 2 + 2 && done_incomplete == 2);  /* 7: GC1, GC4; 8: GC1, GC2 */
  gcs_recon_lost(r, 8, US(5000), US(8100), 2);
  uint64_t sz[5] = { 100000, 0, 0, 0, 0 }, pr[5] = { 0 };
  feed_end(r, 8400, 8, 80, 3, 0);
  feed_heap_stats(r, 8500, 8, 80, sz, pr);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 9000, 8, 80);
  blocking(r, 8, 10000, 11000, 4);

  /* process 9 */
  blocking(r, 9, 1000, 2000, 1);
  blocking(r, 9, 3000, 4000, 2);
  gcs_recon_lost(r, 9, 0, US(3500), 1);
  blocking(r, 9, 5000, 6000, 3);

  /* process 10 */
  blocking(r, 10, 3000, 4000, 1);
  gcs_recon_finish(r);

  CHECK(gcs_recon_process_count(r) == 4);
  const struct gcs_proc_summary *s7 = gcs_recon_process(r, 0), *s8 = gcs_recon_process(r, 1),
                                *s9 = gcs_recon_process(r, 2), *s10 = gcs_recon_process(r, 3);
  CHECK(s7->pid == 7 && s8->pid == 8 && s9->pid == 9 && s10->pid == 10);

  CHECK(gcs_recon_gc_count(r, 0) == 4);
  CHECK(gcs_recon_gc(r, 0, 0)->complete);
  CHECK(lost(gcs_recon_gc(r, 0, 1)));
  CHECK(lost(gcs_recon_gc(r, 0, 2)));
  CHECK(gcs_recon_gc(r, 0, 3)->complete);
  CHECK(s7->gc_count == 2 && s7->incomplete_count == 2 && s7->lost_events == 4);
  CHECK_REL(s7->total_pause_msec, 1.0 + 1.0, 1e-9);

  CHECK(gcs_recon_gc_count(r, 1) == 4);
  CHECK(gcs_recon_gc(r, 1, 0)->complete);
  CHECK(lost(gcs_recon_gc(r, 1, 1)));   /* complete and reported before the loss came */
  CHECK(lost(gcs_recon_gc(r, 1, 2)));
  CHECK(gcs_recon_gc(r, 1, 3)->complete);
  CHECK(s8->gc_count == 2 && s8->incomplete_count == 2 && s8->lost_events == 2);

  CHECK(gcs_recon_gc_count(r, 2) == 3);
  CHECK(lost(gcs_recon_gc(r, 2, 0)));
  CHECK(lost(gcs_recon_gc(r, 2, 1)));
  CHECK(gcs_recon_gc(r, 2, 2)->complete);
  CHECK(s9->gc_count == 1 && s9->incomplete_count == 2 && s9->lost_events == 1);

  CHECK(gcs_recon_gc_count(r, 3) == 1 && gcs_recon_gc(r, 3, 0)->complete);
  CHECK(s10->gc_count == 1 && s10->incomplete_count == 0 && s10->lost_events == 0);

  /* gc_done once per GC, as the GC was then: process 8's GC2 and process
   * 9's GC1 and GC2 were reported complete before their loss came */
  CHECK(done_complete + done_incomplete == 4 + 4 + 3 + 1);
  CHECK(done_incomplete == 2 + 1);
  gcs_recon_free(r);
  return check_done();
}
