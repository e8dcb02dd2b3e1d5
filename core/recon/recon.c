/*
 * recon.c — the GC reconstruction state machine: the GC event handlers of
 * PerfView's TraceEvent (TraceManagedProcess.cs), one state per (pid,
 * ClrInstanceID).
 *
 * Departures from PerfView, all to avoid guessing:
 *  - a GCStart without the suspension before it (trace began inside the GC,
 *    or events missing) is kept as an incomplete GC instead of being dropped,
 *    so its GCEnd/GCHeapStats cannot be attributed to a running BGC;
 *  - a GCEnd whose Count names another GC goes to that GC (or nowhere);
 *  - a GC whose events may lie where events were lost (gcs_recon_lost's
 *    window) is never complete, even one that completed before the loss
 *    was reported;
 *    nor is one with a GCPerHeapHistory whose sizes no heap can have (that
 *    record is dropped: its sums would overflow);
 *  - server GC is also recognised from the start-up flags / heap count, so
 *    server BGC history events arriving after GCHeapStats are kept;
 *  - a BGC's initial pause (bgc_pause1) ends at the first RestartEEEnd even
 *    when an ephemeral GC ran at the BGC start (PerfView's combined pause keeps
 *    its own rule).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recon_internal.h"

/* ---- allocation helpers ------------------------------------------------- */

static int grow(void **arr, int *cap, int need, size_t elem) {
  if (need <= *cap) return 0;
  int nc = *cap ? *cap * 2 : 8;
  while (nc < need) nc *= 2;
  void *p = realloc(*arr, (size_t)nc * elem);
  if (!p) return -1;
  *arr = p;
  *cap = nc;
  return 0;
}

struct gcs_recon *gcs_recon_new(const struct gcs_recon_callbacks *cb, void *ud) {
  struct gcs_recon *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  if (cb) r->cb = *cb;
  r->ud = ud;
  r->lost_horizon = UINT64_MAX;
  return r;
}

void gcs_recon_set_time_origin(struct gcs_recon *r, uint64_t ts_ns) {
  r->origin = ts_ns;
  r->has_origin = 1;
}

static void free_gc(struct recon_gc *gc) {
  free(gc->g.heaps);
  free(gc->own_heaps);
  free(gc->g.loh_waits);
  free(gc->g.dyn_events);
  free(gc->pin_ids);
  free(gc->pin_sizes);
  free(gc->mark_ms);
  free(gc->mark_bytes);
  free(gc->mark_last_ns);
  free(gc->plug_lo);
  free(gc->plug_hi);
  free(gc->plug_user);
  free(gc->g.loh_compact);
  free(gc->g.fit_buckets);
  free(gc);
}

void gcs_recon_free(struct gcs_recon *r) {
  if (!r) return;
  for (int i = 0; i < r->nprocs; i++) {
    struct recon_proc *p = r->procs[i];
    for (int j = 0; j < p->ngcs; j++) free_gc(p->gcs[j]);
    if (p->kept_bgc) free_gc(p->kept_bgc);
    free(p->gcs);
    free(p);
  }
  free(r->procs);
  recon_store_free(r);
  free(r);
}

static struct recon_proc *get_proc(struct gcs_recon *r, int32_t pid, int has_clr, uint16_t clr) {
  for (int i = 0; i < r->nprocs; i++) {
    struct recon_proc *p = r->procs[i];
    if (p->sum.pid == pid && (!has_clr || p->sum.clr_instance == clr)) return p;
  }
  if (grow((void **)&r->procs, &r->cap, r->nprocs + 1, sizeof *r->procs)) return NULL;
  struct recon_proc *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->sum.pid = pid;
  p->sum.clr_instance = has_clr ? clr : 0;
  p->sum.heap_count = -1;
  p->sum.server_gc = -1;
  p->sum.total_gc_cpu_msec = NAN;
  p->susp_tid_gc = p->susp_tid_bgc = p->susp_tid_other = -1;
  p->current_bgc = p->last_completed = -1;
  p->heap_count = -1;
  recon_fold_init(&p->fold);
  p->sum.lost_events = r->lost_unattributed;
  p->lost_until = r->lost_until_all;
  r->procs[r->nprocs++] = p;
  return p;
}

/* ---- PerfView's current-GC look-ups -------------------------------------- */

static struct recon_gc *current_gc(struct recon_proc *p) {
  if (p->ngcs > 0 && !p->gcs[p->ngcs - 1]->g.complete && !p->gcs[p->ngcs - 1]->reported)
    return p->gcs[p->ngcs - 1];
  if (p->current_bgc >= 0) return p->gcs[p->current_bgc];
  return NULL;
}

static int is_server(const struct recon_proc *p) {
  return p->sum.server_gc == 1 || p->multi_heap;
}

static struct recon_gc *last_gc(struct recon_proc *p) {
  struct recon_gc *g = current_gc(p);
  if (!g && is_server(p) && p->last_completed >= 0) g = p->gcs[p->last_completed];
  return g;
}

/* The running background GC, else the last complete one, else the last
 * one; among the GCs freed (written early, older than every GC held), the
 * one of those kept_bgc holds. */
static struct recon_gc *last_bgc(struct recon_proc *p) {
  if (p->current_bgc >= 0) return p->gcs[p->current_bgc];
  for (int i = p->ngcs - 1; i >= 0; i--)
    if (gcs_type_is_background(p->gcs[i]->g.type) && p->gcs[i]->g.complete) return p->gcs[i];
  if (p->kept_bgc && p->kept_bgc->g.complete) return p->kept_bgc;
  for (int i = p->ngcs - 1; i >= 0; i--)
    if (gcs_type_is_background(p->gcs[i]->g.type)) return p->gcs[i];
  return p->kept_bgc;
}

/* ---- completion ----------------------------------------------------------- */

void recon_report(struct gcs_recon *r, struct recon_gc *gc) {
  if (gc->reported) return;
  gc->reported = 1;
  if (r->cb.gc_done) r->cb.gc_done(&gc->g, r->ud);
}

/* PerfView's OnEnd: the GC is complete (unless events were lost during it). */
static void on_end(struct gcs_recon *r, struct recon_proc *p, struct recon_gc *gc) {
  if (gc->reported) return;
  if (gc->lost || gc->bad_heap_history) {
    if (gc->lost) gc->g.incomplete |= GCS_INC_EVENTS_LOST;
    if (gc->bad_heap_history) gc->g.incomplete |= GCS_INC_BAD_HEAP_HISTORY;
  } else {
    gc->g.complete = 1;
    gc->g.incomplete = 0;
  }
  gc->done_abs = r->ev_abs ? r->ev_abs : 1;
  p->last_completed = gc->g.list_index - p->base;
  if (p->current_bgc == p->last_completed) p->current_bgc = -1;
  recon_calc_gc(r, p, gc);
  recon_alloc_advance(r, p, 0, 0);
  recon_report(r, gc);
}

/* ---- handlers ------------------------------------------------------------- */

static void on_suspend_begin(struct recon_proc *p, const struct gcs_event *ev, int64_t t) {
  const struct gcs_ev_GCSuspendEEBegin *e = &ev->u.GCSuspendEEBegin;
  p->seen_suspend = 1;
  if (e->Reason == GCS_SUSPEND_REASON_SUSPEND_FOR_GC) {
    p->susp_tid_gc = ev->tid;
  } else if (gcs_suspend_is_bgc_final(e->Reason)) {
    p->susp_tid_bgc = ev->tid;
    if (p->current_bgc >= 0) {
      p->gcs[p->current_bgc]->g.bgc_prep_suspend_begin_ns = ev->ts_ns;
      p->gcs[p->current_bgc]->bgc_tid = ev->tid;
    }
  } else {
    p->susp_tid_other = ev->tid;
    p->has_other_susp = 1;          /* for suspend_done only */
    p->other_susp_time = t;
    p->other_susp_reason = e->Reason;
    return;
  }
  p->last_susp_reason = e->Reason;
  p->last_susp_count = e->Count;
  p->susp_time = t;
  p->has_susp_time = 1;
  p->has_restart_begin = 0;
}

static void on_suspend_end(struct gcs_recon *r, struct recon_proc *p, const struct gcs_event *ev, int64_t t) {
  if (p->has_other_susp && ev->tid == p->susp_tid_other) {
    /* A non-GC suspension (PerfView's suspend trigger counts those too). */
    p->has_other_susp = 0;
    if (r->cb.suspend_done && t >= p->other_susp_time)
      r->cb.suspend_done(p->sum.pid, 0, p->other_susp_reason, (uint64_t)(t - p->other_susp_time),
                         ev->ts_ns, r->ud);
    return;
  }
  if (ev->tid != p->susp_tid_bgc && ev->tid != p->susp_tid_gc) return;
  if (p->susp_tid_bgc > 0 && p->current_bgc >= 0 && p->has_susp_time)
    p->gcs[p->current_bgc]->suspend_ns += t - p->susp_time;
  p->susp_end = t;
  p->has_susp_end = 1;
  if (r->cb.suspend_done && p->has_susp_time && t >= p->susp_time)
    r->cb.suspend_done(p->sum.pid, p->last_susp_count, p->last_susp_reason,
                       (uint64_t)(t - p->susp_time), ev->ts_ns, r->ud);
}

/* PerfView's Gen column: generation, type letter, induced mark ("2NI"). */
static void set_gen_name(struct gcs_gc *g) {
  uint32_t digit = g->gen > 9 ? 9 : g->gen; /* lint: not-gc-enum: one digit wide */
  snprintf(g->gen_name, sizeof g->gen_name, "%u%s%s", digit, gcs_type_letter(g->type),
           gcs_reason_induced_mark(g->reason));
}

static void held_one_more(struct gcs_recon *r) {
  if (++r->held > r->held_max) r->held_max = r->held;
}

/* A GC beginning now, open: a loss window given before it (gcs_recon_lost)
 * that ends at or after its first event may hold some of its events. */
static void lost_before(struct recon_proc *p, struct recon_gc *gc) {
  if (p->lost_until && gc->first_abs <= p->lost_until) {
    gc->lost = 1;
    gc->g.incomplete |= GCS_INC_EVENTS_LOST;
  }
}

static void on_gc_start(struct gcs_recon *r, struct recon_proc *p, const struct gcs_event *ev, int64_t t) {
  const struct gcs_ev_GCStart *e = &ev->u.GCStart;
  struct recon_gc *last = p->ngcs ? p->gcs[p->ngcs - 1] : NULL;
  if (last && last->g.number == e->Count) return; /* duplicate GCStart filter */
  int tracked = p->susp_tid_gc > 0 || p->susp_tid_other > 0;

  if (grow((void **)&p->gcs, &p->cap, p->ngcs + 1, sizeof *p->gcs)) return;
  struct recon_gc *gc = calloc(1, sizeof *gc);
  if (!gc) return;
  gc->seq = r->nseq++;
  struct gcs_gc *g = &gc->g;
  g->pid = p->sum.pid;
  g->clr_instance = p->sum.clr_instance;
  g->number = e->Count;
  g->list_index = p->base + p->ngcs;
  g->gen = ev->version >= 1 ? e->Depth : GCS_GEN0;   /* GCStart V0 has neither field */
  g->type = ev->version >= 1 ? e->Type : GCS_GC_TYPE_NON_CONCURRENT;
  g->reason = e->Reason;
  g->heap_count = p->heap_count;
  g->start_ns = ev->ts_ns;
  g->bgc_pause1_msec = g->bgc_pause2_msec = NAN;
  g->gc_cpu_msec = NAN;
  for (int ph = 0; ph < GCS_GC_PHASE_COUNT; ph++) g->phase_usec[ph] = -1;
  g->mark_kind = g->mark_slow_heap = -1;
  g->mark_slow_msec = g->mark_fast_msec = NAN;
  recon_alloc_init_gc(gc);
  gc->bgc_pause1_ns = gc->bgc_pause2_ns = -1;
  gc->susp_t = tracked && p->has_susp_time ? p->susp_time : -1;
  gc->rt_pause_ns = gc->rt_bgc1_ns = gc->rt_bgc2_ns = -1;
  g->runtime_pause_msec = NAN;
  gc->start_version = ev->version;
  gc->start_ns_rel = t;
  set_gen_name(g);

  gc->first_abs = ev->ts_ns;
  if (!tracked) {
    /* PerfView drops this GCStart; we keep it, marked, so that its later
     * events are not attributed to another GC. */
    g->incomplete = GCS_INC_BEGAN_BEFORE_TRACE;
    gc->pause_start_ns = t;
    lost_before(p, gc);
    p->gcs[p->ngcs++] = gc;
    held_one_more(r);
    return;
  }

  int ephemeral_at_bgc = last && gcs_type_is_background(last->g.type) && !last->g.complete &&
                         !last->reported && gcs_type_is_nonconcurrent(g->type);
  int provisional_full = g->reason == GCS_GC_REASON_PM_FULL_GC;
  if (ephemeral_at_bgc || provisional_full) {
    if (provisional_full) {
      struct recon_gc *cur = current_gc(p);
      if (cur) on_end(r, p, cur);
    }
    gc->pause_start_ns = t;
    gc->suspend_ns = 0;
    gc->ephemeral_at_bgc_start = ephemeral_at_bgc;
  } else {
    gc->pause_start_ns = p->has_susp_time ? p->susp_time : t;
    if (!p->has_susp_end) {
      p->susp_end = t;
      p->has_susp_end = 1;
    }
    gc->suspend_ns = p->has_susp_time ? p->susp_end - p->susp_time : 0;
    if (p->has_susp_time) g->suspend_begin_ns = p->origin_abs + (uint64_t)p->susp_time;
    g->suspend_end_ns = p->origin_abs + (uint64_t)p->susp_end;
  }
  if (g->suspend_begin_ns && g->suspend_begin_ns < gc->first_abs) gc->first_abs = g->suspend_begin_ns;
  if (gcs_type_is_background(g->type)) {
    p->current_bgc = p->ngcs;
    gc->pause_ns = gc->suspend_ns;
  }
  lost_before(p, gc);
  p->gcs[p->ngcs++] = gc;
  held_one_more(r);
}

/* PerfView's AddConcurrentPauseTime. */
static void add_concurrent_pause(struct recon_proc *p, struct recon_gc *gc, int64_t t, uint64_t ts_abs) {
  if (p->susp_tid_bgc > 0) {
    int64_t pause = t - p->susp_time;
    gc->pause_ns += pause;
    if (gcs_suspend_is_bgc_final(p->last_susp_reason)) {
      gc->bgc_pause2_ns = pause;
      gc->g.bgc_prep_restart_end_ns = ts_abs;
    }
  } else {
    gc->pause_ns = t - gc->pause_start_ns;
    if (gc->bgc_pause1_ns < 0) {
      gc->bgc_pause1_ns = gc->pause_ns;
      gc->g.restart_end_ns = ts_abs;
    }
  }
}

/* The runtime's own pauses (gcs_gc.runtime_pause_msec) of the GCs this
 * restart ends a suspension of. CoreCLR (gc.cpp) reads its clock at
 * SuspendEE's start (before SuspendEEBegin) and, for a blocking GC, at the
 * end of gc1 (update_end_ngc_time), before do_post_gc fires GCEnd: so a
 * blocking GC's pause is SuspendEEBegin -> its GCEnd, and what comes after
 * (the server GC threads' join, a preempted thread, the restart) is not in
 * it. A background GC's pauses are read right before RestartEE
 * (add_bgc_pause_duration_0): the suspension up to its RestartEEBegin
 * (RestartEEEnd if none was seen). A GCPrep suspension is a background GC's
 * second pause. A GC suspension holds one blocking GC, or a background GC
 * (that runs on after it) with the ephemeral GC of its start, whose own
 * pause is GCStart -> GCEnd and is not the background GC's, or a GC
 * announced as background that ended inside it (then blocking for the
 * runtime). */
static void runtime_pauses(struct recon_proc *p, const struct gcs_event *ev, int64_t t) {
  if (!p->has_susp_time) return;
  int64_t rb = p->has_restart_begin && p->restart_begin_t >= p->susp_time ? p->restart_begin_t : t;
  int64_t span = rb - p->susp_time;
  if (ev->tid == p->susp_tid_bgc && gcs_suspend_is_bgc_final(p->last_susp_reason)) {
    if (p->current_bgc >= 0 && p->gcs[p->current_bgc]->rt_bgc2_ns < 0) p->gcs[p->current_bgc]->rt_bgc2_ns = span;
    return;
  }
  if (ev->tid != p->susp_tid_gc) return;
  struct recon_gc *bgc = NULL;
  int64_t ephemeral = 0;
  for (int i = p->ngcs - 1; i >= 0 && i >= p->ngcs - 4; i--) {
    struct recon_gc *gc = p->gcs[i];
    if (gc->susp_t != p->susp_time) continue;
    if (gc->ephemeral_at_bgc_start) {
      if (gc->rt_pause_ns < 0 && gc->has_end) gc->rt_pause_ns = gc->duration_ns;
      if (gc->rt_pause_ns >= 0) ephemeral += gc->rt_pause_ns;
    } else if (gcs_type_is_background(gc->g.type) && !gc->has_end) {
      bgc = gc;
    } else if (gc->rt_pause_ns < 0) {
      int64_t end = gc->start_ns_rel + gc->duration_ns;   /* its GCEnd */
      gc->rt_pause_ns = gc->has_end && end >= p->susp_time && end <= rb ? end - p->susp_time : span;
    }
  }
  if (bgc && bgc->rt_bgc1_ns < 0) bgc->rt_bgc1_ns = span - ephemeral;
}

static void on_restart_end(struct gcs_recon *r, struct recon_proc *p, const struct gcs_event *ev, int64_t t) {
  if (ev->tid == p->susp_tid_other) {
    p->susp_tid_other = -1;
    p->has_other_susp = 0;
  }
  if (ev->tid != p->susp_tid_bgc && ev->tid != p->susp_tid_gc) return;
  runtime_pauses(p, ev, t);
  /* bgc_final_pause: this RestartEEEnd closes a SuspendForGCPrep suspension. */
  int bgc_final = p->has_susp_time && gcs_suspend_is_bgc_final(p->last_susp_reason) &&
                  ev->tid == p->susp_tid_bgc && t >= p->susp_time;
  int64_t final_pause = t - p->susp_time;
  uint32_t final_index = p->current_bgc >= 0 ? p->gcs[p->current_bgc]->g.number : p->last_susp_count;
  struct recon_gc *gc = current_gc(p);
  if (gc && !(gc->g.incomplete & GCS_INC_BEGAN_BEFORE_TRACE)) {
    if (gcs_type_is_background(gc->g.type)) {
      add_concurrent_pause(p, gc, t, ev->ts_ns);
    } else if (!gc->has_end && gc->start_version == 0) {
      gc->is_concurrent = 1; /* .NET 2.0 concurrent GC */
      add_concurrent_pause(p, gc, t, ev->ts_ns);
    } else {
      gc->pause_ns = t - gc->pause_start_ns;
      gc->g.restart_end_ns = ev->ts_ns;
      if (gc->ephemeral_at_bgc_start && p->current_bgc >= 0) {
        /* The BGC's real initial pause ends here (not in PerfView's figure). */
        struct recon_gc *bgc = p->gcs[p->current_bgc];
        if (bgc->bgc_pause1_ns < 0) {
          bgc->bgc_pause1_ns = t - bgc->pause_start_ns;
          bgc->g.restart_end_ns = ev->ts_ns;
        }
      }
      if (gc->g.has_heap_stats) on_end(r, p, gc);
      else gc->g.incomplete |= GCS_INC_NO_HEAP_STATS;
    }
  }
  p->has_susp_time = 0;
  p->susp_tid_bgc = p->susp_tid_gc = -1;
  if (bgc_final && r->cb.bgc_final_pause)
    r->cb.bgc_final_pause(p->sum.pid, final_index, (uint64_t)final_pause, ev->ts_ns, r->ud);
}

static void on_restart_begin(struct recon_proc *p, const struct gcs_event *ev, int64_t t) {
  if (ev->tid != p->susp_tid_bgc && ev->tid != p->susp_tid_gc) return;
  if (!p->has_restart_begin) {
    p->has_restart_begin = 1;
    p->restart_begin_t = t;
  }
  struct recon_gc *gc = current_gc(p);
  if (gc && !gc->g.restart_begin_ns) gc->g.restart_begin_ns = ev->ts_ns;
}

static struct recon_gc *find_open_by_number(struct recon_proc *p, uint32_t number) {
  for (int i = p->ngcs - 1; i >= 0 && i >= p->ngcs - 8; i--)
    if (p->gcs[i]->g.number == number && !p->gcs[i]->reported) return p->gcs[i];
  return NULL;
}

static void on_gc_end(struct gcs_recon *r, struct recon_proc *p, const struct gcs_event *ev, int64_t t) {
  struct recon_gc *gc = current_gc(p);
  uint32_t count = ev->u.GCEnd.Count;
  if (gc && count != 0 && gc->g.number != count) gc = find_open_by_number(p, count);
  if (!gc) return;
  int first = !gc->has_end;       /* a repeated GCEnd is an orphan for gc_end */
  gc->duration_ns = t - gc->start_ns_rel;
  gc->has_end = 1;
  gc->g.end_ns = ev->ts_ns;
  if (first && r->cb.gc_end && gc->duration_ns >= 0)
    r->cb.gc_end(p->sum.pid, gc->g.number, gc->g.gen, gc->g.type, (uint64_t)gc->duration_ns,
                   ev->ts_ns, r->ud);
}

static void on_heap_stats(struct gcs_recon *r, struct recon_proc *p, const struct gcs_event *ev, int64_t t) {
  struct recon_gc *gc = current_gc(p);
  if (gc) {
    gc->g.heap_stats = ev->u.GCHeapStats;
    if (ev->version < 2) {
      gc->g.heap_stats.GenerationSize4 = 0;
      gc->g.heap_stats.TotalPromotedSize4 = 0;
    }
    gc->g.has_heap_stats = 1;
    gc->g.heap_stats_ns = ev->ts_ns;
    int64_t prev = p->has_last_heap_stats ? p->last_heap_stats : 0;
    if (gcs_type_is_background(gc->g.type)) gc->g.since_last_restart_msec = ns_to_ms(t - prev);
    else gc->g.since_last_restart_msec = ns_to_ms(gc->pause_start_ns - prev);
    if (p->seen_tick)
      for (int k = 0; k < GCS_ALLOC_KIND_COUNT; k++)
        gc->g.alloc_tick_mb[k] = p->tick_cur[k] - p->tick_at_last[k];
    gc->g.incomplete &= ~(unsigned)GCS_INC_NO_HEAP_STATS;
    if (gcs_type_is_background(gc->g.type) || gc->is_concurrent) {
      if (!(gc->g.incomplete & GCS_INC_BEGAN_BEFORE_TRACE)) on_end(r, p, gc);
    }
  }
  memcpy(p->tick_at_last, p->tick_cur, sizeof p->tick_cur);
  p->last_heap_stats = t;
  p->has_last_heap_stats = 1;
}

static void on_alloc_tick(struct recon_proc *p, const struct gcs_event *ev) {
  const struct gcs_ev_GCAllocationTick *e = &ev->u.GCAllocationTick;
  double amount = (double)(int64_t)e->AllocationAmount64;
  if (ev->version < 2 || e->AllocationAmount64 == 0) amount = (double)(int32_t)e->AllocationAmount;
  if (amount < 0) p->neg_tick = 1;
  uint32_t kind = e->AllocationKind;
  if (p->neg_tick) {
    double hi = kind == GCS_ALLOC_KIND_SMALL ? 110 * 1024.0 : 2 * 1024 * 1024.0;
    if (amount < 90 * 1024.0) amount = 90 * 1024.0;
    if (amount > hi) amount = hi;
  }
  if (kind >= GCS_ALLOC_KIND_COUNT) return;
  p->tick_cur[kind] += amount / 1e6;
  p->seen_tick = 1;
}

static void on_global_history(struct recon_proc *p, const struct gcs_event *ev) {
  const struct gcs_ev_GCGlobalHeapHistory *e = &ev->u.GCGlobalHeapHistory;
  if (p->sum.heap_count == -1) p->sum.heap_count = e->NumHeaps; /* PerfView's: the first */
  p->heap_count = e->NumHeaps; /* the GCs that start from now on, until their own comes */
  if (e->NumHeaps > 1) p->multi_heap = 1;
  struct recon_gc *gc = last_gc(p);
  if (!gc) return;
  gc->g.global = *e;
  gc->g.global_version = ev->version;
  gc->g.has_global_history = 1;
  gc->g.heap_count = e->NumHeaps; /* this GC's own (DATAS changes it) */
  /* The phases it timed (v4+: Count and Times; gcs_gc_phase_slot), unknown
   * when Times was cut short or longer than its capacity (truncated). */
  for (int ph = 0; ph < GCS_GC_PHASE_COUNT; ph++) {
    int slot = ev->version >= 4 && !ev->truncated ? gcs_gc_phase_slot((enum gcs_gc_phase)ph, e->Count) : -1;
    gc->g.phase_usec[ph] = slot >= 0 && slot < GCS_MAX_ARRAY ? (int64_t)e->Times[slot] : -1;
  }
}

/* GCCommittedUsage: the runtime fires it right after a GC's GCStart and
 * right before its GCEnd (server GC: on whichever GC thread starts or ends
 * it); the first is the GC's "before", the second its "after". It belongs to
 * the latest GC that has started and not ended; a background GC sends only
 * its first (GCs inside it are later in the list). */
static void on_committed_usage(struct recon_proc *p, const struct gcs_event *ev) {
  for (int i = p->ngcs - 1; i >= 0 && i >= p->ngcs - 8; i--) {
    struct recon_gc *gc = p->gcs[i];
    if (gc->has_end) continue;
    int slot = gc->g.has_committed[0] ? 1 : 0;
    if (gc->g.has_committed[slot]) return;   /* a third one: not this GC's */
    gc->g.committed[slot] = ev->u.GCCommittedUsage;
    gc->g.has_committed[slot] = 1;
    return;
  }
}

/* GCMarkWithType: heap h finished marking one root kind. Its time is since
 * the GC's start for the heap's first, else since the heap's previous one
 * (TraceEvent's per-heap mark times); a join wait before a step counts in it,
 * so the kind where the heaps differ most is where one heap held the others. */
#define MARK_MAX_HEAPS 1024
static void on_mark(struct recon_proc *p, const struct gcs_event *ev, int64_t t) {
  const struct gcs_ev_GCMarkWithType *e = &ev->u.GCMarkWithType;
  struct recon_gc *gc = current_gc(p);
  if (!gc || gc->has_end || e->HeapNum >= MARK_MAX_HEAPS || e->Type >= GCS_ROOT_KIND_BGC) return;
  struct gcs_gc *g = &gc->g;
  int h = (int)e->HeapNum;
  if (h >= gc->mark_cap) {
    int cap = h + 1 > 2 * gc->mark_cap ? h + 1 : 2 * gc->mark_cap;
    double *ms = realloc(gc->mark_ms, sizeof *ms * (size_t)cap * GCS_ROOT_KIND_N);
    if (!ms) return;
    gc->mark_ms = ms;
    g->mark_msec = ms;
    double *by = realloc(gc->mark_bytes, sizeof *by * (size_t)cap * GCS_ROOT_KIND_N);
    if (!by) return;
    gc->mark_bytes = by;
    g->mark_bytes = by;
    int64_t *last = realloc(gc->mark_last_ns, sizeof *last * (size_t)cap);
    if (!last) return;
    gc->mark_last_ns = last;
    for (int i = gc->mark_cap; i < cap; i++) {
      last[i] = gc->start_ns_rel;
      for (int k = 0; k < GCS_ROOT_KIND_N; k++) ms[i * GCS_ROOT_KIND_N + k] = by[i * GCS_ROOT_KIND_N + k] = NAN;
    }
    gc->mark_cap = cap;
  }
  double *bcell = &gc->mark_bytes[h * GCS_ROOT_KIND_N + (int)e->Type];
  *bcell = (isnan(*bcell) ? 0 : *bcell) + (double)e->Bytes;
  double *cell = &gc->mark_ms[h * GCS_ROOT_KIND_N + (int)e->Type];
  double d = (double)(t - gc->mark_last_ns[h]) / 1e6;
  gc->mark_last_ns[h] = t;
  *cell = (isnan(*cell) ? 0 : *cell) + (d > 0 ? d : 0);
  if (h + 1 > g->mark_heaps) g->mark_heaps = h + 1;
  g->mark_kind = g->mark_slow_heap = -1;
  g->mark_slow_msec = g->mark_fast_msec = NAN;
  double best = -1;
  for (int k = 0; k < GCS_ROOT_KIND_N; k++) {
    int n = 0, slow = -1;
    double lo = NAN, hi = NAN;
    for (int i = 0; i < g->mark_heaps; i++) {
      double v = gc->mark_ms[i * GCS_ROOT_KIND_N + k];
      if (isnan(v)) continue;
      n++;
      if (isnan(lo) || v < lo) lo = v;
      if (isnan(hi) || v > hi) { hi = v; slow = i; }
    }
    if (n < 2 || hi - lo <= best) continue;
    best = hi - lo;
    g->mark_kind = k;
    g->mark_slow_heap = slow;
    g->mark_slow_msec = hi;
    g->mark_fast_msec = lo;
  }
}

static void decode_heap(struct gcs_gc_heap *h, const struct gcs_ev_GCPerHeapHistory *e) {
  h->heap_index = e->HeapIndex;
  h->condemn_reasons0 = e->CondemnReasons0;
  h->condemn_reasons1 = e->CondemnReasons1;
  h->compact_mechanisms = e->CompactMechanisms;
  h->expand_mechanisms = e->ExpandMechanisms;
  h->running_free_list_efficiency = e->RunningFreeListEfficiency;
  h->free_list_allocated = e->FreeListAllocated;
  h->free_list_rejected = e->FreeListRejected;
  h->end_of_seg_allocated = e->EndOfSegAllocated;
  h->condemned_allocated = e->CondemnedAllocated;
  h->pinned_allocated = e->PinnedAllocated;
  h->pinned_allocated_advance = e->PinnedAllocatedAdvance;
  h->extra_gen0_commit = e->ExtraGen0Commit;
  h->gen_count = e->Count < GCS_GENS ? e->Count : GCS_GENS;
  for (uint32_t i = 0; i < h->gen_count; i++) {
    h->gen[i].size_before = e->SizeBefore[i];
    h->gen[i].free_list_before = e->FreeListBefore[i];
    h->gen[i].free_obj_before = e->FreeObjBefore[i];
    h->gen[i].size_after = e->SizeAfter[i];
    h->gen[i].free_list_after = e->FreeListAfter[i];
    h->gen[i].free_obj_after = e->FreeObjAfter[i];
    h->gen[i].in = e->In[i];
    h->gen[i].pinned_surv = e->PinnedSurv[i];
    h->gen[i].non_pinned_surv = e->NonePinnedSurv[i];
    h->gen[i].new_allocation = e->NewAllocation[i];
  }
}

/* Every byte count below GCS_HEAP_BYTES_MAX: what the figures may add and
 * subtract as signed 64-bit numbers. */
static int heap_sizes_sane(const struct gcs_ev_GCPerHeapHistory *e) {
  const uint64_t scalars[] = { e->FreeListAllocated, e->FreeListRejected, e->EndOfSegAllocated,
                               e->CondemnedAllocated, e->PinnedAllocated, e->PinnedAllocatedAdvance,
                               e->ExtraGen0Commit };
  for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
    if (scalars[i] >= GCS_HEAP_BYTES_MAX) return 0;
  uint32_t n = e->Count < GCS_GENS ? e->Count : GCS_GENS;
  for (uint32_t i = 0; i < n; i++) {
    const uint64_t v[] = { e->SizeBefore[i], e->FreeListBefore[i], e->FreeObjBefore[i], e->SizeAfter[i],
                           e->FreeListAfter[i], e->FreeObjAfter[i], e->In[i], e->PinnedSurv[i],
                           e->NonePinnedSurv[i], e->NewAllocation[i] };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
      if (v[k] >= GCS_HEAP_BYTES_MAX) return 0;
  }
  return 1;
}

/* TraceEvent accepts a V3+ per-heap history whose payload holds at least
 * the generations gen0..LOH; a shorter one (an older runtime's LTTng event
 * with no per-generation data, a cut payload) is an unrecognised version and
 * ignored, so the GC's figures fall back to AllocationTick sums as PerfView's
 * do. */
static int per_heap_history_recognised(const struct gcs_event *ev) {
  return ev->version >= 3 && !ev->truncated && ev->u.GCPerHeapHistory.Count >= GCS_GEN_LOH + 1;
}

static void on_per_heap_history(struct recon_proc *p, const struct gcs_event *ev) {
  if (!per_heap_history_recognised(ev)) return;
  struct recon_gc *gc = last_gc(p);
  if (!gc) return;
  struct gcs_gc *g = &gc->g;
  if (!heap_sizes_sane(&ev->u.GCPerHeapHistory)) {
    g->incomplete |= GCS_INC_BAD_HEAP_HISTORY;
    gc->bad_heap_history = 1;
    return;
  }
  /* Room for the heaps the process has (not grow's 8: 488 bytes each, most
   * of a held GC's memory with one heap), more if more come. */
  if (gc->heaps_cap == 0 && g->heap_count > 0 && g->heap_count <= GCS_MAX_HEAPS) {
    g->heaps = malloc((size_t)g->heap_count * sizeof *g->heaps);
    if (!g->heaps) return;
    gc->heaps_cap = g->heap_count;
  }
  if (grow((void **)&g->heaps, &gc->heaps_cap, g->nheaps + 1, sizeof *g->heaps)) return;
  struct gcs_gc_heap *h = &g->heaps[g->nheaps++];
  memset(h, 0, sizeof *h);
  decode_heap(h, &ev->u.GCPerHeapHistory);
  /* The running background GC fires its history on its own thread; when a
   * foreground GC inside it ended but has not restarted the runtime yet, that
   * GC is still the last in the list (seen with both cores busy). */
  struct recon_gc *own = p->current_bgc >= 0 ? p->gcs[p->current_bgc] : NULL;
  if (!own || own == gc || !own->bgc_tid || own->bgc_tid != ev->tid || own->has_end) return;
  int cap = own->own_cap;
  if (grow((void **)&own->own_heaps, &cap, own->nown + 1, sizeof *own->own_heaps)) return;
  own->own_cap = cap;
  own->own_heaps[own->nown++] = *h;
  gc->nforeign++;
}

static void on_pin_object(struct recon_proc *p, const struct gcs_event *ev) {
  p->sum.pin_object_events++;
  struct recon_gc *gc = current_gc(p);
  if (!gc) return;
  uint64_t id = ev->u.PinObjectAtGCTime.ObjectID;
  if (ev->u.PinObjectAtGCTime.ObjectSize >= GCS_HEAP_BYTES_MAX) return; /* no object is that large */
  for (int i = 0; i < gc->npins; i++)
    if (gc->pin_ids[i] == id) return; /* first report wins */
  int cap = gc->pins_cap;
  if (grow((void **)&gc->pin_ids, &cap, gc->npins + 1, sizeof *gc->pin_ids)) return;
  cap = gc->pins_cap;
  if (grow((void **)&gc->pin_sizes, &cap, gc->npins + 1, sizeof *gc->pin_sizes)) return;
  gc->pins_cap = cap;
  gc->pin_ids[gc->npins] = id;
  gc->pin_sizes[gc->npins++] = ev->u.PinObjectAtGCTime.ObjectSize;
  gc->g.pinned_obj_events = (uint32_t)gc->npins;
  gc->g.pinned_obj_bytes += ev->u.PinObjectAtGCTime.ObjectSize;
  /* a plug seen before its object: user-pinned now (PerfView: an object's
   * address in [PlugStart, PlugEnd)) */
  for (int i = 0; i < gc->nplugs; i++)
    if (!gc->plug_user[i] && id >= gc->plug_lo[i] && id < gc->plug_hi[i]) {
      gc->plug_user[i] = 1;
      gc->g.user_pinned_plug_bytes += gc->plug_hi[i] - gc->plug_lo[i];
    }
}

/* Plugs kept per GC for the user-pinned test; past this many the rest count
 * in pinned_plug_bytes only if no pinned object lies in them (a bound on
 * memory and on the pins x plugs test). */
#define PLUGS_MAX 65536
static void on_pin_plug(struct recon_proc *p, const struct gcs_event *ev) {
  p->sum.pin_plug_events++;
  struct recon_gc *gc = current_gc(p);
  if (!gc) return;
  const struct gcs_ev_PinPlugAtGCTime *e = &ev->u.PinPlugAtGCTime;
  if (e->PlugEnd <= e->PlugStart || e->PlugEnd - e->PlugStart >= GCS_HEAP_BYTES_MAX) return;
  uint64_t size = e->PlugEnd - e->PlugStart;
  gc->g.pinned_plug_bytes += size;
  int user = 0;
  for (int i = 0; i < gc->npins && !user; i++) user = gc->pin_ids[i] >= e->PlugStart && gc->pin_ids[i] < e->PlugEnd;
  if (user) gc->g.user_pinned_plug_bytes += size;
  if (gc->nplugs >= PLUGS_MAX) return;
  int cap = gc->plugs_cap;
  if (grow((void **)&gc->plug_lo, &cap, gc->nplugs + 1, sizeof *gc->plug_lo)) return;
  cap = gc->plugs_cap;
  if (grow((void **)&gc->plug_hi, &cap, gc->nplugs + 1, sizeof *gc->plug_hi)) return;
  cap = gc->plugs_cap;
  if (grow((void **)&gc->plug_user, &cap, gc->nplugs + 1, sizeof *gc->plug_user)) return;
  gc->plugs_cap = cap;
  gc->plug_lo[gc->nplugs] = e->PlugStart;
  gc->plug_hi[gc->nplugs] = e->PlugEnd;
  gc->plug_user[gc->nplugs++] = (uint8_t)user;
}

/* A struct-array event to keep: whole. One longer than its arrays'
 * capacity (gc_events.def: more heaps than CoreCLR can have, more buckets
 * than it has; the decoder kept the first elements and capped Count) or a
 * payload cut short (its elements partly read) is flagged truncated and
 * left out: a figure over part of the heaps would look whole. */
static int array_event_whole(const struct gcs_event *ev) {
  return !ev->truncated;
}

/* GCLOHCompact: fired inside the compacting GC, one element per heap. A
 * reference count no heap can hold (a damaged or crafted payload) drops the
 * event. */
static void on_loh_compact(struct recon_proc *p, const struct gcs_event *ev) {
  const struct gcs_ev_GCLOHCompact *e = &ev->u.GCLOHCompact;
  if (!array_event_whole(ev)) { p->sum.array_events_left_out++; return; }
  struct recon_gc *gc = current_gc(p);
  if (!gc) return;
  int n = e->Count < GCS_MAX_HEAPS ? e->Count : GCS_MAX_HEAPS;
  for (int i = 0; i < n; i++)
    if (e->TotalRefs[i] >= GCS_HEAP_BYTES_MAX || e->ZeroRefs[i] >= GCS_HEAP_BYTES_MAX) return;
  if (grow((void **)&gc->g.loh_compact, &gc->loh_cap, gc->g.nloh_compact + n, sizeof *gc->g.loh_compact)) return;
  for (int i = 0; i < n; i++) {
    struct gcs_loh_compact *c = &gc->g.loh_compact[gc->g.nloh_compact++];
    c->heap = (uint32_t)i;
    c->time_plan_us = e->TimePlan[i];
    c->time_compact_us = e->TimeCompact[i];
    c->time_relocate_us = e->TimeRelocate[i];
    c->total_refs = e->TotalRefs[i];
    c->zero_refs = e->ZeroRefs[i];
  }
}

/* GCFitBucketInfo: fired inside the GC that plans with the buckets. */
#define FIT_EVENTS_MAX 64
static void on_fit_buckets(struct recon_proc *p, const struct gcs_event *ev) {
  p->sum.fit_bucket_events++;
  if (!array_event_whole(ev)) { p->sum.array_events_left_out++; return; }
  struct recon_gc *gc = current_gc(p);
  if (!gc || gc->g.nfit_events >= FIT_EVENTS_MAX) return;
  const struct gcs_ev_GCFitBucketInfo *e = &ev->u.GCFitBucketInfo;
  if (e->TotalSize >= GCS_HEAP_BYTES_MAX) return;
  int n = e->Count < GCS_MAX_ARRAY ? e->Count : GCS_MAX_ARRAY;
  for (int i = 0; i < n; i++)
    if (e->Size[i] >= GCS_HEAP_BYTES_MAX) return;
  if (grow((void **)&gc->g.fit_buckets, &gc->fit_cap, gc->g.nfit_buckets + n, sizeof *gc->g.fit_buckets)) return;
  for (int i = 0; i < n; i++) {
    struct gcs_fit_bucket *b = &gc->g.fit_buckets[gc->g.nfit_buckets++];
    b->seq = (uint32_t)gc->g.nfit_events;
    b->kind = e->BucketKind;
    b->total_size = e->TotalSize;
    b->index = e->Index[i];
    b->count = e->ItemCount[i];
    b->size = e->Size[i];
  }
  gc->g.nfit_events++;
}

/* BGCRevisit: the running background GC's, on its own thread. */
static void on_bgc_revisit(struct recon_proc *p, const struct gcs_event *ev) {
  struct recon_gc *gc = p->current_bgc >= 0 ? p->gcs[p->current_bgc] : current_gc(p);
  if (!gc || !gcs_type_is_background(gc->g.type)) return;
  const struct gcs_ev_BGCRevisit *e = &ev->u.BGCRevisit;
  int large = e->IsLarge ? 1 : 0;
  if (e->Pages >= GCS_HEAP_BYTES_MAX || e->Objects >= GCS_HEAP_BYTES_MAX) return;
  gc->g.bgc_revisit_events++;
  gc->g.bgc_revisit_pages[large] += e->Pages;
  gc->g.bgc_revisit_objects[large] += e->Objects;
}

static struct gcs_loh_wait *loh_wait_of_thread(struct recon_gc *gc, int32_t tid, int create) {
  for (int i = 0; i < gc->g.nloh_waits; i++)
    if (gc->g.loh_waits[i].tid == tid) return &gc->g.loh_waits[i];
  if (!create) return NULL;
  if (grow((void **)&gc->g.loh_waits, &gc->waits_cap, gc->g.nloh_waits + 1, sizeof *gc->g.loh_waits))
    return NULL;
  struct gcs_loh_wait *w = &gc->g.loh_waits[gc->g.nloh_waits++];
  memset(w, 0, sizeof *w);
  w->tid = tid;
  return w;
}

static void on_bgc_alloc_wait(struct recon_proc *p, const struct gcs_event *ev, int begin, int64_t t) {
  uint32_t reason = ev->u.BGCAllocWaitBegin.Reason;
  if (!gcs_bgc_wait_reason_is_known(reason)) return;
  if (begin) {
    if (p->current_bgc < 0) return;
    struct recon_gc *gc = p->gcs[p->current_bgc];
    if (loh_wait_of_thread(gc, ev->tid, 0)) return; /* a second Start is ignored */
    struct gcs_loh_wait *w = loh_wait_of_thread(gc, ev->tid, 1);
    if (!w) return;
    w->reason = reason;
    w->start_msec = ns_to_ms(t);
  } else {
    struct recon_gc *gc = last_bgc(p);
    if (!gc) return;
    struct gcs_loh_wait *w = loh_wait_of_thread(gc, ev->tid, 1);
    if (!w) return;
    if (!w->reason) w->reason = reason;
    w->stop_msec = ns_to_ms(t);
    if (gc->written) gc->rewrite = 1;   /* its rows again (recon_store.c) */
  }
}

/* DATAS: a SizeAdaptation* (or .NET 8 HeapCount*) event names its GC
 * (GCIndex, GCStart.Count); it is fired inside that GC, so the GC is among
 * the last few of the list. */
static void on_dynamic(struct recon_proc *p, const struct gcs_event *ev, int64_t t) {
  uint64_t index = ev->kind == gcs_kind_GCSizeAdaptationSample   ? ev->u.GCSizeAdaptationSample.GCIndex
                   : ev->kind == gcs_kind_GCSizeAdaptationTuning ? ev->u.GCSizeAdaptationTuning.GCIndex
                   : ev->kind == gcs_kind_GCHeapCountSample      ? ev->u.GCHeapCountSample.GCIndex
                   : ev->kind == gcs_kind_GCHeapCountTuning      ? ev->u.GCHeapCountTuning.GCIndex
                                                                 : ev->u.GCSizeAdaptationFullGCTuning.GCIndex;
  p->sum.dynamic_events++;
  struct recon_gc *gc = NULL;
  for (int i = p->ngcs - 1; i >= 0 && i >= p->ngcs - 16 && !gc; i--)
    if (p->gcs[i]->g.number == index) gc = p->gcs[i];
  if (!gc || gc->g.ndyn_events >= GCS_GC_DYN_MAX ||
      grow((void **)&gc->g.dyn_events, &gc->dyn_cap, gc->g.ndyn_events + 1, sizeof *gc->g.dyn_events)) {
    p->sum.dynamic_events_unattached++;
    return;
  }
  struct gcs_dyn_event *d = &gc->g.dyn_events[gc->g.ndyn_events++];
  memset(d, 0, sizeof *d);
  d->kind = ev->kind;
  d->time_msec = ns_to_ms(t);
  if (ev->kind == gcs_kind_GCSizeAdaptationSample) d->u.sample = ev->u.GCSizeAdaptationSample;
  else if (ev->kind == gcs_kind_GCSizeAdaptationTuning) d->u.tuning = ev->u.GCSizeAdaptationTuning;
  else if (ev->kind == gcs_kind_GCHeapCountSample) d->u.hc_sample = ev->u.GCHeapCountSample;
  else if (ev->kind == gcs_kind_GCHeapCountTuning) d->u.hc_tuning = ev->u.GCHeapCountTuning;
  else d->u.full = ev->u.GCSizeAdaptationFullGCTuning;
}

static void on_cpu_time(struct recon_proc *p, const struct gcs_event *ev) {
  struct recon_gc *gc = find_open_by_number(p, ev->u.GCCpuTime.Count);
  if (!gc) {
    for (int i = p->ngcs - 1; i >= 0 && i >= p->ngcs - 8; i--)
      if (p->gcs[i]->g.number == ev->u.GCCpuTime.Count) gc = p->gcs[i];
  }
  if (gc) gc->g.gc_cpu_msec = (double)ev->u.GCCpuTime.CpuNsec / 1e6;
}

/* ---- feeding -------------------------------------------------------------- */

/* ClrInstanceID's descriptor per event kind (NULL: the event has none),
 * looked up by name once per process instead of on every event. The schema
 * is constant, so one table serves every recon object and thread. */
static const struct gcs_field_desc *clr_field[GCS_KIND_COUNT];
static pthread_once_t clr_field_once = PTHREAD_ONCE_INIT;

static void clr_field_init(void) {
  for (int k = 0; k < GCS_KIND_COUNT; k++) clr_field[k] = gcs_field_find((enum gcs_kind)k, "ClrInstanceID");
}

static int clr_instance_of(const struct gcs_event *ev, uint16_t *clr) {
  if ((int)ev->kind < 0 || ev->kind >= GCS_KIND_COUNT) return 0;
  pthread_once(&clr_field_once, clr_field_init);
  const struct gcs_field_desc *f = clr_field[ev->kind];
  if (!f || ev->version < f->since) return 0;
  *clr = (uint16_t)gcs_field_get_int(ev, f);
  return 1;
}

void gcs_recon_feed(struct gcs_recon *r, const struct gcs_event *ev) {
  if (!r->has_origin) gcs_recon_set_time_origin(r, ev->ts_ns);
  uint16_t clr = 0;
  int has_clr = clr_instance_of(ev, &clr);
  struct recon_proc *p = get_proc(r, ev->pid, has_clr, clr);
  if (!p) return;
  p->origin_abs = r->origin;
  int64_t t = (int64_t)(ev->ts_ns - r->origin);
  if (ev->ts_ns > r->now_abs) r->now_abs = ev->ts_ns;
  r->ev_abs = ev->ts_ns;
  if (!p->has_first_event) {
    p->first_event = t;
    p->has_first_event = 1;
  }
  p->last_event = t;
  switch (ev->kind) {
  case gcs_kind_GCSuspendEEBegin: on_suspend_begin(p, ev, t); break;
  case gcs_kind_GCSuspendEEEnd: on_suspend_end(r, p, ev, t); break;
  case gcs_kind_GCStart: on_gc_start(r, p, ev, t); break;
  case gcs_kind_GCEnd: on_gc_end(r, p, ev, t); break;
  case gcs_kind_GCHeapStats: on_heap_stats(r, p, ev, t); break;
  case gcs_kind_GCRestartEEBegin: on_restart_begin(p, ev, t); break;
  case gcs_kind_GCRestartEEEnd: on_restart_end(r, p, ev, t); break;
  case gcs_kind_GCAllocationTick: on_alloc_tick(p, ev); break;
  case gcs_kind_GCGlobalHeapHistory: on_global_history(p, ev); break;
  case gcs_kind_GCCommittedUsage: on_committed_usage(p, ev); break;
  case gcs_kind_GCMarkWithType: on_mark(p, ev, t); break;
  case gcs_kind_GCPerHeapHistory: on_per_heap_history(p, ev); break;
  case gcs_kind_PinObjectAtGCTime: on_pin_object(p, ev); break;
  case gcs_kind_PinPlugAtGCTime: on_pin_plug(p, ev); break;
  case gcs_kind_GCLOHCompact: on_loh_compact(p, ev); break;
  case gcs_kind_GCFitBucketInfo: on_fit_buckets(p, ev); break;
  case gcs_kind_BGCRevisit: on_bgc_revisit(p, ev); break;
  case gcs_kind_BGCAllocWaitBegin: on_bgc_alloc_wait(p, ev, 1, t); break;
  case gcs_kind_BGCAllocWaitEnd: on_bgc_alloc_wait(p, ev, 0, t); break;
  case gcs_kind_GCCpuTime: on_cpu_time(p, ev); break;
  case gcs_kind_GCSizeAdaptationSample:
  case gcs_kind_GCSizeAdaptationTuning:
  case gcs_kind_GCSizeAdaptationFullGCTuning:
  case gcs_kind_GCHeapCountSample:
  case gcs_kind_GCHeapCountTuning: on_dynamic(p, ev, t); break;
  case gcs_kind_GCDynamicEvent:
    if (gcs_dynamic_name_known(ev->u.GCDynamicEvent.Name)) p->sum.dynamic_events_undecoded++;
    break;
  case gcs_kind_RuntimeInformationStart:
    p->sum.startup_flags = ev->u.RuntimeInformationStart.StartupFlags;
    p->sum.server_gc = gcs_startup_is_server_gc(p->sum.startup_flags);
    break;
  case gcs_kind_RuntimeInformation:
    p->sum.server_gc = ev->u.RuntimeInformation.ServerGC ? 1 : 0;
    p->sum.startup_flags = 0;
    if (ev->u.RuntimeInformation.ServerGC) p->sum.startup_flags |= GCS_STARTUP_FLAGS_SERVER_GC;
    if (ev->u.RuntimeInformation.Concurrent) p->sum.startup_flags |= GCS_STARTUP_FLAGS_CONCURRENT_GC;
    break;
  default: break;
  }
}

/* Events lost in a process (pid < 0: anywhere) somewhere in [begin_ns,
 * end_ns]: every GC of it whose events may lie there (from its first event
 * to the one that completed it, or still open) can no longer be trusted,
 * complete or not, reported or not; GCs that begin later, up to end_ns, are
 * marked when they begin (lost_before). */
void gcs_recon_lost(struct gcs_recon *r, int32_t pid, uint64_t begin_ns, uint64_t end_ns, uint64_t count) {
  if (!end_ns) end_ns = r->now_abs;           /* unknown end: up to now */
  if (begin_ns > end_ns) begin_ns = end_ns;
  if (pid < 0) {
    r->lost_unattributed += count;
    if (end_ns > r->lost_until_all) r->lost_until_all = end_ns;
  }
  for (int i = 0; i < r->nprocs; i++) {
    struct recon_proc *p = r->procs[i];
    if (pid >= 0 && p->sum.pid != pid) continue;
    p->sum.lost_events += count;
    if (end_ns > p->lost_until) p->lost_until = end_ns;
    /* Newest first, down to 16 GCs in a row done before the window below
     * the running BGC: the ones before those are done before it too (a
     * GC's done time only goes back past a later GC's for one inside a
     * BGC; an older GC never completed is incomplete anyway), so the cost
     * is not the trace's length times its losses. (The GCs below
     * p->stored are written: a window beginning at or after the horizon
     * cannot change them, recon_store.c.) */
    int before = 0;
    for (int j = p->ngcs - 1; j >= p->stored; j--) {
      struct recon_gc *gc = p->gcs[j];
      if (gc->done_abs && gc->done_abs < begin_ns) {       /* done before it */
        if (++before >= RECON_FINAL_LAG && (p->current_bgc < 0 || j < p->current_bgc)) break;
        continue;
      }
      before = 0;
      if (gc->first_abs > end_ns) continue;                  /* began after the window */
      gc->lost = 1;
      gc->g.incomplete |= GCS_INC_EVENTS_LOST;
      if (gc->g.complete) {
        gc->g.complete = 0;
        if (j < p->calc) p->calc = j;   /* its figures again (store_final) */
      }
    }
  }
}

void gcs_recon_lost_horizon(struct gcs_recon *r, uint64_t ts_ns) { r->lost_horizon = ts_ns; }

void gcs_recon_finish(struct gcs_recon *r) {
  if (r->finished) return;
  r->finished = 1;
  for (int i = 0; i < r->nprocs; i++) {
    struct recon_proc *p = r->procs[i];
    for (int j = 0; j < p->ngcs; j++) {
      struct recon_gc *gc = p->gcs[j];
      if (gc->g.complete) continue;
      if ((gc->g.incomplete & GCS_INC_BEGAN_BEFORE_TRACE) && !p->seen_suspend)
        gc->g.incomplete |= GCS_INC_NO_SUSPENSIONS;
      if (!gc->g.incomplete) gc->g.incomplete = GCS_INC_TRACE_ENDED;
      else if (j == p->ngcs - 1 && !gc->g.restart_end_ns &&
               !(gc->g.incomplete & GCS_INC_BEGAN_BEFORE_TRACE))
        gc->g.incomplete |= GCS_INC_TRACE_ENDED;
    }
  }
  recon_calc_all(r);
  for (int i = 0; i < r->nprocs; i++) {
    struct recon_proc *p = r->procs[i];
    for (int j = 0; j < p->ngcs; j++) recon_report(r, p->gcs[j]);
  }
}

/* Each process's GCs written by gcs_recon_store_final, all but the last
 * one written (the next GC's figures read it), are freed
 * (recon_internal.h): what later GCs read of them is kept (their fold into
 * the summary was taken when each was written; the latest heap stats for
 * gen_before_mb here). No index kept in the recon points below the last one
 * written: current_bgc, last_completed and alloc.next are at or above the
 * store's limit, calc at or above stored, and no GC written is in the
 * allocation timeline's pending list. */
void recon_free_stored(struct gcs_recon *r) {
  for (int i = 0; i < r->nprocs; i++) {
    struct recon_proc *p = r->procs[i];
    int drop = p->stored - 1, freed = 0;
    if (drop <= 0) continue;
    for (int j = 0; j < drop; j++) {
      struct recon_gc *gc = p->gcs[j];
      if (gc->g.list_index > 0 && gc->g.has_heap_stats) {
        p->freed_stats = gc->g.heap_stats;
        p->has_freed_stats = 1;
      }
      /* last_bgc's among the freed: the latest complete background GC, else
       * the latest (a GC written is complete or not for good) */
      if (gcs_type_is_background(gc->g.type) &&
          (gc->g.complete || !p->kept_bgc || !p->kept_bgc->g.complete)) {
        struct recon_gc *old = p->kept_bgc;
        p->kept_bgc = gc;
        gc = old;
      }
      if (gc) {
        free_gc(gc);
        freed++;
      }
    }
    /* Held: the GCs in p->gcs and kept_bgc. The one kept now stays in
     * memory; the one it replaces is freed. */
    r->held -= freed;
    memmove(p->gcs, p->gcs + drop, (size_t)(p->ngcs - drop) * sizeof *p->gcs);
    p->ngcs -= drop;
    p->base += drop;
    p->stored -= drop;
    p->calc -= drop;
    if (p->current_bgc >= 0) p->current_bgc -= drop;
    if (p->last_completed >= 0) p->last_completed -= drop;
    p->alloc.next -= drop;
  }
}

int gcs_recon_held_max(const struct gcs_recon *r) { return r->held_max; }

/* Only the last GC (current_gc), the running BGC and the last 8 GCs
 * (find_open_by_number, GCCpuTime) can still receive events, so with
 * keep >= 16 a dropped GC is final. */
void gcs_recon_forget_old(struct gcs_recon *r, int keep) {
  if (keep < 16) keep = 16;
  for (int i = 0; i < r->nprocs; i++) {
    struct recon_proc *p = r->procs[i];
    int drop = p->ngcs - keep;
    if (drop <= 0) continue;
    if (p->current_bgc >= 0 && p->current_bgc < drop) drop = p->current_bgc;
    if (drop <= 0) continue;
    recon_alloc_advance(r, p, 0, drop);
    for (int j = 0; j < drop; j++) {
      struct recon_gc *gc = p->gcs[j];
      if (!gc->reported) {
        if (!gc->g.incomplete) gc->g.incomplete = GCS_INC_TRACE_ENDED;
        recon_calc_gc(r, p, gc);
        recon_report(r, gc);
      }
    }
    for (int j = 0; j < drop; j++) free_gc(p->gcs[j]);
    r->held -= drop;
    memmove(p->gcs, p->gcs + drop, (size_t)(p->ngcs - drop) * sizeof *p->gcs);
    p->ngcs -= drop;
    for (int j = 0; j < p->ngcs; j++) p->gcs[j]->g.list_index = j;
    if (p->current_bgc >= 0) p->current_bgc -= drop;
    p->alloc.next -= drop;
    p->last_completed = p->last_completed >= drop ? p->last_completed - drop : -1;
  }
}

/* ---- accessors ------------------------------------------------------------- */

int gcs_recon_process_count(const struct gcs_recon *r) { return r->nprocs; }

const struct gcs_proc_summary *gcs_recon_process(const struct gcs_recon *r, int i) {
  return i >= 0 && i < r->nprocs ? &r->procs[i]->sum : NULL;
}

int gcs_recon_gc_count(const struct gcs_recon *r, int process) {
  return process >= 0 && process < r->nprocs ? r->procs[process]->ngcs : 0;
}

const struct gcs_gc *gcs_recon_gc(const struct gcs_recon *r, int process, int i) {
  if (process < 0 || process >= r->nprocs) return NULL;
  struct recon_proc *p = r->procs[process];
  return i >= 0 && i < p->ngcs ? &p->gcs[i]->g : NULL;
}

const char *gcs_gc_incomplete_text(unsigned bits, char *buf, size_t bufsz) {
  static const struct { unsigned bit; const char *text; } t[] = {
    { GCS_INC_NO_SUSPENSIONS, "the trace has no GCSuspendEEBegin events for the process (suspensions not recorded)" },
    { GCS_INC_BEGAN_BEFORE_TRACE, "no suspension before its GCStart (trace began inside it)" },
    { GCS_INC_TRACE_ENDED, "trace ended inside it" },
    { GCS_INC_EVENTS_LOST, "events lost during it" },
    { GCS_INC_NO_HEAP_STATS, "no GCHeapStats" },
    { GCS_INC_BAD_HEAP_HISTORY, "a GCPerHeapHistory with impossible sizes (dropped)" },
  };
  size_t n = 0;
  if (bufsz) buf[0] = 0;
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    if (!(bits & t[i].bit)) continue;
    if (t[i].bit == GCS_INC_BEGAN_BEFORE_TRACE && (bits & GCS_INC_NO_SUSPENSIONS)) continue;
    int w = snprintf(buf + n, n < bufsz ? bufsz - n : 0, "%s%s", n ? "; " : "", t[i].text);
    if (w > 0) n += (size_t)w;
    if (n >= bufsz) break;
  }
  return buf;
}
