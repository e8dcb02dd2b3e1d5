/*
 * Blocking gen0 / gen1 / gen2 GCs on a workstation heap, with allocation
 * ticks, no per-heap history. Expected figures computed by hand from
 * perfview-gcstats.md §3 (times in ms since the origin):
 *
 * GC1 gen0 AllocSmall: SuspendEEBegin 10.000, SuspendEEEnd 10.050, GCStart 10.100,
 *   GCEnd 12.000, HeapStats 12.100, RestartEEEnd 12.200.
 *   suspend = 0.050; pause = 12.200-10.000 = 2.200; duration = 1.900;
 *   since last restart = 10.000 - 0 (first GC: from the trace start);
 *   % pause = 2.2*100/(2.2+10) = 18.0327868852459.
 *   ticks before: Small 3 x 100,000 B = 0.3 MB, Large 200,000 B = 0.2 MB.
 *   no PHH -> gen0 alloc = tick Small = 0.3; LOH = tick Large = 0.2; POH = tick
 *   Large again (QUIRK) = 0.2; total 0.7; rate 0.7*1000/10 = 70; gen0 rate 30.
 *   sizes 1,000,000 / 500,000 / 2,000,000 / 300,000 / 0 -> After 3.8 MB.
 *   Index 0: before gen0 = tick 0.3, others 0 -> Peak 0.3; ratio 0.3/3.8.
 * GC2 gen1 AllocLarge: 20.000 / 20.030 / 20.040 / 23.000 / 23.010 / 23.100.
 *   pause 3.100, suspend 0.030, since = 20.000-12.100 = 7.900,
 *   % pause = 3.1*100/11.0 = 28.1818181818; tick Small 500,000 -> 0.5 MB,
 *   rate 0.5*1000/7.9 = 63.2911392405. Index 1: Peak 0 (QUIRK: GCs[0] unused).
 * GC3 gen2 Induced: 40.000 / 40.010 / 40.020 / 50.000 / 50.010 / 50.500.
 *   Gen "2NI", pause 10.500, since = 40.000-23.010 = 16.990,
 *   % pause = 10.5*100/27.49 = 38.1956..., before from GC2's HeapStats:
 *   gen0 max(0.8, 0)=0.8, gen1 0.6, gen2 2.1, LOH max(0.4, 0.4)=0.4,
 *   POH max(0, 0.05)=0.05 -> Peak 3.95; After 2.1; Promoted 1.6.
 * Summary: total pause 15.8; process duration = 50.010-10.000 = 40.010;
 *   % time paused = 15.8*100/40.01; max heap 3.95; total alloc 1.2; induced 1.
 */
#include "recon_events.h"

static int done_calls;
static void on_done(const struct gcs_gc *gc, void *ud) {
  (void)gc;
  (void)ud;
  done_calls++;
}

int main(void) {
  struct gcs_recon_callbacks cb = { .gc_done = on_done };
  struct gcs_recon *r = gcs_recon_new(&cb, NULL);
  gcs_recon_set_time_origin(r, T0);
  int pid = 42, tid = 7;
  for (int i = 0; i < 3; i++) feed_tick(r, 1000 + i, pid, 0, 100000);
  feed_tick(r, 2000, pid, 1, 200000);
  struct blocking g1 = { 10000, 10050, 10100, 12000, 12100, 12200, 1, 0, 0, 0,
                         { 1000000, 500000, 2000000, 300000, 0 }, { 400000, 0, 0, 0, 0 } };
  feed_blocking(r, pid, tid, &g1);
  feed_tick(r, 15000, pid, 0, 500000);
  struct blocking g2 = { 20000, 20030, 20040, 23000, 23010, 23100, 2, 1, 4, 0,
                         { 800000, 600000, 2100000, 400000, 0 }, { 100000, 200000, 0, 0, 0 } };
  feed_blocking(r, pid, tid, &g2);
  struct blocking g3 = { 40000, 40010, 40020, 50000, 50010, 50500, 3, 2, 1, 0,
                         { 100000, 50000, 1500000, 400000, 50000 }, { 100000, 200000, 1300000, 0, 0 } };
  feed_blocking(r, pid, tid, &g3);
  CHECK(done_calls == 3);
  gcs_recon_finish(r);
  CHECK(done_calls == 3);

  CHECK(gcs_recon_process_count(r) == 1);
  CHECK(gcs_recon_gc_count(r, 0) == 3);
  const struct gcs_gc *a = gcs_recon_gc(r, 0, 0), *b = gcs_recon_gc(r, 0, 1), *c = gcs_recon_gc(r, 0, 2);

  CHECK(a->complete && b->complete && c->complete);
  CHECK(strcmp(a->gen_name, "0N") == 0);
  CHECK(strcmp(b->gen_name, "1N") == 0);
  CHECK(strcmp(c->gen_name, "2NI") == 0);
  CHECK_REL(a->pause_start_msec, 10.0, 1e-9);
  CHECK_REL(a->suspend_msec, 0.05, 1e-9);
  CHECK_REL(a->pause_msec, 2.2, 1e-9);
  CHECK_REL(a->duration_msec, 1.9, 1e-9);
  CHECK_REL(a->since_last_restart_msec, 10.0, 1e-9);
  CHECK_REL(a->pct_pause_time, 2.2 * 100 / 12.2, 1e-9);
  CHECK_REL(a->user_alloc_mb[0], 0.3, 1e-9);
  CHECK_REL(a->user_alloc_mb[3], 0.2, 1e-9);
  CHECK_REL(a->user_alloc_mb[4], 0.2, 1e-9);
  CHECK_REL(a->total_alloc_mb, 0.7, 1e-9);
  CHECK_REL(a->alloc_rate_mb_sec, 70.0, 1e-9);
  CHECK_REL(a->gen0_alloc_rate_mb_sec, 30.0, 1e-9);
  CHECK_REL(a->after_mb, 3.8, 1e-9);
  CHECK_REL(a->promoted_mb, 0.4, 1e-9);
  CHECK_REL(a->peak_mb, 0.3, 1e-9);
  CHECK_REL(a->ratio_peak_after, 0.3 / 3.8, 1e-9);
  CHECK_NAN(a->gen_survival_pct[0]);  /* no per-heap history */
  CHECK_NAN(a->pct_gc);               /* no CPU data: PerfView's NaN */
  CHECK(a->restart_end_ns == T0 + 12200000ull);
  CHECK(a->suspend_begin_ns == T0 + 10000000ull);

  CHECK_REL(b->pause_msec, 3.1, 1e-9);
  CHECK_REL(b->suspend_msec, 0.03, 1e-9);
  CHECK_REL(b->since_last_restart_msec, 7.9, 1e-9);
  CHECK_REL(b->pct_pause_time, 3.1 * 100 / 11.0, 1e-9);
  CHECK_REL(b->user_alloc_mb[0], 0.5, 1e-9);
  CHECK_REL(b->total_alloc_mb, 0.5, 1e-9);
  CHECK_REL(b->gen0_alloc_rate_mb_sec, 0.5 * 1000 / 7.9, 1e-9);
  CHECK_REL(b->peak_mb, 0.0, 1e-9);
  CHECK(b->reason == 4);

  CHECK_REL(c->pause_msec, 10.5, 1e-9);
  CHECK_REL(c->since_last_restart_msec, 16.99, 1e-9);
  CHECK_REL(c->pct_pause_time, 10.5 * 100 / 27.49, 1e-9);
  CHECK_REL(c->gen_before_mb[0], 0.8, 1e-9);
  CHECK_REL(c->gen_before_mb[3], 0.4, 1e-9);
  CHECK_REL(c->gen_before_mb[4], 0.05, 1e-9);
  CHECK_REL(c->peak_mb, 3.95, 1e-9);
  CHECK_REL(c->after_mb, 2.1, 1e-9);
  CHECK_REL(c->ratio_peak_after, 3.95 / 2.1, 1e-9);
  CHECK_REL(c->promoted_mb, 1.6, 1e-9);
  CHECK_REL(c->total_alloc_mb, 0.0, 1e-9);

  const struct gcs_proc_summary *s = gcs_recon_process(r, 0);
  CHECK(s->gc_count == 3 && s->incomplete_count == 0 && s->induced_count == 1);
  CHECK_REL(s->total_pause_msec, 15.8, 1e-9);
  CHECK_REL(s->max_pause_msec, 10.5, 1e-9);
  CHECK_REL(s->process_duration_msec, 40.01, 1e-9);
  CHECK_REL(s->pct_pause_time, 15.8 * 100 / 40.01, 1e-9);
  CHECK_REL(s->max_heap_mb, 3.95, 1e-9);
  CHECK_REL(s->total_alloc_mb, 1.2, 1e-9);
  CHECK(s->heap_count == -1);
  gcs_recon_free(r);
  return check_done();
}
