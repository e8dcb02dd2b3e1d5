/* rgc_alloc.c — allocation: per-thread bump-pointer contexts refilled from
 * gen0 (free-list items of demoted regions first, then region ends), the LOH
 * and POH free-list allocators, budgets and the AllocationTick event. */
#include "rgc_internal.h"

void rgc_retire_context(struct rgc_thread *t) {
  if (t->alloc_ptr && t->alloc_ptr < t->alloc_limit) {
    struct rgc_region *r = rgc_region_of(t->rt, t->alloc_ptr);
    rgc_make_free(t->rt, t->heap, r, t->alloc_ptr, (size_t)(t->alloc_limit - t->alloc_ptr), false);
  }
  t->alloc_ptr = t->alloc_limit = t->ctx_start = NULL;
}

static void *init_object(struct rgc_thread *t, uint8_t *p, size_t size,
                         const struct rgc_type *ty, size_t length) {
  struct rgc_hdr *h = (struct rgc_hdr *)p;
  h->tw = (uintptr_t)ty;
  h->size = (uint32_t)size;
  hset(h, ty->finalizer ? OF_FINAL : 0);
  void *obj = obj_of(h);
  if (ty->kind != RGC_KIND_OBJECT) *(uint64_t *)obj = length;
  if (ty->finalizer) {
    pthread_mutex_lock(&t->heap->lock);
    rgc_fin_register(t->heap, obj);
    pthread_mutex_unlock(&t->heap->lock);
  }
  return obj;
}

/* Wait for a GC asked for by this thread (it is cooperative: it parks). */
static int trigger_gc(struct rgc_thread *t, int gen, enum gcs_gc_reason reason, uint64_t seen) {
  struct rgc_request rq = {.gen = gen, .reason = reason, .mode = RGC_COLLECT_BLOCKING};
  return rgc_request_gc(t->rt, &rq, seen);
}

static void *alloc_small_slow(struct rgc_thread *t, const struct rgc_type *ty, size_t length,
                              size_t size) {
  struct rgc_runtime *rt = t->rt;
  struct rgc_heap *h = t->heap;
  int oom_gcs = 0;
  for (;;) {
    rgc_safepoint(t);
    pthread_mutex_lock(&h->lock);
    rgc_retire_context(t);
    if (h->new_alloc[0] <= 0) {
      uint64_t seen = rgc_gc_done(rt);
      pthread_mutex_unlock(&h->lock);
      trigger_gc(t, GCS_GEN0, GCS_GC_REASON_ALLOC_SMALL, seen);
      continue;
    }
    size_t need = size > RGC_ALLOC_QUANTUM ? size : RGC_ALLOC_QUANTUM;
    uint8_t *ctx = NULL;
    size_t len = 0;
    struct rgc_hdr *item = rgc_free_list_take(rt, h, 0, size);
    if (item) {
      ctx = (uint8_t *)item;
      len = item->size;
    } else {
      struct rgc_region *r = h->alloc_region[0];
      if (!r || r->top + need > r->end) {
        r = rgc_region_new(rt, h, 0, RGC_REGION_SIZE);
        if (!r) {
          uint64_t seen = rgc_gc_done(rt);
          pthread_mutex_unlock(&h->lock);
          if (oom_gcs++ >= 1) return NULL;
          trigger_gc(t, GCS_GEN2, GCS_GC_REASON_OUT_OF_SPACE_SOH, seen);
          continue;
        }
        h->alloc_region[0] = r;
      }
      ctx = r->top;
      len = need;
      r->top += need;
    }
    h->new_alloc[0] -= (int64_t)len;
    h->total_allocated += len;
    h->tick_bytes[GCS_ALLOC_KIND_SMALL] += len;
    uint64_t tick = 0;
    if (h->tick_bytes[GCS_ALLOC_KIND_SMALL] >= RGC_TICK_BYTES)
      tick = h->tick_bytes[GCS_ALLOC_KIND_SMALL], h->tick_bytes[GCS_ALLOC_KIND_SMALL] = 0;
    pthread_mutex_unlock(&h->lock);
    memset(ctx, 0, len);
    t->ctx_start = ctx;
    t->alloc_ptr = ctx + size;
    t->alloc_limit = ctx + len;
    void *obj = init_object(t, ctx, size, ty, length);
    if (tick) rgc_ev_alloc_tick(GCS_ALLOC_KIND_SMALL, tick, ty, (uint32_t)h->index, obj, size);
    return obj;
  }
}

static void *alloc_big(struct rgc_thread *t, const struct rgc_type *ty, size_t length,
                       size_t size, int gen) {
  struct rgc_runtime *rt = t->rt;
  struct rgc_heap *h = t->heap;
  int gcs = 0;
  for (;;) {
    rgc_safepoint(t);
    pthread_mutex_lock(&h->lock);
    bool bgc = atomic_load(&rt->bgc_active) != 0;
    if (h->new_alloc[gen] <= 0 && gcs == 0 && bgc) {
      /* allocated too much during a BGC: wait for it to end (as CoreCLR's
       * LOH allocations during a BGC), in native so its pause can proceed */
      enum gcs_bgc_wait_reason why = atomic_load(&rt->bgc_phase) == RGC_BGC_SWEEPING
                                         ? GCS_BGC_WAIT_REASON_ALLOC_DURING_SWEEP
                                         : GCS_BGC_WAIT_REASON_ALLOC_DURING_BGC;
      pthread_mutex_unlock(&h->lock);
      rgc_ev_bgc_alloc_wait(1, why);
      rgc_enter_native(t);
      rgc_bgc_wait_done(rt);
      rgc_leave_native(t);
      rgc_ev_bgc_alloc_wait(0, why);
      continue;
    }
    if (h->new_alloc[gen] <= 0 && gcs == 0) {
      uint64_t seen = rgc_gc_done(rt);
      pthread_mutex_unlock(&h->lock);
      gcs++;
      trigger_gc(t, GCS_GEN2, GCS_GC_REASON_ALLOC_LARGE, seen);
      continue;
    }
    uint8_t *p = NULL;
    /* during a BGC the old free lists are being rebuilt: fresh regions only */
    struct rgc_hdr *item = bgc ? NULL : rgc_free_list_take(rt, h, gen, size);
    if (item) {
      struct rgc_region *r = rgc_region_of(rt, item);
      p = (uint8_t *)item;
      size_t rem = item->size - size;
      if (rem) rgc_make_free(rt, h, r, p + size, rem, true);
    } else {
      struct rgc_region *r = h->alloc_region[gen];
      if (!r || r->top + size > r->end) {
        r = rgc_region_new(rt, h, gen, size);
        if (!r) {
          uint64_t seen = rgc_gc_done(rt);
          pthread_mutex_unlock(&h->lock);
          if (gcs++ >= 2) return NULL;
          trigger_gc(t, GCS_GEN2,
                     gen == RGC_LOH ? GCS_GC_REASON_OUT_OF_SPACE_LOH : GCS_GC_REASON_OUT_OF_SPACE_SOH, seen);
          continue;
        }
        /* keep bumping in the region with the most room left */
        if (!h->alloc_region[gen] || r->end - r->start - (ptrdiff_t)size >
            h->alloc_region[gen]->end - h->alloc_region[gen]->top)
          h->alloc_region[gen] = r;
      }
      p = r->top;
      r->top += size;
      rgc_bricks_note(rt, r, p, size);
    }
    h->new_alloc[gen] -= (int64_t)size;
    h->total_allocated += size;
    enum gcs_alloc_kind kind = gen == RGC_LOH ? GCS_ALLOC_KIND_LARGE : GCS_ALLOC_KIND_PINNED;
    h->tick_bytes[kind] += size;
    uint64_t tick = 0;
    if (h->tick_bytes[kind] >= RGC_TICK_BYTES) tick = h->tick_bytes[kind], h->tick_bytes[kind] = 0;
    pthread_mutex_unlock(&h->lock);
    memset(p, 0, size);
    void *obj = init_object(t, p, size, ty, length);
    if (tick) rgc_ev_alloc_tick(kind, tick, ty, (uint32_t)h->index, obj, size);
    return obj;
  }
}

static void *alloc_common(struct rgc_thread *t, const struct rgc_type *ty, size_t length, bool pinned) {
  size_t size = rgc_size_for(ty, length);
  if (!size) return NULL;
  if (pinned) return alloc_big(t, ty, length, size, RGC_POH);
  if (size >= t->rt->cfg.loh_threshold) return alloc_big(t, ty, length, size, RGC_LOH);
  if (atomic_load_explicit(&t->rt->suspend_flag, memory_order_relaxed)) rgc_safepoint(t);
  uint8_t *p = t->alloc_ptr;
  if (p && (size_t)(t->alloc_limit - p) >= size) {
    t->alloc_ptr = p + size;
    struct rgc_hdr *h = (struct rgc_hdr *)p;
    h->tw = (uintptr_t)ty;
    h->size = (uint32_t)size;
    if (!ty->finalizer && ty->kind == RGC_KIND_OBJECT) return obj_of(h);
    hset(h, 0);
    return init_object(t, p, size, ty, length);
  }
  return alloc_small_slow(t, ty, length, size);
}

void *rgc_alloc(rgc_thread *t, const rgc_type *ty) {
  if (ty->kind != RGC_KIND_OBJECT) return NULL;
  return alloc_common(t, ty, 0, false);
}

void *rgc_alloc_array(rgc_thread *t, const rgc_type *ty, size_t length) {
  if (ty->kind == RGC_KIND_OBJECT) return NULL;
  return alloc_common(t, ty, length, false);
}

void *rgc_alloc_pinned(rgc_thread *t, const rgc_type *ty, size_t length) {
  return alloc_common(t, ty, ty->kind == RGC_KIND_OBJECT ? 0 : length, true);
}

int rgc_generation_of(const void *obj) {
  struct rgc_thread *t = rgc_current_thread();
  if (!t) return -1;
  struct rgc_region *r = rgc_region_of(t->rt, obj);
  return r ? r->gen : -1;
}

uint64_t rgc_total_allocated_bytes(rgc_runtime *rt) {
  uint64_t s = 0;
  for (int i = 0; i < rt->nheaps; i++) {
    pthread_mutex_lock(&rt->heaps[i].lock);
    s += rt->heaps[i].total_allocated;
    pthread_mutex_unlock(&rt->heaps[i].lock);
  }
  return s;
}
