/* rgc_mark.c — the mark phase: roots by kind (stack, finalizer queue,
 * handles, older generations through the card table), weak handles and the
 * finalization scan. Runs on the GC thread with every mutator stopped. */
#include "rgc_internal.h"

static uint64_t mark_counter;  /* bytes newly marked, per root kind (GC thread only) */

static void mark_obj(struct rgc_runtime *rt, void *p) {
  struct rgc_region *r = rgc_region_of(rt, p);
  if (!r || !r->condemned) return;
  struct rgc_hdr *h = hdr_of(p);
  uint32_t f = hflags(h);
  if (f & OF_MARK) return;
  hset(h, f | OF_MARK);
  r->live_bytes += h->size;
  mark_counter += h->size;
  const struct rgc_type *ty = (const struct rgc_type *)h->tw;
  if (ty->kind == RGC_KIND_REF_ARRAY || ty->nrefs)
    RGC_VEC_PUSH(rt->mark_stack, rt->ms_n, rt->ms_cap, p);
}

static void drain(struct rgc_runtime *rt) {
  while (rt->ms_n) {
    void *p = rt->mark_stack[--rt->ms_n];
    struct rgc_hdr *h = hdr_of(p);
    RGC_FOR_EACH_SLOT(h, slot, { if (*slot) mark_obj(rt, *slot); });
  }
}

/* Does any card covering [a, b) hold a dirty bit? */
static bool cards_dirty(struct rgc_runtime *rt, const uint8_t *a, const uint8_t *b) {
  for (size_t c = rgc_card_index(rt, a), e = rgc_card_index(rt, b - 1); c <= e; c++)
    if (atomic_load_explicit(&rt->cards[c], memory_order_relaxed)) return true;
  return false;
}

static void mark_older(struct rgc_runtime *rt) {
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *hp = &rt->heaps[hi];
    for (int g = 1; g < RGC_NGEN; g++) {
      for (struct rgc_region *r = hp->gens[g]; r; r = r->next) {
        if (r->condemned || r->top == r->start || !cards_dirty(rt, r->start, r->top)) continue;
        for (uint8_t *p = r->start; p < r->top;) {
          struct rgc_hdr *h = (struct rgc_hdr *)p;
          p += h->size;
          if (hflags(h) & OF_FREE) continue;
          if (!cards_dirty(rt, (uint8_t *)h, p)) continue;
          RGC_FOR_EACH_SLOT(h, slot, {
            if (*slot && rgc_card_get(rt, slot)) { mark_obj(rt, *slot); drain(rt); }
          });
        }
      }
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

void rgc_mark_phase(struct rgc_runtime *rt) {
  struct rgc_gc_record *rec = &rt->rec;
  /* Stack (per-thread root slots) */
  mark_counter = 0;
  for (struct rgc_thread *t = rt->threads; t; t = t->next)
    for (size_t i = 0; i < t->nroots; i++)
      if (*t->roots[i]) { mark_obj(rt, *t->roots[i]); drain(rt); }
  rec->mark_bytes[0] = mark_counter;

  /* Finalizer: objects already f-reachable, waiting for the finalizer thread */
  mark_counter = 0;
  pthread_mutex_lock(&rt->fin_lock);
  for (size_t i = 0; i < rt->fq_n; i++) {
    mark_obj(rt, rt->fq[(rt->fq_head + i) % rt->fq_cap]);
    drain(rt);
  }
  pthread_mutex_unlock(&rt->fin_lock);
  rec->mark_bytes[1] = mark_counter;

  /* Handles: strong and pinned */
  mark_counter = 0;
  for (struct rgc_handle_chunk *c = rt->handle_chunks; c; c = c->next)
    for (int i = 0; i < RGC_HANDLE_CHUNK; i++) {
      struct rgc_handle_slot *s = &c->slots[i];
      void *o = atomic_load_explicit(&s->obj, memory_order_relaxed);
      if (!s->in_use || !o || (s->kind != RGC_HANDLE_STRONG && s->kind != RGC_HANDLE_PINNED)) continue;
      if (s->kind == RGC_HANDLE_PINNED) {
        struct rgc_region *r = rgc_region_of(rt, o);
        if (r && r->condemned && r->gen <= 2) {
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
      mark_obj(rt, o);
      drain(rt);
    }
  rec->mark_bytes[2] = mark_counter;

  /* Older generations: dirty cards */
  mark_counter = 0;
  if (rt->condemned_gen < 2) mark_older(rt);
  rec->mark_bytes[3] = mark_counter;

  /* Short weak handles die before finalization can resurrect their targets. */
  clear_weak(rt, RGC_HANDLE_WEAK_SHORT);

  /* Finalization: dead finalizable objects become f-reachable (and live). */
  mark_counter = 0;
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *hp = &rt->heaps[hi];
    size_t k = 0;
    for (size_t i = 0; i < hp->fin_n; i++) {
      void *o = hp->fin_objs[i];
      if (!dead(rt, o)) { hp->fin_objs[k++] = o; continue; }
      struct rgc_hdr *h = hdr_of(o);
      hset(h, hflags(h) & ~OF_FINAL);
      if (hflags(h) & OF_SUPPRESS) continue;
      uint64_t before = mark_counter;
      mark_obj(rt, o);
      drain(rt);
      rec->fin_promoted_count++;
      rec->fin_promoted_bytes += mark_counter - before;
      rgc_fq_push(rt, o);
    }
    hp->fin_n = k;
  }
  rec->mark_bytes[1] += mark_counter;

  clear_weak(rt, RGC_HANDLE_WEAK_LONG);
}
