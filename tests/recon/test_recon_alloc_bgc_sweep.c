/*
 * Measured allocations (core/recon/recon_alloc.c) across CoreCLR background
 * GCs that sweep gen0, and the ephemeral GC of a background GC's initial
 * pause. Workstation heap, one heap; sizes in MB (10^6 bytes), times in ms.
 *
 * A background GC sweeps gen0 in its final pause: objects allocated since its
 * start that are dead by then become free space (free objects) in gen0, never
 * seen as objects by any observation, but gen0's size keeps them. Its gen0
 * "after" is read at its end.
 *
 * GC1 0N   5..6:    gen0 5.0 -> 0; LOH 2.0 = 2.0.
 * GC2 2B   100..250, its initial pause 100..101 with
 * GC3 0N   100.05..100.5 (the ephemeral GC in it). GC2's before: gen0 3.0,
 *                   LOH 2.5 (0.5 MB the program allocated after the pause
 *                   already in it); GC3's: gen0 3.0 -> 0, LOH 2.0 = 2.0.
 *          GC2's final pause 150..151 (its sweep: 0.6 MB of gen0 freed).
 * GC4 1F   200..210 inside GC2, after the sweep: gen0 size 2.0 of which
 *                   0.6 free objects -> 0; LOH 2.5 = 2.5.
 *          GC2 ends at 250: gen0 0.8 (no free space), LOH 2.5, survived 2.5.
 * GC5 2B   300..400, its initial pause with
 * GC6 0N   (ephemeral): gen0 4.0 -> 0, LOH 2.5 = 2.5 for both.
 *          GC5 ends at 400: gen0 size 1.5 of which 0.5 free objects (swept),
 *          LOH 2.5, survived 2.5.
 * GC7 0N   500..501: gen0 size 2.5 of which the same 0.5 free -> 0; LOH 2.5.
 *
 * What the program allocated (by construction): SOH 5.0 before GC1, 3.0
 * before GC2's pause, 2.0 until GC4 (1.4 alive, 0.6 swept), 0.8 until GC2
 * ends, 3.2 until GC5, 1.5 while GC5 ran (0.5 swept), 1.0 until GC7:
 * 16.5 MB; LOH 2.0 + 0.5 = 2.5 MB.
 *
 * Per GC: GC1 5.0 + LOH 2.0; GC2 3.0 at its start + 0.8 at its end, LOH 0.5
 * (its late before; its end: 2.5 - 2.5 survived = 0); GC3 0; GC4 2.0 (gen0's
 * size, 2.0 - 0; its objects 1.4 miss the 0.6 swept), LOH 0; GC5 3.2 + 1.5
 * (size 1.5 - 0; objects 1.0); GC6 0; GC7 2.0 - 1.0 = 1.0 (objects).
 * Before: GC4 1.4 and LOH +0.5 (GC3's older LOH lowered the level), GC5 4.2:
 * SOH 15.4, LOH 3.0.
 *
 * A second process (pid 6) whose runtime leaves free space in gen0 as it
 * allocates (as librgc does, ~1/6 of it) and whose background GC does not
 * sweep gen0: that free space is no sweep.
 * GC1 0N: gen0 size 6.0, 1.0 free -> 0: +5.0 (1/6 of the growth was free).
 * GC2 2B with GC3 0N in its pause: gen0 size 6.0, 1.0 free: +5.0; GC3 0.
 * GC4 1F inside GC2: size 3.0, 0.52 free: 3.0 - 0.52 - 3.0/6 = 0.02 MB more
 *   free than allocation leaves, under 64 KB: no sweep, +2.48 (the objects).
 * GC2 ends: size 1.2, 0.2 free: +1.0 (objects; the free share is 1/6).
 * Per GC: 5.0, 6.0, 0, 2.48; total 13.48 (gen0's size would say 14.2).
 */
#include "recon_events.h"

#define MB 1000000.0

struct phh {
  double g0_size_before, g0_free_before, g0_size_after, g0_free_after;
  double loh_before, loh_after, loh_surv;
};

static void feed_phh_free(struct gcs_recon *r, double us, int pid, int tid, const struct phh *h) {
  struct gcs_event e = ev_at(gcs_kind_GCPerHeapHistory, us, pid, tid);
  struct gcs_ev_GCPerHeapHistory *p = &e.u.GCPerHeapHistory;
  p->HeapIndex = 0;
  p->Count = 5;
  p->SizeBefore[0] = (uint64_t)(h->g0_size_before * MB);
  p->FreeObjBefore[0] = (uint64_t)(h->g0_free_before * MB);
  p->SizeAfter[0] = (uint64_t)(h->g0_size_after * MB);
  p->FreeObjAfter[0] = (uint64_t)(h->g0_free_after * MB);
  p->SizeBefore[3] = (uint64_t)(h->loh_before * MB);
  p->SizeAfter[3] = (uint64_t)(h->loh_after * MB);
  p->NonePinnedSurv[3] = (uint64_t)(h->loh_surv * MB);
  gcs_recon_feed(r, &e);
}

static const uint64_t none[5] = { 0, 0, 0, 0, 0 };

static void heap_stats(struct gcs_recon *r, double us, int pid, int tid, double g0, double loh) {
  uint64_t s[5] = { (uint64_t)(g0 * MB), 0, 0, (uint64_t)(loh * MB), 0 };
  feed_heap_stats(r, us, pid, tid, s, none);
}

static void blocking(struct gcs_recon *r, int pid, int tid, double ms, uint32_t count, uint32_t depth, uint32_t type,
                     const struct phh *h) {
  double us = ms * 1000;
  feed_suspend(r, us, pid, tid, 1, count);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, us + 10, pid, tid);
  feed_start(r, us + 20, pid, tid, count, depth, 0, type);
  feed_phh_free(r, us + 500, pid, tid, h);
  feed_end(r, us + 600, pid, tid, count, depth);
  heap_stats(r, us + 610, pid, tid, h->g0_size_after, h->loh_after);
  feed_simple(r, gcs_kind_GCRestartEEBegin, us + 900, pid, tid);
  feed_simple(r, gcs_kind_GCRestartEEEnd, us + 1000, pid, tid);
}

/* A background GC (count) with the ephemeral GC (count + 1) in its initial
 * pause at ms, its final pause at final_ms, its end at end_ms (its history
 * just before); between_ms > 0: a foreground gen1 GC (count + 2) then. */
static void background(struct gcs_recon *r, int pid, int gt, int bt, double ms, uint32_t count, const struct phh *bgc,
                       const struct phh *eph, double final_ms, double between_ms, const struct phh *fg, double end_ms) {
  double us = ms * 1000;
  feed_suspend(r, us, pid, gt, 1, count);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, us + 10, pid, gt);
  feed_start(r, us + 20, pid, gt, count, 2, 0, 1);
  feed_start(r, us + 50, pid, gt, count + 1, 0, 0, 0);
  feed_phh_free(r, us + 400, pid, gt, eph);
  feed_end(r, us + 450, pid, gt, count + 1, 0);
  heap_stats(r, us + 460, pid, gt, eph->g0_size_after, eph->loh_after);
  feed_simple(r, gcs_kind_GCRestartEEBegin, us + 900, pid, gt);
  feed_simple(r, gcs_kind_GCRestartEEEnd, us + 1000, pid, gt);
  feed_suspend(r, final_ms * 1000, pid, bt, 6, count);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, final_ms * 1000 + 10, pid, bt);
  feed_simple(r, gcs_kind_GCRestartEEBegin, final_ms * 1000 + 900, pid, bt);
  feed_simple(r, gcs_kind_GCRestartEEEnd, final_ms * 1000 + 1000, pid, bt);
  if (between_ms > 0) blocking(r, pid, gt, between_ms, count + 2, 1, 2, fg);
  feed_phh_free(r, end_ms * 1000 - 1000, pid, bt, bgc);
  feed_end(r, end_ms * 1000, pid, bt, count, 2);
  heap_stats(r, end_ms * 1000 + 10, pid, bt, bgc->g0_size_after, bgc->loh_after);
}

int main(void) {
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  int pid = 5, gt = 10, bt = 11;
  struct phh h1 = { 5.0, 0, 0, 0, 2.0, 2.0, 0 };
  blocking(r, pid, gt, 5, 1, 0, 0, &h1);
  struct phh h2 = { 3.0, 0, 0.8, 0, 2.5, 2.5, 2.5 }, h3 = { 3.0, 0, 0, 0, 2.0, 2.0, 0 },
             h4 = { 2.0, 0.6, 0, 0, 2.5, 2.5, 0 };
  background(r, pid, gt, bt, 100, 2, &h2, &h3, 150, 200, &h4, 250);
  struct phh h5 = { 4.0, 0, 1.5, 0.5, 2.5, 2.5, 2.5 }, h6 = { 4.0, 0, 0, 0, 2.5, 2.5, 0 };
  background(r, pid, gt, bt, 300, 5, &h5, &h6, 350, 0, NULL, 400);
  struct phh h7 = { 2.5, 0.5, 0, 0, 2.5, 2.5, 0 };
  blocking(r, pid, gt, 500, 7, 0, 0, &h7);
  gcs_recon_finish(r);

  CHECK(gcs_recon_gc_count(r, 0) == 7);
  const struct gcs_gc *g[7];
  for (int i = 0; i < 7; i++) {
    g[i] = gcs_recon_gc(r, 0, i);
    CHECK(g[i]->number == (uint32_t)i + 1 && g[i]->complete);
  }
  CHECK(strcmp(g[1]->gen_name, "2B") == 0 && strcmp(g[2]->gen_name, "0N") == 0 && strcmp(g[3]->gen_name, "1F") == 0);
  CHECK(strcmp(g[4]->gen_name, "2B") == 0 && strcmp(g[5]->gen_name, "0N") == 0);
  static const double soh[7] = { 5.0, 3.8, 0, 2.0, 4.7, 0, 1.0 }, loh[7] = { 2.0, 0.5, 0, 0, 0, 0, 0 };
  for (int i = 0; i < 7; i++) {
    CHECK_REL(g[i]->alloc_measured_mb[0], soh[i], 1e-9);
    CHECK_REL(g[i]->alloc_measured_mb[1], loh[i], 1e-9);
    CHECK_REL(g[i]->alloc_measured_mb[2], 0.0, 1e-9);
  }
  const struct gcs_proc_summary *s = gcs_recon_process(r, 0);
  CHECK_REL(s->total_alloc_measured_mb, 16.5 + 2.5, 1e-9);
  gcs_recon_free(r);

  r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  pid = 6;
  struct phh w1 = { 6.0, 1.0, 0, 0, 0, 0, 0 }, w2 = { 6.0, 1.0, 1.2, 0.2, 0, 0, 0 }, w3 = { 6.0, 1.0, 0, 0, 0, 0, 0 },
             w4 = { 3.0, 0.52, 0, 0, 0, 0, 0 };
  blocking(r, pid, gt, 5, 1, 0, 0, &w1);
  background(r, pid, gt, bt, 100, 2, &w2, &w3, 150, 200, &w4, 250);
  gcs_recon_finish(r);
  CHECK(gcs_recon_gc_count(r, 0) == 4);
  static const double waste[4] = { 5.0, 6.0, 0, 2.48 };
  for (int i = 0; i < 4; i++) CHECK_REL(gcs_recon_gc(r, 0, i)->alloc_measured_mb[0], waste[i], 1e-9);
  CHECK_REL(gcs_recon_process(r, 0)->total_alloc_measured_mb, 13.48, 1e-9);
  gcs_recon_free(r);
  return check_done();
}
