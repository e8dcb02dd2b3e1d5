/* ins_advise.c — advisor rules over one process's GCs (see ins_advise.h). */
#include "gcs_enums.h"
#include "ins_advise.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_events.h"
#include "ins_stats.h"

void ins_advise_default_opts(struct ins_advise_opts *o) {
  *o = (struct ins_advise_opts){
      .pause_pct = 5, .window_pct = 10,
      .loh_share_pct = 50, .loh_min_count = 2,
      .gen2_frag_pct = 15,
      .gen0_frag_pct = 90,
      .eph_min_gcs = 5, .eph_factor = 3, .eph_min_excess_ms = 1, .eph_promoted_factor = 1.5,
      .suspend_ms = 5,
      .peak_after_ratio = 2, .peak_after_min_mb = 10,
      .leak_min_gcs = 3, .leak_growth_pct = 20,
  };
}

/* Appends printf-style text to a fixed buffer, truncating silently. */
static void cat(char *buf, size_t cap, const char *fmt, ...) {
  size_t len = strlen(buf);
  if (len + 1 >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + len, cap - len, fmt, ap);
  va_end(ap);
}

static struct ins_finding *add(struct ins_advice *a, const char *rule) {
  struct ins_finding *f = &a->f[a->n++];
  memset(f, 0, sizeof *f);
  f->rule = rule;
  return f;
}

static void cite(struct ins_finding *f, uint32_t gc) {
  if (f->n_gcs < INS_MAX_CITED) f->gcs[f->n_gcs++] = gc;
  f->n_gcs_total++;
}

/* "#3 (12.0 ms), #7 (9.1 ms)" of the cited GCs, using one figure per GC. */
static void cite_list(char *buf, size_t cap, const struct ins_gc *g, size_t n,
                      const struct ins_finding *f, const char *what) {
  for (size_t i = 0; i < f->n_gcs; i++) {
    for (size_t j = 0; j < n; j++) {
      if (g[j].index != f->gcs[i]) continue;
      double v = 0;
      const char *unit = "ms";
      if (strcmp(what, "pause") == 0) v = g[j].pause_ms;
      else if (strcmp(what, "suspend") == 0) v = g[j].suspend_ms;
      else if (strcmp(what, "gen2frag") == 0) { v = g[j].gen2_frag_before_pct; unit = "%"; }
      else if (strcmp(what, "gen0frag") == 0) { v = g[j].gen0_frag_pct; unit = "%"; }
      else if (strcmp(what, "after") == 0) { v = g[j].after_mb; unit = "MB"; }
      cat(buf, cap, "%s#%u (%.1f %s)", i ? ", " : "", g[j].index, v, unit);
      break;
    }
  }
  if (f->n_gcs_total > f->n_gcs) cat(buf, cap, ", ... %zu more", f->n_gcs_total - f->n_gcs);
}

static int is_induced(int reason) { return gcs_reason_is_requested((uint32_t)reason); }

static const char *reason_name(int reason) {
  const char *s = gcs_map_name("gc_reason", (uint32_t)reason);
  return s ? s : "Unknown";
}

static void rule_pause_time(const struct ins_gc *g, size_t n, const struct ins_proc_summary *ps,
                            const struct ins_advise_opts *o, struct ins_advice *a) {
  if (!ps || !(ps->duration_ms > 0)) return;
  double pct = ps->total_pause_ms * 100.0 / ps->duration_ms;
  int overall = pct > o->pause_pct;
  int window = !isnan(ps->worst_window_pct) && ps->worst_window_pct > o->window_pct;
  if (!overall && !window) return;
  struct ins_finding *f = add(a, "pause-time");
  if (overall)
    snprintf(f->finding, sizeof f->finding, "GC pauses take %.1f %% of the run (above %.0f %%)", pct, o->pause_pct);
  else
    snprintf(f->finding, sizeof f->finding,
             "GC pauses come in bursts: %.1f %% of a %.0f s window (above %.0f %%)",
             ps->worst_window_pct, ps->window_s, o->window_pct);
  cat(f->evidence, sizeof f->evidence, "total pause %.1f ms over %.1f ms = %.1f %%", ps->total_pause_ms,
      ps->duration_ms, pct);
  if (!isnan(ps->worst_window_pct))
    cat(f->evidence, sizeof f->evidence, "; worst %.0f s window %.1f %% paused, starting at %.3f ms",
        ps->window_s, ps->worst_window_pct, ps->worst_window_start_ms);
  /* The three longest pauses (earlier GC first on ties). */
  size_t top[3], nt = 0;
  for (; nt < 3; nt++) {
    size_t best = n;
    for (size_t i = 0; i < n; i++) {
      if (isnan(g[i].pause_ms)) continue;
      int taken = 0;
      for (size_t k = 0; k < nt; k++) taken |= top[k] == i;
      if (!taken && (best == n || g[i].pause_ms > g[best].pause_ms)) best = i;
    }
    if (best == n) break;
    top[nt] = best;
  }
  for (size_t i = 0; i < nt; i++) cite(f, g[top[i]].index);
  if (nt) {
    cat(f->evidence, sizeof f->evidence, "; longest pauses ");
    cite_list(f->evidence, sizeof f->evidence, g, n, f, "pause");
  }
  snprintf(f->next, sizeof f->next,
           "Split the pause by generation (gcscope stats): if gen2 GCs dominate see the gen2 findings; "
           "if ephemeral GCs dominate, allocate less (gcscope allocs) or keep less alive (Promoted MB).");
}

static void rule_loh_churn(const struct ins_gc *g, size_t n, const struct ins_advise_opts *o,
                           struct ins_advice *a) {
  size_t gen2 = 0, large = 0;
  for (size_t i = 0; i < n; i++)
    if (g[i].gen == GCS_GEN2) {
      gen2++;
      if (g[i].reason == GCS_GC_REASON_ALLOC_LARGE) large++;
    }
  if (large < o->loh_min_count || !(large * 100.0 / (double)gen2 > o->loh_share_pct)) return;
  struct ins_finding *f = add(a, "loh-churn");
  snprintf(f->finding, sizeof f->finding,
           "Allocating large objects triggers most gen2 GCs (LOH churn): %zu of %zu gen2 GCs are AllocLarge",
           large, gen2);
  for (size_t i = 0; i < n; i++)
    if (g[i].gen == GCS_GEN2 && g[i].reason == GCS_GC_REASON_ALLOC_LARGE) cite(f, g[i].index);
  cat(f->evidence, sizeof f->evidence, "%.1f %% of gen2 GCs triggered by AllocLarge: ", large * 100.0 / (double)gen2);
  cite_list(f->evidence, sizeof f->evidence, g, n, f, "pause");
  snprintf(f->next, sizeof f->next,
           "Find the large allocations (gcscope allocs, Large rows) and reuse those buffers (ArrayPool) "
           "instead of allocating them per operation; GCLOHThreshold raises the LOH size threshold.");
}

static void rule_induced(const struct ins_gc *g, size_t n, struct ins_advice *a) {
  size_t cnt = 0;
  for (size_t i = 0; i < n; i++) cnt += is_induced(g[i].reason);
  if (!cnt) return;
  struct ins_finding *f = add(a, "induced");
  snprintf(f->finding, sizeof f->finding, "%zu GC%s induced by code (GC.Collect or a low-memory request)",
           cnt, cnt == 1 ? " was" : "s were");
  static const int reasons[] = {1, 7, 9, 10, 17};
  for (size_t r = 0; r < sizeof reasons / sizeof *reasons; r++) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += g[i].reason == reasons[r];
    if (c) cat(f->evidence, sizeof f->evidence, "%s%s %zu", f->evidence[0] ? ", " : "", reason_name(reasons[r]), c);
  }
  for (size_t i = 0; i < n; i++)
    if (is_induced(g[i].reason)) cite(f, g[i].index);
  cat(f->evidence, sizeof f->evidence, "; GCs ");
  cite_list(f->evidence, sizeof f->evidence, g, n, f, "pause");
  snprintf(f->next, sizeof f->next,
           "Find who calls GC.Collect: record the GCTriggered event with call stacks and remove the call "
           "unless it is measured to help.");
}

static void rule_full_blocking(const struct ins_gc *g, size_t n, struct ins_advice *a) {
  uint32_t conds = 0;
  size_t cnt = 0;
  double longest = 0;
  for (size_t i = 0; i < n; i++)
    if (gcs_gc_is_blocking_gen2((uint32_t)g[i].gen, (uint32_t)g[i].type)) {
      cnt++;
      conds |= g[i].condemn_conditions;
      if (g[i].pause_ms > longest) longest = g[i].pause_ms;
    }
  if (!cnt) return;
  struct ins_finding *f = add(a, "full-blocking-gen2");
  snprintf(f->finding, sizeof f->finding, "%zu full blocking gen2 GC%s (2N), longest pause %.1f ms", cnt,
           cnt == 1 ? "" : "s", longest);
  for (size_t i = 0; i < n; i++)
    if (gcs_gc_is_blocking_gen2((uint32_t)g[i].gen, (uint32_t)g[i].type)) cite(f, g[i].index);
  cite_list(f->evidence, sizeof f->evidence, g, n, f, "pause");
  cat(f->evidence, sizeof f->evidence, "; condemned reasons:");
  if (!conds) cat(f->evidence, sizeof f->evidence, " none recorded");
  for (uint32_t b = 0; b < 32; b++)
    if (conds & (1u << b)) {
      const char *nm = gcs_map_name("condemn_conditions", b);
      if (nm) cat(f->evidence, sizeof f->evidence, " %s", nm);
      else cat(f->evidence, sizeof f->evidence, " bit%u", b);
    }
  int mem = (conds & ((1u << 2) | (1u << 3) | (1u << 9) | (1u << 10))) != 0;
  int frag = (conds & ((1u << 7) | (1u << 8) | (1u << 9) | (1u << 10))) != 0;
  int ind = (conds & ((1u << 0) | (1u << 14))) != 0;
  if (mem) cat(f->next, sizeof f->next, "High memory load made them blocking: reduce the heap or give the process more memory. ");
  if (frag) cat(f->next, sizeof f->next, "Gen2 fragmentation made them compacting: see how gen2 free space is used (gcscope heaps). ");
  if (ind) cat(f->next, sizeof f->next, "Some were induced: see the induced finding. ");
  cat(f->next, sizeof f->next,
      "Check why they were not background GCs (Condemned reasons); if the pause matters more than the "
      "heap size, GCLatencyMode.SustainedLowLatency avoids them unless they are needed.");
}

static void rule_gen2_frag(const struct ins_gc *g, size_t n, const struct ins_advise_opts *o,
                           struct ins_advice *a) {
  size_t bgcs = 0, hit = 0;
  for (size_t i = 0; i < n; i++)
    if (gcs_type_is_background((uint32_t)g[i].type) && !isnan(g[i].gen2_frag_before_pct)) {
      bgcs++;
      hit += g[i].gen2_frag_before_pct > o->gen2_frag_pct;
    }
  if (!hit) return;
  struct ins_finding *f = add(a, "gen2-frag-bgc");
  snprintf(f->finding, sizeof f->finding,
           "Gen2 free space is not used well: %zu of %zu background GCs started with gen2 fragmentation above %.0f %%",
           hit, bgcs, o->gen2_frag_pct);
  for (size_t i = 0; i < n; i++)
    if (gcs_type_is_background((uint32_t)g[i].type) && g[i].gen2_frag_before_pct > o->gen2_frag_pct) cite(f, g[i].index);
  cat(f->evidence, sizeof f->evidence, "gen2 fragmentation at BGC start: ");
  cite_list(f->evidence, sizeof f->evidence, g, n, f, "gen2frag");
  snprintf(f->next, sizeof f->next,
           "Look at the gen2 free-list and free-object space before these BGCs (gcscope heaps): if the free "
           "spaces are large but unused this is a BGC scheduling problem worth reporting to the .NET GC team.");
}

static void rule_gen0_frag(const struct ins_gc *g, size_t n, const struct ins_advise_opts *o,
                           struct ins_advice *a) {
  size_t hit = 0;
  for (size_t i = 0; i < n; i++) hit += g[i].gen0_frag_pct >= o->gen0_frag_pct && g[i].pinned_objects > 0;
  if (!hit) return;
  struct ins_finding *f = add(a, "gen0-frag-pinning");
  uint32_t maxpin = 0;
  for (size_t i = 0; i < n; i++)
    if (g[i].gen0_frag_pct >= o->gen0_frag_pct && g[i].pinned_objects > 0) {
      cite(f, g[i].index);
      if (g[i].pinned_objects > maxpin) maxpin = g[i].pinned_objects;
    }
  snprintf(f->finding, sizeof f->finding,
           "Gen0 is mostly free space held by pinned objects: %zu GC%s with gen0 fragmentation >= %.0f %% and pins",
           hit, hit == 1 ? "" : "s", o->gen0_frag_pct);
  cat(f->evidence, sizeof f->evidence, "gen0 fragmentation after the GC: ");
  cite_list(f->evidence, sizeof f->evidence, g, n, f, "gen0frag");
  cat(f->evidence, sizeof f->evidence, "; up to %u pinned objects per GC", maxpin);
  snprintf(f->next, sizeof f->next,
           "Find the long-lived pins (gcscope handles: pinned handles alive at each GC, longest-lived pins); "
           "allocate buffers that stay pinned on the Pinned Object Heap, or pin for shorter.");
}

static void rule_ephemeral(const struct ins_gc *g, size_t n, const struct ins_advise_opts *o,
                           struct ins_advice *a) {
  double *pause = malloc((n ? n : 1) * sizeof *pause);
  double *prom = malloc((n ? n : 1) * sizeof *prom);
  size_t *idx = malloc((n ? n : 1) * sizeof *idx);
  if (!pause || !prom || !idx) goto out;
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (gcs_gen_is_ephemeral((uint32_t)g[i].gen) && gcs_type_is_blocking((uint32_t)g[i].type) && !isnan(g[i].pause_ms) &&
        !isnan(g[i].promoted_mb)) {
      pause[m] = g[i].pause_ms;
      prom[m] = g[i].promoted_mb;
      idx[m++] = i;
    }
  if (m < o->eph_min_gcs) goto out;
  double mp = ins_median(pause, m), mpr = ins_median(prom, m);
  struct ins_finding *f = NULL;
  int slow_suspend = 0;
  for (size_t k = 0; k < m; k++) {
    if (pause[k] >= o->eph_factor * mp && pause[k] - mp >= o->eph_min_excess_ms &&
        prom[k] <= o->eph_promoted_factor * mpr) {
      if (!f) f = add(a, "ephemeral-pause");
      cite(f, g[idx[k]].index);
      if (g[idx[k]].suspend_ms > (pause[k] - mp) / 2) slow_suspend = 1;
    }
  }
  if (!f) goto out;
  snprintf(f->finding, sizeof f->finding,
           "Ephemeral GC pauses do not track promoted bytes: %zu long pause%s without more promotion",
           f->n_gcs_total, f->n_gcs_total == 1 ? "" : "s");
  cat(f->evidence, sizeof f->evidence, "median ephemeral pause %.3f ms, median promoted %.3f MB over %zu GCs; ", mp,
      mpr, m);
  for (size_t i = 0; i < f->n_gcs; i++)
    for (size_t j = 0; j < n; j++)
      if (g[j].index == f->gcs[i]) {
        cat(f->evidence, sizeof f->evidence, "%s#%u pause %.3f ms, promoted %.3f MB, suspend %.3f ms", i ? "; " : "",
            g[j].index, g[j].pause_ms, g[j].promoted_mb, g[j].suspend_ms);
        break;
      }
  double r = ins_pearson(pause, prom, m);
  if (!isnan(r)) cat(f->evidence, sizeof f->evidence, "; pause/promoted correlation %.2f", r);
  if (slow_suspend)
    snprintf(f->next, sizeof f->next,
             "Suspension makes up much of the excess: look at the long-suspension finding and at what the "
             "threads were doing (gcscope triggers --suspend-over, a trace with scheduler events).");
  else
    snprintf(f->next, sizeof f->next,
             "Suspect stolen CPU: other threads or processes running on the GC threads' CPUs (Server GC); "
             "record scheduler events (context switches) around these GCs, or use fewer GC heaps.");
out:
  free(pause);
  free(prom);
  free(idx);
}

static void rule_suspension(const struct ins_gc *g, size_t n, const struct ins_advise_opts *o,
                            struct ins_advice *a) {
  size_t hit = 0;
  double worst = 0;
  for (size_t i = 0; i < n; i++)
    if (g[i].suspend_ms > o->suspend_ms) {
      hit++;
      if (g[i].suspend_ms > worst) worst = g[i].suspend_ms;
    }
  if (!hit) return;
  struct ins_finding *f = add(a, "long-suspension");
  snprintf(f->finding, sizeof f->finding, "Suspending threads took over %.1f ms in %zu GC%s (worst %.1f ms)",
           o->suspend_ms, hit, hit == 1 ? "" : "s", worst);
  for (size_t i = 0; i < n; i++)
    if (g[i].suspend_ms > o->suspend_ms) cite(f, g[i].index);
  cat(f->evidence, sizeof f->evidence, "suspend time: ");
  cite_list(f->evidence, sizeof f->evidence, g, n, f, "suspend");
  snprintf(f->next, sizeof f->next,
           "Record with a suspension trigger (gcscope triggers shows which thresholds would fire) and "
           "scheduler events, to see which thread did not reach a safe point (long loops, native calls).");
}

static int cmp_double_asc(const void *x, const void *y) { return ins_cmp_double(x, y); }

static void rule_peak_after(const struct ins_gc *g, size_t n, const struct ins_advise_opts *o,
                            struct ins_advice *a) {
  double *ratio = malloc((n ? n : 1) * sizeof *ratio);
  double *diff = malloc((n ? n : 1) * sizeof *diff);
  if (!ratio || !diff) goto out;
  size_t m = 0, best = 0;
  double best_ratio = -1;
  for (size_t i = 0; i < n; i++)
    if (g[i].after_mb > 0 && !isnan(g[i].peak_mb)) {
      ratio[m] = g[i].peak_mb / g[i].after_mb;
      diff[m] = g[i].peak_mb - g[i].after_mb;
      if (ratio[m] > best_ratio) { best_ratio = ratio[m]; best = i; }
      m++;
    }
  if (m == 0) goto out;
  qsort(ratio, m, sizeof *ratio, cmp_double_asc);
  qsort(diff, m, sizeof *diff, cmp_double_asc);
  double mr = ins_percentile_sorted(ratio, m, 50), md = ins_percentile_sorted(diff, m, 50);
  if (!(mr >= o->peak_after_ratio && md >= o->peak_after_min_mb)) goto out;
  struct ins_finding *f = add(a, "peak-vs-after");
  snprintf(f->finding, sizeof f->finding,
           "The heap peaks far above what survives: median Peak/After %.2f, median Peak - After %.1f MB", mr, md);
  cite(f, g[best].index);
  cat(f->evidence, sizeof f->evidence, "%zu GCs; largest ratio at #%u: Peak %.3f MB, After %.3f MB (%.2f)", m,
      g[best].index, g[best].peak_mb, g[best].after_mb, best_ratio);
  snprintf(f->next, sizeof f->next,
           "Too much gen0 allocation between GCs (the gen0 budget): allocate less per request, or cap the "
           "budget (GCGen0MaxBudget) / use fewer Server GC heaps if a smaller peak is worth more GCs.");
out:
  free(ratio);
  free(diff);
}

static void rule_heap_growth(const struct ins_gc *g, size_t n, const struct ins_advise_opts *o,
                             struct ins_advice *a) {
  size_t m = 0, up = 0, first = 0, last = 0, prev = 0;
  for (size_t i = 0; i < n; i++) {
    if (g[i].gen != GCS_GEN2 || isnan(g[i].after_mb)) continue;
    if (m == 0) first = i;
    else if (g[i].after_mb >= g[prev].after_mb) up++;
    prev = last = i;
    m++;
  }
  if (m < o->leak_min_gcs || !(g[first].after_mb > 0)) return;
  double growth = (g[last].after_mb - g[first].after_mb) * 100.0 / g[first].after_mb;
  if (!(growth >= o->leak_growth_pct) || (double)up < 0.75 * (double)(m - 1)) return;
  struct ins_finding *f = add(a, "heap-growth");
  snprintf(f->finding, sizeof f->finding,
           "The heap after gen2 GCs keeps growing (possible managed leak): +%.1f %% over %zu gen2 GCs", growth, m);
  for (size_t i = 0; i < n; i++)
    if (g[i].gen == GCS_GEN2 && !isnan(g[i].after_mb)) cite(f, g[i].index);
  cat(f->evidence, sizeof f->evidence, "After MB at gen2 GCs: ");
  cite_list(f->evidence, sizeof f->evidence, g, n, f, "after");
  double dt = g[last].start_ms - g[first].start_ms;
  if (dt > 0)
    cat(f->evidence, sizeof f->evidence, "; %.3f MB per minute; %zu of %zu steps up", (g[last].after_mb - g[first].after_mb) * 60000.0 / dt, up, m - 1);
  snprintf(f->next, sizeof f->next,
           "Take two heap snapshots some time apart (dotnet-gcdump) and compare what grew; check handles "
           "that keep objects alive (gcscope handles) and event subscriptions or caches without bounds.");
}

size_t ins_advise(const struct ins_gc *gcs, size_t n, const struct ins_proc_summary *ps,
                  const struct ins_advise_opts *o, struct ins_advice *out) {
  out->n = 0;
  rule_pause_time(gcs, n, ps, o, out);
  rule_loh_churn(gcs, n, o, out);
  rule_induced(gcs, n, out);
  rule_full_blocking(gcs, n, out);
  rule_gen2_frag(gcs, n, o, out);
  rule_gen0_frag(gcs, n, o, out);
  rule_ephemeral(gcs, n, o, out);
  rule_suspension(gcs, n, o, out);
  rule_peak_after(gcs, n, o, out);
  rule_heap_growth(gcs, n, o, out);
  return out->n;
}

const struct ins_finding *ins_advice_find(const struct ins_advice *a, const char *rule) {
  for (size_t i = 0; i < a->n; i++)
    if (strcmp(a->f[i].rule, rule) == 0) return &a->f[i];
  return NULL;
}
