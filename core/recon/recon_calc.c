/*
 * recon_calc.c — derived per-GC figures and the per-process summary: what
 * PerfView's TraceEvent (TraceGC, TraceManagedProcess.cs) computes in
 * TraceGC.OnEnd and recomputes in its Calculate() pass. Quirks are kept where
 * they change a printed figure and are marked QUIRK.
 */
#include <math.h>
#include <string.h>

#include "gcs_tables.h"
#include "recon_internal.h"

static int per_heap_history_has_gen(const struct gcs_gc *g, int gen) {
  return g->nheaps > 0 && (int)g->heaps[0].gen_count > gen;
}

static int64_t obj_space_before(const struct gcs_gc_heap *h, int gen) {
  return (int64_t)h->gen[gen].size_before - (int64_t)h->gen[gen].free_list_before -
         (int64_t)h->gen[gen].free_obj_before;
}

static int64_t frag_after(const struct gcs_gc_heap *h, int gen) {
  return (int64_t)h->gen[gen].free_list_after + (int64_t)h->gen[gen].free_obj_after;
}

static int64_t obj_size_after(const struct gcs_gc_heap *h, int gen) {
  return (int64_t)h->gen[gen].size_after - frag_after(h, gen);
}

static uint64_t heap_stats_gen_size(const struct gcs_ev_GCHeapStats *s, int gen) {
  switch (gen) {
  case GCS_GEN0: return s->GenerationSize0;
  case GCS_GEN1: return s->GenerationSize1;
  case GCS_GEN2: return s->GenerationSize2;
  case GCS_GEN_LOH: return s->GenerationSize3;
  default: return s->GenerationSize4;
  }
}

static uint64_t heap_stats_gen_promoted(const struct gcs_ev_GCHeapStats *s, int gen) {
  switch (gen) {
  case GCS_GEN0: return s->TotalPromotedSize0;
  case GCS_GEN1: return s->TotalPromotedSize1;
  case GCS_GEN2: return s->TotalPromotedSize2;
  case GCS_GEN_LOH: return s->TotalPromotedSize3;
  default: return s->TotalPromotedSize4;
  }
}

/* TraceGC.GenSizeBeforeMB, including PerfView's estimate without PHH. */
static double gen_before_mb(struct recon_proc *p, struct recon_gc *gc, int gen) {
  struct gcs_gc *g = &gc->g;
  if (per_heap_history_has_gen(g, gen)) {
    double sum = 0;
    for (int h = 0; h < g->nheaps; h++) sum += (double)g->heaps[h].gen[gen].size_before;
    return sum / 1e6;
  }
  if (g->list_index == 0) return gen == GCS_GEN0 ? g->alloc_tick_mb[GCS_ALLOC_KIND_SMALL] : 0;
  const struct gcs_ev_GCHeapStats *ps = NULL, *cs = &g->heap_stats;
  /* QUIRK: GCs[0] is never used. Positions in p->gcs: list index - base. */
  for (int j = g->list_index - 1; j > 0 && j >= p->base; j--) {
    if (p->gcs[j - p->base]->g.has_heap_stats) {
      ps = &p->gcs[j - p->base]->g.heap_stats;
      break;
    }
  }
  if (!ps && p->has_freed_stats) ps = &p->freed_stats; /* the latest freed one (recon_internal.h) */
  if (!ps) return 0;
  double a, b;
  switch (gen) {
  case GCS_GEN0:
    a = (double)ps->GenerationSize0 / 1e6;
    return a > g->alloc_tick_mb[GCS_ALLOC_KIND_SMALL] ? a : g->alloc_tick_mb[GCS_ALLOC_KIND_SMALL];
  case GCS_GEN1: return (double)ps->GenerationSize1 / 1e6;
  case GCS_GEN2: return (double)ps->GenerationSize2 / 1e6;
  default:
    a = (double)heap_stats_gen_size(ps, gen);
    b = g->has_heap_stats ? (double)heap_stats_gen_size(cs, gen) : 0;
    return (a > b ? a : b) / 1e6;
  }
}

/* GetUserAllocatedPerHeap (bytes), PHH V3+. */
static double user_alloc_per_heap(const struct gcs_gc *g, const struct gcs_gc *prev, int h, int gen) {
  const struct gcs_gc_heap *ch = &g->heaps[h];
  if ((int)ch->gen_count <= gen) return 0;
  int64_t prev_obj = 0;
  if (h < prev->nheaps && (int)prev->heaps[h].gen_count > gen) {
    prev_obj = obj_size_after(&prev->heaps[h], gen);
    if (gen >= GCS_GEN_LOH && prev_obj == 0 && prev->gen < GCS_GEN1)
      prev_obj = obj_space_before(&prev->heaps[h], gen);
  }
  return (double)(obj_space_before(ch, gen) - prev_obj);
}

/* The GC before this one in the list (NULL for the first): never freed
 * while a GC after it may still be computed (recon_internal.h). */
static const struct recon_gc *previous_gc(const struct recon_proc *p, const struct gcs_gc *g) {
  int i = g->list_index - p->base;
  return i > 0 ? p->gcs[i - 1] : NULL;
}

static double user_alloc_mb(struct recon_proc *p, struct recon_gc *gc, int gen) {
  struct gcs_gc *g = &gc->g;
  if (gcs_type_is_background(g->type) && gen == GCS_GEN0) return g->alloc_tick_mb[GCS_ALLOC_KIND_SMALL];
  const struct recon_gc *pr = previous_gc(p, g);
  if (g->nheaps > 0 && pr && pr->g.nheaps > 0) {
    const struct gcs_gc *prev = &pr->g;
    double sum = 0;
    for (int h = 0; h < g->nheaps; h++) sum += user_alloc_per_heap(g, prev, h, gen);
    return sum / 1e6;
  }
  /* QUIRK: POH uses the LOH tick bucket */
  return g->alloc_tick_mb[gen == GCS_GEN0 ? GCS_ALLOC_KIND_SMALL : GCS_ALLOC_KIND_LARGE];
}

/* ---- condemned reasons (TraceEvent's GCCondemnedReasons) ------------------- */

/* Which group of PerfView's condemned-reasons row each CondemnReasons1
 * condition sets (to 1). high_mem_p and very_high_mem_p set none; the
 * induced conditions and max_gen1 set values of their own (decode_condemned). */
static const struct { uint8_t condition, group; } condition_group[] = {
  { GCS_CONDEMN_CONDITIONS_EXPAND_FULLGC_P, GCS_cr_expand_heap },
  { GCS_CONDEMN_CONDITIONS_LOW_EPHEMERAL_P, GCS_cr_low_ephemeral },
  { GCS_CONDEMN_CONDITIONS_LOW_CARD_P, GCS_cr_internal_tuning },
  { GCS_CONDEMN_CONDITIONS_EPH_HIGH_FRAG_P, GCS_cr_fragmented_ephemeral },
  { GCS_CONDEMN_CONDITIONS_MAX_HIGH_FRAG_P, GCS_cr_fragmented_gen2 },
  { GCS_CONDEMN_CONDITIONS_MAX_HIGH_FRAG_E_P, GCS_cr_fragmented_gen1_to_gen2 },
  { GCS_CONDEMN_CONDITIONS_MAX_HIGH_FRAG_M_P, GCS_cr_fragmented_gen2_high_mem },
  { GCS_CONDEMN_CONDITIONS_MAX_HIGH_FRAG_VM_P, GCS_cr_fragmented_gen2_high_mem },
  { GCS_CONDEMN_CONDITIONS_BEFORE_OOM, GCS_cr_gc_before_oom },
  { GCS_CONDEMN_CONDITIONS_GEN2_TOO_SMALL, GCS_cr_too_small_for_bgc },
  { GCS_CONDEMN_CONDITIONS_BEFORE_BGC, GCS_cr_ephemeral_before_bgc },
  { GCS_CONDEMN_CONDITIONS_ALMOST_MAX_ALLOC, GCS_cr_almost_max_alloc },
  { GCS_CONDEMN_CONDITIONS_AVOID_UNPRODUCTIVE, GCS_cr_avoid_unproductive },
  { GCS_CONDEMN_CONDITIONS_PM_INDUCED_FULLGC_P, GCS_cr_pm_induced_fullgc },
  { GCS_CONDEMN_CONDITIONS_PM_ALLOC_LOH, GCS_cr_pm_alloc_loh },
  { GCS_CONDEMN_CONDITIONS_GEN1_IN_PM, GCS_cr_gen1_in_pm },
  { GCS_CONDEMN_CONDITIONS_LIMIT_BEFORE_OOM, GCS_cr_limit_before_oom },
  { GCS_CONDEMN_CONDITIONS_LIMIT_LOH_FRAG, GCS_cr_limit_loh_frag },
  { GCS_CONDEMN_CONDITIONS_LIMIT_LOH_RECLAIM, GCS_cr_limit_loh_reclaim },
  { GCS_CONDEMN_CONDITIONS_SERVO_INITIAL, GCS_cr_servo_initial },
  { GCS_CONDEMN_CONDITIONS_SERVO_NGC, GCS_cr_servo_ngc },
  { GCS_CONDEMN_CONDITIONS_SERVO_BGC, GCS_cr_servo_bgc },
  { GCS_CONDEMN_CONDITIONS_SERVO_POSTPONE, GCS_cr_servo_postpone },
  { GCS_CONDEMN_CONDITIONS_STRESS_MIX, GCS_cr_stress_mix },
  { GCS_CONDEMN_CONDITIONS_STRESS, GCS_cr_stress },
  { GCS_CONDEMN_CONDITIONS_AGGRESSIVE, GCS_cr_aggressive },
};

/* The generation-valued groups come first in both the row and CondemnReasons0. */
_Static_assert((int)GCS_cr_initial_generation == (int)GCS_CONDEMN_GEN_GROUPS_INITIAL_GENERATION &&
                   (int)GCS_cr_time_tuning == (int)GCS_CONDEMN_GEN_GROUPS_TIME_TUNING,
               "condemned-reasons row and CondemnReasons0 groups disagree");

static int condition_held(uint32_t r1, unsigned condition) { return (r1 >> condition) & 1u; }

static void decode_condemned(uint32_t r0, uint32_t r1, uint8_t out[GCS_CONDEMN_GROUP_COUNT]) {
  memset(out, 0, GCS_CONDEMN_GROUP_COUNT);
  for (int i = GCS_CONDEMN_GEN_GROUPS_INITIAL_GENERATION; i <= GCS_CONDEMN_GEN_GROUPS_TIME_TUNING; i++)
    out[i] = (uint8_t)((r0 >> (2 * i)) & 3);
  for (size_t i = 0; i < sizeof condition_group / sizeof condition_group[0]; i++)
    if (condition_held(r1, condition_group[i].condition))
      out[condition_group[i].group] = 1;
  if (condition_held(r1, GCS_CONDEMN_CONDITIONS_MAX_GEN1)) out[GCS_cr_alloc_exceeded] = GCS_GEN2;
  if (condition_held(r1, GCS_CONDEMN_CONDITIONS_INDUCED_FULLGC_P))
    out[GCS_cr_induced] = GCS_CR_INDUCED_BLOCKING;
  if (condition_held(r1, GCS_CONDEMN_CONDITIONS_INDUCED_NOFORCE_P)) /* wins over induced_fullgc_p */
    out[GCS_cr_induced] = GCS_CR_INDUCED_NOT_FORCED;
}

static void condemned_row(struct gcs_gc *g) {
  memset(g->condemned, 0, sizeof g->condemned);
  uint8_t row[GCS_CONDEMN_GROUP_COUNT];
  if (g->nheaps > 0) {
    int pick = 0;
    if (g->nheaps > 1) {
      for (int h = 0; h < g->nheaps; h++) {
        decode_condemned(g->heaps[h].condemn_reasons0, g->heaps[h].condemn_reasons1, row);
        if (row[GCS_cr_final_generation] == g->gen) {
          pick = h;
          break;
        }
      }
      if (g->gen == GCS_GEN2 && gcs_type_is_blocking(g->type)) {
        for (int h = pick; h < g->nheaps; h++) { /* QUIRK: ends on the last such heap */
          decode_condemned(g->heaps[h].condemn_reasons0, g->heaps[h].condemn_reasons1, row);
          if (row[GCS_cr_expand_heap] + row[GCS_cr_gc_before_oom] + row[GCS_cr_fragmented_gen2] +
                  row[GCS_cr_fragmented_gen2_high_mem] > 0)
            pick = h;
        }
      }
    }
    decode_condemned(g->heaps[pick].condemn_reasons0, g->heaps[pick].condemn_reasons1, g->condemned);
  }
  if (g->has_global_history && g->global_version >= 3) {
    decode_condemned(g->global.CondemnReasons0, g->global.CondemnReasons1, row);
    for (int i = 0; i < GCS_CONDEMN_GROUP_COUNT; i++) g->condemned[i] |= row[i];
  }
}

/* ---- per GC ---------------------------------------------------------------- */

static double safe_div(double a, double b) { return b == 0 ? NAN : a / b; }

/* Figures that need only this GC and the ones before it. */
void recon_calc_gc(struct gcs_recon *r, struct recon_proc *p, struct recon_gc *gc) {
  (void)r;
  struct gcs_gc *g = &gc->g;
  int began_inside = (g->incomplete & GCS_INC_BEGAN_BEFORE_TRACE) != 0;
  g->pause_start_msec = ns_to_ms(gc->pause_start_ns);
  g->start_msec = ns_to_ms(gc->start_ns_rel);
  g->suspend_msec = began_inside ? NAN : ns_to_ms(gc->suspend_ns);
  g->duration_msec = gc->has_end ? ns_to_ms(gc->duration_ns) : NAN;
  int pause_known = g->complete || (gcs_type_is_blocking(g->type) && g->restart_end_ns && !began_inside);
  g->pause_msec = pause_known ? ns_to_ms(gc->pause_ns) : NAN;
  if (gcs_type_is_background(g->type)) {
    g->bgc_pause1_msec = gc->bgc_pause1_ns >= 0 ? ns_to_ms(gc->bgc_pause1_ns) : NAN;
    g->bgc_pause2_msec = gc->bgc_pause2_ns >= 0 ? ns_to_ms(gc->bgc_pause2_ns) : NAN;
  }
  /* the runtime's own pause (recon.c runtime_pauses) */
  if (!g->complete) g->runtime_pause_msec = NAN;
  else if (gc->rt_pause_ns >= 0) g->runtime_pause_msec = ns_to_ms(gc->rt_pause_ns);
  else if (gc->rt_bgc1_ns >= 0 && gc->rt_bgc2_ns >= 0) g->runtime_pause_msec = ns_to_ms(gc->rt_bgc1_ns + gc->rt_bgc2_ns);
  else g->runtime_pause_msec = NAN;

  if (!g->has_heap_stats) {
    g->after_mb = g->promoted_mb = g->before_mb = g->peak_mb = g->ratio_peak_after = NAN;
    g->total_alloc_mb = g->alloc_rate_mb_sec = g->gen0_alloc_rate_mb_sec = NAN;
    g->pct_pause_time = g->pct_gc = g->finalizable_surv_mb = NAN;
    for (int k = 0; k < GCS_GENS; k++) {
      g->gen_after_mb[k] = g->gen_promoted_mb[k] = g->gen_before_mb[k] = NAN;
      g->gen_survival_pct[k] = g->gen_frag_mb[k] = g->gen_frag_pct[k] = NAN;
      g->gen_in_mb[k] = g->gen_out_mb[k] = g->gen_budget_mb[k] = g->gen_obj_size_after_mb[k] = NAN;
      g->user_alloc_mb[k] = NAN;
    }
    condemned_row(g);
    return;
  }

  const struct gcs_ev_GCHeapStats *s = &g->heap_stats;
  double after = 0, promoted = 0;
  for (int k = 0; k < GCS_GENS; k++) {
    after += (double)heap_stats_gen_size(s, k);
    promoted += (double)heap_stats_gen_promoted(s, k);
    g->gen_after_mb[k] = (double)heap_stats_gen_size(s, k) / 1e6;
    g->gen_promoted_mb[k] = (double)heap_stats_gen_promoted(s, k) / 1e6;
  }
  g->after_mb = after / 1e6;
  g->promoted_mb = promoted / 1e6;
  g->finalizable_surv_mb = (double)s->FinalizationPromotedSize / 1e6;

  g->before_mb = 0;
  for (int k = 0; k < GCS_GENS; k++) {
    g->gen_before_mb[k] = gen_before_mb(p, gc, k);
    g->before_mb += g->gen_before_mb[k];
  }
  g->peak_mb = g->before_mb; /* BGC: completed in recon_calc_all */
  g->ratio_peak_after = safe_div(g->peak_mb, g->after_mb);

  for (int k = 0; k < GCS_GENS; k++) {
    int valid = per_heap_history_has_gen(g, k);
    double frag = 0, in = 0, out = 0, budget = 0, osa = 0;
    long surv = 0;
    if (valid) {
      for (int h = 0; h < g->nheaps; h++) {
        const struct gcs_gc_heap *hh = &g->heaps[h];
        int64_t osb = obj_space_before(hh, k);
        double o = (double)hh->gen[k].pinned_surv + (double)hh->gen[k].non_pinned_surv;
        surv += osb == 0 ? 0 : (long)(o * 100.0 / (double)osb);
        frag += (double)frag_after(hh, k);
        in += (double)hh->gen[k].in;
        out += o;
        budget += (double)hh->gen[k].new_allocation;
        osa += (double)obj_size_after(hh, k);
      }
      surv /= g->nheaps;
    }
    int surv_nan = !valid || (k >= GCS_GEN_LOH && g->gen < GCS_GEN2) ||
                   (k < GCS_NGENS_SOH && (uint32_t)k > g->gen);
    g->gen_survival_pct[k] = surv_nan ? NAN : (double)surv;
    g->gen_frag_mb[k] = valid ? frag / 1e6 : NAN;
    g->gen_frag_pct[k] = valid ? safe_div(g->gen_frag_mb[k] * 100, g->gen_after_mb[k]) : NAN;
    g->gen_in_mb[k] = valid ? in / 1e6 : NAN;
    g->gen_out_mb[k] = valid ? out / 1e6 : NAN;
    g->gen_budget_mb[k] = valid ? budget / 1e6 : NAN;
    g->gen_obj_size_after_mb[k] = valid ? osa / 1e6 : NAN;
  }

  memset(g->user_alloc_mb, 0, sizeof g->user_alloc_mb);
  g->user_alloc_mb[GCS_GEN0] = user_alloc_mb(p, gc, GCS_GEN0);
  g->user_alloc_mb[GCS_GEN_LOH] = user_alloc_mb(p, gc, GCS_GEN_LOH);
  g->user_alloc_mb[GCS_GEN_POH] = user_alloc_mb(p, gc, GCS_GEN_POH);
  g->total_alloc_mb =
      g->user_alloc_mb[GCS_GEN0] + g->user_alloc_mb[GCS_GEN_LOH] + g->user_alloc_mb[GCS_GEN_POH];
  g->alloc_rate_mb_sec = safe_div(g->total_alloc_mb * 1000, g->since_last_restart_msec);
  g->gen0_alloc_rate_mb_sec = safe_div(g->user_alloc_mb[GCS_GEN0] * 1000, g->since_last_restart_msec);

  if (gcs_type_is_blocking(g->type)) {
    g->pct_pause_time = safe_div(g->pause_msec * 100, g->pause_msec + g->since_last_restart_msec);
  } else {
    double prev_stop;
    const struct recon_gc *pr = previous_gc(p, g);
    if (pr) {
      prev_stop = ns_to_ms(pr->start_ns_rel) + (pr->has_end ? ns_to_ms(pr->duration_ns) : 0);
    } else {
      prev_stop = g->start_msec;
    }
    double dur = gc->has_end ? ns_to_ms(gc->duration_ns) : 0;
    g->pct_pause_time = safe_div(g->pause_msec * 100, (g->start_msec + dur) - prev_stop);
  }
  g->pct_gc = isnan(g->gc_cpu_msec)
                  ? NAN
                  : safe_div(g->gc_cpu_msec * 100, g->since_last_restart_msec + g->pause_msec);
  condemned_row(g);
}

static double max_ignoring_nan(double a, double b) { return isnan(a) ? b : (isnan(b) ? a : (a > b ? a : b)); }

void recon_fold_init(struct recon_fold *f) {
  f->gc_count = f->incomplete_count = f->induced_count = 0;
  f->total_pause = f->total_alloc = f->total_promoted = 0;
  f->max_pause = f->max_suspend = f->max_alloc_rate = f->max_heap = NAN;
  f->total_gc_cpu = f->total_alloc_measured = f->total_runtime_pause = NAN;
  f->heap_count_min = f->heap_count_max = -1;
  f->heap_count_changes = 0;
  f->last_heaps = -1;
  f->first_pause_start = NAN;
}

/* One GC more, in list order. */
void recon_fold_add(struct recon_fold *f, const struct gcs_gc *g) {
  if (!g->complete) {
    f->incomplete_count++;
    return;
  }
  f->gc_count++;
  if (gcs_reason_is_induced(g->reason)) f->induced_count++;
  f->total_pause += g->pause_msec;
  f->max_pause = max_ignoring_nan(f->max_pause, g->pause_msec);
  f->max_suspend = max_ignoring_nan(f->max_suspend, g->suspend_msec);
  /* A GC complete without GCHeapStats (the provisional-mode gen1 that a
   * PMFullGC start ends) has no allocated or promoted figure: it adds nothing
   * to those totals (PerfView adds its PromotedMB, -1, and the allocation
   * estimate). Every other GC's terms are added as before, in list order. */
  if (!isnan(g->total_alloc_mb)) f->total_alloc += g->total_alloc_mb;
  if (!isnan(g->total_alloc_measured_mb))
    f->total_alloc_measured = (isnan(f->total_alloc_measured) ? 0 : f->total_alloc_measured) + g->total_alloc_measured_mb;
  f->max_alloc_rate = max_ignoring_nan(f->max_alloc_rate, g->alloc_rate_mb_sec);
  f->max_heap = max_ignoring_nan(f->max_heap, g->peak_mb);
  if (!isnan(g->promoted_mb)) f->total_promoted += g->promoted_mb;
  if (!isnan(g->gc_cpu_msec)) f->total_gc_cpu = (isnan(f->total_gc_cpu) ? 0 : f->total_gc_cpu) + g->gc_cpu_msec;
  if (!isnan(g->runtime_pause_msec))
    f->total_runtime_pause = (isnan(f->total_runtime_pause) ? 0 : f->total_runtime_pause) + g->runtime_pause_msec;
  if (g->has_global_history && g->heap_count > 0) {
    if (f->heap_count_min < 0 || g->heap_count < f->heap_count_min) f->heap_count_min = g->heap_count;
    if (g->heap_count > f->heap_count_max) f->heap_count_max = g->heap_count;
    if (f->last_heaps > 0 && g->heap_count != f->last_heaps) f->heap_count_changes++;
    f->last_heaps = g->heap_count;
  }
  if (isnan(f->first_pause_start)) f->first_pause_start = g->pause_start_msec;
}

/* The summary: the fold of the GCs written early (below `from`, freed or
 * not; recon_internal.h) and of the rest. */
static void summarize(struct recon_proc *p, int from) {
  struct gcs_proc_summary *s = &p->sum;
  struct recon_fold f = p->fold;
  for (int j = from; j < p->ngcs; j++) recon_fold_add(&f, &p->gcs[j]->g);
  s->gc_count = f.gc_count;
  s->incomplete_count = f.incomplete_count;
  s->induced_count = f.induced_count;
  s->total_pause_msec = f.total_pause;
  s->max_pause_msec = f.max_pause;
  s->max_suspend_msec = f.max_suspend;
  s->total_alloc_mb = f.total_alloc;
  s->total_alloc_measured_mb = f.total_alloc_measured;
  s->max_alloc_rate_mb_sec = f.max_alloc_rate;
  s->max_heap_mb = f.max_heap;
  s->total_promoted_mb = f.total_promoted;
  s->total_gc_cpu_msec = f.total_gc_cpu;
  s->total_runtime_pause_msec = f.total_runtime_pause;
  s->heap_count_min = f.heap_count_min;
  s->heap_count_max = f.heap_count_max;
  s->heap_count_changes = f.heap_count_changes;
  double first_pause_start = f.first_pause_start;
  s->mean_pause_msec = s->gc_count ? s->total_pause_msec / s->gc_count : NAN;
  s->process_duration_msec = 0;
  if (!isnan(first_pause_start) && first_pause_start != 0 && p->has_last_heap_stats)
    s->process_duration_msec = ns_to_ms(p->last_heap_stats) - first_pause_start;
  s->pct_pause_time = s->process_duration_msec == 0 ? 0
                                                    : s->total_pause_msec * 100 / s->process_duration_msec;
  s->first_event_msec = ns_to_ms(p->first_event);
  s->last_event_msec = ns_to_ms(p->last_event);
}

int recon_calc_bgc_peak(const struct recon_proc *p, int j, int limit, double *peak_mb, double *ratio) {
  const struct gcs_gc *g = &p->gcs[j]->g;
  double end = g->pause_start_msec + (isnan(g->duration_msec) ? 0 : g->duration_msec), peak = g->peak_mb;
  int k;
  for (k = j + 1; k < limit; k++) {
    const struct gcs_gc *o = &p->gcs[k]->g;
    if (o->pause_start_msec > end) break;
    if (o->complete) peak = max_ignoring_nan(peak, o->before_mb);
  }
  *peak_mb = peak;
  *ratio = safe_div(peak, g->after_mb);
  return k < limit;
}

/* PerfView's Calculate(): recompute every GC with the whole list known, then
 * the BGC peaks (they look at later GCs) and the summary. The GCs written
 * early (below p->stored) are left as written: their
 * figures were final (gcs_recon_store_final), the summary has them already
 * (p->fold), and the ones before them may be freed. */
void recon_calc_all(struct gcs_recon *r) {
  for (int i = 0; i < r->nprocs; i++) {
    struct recon_proc *p = r->procs[i];
    int from = p->stored;
    for (int j = from; j < p->ngcs; j++) recon_calc_gc(r, p, p->gcs[j]);
    recon_alloc_advance(r, p, 1, 0);
    for (int j = from; j < p->ngcs; j++) {
      struct gcs_gc *g = &p->gcs[j]->g;
      if (!gcs_type_is_background(g->type) || !g->complete) continue;
      recon_calc_bgc_peak(p, j, p->ngcs, &g->peak_mb, &g->ratio_peak_after);
    }
    summarize(p, from);
  }
}
