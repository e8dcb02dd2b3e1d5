/* rgc_runtime.c — runtime creation and destruction, type registration, the
 * GC thread and GC requests (allocation-triggered and induced), request
 * spans. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "rgc_internal.h"

int rgc_config_check(struct rgc_config *cfg, uint64_t *gen0_min, uint64_t *gen0_max,
                     char *err, size_t errlen);

static char *read_cmdline(void) {
  int fd = open("/proc/self/cmdline", O_RDONLY);
  if (fd < 0) return NULL;
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return NULL;
  for (ssize_t i = 0; i < n - 1; i++) if (!buf[i]) buf[i] = ' ';
  buf[n] = 0;
  return strdup(buf);
}

static void *gc_main(void *arg) {
  struct rgc_runtime *rt = arg;
  pthread_mutex_lock(&rt->req_lock);
  for (;;) {
    /* (a workstation GC may be running on the thread that asked for it) */
    while ((!rt->req_pending || rt->gc_running) && !rt->stopping)
      pthread_cond_wait(&rt->req_cv, &rt->req_lock);
    if (rt->stopping && !rt->req_pending) break;
    struct rgc_request rq = rt->req;
    rt->req_pending = false;
    rt->gc_running = true;
    pthread_mutex_unlock(&rt->req_lock);
    rgc_do_gc(rt, &rq);
    pthread_mutex_lock(&rt->req_lock);
    rt->gc_running = false;
    rt->gc_done++;
    pthread_cond_broadcast(&rt->done_cv);
  }
  pthread_mutex_unlock(&rt->req_lock);
  return NULL;
}

uint64_t rgc_gc_done(struct rgc_runtime *rt) {
  pthread_mutex_lock(&rt->req_lock);
  uint64_t d = rt->gc_done;
  pthread_mutex_unlock(&rt->req_lock);
  return d;
}

/* No attached thread but t is running managed code (the others are in
 * native, parked or asleep in a wait): a GC started now suspends at once. */
static bool others_in_native(struct rgc_runtime *rt, const struct rgc_thread *t) {
  bool quiet = true;
  pthread_mutex_lock(&rt->thread_lock);
  for (const struct rgc_thread *o = rt->threads; o && quiet; o = o->next)
    if (o != t && atomic_load(&o->state) == TS_COOP) quiet = false;
  pthread_mutex_unlock(&rt->thread_lock);
  return quiet;
}

int rgc_request_gc(struct rgc_runtime *rt, const struct rgc_request *rq, uint64_t seen) {
  struct rgc_thread *t = rgc_current_thread();
  if (t && t->rt != rt) t = NULL;
  uint64_t stk_ip[GCS_STACK_MAX_DEPTH];
  uint8_t stk_n = rgc_trace_request_stack(stk_ip);   /* for GCTriggered; 0 unless recorded */
  pthread_mutex_lock(&rt->req_lock);
  if (!rq->induced && rt->gc_done != seen) {  /* a GC finished since: just retry */
    pthread_mutex_unlock(&rt->req_lock);
    return 0;
  }
  uint64_t target;
  bool wake_workers = false;
  if (!rq->induced && (rt->req_pending || rt->gc_running)) {
    /* join the pending or running GC */
    target = rt->gc_done + (rt->gc_running ? 1 : 0) + (rt->req_pending ? 1 : 0);
    if (rt->req_pending && rq->gen > rt->req.gen) rt->req.gen = rq->gen;
  } else if (rt->req_pending) {
    /* merge an induced request into the pending one */
    if (rq->gen > rt->req.gen) rt->req.gen = rq->gen;
    rt->req.reason = rq->reason;
    if (!(rq->mode & RGC_COLLECT_NON_BLOCKING)) rt->req.mode &= ~(unsigned)RGC_COLLECT_NON_BLOCKING;
    rt->req.mode |= rq->mode & ~(unsigned)RGC_COLLECT_NON_BLOCKING;
    rt->req.induced = true;
    rt->req.stk_n = stk_n;   /* the induced request names the GC */
    if (stk_n) memcpy(rt->req.stk_ip, stk_ip, stk_n * sizeof *stk_ip);
    target = rt->gc_done + (rt->gc_running ? 2 : 1);
  } else if (t && rt->nheaps == 1 && !rt->gc_running && !rt->stopping && others_in_native(rt, t)) {
    /* Workstation GC, asked for by an attached thread with no GC running
     * and no other thread running managed code: the GC runs on this thread,
     * as CoreCLR's workstation GC runs on the thread that triggers it. It
     * finds in this CPU's caches what the thread has just allocated. Handing
     * the GC to the GC thread instead woke that thread on another CPU
     * whenever one was idle (a quiet machine), so that every GC moved the
     * young objects across cores and back: GCBench used 1.5-2x the CPU
     * time. While other threads run managed code the GC thread still runs
     * the GC: a suspension that has to wait for them is answered sooner by
     * a thread that slept (the scheduler favours it on a busy machine) than
     * by one that has been allocating (gcsim's bgc scenario, two mutators at
     * load 7, every GC on its requesting thread: 8 suspensions over 5 ms in
     * a run, none on the GC thread; docs/runtime.md, Benchmarks). Other
     * threads' requests meanwhile join this GC; an induced one from
     * elsewhere goes to the GC thread after it. */
    struct rgc_request mine = *rq;
    mine.stk_n = stk_n;
    if (stk_n) memcpy(mine.stk_ip, stk_ip, stk_n * sizeof *stk_ip);
    rt->gc_running = true;
    pthread_mutex_unlock(&rt->req_lock);
    rgc_enter_native(t);  /* the GC does not wait for this thread */
    rgc_do_gc(rt, &mine);
    pthread_mutex_lock(&rt->req_lock);
    rt->gc_running = false;
    rt->gc_done++;
    pthread_cond_broadcast(&rt->done_cv);
    if (rt->req_pending) pthread_cond_signal(&rt->req_cv);
    pthread_mutex_unlock(&rt->req_lock);
    rgc_leave_native(t);
    return 1;
  } else {
    rt->req = *rq;
    rt->req.stk_n = stk_n;
    if (stk_n) memcpy(rt->req.stk_ip, stk_ip, stk_n * sizeof *stk_ip);
    rt->req_pending = true;
    target = rt->gc_done + (rt->gc_running ? 2 : 1);
    pthread_cond_signal(&rt->req_cv);
    wake_workers = !rt->gc_running;
  }
  pthread_mutex_unlock(&rt->req_lock);
  /* server GC: the heaps' workers wake now, with the GC thread (waking a
   * sleeping thread takes long on some machines) */
  if (wake_workers) rgc_par_begin(rt);
  /* wait in "native": the GC must not wait for this thread */
  if (t) rgc_enter_native(t);
  pthread_mutex_lock(&rt->req_lock);
  while (rt->gc_done < target && !rt->stopping) pthread_cond_wait(&rt->done_cv, &rt->req_lock);
  pthread_mutex_unlock(&rt->req_lock);
  if (t) rgc_leave_native(t);
  return 1;
}

int rgc_collect(rgc_runtime *rt, int generation, unsigned mode) {
  if (generation < 0 || generation > GCS_GEN2) generation = GCS_GEN2;
  if (mode & RGC_COLLECT_OPTIMIZED) {
    bool exhausted = false;
    for (int i = 0; i < rt->nheaps; i++) {
      struct rgc_heap *h = &rt->heaps[i];
      pthread_mutex_lock(&h->lock);
      exhausted |= h->new_alloc[generation] <= 0;
      pthread_mutex_unlock(&h->lock);
    }
    if (!exhausted) return 0;
  }
  /* blocking unless asked otherwise (compacting implies blocking) */
  if ((mode & RGC_COLLECT_NON_BLOCKING) && !(mode & RGC_COLLECT_COMPACTING))
    mode &= ~(unsigned)RGC_COLLECT_BLOCKING;
  else
    mode = (mode | RGC_COLLECT_BLOCKING) & ~(unsigned)RGC_COLLECT_NON_BLOCKING;
  struct rgc_request rq = {.gen = generation, .mode = mode, .induced = true};
  rq.reason = (mode & RGC_COLLECT_COMPACTING)  ? GCS_GC_REASON_INDUCED_COMPACTING
              : (mode & RGC_COLLECT_OPTIMIZED) ? GCS_GC_REASON_INDUCED_NOT_FORCED
                                               : GCS_GC_REASON_INDUCED;
  atomic_fetch_add(&rt->client_seq, 1);
  return rgc_request_gc(rt, &rq, 0);
}

const rgc_type *rgc_register_type(rgc_runtime *rt, const struct rgc_type_desc *d) {
  if (!d || !d->name || (unsigned)d->kind > RGC_KIND_REF_ARRAY) return NULL;
  if (d->kind == RGC_KIND_OBJECT) {
    if (d->size > ((size_t)1 << 30) || (d->nrefs && !d->ref_offsets)) return NULL;
    for (size_t i = 0; i < d->nrefs; i++)
      if (d->ref_offsets[i] % 8 || d->ref_offsets[i] + 8 > d->size) return NULL;
  }
  if (d->kind == RGC_KIND_VALUE_ARRAY && !d->elem_size) return NULL;
  struct rgc_type *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->name = strdup(d->name);
  t->kind = d->kind;
  t->size = d->size;
  t->nrefs = d->kind == RGC_KIND_OBJECT ? d->nrefs : 0;
  t->elem_size = d->elem_size;
  t->finalizer = d->finalizer;
  /* small plain objects take rgc.h's inline bump-pointer path */
  if (t->kind == RGC_KIND_OBJECT && !t->finalizer) {
    size_t sz = rgc_size_for(t, 0);
    if (sz && sz < rt->cfg.loh_threshold) t->fast_size = sz;
  }
  if (t->nrefs) {
    t->ref_offsets = malloc(t->nrefs * sizeof *t->ref_offsets);
    if (t->ref_offsets) memcpy(t->ref_offsets, d->ref_offsets, t->nrefs * sizeof *t->ref_offsets);
  }
  if (!t->name || (t->nrefs && !t->ref_offsets)) {
    free(t->name); free(t->ref_offsets); free(t);
    return NULL;
  }
  pthread_mutex_lock(&rt->type_lock);
  t->next = rt->types;
  rt->types = t;
  pthread_mutex_unlock(&rt->type_lock);
  return t;
}

rgc_runtime *rgc_create(const struct rgc_config *cfg_in, char *err, size_t errlen) {
  struct rgc_config cfg;
  if (cfg_in) {
    cfg = *cfg_in;
  } else {
    rgc_config_default(&cfg);
    if (rgc_config_from_env(&cfg, err, errlen)) return NULL;
  }
  uint64_t g0min, g0max;
  if (rgc_config_check(&cfg, &g0min, &g0max, err, errlen)) return NULL;
  /* aligned: the per-heap and per-worker parts start on their own cache lines */
  struct rgc_runtime *rt = aligned_alloc(_Alignof(struct rgc_runtime), sizeof *rt);
  if (rt) memset(rt, 0, sizeof *rt);
  if (!rt) {
    if (err) snprintf(err, errlen, "out of memory");
    return NULL;
  }
  rt->cfg = cfg;
  rt->gen0_min = g0min;
  rt->gen0_max = g0max;
  if (rgc_reserve(rt, err, errlen)) {
    rgc_unreserve(rt);
    free(rt);
    return NULL;
  }
  pthread_mutex_init(&rt->region_lock, NULL);
  pthread_mutex_init(&rt->type_lock, NULL);
  pthread_mutex_init(&rt->thread_lock, NULL);
  pthread_cond_init(&rt->suspended_cv, NULL);
  pthread_cond_init(&rt->resume_cv, NULL);
  pthread_mutex_init(&rt->handle_lock, NULL);
  pthread_mutex_init(&rt->req_lock, NULL);
  pthread_cond_init(&rt->req_cv, NULL);
  pthread_cond_init(&rt->done_cv, NULL);
  pthread_mutex_init(&rt->fin_lock, NULL);
  pthread_cond_init(&rt->fin_cv, NULL);
  pthread_cond_init(&rt->fin_done_cv, NULL);
  pthread_mutex_init(&rt->info_lock, NULL);
  rt->nheaps = (int)cfg.heap_count;
  atomic_store(&rt->latency_mode, cfg.concurrent ? RGC_LATENCY_INTERACTIVE : RGC_LATENCY_BATCH);
  for (int i = 0; i < rt->nheaps; i++) {
    struct rgc_heap *h = &rt->heaps[i];
    h->index = i;
    pthread_mutex_init(&h->lock, NULL);
    h->desired[0] = h->new_alloc[0] = (int64_t)g0min;
    h->desired[1] = h->new_alloc[1] = 256 * 1024;
    h->desired[2] = h->new_alloc[2] = 256 * 1024;
    h->desired[RGC_LOH] = h->new_alloc[RGC_LOH] = 3 * 1024 * 1024;
    h->desired[RGC_POH] = h->new_alloc[RGC_POH] = 3 * 1024 * 1024;
  }
  rt->cmdline = read_cmdline();
  rt->start_ns = rgc_now_ns();
  rgc_trace_init();
  rgc_ev_runtime_info(rt);
  if (rgc_workers_start(rt) || rgc_bgc_start_thread(rt) ||
      rgc_worker_thread_create(rt, 0, &rt->gc_thread, gc_main, rt)) {
    if (err) snprintf(err, errlen, "cannot start the GC threads");
    rgc_bgc_stop_thread(rt);
    rgc_workers_stop(rt);
    rgc_unreserve(rt);
    free(rt->cmdline);
    free(rt);
    return NULL;
  }
  if (rgc_fin_start(rt)) {
    if (err) snprintf(err, errlen, "cannot start the finalizer thread");
    pthread_mutex_lock(&rt->req_lock);
    rt->stopping = true;
    pthread_cond_broadcast(&rt->req_cv);
    pthread_mutex_unlock(&rt->req_lock);
    pthread_join(rt->gc_thread, NULL);
    rgc_bgc_stop_thread(rt);
    rgc_workers_stop(rt);
    rgc_unreserve(rt);
    free(rt->cmdline);
    free(rt);
    return NULL;
  }
  return rt;
}

void rgc_destroy(rgc_runtime *rt) {
  if (!rt) return;
  rgc_fin_stop(rt);
  pthread_mutex_lock(&rt->req_lock);
  rt->stopping = true;
  pthread_cond_broadcast(&rt->req_cv);
  pthread_cond_broadcast(&rt->done_cv);
  pthread_mutex_unlock(&rt->req_lock);
  pthread_join(rt->gc_thread, NULL);
  rgc_bgc_stop_thread(rt);   /* lets a running BGC finish */
  rgc_workers_stop(rt);
  for (struct rgc_type *t = rt->types, *n; t; t = n) {
    n = t->next;
    free(t->name);
    free(t->ref_offsets);
    free(t);
  }
  for (struct rgc_handle_chunk *c = rt->handle_chunks, *n; c; c = n) {
    n = c->next;
    free(c);
  }
  for (int i = 0; i < rt->nheaps; i++) {
    free(rt->heaps[i].fin_objs);
    free(rt->heaps[i].copied);
    free(rt->heaps[i].card_snapshot);
    pthread_mutex_destroy(&rt->heaps[i].lock);
  }
  free(rt->fq);
  free(rt->pins);
  free(rt->cmdline);
  rgc_unreserve(rt);
  pthread_mutex_destroy(&rt->region_lock);
  pthread_mutex_destroy(&rt->type_lock);
  pthread_mutex_destroy(&rt->thread_lock);
  pthread_cond_destroy(&rt->suspended_cv);
  pthread_cond_destroy(&rt->resume_cv);
  pthread_mutex_destroy(&rt->handle_lock);
  pthread_mutex_destroy(&rt->req_lock);
  pthread_cond_destroy(&rt->req_cv);
  pthread_cond_destroy(&rt->done_cv);
  pthread_mutex_destroy(&rt->fin_lock);
  pthread_cond_destroy(&rt->fin_cv);
  pthread_cond_destroy(&rt->fin_done_cv);
  pthread_mutex_destroy(&rt->info_lock);
  free(rt);
}

void rgc_request_begin(rgc_runtime *rt, uint64_t id) { (void)rt; rgc_ev_request(1, id); }
void rgc_request_end(rgc_runtime *rt, uint64_t id) { (void)rt; rgc_ev_request(0, id); }

int rgc_set_latency_mode(rgc_runtime *rt, enum rgc_latency_mode mode) {
  if ((unsigned)mode > RGC_LATENCY_SUSTAINED_LOW_LATENCY) return -1;
  if (!rt->cfg.concurrent && (mode == RGC_LATENCY_INTERACTIVE || mode == RGC_LATENCY_SUSTAINED_LOW_LATENCY))
    return -1;
  atomic_store(&rt->latency_mode, (int)mode);
  return 0;
}

enum rgc_latency_mode rgc_get_latency_mode(rgc_runtime *rt) {
  return (enum rgc_latency_mode)atomic_load(&rt->latency_mode);
}
