/* rgc_verify.c — heap verification (RGC_VERIFY_HEAP=1), run by the GC thread
 * after every GC with mutators stopped: every object is well formed, every
 * reference (heap, roots, handles, finalization queues) points at an object
 * start, old-to-young slots have their card set, free lists hold free objects
 * of their generation with the bytes the regions account. Aborts on the
 * first violation. */
#include <stdlib.h>

#include "rgc_internal.h"

struct starts { uint64_t *bits; uint8_t *base; size_t n; };

static void set_start(struct rgc_runtime *rt, struct starts *s, const void *p) {
  size_t i = (size_t)((const uint8_t *)p - rt->base) / RGC_GRAIN;
  s->bits[i / 64] |= 1ull << (i % 64);
}

static bool is_start(struct rgc_runtime *rt, struct starts *s, const void *obj) {
  struct rgc_region *r = rgc_region_of(rt, obj);
  if (!r || (const uint8_t *)obj < r->start + RGC_HDR || (const uint8_t *)obj >= r->top) return false;
  const uint8_t *p = (const uint8_t *)obj - RGC_HDR;
  if (((uintptr_t)p - (uintptr_t)rt->base) % RGC_GRAIN) return false;
  size_t i = (size_t)(p - rt->base) / RGC_GRAIN;
  return (s->bits[i / 64] >> (i % 64)) & 1;
}

static bool known_type(struct rgc_runtime *rt, uintptr_t tw) {
  for (struct rgc_type *t = rt->types; t; t = t->next)
    if ((uintptr_t)t == tw) return true;
  return false;
}

#define VFAIL(fmt, ...) rgc_fatal("heap verification (GC %u): " fmt, rt->rec.index, __VA_ARGS__)

/* During a BGC's sweep, unmarked objects of regions not swept yet are dead:
 * their slots may point at objects already swept. */
static bool bgc_dead(struct rgc_runtime *rt, const struct rgc_region *r, uint32_t f) {
  return r->bgc_condemned && atomic_load(&rt->bgc_phase) == RGC_BGC_SWEEPING && !(f & OF_BMARK);
}

void rgc_verify_heap(struct rgc_runtime *rt) {
  /* object-start bitmap over the used part of the reservation */
  size_t hi_slot = 0;
  for (size_t i = 0; i < rt->nslots; i++) if (atomic_load_explicit(&rt->slot_owner[i], memory_order_relaxed) >= 0) hi_slot = i + 1;
  struct starts s = {0};
  size_t grains = (hi_slot << RGC_REGION_SHIFT) / RGC_GRAIN;
  s.bits = calloc(grains / 64 + 1, 8);
  if (!s.bits) rgc_fatal("out of memory verifying the heap");
  pthread_mutex_lock(&rt->type_lock);
  for (int hi = 0; hi < rt->nheaps; hi++)
    for (int g = 0; g < RGC_NGEN; g++)
      for (struct rgc_region *r = rt->heaps[hi].gens[g]; r; r = r->next) {
        if (r->gen != g) VFAIL("region %p on the gen%d list has gen %d", (void *)r->start, g, r->gen);
        if (rgc_region_of(rt, r->start) != r) VFAIL("region %p not owned", (void *)r->start);
        uint64_t fl = 0, fo = 0;
        RGC_FOR_EACH_OBJECT(r, h) {
          uint8_t *p = (uint8_t *)h;
          if (h->size < RGC_MIN_OBJ || h->size % RGC_GRAIN || p + h->size > r->top)
            VFAIL("bad object size %u at %p (gen%d)", h->size, (void *)p, g);
          uint32_t f = hflags(h);
          if (f & (OF_MARK | OF_PINNED | OF_FWD)) VFAIL("stale GC flags 0x%x at %p", f, (void *)p);
          if ((f & OF_BMARK) && !r->bgc_condemned) VFAIL("stale BGC mark 0x%x at %p", f, (void *)p);
          if (f & OF_FREE) {
            fl += h->size;
          } else {
            if (!known_type(rt, h->tw)) VFAIL("unknown type word at %p", (void *)p);
            const struct rgc_type *ty = (const struct rgc_type *)h->tw;
            size_t len = ty->kind == RGC_KIND_OBJECT ? 0 : *(uint64_t *)obj_of(h);
            if (rgc_size_for(ty, len) > h->size) VFAIL("object at %p smaller than its type", (void *)p);
            if (g < RGC_LOH && h->size >= rt->cfg.loh_threshold) VFAIL("large object in gen%d at %p", g, (void *)p);
          }
          set_start(rt, &s, p);
          if (atomic_load_explicit(&r->bricks_ok, memory_order_relaxed)) {
            size_t off = (size_t)(p - rt->base);
            for (size_t b = (off + ((size_t)1 << RGC_BRICK_SHIFT) - 1) >> RGC_BRICK_SHIFT;
                 (b << RGC_BRICK_SHIFT) < off + h->size; b++)
              if (rt->bricks[b] != off / RGC_GRAIN)
                VFAIL("brick of %p (gen%d) names %p, not the block at %p", (void *)(rt->base + (b << RGC_BRICK_SHIFT)),
                      g, (void *)(rt->base + (size_t)rt->bricks[b] * RGC_GRAIN), (void *)p);
          }
        }
        fo = r->fl_bytes + r->fo_bytes;
        if (fl != fo)
          VFAIL("region %p (gen%d) holds %llu free bytes, accounts %llu", (void *)r->start, g,
                (unsigned long long)fl, (unsigned long long)fo);
      }
  /* free lists: free objects of their generation, bytes match the regions */
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *hp = &rt->heaps[hi];
    for (int g = 0; g < RGC_NGEN; g++) {
      uint64_t listed = 0, accounted = 0;
      for (int b = 0; b < RGC_NBUCKETS; b++)
        for (struct rgc_hdr *f = hp->free_lists[g][b]; f; f = (struct rgc_hdr *)f->tw) {
          struct rgc_region *r = rgc_region_of(rt, f);
          if (!r || r->gen != g) VFAIL("free-list item %p of gen%d outside its generation", (void *)f, g);
          if (!(hflags(f) & OF_FREE) || f->size < RGC_FREE_LIST_MIN)
            VFAIL("free-list item %p is not a free object", (void *)f);
          if (!is_start(rt, &s, obj_of(f))) VFAIL("free-list item %p is not an object start", (void *)f);
          listed += f->size;
        }
      for (struct rgc_region *r = hp->gens[g]; r; r = r->next) accounted += r->fl_bytes;
      if (listed != accounted)
        VFAIL("gen%d free lists hold %llu bytes, regions account %llu", g,
              (unsigned long long)listed, (unsigned long long)accounted);
    }
  }
  /* references and cards */
  for (int hi = 0; hi < rt->nheaps; hi++)
    for (int g = 0; g < RGC_NGEN; g++)
      for (struct rgc_region *r = rt->heaps[hi].gens[g]; r; r = r->next) {
        int hg = rgc_eff_gen(g);
        RGC_FOR_EACH_OBJECT(r, h) {
          uint8_t *p = (uint8_t *)h;
          if (hflags(h) & OF_FREE) continue;
          if (bgc_dead(rt, r, hflags(h))) continue;
          RGC_FOR_EACH_SLOT(h, slot, {
            void *v = *slot;
            if (v) {
              if (!is_start(rt, &s, v)) VFAIL("slot %p of %p (gen%d) points at %p, not an object", (void *)slot, (void *)p, g, v);
              if (hflags(hdr_of(v)) & OF_FREE) VFAIL("slot %p points at a free object %p", (void *)slot, v);
              int tg = rgc_eff_gen(rgc_region_of(rt, v)->gen);
              if (tg < hg && !rgc_card_get(rt, slot))
                VFAIL("gen%d slot %p refers to gen%d object %p without its card set (missing write barrier?)",
                      g, (void *)slot, tg, v);
            }
          });
        }
      }
  for (struct rgc_thread *t = rt->threads; t; t = t->next)
    for (size_t i = 0; i < t->nroots; i++)
      if (*t->roots[i] && !is_start(rt, &s, *t->roots[i])) VFAIL("root %p of thread %d points at %p", (void *)t->roots[i], (int)t->tid, *t->roots[i]);
  for (struct rgc_handle_chunk *c = rt->handle_chunks; c; c = c->next)
    for (int i = 0; i < RGC_HANDLE_CHUNK; i++) {
      void *o = atomic_load_explicit(&c->slots[i].obj, memory_order_relaxed);
      if (c->slots[i].in_use && o && !is_start(rt, &s, o)) VFAIL("handle %p points at %p", (void *)&c->slots[i], o);
    }
  for (int hi = 0; hi < rt->nheaps; hi++)
    for (size_t i = 0; i < rt->heaps[hi].fin_n; i++)
      if (!is_start(rt, &s, rt->heaps[hi].fin_objs[i])) VFAIL("finalization entry %p", rt->heaps[hi].fin_objs[i]);
  pthread_mutex_lock(&rt->fin_lock);
  for (size_t i = 0; i < rt->fq_n; i++) {
    void *o = rt->fq[(rt->fq_head + i) % rt->fq_cap];
    if (!is_start(rt, &s, o)) VFAIL("f-reachable entry %p", o);
  }
  pthread_mutex_unlock(&rt->fin_lock);
  pthread_mutex_unlock(&rt->type_lock);
  free(s.bits);
}
