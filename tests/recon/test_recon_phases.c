/*
 * GC phase times from GCGlobalHeapHistory v4 (Count, Times[] in us), mapped
 * by gcs_gc_phase_slot() as CoreCLR's gc_heap::fire_pevents sends them
 * (Count 8: compacting, slot 6 relocate, 7 compact; Count 7: sweeping, slot 6
 * sweep; Count 5: a background GC's marking; slot 0, SizedRef, unused).
 * Expected values are the Times given below, slot by slot:
 *
 * GC1 gen0, v4, Count 8, Times {0, 106, 1, 18, 2, 126, 106, 196} (the first
 *   GC of tests/dotnet/fixtures/gcprog-alloc.nettrace): mark_root 106,
 *   short_weak 1, scan_finalization 18, long_weak 2, plan 126, relocate 106,
 *   compact 196, sweep not timed (-1). Sum 555 us <= its duration 579 us.
 * GC2 gen2, v4, Count 7, Times {0, 4168, 3, 5, 4, 2539, 4441}: sweep 4441,
 *   relocate and compact -1.
 * GC3 gen1, v4, Count 5, Times {0, 231, 4, 21, 2}: marks only; plan,
 *   relocate, compact and sweep -1.
 * GC4 gen0, v2 (no Count/Times, a .NET Core 3.1 runtime): every phase -1,
 *   but GlobalMechanisms, PauseMode and MemoryPressure kept.
 * GC5 gen0 without any GCGlobalHeapHistory: every phase -1.
 */
#include "recon_events.h"

static void feed_global(struct gcs_recon *r, double us, int pid, int tid, int version, uint32_t count,
                        const uint32_t *times) {
  struct gcs_event e = ev_at(gcs_kind_GCGlobalHeapHistory, us, pid, tid);
  e.version = version;
  struct gcs_ev_GCGlobalHeapHistory *g = &e.u.GCGlobalHeapHistory;
  g->NumHeaps = 1;
  g->GlobalMechanisms = 0x1e;
  g->PauseMode = 1;
  g->MemoryPressure = 3;
  g->Count = count;
  for (uint32_t i = 0; i < count; i++) g->Times[i] = times[i];
  gcs_recon_feed(r, &e);
}

static void gc(struct gcs_recon *r, int pid, int tid, double at, uint32_t n, uint32_t depth, int version,
               uint32_t count, const uint32_t *times) {
  feed_suspend(r, at, pid, tid, 1, n);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, at + 10, pid, tid);
  feed_start(r, at + 20, pid, tid, n, depth, 0, 0);
  if (version >= 0) feed_global(r, at + 590, pid, tid, version, count, times);
  feed_end(r, at + 599, pid, tid, n, depth);
  uint64_t size[5] = {1000, 1000, 1000, 0, 0}, prom[5] = {0};
  feed_heap_stats(r, at + 600, pid, tid, size, prom);
  feed_simple(r, gcs_kind_GCRestartEEBegin, at + 610, pid, tid);
  feed_simple(r, gcs_kind_GCRestartEEEnd, at + 620, pid, tid);
}

#define P(g, ph) ((g)->phase_usec[GCS_GC_PHASE_##ph])

int main(void) {
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  int pid = 42, tid = 7;
  static const uint32_t t1[] = {0, 106, 1, 18, 2, 126, 106, 196};
  static const uint32_t t2[] = {0, 4168, 3, 5, 4, 2539, 4441};
  static const uint32_t t3[] = {0, 231, 4, 21, 2};
  gc(r, pid, tid, 1000, 1, 0, 4, 8, t1);
  gc(r, pid, tid, 3000, 2, 2, 4, 7, t2);
  gc(r, pid, tid, 5000, 3, 1, 4, 5, t3);
  gc(r, pid, tid, 7000, 4, 0, 2, 0, NULL);
  gc(r, pid, tid, 9000, 5, 0, -1, 0, NULL);
  gcs_recon_finish(r);
  CHECK(gcs_recon_gc_count(r, 0) == 5);
  const struct gcs_gc *a = gcs_recon_gc(r, 0, 0), *b = gcs_recon_gc(r, 0, 1), *c = gcs_recon_gc(r, 0, 2);
  const struct gcs_gc *d = gcs_recon_gc(r, 0, 3), *e = gcs_recon_gc(r, 0, 4);

  CHECK(P(a, MARK_ROOT) == 106 && P(a, MARK_SHORT_WEAK) == 1 && P(a, MARK_SCAN_FINALIZATION) == 18);
  CHECK(P(a, MARK_LONG_WEAK) == 2 && P(a, PLAN) == 126 && P(a, RELOCATE) == 106 && P(a, COMPACT) == 196);
  CHECK(P(a, SWEEP) == -1);
  int64_t sum = 0;
  for (int ph = 0; ph < GCS_GC_PHASE_COUNT; ph++) sum += a->phase_usec[ph] > 0 ? a->phase_usec[ph] : 0;
  CHECK(sum == 555);
  CHECK(sum <= (int64_t)llround(a->duration_msec * 1000.0));

  CHECK(P(b, MARK_ROOT) == 4168 && P(b, PLAN) == 2539 && P(b, SWEEP) == 4441);
  CHECK(P(b, RELOCATE) == -1 && P(b, COMPACT) == -1);

  CHECK(P(c, MARK_ROOT) == 231 && P(c, MARK_SHORT_WEAK) == 4 && P(c, MARK_SCAN_FINALIZATION) == 21);
  CHECK(P(c, MARK_LONG_WEAK) == 2);
  CHECK(P(c, PLAN) == -1 && P(c, RELOCATE) == -1 && P(c, COMPACT) == -1 && P(c, SWEEP) == -1);

  for (int ph = 0; ph < GCS_GC_PHASE_COUNT; ph++) CHECK(d->phase_usec[ph] == -1 && e->phase_usec[ph] == -1);
  CHECK(d->has_global_history && d->global.GlobalMechanisms == 0x1e && d->global.PauseMode == 1);
  CHECK(d->global.MemoryPressure == 3);
  CHECK(!e->has_global_history);

  /* The slot mapping itself, at its edges. */
  CHECK(gcs_gc_phase_slot(GCS_GC_PHASE_MARK_ROOT, 0) == -1);
  CHECK(gcs_gc_phase_slot(GCS_GC_PHASE_MARK_LONG_WEAK, 4) == -1);
  CHECK(gcs_gc_phase_slot(GCS_GC_PHASE_PLAN, 6) == -1);
  CHECK(gcs_gc_phase_slot(GCS_GC_PHASE_SWEEP, 8) == -1);
  CHECK(gcs_gc_phase_slot(GCS_GC_PHASE_COMPACT, 9) == 7);
  gcs_recon_free(r);
  return check_done();
}
