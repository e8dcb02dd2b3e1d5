/* rgc_threads.c — attaching threads, safepoints, native regions and the
 * suspension handshake.
 *
 * Protocol: a thread is TS_COOP (may touch the heap) or TS_PREEMPT (native,
 * or parked). The GC thread sets suspend_flag under thread_lock and waits
 * until no attached thread is TS_COOP. A cooperative thread polls the flag at
 * safepoints and parks (TS_PREEMPT under thread_lock, then waits for the flag
 * to clear). Leaving native stores TS_COOP then reads the flag (both
 * seq_cst), so either the GC sees the thread cooperative and waits, or the
 * thread sees the flag and parks. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rgc_internal.h"

__thread struct rgc_thread *rgc_tls_thread;

rgc_thread *rgc_current_thread(void) { return rgc_tls_thread; }
rgc_runtime *rgc_thread_runtime(const rgc_thread *t) { return t->rt; }

rgc_thread *rgc_attach_thread(rgc_runtime *rt) {
  struct rgc_thread *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->rt = rt;
  t->suspend_flag = &rt->suspend_flag;
  t->tid = (pid_t)syscall(SYS_gettid);
  pthread_mutex_lock(&rt->thread_lock);
  t->heap = &rt->heaps[rt->next_heap++ % rt->nheaps];  /* server GC: round robin */
  while (atomic_load(&rt->suspend_flag)) pthread_cond_wait(&rt->resume_cv, &rt->thread_lock);
  atomic_store(&t->state, TS_COOP);
  t->next = rt->threads;
  rt->threads = t;
  rt->nthreads++;
  pthread_mutex_unlock(&rt->thread_lock);
  rgc_tls_thread = t;
  return t;
}

void rgc_detach_thread(rgc_thread *t) {
  struct rgc_runtime *rt = t->rt;
  if (atomic_load(&t->state) != TS_COOP) rgc_leave_native(t);
  pthread_mutex_lock(&t->heap->lock);
  rgc_retire_context(t);
  pthread_mutex_unlock(&t->heap->lock);
  pthread_mutex_lock(&rt->thread_lock);
  for (struct rgc_thread **pp = &rt->threads; *pp; pp = &(*pp)->next)
    if (*pp == t) { *pp = t->next; break; }
  rt->nthreads--;
  pthread_cond_broadcast(&rt->suspended_cv);
  pthread_mutex_unlock(&rt->thread_lock);
  if (rgc_tls_thread == t) rgc_tls_thread = NULL;
  free(t->roots);
  free(t);
}

/* Park until the running GC is over. Called by a cooperative thread. */
void rgc_park_for_gc(struct rgc_thread *t) {
  struct rgc_runtime *rt = t->rt;
  pthread_mutex_lock(&rt->thread_lock);
  atomic_store(&t->state, TS_PREEMPT);
  pthread_cond_broadcast(&rt->suspended_cv);
  while (atomic_load(&rt->suspend_flag)) pthread_cond_wait(&rt->resume_cv, &rt->thread_lock);
  atomic_store(&t->state, TS_COOP);
  pthread_mutex_unlock(&rt->thread_lock);
}

void rgc_safepoint(rgc_thread *t) {
  if (atomic_load_explicit(&t->rt->suspend_flag, memory_order_acquire)) rgc_park_for_gc(t);
}

void rgc_enter_native(rgc_thread *t) {
  struct rgc_runtime *rt = t->rt;
  atomic_store(&t->state, TS_PREEMPT);
  if (atomic_load(&rt->suspend_flag)) {
    pthread_mutex_lock(&rt->thread_lock);
    pthread_cond_broadcast(&rt->suspended_cv);
    pthread_mutex_unlock(&rt->thread_lock);
  }
}

void rgc_leave_native(rgc_thread *t) {
  struct rgc_runtime *rt = t->rt;
  atomic_store(&t->state, TS_COOP);
  if (atomic_load(&rt->suspend_flag)) rgc_park_for_gc(t);
}

/* GC thread: stop every attached thread at a safepoint. */
void rgc_suspend_all(struct rgc_runtime *rt) {
  pthread_mutex_lock(&rt->thread_lock);
  atomic_store(&rt->suspend_flag, 1);
  for (;;) {
    bool coop = false;
    for (struct rgc_thread *t = rt->threads; t; t = t->next)
      if (atomic_load(&t->state) == TS_COOP) { coop = true; break; }
    if (!coop) break;
    pthread_cond_wait(&rt->suspended_cv, &rt->thread_lock);
  }
  pthread_mutex_unlock(&rt->thread_lock);
}

void rgc_resume_all(struct rgc_runtime *rt) {
  pthread_mutex_lock(&rt->thread_lock);
  atomic_store(&rt->suspend_flag, 0);
  pthread_cond_broadcast(&rt->resume_cv);
  pthread_mutex_unlock(&rt->thread_lock);
}

/* ---- roots ---- */
size_t rgc_root_mark(rgc_thread *t) { return t->nroots; }

void rgc_root(rgc_thread *t, void **slot) {
  RGC_VEC_PUSH(t->roots, t->nroots, t->roots_cap, slot);
}

void rgc_root_release(rgc_thread *t, size_t mark) {
  if (mark <= t->nroots) t->nroots = mark;
}
