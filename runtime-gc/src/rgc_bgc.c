/* rgc_bgc.c — background GC (BGC) of gen2, LOH and POH.
 *
 * Shape (CoreCLR's, as its GC events show it):
 *  1. First pause, on the GC thread (rgc_do_gc decided on a BGC): GCStart
 *     Type=BackgroundGC, BGCBegin. Every gen2/LOH/POH region is condemned
 *     for this BGC; their free lists are dropped (rebuilt by the sweep). The
 *     roots are traced: stack slots, the f-reachable queue, strong and
 *     pinned handles, and every old slot on a dirty card that refers to a
 *     young object. The trace goes through young objects (marked with
 *     OF_BMARK for the duration of the pause only) and shades the old
 *     objects it reaches (OF_BMARK, kept until the sweep). BGC1stNonConEnd,
 *     RestartEE.
 *  2. Concurrent marking on the BGC thread: old objects are traced through
 *     old-to-old references only. Correctness while mutators run comes from
 *     snapshot-at-the-beginning: the write barrier logs the old value of a
 *     reference slot of an old object before overwriting it (rgc_satb_log),
 *     and a weak handle read logs its target, so every old object reachable
 *     at the first pause gets marked. Old objects reachable only through a
 *     young object were shaded in the pause (all old-to-young slots are on
 *     dirty cards, whether their holder is live or not). Objects allocated or
 *     promoted into old generations during the BGC go to fresh regions that
 *     the BGC does not condemn: they are live. BGC1stConEnd.
 *  3. Second pause, on the BGC thread: SuspendEE with reason
 *     SuspendForGCPrep, BGC2ndNonConBegin, drain the SATB log, clear
 *     short weak handles, resurrect dead finalizable objects, clear long weak
 *     handles, BGC2ndNonConEnd, RestartEE.
 *  4. Concurrent sweep, region by region: dead runs become free objects (the
 *     big ones on gen2/LOH/POH free lists), marks are cleared. A BGC never
 *     compacts. BGC2ndConBegin, BGC1stSweepEnd, BGC2ndConEnd, then the
 *     histories, GCEnd, GCCpuTime and GCHeapStats.
 *
 * Foreground GCs: the GC thread may run ephemeral GCs (Type=ForegroundGC)
 * during phases 2 and 4. The BGC thread holds bgc_lock while it works and
 * gives it up at yield points (every few hundred objects, every region) when
 * the GC thread asks (bgc_yield); the GC thread holds bgc_lock for the whole
 * foreground GC, so the two never touch the heap at the same time. While a
 * BGC runs, nothing is allocated from old free lists or into condemned
 * regions (promo_alloc and alloc_big check bgc_active).
 */
#include <stdlib.h>

#include "rgc_internal.h"

/* ---- coordination with the GC thread ---- */

bool rgc_bgc_hold(struct rgc_runtime *rt) {
  if (!rt->bgc_thread_started || !atomic_load(&rt->bgc_active)) return false;
  atomic_store(&rt->bgc_yield, 1);
  pthread_mutex_lock(&rt->bgc_lock);
  if (atomic_load(&rt->bgc_active)) return true;
  atomic_store(&rt->bgc_yield, 0);
  pthread_mutex_unlock(&rt->bgc_lock);
  return false;
}

void rgc_bgc_release(struct rgc_runtime *rt) {
  atomic_store(&rt->bgc_yield, 0);
  pthread_cond_broadcast(&rt->bgc_yield_cv);
  pthread_mutex_unlock(&rt->bgc_lock);
}

/* BGC thread, holding bgc_lock: let a waiting foreground GC run. */
static void yield_point(struct rgc_runtime *rt) {
  while (atomic_load_explicit(&rt->bgc_yield, memory_order_relaxed))
    pthread_cond_wait(&rt->bgc_yield_cv, &rt->bgc_lock);
}

void rgc_bgc_wait_done(struct rgc_runtime *rt) {
  pthread_mutex_lock(&rt->bgc_mu);
  while (atomic_load(&rt->bgc_active)) pthread_cond_wait(&rt->bgc_done_cv, &rt->bgc_mu);
  pthread_mutex_unlock(&rt->bgc_mu);
}

int rgc_background_gc_in_progress(rgc_runtime *rt) { return atomic_load(&rt->bgc_active) != 0; }

void rgc_wait_background_gc(rgc_runtime *rt) {
  struct rgc_thread *t = rgc_current_thread();
  if (t && t->rt != rt) t = NULL;
  if (t) rgc_enter_native(t);
  rgc_bgc_wait_done(rt);
  if (t) rgc_leave_native(t);
}

/* ---- marking ---- */

static inline bool has_refs(const struct rgc_hdr *h) {
  const struct rgc_type *ty = (const struct rgc_type *)h->tw;
  return ty->kind == RGC_KIND_REF_ARRAY || ty->nrefs;
}

/* Shade an old object of a condemned region: mark it and queue it. Returns
 * the bytes newly marked. BGC thread (or GC thread in the first pause). */
static uint64_t shade(struct rgc_runtime *rt, void *p) {
  struct rgc_region *r = rgc_region_of(rt, p);
  if (!r || !r->bgc_condemned) return 0;
  struct rgc_hdr *h = hdr_of(p);
  if (hflags(h) & OF_BMARK) return 0;
  if (atomic_fetch_or_explicit(&h->flags, OF_BMARK, memory_order_relaxed) & OF_BMARK) return 0;
  atomic_fetch_add_explicit(&r->live_bytes, h->size, memory_order_relaxed);
  if (has_refs(h)) RGC_VEC_PUSH(rt->bgc_stack, rt->bgc_n, rt->bgc_scap, p);
  return h->size;
}

void rgc_satb_log(struct rgc_runtime *rt, void *obj) {
  pthread_mutex_lock(&rt->satb_lock);
  RGC_VEC_PUSH(rt->satb, rt->satb_n, rt->satb_cap, obj);
  pthread_mutex_unlock(&rt->satb_lock);
}

/* Trace old objects until the mark stack and the SATB log are empty.
 * Concurrent: slots are read atomically (mutators store through the
 * barrier) and foreground GCs may run at yield points. */
static void drain(struct rgc_runtime *rt, bool concurrent) {
  unsigned work = 0;
  for (;;) {
    if (!rt->bgc_n) {
      pthread_mutex_lock(&rt->satb_lock);
      size_t n = rt->satb_n;
      void **log = rt->satb;
      rt->satb = NULL;
      rt->satb_n = rt->satb_cap = 0;
      pthread_mutex_unlock(&rt->satb_lock);
      for (size_t i = 0; i < n; i++) shade(rt, log[i]);
      free(log);
      if (!rt->bgc_n) return;
    }
    void *p = rt->bgc_stack[--rt->bgc_n];
    struct rgc_hdr *h = hdr_of(p);
    RGC_FOR_EACH_SLOT(h, slot, {
      void *v = __atomic_load_n(slot, __ATOMIC_ACQUIRE);  /* pairs with the barrier */
      if (v) shade(rt, v);
    });
    if (concurrent && ++work % 256 == 0) yield_point(rt);
  }
}

/* First-pause tracing through young objects. */
struct young_trace {
  void **stack; size_t n, cap;    /* young objects to scan */
  void **all; size_t all_n, all_cap;  /* every young object marked (to unmark) */
  uint64_t bytes;
};

static void visit(struct rgc_runtime *rt, struct young_trace *y, void *p) {
  struct rgc_region *r = rgc_region_of(rt, p);
  if (!r) return;
  if (r->bgc_condemned) { y->bytes += shade(rt, p); return; }
  if (r->gen > GCS_GEN1) return;
  struct rgc_hdr *h = hdr_of(p);
  if (hflags(h) & OF_BMARK) return;
  atomic_fetch_or_explicit(&h->flags, OF_BMARK, memory_order_relaxed);
  y->bytes += h->size;
  RGC_VEC_PUSH(y->all, y->all_n, y->all_cap, p);
  if (has_refs(h)) RGC_VEC_PUSH(y->stack, y->n, y->cap, p);
}

static void visit_drain(struct rgc_runtime *rt, struct young_trace *y) {
  while (y->n) {
    struct rgc_hdr *h = hdr_of(y->stack[--y->n]);
    RGC_FOR_EACH_SLOT(h, slot, { if (*slot) visit(rt, y, *slot); });
  }
}

void rgc_bgc_pause1(struct rgc_runtime *rt, struct rgc_gc_record *rec) {
  rgc_ev_bgc(RGC_EV_BGC_BEGIN);
  uint64_t t0 = rgc_now_ns();
  rt->bgc_nregions = 0;
  rt->bgc_n = 0;
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *h = &rt->heaps[hi];
    for (int g = GCS_GEN2; g < RGC_NGEN; g++) {
      for (struct rgc_region *r = h->gens[g]; r; r = r->next) {
        r->bgc_condemned = true;
        r->live_bytes = 0;
        r->fo_bytes += r->fl_bytes;  /* listed items become plain free space */
        r->fl_bytes = 0;
        RGC_VEC_PUSH(rt->bgc_regions, rt->bgc_nregions, rt->bgc_cap, r);
      }
      rgc_free_lists_drop_region_gen(h, g);
      h->alloc_region[g] = NULL;
    }
  }

  struct young_trace y = {0};
  uint64_t *mb = rec->heap[0].mark_bytes;
  /* Stack */
  for (struct rgc_thread *t = rt->threads; t; t = t->next)
    for (size_t i = 0; i < t->nroots; i++)
      if (*t->roots[i]) { visit(rt, &y, *t->roots[i]); visit_drain(rt, &y); }
  mb[GCS_ROOT_KIND_STACK] = y.bytes;
  /* Finalizer queue */
  y.bytes = 0;
  pthread_mutex_lock(&rt->fin_lock);
  for (size_t i = 0; i < rt->fq_n; i++) {
    visit(rt, &y, rt->fq[(rt->fq_head + i) % rt->fq_cap]);
    visit_drain(rt, &y);
  }
  pthread_mutex_unlock(&rt->fin_lock);
  mb[GCS_ROOT_KIND_FINALIZER] = y.bytes;
  /* Strong and pinned handles */
  y.bytes = 0;
  for (struct rgc_handle_chunk *c = rt->handle_chunks; c; c = c->next)
    for (int i = 0; i < RGC_HANDLE_CHUNK; i++) {
      struct rgc_handle_slot *s = &c->slots[i];
      void *o = atomic_load_explicit(&s->obj, memory_order_relaxed);
      if (!s->in_use || !o || (s->kind != RGC_HANDLE_STRONG && s->kind != RGC_HANDLE_PINNED)) continue;
      visit(rt, &y, o);
      visit_drain(rt, &y);
    }
  mb[GCS_ROOT_KIND_HANDLE] = y.bytes;
  /* Old-to-young references (dirty cards), whether their holder lives or not */
  y.bytes = 0;
  for (size_t k = 0; k < rt->bgc_nregions; k++) {
    struct rgc_region *r = rt->bgc_regions[k];
    RGC_FOR_EACH_OBJECT(r, h) {
      if (hflags(h) & OF_FREE) continue;
      RGC_FOR_EACH_SLOT(h, slot, {
        void *v = *slot;
        if (v && rgc_card_get(rt, slot)) {
          struct rgc_region *tr = rgc_region_of(rt, v);
          if (tr && tr->gen <= GCS_GEN1 && !tr->bgc_condemned) { visit(rt, &y, v); visit_drain(rt, &y); }
        }
      });
    }
  }
  mb[GCS_ROOT_KIND_OLDER] = y.bytes;
  for (size_t i = 0; i < y.all_n; i++)
    atomic_fetch_and_explicit(&hdr_of(y.all[i])->flags, ~OF_BMARK, memory_order_relaxed);
  free(y.stack);
  free(y.all);
  for (int i = 0; i < RGC_MARK_KINDS; i++) {
    rec->mark_bytes[i] = mb[i];
    rgc_ev_mark(0, (uint32_t)i, mb[i]);
  }
  atomic_store(&rt->bgc_phase, RGC_BGC_MARKING);
  atomic_store(&rt->bgc_active, 1);
  rec->phase_us[RGC_PHASE_MARK] = (rgc_now_ns() - t0) / 1000;
  rgc_ev_bgc(RGC_EV_BGC_1ST_NONCON_END);
}

void rgc_bgc_launch(struct rgc_runtime *rt) {
  pthread_mutex_lock(&rt->bgc_mu);
  rt->bgc_pending = true;
  pthread_cond_signal(&rt->bgc_cv);
  pthread_mutex_unlock(&rt->bgc_mu);
}

/* ---- second pause: weak handles and finalization ---- */

static bool bgc_dead(struct rgc_runtime *rt, void *p) {
  struct rgc_region *r = rgc_region_of(rt, p);
  return r && r->bgc_condemned && !(hflags(hdr_of(p)) & OF_BMARK);
}

static void clear_weak(struct rgc_runtime *rt, uint32_t kind) {
  for (struct rgc_handle_chunk *c = rt->handle_chunks; c; c = c->next)
    for (int i = 0; i < RGC_HANDLE_CHUNK; i++) {
      struct rgc_handle_slot *s = &c->slots[i];
      void *o = atomic_load_explicit(&s->obj, memory_order_relaxed);
      if (s->in_use && s->kind == kind && o && bgc_dead(rt, o))
        atomic_store_explicit(&s->obj, NULL, memory_order_relaxed);
    }
}

/* Marking is final: an unmarked condemned object is dead, and so is any
 * object that still refers to one. Dead objects outside the condemned
 * regions (young ones, or old ones promoted or allocated during this BGC)
 * can outlive it: ephemeral GCs keep whatever dirty cards of dead old objects
 * reach. Their references to objects this BGC frees are cleared so that no
 * heap slot ever points at freed memory. */
static void clear_dangling(struct rgc_runtime *rt) {
  for (struct rgc_thread *t = rt->threads; t; t = t->next) rgc_retire_context(t);
  for (int hi = 0; hi < rt->nheaps; hi++)
    for (int g = 0; g < RGC_NGEN; g++)
      for (struct rgc_region *r = rt->heaps[hi].gens[g]; r; r = r->next) {
        if (r->bgc_condemned) continue;
        RGC_FOR_EACH_OBJECT(r, h) {
          if (hflags(h) & OF_FREE) continue;
          RGC_FOR_EACH_SLOT(h, slot, {
            void *v = *slot;
            if (v && bgc_dead(rt, v)) __atomic_store_n(slot, NULL, __ATOMIC_RELAXED);
          });
        }
      }
}

static void pause2_work(struct rgc_runtime *rt, struct rgc_gc_record *rec) {
  drain(rt, false);
  clear_weak(rt, RGC_HANDLE_WEAK_SHORT);
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *hp = &rt->heaps[hi];
    size_t k = 0;
    for (size_t i = 0; i < hp->fin_n; i++) {
      void *o = hp->fin_objs[i];
      if (!bgc_dead(rt, o)) { hp->fin_objs[k++] = o; continue; }
      struct rgc_hdr *h = hdr_of(o);
      atomic_fetch_and_explicit(&h->flags, ~OF_FINAL, memory_order_relaxed);
      if (hflags(h) & OF_SUPPRESS) continue;
      uint64_t b = shade(rt, o);
      drain(rt, false);
      rec->fin_promoted_count++;
      rec->fin_promoted_bytes += b;
      rgc_fq_push(rt, o);
    }
    hp->fin_n = k;
  }
  clear_weak(rt, RGC_HANDLE_WEAK_LONG);
  clear_dangling(rt);
}

/* ---- concurrent sweep ---- */

/* Sweep one condemned region under its heap's lock. Returns true if nothing
 * in it survived (released at the end of the sweep, not now: dead objects
 * of regions not swept yet may still point into it). */
static bool sweep_region(struct rgc_runtime *rt, struct rgc_gc_record *rec, struct rgc_region *r) {
  /* (regions are swept whole under the heap lock: a foreground GC or a heap
   * dump never sees one half swept) */
  struct rgc_heap *h = &rt->heaps[r->heap];
  pthread_mutex_lock(&h->lock);
  r->fl_bytes = r->fo_bytes = 0;
  uint8_t *run = NULL;
  uint64_t live = 0;
  RGC_FOR_EACH_OBJECT(r, o) {
    uint8_t *p = (uint8_t *)o;
    uint32_t f = hflags(o);
    if (!(f & OF_FREE) && (f & OF_BMARK)) {
      if (run) { rgc_make_free(rt, h, r, run, (size_t)(p - run), true); run = NULL; }
      atomic_fetch_and_explicit(&o->flags, ~OF_BMARK, memory_order_relaxed);
      live += o->size;
    } else if (!run) {
      run = p;
    }
  }
  if (run) r->top = run;  /* a dead tail goes back to the region end */
  rec->heap[r->heap].surv[r->gen] += live;
  r->bgc_condemned = false;
  pthread_mutex_unlock(&h->lock);
  return live == 0;
}

/* An empty region (top == start: no free-list items in it) leaves its heap. */
static void release_empty(struct rgc_runtime *rt, struct rgc_region *r) {
  struct rgc_heap *h = &rt->heaps[r->heap];
  pthread_mutex_lock(&h->lock);
  for (struct rgc_region **pp = &h->gens[r->gen]; *pp; pp = &(*pp)->next)
    if (*pp == r) { *pp = r->next; break; }
  for (int g = 0; g < RGC_NGEN; g++)
    if (h->alloc_region[g] == r) h->alloc_region[g] = NULL;
  rgc_region_release(rt, r);
  pthread_mutex_unlock(&h->lock);
}

static void run_bgc(struct rgc_runtime *rt) {
  struct rgc_gc_record *rec = &rt->bgc_rec;
  uint64_t cpu0 = rgc_thread_cpu_ns();
  pthread_mutex_lock(&rt->bgc_lock);
  uint64_t t0 = rgc_now_ns();
  drain(rt, true);
  rgc_ev_bgc(RGC_EV_BGC_1ST_CON_END);

  /* second pause */
  uint64_t tp = rgc_now_ns();
  rgc_ev_suspend_begin(rec->index, GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP);
  rgc_suspend_all(rt);
  rgc_ev_suspend_end();
  rgc_ev_bgc(RGC_EV_BGC_2ND_NONCON_BEGIN);
  rgc_lock_heaps(rt);
  pause2_work(rt, rec);
  atomic_store(&rt->bgc_phase, RGC_BGC_SWEEPING);
  rgc_unlock_heaps(rt);
  rgc_ev_bgc(RGC_EV_BGC_2ND_NONCON_END);
  pthread_mutex_lock(&rt->fin_lock);
  if (rt->fq_n) pthread_cond_broadcast(&rt->fin_cv);
  pthread_mutex_unlock(&rt->fin_lock);
  rgc_ev_restart_begin();
  rgc_resume_all(rt);
  rgc_ev_restart_end();
  uint64_t t1 = rgc_now_ns();
  rec->pause2_ns = t1 - tp;

  /* concurrent sweep */
  rgc_ev_bgc(RGC_EV_BGC_2ND_CON_BEGIN);
  struct rgc_region **empty = NULL;
  size_t nempty = 0, cap = 0;
  for (size_t k = 0; k < rt->bgc_nregions; k++) {
    struct rgc_region *r = rt->bgc_regions[k];
    if (sweep_region(rt, rec, r)) RGC_VEC_PUSH(empty, nempty, cap, r);
    yield_point(rt);
  }
  rgc_ev_bgc(RGC_EV_BGC_1ST_SWEEP_END);
  for (size_t k = 0; k < nempty; k++) release_empty(rt, empty[k]);
  free(empty);
  rt->bgc_nregions = 0;
  rgc_ev_bgc(RGC_EV_BGC_2ND_CON_END);
  uint64_t t2 = rgc_now_ns();

  /* the end: sizes, budgets, events, memory info */
  rgc_lock_heaps(rt);
  for (int hi = 0; hi < rec->nheaps; hi++)
    for (int g = 0; g < RGC_NGEN; g++) rec->surv[g] += rec->heap[hi].surv[g];
  rgc_gen_stats(rt, rec, 1);
  rgc_set_budgets(rt, rec, GCS_GEN2, true);
  rec->phase_us[RGC_PHASE_MARK] += (tp - t0) / 1000;
  rec->phase_us[RGC_PHASE_RELOCATE] = (t1 - tp) / 1000;
  rec->phase_us[RGC_PHASE_SWEEP] = (t2 - t1) / 1000;
  rec->mem_load_pct = rgc_memory_load_percent(rt, &rec->mem_total_avail);
  rgc_ev_history(rt, rec);
  rgc_ev_gc_end(rec->index, GCS_GEN2);
  for (int g = 0; g <= GCS_GEN2; g++) atomic_fetch_add(&rt->counts[g], 1);
  atomic_store(&rt->bgc_phase, RGC_BGC_IDLE);
  rgc_unlock_heaps(rt);
  rec->cpu_ns = rgc_thread_cpu_ns() - cpu0 + rt->bgc_cpu_pause1;
  rgc_ev_cpu(rec->index, rec->cpu_ns);
  rgc_ev_heap_stats(rt, rec);
  rgc_record_info(rt, rec);

  pthread_mutex_lock(&rt->bgc_mu);
  atomic_store(&rt->bgc_active, 0);
  pthread_cond_broadcast(&rt->bgc_done_cv);
  pthread_mutex_unlock(&rt->bgc_mu);
  pthread_mutex_unlock(&rt->bgc_lock);
}

static void *bgc_main(void *arg) {
  struct rgc_runtime *rt = arg;
  pthread_mutex_lock(&rt->bgc_mu);
  for (;;) {
    while (!rt->bgc_pending && !rt->bgc_stop) pthread_cond_wait(&rt->bgc_cv, &rt->bgc_mu);
    if (!rt->bgc_pending) break;
    rt->bgc_pending = false;
    pthread_mutex_unlock(&rt->bgc_mu);
    run_bgc(rt);
    pthread_mutex_lock(&rt->bgc_mu);
  }
  pthread_mutex_unlock(&rt->bgc_mu);
  return NULL;
}

int rgc_bgc_start_thread(struct rgc_runtime *rt) {
  pthread_mutex_init(&rt->bgc_lock, NULL);
  pthread_cond_init(&rt->bgc_yield_cv, NULL);
  pthread_mutex_init(&rt->bgc_mu, NULL);
  pthread_cond_init(&rt->bgc_cv, NULL);
  pthread_cond_init(&rt->bgc_done_cv, NULL);
  pthread_mutex_init(&rt->satb_lock, NULL);
  if (!rt->cfg.concurrent) return 0;
  if (pthread_create(&rt->bgc_thread, NULL, bgc_main, rt)) return -1;
  rt->bgc_thread_started = true;
  return 0;
}

void rgc_bgc_stop_thread(struct rgc_runtime *rt) {
  if (rt->bgc_thread_started) {
    pthread_mutex_lock(&rt->bgc_mu);
    rt->bgc_stop = true;
    pthread_cond_broadcast(&rt->bgc_cv);
    pthread_mutex_unlock(&rt->bgc_mu);
    pthread_join(rt->bgc_thread, NULL);
    rt->bgc_thread_started = false;
  }
  pthread_mutex_destroy(&rt->bgc_lock);
  pthread_cond_destroy(&rt->bgc_yield_cv);
  pthread_mutex_destroy(&rt->bgc_mu);
  pthread_cond_destroy(&rt->bgc_cv);
  pthread_cond_destroy(&rt->bgc_done_cv);
  pthread_mutex_destroy(&rt->satb_lock);
  free(rt->bgc_regions);
  free(rt->bgc_stack);
  free(rt->satb);
}
