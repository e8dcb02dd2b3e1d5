/* rgc_collect.c — one GC on the GC thread. rgc_do_gc runs its phases in
 * order, each a function below that states what it establishes:
 *   suspend_and_begin   program stopped, heaps locked, sizes before
 *   decide_condemned    generation, reasons, type; GCStart
 *   condemn_regions     condemned regions detached from their generations
 *   mark                live objects marked, survivors counted
 *   decide_compaction   compact (evacuate) or sweep, and why
 *   plan_regions        each condemned region: evacuated or kept as gen N
 *   relocate            survivors copied out, forwarding left behind
 *   fix_up              no reference to a moved object; cards rebuilt
 *   sweep               dead space freed, regions relinked or released
 *   publish_and_restart budgets, history and events; program resumed
 * A background GC leaves after decide_condemned: its first pause is
 * start_background, the rest runs on the BGC thread (rgc_bgc.c). */
#include <math.h>
#include <stdlib.h>

#include "rgc_internal.h"

/* Per-generation tuning: CoreCLR gc.cpp's static_data_table, latency level
 * "balanced" (minimum and maximum budget, fragmentation limit and burden,
 * growth limit and its maximum). */
static const struct {
  uint64_t min_size, max_size, frag_limit;
  double frag_burden, limit, max_limit;
} gen_static[RGC_NGEN] = {
  {0, 0, 40000, 0.5, 9.0, 20.0},
  {256 * 1024, 6 * 1024 * 1024, 80000, 0.5, 2.0, 7.0},
  {256 * 1024, UINT64_MAX, 200000, 0.25, 1.2, 1.8},
  {3 * 1024 * 1024, UINT64_MAX, 0, 0.0, 1.25, 4.5},
  {3 * 1024 * 1024, UINT64_MAX, 0, 0.0, 1.25, 4.5},
};

static double surv_to_growth(double cst, double limit, double max_limit) {
  if (cst < (max_limit - limit) / (limit * (max_limit - 1.0)))
    return (limit - limit * cst) / (1.0 - cst * limit);
  return max_limit;
}

static uint64_t clamp_u64(double v, uint64_t lo, uint64_t hi) {
  if (v < (double)lo) return lo;
  if (v > (double)hi) return hi;
  return (uint64_t)v;
}

/* ---- evacuation ---------------------------------------------------------- */

/* Survivors promoted into free-list space fill one free-list item at a
 * time (the heap's promotion context for the generation, h->promo_*), not
 * one item per object: an item is taken, bumped through, and what is left
 * of it becomes free again when the next is taken or relocation ends. */
static void promo_retire(struct rgc_runtime *rt, struct rgc_heap *h, int dest) {
  uint8_t *p = h->promo_ptr[dest], *e = h->promo_limit[dest];
  if (p && p < e) rgc_make_free(rt, h, rgc_region_of(rt, p), p, (size_t)(e - p), true);
  h->promo_ptr[dest] = h->promo_limit[dest] = NULL;
}

static uint8_t *promo_alloc(struct rgc_runtime *rt, struct rgc_heap *h, int dest, size_t size) {
  struct rgc_heap_rec *rec = &rt->rec.heap[h->index];
  /* During a BGC, old free lists are being rebuilt: only fresh regions. */
  if (dest > rt->condemned_gen && !atomic_load_explicit(&rt->bgc_active, memory_order_relaxed)) {
    uint8_t *p = h->promo_ptr[dest];
    if (p && (size_t)(h->promo_limit[dest] - p) >= size) {
      h->promo_ptr[dest] = p + size;
      rec->fl_allocated += size;
      return p;
    }
    struct rgc_hdr *item = h->promo_fl_empty[dest] ? NULL : rgc_free_list_take(rt, h, dest, size);
    if (!item) h->promo_fl_empty[dest] = true;  /* not again in this relocation */
    else {
      promo_retire(rt, h, dest);
      /* the item becomes objects one by one: its region's bricks are
       * rebuilt when a card scan next needs them */
      rgc_bricks_drop(rgc_region_of(rt, item));
      h->promo_ptr[dest] = (uint8_t *)item + size;
      h->promo_limit[dest] = (uint8_t *)item + item->size;
      rec->fl_allocated += size;
      return (uint8_t *)item;
    }
  }
  struct rgc_region *r = h->alloc_region[dest];
  if (!r || r->top + size > r->end) {
    r = rgc_region_new(rt, h, dest, RGC_REGION_SIZE);
    if (!r) rgc_fatal("out of memory while compacting (hard limit reached)");
    atomic_store_explicit(&r->bricks_ok, true, memory_order_relaxed);  /* empty: exact; kept below */
    h->alloc_region[dest] = r;
  }
  uint8_t *p = r->top;
  r->top += size;
  rgc_bricks_note(rt, r, p, size);
  if (dest <= rt->condemned_gen) rec->condemned_allocated += size;
  else rec->eos_allocated += size;
  return p;
}

static void evacuate_region(struct rgc_runtime *rt, struct rgc_heap *h, struct rgc_region *r) {
  int dest = r->gen < GCS_GEN2 ? r->gen + 1 : GCS_GEN2;
  /* the mark counted the region's live bytes exactly: stop after the last
   * live object (the walk reads every header, mostly dead ones) */
  size_t left = atomic_load_explicit(&r->live_bytes, memory_order_relaxed);
  RGC_FOR_EACH_OBJECT(r, o) {
    if (!left) break;
    size_t size = o->size;
    uint32_t f = hflags(o);
    if ((f & OF_FREE) || !(f & OF_MARK)) continue;
    uint8_t *np = promo_alloc(rt, h, dest, size);
    memcpy(np, o, size);
    struct rgc_hdr *n = (struct rgc_hdr *)np;
    hset(n, f & ~(OF_MARK | OF_PINNED));
    o->tw = (uintptr_t)obj_of(n);
    hset(o, f | OF_FWD);
    if (dest != r->gen) rt->rec.heap[h->index].in[dest] += size;
    RGC_VEC_PUSH(h->copied, h->copied_n, h->copied_cap, obj_of(n));
    left -= size;
  }
}

/* ---- fix-up and cards ---------------------------------------------------- */

static inline void *forward(void *p) {
  if (!p) return p;
  struct rgc_hdr *h = hdr_of(p);
  return (hflags(h) & OF_FWD) ? (void *)h->tw : p;
}

/* Forward a heap slot and keep the card invariant: a slot of an object in an
 * older generation that refers to a younger one has its card set. */
static inline void fix_slot(struct rgc_runtime *rt, void **slot, int holder_gen) {
  void *p = *slot;
  if (!p) return;
  p = forward(p);
  *slot = p;
  struct rgc_region *tr = rgc_region_of(rt, p);
  if (tr && rgc_eff_gen(tr->gen) < holder_gen) rgc_card_set(rt, slot);
}

static void fix_object(struct rgc_runtime *rt, struct rgc_hdr *h, int holder_gen) {
  RGC_FOR_EACH_SLOT(h, slot, { fix_slot(rt, slot, holder_gen); });
}

/* An older (not condemned) region: only slots on dirty cards can refer to
 * condemned objects. Snapshot and clear its cards, then re-set the needed. */
static void fix_older_region(struct rgc_runtime *rt, struct rgc_heap *hp, struct rgc_region *r) {
  if (r->top == r->start || !rgc_cards_dirty(rt, r->start, r->top)) return;
  if (!hp->card_snapshot && !(hp->card_snapshot = malloc(RGC_REGION_SIZE >> RGC_CARD_SHIFT)))
    rgc_fatal("out of memory during a GC (card snapshot)");
  uint8_t *snap = hp->card_snapshot;
  int hg = rgc_eff_gen(r->gen);
  /* process one region slot (2 MB) of cards at a time */
  for (uint8_t *chunk = r->start; chunk < r->top; chunk += RGC_REGION_SIZE) {
    uint8_t *chunk_end = chunk + RGC_REGION_SIZE < r->top ? chunk + RGC_REGION_SIZE : r->top;
    size_t ci = rgc_card_index(rt, chunk);
    size_t n = (size_t)(chunk_end - chunk + (1 << RGC_CARD_SHIFT) - 1) >> RGC_CARD_SHIFT;
    if (!rgc_bytes_any((const uint8_t *)rt->cards, ci, ci + n - 1)) continue;
    memcpy(snap, (const uint8_t *)&rt->cards[ci], n);
    memset((uint8_t *)&rt->cards[ci], 0, n);
    /* the slots on dirty cards of the chunk, found through the bricks
     * (objects straddle chunk boundaries only in multi-slot LOH/POH
     * regions: each chunk fixes the slots inside it) */
    if (!atomic_load_explicit(&r->bricks_ok, memory_order_relaxed)) rgc_bricks_build(rt, r);
    struct rgc_hdr *hint = NULL;  /* the last block looked at */
    for (size_t k = rgc_next_dirty(snap, 0, n - 1); k < n; k = rgc_next_dirty(snap, k + 1, n - 1)) {
      uint8_t *a = chunk + (k << RGC_CARD_SHIFT), *b = a + ((size_t)1 << RGC_CARD_SHIFT);
      if (b > chunk_end) b = chunk_end;
      for (struct rgc_hdr *h = rgc_block_at(rt, a, hint); (uint8_t *)h < b;
           h = (struct rgc_hdr *)((uint8_t *)h + h->size)) {
        hint = h;
        if (hflags(h) & OF_FREE) continue;
        RGC_FOR_EACH_SLOT_IN(h, a, b, slot, { fix_slot(rt, slot, hg); });
      }
    }
  }
}

/* A condemned region kept in place (its generation already the new one):
 * fix up its marked objects, stopping after the last live one. */
static void fix_kept_region(struct rgc_runtime *rt, struct rgc_region *r) {
  int hg = rgc_eff_gen(r->gen);
  size_t left = atomic_load_explicit(&r->live_bytes, memory_order_relaxed);
  RGC_FOR_EACH_OBJECT(r, o) {
    if (!left) break;
    uint32_t f = hflags(o);
    if (!(f & OF_FREE) && (f & OF_MARK)) { fix_object(rt, o, hg); left -= o->size; }
  }
}

static void clear_cards(struct rgc_runtime *rt, struct rgc_region *r) {
  memset((void *)&rt->cards[rgc_card_index(rt, r->start)], 0,
         (size_t)(r->end - r->start) >> RGC_CARD_SHIFT);
}

static void fix_roots(struct rgc_runtime *rt) {
  for (struct rgc_thread *t = rt->threads; t; t = t->next)
    for (size_t i = 0; i < t->nroots; i++) *t->roots[i] = forward(*t->roots[i]);
  for (struct rgc_handle_chunk *c = rt->handle_chunks; c; c = c->next)
    for (int i = 0; i < RGC_HANDLE_CHUNK; i++) {
      struct rgc_handle_slot *s = &c->slots[i];
      void *o = atomic_load_explicit(&s->obj, memory_order_relaxed);
      if (s->in_use && o) atomic_store_explicit(&s->obj, forward(o), memory_order_relaxed);
    }
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *hp = &rt->heaps[hi];
    for (size_t i = 0; i < hp->fin_n; i++) hp->fin_objs[i] = forward(hp->fin_objs[i]);
  }
  pthread_mutex_lock(&rt->fin_lock);
  for (size_t i = 0; i < rt->fq_n; i++) {
    size_t k = (rt->fq_head + i) % rt->fq_cap;
    rt->fq[k] = forward(rt->fq[k]);
  }
  pthread_mutex_unlock(&rt->fin_lock);
}

/* Sweep a region kept in place (its gen already set to the new one): dead
 * runs become free objects (on free lists when big enough), a dead tail
 * gives its space back to the region end; marks are cleared. */
static void sweep_region(struct rgc_runtime *rt, struct rgc_heap *h, struct rgc_region *r) {
  r->fl_bytes = r->fo_bytes = 0;
  if (r->gen < RGC_LOH && !atomic_load_explicit(&r->live_bytes, memory_order_relaxed)) {
    r->top = r->start;  /* all dead: the caller releases it */
    return;
  }
  uint8_t *run = NULL;
  RGC_FOR_EACH_OBJECT(r, o) {
    uint8_t *p = (uint8_t *)o;
    uint32_t f = hflags(o);
    if (!(f & OF_FREE) && (f & OF_MARK)) {
      if (run) { rgc_make_free(rt, h, r, run, (size_t)(p - run), true); run = NULL; }
      atomic_fetch_and_explicit(&o->flags, ~(OF_MARK | OF_PINNED), memory_order_relaxed);
    } else if (!run) {
      run = p;
    }
  }
  if (run) r->top = run;
}

/* ---- the GC -------------------------------------------------------------- */

void rgc_lock_heaps(struct rgc_runtime *rt) {
  for (int i = 0; i < rt->nheaps; i++) pthread_mutex_lock(&rt->heaps[i].lock);
}
void rgc_unlock_heaps(struct rgc_runtime *rt) {
  for (int i = rt->nheaps - 1; i >= 0; i--) pthread_mutex_unlock(&rt->heaps[i].lock);
}

/* Any heap whose budget for generation g is used up (server GC: one heap
 * exhausting its budget triggers the GC for all). */
static bool any_exhausted(struct rgc_runtime *rt, int g) {
  for (int i = 0; i < rt->nheaps; i++)
    if (rt->heaps[i].new_alloc[g] <= 0) return true;
  return false;
}

/* A bit of CondemnReasons1: condition c held (condemn_conditions). */
#define CONDEMN(c) (1u << GCS_CONDEMN_CONDITIONS_##c)

/* Generation gen in 2-bit group `group` of CondemnReasons0. */
static uint32_t condemn_group(enum gcs_condemn_gen_groups group, int gen) {
  return (uint32_t)gen << (2 * group);
}

/* Memory load at which very_high_mem_p holds (CoreCLR gc.cpp: v_high_memory_load_th). */
#define RGC_VERY_HIGH_MEM_PERCENT 97
/* Share of gen2 that, free, makes a gen2 GC blocking (max_high_frag_p). */
#define RGC_GEN2_BLOCKING_FRAG_RATIO 0.65

/* A GC that must see the whole heap at once: a running BGC has to finish
 * first (an induced full GC, or the last GC before running out of space). */
static bool must_wait_for_bgc(const struct rgc_request *rq) {
  return (rq->induced && (rq->gen < 0 || rq->gen >= GCS_GEN2)) || gcs_reason_is_out_of_space(rq->reason);
}

/* The generation to condemn and why (CoreCLR gc.cpp: generation_to_condemn):
 * the requested one, raised by exhausted budgets, memory load or an
 * imminent OOM, lowered by LowLatency or a running BGC. r0/r1 receive
 * CondemnReasons0/1. */
static int choose_generation(struct rgc_runtime *rt, const struct rgc_request *rq, bool during_bgc,
                             uint32_t *r0, uint32_t *r1) {
  int n = rq->gen < 0 || rq->gen > GCS_GEN2 ? GCS_GEN2 : rq->gen;
  int initial = n, alloc = GCS_GEN0;
  *r1 = 0;
  if (rq->induced) {
    if (n == GCS_GEN2 && (rq->mode & RGC_COLLECT_OPTIMIZED)) *r1 |= CONDEMN(INDUCED_NOFORCE_P);
    else if (n == GCS_GEN2 && !(rq->mode & RGC_COLLECT_NON_BLOCKING)) *r1 |= CONDEMN(INDUCED_FULLGC_P);
  } else {
    if (any_exhausted(rt, RGC_LOH) || any_exhausted(rt, RGC_POH)) alloc = GCS_GEN2;
    int b = GCS_GEN0;
    while (b < GCS_GEN2 && any_exhausted(rt, b + 1)) b++;
    if (b > alloc) alloc = b;
    if (alloc > n) {
      if (n < GCS_GEN1 && alloc == GCS_GEN2 && any_exhausted(rt, GCS_GEN2)) *r1 |= CONDEMN(MAX_GEN1);
      n = alloc;
    }
    uint64_t load = rgc_memory_load_percent(rt, NULL);
    if (load >= rt->cfg.high_mem_percent) {
      *r1 |= CONDEMN(HIGH_MEM_P);
      if (load >= RGC_VERY_HIGH_MEM_PERCENT) *r1 |= CONDEMN(VERY_HIGH_MEM_P);
      n = GCS_GEN2;
    }
    if (gcs_reason_is_out_of_space(rq->reason)) { *r1 |= CONDEMN(BEFORE_OOM); n = GCS_GEN2; }
    /* LowLatency: no gen2 GC unless memory forces one */
    if (n == GCS_GEN2 && atomic_load(&rt->latency_mode) == RGC_LATENCY_LOW_LATENCY &&
        !(*r1 & (CONDEMN(HIGH_MEM_P) | CONDEMN(BEFORE_OOM))))
      n = GCS_GEN1;
    /* a BGC is running: the GC that interrupts it is ephemeral */
    if (during_bgc && n == GCS_GEN2) n = GCS_GEN1;
  }
  *r0 = condemn_group(GCS_CONDEMN_GEN_GROUPS_INITIAL_GENERATION, initial) |
        condemn_group(GCS_CONDEMN_GEN_GROUPS_FINAL_GENERATION, n) |
        condemn_group(GCS_CONDEMN_GEN_GROUPS_ALLOC_EXCEEDED, alloc);
  return n;
}

/* A gen2 GC runs in the background unless something requires blocking
 * (CoreCLR gc.cpp: generation_to_condemn's blocking_collection_p and the
 * latency-mode checks of garbage_collect): background GC off, latency mode
 * Batch or LowLatency, induced blocking or compacting, last GC before OOM,
 * and (not in SustainedLowLatency) high memory load or a too fragmented gen2. */
static bool want_background(struct rgc_runtime *rt, const struct rgc_request *rq,
                            const struct rgc_gc_record *rec, uint32_t *r1) {
  int mode = atomic_load(&rt->latency_mode);
  if (!rt->cfg.concurrent) return false;
  if (mode != RGC_LATENCY_INTERACTIVE && mode != RGC_LATENCY_SUSTAINED_LOW_LATENCY) return false;
  if (rq->induced && !(rq->mode & RGC_COLLECT_NON_BLOCKING)) return false;
  if (rq->mode & RGC_COLLECT_COMPACTING) return false;
  if (*r1 & CONDEMN(BEFORE_OOM)) return false;
  if (mode == RGC_LATENCY_SUSTAINED_LOW_LATENCY) return true;
  if (*r1 & CONDEMN(HIGH_MEM_P)) return false;
  uint64_t size = rec->size_before[GCS_GEN2], frag = rec->fl_before[GCS_GEN2] + rec->fo_before[GCS_GEN2];
  if (size && frag >= gen_static[GCS_GEN2].frag_limit &&
      (double)frag >= RGC_GEN2_BLOCKING_FRAG_RATIO * (double)size) {
    *r1 |= CONDEMN(MAX_HIGH_FRAG_P);
    return false;
  }
  return true;
}

void rgc_set_budgets(struct rgc_runtime *rt, struct rgc_gc_record *rec, int n, bool bgc) {
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *h = &rt->heaps[hi];
    struct rgc_heap_rec *hr = &rec->heap[hi];
    for (int g = bgc ? GCS_GEN2 : GCS_GEN0; g <= n; g++) {
      double begin = (double)(hr->size_before[g] - hr->fl_before[g] - hr->fo_before[g]);
      double surv = (double)hr->surv[g];
      double cst = begin > 0 ? surv / begin : 0;
      if (cst > 1) cst = 1;
      double f = surv_to_growth(cst, gen_static[g].limit, gen_static[g].max_limit);
      uint64_t b;
      if (g == GCS_GEN0) b = clamp_u64(f * surv, rt->gen0_min, rt->gen0_max);
      else if (g == GCS_GEN1)
        b = clamp_u64(f * surv, gen_static[GCS_GEN1].min_size, gen_static[GCS_GEN1].max_size);
      else {
        uint64_t cur = hr->size_after[GCS_GEN2], min = gen_static[GCS_GEN2].min_size;
        uint64_t ns = clamp_u64(f * (double)cur, min, UINT64_MAX);
        b = ns > cur + min ? ns - cur : min;
      }
      h->desired[g] = h->new_alloc[g] = (int64_t)b;
    }
    if (n == GCS_GEN2) {
      for (int g = RGC_LOH; g <= RGC_POH; g++) {
        double begin = (double)(hr->size_before[g] - hr->fl_before[g] - hr->fo_before[g]);
        double cst = begin > 0 ? (double)hr->surv[g] / begin : 0;
        if (cst > 1) cst = 1;
        double f = surv_to_growth(cst, gen_static[g].limit, gen_static[g].max_limit);
        uint64_t cur = hr->size_after[g];
        uint64_t ns = clamp_u64(f * (double)cur, gen_static[g].min_size, UINT64_MAX);
        uint64_t b = ns > cur + gen_static[g].min_size ? ns - cur : gen_static[g].min_size;
        h->desired[g] = h->new_alloc[g] = (int64_t)b;
      }
    } else {
      /* survivors consume the next generation's budget */
      h->new_alloc[n + 1] -= (int64_t)hr->in[n + 1];
    }
  }
  /* server GC: the ephemeral budgets are equalised across heaps */
  if (rt->nheaps > 1 && !bgc) {
    for (int g = 0; g <= n && g <= GCS_GEN1; g++) {
      int64_t sum = 0;
      for (int hi = 0; hi < rt->nheaps; hi++) sum += rt->heaps[hi].desired[g];
      int64_t avg = sum / rt->nheaps;
      for (int hi = 0; hi < rt->nheaps; hi++) rt->heaps[hi].desired[g] = rt->heaps[hi].new_alloc[g] = avg;
    }
  }
}

/* Totals of the per-heap counters. */
static void sum_heaps(struct rgc_gc_record *rec) {
  for (int g = 0; g < RGC_NGEN; g++) rec->in[g] = rec->surv[g] = rec->pinned_surv[g] = 0;
  rec->fl_allocated = rec->eos_allocated = rec->condemned_allocated = 0;
  for (int hi = 0; hi < rec->nheaps; hi++) {
    const struct rgc_heap_rec *hr = &rec->heap[hi];
    for (int g = 0; g < RGC_NGEN; g++) {
      rec->in[g] += hr->in[g];
      rec->surv[g] += hr->surv[g];
      rec->pinned_surv[g] += hr->pinned_surv[g];
    }
    rec->fl_allocated += hr->fl_allocated;
    rec->eos_allocated += hr->eos_allocated;
    rec->condemned_allocated += hr->condemned_allocated;
  }
}

/* ---- one GC, phase by phase ---------------------------------------------- */

/* What a GC carries from one phase to the next. */
struct gc_run {
  const struct rgc_request *rq;
  struct rgc_gc_record *rec;
  uint32_t count;                   /* this GC's index (GCStart.Count) */
  int n;                            /* condemned generation */
  bool during_bgc;                  /* a foreground GC inside a running BGC */
  uint64_t t_begin, cpu0;
  uint64_t t_phase[RGC_NPHASES + 1];  /* phase i runs from t_phase[i] to t_phase[i + 1] */
};

/* Suspend the program, lock every heap and start the record: afterwards no
 * mutator runs or allocates, every allocation context is retired and
 * rec->*_before hold the generation sizes the GC starts from. */
static void suspend_and_begin(struct rgc_runtime *rt, struct gc_run *g) {
  struct rgc_gc_record *rec = g->rec;
  g->t_begin = rgc_now_ns();
  g->cpu0 = rgc_thread_cpu_ns();
  atomic_store(&rt->work_cpu_ns, 0);
  g->count = (uint32_t)atomic_load(&rt->gc_index) + 1;

  rgc_ev_suspend_begin(g->count, GCS_SUSPEND_REASON_SUSPEND_FOR_GC);
  rgc_suspend_all(rt);
  uint64_t t_suspended = rgc_now_ns();
  rgc_ev_suspend_end();

  rgc_lock_heaps(rt);
  atomic_store(&rt->gc_index, g->count);
  memset(rec, 0, sizeof *rec);
  rec->index = g->count;
  rec->reason = g->rq->reason;
  rec->nheaps = rt->nheaps;
  rec->pause_mode = (uint32_t)atomic_load(&rt->latency_mode);
  rec->suspend_ns = t_suspended - g->t_begin;
  for (struct rgc_thread *t = rt->threads; t; t = t->next) rgc_retire_context(t);
  rgc_gen_stats(rt, rec, 0);
}

/* Decide what to condemn and how: the generation, its reasons and the GC's
 * type (blocking, background, foreground), announced by GCTriggered and
 * GCStart. Returns true for a background GC. */
static bool decide_condemned(struct rgc_runtime *rt, struct gc_run *g) {
  const struct rgc_request *rq = g->rq;
  struct rgc_gc_record *rec = g->rec;
  uint32_t r0, r1;
  int n = choose_generation(rt, rq, g->during_bgc, &r0, &r1);
  bool background = !g->during_bgc && n == GCS_GEN2 && want_background(rt, rq, rec, &r1);
  g->n = n;
  rt->condemned_gen = n;
  rec->gen = (uint32_t)n;
  rec->r0 = r0;
  rec->r1 = r1;
  rec->type = background ? GCS_GC_TYPE_BACKGROUND
              : g->during_bgc ? GCS_GC_TYPE_FOREGROUND : GCS_GC_TYPE_NON_CONCURRENT;
  uint64_t seq = rq->induced ? atomic_load(&rt->client_seq) : 0;
  rgc_ev_triggered(rq->reason, rq->stk_ip, rq->stk_n);
  rgc_ev_gc_start(g->count, (uint32_t)n, rq->reason, rec->type, seq);
  return background;
}

/* A background GC: its first pause happens here, the rest on the BGC thread
 * (rgc_bgc.c). The program runs again when this returns. */
static void start_background(struct rgc_runtime *rt, struct gc_run *g) {
  struct rgc_gc_record *b = &rt->bgc_rec;
  memcpy(b, g->rec, sizeof *b);
  rt->bgc_t_begin = g->t_begin;
  rgc_bgc_pause1(rt, b);
  rgc_unlock_heaps(rt);
  rgc_ev_restart_begin();
  rgc_resume_all(rt);
  rgc_ev_restart_end();
  b->pause_ns = rgc_now_ns() - g->t_begin;
  rt->bgc_cpu_pause1 = rgc_thread_cpu_ns() - g->cpu0;
  rgc_bgc_launch(rt);
}

/* Detach the condemned regions: afterwards every region of a generation
 * <= n is on its heap's condemned list (live and pinned counts zero, planned
 * generation its own), those generations' lists, allocation regions and free
 * lists are empty (they receive survivors; the sweep rebuilds free lists),
 * and no region is fresh. */
static void condemn_regions(struct rgc_runtime *rt, int n) {
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *h = &rt->heaps[hi];
    h->condemned = NULL;
    /* Regions mutators made since the last GC (LOH/POH arrays written with
     * young objects) are not fresh for this GC: their cards must be fixed up. */
    for (int g = 0; g < RGC_NGEN; g++)
      for (struct rgc_region *r = h->gens[g]; r; r = r->next) r->fresh = false;
    for (int g = 0; g < RGC_NGEN; g++) {
      if (rgc_eff_gen(g) > n) continue;
      for (struct rgc_region *r = h->gens[g], *nx; r; r = nx) {
        nx = r->next;
        r->condemned = true;
        r->evacuate = r->has_pinned = false;
        r->live_bytes = 0;
        r->pinned_bytes = 0;
        r->new_gen = r->gen;
        r->next = h->condemned;
        h->condemned = r;
      }
      h->gens[g] = NULL;
      h->alloc_region[g] = NULL;
      rgc_free_lists_drop_region_gen(h, g);
    }
  }
}

/* Mark: afterwards every reachable condemned object carries OF_MARK (pinned
 * ones OF_PINNED too), each condemned region's live_bytes is exact, the
 * survivors are counted in rec->surv / pinned_surv, and GCMarkWithType and
 * PinObjectAtGCTime are emitted. */
static void mark(struct rgc_runtime *rt, struct gc_run *g) {
  struct rgc_gc_record *rec = g->rec;
  rt->pins_n = 0;
  rgc_mark_phase(rt);
  for (int hi = 0; hi < rt->nheaps; hi++)
    for (struct rgc_region *r = rt->heaps[hi].condemned; r; r = r->next) {
      rec->heap[hi].surv[r->gen] += r->live_bytes;
      rec->heap[hi].pinned_surv[r->gen] += r->pinned_bytes;
    }
  sum_heaps(rec);
  for (int hi = 0; hi < rt->nheaps; hi++)
    for (int k = 0; k < RGC_MARK_KINDS; k++)
      rgc_ev_mark((uint32_t)hi, (uint32_t)k, rec->heap[hi].mark_bytes[k]);
  for (size_t i = 0; i < rt->pins_n; i++) rgc_ev_pin(rt, rt->pins[i]);
}

/* Compact or sweep (CoreCLR gc.cpp: decide_on_compacting, simplified):
 * returns the compact mechanisms that hold, 0 to sweep. Compaction is off
 * when evacuation could exceed the hard limit before old regions go. */
static uint32_t decide_compaction(struct rgc_runtime *rt, const struct gc_run *g) {
  const struct rgc_gc_record *rec = g->rec;
  uint32_t mech = 0;
  if (g->rq->mode & RGC_COLLECT_COMPACTING) mech |= GCS_COMPACT_MECHANISMS_INDUCED_COMPACTING;
  if (gcs_reason_is_out_of_space(g->rq->reason)) mech |= GCS_COMPACT_MECHANISMS_LAST_GC;
  if (rec->r1 & CONDEMN(HIGH_MEM_P)) mech |= GCS_COMPACT_MECHANISMS_HIGH_MEM_LOAD;
  for (int gen = GCS_GEN0; gen <= g->n; gen++) {
    uint64_t sz = rec->size_before[gen];
    uint64_t frag = sz - rec->surv[gen];
    if (sz && frag >= gen_static[gen].frag_limit && (double)frag >= gen_static[gen].frag_burden * (double)sz)
      mech |= GCS_COMPACT_MECHANISMS_HIGH_FRAG;
  }
  /* RGC_GCCompactMode=compact with no other reason: reported as low_ephemeral */
  if (rt->cfg.compact_mode == RGC_COMPACT_ALWAYS && !mech) mech |= GCS_COMPACT_MECHANISMS_LOW_EPHEMERAL;
  if (rt->cfg.compact_mode == RGC_COMPACT_NEVER) mech = 0;
  if (mech && rt->cfg.heap_hard_limit) {
    /* evacuation needs room for the survivors before the old regions go */
    uint64_t need = 0;
    for (int gen = GCS_GEN0; gen <= g->n && gen <= GCS_GEN2; gen++) need += rec->surv[gen];
    need += 3 * RGC_REGION_SIZE * (uint64_t)rt->nheaps;
    if (rt->committed + need > rt->cfg.heap_hard_limit) mech = 0;
  }
  return mech;
}

/* Plan each condemned region of heap h: afterwards a region either has
 * evacuate set (compacting, no pins: its survivors move) or new_gen holds
 * the generation it keeps its objects in (LOH/POH: their own; pinned
 * ephemeral regions when compacting: gen0, a demotion; swept ones: the next
 * generation, counted in rec->heap.in). */
static void plan_regions(struct rgc_gc_record *rec, struct rgc_heap *h, bool compact) {
  for (struct rgc_region *r = h->condemned; r; r = r->next) {
    if (r->gen > GCS_GEN2) { r->new_gen = r->gen; continue; }  /* LOH/POH: swept */
    if (compact && !r->has_pinned) { r->evacuate = true; continue; }
    if (compact) {  /* pinned: kept in place; ephemeral ones demoted to gen0 */
      r->new_gen = r->gen < GCS_GEN2 ? GCS_GEN0 : GCS_GEN2;
      if (r->gen < GCS_GEN2 && r->live_bytes) rec->demoted = true;
    } else {
      r->new_gen = r->gen < GCS_GEN2 ? r->gen + 1 : GCS_GEN2;
      if (r->new_gen != r->gen) rec->heap[h->index].in[r->new_gen] += r->live_bytes;
    }
  }
}

/* Relocate heap h: every survivor of an evacuated region is copied into the
 * same heap (forwarding left in the old copy, the new one in the heap's copied list);
 * kept regions take their planned generation with their cards cleared (the
 * fix-up sets the ones still needed). */
static void relocate(struct rgc_runtime *rt, int w) {
  struct rgc_heap *h = &rt->heaps[w];
  bool compact = rt->par_compact;
  h->copied_n = 0;
  memset(h->promo_fl_empty, 0, sizeof h->promo_fl_empty);
  if (compact) {
    for (struct rgc_region *r = h->condemned; r; r = r->next)
      if (r->evacuate) evacuate_region(rt, h, r);
    for (int g = 0; g < RGC_NGEN; g++) promo_retire(rt, h, g);
  }
  for (struct rgc_region *r = h->condemned; r; r = r->next) {
    if (r->evacuate) continue;
    rgc_region_set_gen(rt, r, r->new_gen);
    clear_cards(rt, r);
  }
}

/* Fix up: afterwards no root, handle, finalization entry or surviving heap
 * slot refers to a forwarded object, and every old-to-young slot of a
 * surviving object has its card set. The roots are fixed by the GC thread;
 * then each heap's worker fixes that heap's survivors (server GC: in
 * parallel; relocation is over, so the forwarding it reads in other heaps
 * no longer changes, and the slots and cards it writes are its heap's own):
 * the objects copied into it, its kept condemned regions (marked objects)
 * and, for an ephemeral GC, the dirty cards of its older regions. */
static void fix_heap(struct rgc_runtime *rt, int w) {
  struct rgc_heap *hp = &rt->heaps[w];
  if (gcs_gen_is_ephemeral((uint32_t)rt->condemned_gen))
    for (int g = GCS_GEN1; g < RGC_NGEN; g++)
      for (struct rgc_region *r = hp->gens[g]; r; r = r->next)
        if (!r->fresh) fix_older_region(rt, hp, r);
  for (size_t i = 0; i < hp->copied_n; i++) {
    void *o = hp->copied[i];
    struct rgc_region *r = rgc_region_of(rt, o);
    fix_object(rt, hdr_of(o), rgc_eff_gen(r->gen));
  }
  for (struct rgc_region *r = hp->condemned; r; r = r->next)
    if (!r->evacuate) fix_kept_region(rt, r);
}

static void fix_up(struct rgc_runtime *rt) {
  fix_roots(rt);
  rgc_par_heaps(rt, fix_heap);
}

/* Sweep: afterwards no region is condemned; evacuated and emptied regions
 * are released, kept ones swept (free lists rebuilt, marks cleared) and
 * linked on their generation's list; LOH/POH bump in their roomiest region.
 * Each heap by its worker (the region allocator has its own lock). */
static void sweep_heap(struct rgc_runtime *rt, int w) {
  struct rgc_heap *h = &rt->heaps[w];
  for (struct rgc_region *r = h->condemned, *nx; r; r = nx) {
    nx = r->next;
    r->condemned = false;
    if (r->evacuate || (r->gen >= RGC_LOH && r->live_bytes == 0)) {
      rgc_region_release(rt, r);
      continue;
    }
    sweep_region(rt, h, r);
    if (r->gen < RGC_LOH && r->top == r->start) {
      rgc_region_release(rt, r);
      continue;
    }
    r->next = h->gens[r->gen];
    h->gens[r->gen] = r;
    if (r->gen >= RGC_LOH && (!h->alloc_region[r->gen] ||
        r->end - r->top > h->alloc_region[r->gen]->end - h->alloc_region[r->gen]->top))
      h->alloc_region[r->gen] = r;
  }
  h->condemned = NULL;
  for (int g = 0; g < RGC_NGEN; g++)
    for (struct rgc_region *r = h->gens[g]; r; r = r->next) r->fresh = false;
  h->alloc_region[GCS_GEN0] = NULL;
}

/* Publish and restart: sizes after, phase times, new budgets, the memory
 * load, the history, GCEnd, CPU time and heap stats events, collection
 * counts and memory info;
 * the finalizer thread is woken if there is work, the program resumes. */
static void publish_and_restart(struct rgc_runtime *rt, struct gc_run *g) {
  struct rgc_gc_record *rec = g->rec;
  int n = g->n;
  rgc_gen_stats(rt, rec, 1);
  for (int i = 0; i < RGC_NPHASES; i++) rec->phase_us[i] = (g->t_phase[i + 1] - g->t_phase[i]) / 1000;
  rgc_set_budgets(rt, rec, n, false);
  sum_heaps(rec);
  for (int gen = GCS_GEN0; gen <= GCS_GEN2; gen++) if (rec->in[gen]) rec->promoted_any = true;

  rec->mem_load_pct = rgc_memory_load_percent(rt, &rec->mem_total_avail);
  rgc_ev_history(rt, rec);
  rgc_ev_gc_end(g->count, (uint32_t)n);
  for (int gen = GCS_GEN0; gen <= n; gen++) atomic_fetch_add(&rt->counts[gen], 1);
  if (rt->cfg.verify_heap) rgc_verify_heap(rt);
  rgc_unlock_heaps(rt);

  rec->cpu_ns = rgc_thread_cpu_ns() - g->cpu0 + atomic_load(&rt->work_cpu_ns);
  rgc_ev_cpu(g->count, rec->cpu_ns);
  rgc_ev_heap_stats(rt, rec);
  /* wake the finalizer thread if this GC found finalizable garbage */
  pthread_mutex_lock(&rt->fin_lock);
  if (rt->fq_n) pthread_cond_broadcast(&rt->fin_cv);
  pthread_mutex_unlock(&rt->fin_lock);

  rgc_ev_restart_begin();
  rgc_resume_all(rt);
  rgc_ev_restart_end();
  rec->pause_ns = rgc_now_ns() - g->t_begin;
  if (g->during_bgc) rgc_bgc_release(rt);
  rgc_record_info(rt, rec);
}

void rgc_do_gc(struct rgc_runtime *rt, const struct rgc_request *rq) {
  struct gc_run g = {.rq = rq, .rec = &rt->rec};
  if (atomic_load(&rt->bgc_active) && must_wait_for_bgc(rq)) rgc_bgc_wait_done(rt);
  g.during_bgc = rgc_bgc_hold(rt);

  rgc_par_begin(rt);  /* server GC: the heaps' workers wake while the program stops */
  suspend_and_begin(rt, &g);
  if (decide_condemned(rt, &g)) {
    rgc_par_end(rt);
    start_background(rt, &g);
    return;
  }
  condemn_regions(rt, g.n);

  g.t_phase[RGC_PHASE_MARK] = rgc_now_ns();
  mark(rt, &g);

  g.t_phase[RGC_PHASE_RELOCATE] = rgc_now_ns();
  uint32_t mech = decide_compaction(rt, &g);
  bool compact = mech != 0;
  g.rec->compacted = compact;
  g.rec->compact_mech = mech;
  for (int hi = 0; hi < rt->nheaps; hi++) plan_regions(g.rec, &rt->heaps[hi], compact);
  /* server GC: relocation, fix-up and sweep run per heap, each heap taken
   * by the next free worker (each phase ends before the next begins) */
  rt->par_compact = compact;
  rgc_par_heaps(rt, relocate);
  fix_up(rt);

  g.t_phase[RGC_PHASE_SWEEP] = rgc_now_ns();
  rgc_par_heaps(rt, sweep_heap);
  g.t_phase[RGC_NPHASES] = rgc_now_ns();
  rgc_par_end(rt);

  publish_and_restart(rt, &g);
}
