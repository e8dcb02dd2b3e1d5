/* rgc_par.c — server GC's worker threads and the shared mark pool.
 *
 * Workers: one per heap. Worker 0 is the GC thread itself; workers
 * 1..nheaps-1 are helper threads that sleep until the GC thread publishes a
 * job (rgc_par_run), run it with their index, and report back (fork-join).
 * Each helper adds the CPU time it spent on jobs to work_cpu_ns, so a GC's
 * CPU time covers all of its threads.
 *
 * Balanced marking: each worker marks from its own roots into a local stack;
 * when the local stack is long and the shared pool is empty, half of it goes
 * to the pool. An idle worker takes work from the pool. Marking is over when
 * every worker is idle and the pool is empty. With one worker the pool is
 * never used. */
#include <stdlib.h>

#include "rgc_internal.h"

static void *worker_main(void *arg) {
  struct rgc_runtime *rt = ((void **)arg)[0];
  int w = (int)(intptr_t)((void **)arg)[1];
  free(arg);
  uint64_t seen = 0;
  pthread_mutex_lock(&rt->work_lock);
  for (;;) {
    while (rt->work_epoch == seen && !rt->work_stop) pthread_cond_wait(&rt->work_cv, &rt->work_lock);
    if (rt->work_stop) break;
    seen = rt->work_epoch;
    void (*fn)(struct rgc_runtime *, int) = rt->work_fn;
    pthread_mutex_unlock(&rt->work_lock);
    uint64_t c0 = rgc_thread_cpu_ns();
    fn(rt, w);
    atomic_fetch_add(&rt->work_cpu_ns, rgc_thread_cpu_ns() - c0);
    pthread_mutex_lock(&rt->work_lock);
    if (++rt->work_done == rt->nheaps - 1) pthread_cond_signal(&rt->work_done_cv);
  }
  pthread_mutex_unlock(&rt->work_lock);
  return NULL;
}

int rgc_workers_start(struct rgc_runtime *rt) {
  pthread_mutex_init(&rt->work_lock, NULL);
  pthread_cond_init(&rt->work_cv, NULL);
  pthread_cond_init(&rt->work_done_cv, NULL);
  pthread_mutex_init(&rt->pool_lock, NULL);
  pthread_cond_init(&rt->pool_cv, NULL);
  if (rt->nheaps <= 1) return 0;
  rt->workers = calloc((size_t)rt->nheaps, sizeof *rt->workers);
  if (!rt->workers) return -1;
  for (int w = 1; w < rt->nheaps; w++) {
    void **arg = malloc(2 * sizeof *arg);
    if (!arg) return -1;
    arg[0] = rt;
    arg[1] = (void *)(intptr_t)w;
    if (pthread_create(&rt->workers[w], NULL, worker_main, arg)) {
      free(arg);
      rt->nheaps = w;  /* stop the ones started */
      return -1;
    }
  }
  return 0;
}

void rgc_workers_stop(struct rgc_runtime *rt) {
  if (rt->workers) {
    pthread_mutex_lock(&rt->work_lock);
    rt->work_stop = 1;
    pthread_cond_broadcast(&rt->work_cv);
    pthread_mutex_unlock(&rt->work_lock);
    for (int w = 1; w < rt->nheaps; w++) pthread_join(rt->workers[w], NULL);
    free(rt->workers);
    rt->workers = NULL;
  }
  pthread_mutex_destroy(&rt->work_lock);
  pthread_cond_destroy(&rt->work_cv);
  pthread_cond_destroy(&rt->work_done_cv);
  pthread_mutex_destroy(&rt->pool_lock);
  pthread_cond_destroy(&rt->pool_cv);
  free(rt->pool);
  for (int i = 0; i < RGC_MAX_HEAPS; i++) free(rt->markers[i].ms);
}

void rgc_par_run(struct rgc_runtime *rt, void (*fn)(struct rgc_runtime *, int)) {
  if (rt->nheaps <= 1) {
    fn(rt, 0);
    return;
  }
  pthread_mutex_lock(&rt->work_lock);
  rt->work_fn = fn;
  rt->work_done = 0;
  rt->work_epoch++;
  pthread_cond_broadcast(&rt->work_cv);
  pthread_mutex_unlock(&rt->work_lock);
  fn(rt, 0);
  pthread_mutex_lock(&rt->work_lock);
  while (rt->work_done < rt->nheaps - 1) pthread_cond_wait(&rt->work_done_cv, &rt->work_lock);
  pthread_mutex_unlock(&rt->work_lock);
}

void rgc_pool_reset(struct rgc_runtime *rt, int nworkers) {
  rt->pool_n = 0;
  rt->pool_idle = 0;
  rt->pool_nworkers = nworkers;
  atomic_store(&rt->pool_hint, 0);
}

void rgc_pool_give(struct rgc_runtime *rt, struct rgc_marker *m) {
  size_t give = m->n / 2;
  pthread_mutex_lock(&rt->pool_lock);
  for (size_t i = 0; i < give; i++) RGC_VEC_PUSH(rt->pool, rt->pool_n, rt->pool_cap, m->ms[i]);
  atomic_store_explicit(&rt->pool_hint, rt->pool_n, memory_order_relaxed);
  if (rt->pool_idle) pthread_cond_broadcast(&rt->pool_cv);
  pthread_mutex_unlock(&rt->pool_lock);
  memmove(m->ms, m->ms + give, (m->n - give) * sizeof *m->ms);
  m->n -= give;
}

bool rgc_pool_take(struct rgc_runtime *rt, struct rgc_marker *m) {
  pthread_mutex_lock(&rt->pool_lock);
  bool idle = false;
  for (;;) {
    if (rt->pool_n) {
      if (idle) rt->pool_idle--;
      size_t take = rt->pool_n < 64 ? rt->pool_n : 64;
      for (size_t i = 0; i < take; i++) RGC_VEC_PUSH(m->ms, m->n, m->cap, rt->pool[--rt->pool_n]);
      atomic_store_explicit(&rt->pool_hint, rt->pool_n, memory_order_relaxed);
      pthread_mutex_unlock(&rt->pool_lock);
      return true;
    }
    if (!idle) { idle = true; rt->pool_idle++; }
    if (rt->pool_idle == rt->pool_nworkers) {
      pthread_cond_broadcast(&rt->pool_cv);
      pthread_mutex_unlock(&rt->pool_lock);
      return false;
    }
    pthread_cond_wait(&rt->pool_cv, &rt->pool_lock);
  }
}
