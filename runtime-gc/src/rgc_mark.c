/* rgc_mark.c — the mark phase: roots by kind (stack, finalizer queue,
 * handles, older generations through the card table), weak handles and the
 * finalization scan. Runs on the GC thread with every mutator stopped. */
#include "rgc_internal.h"

/* The condemned region holding p, or NULL if p is not to be marked. */
static inline struct rgc_region *condemned_region(struct rgc_runtime *rt, const void *p) {
  struct rgc_region *r = rgc_region_of(rt, p);
  return r && r->condemned ? r : NULL;
}

static inline void flush_live(struct rgc_marker *m) {
  if (m->lbytes) atomic_fetch_add_explicit(&m->lr->live_bytes, m->lbytes, memory_order_relaxed);
  m->lbytes = 0;
}

/* Mark p (in condemned region r) and push it if it has references. Several
 * workers may race for the same object: the mark bit is claimed with an
 * atomic or. */
static inline void mark_in(struct rgc_marker *m, struct rgc_region *r, void *p) {
  struct rgc_hdr *h = hdr_of(p);
  uint32_t f = hflags(h);
  if (f & OF_MARK) return;
  if (!m->par) hset(h, f | OF_MARK);  /* the only marker: no read-modify-write needed */
  else if (atomic_fetch_or_explicit(&h->flags, OF_MARK, memory_order_relaxed) & OF_MARK) return;
  if (r != m->lr) { flush_live(m); m->lr = r; }
  m->lbytes += h->size;
  m->counter += h->size;
  const struct rgc_type *ty = (const struct rgc_type *)h->tw;
  if (ty->kind == RGC_KIND_REF_ARRAY || ty->nrefs) RGC_VEC_PUSH(m->ms, m->n, m->cap, p);
}

/* Mark p if it lies in a condemned region (the caller drains). */
static inline void mark_obj(struct rgc_runtime *rt, struct rgc_marker *m, void *p) {
  struct rgc_region *r = condemned_region(rt, p);
  if (r) mark_in(m, r, p);
}

/* Mark everything reachable from the local stack; share surplus work.
 * Marking is bound by cache misses on the headers of the objects found in
 * slots, so a found object goes through a small FIFO: its header is
 * prefetched when it enters and marked when it leaves, PF_DEPTH finds later
 * (the idea of Boehm's and Whippet's mark prefetch buffers). */
#define PF_DEPTH 16
static void drain(struct rgc_runtime *rt, struct rgc_marker *m) {
  void *fp[PF_DEPTH];
  struct rgc_region *fr[PF_DEPTH];
  unsigned head = 0, cnt = 0;
  for (;;) {
    if (m->n) {
      /* share when the pool is empty and the stack is long or a worker
       * waits (the bottom half: in a tree, the biggest subtrees) */
      if (m->share && m->n >= 2 && !atomic_load_explicit(&rt->pool_hint, memory_order_relaxed) &&
          (m->n >= 64 || atomic_load_explicit(&rt->pool_waiting, memory_order_relaxed)))
        rgc_pool_give(rt, m);
      void *p = m->ms[--m->n];
      struct rgc_hdr *h = hdr_of(p);
      RGC_FOR_EACH_SLOT(h, slot, {
        void *c = *slot;
        struct rgc_region *r = c ? condemned_region(rt, c) : NULL;
        if (r) {
          if (cnt == PF_DEPTH) {
            mark_in(m, fr[head], fp[head]);
            head = (head + 1) % PF_DEPTH;
            cnt--;
          }
          __builtin_prefetch(hdr_of(c), 1);
          unsigned t = (head + cnt) % PF_DEPTH;
          fp[t] = c;
          fr[t] = r;
          cnt++;
        }
      });
    } else if (cnt) {
      mark_in(m, fr[head], fp[head]);
      head = (head + 1) % PF_DEPTH;
      cnt--;
    } else {
      break;
    }
  }
  flush_live(m);
}

/* The next task of a kind: its index, or n when none is left. */
static inline size_t claim(_Atomic size_t *next, size_t n) {
  if (atomic_load_explicit(next, memory_order_relaxed) >= n) return n;
  size_t i = atomic_fetch_add_explicit(next, 1, memory_order_relaxed);
  return i < n ? i : n;
}

/* Mark from the old-to-young slots of older region r that lie on dirty
 * cards in [lo, hi). The bricks lead from each dirty card to the block
 * holding it: only the objects on dirty cards are looked at, and of those
 * only the slots on the card. */
static void mark_older_range(struct rgc_runtime *rt, struct rgc_marker *m, struct rgc_region *r,
                             uint8_t *lo, uint8_t *hi) {
  if (hi > r->top) hi = r->top;
  if (lo >= hi) return;
  const uint8_t *cards = (const uint8_t *)rt->cards;
  size_t ce = rgc_card_index(rt, hi - 1);
  struct rgc_hdr *hint = NULL;  /* the last block looked at */
  for (size_t c = rgc_next_dirty(cards, rgc_card_index(rt, lo), ce); c <= ce; c = rgc_next_dirty(cards, c + 1, ce)) {
    uint8_t *a = rt->base + (c << RGC_CARD_SHIFT), *b = a + ((size_t)1 << RGC_CARD_SHIFT);
    if (a < lo) a = lo;
    if (b > hi) b = hi;
    for (struct rgc_hdr *h = rgc_block_at(rt, a, hint); (uint8_t *)h < b;
         h = (struct rgc_hdr *)((uint8_t *)h + h->size)) {
      hint = h;
      if (hflags(h) & OF_FREE) continue;
      RGC_FOR_EACH_SLOT_IN(h, a, b, slot, {
        if (*slot) { mark_obj(rt, m, *slot); drain(rt, m); }
      });
    }
  }
}

/* Card marking of older region i (rt->older_regions): its chunks, one at a
 * time, until none is left (other workers may take some). A region whose
 * bricks are not exact is one chunk: its bricks are made first, if any of
 * its cards is dirty. */
static void mark_older_chunks(struct rgc_runtime *rt, struct rgc_marker *m, size_t i) {
  struct rgc_region *r = rt->older_regions[i];
  struct rgc_older_work *wk = &rt->older_work[i];
  for (size_t k; (k = claim(&wk->next, wk->n)) < wk->n;) {
    if (wk->n == 1 && !atomic_load_explicit(&r->bricks_ok, memory_order_relaxed)) {
      if (!rgc_cards_dirty(rt, r->start, r->top)) return;
      rgc_bricks_build(rt, r);
      mark_older_range(rt, m, r, r->start, r->top);
    } else {
      uint8_t *lo = r->start + k * RGC_OLDER_CHUNK;
      mark_older_range(rt, m, r, lo, lo + RGC_OLDER_CHUNK);
    }
  }
}

static bool dead(struct rgc_runtime *rt, void *p) {
  struct rgc_region *r = rgc_region_of(rt, p);
  return r && r->condemned && !(hflags(hdr_of(p)) & OF_MARK);
}

static void clear_weak(struct rgc_runtime *rt, uint32_t kind) {
  for (struct rgc_handle_chunk *c = rt->handle_chunks; c; c = c->next)
    for (int i = 0; i < RGC_HANDLE_CHUNK; i++) {
      struct rgc_handle_slot *s = &c->slots[i];
      void *o = atomic_load_explicit(&s->obj, memory_order_relaxed);
      if (s->in_use && s->kind == kind && o && dead(rt, o))
        atomic_store_explicit(&s->obj, NULL, memory_order_relaxed);
    }
}

/* Worker w marks: root tasks kind by kind, each taken by whichever worker
 * asks first (bytes per kind go to the worker's heap record: GCMarkWithType
 * per heap), then the shared drain. */
static void mark_worker(struct rgc_runtime *rt, int w) {
  struct rgc_marker *m = &rt->markers[w];
  struct rgc_heap_rec *hr = &rt->rec.heap[w];
  int nw = rt->nheaps;
  if (nw > 1 && !rgc_pool_join(rt)) return;  /* came after the others finished */
  m->n = 0;
  m->share = m->par = nw > 1;
  m->lr = NULL;
  m->lbytes = 0;
  /* Stack: runs of thread root slots */
  m->counter = 0;
  for (size_t i; (i = claim(&rt->next_root_run, rt->root_nruns)) < rt->root_nruns;) {
    const struct rgc_root_run *run = &rt->root_runs[i];
    for (size_t k = 0; k < run->n; k++)
      if (*run->slots[k]) { mark_obj(rt, m, *run->slots[k]); drain(rt, m); }
  }
  hr->mark_bytes[GCS_ROOT_KIND_STACK] = m->counter;

  /* Finalizer: objects already f-reachable, waiting for the finalizer thread */
  m->counter = 0;
  if (claim(&rt->next_fq, 1) == 0) {
    pthread_mutex_lock(&rt->fin_lock);
    for (size_t i = 0; i < rt->fq_n; i++) {
      mark_obj(rt, m, rt->fq[(rt->fq_head + i) % rt->fq_cap]);
      drain(rt, m);
    }
    pthread_mutex_unlock(&rt->fin_lock);
  }
  hr->mark_bytes[GCS_ROOT_KIND_FINALIZER] = m->counter;

  /* Handles: strong and pinned, a chunk at a time */
  m->counter = 0;
  size_t ci = 0, want = claim(&rt->next_handle_chunk, SIZE_MAX);
  for (struct rgc_handle_chunk *c = rt->handle_chunks; c; c = c->next, ci++) {
    if (ci != want) continue;
    for (int i = 0; i < RGC_HANDLE_CHUNK; i++) {
      struct rgc_handle_slot *s = &c->slots[i];
      void *o = atomic_load_explicit(&s->obj, memory_order_relaxed);
      if (!s->in_use || !o || (s->kind != RGC_HANDLE_STRONG && s->kind != RGC_HANDLE_PINNED)) continue;
      mark_obj(rt, m, o);
      drain(rt, m);
    }
    want = claim(&rt->next_handle_chunk, SIZE_MAX);
  }
  hr->mark_bytes[GCS_ROOT_KIND_HANDLE] = m->counter;

  /* Older generations: dirty cards, a region at a time; then help until done */
  m->counter = 0;
  for (size_t i; (i = claim(&rt->next_older, rt->older_n)) < rt->older_n;) mark_older_chunks(rt, m, i);
  if (nw > 1)  /* no region left: help with the chunks of those in progress */
    for (size_t i = 0; i < rt->older_n; i++) mark_older_chunks(rt, m, i);
  for (;;) {
    drain(rt, m);
    if (nw == 1 || !rgc_pool_take(rt, m)) break;
  }
  hr->mark_bytes[GCS_ROOT_KIND_OLDER] = m->counter;
  m->share = false;
}

#define RGC_ROOT_RUN 256  /* root slots per stack task */

/* List the mark tasks (GC thread, before the workers start). */
static void list_mark_tasks(struct rgc_runtime *rt) {
  rt->root_nruns = 0;
  for (struct rgc_thread *t = rt->threads; t; t = t->next)
    for (size_t i = 0; i < t->nroots; i += RGC_ROOT_RUN) {
      struct rgc_root_run run = {t->roots + i, t->nroots - i < RGC_ROOT_RUN ? t->nroots - i : RGC_ROOT_RUN};
      RGC_VEC_PUSH(rt->root_runs, rt->root_nruns, rt->root_runs_cap, run);
    }
  rt->older_n = 0;
  if (gcs_gen_is_ephemeral((uint32_t)rt->condemned_gen))
    for (int hi = 0; hi < rt->nheaps; hi++)
      for (int g = 1; g < RGC_NGEN; g++)
        for (struct rgc_region *r = rt->heaps[hi].gens[g]; r; r = r->next)
          if (!r->condemned && r->top != r->start) {
            if (rt->older_n == rt->older_work_cap) {
              rt->older_work_cap = rt->older_work_cap ? 2 * rt->older_work_cap : 256;
              rt->older_work = rgc_xrealloc(rt->older_work, rt->older_work_cap * sizeof *rt->older_work);
            }
            struct rgc_older_work *wk = &rt->older_work[rt->older_n];
            atomic_init(&wk->next, 0);
            wk->n = atomic_load_explicit(&r->bricks_ok, memory_order_relaxed)
                        ? ((size_t)(r->top - r->start) + RGC_OLDER_CHUNK - 1) / RGC_OLDER_CHUNK : 1;
            RGC_VEC_PUSH(rt->older_regions, rt->older_n, rt->older_cap, r);
          }
  atomic_store(&rt->next_root_run, 0);
  atomic_store(&rt->next_fq, 0);
  atomic_store(&rt->next_handle_chunk, 0);
  atomic_store(&rt->next_older, 0);
}

/* Pinned handles: flag their condemned targets before marking (serial). */
static void pin_targets(struct rgc_runtime *rt) {
  struct rgc_gc_record *rec = &rt->rec;
  for (struct rgc_handle_chunk *c = rt->handle_chunks; c; c = c->next)
    for (int i = 0; i < RGC_HANDLE_CHUNK; i++) {
      struct rgc_handle_slot *s = &c->slots[i];
      void *o = atomic_load_explicit(&s->obj, memory_order_relaxed);
      if (!s->in_use || !o || s->kind != RGC_HANDLE_PINNED) continue;
      struct rgc_region *r = rgc_region_of(rt, o);
      if (!r || !r->condemned || r->gen > GCS_GEN2) continue;
      struct rgc_hdr *h = hdr_of(o);
      if (!(hflags(h) & OF_PINNED)) {
        hset(h, hflags(h) | OF_PINNED);
        r->has_pinned = true;
        r->pinned_bytes += h->size;
        rec->pinned_count++;
      }
      RGC_VEC_PUSH(rt->pins, rt->pins_n, rt->pins_cap, s);
    }
}

void rgc_mark_phase(struct rgc_runtime *rt) {
  struct rgc_gc_record *rec = &rt->rec;
  pin_targets(rt);
  list_mark_tasks(rt);
  rgc_pool_reset(rt);
  rgc_par_run(rt, mark_worker);

  /* The rest is serial, on the GC thread (worker 0's marker). */
  struct rgc_marker *m = &rt->markers[0];
  /* Short weak handles die before finalization can resurrect their targets. */
  clear_weak(rt, RGC_HANDLE_WEAK_SHORT);

  /* Finalization: dead finalizable objects become f-reachable (and live). */
  m->counter = 0;
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *hp = &rt->heaps[hi];
    size_t k = 0;
    for (size_t i = 0; i < hp->fin_n; i++) {
      void *o = hp->fin_objs[i];
      if (!dead(rt, o)) { hp->fin_objs[k++] = o; continue; }
      struct rgc_hdr *h = hdr_of(o);
      atomic_fetch_and_explicit(&h->flags, ~OF_FINAL, memory_order_relaxed);
      if (hflags(h) & OF_SUPPRESS) continue;
      uint64_t before = m->counter;
      mark_obj(rt, m, o);
      drain(rt, m);
      rec->fin_promoted_count++;
      rec->fin_promoted_bytes += m->counter - before;
      rgc_fq_push(rt, o);
    }
    hp->fin_n = k;
  }
  rec->heap[0].mark_bytes[GCS_ROOT_KIND_FINALIZER] += m->counter;

  clear_weak(rt, RGC_HANDLE_WEAK_LONG);
  for (int i = 0; i < RGC_MARK_KINDS; i++) {
    rec->mark_bytes[i] = 0;
    for (int hi = 0; hi < rt->nheaps; hi++) rec->mark_bytes[i] += rec->heap[hi].mark_bytes[i];
  }
}
