/* rgc_collect.c — one GC on the GC thread: suspension, condemned generation
 * and reasons, mark, the compact-or-sweep decision, evacuation with
 * forwarding, reference fix-up with card rebuilding, sweeping into free
 * lists, budgets from survival, history and events, restart.
 *
 * The pause is structured as suspend → work → restart so that a background
 * GC can later run two pauses around concurrent work. */
#include <math.h>

#include "rgc_internal.h"

/* CoreCLR's static data (latency level "balanced"), see gc-runtime-anchors §5. */
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

static uint8_t *promo_alloc(struct rgc_runtime *rt, struct rgc_heap *h, int dest, size_t size) {
  struct rgc_heap_rec *rec = &rt->rec.heap[h->index];
  /* During a BGC, old free lists are being rebuilt: only fresh regions. */
  if (dest > rt->condemned_gen && !atomic_load_explicit(&rt->bgc_active, memory_order_relaxed)) {
    struct rgc_hdr *item = rgc_free_list_take(rt, h, dest, size);
    if (item) {
      struct rgc_region *r = rgc_region_of(rt, item);
      size_t rem = item->size - size;
      if (rem) rgc_make_free(rt, h, r, (uint8_t *)item + size, rem, true);
      rec->fl_allocated += size;
      return (uint8_t *)item;
    }
  }
  struct rgc_region *r = h->alloc_region[dest];
  if (!r || r->top + size > r->end) {
    r = rgc_region_new(rt, h, dest, RGC_REGION_SIZE);
    if (!r) rgc_fatal("out of memory while compacting (hard limit reached)");
    h->alloc_region[dest] = r;
  }
  uint8_t *p = r->top;
  r->top += size;
  if (dest <= rt->condemned_gen) rec->condemned_allocated += size;
  else rec->eos_allocated += size;
  return p;
}

static void evacuate_region(struct rgc_runtime *rt, struct rgc_heap *h, struct rgc_region *r) {
  int dest = r->gen < 2 ? r->gen + 1 : 2;
  /* the mark counted the region's live bytes exactly: stop after the last
   * live object (the walk reads every header, mostly dead ones) */
  size_t left = atomic_load_explicit(&r->live_bytes, memory_order_relaxed);
  for (uint8_t *p = r->start; left && p < r->top;) {
    struct rgc_hdr *o = (struct rgc_hdr *)p;
    size_t size = o->size;
    p += size;
    uint32_t f = hflags(o);
    if ((f & OF_FREE) || !(f & OF_MARK)) continue;
    uint8_t *np = promo_alloc(rt, h, dest, size);
    memcpy(np, o, size);
    struct rgc_hdr *n = (struct rgc_hdr *)np;
    hset(n, f & ~(OF_MARK | OF_PINNED));
    o->tw = (uintptr_t)obj_of(n);
    hset(o, f | OF_FWD);
    if (dest != r->gen) rt->rec.heap[h->index].in[dest] += size;
    RGC_VEC_PUSH(rt->copied, rt->copied_n, rt->copied_cap, obj_of(n));
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
static void fix_older_region(struct rgc_runtime *rt, struct rgc_region *r) {
  size_t c0 = rgc_card_index(rt, r->start);
  size_t nc = (size_t)(r->top - r->start + (1 << RGC_CARD_SHIFT) - 1) >> RGC_CARD_SHIFT;
  if (!nc) return;
  bool any = false;
  for (uint8_t *p = r->start; p < r->top; p += RGC_REGION_SIZE) {
    size_t ci = rgc_card_index(rt, p), n = RGC_REGION_SIZE >> RGC_CARD_SHIFT;
    if (ci + n > c0 + nc) n = c0 + nc - ci;
    for (size_t k = 0; k < n && !any; k++) any = atomic_load_explicit(&rt->cards[ci + k], memory_order_relaxed);
    if (any) break;
  }
  if (!any) return;
  int hg = rgc_eff_gen(r->gen);
  /* process one region slot (2 MB) of cards at a time */
  for (uint8_t *chunk = r->start; chunk < r->top; chunk += RGC_REGION_SIZE) {
    uint8_t *chunk_end = chunk + RGC_REGION_SIZE < r->top ? chunk + RGC_REGION_SIZE : r->top;
    size_t ci = rgc_card_index(rt, chunk);
    size_t n = (size_t)(chunk_end - chunk + (1 << RGC_CARD_SHIFT) - 1) >> RGC_CARD_SHIFT;
    bool dirty = false;
    for (size_t k = 0; k < n; k++) {
      rt->card_snapshot[k] = atomic_load_explicit(&rt->cards[ci + k], memory_order_relaxed);
      dirty |= rt->card_snapshot[k] != 0;
      atomic_store_explicit(&rt->cards[ci + k], 0, memory_order_relaxed);
    }
    if (!dirty) continue;
    /* objects overlapping the chunk: walk from the region start (objects may
     * straddle chunk boundaries only in multi-slot LOH/POH regions) */
    for (uint8_t *p = r->start; p < chunk_end;) {
      struct rgc_hdr *h = (struct rgc_hdr *)p;
      uint8_t *next = p + h->size;
      if (next > chunk && !(hflags(h) & OF_FREE)) {
        RGC_FOR_EACH_SLOT(h, slot, {
          uint8_t *s = (uint8_t *)slot;
          if (s >= chunk && s < chunk_end && rt->card_snapshot[rgc_card_index(rt, s) - ci])
            fix_slot(rt, slot, hg);
        });
      }
      p = next;
    }
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
  int hg = rgc_eff_gen(r->gen);
  for (uint8_t *p = r->start; p < r->top;) {
    struct rgc_hdr *o = (struct rgc_hdr *)p;
    size_t size = o->size;
    uint32_t f = hflags(o);
    if (!(f & OF_FREE) && (f & OF_MARK)) {
      if (run) { rgc_make_free(rt, h, r, run, (size_t)(p - run), true); run = NULL; }
      atomic_fetch_and_explicit(&o->flags, ~(OF_MARK | OF_PINNED), memory_order_relaxed);
      (void)hg;
    } else if (!run) {
      run = p;
    }
    p += size;
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

#define C_INDUCED_FULLGC (1u << 0)
#define C_HIGH_MEM (1u << 2)
#define C_VERY_HIGH_MEM (1u << 3)
#define C_MAX_HIGH_FRAG (1u << 7)
#define C_MAX_GEN1 (1u << 11)
#define C_BEFORE_OOM (1u << 12)
#define C_INDUCED_NOFORCE (1u << 14)

static int choose_generation(struct rgc_runtime *rt, const struct rgc_request *rq, bool during_bgc,
                             uint32_t *r0, uint32_t *r1) {
  int n = rq->gen < 0 || rq->gen > 2 ? 2 : rq->gen;
  int initial = n, alloc = 0;
  *r1 = 0;
  if (rq->induced) {
    if (n == 2 && (rq->mode & RGC_COLLECT_OPTIMIZED)) *r1 |= C_INDUCED_NOFORCE;
    else if (n == 2 && !(rq->mode & RGC_COLLECT_NON_BLOCKING)) *r1 |= C_INDUCED_FULLGC;
  } else {
    if (any_exhausted(rt, RGC_LOH) || any_exhausted(rt, RGC_POH)) alloc = 2;
    int b = 0;
    while (b < 2 && any_exhausted(rt, b + 1)) b++;
    if (b > alloc) alloc = b;
    if (alloc > n) {
      if (n < 1 && alloc == 2 && any_exhausted(rt, 2)) *r1 |= C_MAX_GEN1;
      n = alloc;
    }
    uint64_t load = rgc_memory_load_percent(rt, NULL);
    if (load >= rt->cfg.high_mem_percent) {
      *r1 |= C_HIGH_MEM;
      if (load >= 97) *r1 |= C_VERY_HIGH_MEM;
      n = 2;
    }
    if (rq->reason == 5 || rq->reason == 6) { *r1 |= C_BEFORE_OOM; n = 2; }
    /* LowLatency: no gen2 GC unless memory forces one */
    if (n == 2 && atomic_load(&rt->latency_mode) == RGC_LATENCY_LOW_LATENCY &&
        !(*r1 & (C_HIGH_MEM | C_BEFORE_OOM)))
      n = 1;
    /* a BGC is running: the GC that interrupts it is ephemeral */
    if (during_bgc && n == 2) n = 1;
  }
  *r0 = (uint32_t)initial | (uint32_t)n << 2 | (uint32_t)alloc << 4;
  return n;
}

/* A gen2 GC runs in the background unless something requires blocking
 * (gc-runtime-anchors §5.5/5.6): background GC off, latency mode Batch or
 * LowLatency, induced blocking or compacting, last GC before OOM, and (not
 * in SustainedLowLatency) high memory load or a too fragmented gen2. */
static bool want_background(struct rgc_runtime *rt, const struct rgc_request *rq,
                            const struct rgc_gc_record *rec, uint32_t *r1) {
  int mode = atomic_load(&rt->latency_mode);
  if (!rt->cfg.concurrent) return false;
  if (mode != RGC_LATENCY_INTERACTIVE && mode != RGC_LATENCY_SUSTAINED_LOW_LATENCY) return false;
  if (rq->induced && !(rq->mode & RGC_COLLECT_NON_BLOCKING)) return false;
  if (rq->mode & RGC_COLLECT_COMPACTING) return false;
  if (*r1 & C_BEFORE_OOM) return false;
  if (mode == RGC_LATENCY_SUSTAINED_LOW_LATENCY) return true;
  if (*r1 & C_HIGH_MEM) return false;
  uint64_t size = rec->size_before[2], frag = rec->fl_before[2] + rec->fo_before[2];
  if (size && frag >= gen_static[2].frag_limit && (double)frag >= 0.65 * (double)size) {
    *r1 |= C_MAX_HIGH_FRAG;
    return false;
  }
  return true;
}

void rgc_set_budgets(struct rgc_runtime *rt, struct rgc_gc_record *rec, int n, bool bgc) {
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *h = &rt->heaps[hi];
    struct rgc_heap_rec *hr = &rec->heap[hi];
    for (int g = bgc ? 2 : 0; g <= n; g++) {
      double begin = (double)(hr->size_before[g] - hr->fl_before[g] - hr->fo_before[g]);
      double surv = (double)hr->surv[g];
      double cst = begin > 0 ? surv / begin : 0;
      if (cst > 1) cst = 1;
      double f = surv_to_growth(cst, gen_static[g].limit, gen_static[g].max_limit);
      uint64_t b;
      if (g == 0) b = clamp_u64(f * surv, rt->gen0_min, rt->gen0_max);
      else if (g == 1) b = clamp_u64(f * surv, gen_static[1].min_size, gen_static[1].max_size);
      else {
        double cur = (double)hr->size_after[2];
        uint64_t ns = clamp_u64(f * cur, gen_static[2].min_size, UINT64_MAX);
        b = ns > hr->size_after[2] + gen_static[2].min_size ? ns - hr->size_after[2] : gen_static[2].min_size;
      }
      h->desired[g] = h->new_alloc[g] = (int64_t)b;
    }
    if (n == 2) {
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
    for (int g = 0; g <= n && g <= 1; g++) {
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

void rgc_do_gc(struct rgc_runtime *rt, const struct rgc_request *rq) {
  struct rgc_gc_record *rec = &rt->rec;
  /* A gen2 GC that must block waits for the running BGC to finish. */
  if (atomic_load(&rt->bgc_active) &&
      ((rq->induced && (rq->gen < 0 || rq->gen >= 2)) || rq->reason == 5 || rq->reason == 6))
    rgc_bgc_wait_done(rt);
  bool during_bgc = rgc_bgc_hold(rt);

  uint64_t t_begin = rgc_now_ns();
  uint64_t cpu0 = rgc_thread_cpu_ns();
  atomic_store(&rt->work_cpu_ns, 0);
  uint32_t count = (uint32_t)atomic_load(&rt->gc_index) + 1;

  rgc_ev_suspend_begin(count, 1 /* SuspendForGC */);
  rgc_suspend_all(rt);
  uint64_t t_suspended = rgc_now_ns();
  rgc_ev_suspend_end();

  rgc_lock_heaps(rt);
  atomic_store(&rt->gc_index, count);
  memset(rec, 0, sizeof *rec);
  rec->index = count;
  rec->reason = rq->reason;
  rec->nheaps = rt->nheaps;
  rec->pause_mode = (uint32_t)atomic_load(&rt->latency_mode);
  rec->suspend_ns = t_suspended - t_begin;
  for (struct rgc_thread *t = rt->threads; t; t = t->next) rgc_retire_context(t);
  rgc_gen_stats(rt, rec, 0);

  uint32_t r0, r1;
  int n = choose_generation(rt, rq, during_bgc, &r0, &r1);
  bool background = !during_bgc && n == 2 && want_background(rt, rq, rec, &r1);
  rt->condemned_gen = n;
  rec->gen = (uint32_t)n;
  rec->r0 = r0;
  rec->r1 = r1;
  rec->type = background ? 1 : during_bgc ? 2 : 0;
  uint64_t seq = rq->induced ? atomic_load(&rt->client_seq) : 0;
  rgc_ev_triggered(rq->reason);
  rgc_ev_gc_start(count, (uint32_t)n, rq->reason, rec->type, seq);

  if (background) {
    struct rgc_gc_record *b = &rt->bgc_rec;
    memcpy(b, rec, sizeof *b);
    rt->bgc_t_begin = t_begin;
    rgc_bgc_pause1(rt, b);
    rgc_unlock_heaps(rt);
    rgc_ev_restart_begin();
    rgc_resume_all(rt);
    rgc_ev_restart_end();
    b->pause_ns = rgc_now_ns() - t_begin;
    rt->bgc_cpu_pause1 = rgc_thread_cpu_ns() - cpu0;
    rgc_bgc_launch(rt);
    return;
  }

  /* Detach the condemned regions: their generation lists restart empty (they
   * receive survivors) and their free lists are rebuilt by the sweep. */
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

  uint64_t t0 = rgc_now_ns();
  rt->pins_n = 0;
  rgc_mark_phase(rt);
  for (int hi = 0; hi < rt->nheaps; hi++)
    for (struct rgc_region *r = rt->heaps[hi].condemned; r; r = r->next) {
      rec->heap[hi].surv[r->gen] += r->live_bytes;
      rec->heap[hi].pinned_surv[r->gen] += r->pinned_bytes;
    }
  sum_heaps(rec);
  for (int hi = 0; hi < rt->nheaps; hi++)
    for (int i = 0; i < 4; i++) rgc_ev_mark((uint32_t)hi, (uint32_t)i, rec->heap[hi].mark_bytes[i]);
  for (size_t i = 0; i < rt->pins_n; i++) rgc_ev_pin(rt, rt->pins[i]);
  uint64_t t1 = rgc_now_ns();

  /* Compact or sweep (CoreCLR's decide_on_compacting, simplified). */
  uint32_t mech = 0;
  if (rq->mode & RGC_COLLECT_COMPACTING) mech |= 0x20;
  if (rq->reason == 5 || rq->reason == 6) mech |= 0x10;
  if (r1 & C_HIGH_MEM) mech |= 0x80;
  for (int g = 0; g <= n; g++) {
    uint64_t sz = rec->size_before[g];
    uint64_t frag = sz - rec->surv[g];
    if (sz && frag >= gen_static[g].frag_limit && (double)frag >= gen_static[g].frag_burden * (double)sz)
      mech |= 0x2;
  }
  if (rt->cfg.compact_mode == RGC_COMPACT_ALWAYS && !mech) mech |= 0x1;
  if (rt->cfg.compact_mode == RGC_COMPACT_NEVER) mech = 0;
  if (mech && rt->cfg.heap_hard_limit) {
    /* evacuation needs room for the survivors before the old regions go */
    uint64_t need = 0;
    for (int g = 0; g <= n && g <= 2; g++) need += rec->surv[g];
    need += 3 * RGC_REGION_SIZE * (uint64_t)rt->nheaps;
    if (rt->committed + need > rt->cfg.heap_hard_limit) mech = 0;
  }
  bool compact = mech != 0;
  rec->compacted = compact;
  rec->compact_mech = mech;

  /* Plan each condemned region's fate; evacuate (into the same heap). */
  rt->copied_n = 0;
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *h = &rt->heaps[hi];
    for (struct rgc_region *r = h->condemned; r; r = r->next) {
      if (r->gen > 2) { r->new_gen = r->gen; continue; }  /* LOH/POH: swept */
      if (compact && !r->has_pinned) { r->evacuate = true; continue; }
      if (compact) {  /* pinned: kept in place; ephemeral ones demoted to gen0 */
        r->new_gen = r->gen < 2 ? 0 : 2;
        if (r->gen < 2 && r->live_bytes) rec->demoted = true;
      } else {
        r->new_gen = r->gen < 2 ? r->gen + 1 : 2;
        if (r->new_gen != r->gen) rec->heap[hi].in[r->new_gen] += r->live_bytes;
      }
    }
    if (compact)
      for (struct rgc_region *r = h->condemned; r; r = r->next)
        if (r->evacuate) evacuate_region(rt, h, r);
    for (struct rgc_region *r = h->condemned; r; r = r->next) {
      if (r->evacuate) continue;
      rgc_region_set_gen(rt, r, r->new_gen);
      clear_cards(rt, r);
    }
  }

  /* Fix-up: roots, older regions' dirty cards, copied objects, kept regions. */
  fix_roots(rt);
  if (n < 2)
    for (int hi = 0; hi < rt->nheaps; hi++)
      for (int g = 1; g < RGC_NGEN; g++)
        for (struct rgc_region *r = rt->heaps[hi].gens[g]; r; r = r->next)
          if (!r->fresh) fix_older_region(rt, r);
  for (size_t i = 0; i < rt->copied_n; i++) {
    void *o = rt->copied[i];
    struct rgc_region *r = rgc_region_of(rt, o);
    fix_object(rt, hdr_of(o), rgc_eff_gen(r->gen));
  }
  for (int hi = 0; hi < rt->nheaps; hi++)
    for (struct rgc_region *r = rt->heaps[hi].condemned; r; r = r->next) {
      if (r->evacuate) continue;
      int hg = rgc_eff_gen(r->gen);
      size_t left = atomic_load_explicit(&r->live_bytes, memory_order_relaxed);
      for (uint8_t *p = r->start; left && p < r->top;) {
        struct rgc_hdr *o = (struct rgc_hdr *)p;
        p += o->size;
        uint32_t f = hflags(o);
        if (!(f & OF_FREE) && (f & OF_MARK)) { fix_object(rt, o, hg); left -= o->size; }
      }
    }
  uint64_t t2 = rgc_now_ns();

  /* Sweep kept regions, release evacuated and empty ones, relink. */
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *h = &rt->heaps[hi];
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
    h->alloc_region[0] = NULL;
  }
  uint64_t t3 = rgc_now_ns();

  rgc_gen_stats(rt, rec, 1);
  rec->phase_us[0] = (t1 - t0) / 1000;
  rec->phase_us[1] = (t2 - t1) / 1000;
  rec->phase_us[2] = (t3 - t2) / 1000;
  rgc_set_budgets(rt, rec, n, false);
  sum_heaps(rec);
  for (int g = 0; g < 3; g++) if (rec->in[g]) rec->promoted_any = true;

  rgc_ev_history(rt, rec);
  rgc_ev_gc_end(count, (uint32_t)n);
  for (int g = 0; g <= n; g++) atomic_fetch_add(&rt->counts[g], 1);
  if (rt->cfg.verify_heap) rgc_verify_heap(rt);
  rgc_unlock_heaps(rt);

  rec->cpu_ns = rgc_thread_cpu_ns() - cpu0 + atomic_load(&rt->work_cpu_ns);
  rgc_ev_cpu(count, rec->cpu_ns);
  rgc_ev_heap_stats(rt, rec);
  /* wake the finalizer thread if this GC found finalizable garbage */
  pthread_mutex_lock(&rt->fin_lock);
  if (rt->fq_n) pthread_cond_broadcast(&rt->fin_cv);
  pthread_mutex_unlock(&rt->fin_lock);

  rgc_ev_restart_begin();
  rgc_resume_all(rt);
  rgc_ev_restart_end();
  rec->pause_ns = rgc_now_ns() - t_begin;
  if (during_bgc) rgc_bgc_release(rt);
  rgc_record_info(rt, rec);
}
