/* rgc_finalize.c — finalization: the registry of finalizable objects (per
 * heap), the f-reachable queue filled by the GC, and the finalizer thread
 * that drains it after each GC (GCFinalizersBegin/End). */
#include <stdlib.h>

#include "rgc_internal.h"

void rgc_fin_register(struct rgc_heap *h, void *obj) {
  RGC_VEC_PUSH(h->fin_objs, h->fin_n, h->fin_cap, obj);
}

/* GC thread (under fin_lock is not needed: called with fin_lock free). */
void rgc_fq_push(struct rgc_runtime *rt, void *obj) {
  pthread_mutex_lock(&rt->fin_lock);
  if (rt->fq_n == rt->fq_cap) {
    size_t nc = rt->fq_cap ? rt->fq_cap * 2 : 256;
    void **n = rgc_xrealloc(NULL, nc * sizeof *n);
    for (size_t i = 0; i < rt->fq_n; i++) n[i] = rt->fq[(rt->fq_head + i) % rt->fq_cap];
    free(rt->fq);
    rt->fq = n;
    rt->fq_cap = nc;
    rt->fq_head = 0;
  }
  rt->fq[(rt->fq_head + rt->fq_n) % rt->fq_cap] = obj;
  rt->fq_n++;
  rt->fin_enqueued++;
  pthread_mutex_unlock(&rt->fin_lock);
}

void rgc_suppress_finalize(void *obj) {
  struct rgc_hdr *h = hdr_of(obj);
  atomic_fetch_or_explicit(&h->flags, OF_SUPPRESS, memory_order_relaxed);
}

void rgc_reregister_for_finalize(rgc_thread *t, void *obj) {
  struct rgc_hdr *h = hdr_of(obj);
  const struct rgc_type *ty = (const struct rgc_type *)h->tw;
  if (!ty->finalizer) return;
  uint32_t f = atomic_fetch_and_explicit(&h->flags, ~OF_SUPPRESS, memory_order_relaxed);
  if (f & OF_FINAL) return;  /* still registered */
  atomic_fetch_or_explicit(&h->flags, OF_FINAL, memory_order_relaxed);
  pthread_mutex_lock(&t->heap->lock);
  rgc_fin_register(t->heap, obj);
  pthread_mutex_unlock(&t->heap->lock);
}

static void *fin_main(void *arg) {
  struct rgc_runtime *rt = arg;
  struct rgc_thread *t = rgc_attach_thread(rt);
  if (!t) return NULL;
  void *obj = NULL;
  rgc_root(t, &obj);
  for (;;) {
    rgc_enter_native(t);
    pthread_mutex_lock(&rt->fin_lock);
    while (!rt->fq_n && !rt->fin_stop) pthread_cond_wait(&rt->fin_cv, &rt->fin_lock);
    bool stop = rt->fin_stop;
    pthread_mutex_unlock(&rt->fin_lock);
    rgc_leave_native(t);
    if (stop) break;
    rgc_ev_fin_begin();
    uint32_t ran = 0;
    for (;;) {
      pthread_mutex_lock(&rt->fin_lock);
      if (!rt->fq_n || rt->fin_stop) { pthread_mutex_unlock(&rt->fin_lock); break; }
      obj = rt->fq[rt->fq_head];
      rt->fq_head = (rt->fq_head + 1) % rt->fq_cap;
      rt->fq_n--;
      pthread_mutex_unlock(&rt->fin_lock);
      const struct rgc_type *ty = (const struct rgc_type *)hdr_of(obj)->tw;
      if (!(hflags(hdr_of(obj)) & OF_SUPPRESS)) ty->finalizer(t, obj);
      obj = NULL;
      ran++;
      pthread_mutex_lock(&rt->fin_lock);
      rt->fin_finished++;
      pthread_cond_broadcast(&rt->fin_done_cv);
      pthread_mutex_unlock(&rt->fin_lock);
      rgc_safepoint(t);
    }
    rgc_ev_fin_end(ran);
  }
  rgc_detach_thread(t);
  return NULL;
}

int rgc_fin_start(struct rgc_runtime *rt) {
  return pthread_create(&rt->fin_thread, NULL, fin_main, rt);
}

void rgc_fin_stop(struct rgc_runtime *rt) {
  pthread_mutex_lock(&rt->fin_lock);
  rt->fin_stop = true;
  pthread_cond_broadcast(&rt->fin_cv);
  pthread_cond_broadcast(&rt->fin_done_cv);
  pthread_mutex_unlock(&rt->fin_lock);
  pthread_join(rt->fin_thread, NULL);
}

void rgc_wait_for_pending_finalizers(rgc_runtime *rt) {
  struct rgc_thread *t = rgc_current_thread();
  if (t && t->rt != rt) t = NULL;
  if (t) rgc_enter_native(t);
  pthread_mutex_lock(&rt->fin_lock);
  uint64_t target = rt->fin_enqueued;
  while (rt->fin_finished < target && !rt->fin_stop)
    pthread_cond_wait(&rt->fin_done_cv, &rt->fin_lock);
  pthread_mutex_unlock(&rt->fin_lock);
  if (t) rgc_leave_native(t);
}
