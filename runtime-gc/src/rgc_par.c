/* rgc_par.c — server GC's worker threads and the shared mark pool.
 *
 * Workers: one per heap. Worker 0 is the GC thread itself; workers
 * 1..nheaps-1 are helper threads (fork-join). Worker w runs on the w-th CPU
 * the process may use, when there are at least as many CPUs as heaps (as
 * CoreCLR affinitizes its server GC threads): woken together, the workers
 * otherwise tend to land on the waker's CPU and take turns there. Between GCs a helper sleeps on
 * a condition variable. rgc_par_begin, at the start of a GC, wakes them; from
 * then until rgc_par_end they spin (pause, then sched_yield) waiting for the
 * next job, so a phase starts on every worker at once: waking a sleeping
 * thread costs 100-200 us on a virtual machine, as much as a whole phase of
 * a gen0 GC. A helper that finds no job for RGC_SPIN_NS sleeps again until
 * the next job. Each helper adds the CPU time it spent on jobs to
 * work_cpu_ns, so a GC's CPU time covers all of its threads.
 *
 * Sleeping and waking without lost wake-ups: a waiter counts itself in
 * *_sleepers, then re-checks its condition, under work_lock; a signaller
 * changes the condition (an atomic), then reads the sleeper count and, if
 * non-zero, broadcasts under work_lock (both sides sequentially consistent).
 *
 * Late helpers: a helper runs a job only if it joins it (work_join) before
 * the GC thread, its own part done, closes it; the GC thread waits for the
 * helpers that joined. A helper that the machine's other load keeps off its
 * CPU thus delays no phase: the jobs take their work a task (a heap, a
 * root run, a card chunk) at a time, so the GC thread and the helpers that
 * came did all of it.
 *
 * Balanced marking: each worker marks from its roots into a local stack;
 * when the shared pool is empty and the local stack is long, or another
 * worker waits for work, the bottom half of the stack goes to the pool. An
 * idle worker spins until the pool has work or every worker that joined
 * the marking (rgc_pool_join) is idle with the pool empty (marking is over:
 * a worker that comes later finds it over and does nothing). With one
 * worker the pool is never used. */
#include <sched.h>
#include <stdlib.h>

#include "rgc_internal.h"

#define RGC_SPIN_NS 2000000  /* a helper spins this long for a job during a GC */

/* Spin iteration i of a wait: a pause first, later a yield (more workers
 * than cores: the thread being waited for may need this core). A worker
 * that has a CPU of its own (rt->spin_own_cpu) pauses for about a
 * millisecond before it yields: on a machine busy with other programs, one
 * sched_yield hands the CPU to another program for its whole time slice
 * (milliseconds), and the next phase's job then waits for this worker. */
#define RGC_PAUSE_SPINS (1u << 15)
static void spin_once(const struct rgc_runtime *rt, unsigned i) {
  if (i < 128 || (rt->spin_own_cpu && i < RGC_PAUSE_SPINS)) __builtin_ia32_pause();
  else sched_yield();
}

static void wake_sleepers(struct rgc_runtime *rt, _Atomic int *sleepers, pthread_cond_t *cv) {
  if (atomic_load(sleepers)) {
    pthread_mutex_lock(&rt->work_lock);
    pthread_cond_broadcast(cv);
    pthread_mutex_unlock(&rt->work_lock);
  }
}

/* A helper's next job: the epoch after `seen`, or 0 when stopping. While a
 * GC runs (work_active) the helper spins for the next job, phase after
 * phase, unless it already spun RGC_SPIN_NS without one in this GC
 * (*spun_out: that GC's work_gc); then it sleeps until a job, a stop or the
 * next GC. */
static uint64_t helper_wait(struct rgc_runtime *rt, uint64_t seen, uint64_t *spun_out) {
  for (;;) {
    uint64_t e = atomic_load_explicit(&rt->work_epoch, memory_order_acquire);
    if (e != seen) return e;
    if (atomic_load(&rt->work_stop)) return 0;
    uint64_t gc = atomic_load(&rt->work_gc);
    if (gc != *spun_out && atomic_load(&rt->work_active)) {
      uint64_t t0 = rgc_now_ns();
      for (unsigned i = 0;; i++) {
        e = atomic_load_explicit(&rt->work_epoch, memory_order_acquire);
        if (e != seen) return e;
        if (!atomic_load_explicit(&rt->work_active, memory_order_relaxed)) break;
        if ((i & 63) == 63 && rgc_now_ns() - t0 > RGC_SPIN_NS) {
          *spun_out = gc;
          break;
        }
        spin_once(rt, i);
      }
      continue;
    }
    /* sleep until a job, a stop, or a GC this helper has not spun out in */
    pthread_mutex_lock(&rt->work_lock);
    atomic_fetch_add(&rt->work_sleepers, 1);
    while (atomic_load(&rt->work_epoch) == seen && !atomic_load(&rt->work_stop) &&
           !(atomic_load(&rt->work_gc) != *spun_out && atomic_load(&rt->work_active)))
      pthread_cond_wait(&rt->work_cv, &rt->work_lock);
    atomic_fetch_sub(&rt->work_sleepers, 1);
    pthread_mutex_unlock(&rt->work_lock);
  }
}

/* The CPU worker w is pinned to (the w-th CPU the process may use), false
 * when workers are left to the scheduler: one heap, RGC_GCNoAffinitize, or
 * more heaps than CPUs. */
static bool worker_cpu(struct rgc_runtime *rt, int w, cpu_set_t *one) {
  cpu_set_t allowed;
  if (rt->nheaps <= 1 || rt->cfg.no_affinitize || sched_getaffinity(0, sizeof allowed, &allowed)) return false;
  if (CPU_COUNT(&allowed) < rt->nheaps) return false;  /* more heaps than CPUs: let the scheduler place them */
  for (int cpu = 0, k = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &allowed) || k++ != w) continue;
    CPU_ZERO(one);
    CPU_SET(cpu, one);
    return true;
  }
  return false;
}

/* A worker is pinned from its creation (its thread attributes), not once it
 * first runs: a worker the scheduler has not run yet is already placed. */
int rgc_worker_thread_create(struct rgc_runtime *rt, int w, pthread_t *t, void *(*fn)(void *), void *arg) {
  pthread_attr_t a;
  if (pthread_attr_init(&a)) return -1;
  cpu_set_t one;
  if (worker_cpu(rt, w, &one)) (void)pthread_attr_setaffinity_np(&a, sizeof one, &one);  /* best effort */
  int rc = pthread_create(t, &a, fn, arg);
  pthread_attr_destroy(&a);
  return rc ? -1 : 0;
}

#define JOIN_CLOSED ((uint64_t)1 << 31)

/* Join job `epoch`: false if it is over or closed (another job may run). */
static bool join_job(struct rgc_runtime *rt, uint64_t epoch) {
  uint64_t w = atomic_load_explicit(&rt->work_join, memory_order_acquire);
  do {
    if ((w >> 32) != (epoch & 0xffffffffu) || (w & JOIN_CLOSED)) return false;
  } while (!atomic_compare_exchange_weak_explicit(&rt->work_join, &w, w + 1, memory_order_acq_rel,
                                                  memory_order_acquire));
  return true;
}

static void *worker_main(void *arg) {
  struct rgc_runtime *rt = ((void **)arg)[0];
  int w = (int)(intptr_t)((void **)arg)[1];
  free(arg);
  uint64_t seen = 0, spun_out = 0;
  for (;;) {
    seen = helper_wait(rt, seen, &spun_out);
    if (!seen) break;
    if (!join_job(rt, seen)) continue;  /* too late: the GC thread did it */
    void (*fn)(struct rgc_runtime *, int) = rt->work_fn;
    uint64_t c0 = rgc_thread_cpu_ns();
    fn(rt, w);
    atomic_fetch_add(&rt->work_cpu_ns, rgc_thread_cpu_ns() - c0);
    atomic_fetch_add(&rt->work_done, 1);
    wake_sleepers(rt, &rt->done_sleepers, &rt->work_done_cv);
  }
  return NULL;
}

int rgc_workers_start(struct rgc_runtime *rt) {
  pthread_mutex_init(&rt->work_lock, NULL);
  pthread_cond_init(&rt->work_cv, NULL);
  pthread_cond_init(&rt->work_done_cv, NULL);
  pthread_mutex_init(&rt->pool_lock, NULL);
  if (rt->nheaps <= 1) return 0;
  cpu_set_t allowed;
  rt->spin_own_cpu = !rt->cfg.no_affinitize && !sched_getaffinity(0, sizeof allowed, &allowed) &&
                     CPU_COUNT(&allowed) >= rt->nheaps;  /* as worker_cpu decides */
  rt->workers = calloc((size_t)rt->nheaps, sizeof *rt->workers);
  if (!rt->workers) return -1;
  for (int w = 1; w < rt->nheaps; w++) {
    void **arg = malloc(2 * sizeof *arg);
    if (!arg) return -1;
    arg[0] = rt;
    arg[1] = (void *)(intptr_t)w;
    if (rgc_worker_thread_create(rt, w, &rt->workers[w], worker_main, arg)) {
      free(arg);
      rt->nheaps = w;  /* stop the ones started */
      return -1;
    }
  }
  return 0;
}

void rgc_workers_stop(struct rgc_runtime *rt) {
  if (rt->workers) {
    atomic_store(&rt->work_stop, 1);
    pthread_mutex_lock(&rt->work_lock);
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
  free(rt->pool);
  free(rt->root_runs);
  free(rt->older_regions);
  free(rt->older_work);
  for (int i = 0; i < RGC_MAX_HEAPS; i++) free(rt->markers[i].ms);
}

void rgc_par_begin(struct rgc_runtime *rt) {
  if (rt->nheaps <= 1) return;
  atomic_store(&rt->work_active, 1);
  atomic_fetch_add(&rt->work_gc, 1);
  wake_sleepers(rt, &rt->work_sleepers, &rt->work_cv);
}

void rgc_par_end(struct rgc_runtime *rt) {
  if (rt->nheaps <= 1) return;
  atomic_store(&rt->work_active, 0);
}

void rgc_par_run(struct rgc_runtime *rt, void (*fn)(struct rgc_runtime *, int)) {
  if (rt->nheaps <= 1) {
    fn(rt, 0);
    return;
  }
  rt->work_fn = fn;
  atomic_store(&rt->work_done, 0);
  uint64_t epoch = atomic_load_explicit(&rt->work_epoch, memory_order_relaxed) + 1;
  atomic_store(&rt->work_join, (epoch & 0xffffffffu) << 32);
  atomic_store_explicit(&rt->work_epoch, epoch, memory_order_release);
  wake_sleepers(rt, &rt->work_sleepers, &rt->work_cv);
  fn(rt, 0);
  /* close the job: wait for the helpers that joined it */
  int helpers = (int)(atomic_fetch_or(&rt->work_join, JOIN_CLOSED) & (JOIN_CLOSED - 1));
  for (unsigned i = 0; i < 4096; i++) {
    if (atomic_load(&rt->work_done) == helpers) return;
    spin_once(rt, i);
  }
  pthread_mutex_lock(&rt->work_lock);
  atomic_fetch_add(&rt->done_sleepers, 1);
  while (atomic_load(&rt->work_done) != helpers) pthread_cond_wait(&rt->work_done_cv, &rt->work_lock);
  atomic_fetch_sub(&rt->done_sleepers, 1);
  pthread_mutex_unlock(&rt->work_lock);
}

/* rgc_par_heaps: each worker takes the next heap not taken yet. */
static void heap_job(struct rgc_runtime *rt, int w) {
  (void)w;
  for (;;) {
    int h = atomic_fetch_add_explicit(&rt->next_heap_job, 1, memory_order_relaxed);
    if (h >= rt->nheaps) return;
    rt->heap_fn(rt, h);
  }
}

void rgc_par_heaps(struct rgc_runtime *rt, void (*fn)(struct rgc_runtime *, int)) {
  if (rt->nheaps <= 1) {
    fn(rt, 0);
    return;
  }
  rt->heap_fn = fn;
  atomic_store(&rt->next_heap_job, 0);
  rgc_par_run(rt, heap_job);
}

void rgc_pool_reset(struct rgc_runtime *rt) {
  rt->pool_n = 0;
  rt->pool_idle = 0;
  atomic_store(&rt->pool_waiting, 0);
  rt->pool_nworkers = 0;
  atomic_store(&rt->pool_hint, 0);
  atomic_store(&rt->pool_done, 0);
}

void rgc_pool_give(struct rgc_runtime *rt, struct rgc_marker *m) {
  size_t give = m->n / 2;
  pthread_mutex_lock(&rt->pool_lock);
  for (size_t i = 0; i < give; i++) RGC_VEC_PUSH(rt->pool, rt->pool_n, rt->pool_cap, m->ms[i]);
  atomic_store_explicit(&rt->pool_hint, rt->pool_n, memory_order_relaxed);
  pthread_mutex_unlock(&rt->pool_lock);
  memmove(m->ms, m->ms + give, (m->n - give) * sizeof *m->ms);
  m->n -= give;
}

/* A worker starts marking: false if marking is already over (every worker
 * that joined was idle with the pool empty). */
bool rgc_pool_join(struct rgc_runtime *rt) {
  pthread_mutex_lock(&rt->pool_lock);
  bool over = atomic_load_explicit(&rt->pool_done, memory_order_relaxed);
  if (!over) rt->pool_nworkers++;
  pthread_mutex_unlock(&rt->pool_lock);
  return !over;
}

bool rgc_pool_take(struct rgc_runtime *rt, struct rgc_marker *m) {
  bool idle = false;
  for (unsigned i = 0;; i++) {
    if (atomic_load_explicit(&rt->pool_done, memory_order_acquire)) return false;
    if (!idle || atomic_load_explicit(&rt->pool_hint, memory_order_relaxed)) {
      pthread_mutex_lock(&rt->pool_lock);
      if (rt->pool_n) {
        if (idle) atomic_store_explicit(&rt->pool_waiting, --rt->pool_idle, memory_order_relaxed);
        size_t take = rt->pool_n < 64 ? rt->pool_n : 64;
        for (size_t k = 0; k < take; k++) RGC_VEC_PUSH(m->ms, m->n, m->cap, rt->pool[--rt->pool_n]);
        atomic_store_explicit(&rt->pool_hint, rt->pool_n, memory_order_relaxed);
        pthread_mutex_unlock(&rt->pool_lock);
        return true;
      }
      if (!idle) {
        idle = true;
        atomic_store_explicit(&rt->pool_waiting, ++rt->pool_idle, memory_order_relaxed);
      }
      if (rt->pool_idle == rt->pool_nworkers) {
        /* every worker idle, nothing left: marking is over */
        atomic_store_explicit(&rt->pool_done, 1, memory_order_release);
        pthread_mutex_unlock(&rt->pool_lock);
        return false;
      }
      pthread_mutex_unlock(&rt->pool_lock);
    }
    spin_once(rt, i);
  }
}
