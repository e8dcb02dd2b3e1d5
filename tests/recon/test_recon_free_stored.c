/*
 * gcs_recon_store_final frees the GCs it wrote (memory bounded by the GCs
 * not final yet, not by the trace's length), and every row and the process
 * summary stay what storing every GC at the end writes, to the bit.
 *
 * The same synthetic sequence of process 7 (2,348 GCs: 2,300 positions, 24
 * of them, every 97th from the 50th, a background GC with two more GCs, the
 * rest one blocking GC each: 2,276 + 72; a fixed pseudo-random choice of
 * generations, reasons, sizes and times) is fed twice:
 *   run A: gcs_recon_store at the end only (nothing freed before the end);
 *   run B: gcs_recon_store_final after every event, then gcs_recon_store.
 * Every row of every table the reconstruction writes (gcs, gc_gens, gc_heaps,
 * gc_heap_gens, gc_loh_waits, gc_mark_times, gc_loh_compact,
 * gc_fit_buckets, the DATAS tables, gc_process_summary) must be identical:
 * same storage class and, for REAL, the same 64 bits; the ids included.
 * The sequence has what the figures look back at or ahead to:
 *   - blocking gen0/1/2 GCs with per-heap history on 1 or 2 heaps
 *     (user_alloc_mb reads the previous GC's heaps), some induced, every
 *     13th without per-heap history (gen_before_mb's estimate reads the
 *     previous GC with heap stats), the heap count changing every 300
 *     positions (the summary's heap_count_changes), AllocationTick between
 *     GCs;
 *   - the background GCs: the ephemeral GC of its start, a foreground gen1
 *     GC inside it, its GCPrep pause and its own per-heap history on its
 *     thread (the BGC peak looks ahead; measured allocations settle later).
 * Memory: run A holds all 2,348 GCs at once (gcs_recon_held_max); run B at
 * most 22, at the GCStart 16 after the first GC that begins after a
 * background GC ended (before the store that follows): the last GC
 * written, the background GC and the two GCs inside it (its peak window
 * is open until a GC that began after its end is below the store's limit,
 * 16 behind the newest), the 16 newest at the last store, the one just
 * begun (21), and the previous background GC, written and kept for an
 * allocation wait's late end (kept_bgc; from the second background GC on;
 * an early version left it out of the count: 21). (Before a background GC
 * was written early and kept, it waited for a later one to complete: 97
 * positions here, 103 held.) More than 2,300 are
 * written early in run B (gcs_recon_stored_final), none in run A.
 * A third and fourth run (no background GCs) end at position 2,260 with GC
 * A (gen1 size after 3,000,000 bytes), 25 GCs started with reason PMFullGC
 * and no GCHeapStats (each ended by the next one's GCStart: complete without
 * heap stats), and GC C (PMFullGC, with GCHeapStats, no per-heap history),
 * then 39 blocking GCs. C's gen1 size before is PerfView's estimate, the
 * gen1 size after of the previous GC with heap stats, A, 26 GCs back:
 * 3.000000 MB, from the recon without early stores and as written early
 * once A was freed (from what the recon keeps of the freed GCs). The 25
 * GCs without heap stats count as GCs but add nothing to the summary's
 * allocated and promoted totals (before, those totals were NaN and the
 * summary could not be stored: the import failed): the totals are the sums,
 * in list order, over the other complete GCs, and both runs store the same
 * summary, to the bit.
 */
#include <stdlib.h>
#include <string.h>

#include "recon_db.h"
#include "recon_events.h"

#define PID 7
#define GT 70 /* the GC thread */
#define BT 80 /* the background GC's thread */
#define UNITS 2300

struct run {
  struct gcs_recon *r;
  sqlite3 *db;
  int early;
};

static void step(struct run *s) {
  if (s->early) CHECK(gcs_recon_store_final(s->r, s->db, 1) == SQLITE_OK);
}

static uint32_t seed;
static uint32_t rnd(uint32_t n) {
  seed = seed * 1103515245u + 12345u;
  return (seed >> 8) % n;
}

static void suspend(struct run *s, double us, int tid, uint32_t reason, uint32_t count) {
  feed_suspend(s->r, us, PID, tid, reason, count);
  step(s);
}
static void simple(struct run *s, enum gcs_kind k, double us, int tid) {
  feed_simple(s->r, k, us, PID, tid);
  step(s);
}
static void start(struct run *s, double us, int tid, uint32_t count, uint32_t depth, uint32_t reason, uint32_t type) {
  feed_start(s->r, us, PID, tid, count, depth, reason, type);
  step(s);
}
static void end(struct run *s, double us, int tid, uint32_t count, uint32_t depth) {
  feed_end(s->r, us, PID, tid, count, depth);
  step(s);
}
static void stats(struct run *s, double us, int tid, const uint64_t size[5], const uint64_t prom[5]) {
  feed_heap_stats(s->r, us, PID, tid, size, prom);
  step(s);
}
static void global(struct run *s, double us, int tid, int32_t heaps) {
  struct gcs_event e = ev_at(gcs_kind_GCGlobalHeapHistory, us, PID, tid);
  e.version = 2;
  e.u.GCGlobalHeapHistory.NumHeaps = heaps;
  gcs_recon_feed(s->r, &e);
  step(s);
}
static void phh(struct run *s, double us, int tid, uint32_t heap) {
  struct gcs_event e = ev_at(gcs_kind_GCPerHeapHistory, us, PID, tid);
  struct gcs_ev_GCPerHeapHistory *p = &e.u.GCPerHeapHistory;
  e.version = 3;
  p->HeapIndex = heap;
  p->Count = 5;
  for (int g = 0; g < 5; g++) {
    p->SizeBefore[g] = 1000000 + rnd(9000000);
    p->FreeListBefore[g] = rnd(100000);
    p->FreeObjBefore[g] = rnd(50000);
    p->SizeAfter[g] = 500000 + rnd(9000000);
    p->FreeListAfter[g] = rnd(100000);
    p->FreeObjAfter[g] = rnd(50000);
    p->In[g] = rnd(300000);
    p->PinnedSurv[g] = rnd(10000);
    p->NonePinnedSurv[g] = rnd(400000);
    p->NewAllocation[g] = rnd(5000000);
  }
  gcs_recon_feed(s->r, &e);
  step(s);
}
static void ticks(struct run *s, double *t) {
  for (uint32_t j = rnd(4); j > 0; j--) {
    feed_tick(s->r, *t, PID, rnd(3) == 0 ? GCS_ALLOC_KIND_LARGE : GCS_ALLOC_KIND_SMALL, 100000 + rnd(1000));
    step(s);
    *t += 10;
  }
}
static void sizes(uint64_t size[5], uint64_t prom[5]) {
  for (int g = 0; g < 5; g++) {
    size[g] = 100000 + rnd(20000000);
    prom[g] = rnd(1000000);
  }
}

/* A blocking GC: nheaps per-heap histories (0: none), the global history
 * giving heaps (0: none); size1 >= 0 fixes gen1's size after. */
static void blocking(struct run *s, double *t, uint32_t k, uint32_t depth, uint32_t reason, int nheaps, int heaps,
                     int64_t size1, int with_stats) {
  double t0 = *t, dur = 100 + rnd(900);
  uint64_t size[5], prom[5];
  sizes(size, prom);
  if (size1 >= 0) size[1] = (uint64_t)size1;
  suspend(s, t0, GT, GCS_SUSPEND_REASON_SUSPEND_FOR_GC, k - 1);
  simple(s, gcs_kind_GCSuspendEEEnd, t0 + 20, GT);
  start(s, t0 + 40, GT, k, depth, reason, GCS_GC_TYPE_NON_CONCURRENT);
  end(s, t0 + 40 + dur, GT, k, depth);
  if (heaps) global(s, t0 + 41 + dur, GT, heaps);
  for (int h = 0; h < nheaps; h++) phh(s, t0 + 42 + dur, GT, (uint32_t)h);
  if (with_stats) stats(s, t0 + 45 + dur, GT, size, prom);
  simple(s, gcs_kind_GCRestartEEBegin, t0 + 50 + dur, GT);
  simple(s, gcs_kind_GCRestartEEEnd, t0 + 60 + dur, GT);
  *t = t0 + 60 + dur + 1000 + rnd(5000);
}

/* Background GC k with the ephemeral GC k + 1 of its start and the
 * foreground gen1 GC k + 2 inside it. */
static void background(struct run *s, double *t, uint32_t k, int heaps) {
  double t0 = *t;
  uint64_t size[5], prom[5];
  suspend(s, t0, GT, GCS_SUSPEND_REASON_SUSPEND_FOR_GC, k - 1);
  simple(s, gcs_kind_GCSuspendEEEnd, t0 + 20, GT);
  start(s, t0 + 40, GT, k, 2, 0, GCS_GC_TYPE_BACKGROUND);
  start(s, t0 + 50, GT, k + 1, 0, 0, GCS_GC_TYPE_NON_CONCURRENT);
  end(s, t0 + 300, GT, k + 1, 0);
  global(s, t0 + 301, GT, heaps);
  for (int h = 0; h < heaps; h++) phh(s, t0 + 302, GT, (uint32_t)h);
  sizes(size, prom);
  stats(s, t0 + 310, GT, size, prom);
  simple(s, gcs_kind_GCRestartEEBegin, t0 + 320, GT);
  simple(s, gcs_kind_GCRestartEEEnd, t0 + 330, GT);
  double t1 = t0 + 2000;
  ticks(s, &t1);
  suspend(s, t1, GT, GCS_SUSPEND_REASON_SUSPEND_FOR_GC, k + 1);
  simple(s, gcs_kind_GCSuspendEEEnd, t1 + 20, GT);
  start(s, t1 + 40, GT, k + 2, 1, 0, GCS_GC_TYPE_FOREGROUND);
  end(s, t1 + 400, GT, k + 2, 1);
  global(s, t1 + 401, GT, heaps);
  for (int h = 0; h < heaps; h++) phh(s, t1 + 402, GT, (uint32_t)h);
  sizes(size, prom);
  stats(s, t1 + 410, GT, size, prom);
  simple(s, gcs_kind_GCRestartEEBegin, t1 + 420, GT);
  simple(s, gcs_kind_GCRestartEEEnd, t1 + 430, GT);
  double t2 = t1 + 3000;
  ticks(s, &t2);
  suspend(s, t2, BT, GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP, k);
  simple(s, gcs_kind_GCSuspendEEEnd, t2 + 30, BT);
  simple(s, gcs_kind_GCRestartEEBegin, t2 + 500, BT);
  simple(s, gcs_kind_GCRestartEEEnd, t2 + 510, BT);
  end(s, t2 + 2000, BT, k, 2);
  global(s, t2 + 2001, BT, heaps);
  for (int h = 0; h < heaps; h++) phh(s, t2 + 2002, BT, (uint32_t)h);
  sizes(size, prom);
  stats(s, t2 + 2010, BT, size, prom);
  *t = t2 + 3000 + rnd(3000);
}

static uint32_t a_number, c_number; /* GC A and GC C below */

static void feed_all(struct run *s, int pm) {
  seed = 12345;
  double t = 1000;
  uint32_t k = 1;
  for (int i = 0; i < UNITS; i++) {
    ticks(s, &t);
    int heaps = (i / 300) % 2 + 1;
    if (i % 97 == 50 && !pm) {
      background(s, &t, k, heaps);
      k += 3;
    } else if (pm && i == UNITS - 40) {
      /* A, 25 PMFullGC GCs without heap stats, C */
      a_number = k;
      blocking(s, &t, k++, 1, 0, heaps, heaps, 3000000, 1);
      for (int m = 0; m < 25; m++) blocking(s, &t, k++, 0, GCS_GC_REASON_PM_FULL_GC, 0, 0, -1, 0);
      c_number = k;
      blocking(s, &t, k++, 0, GCS_GC_REASON_PM_FULL_GC, 0, 0, -1, 1);
    } else {
      uint32_t d = rnd(10), depth = d < 7 ? 0 : d < 9 ? 1 : 2;
      uint32_t reason = rnd(20) == 0 ? GCS_GC_REASON_INDUCED : GCS_GC_REASON_ALLOC_SMALL;
      blocking(s, &t, k++, depth, reason, i % 13 == 0 ? 0 : heaps, heaps, -1, 1);
    }
  }
  int rc = gcs_recon_store(s->r, s->db, 1);
  CHECK(rc == SQLITE_OK);
  if (rc != SQLITE_OK) fprintf(stderr, "store: %s\n", sqlite3_errmsg(s->db));
}

/* C's gen1 size before, in a run with the PMFullGC GCs: run A's from the
 * recon (its summary, NaN, cannot be stored), run B's as written early. */
static double pm_totals[2][2]; /* per run (early 0/1): the stored summary's allocated, promoted */
static double c_gen1_before(int early) {
  struct run s = { gcs_recon_new(NULL, NULL), recon_db_new(), early };
  gcs_recon_set_time_origin(s.r, T0);
  feed_all(&s, 1);
  double v = NAN;
  if (!early) {
    const struct gcs_gc *a = NULL, *c = NULL;
    for (int i = 0; i < gcs_recon_gc_count(s.r, 0); i++) {
      const struct gcs_gc *g = gcs_recon_gc(s.r, 0, i);
      if (g->number == a_number) a = g;
      if (g->number == c_number) c = g;
    }
    CHECK(a && c && c->list_index == a->list_index + 26);
    CHECK(a->has_heap_stats && a->heap_stats.GenerationSize1 == 3000000);
    CHECK(c->complete && c->has_heap_stats && c->nheaps == 0 && c->reason == GCS_GC_REASON_PM_FULL_GC);
    for (int i = a->list_index + 1; i < c->list_index; i++)
      CHECK(gcs_recon_gc(s.r, 0, i)->complete && !gcs_recon_gc(s.r, 0, i)->has_heap_stats);
    if (c) v = c->gen_before_mb[GCS_GEN1];
    /* the summary's totals: the GCs with heap stats, in list order */
    double alloc = 0, promoted = 0;
    int complete = 0, no_stats = 0;
    for (int i = 0; i < gcs_recon_gc_count(s.r, 0); i++) {
      const struct gcs_gc *g = gcs_recon_gc(s.r, 0, i);
      if (!g->complete) continue;
      complete++;
      if (!g->has_heap_stats) {
        no_stats++;
        continue;
      }
      alloc += g->total_alloc_mb;
      promoted += g->promoted_mb;
    }
    CHECK(no_stats == 25);
    const struct gcs_proc_summary *sum = gcs_recon_process(s.r, 0);
    CHECK(sum->gc_count == complete);
    CHECK(sum->total_alloc_mb == alloc && alloc > 0);
    CHECK(sum->total_promoted_mb == promoted && promoted > 0);
    CHECK(recon_qd(s.db, "SELECT total_alloc_mb FROM gc_process_summary") == alloc);
    CHECK(recon_qd(s.db, "SELECT total_promoted_mb FROM gc_process_summary") == promoted);
    CHECK(recon_q1(s.db, "SELECT gc_count FROM gc_process_summary") == complete);
  } else {
    char q[160];
    snprintf(q, sizeof q, "SELECT size_before_mb FROM gc_gens WHERE gen = 1 AND gc_index = %u", c_number);
    v = recon_qd(s.db, q);
    /* written early, A freed: the first GC held is after it */
    CHECK(gcs_recon_stored_final(s.r) > (int)c_number);
    CHECK(gcs_recon_gc(s.r, 0, 0)->list_index > (int)a_number);
  }
  pm_totals[early][0] = recon_qd(s.db, "SELECT total_alloc_mb FROM gc_process_summary");
  pm_totals[early][1] = recon_qd(s.db, "SELECT total_promoted_mb FROM gc_process_summary");
  gcs_recon_free(s.r); /* finalizes the early stores' statements: before the close */
  sqlite3_close(s.db);
  return v;
}

int main(void) {
  struct run a = { gcs_recon_new(NULL, NULL), recon_db_new(), 0 };
  struct run b = { gcs_recon_new(NULL, NULL), recon_db_new(), 1 };
  gcs_recon_set_time_origin(a.r, T0);
  gcs_recon_set_time_origin(b.r, T0);
  feed_all(&a, 0);
  feed_all(&b, 0);

  int64_t gcs = recon_q1(a.db, "SELECT count(*) FROM gcs");
  CHECK(gcs == 2348);
  CHECK(recon_q1(b.db, "SELECT count(*) FROM gcs") == gcs);
  /* what the sequence holds */
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs WHERE gen_name = '2B' AND complete = 1") == 24);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs WHERE gen_name = '1F' AND complete = 1") == 24);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_heaps WHERE heap_slot = 1") > 500);
  CHECK(recon_q1(a.db, "SELECT heap_count_changes FROM gc_process_summary") > 5);

  CHECK(recon_same(a.db, b.db) > 100000);

  /* memory */
  CHECK(gcs_recon_held_max(a.r) == 2348);
  fprintf(stderr, "run B: %d GCs written early, at most %d held\n", gcs_recon_stored_final(b.r),
          gcs_recon_held_max(b.r));
  CHECK(gcs_recon_held_max(b.r) == 22);
  CHECK(gcs_recon_stored_final(b.r) > 2300);
  CHECK(gcs_recon_stored_final(a.r) == 0);
  gcs_recon_free(a.r);
  gcs_recon_free(b.r);
  sqlite3_close(a.db);
  sqlite3_close(b.db);

  /* the estimate from a freed GC's heap stats */
  CHECK(c_gen1_before(0) == 3.0);
  CHECK(c_gen1_before(1) == 3.0);
  CHECK(memcmp(pm_totals[0], pm_totals[1], sizeof pm_totals[0]) == 0);
  return check_done();
}
