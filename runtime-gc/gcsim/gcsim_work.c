/* gcsim_work.c — gcsim's mutator threads.
 *
 * Each worker allocates objects whose kind follows byte shares (LOH, POH,
 * small objects of which a fraction is finalizable) and keeps a fraction of
 * them in its survivor ring: reference arrays of --ring-chunk slots under a
 * top array held by a strong handle (small arrays by default, which age
 * through the generations like the survivors they hold; a chunk over the LOH
 * threshold makes an old LOH array point at young objects), where the N-th next survivor replaces the
 * oldest (--lifetime N), or, for
 * "forever", a chain of arrays that only grows. Pinned survivors are also
 * held by a pinned handle while they live. In request mode the allocations
 * are grouped into requests (rgc_request_begin/end) whose own survivors stay
 * live until the request ends.
 *
 * The "slow" thread reproduces a long suspension: it stays cooperative and
 * runs without reaching a safepoint for --slow-ms, so any GC requested
 * meanwhile waits for it in SuspendEE. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcsim.h"

#define FOREVER_CHUNK 1024   /* slots per array of a "forever" chain; slot 0 links */
#define FLUSH_BYTES (256u * 1024)
#define REQ_MAX_SLOTS 4096

static struct gcsim_run *g_run;          /* for the finalizer callback */
static pthread_t g_threads[GCSIM_MAX_THREADS + 1];
static unsigned g_nthreads;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: deterministic per thread given --seed */
static uint64_t rnd(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Dull;
}
static double rnd01(uint64_t *s) { return (double)(rnd(s) >> 11) / 9007199254740992.0; }
static size_t rnd_range(uint64_t *s, size_t lo, size_t hi) {
  return lo + (size_t)(rnd(s) % (uint64_t)(hi - lo + 1));
}

static void on_finalize(rgc_thread *t, void *obj) {
  (void)t, (void)obj;
  atomic_fetch_add_explicit(&g_run->finalized, 1, memory_order_relaxed);
}

int gcsim_register_types(struct gcsim_run *run, char *err, size_t errlen) {
  g_run = run;
  run->bytes_t = rgc_register_type(run->rt, &(struct rgc_type_desc){
    .name = "GCSim.Bytes", .kind = RGC_KIND_VALUE_ARRAY, .elem_size = 1});
  run->refs_t = rgc_register_type(run->rt, &(struct rgc_type_desc){
    .name = "GCSim.Refs", .kind = RGC_KIND_REF_ARRAY});
  run->fin_t = rgc_register_type(run->rt, &(struct rgc_type_desc){
    .name = "GCSim.Finalizable", .kind = RGC_KIND_OBJECT, .size = 48, .finalizer = on_finalize});
  if (!run->bytes_t || !run->refs_t || !run->fin_t) {
    snprintf(err, errlen, "cannot register gcsim's types");
    return -1;
  }
  return 0;
}

struct worker {
  struct gcsim_run *run;
  const struct gcsim_opts *o;
  rgc_thread *t;
  uint64_t seed;
  rgc_handle ring;              /* strong handle: ring array, or head of the forever chain */
  rgc_handle *pins;             /* ring mode: pinned handle per slot (NULL = none) */
  rgc_handle *forever_pins;     /* forever mode: every pinned handle made */
  size_t npins, cap_pins;
  uint64_t pos;
  uint64_t soh, loh, poh;       /* bytes by heap, this thread */
  uint64_t unflushed;
};

static void flush(struct worker *w) {
  struct gcsim_run *run = w->run;
  atomic_fetch_add_explicit(&run->allocated, w->unflushed, memory_order_relaxed);
  w->unflushed = 0;
  if (w->o->alloc_mb > 0 &&
      (double)atomic_load_explicit(&run->allocated, memory_order_relaxed) >= w->o->alloc_mb * 1e6)
    atomic_store(&run->stop, 1);
}

static int pin(struct worker *w, void *obj, rgc_handle *slot) {
  rgc_handle h = rgc_handle_new(w->t, obj, RGC_HANDLE_PINNED);
  if (!h) return -1;
  atomic_fetch_add_explicit(&w->run->pinned_handles, 1, memory_order_relaxed);
  if (slot) { *slot = h; return 0; }
  if (w->npins == w->cap_pins) {
    size_t nc = w->cap_pins ? w->cap_pins * 2 : 256;
    rgc_handle *np = realloc(w->forever_pins, nc * sizeof *np);
    if (!np) { rgc_handle_free(w->t, h); return -1; }
    w->forever_pins = np, w->cap_pins = nc;
  }
  w->forever_pins[w->npins++] = h;
  return 0;
}

/* Keep obj (valid: no safepoint since it was allocated) as a survivor. */
static int keep(struct worker *w, void *obj) {
  int pinned = w->o->pin_fraction > 0 && rnd01(&w->seed) < w->o->pin_fraction;
  if (w->o->lifetime) {
    size_t i = (size_t)(w->pos++ % w->o->lifetime);
    if (w->pins && w->pins[i]) { rgc_handle_free(w->t, w->pins[i]); w->pins[i] = NULL; }
    size_t chunk = (size_t)w->o->ring_chunk;
    rgc_array_set(rgc_array_get(rgc_handle_get(w->ring), i / chunk), i % chunk, obj);
    return pinned ? pin(w, obj, &w->pins[i]) : 0;
  }
  if (w->pos == FOREVER_CHUNK) {
    /* a new chain link: allocating is a safepoint, so obj must be rooted */
    size_t m = rgc_root_mark(w->t);
    rgc_root(w->t, &obj);
    void *chunk = rgc_alloc_array(w->t, w->run->refs_t, FOREVER_CHUNK);
    rgc_root_release(w->t, m);
    if (!chunk) return -1;
    rgc_array_set(chunk, 0, rgc_handle_get(w->ring));
    rgc_handle_set(w->ring, chunk);
    w->pos = 1;
  }
  rgc_array_set(rgc_handle_get(w->ring), (size_t)w->pos++, obj);
  return pinned ? pin(w, obj, NULL) : 0;
}

/* Allocate one object by the byte shares. Returns it (unrooted) or NULL. */
static void *alloc_one(struct worker *w) {
  const struct gcsim_opts *o = w->o;
  struct gcsim_run *run = w->run;
  double total = (double)(w->soh + w->loh + w->poh);
  void *obj;
  uint64_t *acc;
  if (o->loh_fraction > 0 && (double)w->loh < o->loh_fraction * total) {
    obj = rgc_alloc_array(w->t, run->bytes_t, rnd_range(&w->seed, o->loh_size_min, o->loh_size_max));
    acc = &w->loh;
  } else if (o->poh_fraction > 0 && (double)w->poh < o->poh_fraction * total) {
    obj = rgc_alloc_pinned(w->t, run->bytes_t, rnd_range(&w->seed, o->poh_size_min, o->poh_size_max));
    acc = &w->poh;
  } else if (o->finalizable_fraction > 0 && rnd01(&w->seed) < o->finalizable_fraction) {
    obj = rgc_alloc(w->t, run->fin_t);
    if (obj) atomic_fetch_add_explicit(&run->fin_created, 1, memory_order_relaxed);
    acc = &w->soh;
  } else {
    obj = rgc_alloc_array(w->t, run->bytes_t, rnd_range(&w->seed, o->size_min, o->size_max));
    acc = &w->soh;
  }
  if (!obj) return NULL;
  size_t sz = rgc_object_size(obj);
  /* an object big enough for the LOH counts as LOH whatever was asked */
  if (acc == &w->soh && sz >= run->loh_threshold) acc = &w->loh;
  *acc += sz;
  w->unflushed += sz;
  if (w->unflushed >= FLUSH_BYTES) flush(w);
  if (o->survival > 0 && rnd01(&w->seed) < o->survival && keep(w, obj)) return NULL;
  return obj;
}

static int run_request(struct worker *w) {
  const struct gcsim_opts *o = w->o;
  struct gcsim_run *run = w->run;
  uint64_t id = atomic_fetch_add(&run->next_request_id, 1);
  double budget = o->request_kb * 1000.0;
  double avg = (double)(o->size_min + o->size_max) / 2.0 + 16;
  size_t slots = (size_t)(budget / avg * o->request_survival) + 1;
  if (slots > REQ_MAX_SLOTS) slots = REQ_MAX_SLOTS;
  rgc_request_begin(run->rt, id);
  size_t m = rgc_root_mark(w->t);
  void *live = rgc_alloc_array(w->t, run->refs_t, slots);
  rgc_root(w->t, &live);
  uint64_t start = w->soh + w->loh + w->poh, k = 0;
  int ok = live != NULL;
  while (ok && (double)(w->soh + w->loh + w->poh - start) < budget) {
    void *obj = alloc_one(w);
    if (!obj) { ok = 0; break; }
    if (o->request_survival > 0 && rnd01(&w->seed) < o->request_survival)
      rgc_array_set(live, (size_t)(k++ % slots), obj);
  }
  rgc_root_release(w->t, m);
  rgc_request_end(run->rt, id);
  if (ok) atomic_fetch_add_explicit(&run->requests, 1, memory_order_relaxed);
  return ok ? 0 : -1;
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  struct gcsim_run *run = w->run;
  const struct gcsim_opts *o = w->o;
  w->t = rgc_attach_thread(run->rt);
  int ok = w->t != NULL;
  if (ok) {
    size_t n = o->lifetime ? (size_t)o->lifetime : FOREVER_CHUNK;
    size_t per = (size_t)o->ring_chunk;
    size_t nchunks = o->lifetime ? (n + per - 1) / per : 0;
    void *top = rgc_alloc_array(w->t, run->refs_t, o->lifetime ? nchunks : FOREVER_CHUNK);
    w->ring = top ? rgc_handle_new(w->t, top, RGC_HANDLE_STRONG) : NULL;
    ok = w->ring != NULL;
    for (size_t c = 0; ok && c < nchunks; c++) {
      size_t len = c + 1 < nchunks ? per : n - c * per;
      void *chunk = rgc_alloc_array(w->t, run->refs_t, len);   /* a safepoint: top may move */
      if (chunk) rgc_array_set(rgc_handle_get(w->ring), c, chunk);
      ok = chunk != NULL;
    }
    w->pos = o->lifetime ? 0 : 1;
    if (ok && o->lifetime && o->pin_fraction > 0) {
      w->pins = calloc(n, sizeof *w->pins);
      ok = w->pins != NULL;
    }
  }
  while (ok && !atomic_load_explicit(&run->stop, memory_order_relaxed)) {
    if (o->requests) ok = run_request(w) == 0;
    else ok = alloc_one(w) != NULL;
  }
  if (!ok) {
    atomic_store(&run->failed, 1);
    atomic_store(&run->stop, 1);
  }
  if (w->t) {
    flush(w);
    atomic_fetch_add(&run->soh_bytes, w->soh);
    atomic_fetch_add(&run->loh_bytes, w->loh);
    atomic_fetch_add(&run->poh_bytes, w->poh);
    if (w->pins)
      for (uint64_t i = 0; i < o->lifetime; i++)
        if (w->pins[i]) rgc_handle_free(w->t, w->pins[i]);
    for (size_t i = 0; i < w->npins; i++) rgc_handle_free(w->t, w->forever_pins[i]);
    if (w->ring) rgc_handle_free(w->t, w->ring);
    rgc_detach_thread(w->t);
  }
  free(w->pins);
  free(w->forever_pins);
  free(w);
  return NULL;
}

/* Sleep in native (not holding up GCs) until deadline or stop. */
static void native_sleep_until(struct gcsim_run *run, rgc_thread *t, uint64_t deadline) {
  rgc_enter_native(t);
  for (uint64_t now; !atomic_load(&run->stop) && (now = now_ns()) < deadline;) {
    uint64_t left = deadline - now;
    if (left > 5000000) left = 5000000;
    nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = (long)left}, NULL);
  }
  rgc_leave_native(t);
}

static void *slow_main(void *arg) {
  struct gcsim_run *run = arg;
  const struct gcsim_opts *o = run->o;
  rgc_thread *t = rgc_attach_thread(run->rt);
  if (!t) { atomic_store(&run->failed, 1); atomic_store(&run->stop, 1); return NULL; }
  uint64_t period = (uint64_t)o->slow_every_ms * 1000000u, spin = (uint64_t)o->slow_ms * 1000000u;
  uint64_t next = now_ns() + period - spin;
  while (!atomic_load(&run->stop)) {
    native_sleep_until(run, t, next);
    if (atomic_load(&run->stop)) break;
    struct rgc_memory_info mi;
    rgc_get_memory_info(run->rt, RGC_GC_KIND_ANY, &mi);
    uint64_t idx0 = mi.index, end = now_ns() + spin;
    /* "managed code" with no safepoint: every GC asked for meanwhile waits */
    while (now_ns() < end) {
      for (volatile int k = 0; k < 1000; k++) {}
    }
    rgc_safepoint(t);
    atomic_fetch_add(&run->slow_spins, 1);
    /* No GC can end while this thread spins in cooperative mode, so the
     * first GC to end after idx0 is the one held up (if one was asked for
     * meanwhile): it records its info just after restarting the threads.
     * Wait for it until the next spin is due (at least 50 ms; once the run
     * stops, 50 ms more) and keep its pause. A fixed 50 ms watch missed it
     * on a loaded machine, where the GC thread may not run again that soon. */
    rgc_enter_native(t);
    uint64_t watch_end = next + period, t0 = now_ns();
    if (watch_end < t0 + 50000000u) watch_end = t0 + 50000000u;
    for (uint64_t tn; (tn = now_ns()) < watch_end;) {
      if (atomic_load(&run->stop) && watch_end > tn + 50000000u) watch_end = tn + 50000000u;
      rgc_get_memory_info(run->rt, RGC_GC_KIND_ANY, &mi);
      if (mi.index != idx0) {
        uint64_t cur = atomic_load(&run->slow_max_pause_ns);
        if (mi.pause_durations_ns[0] > cur) atomic_store(&run->slow_max_pause_ns, mi.pause_durations_ns[0]);
        break;
      }
      sched_yield();
    }
    rgc_leave_native(t);
    next += period;
  }
  rgc_detach_thread(t);
  return NULL;
}

int gcsim_start(struct gcsim_run *run, char *err, size_t errlen) {
  const struct gcsim_opts *o = run->o;
  g_nthreads = 0;
  for (unsigned i = 0; i < o->threads; i++) {
    struct worker *w = calloc(1, sizeof *w);
    if (!w) goto fail;
    w->run = run, w->o = o;
    w->seed = (o->seed + 1) * 0x9E3779B97F4A7C15ull + (uint64_t)i * 0xBF58476D1CE4E5B9ull;
    if (!w->seed) w->seed = 1;
    if (pthread_create(&g_threads[g_nthreads], NULL, worker_main, w)) { free(w); goto fail; }
    g_nthreads++;
  }
  if (o->slow_ms) {
    if (pthread_create(&g_threads[g_nthreads], NULL, slow_main, run)) goto fail;
    g_nthreads++;
  }
  return 0;
fail:
  snprintf(err, errlen, "cannot start thread %u", g_nthreads);
  gcsim_join(run);
  return -1;
}

void gcsim_join(struct gcsim_run *run) {
  atomic_store(&run->stop, 1);
  for (unsigned i = 0; i < g_nthreads; i++) pthread_join(g_threads[i], NULL);
  g_nthreads = 0;
}

void gcsim_fin_probe_run(struct gcsim_run *run, struct gcsim_fin_probe *p) {
  memset(p, 0, sizeof *p);
  rgc_thread *t = rgc_attach_thread(run->rt);
  if (!t) return;
  void *obj = rgc_alloc(t, run->fin_t);
  if (!obj) { rgc_detach_thread(t); return; }
  atomic_fetch_add(&run->fin_created, 1);
  rgc_handle hs = rgc_handle_new(t, obj, RGC_HANDLE_WEAK_SHORT);
  rgc_handle hl = rgc_handle_new(t, obj, RGC_HANDLE_WEAK_LONG);
  obj = NULL;
  uint64_t fin0 = atomic_load(&run->finalized);
  /* rgc_collect blocks on the GC: stand aside (native) so it can suspend us */
  rgc_enter_native(t);
  rgc_collect(run->rt, 0, RGC_COLLECT_FORCED | RGC_COLLECT_BLOCKING);
  rgc_leave_native(t);
  p->ran = 1;
  p->short_cleared_gc1 = rgc_handle_get(hs) == NULL;
  void *o1 = rgc_handle_get(hl);
  p->long_alive_gc1 = o1 != NULL;
  p->gen_after_gc1 = o1 ? rgc_generation_of(o1) : -1;
  rgc_wait_for_pending_finalizers(run->rt);
  p->finalized_before_gc2 = atomic_load(&run->finalized) > fin0;
  rgc_enter_native(t);
  rgc_collect(run->rt, 1, RGC_COLLECT_FORCED | RGC_COLLECT_BLOCKING);
  rgc_leave_native(t);
  p->long_cleared_gc2 = rgc_handle_get(hl) == NULL;
  rgc_handle_free(t, hs);
  rgc_handle_free(t, hl);
  rgc_detach_thread(t);
}
