/*
 * Server GC with 4 heaps: GCGlobalHeapHistory (NumHeaps 4) and 4
 * GCPerHeapHistory per GC, then the rows gcs_recon_store writes.
 *
 * Per heap h (0..3), GC1 (gen0, index 0):
 *   gen0 SizeBefore 1,000,000(h+1), FreeObjBefore 100,000, SizeAfter 300,000,
 *   FreeListAfter 10,000, FreeObjAfter 20,000, PinnedSurv 10,000,
 *   NonePinnedSurv 90,000(h+1);
 *   gen1 SizeBefore 500,000; gen2 2,000,000; LOH 300,000; POH 40,000 (after = before).
 *   Survival gen0 per heap = (long)(out*100/objspace): h0 100,000/900,000 -> 11,
 *   h1 190,000/1,900,000 -> 10, h2 280,000/2,900,000 -> 9, h3 370,000/3,900,000 -> 9;
 *   integer mean 39/4 = 9. Gen1 survival NaN (gen1 > condemned gen 0).
 *   Before = (10 + 2 + 8 + 1.2 + 0.16) MB = 21.36 = Peak.
 *   Gen0 frag = 4 x 30,000 = 0.12 MB; HeapStats gen0 1.2 MB -> 10 %.
 * GC2 (gen1, index 1): same but gen0 SizeBefore 800,000 + 100,000h, FreeObjBefore 0,
 *   gen1 NonePinnedSurv 100,000 (survival 20 on every heap).
 *   Gen0 alloc from PHH = sum(objspace_before - prev obj size after)
 *   = sum(800,000+100,000h - 270,000) = 2,720,000 -> 2.72 MB; LOH/POH 0.
 *   Condemned: heaps R0 = 5 (initial 1, final 1); global R1 bit 11 (max_gen1)
 *   -> Alloc_Exceeded = 2.
 */
#include <sqlite3.h>

#include "recon_db.h"
#include "recon_events.h"

static void feed_histories(struct gcs_recon *r, double us, int pid, int gc2) {
  struct gcs_event e = ev_at(gcs_kind_GCGlobalHeapHistory, us, pid, 1);
  e.u.GCGlobalHeapHistory.NumHeaps = 4;
  e.u.GCGlobalHeapHistory.CondemnedGeneration = gc2 ? 1 : 0;
  e.u.GCGlobalHeapHistory.CondemnReasons1 = gc2 ? (1u << 11) : 0;
  gcs_recon_feed(r, &e);
  for (int h = 0; h < 4; h++) {
    e = ev_at(gcs_kind_GCPerHeapHistory, us + 1 + h, pid, 1);
    struct gcs_ev_GCPerHeapHistory *p = &e.u.GCPerHeapHistory;
    p->HeapIndex = (uint32_t)h;
    p->Count = 5;
    p->CondemnReasons0 = gc2 ? 5 : 0;
    p->SizeBefore[0] = gc2 ? 800000 + 100000ull * h : 1000000ull * (h + 1);
    p->FreeObjBefore[0] = gc2 ? 0 : 100000;
    p->SizeAfter[0] = 300000;
    p->FreeListAfter[0] = 10000;
    p->FreeObjAfter[0] = 20000;
    p->PinnedSurv[0] = 10000;
    p->NonePinnedSurv[0] = 90000ull * (h + 1);
    p->SizeBefore[1] = p->SizeAfter[1] = 500000;
    p->NonePinnedSurv[1] = gc2 ? 100000 : 0;
    p->SizeBefore[2] = p->SizeAfter[2] = 2000000;
    p->SizeBefore[3] = p->SizeAfter[3] = 300000;
    p->SizeBefore[4] = p->SizeAfter[4] = 40000;
    gcs_recon_feed(r, &e);
  }
}

int main(void) {
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  int pid = 77, t = 3;
  uint64_t s1[5] = { 1200000, 2000000, 8000000, 1200000, 160000 }, pr[5] = { 400000, 0, 0, 0, 0 };
  feed_suspend(r, 1000, pid, t, 1, 1);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 1100, pid, t);
  feed_start(r, 1200, pid, t, 1, 0, 0, 0);
  feed_histories(r, 1300, pid, 0);
  feed_end(r, 2000, pid, t, 1, 0);
  feed_heap_stats(r, 2100, pid, t, s1, pr);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 2500, pid, t);

  feed_suspend(r, 5000, pid, t, 1, 2);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 5100, pid, t);
  feed_start(r, 5200, pid, t, 2, 1, 0, 0);
  feed_histories(r, 5300, pid, 1);
  feed_end(r, 6000, pid, t, 2, 1);
  feed_heap_stats(r, 6100, pid, t, s1, pr);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 7000, pid, t);
  gcs_recon_finish(r);

  const struct gcs_gc *a = gcs_recon_gc(r, 0, 0), *b = gcs_recon_gc(r, 0, 1);
  CHECK(a->complete && b->complete);
  CHECK(a->nheaps == 4 && b->nheaps == 4);
  CHECK(a->heap_count == 4 && gcs_recon_process(r, 0)->heap_count == 4);
  CHECK_REL(a->gen_survival_pct[0], 9, 1e-9);
  CHECK_NAN(a->gen_survival_pct[1]);
  CHECK_NAN(a->gen_survival_pct[3]);
  CHECK_REL(a->before_mb, 21.36, 1e-9);
  CHECK_REL(a->peak_mb, 21.36, 1e-9);
  CHECK_REL(a->gen_frag_mb[0], 0.12, 1e-9);
  CHECK_REL(a->gen_frag_pct[0], 10.0, 1e-9);
  CHECK_REL(b->user_alloc_mb[0], 2.72, 1e-9);
  CHECK_REL(b->user_alloc_mb[3], 0, 1e-9);
  CHECK_REL(b->user_alloc_mb[4], 0, 1e-9);
  /* measured (recon_alloc.c): GC1 from an empty heap, summed over the 4 heaps:
   * SOH 10,000,000 - 4 x 100,000 free = 9.6 MB, LOH 1.2, POH 0.16; GC2 as
   * PerfView's 2.72 with nothing on the LOH/POH. */
  CHECK_REL(a->alloc_measured_mb[0], 9.6, 1e-9);
  CHECK_REL(a->alloc_measured_mb[1], 1.2, 1e-9);
  CHECK_REL(a->alloc_measured_mb[2], 0.16, 1e-9);
  CHECK_REL(b->alloc_measured_mb[0], 2.72, 1e-9);
  CHECK_REL(b->total_alloc_measured_mb, 2.72, 1e-9);
  CHECK_REL(gcs_recon_process(r, 0)->total_alloc_measured_mb, 9.6 + 1.2 + 0.16 + 2.72, 1e-9);
  CHECK_REL(b->gen_survival_pct[1], 20, 1e-9);
  CHECK(b->condemned[0] == 1 && b->condemned[1] == 1 && b->condemned[2] == 2);
  int others = 0;
  for (int i = 3; i < 30; i++) others += b->condemned[i];
  CHECK(others == 0);

  sqlite3 *db = recon_db_new();
  CHECK(gcs_recon_store(r, db, 1) == SQLITE_OK);
  CHECK(recon_q1(db, "SELECT count(*) FROM gcs") == 2);
  CHECK(recon_q1(db, "SELECT count(*) FROM gc_heaps") == 8);
  CHECK(recon_q1(db, "SELECT count(*) FROM gc_heap_gens") == 40);
  CHECK(recon_q1(db, "SELECT count(*) FROM gc_gens") == 10);
  CHECK(recon_q1(db, "SELECT gc_count FROM gc_process_summary WHERE pid = 77") == 2);
  CHECK(recon_q1(db, "SELECT heap_count FROM gcs WHERE gc_index = 2") == 4);
  CHECK(recon_q1(db, "SELECT cr_alloc_exceeded FROM gcs WHERE gc_index = 2") == 2);
  CHECK(recon_q1(db, "SELECT survival_pct FROM gc_heap_gens WHERE gc_index = 1 AND heap_slot = 0 AND gen = 0") == 11);
  CHECK_REL(recon_qd(db, "SELECT pause_msec FROM gcs WHERE gc_index = 1"), 1.5, 1e-9);
  CHECK_REL(recon_qd(db, "SELECT gen0_alloc_mb FROM gcs WHERE gc_index = 2"), 2.72, 1e-9);
  CHECK_NAN(recon_qd(db, "SELECT gen1_survival_pct FROM gcs WHERE gc_index = 1")); /* NULL */
  CHECK_NAN(recon_qd(db, "SELECT pct_gc FROM gcs WHERE gc_index = 1"));
  CHECK(recon_q1(db, "SELECT start_ns FROM gcs WHERE gc_index = 1") == (int64_t)(T0 + 1200000));
  sqlite3_close(db);
  gcs_recon_free(r);
  return check_done();
}
