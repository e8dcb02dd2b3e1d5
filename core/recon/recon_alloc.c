/*
 * recon_alloc.c — gcscope's measured allocations: what the heap itself says
 * was allocated between GCs. This is not a PerfView figure (PerfView's
 * AllocedSinceLastGCMB stays in recon_calc.c, with its quirks); it sits
 * beside it because PerfView's
 *   - counts a background GC's gen0 allocations from AllocationTick events
 *     only (zero without the verbose level), and
 *   - subtracts the previous GC *in the list* even when that GC ran inside a
 *     background GC and saw the heap before the background GC swept it
 *     (negative LOH allocations).
 *
 * The method. Every GC with per-heap history gives two observations of each
 * allocating generation g (SOH = gen0, LOH, POH), summed over heaps: at its
 * start, the objects before it (size - free list - free objects), and at its
 * end, the objects after it (size after - fragmentation). Walk them in time
 * order with a level L per generation:
 *   - a start observation B: allocated = max(0, B - L) since the last
 *     observation, attributed to this GC; L = B;
 *   - an end observation A of a blocking GC: L = A (nothing allocates while
 *     the world is stopped); a generation it did not condemn (LOH/POH in a
 *     gen0/gen1 GC) has no end observation: it is unchanged;
 *   - an end observation of a background GC, which ran concurrently with the
 *     program: gen0 is not compacted by it, so max(0, A - L) was allocated
 *     meanwhile; for LOH/POH, whose survivors it counts (pinned + non-pinned
 *     survival), what it holds beyond them, A - survived, was allocated while
 *     it ran, less what GCs inside it already counted. Then L = A.
 * Gen0 and background GCs: CoreCLR's background GC sweeps gen0 in its final
 * pause, turning what was allocated since it began and died into free
 * objects that no observation shows as objects; gen0's size (with its free
 * space) keeps them. At a background GC's end and at the start of a GC
 * inside it, the size's growth beyond the objects', less the share of free
 * space allocation itself leaves (seen where no background GC ran), counts
 * as swept when over GEN0_SWEEP_MIN per heap (gen0_growth). The ephemeral GC of a background GC's initial pause
 * is no LOH/POH observation (skip_uoh). docs/stats.md has the .NET 10 runs.
 * The first observation counts from an empty heap (the process's allocations
 * before its first GC). On librgc traces the totals equal what the runtime
 * counted it handed out (tests/recon, tests/tracer); what is allocated after
 * the last GC is not in any figure.
 *
 * Order: a GC's observations are placed once every GC that started before it
 * is settled (complete, or closed incomplete), so a foreground GC inside a
 * background GC learns its figure when the background GC ends
 * (gc_alloc_known).
 *
 * Whose history: a GC's own per-heap history, not PerfView's attribution
 * (recon_internal.h, own_heaps): a background GC's may arrive while a
 * foreground GC inside it is the last in the list. A GC whose history holds
 * a heap twice mixes two GCs and has no figure.
 */
#include <math.h>

#include "recon_internal.h"

static const int meas_gen[3] = { GCS_GEN0, GCS_GEN_LOH, GCS_GEN_POH };

/* bytes per heap: gen0 free space beyond the expected that counts as a sweep */
#define GEN0_SWEEP_MIN 65536.0

void recon_alloc_init_gc(struct recon_gc *gc) {
  for (int m = 0; m < 3; m++) gc->g.alloc_measured_mb[m] = NAN;
  gc->g.total_alloc_measured_mb = NAN;
}

/* The per-heap history that is really this GC's (recon_internal.h: PerfView's
 * attribution may put a background GC's on the foreground GC inside it): the
 * i-th of n. */
static int own_count(const struct recon_gc *gc) { return gc->g.nheaps - gc->nforeign + gc->nown; }

static const struct gcs_gc_heap *own_heap(const struct recon_gc *gc, int i) {
  int n = gc->g.nheaps - gc->nforeign;
  return i < n ? &gc->g.heaps[i] : &gc->own_heaps[i - n];
}

static int has_gen(const struct recon_gc *gc, int gen) {
  return own_count(gc) > 0 && (int)own_heap(gc, 0)->gen_count > gen;
}

/* A heap reported twice means another GC's history is mixed in that the
 * reconstruction could not tell apart: no figure rather than a wrong one. */
static int one_gc_history(const struct recon_gc *gc) {
  int n = own_count(gc);
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (own_heap(gc, i)->heap_index == own_heap(gc, j)->heap_index) return 0;
  return 1;
}

static int observable(const struct recon_gc *gc) { return gc->g.complete && own_count(gc) > 0 && one_gc_history(gc); }

static double sum_heaps(const struct recon_gc *gc, int gen, int what) {
  double s = 0;
  for (int h = 0; h < own_count(gc); h++) {
    const struct gcs_gc_heap *hp = own_heap(gc, h);
    if ((int)hp->gen_count <= gen) continue;
    switch (what) {
    case 0:
      s += (double)hp->gen[gen].size_before - (double)hp->gen[gen].free_list_before -
           (double)hp->gen[gen].free_obj_before;
      break;
    case 1:
      s += (double)hp->gen[gen].size_after - (double)hp->gen[gen].free_list_after -
           (double)hp->gen[gen].free_obj_after;
      break;
    case 2: s += (double)hp->gen[gen].pinned_surv + (double)hp->gen[gen].non_pinned_surv; break;
    case 3: s += (double)hp->gen[gen].size_before; break;
    default: s += (double)hp->gen[gen].size_after; break;
    }
  }
  return s;
}

static uint64_t end_time(const struct gcs_gc *g) { return g->end_ns ? g->end_ns : g->heap_stats_ns; }

static void credit(struct recon_alloc *a, struct recon_gc *gc, int m, double bytes) {
  struct gcs_gc *g = &gc->g;
  if (isnan(g->alloc_measured_mb[m])) g->alloc_measured_mb[m] = 0;
  g->alloc_measured_mb[m] += bytes / 1e6;
  g->total_alloc_measured_mb = g->alloc_measured_mb[0] + g->alloc_measured_mb[1] + g->alloc_measured_mb[2];
  for (int i = 0; i < a->npending; i++)
    if (a->pending[i] != gc && gcs_type_is_background(a->pending[i]->g.type)) a->pending[i]->alloc_counted[m] += bytes;
}

/* Gen0's growth up to an observation showing objects (size - free space) and
 * size: the objects' growth, or while a background GC runs, the size's if
 * larger. The background GC sweeps gen0 in its final pause (its ephemeral
 * sweep): what was allocated since its start and is dead by then becomes
 * free space without ever being seen as objects, but gen0's size keeps it
 * (sweeping frees, it does not shrink). */
static double gen0_growth(const struct recon_alloc *a, double objects, double size, int nheaps) {
  double d = objects - a->level[0], ds = size - a->size_level;
  /* A runtime may leave free space in gen0 as it allocates (librgc: ~16 %
   * of it; CoreCLR: none, or an allocation context's tail): that share of
   * the size's growth, seen where no background GC ran, is no sweep. What
   * is left beyond it counts as swept only above GEN0_SWEEP_MIN per heap:
   * smaller, it cannot be told from how allocation contexts fell (librgc's
   * background GCs do not sweep gen0; this noise was up to 12 KB). */
  double w = a->waste_size > 0 ? a->waste_free / a->waste_size : 0;
  double swept = ds - d - w * (ds > 0 ? ds : 0);
  return swept > GEN0_SWEEP_MIN * nheaps ? d + swept : d;
}

/* A start observation with no background GC since the last one: how much of
 * gen0's growth became free space as the program allocated. */
static void note_waste(struct recon_alloc *a, double objects, double size) {
  double ds = size - a->size_level, df = (size - objects) - (a->size_level - a->level[0]);
  if (ds <= 0) return;
  a->waste_size += ds;
  if (df > 0) a->waste_free += df < ds ? df : ds;
}

static int bgc_running(const struct recon_alloc *a) {
  for (int i = 0; i < a->npending; i++)
    if (gcs_type_is_background(a->pending[i]->g.type)) return 1;
  return 0;
}

/* The ephemeral GC a background GC runs in its initial pause does not
 * collect the LOH or POH, and the background GC's own start observes them at
 * that instant; its LOH/POH sizes are left out. They can be older than the
 * background GC's: .NET 10 showed a background GC's LOH before holding 2 MB
 * the program allocated after that pause (its own counter said so), the
 * ephemeral GC's not; taken as an observation in between, that lowered the
 * level and the next GC counted the 2 MB a second time. */
static int skip_uoh(const struct recon_gc *gc, int m) { return m > 0 && gc->ephemeral_at_bgc_start; }

/* A generation the GC did not condemn is unchanged by it: its start
 * observation stands. The LOH and POH are collected with gen2 only, and
 * older runtimes (.NET Core 3.0) report their size after a gen0 or gen1 GC
 * as 0; taken as the level, every such GC's successor counted the whole
 * LOH again (3.3x PerfView's total on one trace). */
static int condemned(const struct gcs_gc *g, int m) { return m == 0 || g->gen >= GCS_GEN2; }

static void apply_end(struct gcs_recon *r, struct recon_alloc *a, struct recon_gc *gc) {
  const struct gcs_gc *g = &gc->g;
  int bgc = gcs_type_is_background(g->type);
  for (int m = 0; m < 3; m++) {
    int gen = meas_gen[m];
    if (!has_gen(gc, gen) || skip_uoh(gc, m) || !condemned(g, m)) continue;
    double after = sum_heaps(gc, gen, 1);
    if (bgc) {
      double d = m == 0 ? gen0_growth(a, after, sum_heaps(gc, gen, 4), own_count(gc))
                        : after - sum_heaps(gc, gen, 2) - gc->alloc_counted[m];
      if (d > 0) credit(a, gc, m, d);
    }
    a->level[m] = after;
    if (m == 0) a->size_level = sum_heaps(gc, gen, 4);
  }
  if (gc->reported && r->cb.gc_alloc_known) r->cb.gc_alloc_known(g, r->ud);
}

/* Apply the pending end observations up to time limit (all with limit 0), in
 * time order. */
static void apply_ends(struct gcs_recon *r, struct recon_alloc *a, uint64_t limit) {
  while (a->npending > 0) {
    int best = 0;
    for (int i = 1; i < a->npending; i++)
      if (end_time(&a->pending[i]->g) < end_time(&a->pending[best]->g)) best = i;
    struct recon_gc *gc = a->pending[best];
    if (limit && end_time(&gc->g) > limit) return;
    a->pending[best] = a->pending[--a->npending];
    apply_end(r, a, gc);
  }
}

static void place(struct gcs_recon *r, struct recon_alloc *a, struct recon_gc *gc) {
  apply_ends(r, a, gc->g.start_ns ? gc->g.start_ns : 1);
  if (!observable(gc)) return;
  struct gcs_gc *g = &gc->g;
  for (int m = 0; m < 3; m++) {
    int gen = meas_gen[m];
    if (!has_gen(gc, gen) || skip_uoh(gc, m)) {
      if (isnan(g->alloc_measured_mb[m])) g->alloc_measured_mb[m] = 0;
      continue;
    }
    double before = sum_heaps(gc, gen, 0), d = before - a->level[m];
    if (m == 0 && bgc_running(a)) d = gen0_growth(a, before, sum_heaps(gc, gen, 3), own_count(gc));
    else if (m == 0) note_waste(a, before, sum_heaps(gc, gen, 3));
    credit(a, gc, m, d > 0 ? d : 0);
    a->level[m] = before;
    if (m == 0) a->size_level = sum_heaps(gc, gen, 3);
  }
  g->total_alloc_measured_mb = g->alloc_measured_mb[0] + g->alloc_measured_mb[1] + g->alloc_measured_mb[2];
  if (a->npending == RECON_ALLOC_PENDING) apply_ends(r, a, 0); /* never in practice: ends are near */
  a->pending[a->npending++] = gc;
}

/* May GC i be placed? A complete GC once its per-heap history is in (a
 * server GC's may follow its completion: then once the next GC has begun); a
 * GC closed incomplete at once; an open one once a later GC completed,
 * unless it is the running background GC. */
static int settled(const struct recon_proc *p, int i, int final) {
  const struct recon_gc *gc = p->gcs[i];
  if (final) return 1;
  int later = i < p->ngcs - 1;
  if (gc->g.complete)
    return later || (own_count(gc) > 0 && (gc->g.heap_count <= 0 || own_count(gc) >= gc->g.heap_count));
  if (gc->reported) return 1;
  if (p->current_bgc == i) return 0;
  return p->last_completed > i;
}

void recon_alloc_advance(struct gcs_recon *r, struct recon_proc *p, int final, int drop_below) {
  struct recon_alloc *a = &p->alloc;
  while (a->next < p->ngcs && (a->next < drop_below || settled(p, a->next, final))) place(r, a, p->gcs[a->next++]);
  if (a->next == p->ngcs) {
    apply_ends(r, a, 0);
  } else if (drop_below > 0) {
    /* GCs about to be freed leave the pending list now */
    for (int i = 0; i < a->npending;)
      if (a->pending[i]->g.list_index < drop_below) {
        struct recon_gc *gc = a->pending[i];
        a->pending[i] = a->pending[--a->npending];
        apply_end(r, a, gc);
      } else {
        i++;
      }
  }
}
