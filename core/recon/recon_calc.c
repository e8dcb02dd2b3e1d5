/*
 * recon_calc.c — derived per-GC figures and the per-process summary: what
 * TraceEvent computes in TraceGC.OnEnd and recomputes in Calculate()
 * (perfview-gcstats.md §3.2–§3.8, §4). Quirks are kept where they change a
 * printed figure and are marked QUIRK.
 */
#include <math.h>
#include <string.h>

#include "recon_internal.h"

static int phh_has_gen(const struct gcs_gc *g, int gen) {
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

static uint64_t hs_size(const struct gcs_ev_GCHeapStats *s, int gen) {
  switch (gen) {
  case 0: return s->GenerationSize0;
  case 1: return s->GenerationSize1;
  case 2: return s->GenerationSize2;
  case 3: return s->GenerationSize3;
  default: return s->GenerationSize4;
  }
}

static uint64_t hs_promoted(const struct gcs_ev_GCHeapStats *s, int gen) {
  switch (gen) {
  case 0: return s->TotalPromotedSize0;
  case 1: return s->TotalPromotedSize1;
  case 2: return s->TotalPromotedSize2;
  case 3: return s->TotalPromotedSize3;
  default: return s->TotalPromotedSize4;
  }
}

/* GenSizeBeforeMB (§3.4), including PerfView's estimate without PHH. */
static double gen_before_mb(struct rproc *p, struct rgc *gc, int gen) {
  struct gcs_gc *g = &gc->g;
  if (phh_has_gen(g, gen)) {
    double sum = 0;
    for (int h = 0; h < g->nheaps; h++) sum += (double)g->heaps[h].gen[gen].size_before;
    return sum / 1e6;
  }
  if (g->list_index == 0) return gen == 0 ? g->alloc_tick_mb[0] : 0;
  const struct gcs_gc *prev = NULL;
  for (int j = g->list_index - 1; j > 0; j--) { /* QUIRK: GCs[0] is never used */
    if (p->gcs[j]->g.has_heap_stats) {
      prev = &p->gcs[j]->g;
      break;
    }
  }
  if (!prev) return 0;
  const struct gcs_ev_GCHeapStats *ps = &prev->heap_stats, *cs = &g->heap_stats;
  double a, b;
  switch (gen) {
  case 0:
    a = (double)ps->GenerationSize0 / 1e6;
    return a > g->alloc_tick_mb[0] ? a : g->alloc_tick_mb[0];
  case 1: return (double)ps->GenerationSize1 / 1e6;
  case 2: return (double)ps->GenerationSize2 / 1e6;
  default:
    a = (double)hs_size(ps, gen);
    b = g->has_heap_stats ? (double)hs_size(cs, gen) : 0;
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
    if (gen >= 3 && prev_obj == 0 && prev->gen < 1) prev_obj = obj_space_before(&prev->heaps[h], gen);
  }
  return (double)(obj_space_before(ch, gen) - prev_obj);
}

static double user_alloc_mb(struct rproc *p, struct rgc *gc, int gen) {
  struct gcs_gc *g = &gc->g;
  if (g->type == 1 && gen == 0) return g->alloc_tick_mb[0];
  if (g->nheaps > 0 && g->list_index > 0 && p->gcs[g->list_index - 1]->g.nheaps > 0) {
    const struct gcs_gc *prev = &p->gcs[g->list_index - 1]->g;
    double sum = 0;
    for (int h = 0; h < g->nheaps; h++) sum += user_alloc_per_heap(g, prev, h, gen);
    return sum / 1e6;
  }
  return g->alloc_tick_mb[gen == 0 ? 0 : 1]; /* QUIRK: POH uses the LOH tick bucket */
}

/* ---- condemned reasons (§3.8) --------------------------------------------- */

static void decode_condemned(uint32_t r0, uint32_t r1, uint8_t out[30]) {
  memset(out, 0, 30);
  for (int i = 0; i < 4; i++) out[i] = (uint8_t)((r0 >> (2 * i)) & 3);
  for (int c = 0; c <= 30; c++) {
    if (!(r1 & (1u << c))) continue;
    switch (c) {
    case 0: out[4] = 1; break;       /* induced_fullgc_p: Induced = Blocking */
    case 1: out[6] = 1; break;       /* expand_fullgc_p */
    case 2: case 3: break;           /* high_mem_p, very_high_mem_p: ignored */
    case 4: out[5] = 1; break;       /* low_ephemeral_p */
    case 5: out[14] = 1; break;      /* low_card_p: Internal_Tuning */
    case 6: out[7] = 1; break;
    case 7: out[9] = 1; break;
    case 8: out[8] = 1; break;
    case 9: case 10: out[10] = 1; break;
    case 11: out[2] = 2; break;      /* max_gen1: Alloc_Exceeded := 2 */
    case 12: out[11] = 1; break;
    case 13: out[12] = 1; break;
    case 14: break;                  /* applied below (wins over 0) */
    case 15: out[13] = 1; break;
    default: out[c - 1] = 1; break;  /* 16..30 -> groups 15..29 */
    }
  }
  if (r1 & (1u << 14)) out[4] = 2;   /* induced_noforce_p: NotForced */
}

static void condemned_row(struct gcs_gc *g) {
  memset(g->condemned, 0, sizeof g->condemned);
  uint8_t row[30];
  if (g->nheaps > 0) {
    int pick = 0;
    if (g->nheaps > 1) {
      for (int h = 0; h < g->nheaps; h++) {
        decode_condemned(g->heaps[h].condemn_reasons0, g->heaps[h].condemn_reasons1, row);
        if (row[1] == g->gen) {
          pick = h;
          break;
        }
      }
      if (g->gen == 2 && g->type != 1) {
        for (int h = pick; h < g->nheaps; h++) { /* QUIRK: ends on the last such heap */
          decode_condemned(g->heaps[h].condemn_reasons0, g->heaps[h].condemn_reasons1, row);
          if (row[6] + row[11] + row[9] + row[10] > 0) pick = h;
        }
      }
    }
    decode_condemned(g->heaps[pick].condemn_reasons0, g->heaps[pick].condemn_reasons1, g->condemned);
  }
  if (g->has_global_history && g->global_version >= 3) {
    decode_condemned(g->global.CondemnReasons0, g->global.CondemnReasons1, row);
    for (int i = 0; i < 30; i++) g->condemned[i] |= row[i];
  }
}

/* ---- per GC ---------------------------------------------------------------- */

static double safe_div(double a, double b) { return b == 0 ? NAN : a / b; }

/* Figures that need only this GC and the ones before it. */
void recon_calc_gc(struct gcs_recon *r, struct rproc *p, struct rgc *gc) {
  (void)r;
  struct gcs_gc *g = &gc->g;
  int began_inside = (g->incomplete & GCS_INC_BEGAN_BEFORE_TRACE) != 0;
  g->pause_start_msec = ns_to_ms(gc->pause_start_ns);
  g->start_msec = ns_to_ms(gc->start_ns_rel);
  g->suspend_msec = began_inside ? NAN : ns_to_ms(gc->suspend_ns);
  g->duration_msec = gc->has_end ? ns_to_ms(gc->duration_ns) : NAN;
  int pause_known = g->complete || (g->type != 1 && g->restart_end_ns && !began_inside);
  g->pause_msec = pause_known ? ns_to_ms(gc->pause_ns) : NAN;
  if (g->type == 1) {
    g->bgc_pause1_msec = gc->bgc_pause1_ns >= 0 ? ns_to_ms(gc->bgc_pause1_ns) : NAN;
    g->bgc_pause2_msec = gc->bgc_pause2_ns >= 0 ? ns_to_ms(gc->bgc_pause2_ns) : NAN;
  }

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
    after += (double)hs_size(s, k);
    promoted += (double)hs_promoted(s, k);
    g->gen_after_mb[k] = (double)hs_size(s, k) / 1e6;
    g->gen_promoted_mb[k] = (double)hs_promoted(s, k) / 1e6;
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
    int valid = phh_has_gen(g, k);
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
    int surv_nan = !valid || (k >= 3 && g->gen < 2) || (k <= 2 && (uint32_t)k > g->gen);
    g->gen_survival_pct[k] = surv_nan ? NAN : (double)surv;
    g->gen_frag_mb[k] = valid ? frag / 1e6 : NAN;
    g->gen_frag_pct[k] = valid ? safe_div(g->gen_frag_mb[k] * 100, g->gen_after_mb[k]) : NAN;
    g->gen_in_mb[k] = valid ? in / 1e6 : NAN;
    g->gen_out_mb[k] = valid ? out / 1e6 : NAN;
    g->gen_budget_mb[k] = valid ? budget / 1e6 : NAN;
    g->gen_obj_size_after_mb[k] = valid ? osa / 1e6 : NAN;
  }

  memset(g->user_alloc_mb, 0, sizeof g->user_alloc_mb);
  g->user_alloc_mb[0] = user_alloc_mb(p, gc, 0);
  g->user_alloc_mb[3] = user_alloc_mb(p, gc, 3);
  g->user_alloc_mb[4] = user_alloc_mb(p, gc, 4);
  g->total_alloc_mb = g->user_alloc_mb[0] + g->user_alloc_mb[3] + g->user_alloc_mb[4];
  g->alloc_rate_mb_sec = safe_div(g->total_alloc_mb * 1000, g->since_last_restart_msec);
  g->gen0_alloc_rate_mb_sec = safe_div(g->user_alloc_mb[0] * 1000, g->since_last_restart_msec);

  if (g->type != 1) {
    g->pct_pause_time = safe_div(g->pause_msec * 100, g->pause_msec + g->since_last_restart_msec);
  } else {
    double prev_stop;
    if (g->list_index > 0) {
      const struct rgc *pr = p->gcs[g->list_index - 1];
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

static double maxd(double a, double b) { return isnan(a) ? b : (isnan(b) ? a : (a > b ? a : b)); }

static void summarize(struct rproc *p) {
  struct gcs_proc_summary *s = &p->sum;
  s->gc_count = s->incomplete_count = s->induced_count = 0;
  s->total_pause_msec = s->total_alloc_mb = s->total_promoted_mb = 0;
  s->max_pause_msec = s->max_suspend_msec = s->max_alloc_rate_mb_sec = s->max_heap_mb = NAN;
  s->total_gc_cpu_msec = NAN;
  double first_pause_start = NAN;
  for (int j = 0; j < p->ngcs; j++) {
    const struct gcs_gc *g = &p->gcs[j]->g;
    if (!g->complete) {
      s->incomplete_count++;
      continue;
    }
    s->gc_count++;
    if (g->reason == 1 || g->reason == 7) s->induced_count++;
    s->total_pause_msec += g->pause_msec;
    s->max_pause_msec = maxd(s->max_pause_msec, g->pause_msec);
    s->max_suspend_msec = maxd(s->max_suspend_msec, g->suspend_msec);
    s->total_alloc_mb += g->total_alloc_mb;
    s->max_alloc_rate_mb_sec = maxd(s->max_alloc_rate_mb_sec, g->alloc_rate_mb_sec);
    s->max_heap_mb = maxd(s->max_heap_mb, g->peak_mb);
    s->total_promoted_mb += g->promoted_mb;
    if (!isnan(g->gc_cpu_msec))
      s->total_gc_cpu_msec = (isnan(s->total_gc_cpu_msec) ? 0 : s->total_gc_cpu_msec) + g->gc_cpu_msec;
    if (isnan(first_pause_start)) first_pause_start = g->pause_start_msec;
  }
  s->mean_pause_msec = s->gc_count ? s->total_pause_msec / s->gc_count : NAN;
  s->process_duration_msec = 0;
  if (!isnan(first_pause_start) && first_pause_start != 0 && p->has_last_heap_stats)
    s->process_duration_msec = ns_to_ms(p->last_heap_stats) - first_pause_start;
  s->pct_pause_time = s->process_duration_msec == 0 ? 0
                                                    : s->total_pause_msec * 100 / s->process_duration_msec;
  s->first_event_msec = ns_to_ms(p->first_event);
  s->last_event_msec = ns_to_ms(p->last_event);
}

/* PerfView's Calculate(): recompute every GC with the whole list known, then
 * the BGC peaks (they look at later GCs) and the summary. */
void recon_calc_all(struct gcs_recon *r) {
  for (int i = 0; i < r->nprocs; i++) {
    struct rproc *p = r->procs[i];
    for (int j = 0; j < p->ngcs; j++) recon_calc_gc(r, p, p->gcs[j]);
    for (int j = 0; j < p->ngcs; j++) {
      struct gcs_gc *g = &p->gcs[j]->g;
      if (g->type != 1 || !g->complete) continue;
      double end = g->pause_start_msec + (isnan(g->duration_msec) ? 0 : g->duration_msec);
      for (int k = j + 1; k < p->ngcs; k++) {
        const struct gcs_gc *o = &p->gcs[k]->g;
        if (o->pause_start_msec > end) break;
        if (o->complete) g->peak_mb = maxd(g->peak_mb, o->before_mb);
      }
      g->ratio_peak_after = safe_div(g->peak_mb, g->after_mb);
    }
    summarize(p);
  }
}
