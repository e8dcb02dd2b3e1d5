/* rgc_handles.c — GC handles: strong, weak short, weak long (track
 * resurrection) and pinned, in chunks of slots that never move. */
#include <stdlib.h>

#include "rgc_internal.h"

rgc_handle rgc_handle_new(rgc_thread *t, void *obj, enum rgc_handle_kind kind) {
  struct rgc_runtime *rt = t->rt;
  if ((unsigned)kind > RGC_HANDLE_PINNED) return NULL;
  pthread_mutex_lock(&rt->handle_lock);
  if (!rt->handle_free) {
    struct rgc_handle_chunk *c = calloc(1, sizeof *c);
    if (!c) { pthread_mutex_unlock(&rt->handle_lock); return NULL; }
    c->next = rt->handle_chunks;
    rt->handle_chunks = c;
    for (int i = RGC_HANDLE_CHUNK - 1; i >= 0; i--) {
      c->slots[i].next_free = rt->handle_free;
      rt->handle_free = &c->slots[i];
    }
  }
  struct rgc_handle_slot *s = rt->handle_free;
  rt->handle_free = s->next_free;
  s->next_free = NULL;
  s->kind = kind;
  s->in_use = 1;
  atomic_store_explicit(&s->obj, obj, memory_order_relaxed);
  atomic_fetch_add(&rt->handle_count, 1);
  pthread_mutex_unlock(&rt->handle_lock);
  if (obj) {
    struct rgc_region *r = rgc_region_of(rt, obj);
    rgc_ev_set_handle(s, obj, kind, r ? (uint32_t)rgc_eff_gen(r->gen) : 0);
  } else {
    rgc_ev_set_handle(s, NULL, kind, 0);
  }
  return s;
}

/* While a BGC marks, a weak handle's target that the mutator takes may be
 * an old object not marked yet: shade it (read barrier), or the BGC could
 * free an object the mutator now holds. */
void *rgc_handle_get(rgc_handle h) {
  void *o = atomic_load_explicit(&h->obj, memory_order_relaxed);
  if (o && h->kind <= RGC_HANDLE_WEAK_LONG) {
    struct rgc_thread *t = rgc_current_thread();
    if (t && atomic_load_explicit(&t->rt->bgc_phase, memory_order_relaxed) == RGC_BGC_MARKING &&
        rgc_bgc_needs_shade(t->rt, o))
      rgc_satb_log(t->rt, o);
  }
  return o;
}
void rgc_handle_set(rgc_handle h, void *obj) { atomic_store_explicit(&h->obj, obj, memory_order_relaxed); }
enum rgc_handle_kind rgc_handle_kind_of(rgc_handle h) { return (enum rgc_handle_kind)h->kind; }

void rgc_handle_free(rgc_thread *t, rgc_handle h) {
  struct rgc_runtime *rt = t->rt;
  rgc_ev_destroy_handle(h);
  pthread_mutex_lock(&rt->handle_lock);
  atomic_store_explicit(&h->obj, NULL, memory_order_relaxed);
  h->in_use = 0;
  h->next_free = rt->handle_free;
  rt->handle_free = h;
  atomic_fetch_sub(&rt->handle_count, 1);
  pthread_mutex_unlock(&rt->handle_lock);
}
