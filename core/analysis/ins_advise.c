/* ins_advise.c — advisor rules over one process's GCs (see ins_advise.h and
 * docs/insight.md for every rule, threshold and severity). */
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
      .loh_share_pct = 50, .loh_min_count = 2, .loh_critical_pct = 25,
      .gen2_frag_pct = 15, .gen2_frag_share_pct = 50,
      .gen0_frag_pct = 50, .pin_share_pct = 10, .pin_critical_pct = 50, .pin_min_gcs = 5,
      .eph_min_gcs = 5, .eph_min_outliers = 5,
      .eph_factor = 3, .eph_min_excess_ms = 1, .eph_promoted_factor = 1.5, .eph_share_pct = 5,
      .suspend_ms = 5, .suspend_critical_ms = 50, .suspend_min_gcs = 2,
      .peak_after_ratio = 2, .peak_after_min_mb = 10,
      .leak_min_gcs = 4, .leak_tail_min_gcs = 3,
      .leak_growth_pct = 30, .leak_min_mb = 5, .leak_steps_up_pct = 70,
      .surv_gen0_pct = 15, .surv_gen0_critical_pct = 40, .surv_gen1_pct = 90, .surv_gen1_min_mb = 5,
      .surv_min_gcs = 5,
      .midlife_gen1_pct = 50, .midlife_gen2_pct = 50, .midlife_min_gen2_per_100_gen1 = 5,
      .midlife_min_gen1 = 5, .midlife_min_gen2 = 3,
      .fin_share_pct = 10, .fin_min_share_pct = 1, .fin_critical_pct = 25, .fin_min_gcs = 5,
      .induced_warn_count = 3,
      .full_critical_ms = 100,
      .churn_per_s = 10, .churn_surv_pct = 5, .churn_min_gcs = 20,
      .committed_ratio = 2, .committed_min_mb = 50,
      .mark_ratio = 2, .mark_min_ms = 1, .mark_share_pct = 10, .mark_min_gcs = 3,
      .frag_gen2_min_gcs = 1, .pin_surv_pct = 10, .pin_block_share_pct = 10, .pin_block_min_gcs = 3,
      .datas_pause_pct = 10, .datas_cost_pct = 10, .datas_share_pct = 50, .datas_min_decisions = 3,
  };
}

const char *ins_severity_name(enum ins_severity s) {
  switch (s) {
  case INS_SEV_INFO: return "info";
  case INS_SEV_WARNING: return "warning";
  case INS_SEV_CRITICAL: return "critical";
  }
  return "?";
}

int ins_parse_severity(const char *s) {
  for (int i = INS_SEV_INFO; i <= INS_SEV_CRITICAL; i++)
    if (s && strcmp(s, ins_severity_name((enum ins_severity)i)) == 0) return i;
  return -1;
}

/* What every rule sees: the GCs, the options, scratch space of n doubles. */
struct ctx {
  const struct ins_gc *g;
  size_t n;
  const struct ins_proc_summary *ps;
  const struct ins_advise_opts *o;
  struct ins_advice *a;
  double *x, *y;     /* scratch, n elements each */
  int server;
  double run_ms;     /* the process's duration, else the span of its GCs' starts */
};

/* Appends printf-style text to a fixed buffer, truncating silently. */
static void cat(char *buf, size_t cap, const char *fmt, ...) {
  size_t len = strlen(buf);
  if (len + 1 >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + len, cap - len, fmt, ap);
  va_end(ap);
}

static struct ins_finding *add(struct ctx *c, const char *rule, enum ins_severity sev) {
  struct ins_finding *f = &c->a->f[c->a->n++];
  memset(f, 0, sizeof *f);
  f->rule = rule;
  f->severity = sev;
  return f;
}

static void metric(struct ins_finding *f, const char *name, double v) {
  if (f->n_metrics < INS_MAX_METRICS) f->metrics[f->n_metrics++] = (struct ins_metric){name, v};
}

static void cite(struct ins_finding *f, uint32_t gc) {
  if (f->n_gcs < INS_MAX_CITED) f->gcs[f->n_gcs++] = gc;
  f->n_gcs_total++;
}

/* Percentile p of x[0..m-1], sorting x in place; NaN when m == 0. */
static double pct(double *x, size_t m, double p) {
  ins_sort_doubles(x, m);
  return ins_percentile_sorted(x, m, p);
}

static const struct ins_gc *by_index(const struct ctx *c, uint32_t index) {
  for (size_t j = 0; j < c->n; j++)
    if (c->g[j].index == index) return &c->g[j];
  return NULL;
}

/* "#3 (12.0 ms), #7 (9.1 ms)" of the cited GCs, using one figure per GC. */
enum fig { F_PAUSE, F_SUSPEND, F_GEN2FRAG, F_GEN0FRAG, F_AFTER, F_PROMOTED, F_FINAL, F_GEN2SURV };
static void cite_list(char *buf, size_t cap, const struct ctx *c, const struct ins_finding *f, enum fig what) {
  for (size_t i = 0; i < f->n_gcs; i++) {
    const struct ins_gc *g = by_index(c, f->gcs[i]);
    if (!g) continue;
    double v = 0;
    const char *unit = "ms";
    switch (what) {
    case F_PAUSE: v = g->pause_ms; break;
    case F_SUSPEND: v = g->suspend_ms; break;
    case F_GEN2FRAG: v = g->gen2_frag_before_pct; unit = "%"; break;
    case F_GEN0FRAG: v = g->gen0_frag_pct; unit = "%"; break;
    case F_AFTER: v = g->after_mb; unit = "MB"; break;
    case F_PROMOTED: v = g->promoted_mb; unit = "MB"; break;
    case F_FINAL: v = g->finalizable_surv_mb; unit = "MB"; break;
    case F_GEN2SURV: v = g->gen2_survival_pct; unit = "%"; break;
    }
    cat(buf, cap, "%s#%u (%.1f %s)", i ? ", " : "", g->index, v, unit);
  }
  if (f->n_gcs_total > f->n_gcs) cat(buf, cap, ", ... %zu more", f->n_gcs_total - f->n_gcs);
}

static const char *reason_name(int reason) {
  const char *s = gcs_map_name("gc_reason", (uint32_t)reason);
  return s ? s : "Unknown";
}

static const char *plural(size_t k) { return k == 1 ? "" : "s"; }

/* ---- heap-growth: a rising trend over the last half of the run ----------- */

/* The GCs whose After measures what lives: full blocking gen2 GCs when there
 * are enough of them (a compacting GC leaves only the live objects; a BGC's
 * After also holds what was allocated while it ran), else every gen2 GC. */
static int leak_point(const struct ins_gc *g, int blocking_only) {
  return g->gen == GCS_GEN2 && g->after_mb > 0 && !isnan(g->start_ms) &&
         (!blocking_only || gcs_gc_is_blocking_gen2((uint32_t)g->gen, (uint32_t)g->type));
}

static void rule_heap_growth(struct ctx *c) {
  const struct ins_gc *g = c->g;
  const struct ins_advise_opts *o = c->o;
  size_t m = 0, mb = 0;
  double t0 = NAN, t1 = NAN;
  for (size_t i = 0; i < c->n; i++) {
    if (isnan(g[i].start_ms)) continue;
    if (isnan(t0) || g[i].start_ms < t0) t0 = g[i].start_ms;
    if (isnan(t1) || g[i].start_ms > t1) t1 = g[i].start_ms;
    m += leak_point(&g[i], 0);
    mb += leak_point(&g[i], 1);
  }
  int bo = mb >= o->leak_min_gcs;
  if (bo) m = mb;
  if (m < o->leak_min_gcs || !(t1 > t0)) return;
  double mid = t0 + (t1 - t0) / 2;
  /* The tail: gen2 GCs starting in the last half of the run (x: time, y: After). */
  size_t k = 0, first = c->n, last = c->n;
  for (size_t i = 0; i < c->n; i++) {
    if (!leak_point(&g[i], bo)) continue;
    if (first == c->n) first = i;
    last = i;
    if (g[i].start_ms < mid) continue;
    c->x[k] = g[i].start_ms;
    c->y[k++] = g[i].after_mb;
  }
  if (k < o->leak_tail_min_gcs) return;
  size_t ups = 0;
  for (size_t i = 1; i < k; i++) ups += c->y[i] > c->y[i - 1];
  /* Robust slope: the median of the slopes between each point and the one
   * half the tail later (a Theil-Sen estimate over those pairs). */
  size_t h = (k + 1) / 2, np = 0;
  double *sl = malloc(k * sizeof *sl), *lv = malloc(k * sizeof *lv);
  if (!sl || !lv) goto out;
  for (size_t i = 0; i + h < k; i++)
    if (c->x[i + h] > c->x[i]) sl[np++] = (c->y[i + h] - c->y[i]) / (c->x[i + h] - c->x[i]);
  memcpy(lv, c->y, k * sizeof *lv);
  double level = pct(lv, k, 50);
  if (np == 0 || !(level > 0)) goto out;
  double slope = pct(sl, np, 50);   /* MB per ms */
  double window = t1 - mid;
  double growth_mb = slope * window, growth_pct = growth_mb * 100.0 / level;
  if (!(growth_pct >= o->leak_growth_pct) || !(growth_mb >= o->leak_min_mb) ||
      (double)ups * 100.0 < o->leak_steps_up_pct * (double)(k - 1))
    goto out;
  struct ins_finding *f = add(c, "heap-growth", growth_pct >= 2 * o->leak_growth_pct ? INS_SEV_CRITICAL : INS_SEV_WARNING);
  snprintf(f->title, sizeof f->title,
           "The heap after gen2 GCs keeps growing (possible managed leak): +%.1f %% (%.1f MB) over the last %.1f s",
           growth_pct, growth_mb, window / 1000);
  for (size_t i = 0; i < c->n; i++)
    if (leak_point(&g[i], bo) && g[i].start_ms >= mid) cite(f, g[i].index);
  cat(f->evidence, sizeof f->evidence, "After at the %s GCs of the last half of the run (from %.0f ms): ",
      bo ? "full blocking gen2" : "gen2", mid);
  cite_list(f->evidence, sizeof f->evidence, c, f, F_AFTER);
  cat(f->evidence, sizeof f->evidence,
      "; trend %+.3f MB per minute (median slope), %zu of %zu steps up, median level %.1f MB; "
      "whole run: %zu such GCs, #%u %.1f MB -> #%u %.1f MB",
      slope * 60000, ups, k - 1, level, m, g[first].index, g[first].after_mb, g[last].index, g[last].after_mb);
  metric(f, "tail_growth_pct", growth_pct);
  metric(f, "tail_growth_mb", growth_mb);
  metric(f, "trend_mb_per_min", slope * 60000);
  metric(f, "tail_level_mb", level);
  metric(f, "tail_gen2_gcs", (double)k);
  metric(f, "tail_steps_up", (double)ups);
  metric(f, "gen2_gcs", (double)m);
  metric(f, "blocking_only", bo);
  metric(f, "first_after_mb", g[first].after_mb);
  metric(f, "last_after_mb", g[last].after_mb);
  snprintf(f->next, sizeof f->next,
           "Take two heap snapshots some time apart (dotnet-gcdump) and compare what grew; check handles "
           "that keep objects alive (gcscope handles) and event subscriptions or caches without bounds. "
           "A heap that is still warming up levels off: a longer trace tells the two apart.");
out:
  free(sl);
  free(lv);
}

/* ---- long-suspension -------------------------------------------------------- */

static void rule_suspension(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  size_t hit = 0, m = 0;
  double worst = 0;
  for (size_t i = 0; i < c->n; i++) {
    double s = c->g[i].suspend_ms;
    if (isnan(s)) continue;
    c->x[m++] = s;
    if (s > o->suspend_ms) hit++;
    if (s > worst) worst = s;
  }
  if (!(hit >= o->suspend_min_gcs || (hit && worst >= o->suspend_critical_ms))) return;
  struct ins_finding *f = add(c, "long-suspension", worst >= o->suspend_critical_ms ? INS_SEV_CRITICAL : INS_SEV_WARNING);
  snprintf(f->title, sizeof f->title, "Suspending threads took over %.1f ms in %zu GC%s (worst %.1f ms)",
           o->suspend_ms, hit, plural(hit), worst);
  for (size_t i = 0; i < c->n; i++)
    if (c->g[i].suspend_ms > o->suspend_ms) cite(f, c->g[i].index);
  double med = pct(c->x, m, 50), p99 = ins_percentile_sorted(c->x, m, 99);
  cat(f->evidence, sizeof f->evidence, "suspension over %.1f ms: ", o->suspend_ms);
  cite_list(f->evidence, sizeof f->evidence, c, f, F_SUSPEND);
  cat(f->evidence, sizeof f->evidence, "; median suspension %.3f ms, P99 %.3f ms over %zu GCs", med, p99, m);
  metric(f, "gcs_over", (double)hit);
  metric(f, "threshold_ms", o->suspend_ms);
  metric(f, "worst_suspend_ms", worst);
  metric(f, "median_suspend_ms", med);
  metric(f, "p99_suspend_ms", p99);
  snprintf(f->next, sizeof f->next,
           "A thread did not reach a safe point (a long loop without calls, a long native call in cooperative "
           "mode): record with --stop-on-suspend-over and scheduler events to see which thread and where.");
}

/* ---- gen0-frag-pinning ------------------------------------------------------ */

static void rule_gen0_frag(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  size_t hit = 0, pinned = 0;
  uint32_t maxpin = 0;
  for (size_t i = 0; i < c->n; i++) {
    const struct ins_gc *g = &c->g[i];
    if (!g->pinned_objects) continue;
    pinned++;
    if (g->gen0_frag_pct >= o->gen0_frag_pct) {
      c->x[hit] = g->gen0_frag_pct;
      c->y[hit++] = g->pinned_objects;
      if (g->pinned_objects > maxpin) maxpin = g->pinned_objects;
    }
  }
  double share = c->n ? (double)hit * 100.0 / (double)c->n : 0;
  if (hit < o->pin_min_gcs || share < o->pin_share_pct) return;
  struct ins_finding *f = add(c, "gen0-frag-pinning", share >= o->pin_critical_pct ? INS_SEV_CRITICAL : INS_SEV_WARNING);
  double medfrag = pct(c->x, hit, 50), medpin = pct(c->y, hit, 50);
  snprintf(f->title, sizeof f->title,
           "Pinned objects fragment gen0: %zu of %zu GCs (%.1f %%) left gen0 >= %.0f %% free space with pins",
           hit, c->n, share, o->gen0_frag_pct);
  for (size_t i = 0; i < c->n; i++)
    if (c->g[i].pinned_objects && c->g[i].gen0_frag_pct >= o->gen0_frag_pct) cite(f, c->g[i].index);
  cat(f->evidence, sizeof f->evidence,
      "median gen0 fragmentation %.1f %% and median %.0f pinned objects in those GCs (up to %u); "
      "GCs with pins: %zu; gen0 fragmentation after the GC: ",
      medfrag, medpin, maxpin, pinned);
  cite_list(f->evidence, sizeof f->evidence, c, f, F_GEN0FRAG);
  metric(f, "gcs_fragmented", (double)hit);
  metric(f, "share_pct", share);
  metric(f, "gcs_with_pins", (double)pinned);
  metric(f, "median_gen0_frag_pct", medfrag);
  metric(f, "median_pinned_objects", medpin);
  metric(f, "max_pinned_objects", (double)maxpin);
  snprintf(f->next, sizeof f->next,
           "Find the long-lived pins (gcscope handles: pinned handles alive at each GC, longest-lived pins); "
           "allocate buffers that stay pinned on the Pinned Object Heap, or pin for shorter.");
}

/* ---- loh-churn --------------------------------------------------------------- */

static void rule_loh_churn(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  size_t gen2 = 0, large = 0;
  for (size_t i = 0; i < c->n; i++)
    if (c->g[i].gen == GCS_GEN2) {
      gen2++;
      if (c->g[i].reason == GCS_GC_REASON_ALLOC_LARGE) large++;
    }
  if (large < o->loh_min_count || !(large * 100.0 / (double)gen2 > o->loh_share_pct)) return;
  double of_all = large * 100.0 / (double)c->n;
  struct ins_finding *f = add(c, "loh-churn", of_all >= o->loh_critical_pct ? INS_SEV_CRITICAL : INS_SEV_WARNING);
  snprintf(f->title, sizeof f->title,
           "Allocating large objects triggers most gen2 GCs (LOH churn): %zu of %zu gen2 GCs are AllocLarge",
           large, gen2);
  for (size_t i = 0; i < c->n; i++)
    if (c->g[i].gen == GCS_GEN2 && c->g[i].reason == GCS_GC_REASON_ALLOC_LARGE) cite(f, c->g[i].index);
  cat(f->evidence, sizeof f->evidence, "%.1f %% of gen2 GCs and %.1f %% of all %zu GCs triggered by AllocLarge",
      large * 100.0 / (double)gen2, of_all, c->n);
  if (c->run_ms > 0) cat(f->evidence, sizeof f->evidence, " (%.1f per second)", large * 1000.0 / c->run_ms);
  cat(f->evidence, sizeof f->evidence, ": ");
  cite_list(f->evidence, sizeof f->evidence, c, f, F_PAUSE);
  metric(f, "alloc_large_gen2_gcs", (double)large);
  metric(f, "gen2_gcs", (double)gen2);
  metric(f, "share_of_gen2_pct", large * 100.0 / (double)gen2);
  metric(f, "share_of_all_pct", of_all);
  if (c->run_ms > 0) metric(f, "per_second", large * 1000.0 / c->run_ms);
  snprintf(f->next, sizeof f->next,
           "Find the large allocations (gcscope allocs, Large rows) and reuse those buffers (ArrayPool) "
           "instead of allocating them per operation; GCLOHThreshold raises the LOH size threshold.");
}

/* ---- finalizers ---------------------------------------------------------------- */

static void rule_finalizers(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  size_t known = 0, hit = 0, nr = 0;
  double total = 0;
  for (size_t i = 0; i < c->n; i++) {
    const struct ins_gc *g = &c->g[i];
    if (isnan(g->finalizable_surv_mb)) continue;
    known++;
    if (!(g->finalizable_surv_mb > 0)) continue;
    c->x[hit++] = g->finalizable_surv_mb;
    total += g->finalizable_surv_mb;
    if (g->promoted_mb > 0) c->y[nr++] = g->finalizable_surv_mb * 100.0 / g->promoted_mb;
  }
  double share = known ? (double)hit * 100.0 / (double)known : 0;
  if (hit < o->fin_min_gcs || share < o->fin_share_pct) return;
  double med = pct(c->x, hit, 50), medshare = pct(c->y, nr, 50);
  if (!(medshare >= o->fin_min_share_pct)) return;   /* a few bytes: not worth a finding */
  struct ins_finding *f =
      add(c, "finalizers", medshare >= o->fin_critical_pct ? INS_SEV_CRITICAL : INS_SEV_WARNING);
  snprintf(f->title, sizeof f->title,
           "Finalizable objects survive GCs only to be finalized: %zu of %zu GCs (%.1f %%), a median %.1f %% of "
           "what they promote",
           hit, known, share, medshare);
  /* Cite the GCs promoting the most because of finalizers. */
  for (size_t r = 0; r < 5; r++) {
    size_t best = c->n;
    for (size_t i = 0; i < c->n; i++) {
      const struct ins_gc *g = &c->g[i];
      if (!(g->finalizable_surv_mb > 0)) continue;
      int taken = 0;
      for (size_t k = 0; k < f->n_gcs; k++) taken |= f->gcs[k] == g->index;
      if (!taken && (best == c->n || g->finalizable_surv_mb > c->g[best].finalizable_surv_mb)) best = i;
    }
    if (best == c->n) break;
    f->gcs[f->n_gcs++] = c->g[best].index;
  }
  f->n_gcs_total = hit;
  cat(f->evidence, sizeof f->evidence,
      "Finalizable Surv MB: %.3f MB in all, median %.3f MB per GC; median share of Promoted MB %.1f %%; largest: ",
      total, med, medshare);
  cite_list(f->evidence, sizeof f->evidence, c, f, F_FINAL);
  metric(f, "gcs_with_finalizable_survivors", (double)hit);
  metric(f, "share_pct", share);
  metric(f, "total_finalizable_surv_mb", total);
  metric(f, "median_finalizable_surv_mb", med);
  metric(f, "median_share_of_promoted_pct", medshare);
  snprintf(f->next, sizeof f->next,
           "An object with a finalizer that is found dead is kept (and promoted) until its finalizer ran: "
           "Dispose such objects and call GC.SuppressFinalize in Dispose; find the finalizable types "
           "(allocation ticks, a heap snapshot's finalizer queue) and avoid finalizers where SafeHandle does.");
}

/* ---- high-survival ---------------------------------------------------------- */

static void rule_high_survival(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  const struct ins_gc *g = c->g;
  size_t m0 = 0, m1 = 0;
  for (size_t i = 0; i < c->n; i++)
    if (g[i].gen == GCS_GEN0 && !isnan(g[i].gen0_survival_pct)) c->x[m0++] = g[i].gen0_survival_pct;
  double s0 = pct(c->x, m0, 50), s0p90 = ins_percentile_sorted(c->x, m0, 90);
  for (size_t i = 0; i < c->n; i++)
    if (g[i].gen == GCS_GEN1 && !isnan(g[i].gen1_survival_pct)) c->x[m1++] = g[i].gen1_survival_pct;
  double s1 = pct(c->x, m1, 50);
  size_t k = 0;
  for (size_t i = 0; i < c->n; i++)
    if (g[i].gen == GCS_GEN0 && !isnan(g[i].promoted_mb)) c->x[k++] = g[i].promoted_mb;
  double p0 = pct(c->x, k, 50);
  k = 0;
  for (size_t i = 0; i < c->n; i++)
    if (g[i].gen == GCS_GEN1 && !isnan(g[i].promoted_mb)) c->x[k++] = g[i].promoted_mb;
  double p1 = pct(c->x, k, 50);
  int c0 = m0 >= o->surv_min_gcs && s0 >= o->surv_gen0_pct;
  int c1 = m1 >= o->surv_min_gcs && s1 >= o->surv_gen1_pct && p1 >= o->surv_gen1_min_mb;
  if (!c0 && !c1) return;
  struct ins_finding *f =
      add(c, "high-survival", c0 && s0 >= o->surv_gen0_critical_pct ? INS_SEV_CRITICAL : INS_SEV_WARNING);
  if (c0)
    snprintf(f->title, sizeof f->title,
             "High survival: a median %.1f %% of gen0 survives its GCs (%.1f MB promoted each)", s0, p0);
  else
    snprintf(f->title, sizeof f->title,
             "High promotion cost: gen1 GCs keep a median %.1f %% of gen1 (%.1f MB promoted each)", s1, p1);
  if (c0 && !isnan(p1)) cat(f->title, sizeof f->title, "; gen1 GCs promote %.1f MB each", p1);
  /* Ephemeral GCs: their share of the pause, pause/promoted correlation, pins. */
  size_t me = 0, pins = 0;
  double eph_pause = 0, all_pause = 0;
  for (size_t i = 0; i < c->n; i++) {
    if (!isnan(g[i].pause_ms)) all_pause += g[i].pause_ms;
    if (g[i].gen == GCS_GEN2 || isnan(g[i].pause_ms) || isnan(g[i].promoted_mb)) continue;
    c->x[me] = g[i].pause_ms;
    c->y[me++] = g[i].promoted_mb;
    eph_pause += g[i].pause_ms;
    pins += g[i].pinned_objects > 0;
  }
  double r = ins_pearson(c->x, c->y, me);
  cat(f->evidence, sizeof f->evidence, "gen0 GCs: median survival %.1f %%, P90 %.1f %%, median promoted %.3f MB over %zu GCs",
      s0, s0p90, p0, m0);
  if (m1)
    cat(f->evidence, sizeof f->evidence, "; gen1 GCs: median survival %.1f %%, median promoted %.3f MB over %zu GCs",
        s1, p1, m1);
  if (all_pause > 0)
    cat(f->evidence, sizeof f->evidence, "; ephemeral GCs pause %.1f ms = %.1f %% of all GC pause", eph_pause,
        eph_pause * 100 / all_pause);
  if (!isnan(r)) cat(f->evidence, sizeof f->evidence, "; pause/promoted correlation %.2f", r);
  if (pins && me) cat(f->evidence, sizeof f->evidence, "; %.0f %% of them had pinned objects", pins * 100.0 / (double)me);
  /* Cite the ephemeral GCs that promoted the most. */
  for (size_t t = 0; t < 5; t++) {
    size_t best = c->n;
    for (size_t i = 0; i < c->n; i++) {
      if (g[i].gen == GCS_GEN2 || isnan(g[i].promoted_mb)) continue;
      int taken = 0;
      for (size_t q = 0; q < f->n_gcs; q++) taken |= f->gcs[q] == g[i].index;
      if (!taken && (best == c->n || g[i].promoted_mb > g[best].promoted_mb)) best = i;
    }
    if (best == c->n) break;
    f->gcs[f->n_gcs++] = g[best].index;
  }
  f->n_gcs_total = f->n_gcs;
  cat(f->evidence, sizeof f->evidence, "; most promoted: ");
  cite_list(f->evidence, sizeof f->evidence, c, f, F_PROMOTED);
  metric(f, "gen0_gcs", (double)m0);
  metric(f, "gen0_survival_median_pct", s0);
  metric(f, "gen0_survival_p90_pct", s0p90);
  metric(f, "gen0_promoted_median_mb", p0);
  metric(f, "gen1_gcs", (double)m1);
  metric(f, "gen1_survival_median_pct", s1);
  metric(f, "gen1_promoted_median_mb", p1);
  metric(f, "ephemeral_pause_share_pct", all_pause > 0 ? eph_pause * 100 / all_pause : NAN);
  metric(f, "pause_promoted_correlation", r);
  snprintf(f->next, sizeof f->next,
           "A GC's work is proportional to what survives: find what keeps young objects alive (old objects "
           "referencing them: set those fields to null when done; caches; GC handles: gcscope handles). "
           "PerfView's generation-aware view shows which old objects hold them.");
  if (pins) cat(f->next, sizeof f->next, " Pinned objects survive too: see gen0-frag-pinning if it is listed.");
}

/* ---- mid-life-crisis ---------------------------------------------------------- */

static void rule_midlife(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  const struct ins_gc *g = c->g;
  size_t m1 = 0, m2 = 0, k = 0;
  for (size_t i = 0; i < c->n; i++)
    if (g[i].gen == GCS_GEN1 && !isnan(g[i].gen1_survival_pct)) c->x[m1++] = g[i].gen1_survival_pct;
  double s1 = pct(c->x, m1, 50);
  for (size_t i = 0; i < c->n; i++)
    if (g[i].gen == GCS_GEN1 && !isnan(g[i].promoted_mb)) c->x[k++] = g[i].promoted_mb;
  double p1 = pct(c->x, k, 50);
  for (size_t i = 0; i < c->n; i++)
    if (g[i].gen == GCS_GEN2 && !gcs_reason_is_requested((uint32_t)g[i].reason) && g[i].reason != GCS_GC_REASON_ALLOC_LARGE &&
        !isnan(g[i].gen2_survival_pct))
      c->x[m2++] = g[i].gen2_survival_pct;
  double s2 = pct(c->x, m2, 50);
  double per100 = m1 ? (double)m2 * 100.0 / (double)m1 : 0;
  if (m1 < o->midlife_min_gen1 || !(s1 >= o->midlife_gen1_pct) || m2 < o->midlife_min_gen2 ||
      !(s2 <= o->midlife_gen2_pct) || per100 < o->midlife_min_gen2_per_100_gen1)
    return;
  struct ins_finding *f = add(c, "mid-life-crisis", INS_SEV_WARNING);
  snprintf(f->title, sizeof f->title,
           "Mid-life crisis: objects survive gen1 into gen2 and die there: gen1 GCs keep %.1f %%, "
           "%zu gen2 GCs keep %.1f %% of gen2",
           s1, m2, s2);
  for (size_t i = 0; i < c->n; i++)
    if (g[i].gen == GCS_GEN2 && !gcs_reason_is_requested((uint32_t)g[i].reason) && g[i].reason != GCS_GC_REASON_ALLOC_LARGE &&
        !isnan(g[i].gen2_survival_pct))
      cite(f, g[i].index);
  cat(f->evidence, sizeof f->evidence,
      "%zu gen1 GCs: median survival %.1f %%, median promoted to gen2 %.3f MB; %zu gen2 GCs triggered by the "
      "gen2 budget (not induced, not AllocLarge), %.1f per 100 gen1 GCs: median gen2 survival %.1f %%: ",
      m1, s1, p1, m2, per100, s2);
  cite_list(f->evidence, sizeof f->evidence, c, f, F_GEN2SURV);
  metric(f, "gen1_gcs", (double)m1);
  metric(f, "gen1_survival_median_pct", s1);
  metric(f, "gen1_promoted_median_mb", p1);
  metric(f, "gen2_gcs", (double)m2);
  metric(f, "gen2_per_100_gen1", per100);
  metric(f, "gen2_survival_median_pct", s2);
  snprintf(f->next, sizeof f->next,
           "Objects that live a little longer than gen1 collects them (request data kept across awaits, "
           "short-lived caches) reach gen2 and make full GCs necessary: let them die young (shorter "
           "lifetime, reuse them from a pool) or keep them for good.");
}

/* ---- induced -------------------------------------------------------------------- */

/* Few induced GCs are information, many a warning; but one whose pause is as
 * long as a critical full blocking GC's (full_critical_ms) is critical: an
 * induced 1.8 s blocking gen2 GC stops the program as long as any other. */
static void rule_induced(struct ctx *c) {
  const struct ins_gc *g = c->g;
  size_t cnt = 0, blocking = 0;
  double longest = 0;
  for (size_t i = 0; i < c->n; i++)
    if (gcs_reason_is_requested((uint32_t)g[i].reason)) {
      cnt++;
      blocking += gcs_gc_is_blocking_gen2((uint32_t)g[i].gen, (uint32_t)g[i].type);
      if (g[i].pause_ms > longest) longest = g[i].pause_ms;
    }
  if (!cnt) return;
  enum ins_severity sev = longest >= c->o->full_critical_ms     ? INS_SEV_CRITICAL
                          : cnt >= c->o->induced_warn_count ? INS_SEV_WARNING
                                                            : INS_SEV_INFO;
  struct ins_finding *f = add(c, "induced", sev);
  snprintf(f->title, sizeof f->title, "%zu GC%s induced by code (GC.Collect or a low-memory request)",
           cnt, cnt == 1 ? " was" : "s were");
#define REASON_VALUE(Value, Name, C) GCS_GC_REASON_##C,
  static const int reasons[] = { GCS_MAP_gc_reason(REASON_VALUE) };
#undef REASON_VALUE
  for (size_t r = 0; r < sizeof reasons / sizeof *reasons; r++) {
    if (!gcs_reason_is_requested((uint32_t)reasons[r])) continue;
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) k += g[i].reason == reasons[r];
    if (k) cat(f->evidence, sizeof f->evidence, "%s%s %zu", f->evidence[0] ? ", " : "", reason_name(reasons[r]), k);
  }
  cat(f->evidence, sizeof f->evidence, "; %zu of them full blocking gen2; longest pause %.1f ms", blocking, longest);
  if (c->run_ms > 0) cat(f->evidence, sizeof f->evidence, "; %.2f per second", cnt * 1000.0 / c->run_ms);
  for (size_t i = 0; i < c->n; i++)
    if (gcs_reason_is_requested((uint32_t)g[i].reason)) cite(f, g[i].index);
  cat(f->evidence, sizeof f->evidence, "; GCs ");
  cite_list(f->evidence, sizeof f->evidence, c, f, F_PAUSE);
  metric(f, "induced_gcs", (double)cnt);
  metric(f, "blocking_gen2", (double)blocking);
  metric(f, "longest_pause_ms", longest);
  if (c->run_ms > 0) metric(f, "per_second", cnt * 1000.0 / c->run_ms);
  snprintf(f->next, sizeof f->next,
           "Find who calls GC.Collect: record the GCTriggered event with call stacks and remove the call "
           "unless it is measured to help.");
}

/* ---- full-blocking-gen2 (induced ones are the induced finding's) ------------- */

static int full_blocking(const struct ins_gc *g) {
  return gcs_gc_is_blocking_gen2((uint32_t)g->gen, (uint32_t)g->type) && !gcs_reason_is_requested((uint32_t)g->reason);
}

static void rule_full_blocking(struct ctx *c) {
  uint32_t conds = 0;
  size_t cnt = 0;
  double longest = 0;
  for (size_t i = 0; i < c->n; i++)
    if (full_blocking(&c->g[i])) {
      cnt++;
      conds |= c->g[i].condemn_conditions;
      if (c->g[i].pause_ms > longest) longest = c->g[i].pause_ms;
    }
  if (!cnt) return;
  struct ins_finding *f =
      add(c, "full-blocking-gen2", longest >= c->o->full_critical_ms ? INS_SEV_CRITICAL : INS_SEV_WARNING);
  snprintf(f->title, sizeof f->title, "%zu full blocking gen2 GC%s (2N) not induced, longest pause %.1f ms", cnt,
           plural(cnt), longest);
  for (size_t i = 0; i < c->n; i++)
    if (full_blocking(&c->g[i])) cite(f, c->g[i].index);
  cite_list(f->evidence, sizeof f->evidence, c, f, F_PAUSE);
  cat(f->evidence, sizeof f->evidence, "; condemned reasons:");
  if (!conds) cat(f->evidence, sizeof f->evidence, " none recorded");
  for (uint32_t b = 0; b < 32; b++)
    if (conds & (1u << b)) {
      const char *nm = gcs_map_name("condemn_conditions", b);
      if (nm) cat(f->evidence, sizeof f->evidence, " %s", nm);
      else cat(f->evidence, sizeof f->evidence, " bit%u", b);
    }
  metric(f, "gcs", (double)cnt);
  metric(f, "longest_pause_ms", longest);
  int mem = (conds & ((1u << 2) | (1u << 3) | (1u << 9) | (1u << 10))) != 0;
  int frag = (conds & ((1u << 7) | (1u << 8) | (1u << 9) | (1u << 10))) != 0;
  if (mem) cat(f->next, sizeof f->next, "High memory load made them blocking: reduce the heap or give the process more memory. ");
  if (frag) cat(f->next, sizeof f->next, "Gen2 fragmentation made them compacting: see how gen2 free space is used (gcscope heaps). ");
  cat(f->next, sizeof f->next,
      "Check why they were not background GCs (Condemned reasons); if the pause matters more than the "
      "heap size, GCLatencyMode.SustainedLowLatency avoids them unless they are needed.");
}

/* ---- gen2-frag-bgc ------------------------------------------------------------- */

static void rule_gen2_frag(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  size_t bgcs = 0, hit = 0;
  for (size_t i = 0; i < c->n; i++)
    if (gcs_type_is_background((uint32_t)c->g[i].type) && !isnan(c->g[i].gen2_frag_before_pct)) {
      c->x[bgcs++] = c->g[i].gen2_frag_before_pct;
      hit += c->g[i].gen2_frag_before_pct > o->gen2_frag_pct;
    }
  double share = bgcs ? (double)hit * 100.0 / (double)bgcs : 0;
  if (!hit || share < o->gen2_frag_share_pct) return;
  double med = pct(c->x, bgcs, 50);
  struct ins_finding *f = add(c, "gen2-frag-bgc", INS_SEV_WARNING);
  snprintf(f->title, sizeof f->title,
           "Gen2 free space is not used well: %zu of %zu background GCs started with gen2 fragmentation above %.0f %%",
           hit, bgcs, o->gen2_frag_pct);
  for (size_t i = 0; i < c->n; i++)
    if (gcs_type_is_background((uint32_t)c->g[i].type) && c->g[i].gen2_frag_before_pct > o->gen2_frag_pct)
      cite(f, c->g[i].index);
  cat(f->evidence, sizeof f->evidence, "median gen2 fragmentation at BGC start %.1f %%; ", med);
  cite_list(f->evidence, sizeof f->evidence, c, f, F_GEN2FRAG);
  metric(f, "bgcs", (double)bgcs);
  metric(f, "bgcs_over", (double)hit);
  metric(f, "share_pct", share);
  metric(f, "median_gen2_frag_pct", med);
  snprintf(f->next, sizeof f->next,
           "Look at the gen2 free-list and free-object space before these BGCs (gcscope heaps): if the free "
           "spaces are large but unused this is a BGC scheduling problem worth reporting to the .NET GC team.");
}

/* ---- gen0-churn ------------------------------------------------------------------- */

static void rule_gen0_churn(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  size_t m = 0, ms = 0;
  double pause = 0;
  for (size_t i = 0; i < c->n; i++) {
    if (c->g[i].gen != GCS_GEN0) continue;
    m++;
    if (!isnan(c->g[i].pause_ms)) pause += c->g[i].pause_ms;
    if (!isnan(c->g[i].gen0_survival_pct)) c->x[ms++] = c->g[i].gen0_survival_pct;
  }
  if (m < o->churn_min_gcs || !(c->run_ms > 0) || ms == 0) return;
  double rate = m * 1000.0 / c->run_ms, surv = pct(c->x, ms, 50), share = pause * 100.0 / c->run_ms;
  if (rate < o->churn_per_s || !(surv <= o->churn_surv_pct)) return;
  struct ins_finding *f = add(c, "gen0-churn", share > o->pause_pct ? INS_SEV_WARNING : INS_SEV_INFO);
  snprintf(f->title, sizeof f->title,
           "Frequent gen0 GCs of short-lived objects: %.1f gen0 GCs per second, a median %.1f %% survives", rate,
           surv);
  cat(f->evidence, sizeof f->evidence,
      "%zu gen0 GCs in %.1f ms; they pause %.1f ms = %.1f %% of the run; the first: ", m, c->run_ms, pause, share);
  for (size_t i = 0; i < c->n; i++)
    if (c->g[i].gen == GCS_GEN0) cite(f, c->g[i].index);
  f->n_gcs = f->n_gcs < 3 ? f->n_gcs : 3;
  cite_list(f->evidence, sizeof f->evidence, c, f, F_PAUSE);
  metric(f, "gen0_gcs", (double)m);
  metric(f, "gen0_per_second", rate);
  metric(f, "gen0_survival_median_pct", surv);
  metric(f, "gen0_pause_pct_of_run", share);
  snprintf(f->next, sizeof f->next,
           "What does not survive decides how often GCs run: allocate less (gcscope allocs on a trace recorded "
           "with --profile alloc; reuse buffers, avoid temporary strings, boxing and per-call collections); "
           "a larger gen0 budget (GCgen0size) trades memory for fewer GCs.");
}

/* ---- peak-vs-after -------------------------------------------------------------- */

static void rule_peak_after(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  size_t m = 0, best = 0;
  double best_ratio = -1;
  for (size_t i = 0; i < c->n; i++)
    if (c->g[i].after_mb > 0 && !isnan(c->g[i].peak_mb)) {
      c->x[m] = c->g[i].peak_mb / c->g[i].after_mb;
      c->y[m] = c->g[i].peak_mb - c->g[i].after_mb;
      if (c->x[m] > best_ratio) { best_ratio = c->x[m]; best = i; }
      m++;
    }
  if (m == 0) return;
  double mr = pct(c->x, m, 50), md = pct(c->y, m, 50);
  if (!(mr >= o->peak_after_ratio && md >= o->peak_after_min_mb)) return;
  const struct ins_gc *b = &c->g[best];
  struct ins_finding *f = add(c, "peak-vs-after", INS_SEV_INFO);
  snprintf(f->title, sizeof f->title,
           "The heap peaks far above what survives: median Peak/After %.2f, median Peak - After %.1f MB", mr, md);
  cite(f, b->index);
  cat(f->evidence, sizeof f->evidence, "%zu GCs; largest ratio at #%u: Peak %.3f MB, After %.3f MB (%.2f)", m,
      b->index, b->peak_mb, b->after_mb, best_ratio);
  metric(f, "median_peak_after_ratio", mr);
  metric(f, "median_peak_minus_after_mb", md);
  snprintf(f->next, sizeof f->next,
           "Much gen0 allocation between GCs (the gen0 budget): allocate less per request, or cap the budget "
           "(GCGen0MaxBudget) if a smaller peak is worth more GCs");
  if (c->server) cat(f->next, sizeof f->next, "; with Server GC, fewer heaps (GCHeapCount) also lower the peak");
  cat(f->next, sizeof f->next, ".");
}

/* ---- committed-above-heap: the GC keeps much more committed than the heap holds --- */

static void rule_committed(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  size_t m = 0, best = 0;
  double best_ratio = -1;
  for (size_t i = 0; i < c->n; i++)
    if (c->g[i].after_mb > 0 && c->g[i].committed_after_mb > 0) {
      c->x[m] = c->g[i].committed_after_mb / c->g[i].after_mb;
      c->y[m] = c->g[i].committed_after_mb - c->g[i].after_mb;
      if (c->x[m] > best_ratio) { best_ratio = c->x[m]; best = i; }
      m++;
    }
  if (m == 0) return;
  double mr = pct(c->x, m, 50), md = pct(c->y, m, 50);
  if (!(mr >= o->committed_ratio && md >= o->committed_min_mb)) return;
  const struct ins_gc *b = &c->g[best];
  struct ins_finding *f = add(c, "committed-above-heap", INS_SEV_INFO);
  snprintf(f->title, sizeof f->title,
           "Committed memory far above the heap: median committed/After %.2f, median excess %.1f MB", mr, md);
  cite(f, b->index);
  cat(f->evidence, sizeof f->evidence, "%zu GCs with GCCommittedUsage; largest at #%u: committed %.3f MB, After %.3f MB",
      m, b->index, b->committed_after_mb, b->after_mb);
  metric(f, "median_committed_after_ratio", mr);
  metric(f, "median_committed_minus_after_mb", md);
  snprintf(f->next, sizeof f->next,
           "The GC keeps free regions committed for the next allocations (the gen0 budget); to hand memory back "
           "sooner: GCConserveMemory, a hard limit (GCHeapHardLimit)%s.",
           c->server ? ", or fewer heaps (GCHeapCount, DATAS)" : "");
}

/* ---- unbalanced-mark: with Server GC, one heap holds the others at mark ------------ */

static void rule_unbalanced_mark(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  size_t multi = 0, k = 0;
  double worst = -1;
  for (size_t i = 0; i < c->n; i++) {
    const struct ins_gc *g = &c->g[i];
    if (g->mark_heaps < 2 || !(g->mark_slow_ms > 0)) continue;
    multi++;
    if (g->mark_slow_ms >= o->mark_ratio * g->mark_fast_ms && g->mark_slow_ms - g->mark_fast_ms >= o->mark_min_ms) {
      c->x[k] = g->mark_slow_ms - g->mark_fast_ms;
      if (c->x[k] > worst) worst = c->x[k];
      k++;
    }
  }
  if (multi == 0 || k < o->mark_min_gcs || (double)k * 100.0 / (double)multi < o->mark_share_pct) return;
  struct ins_finding *f = add(c, "unbalanced-mark", INS_SEV_WARNING);
  snprintf(f->title, sizeof f->title,
           "Server GC marking is unbalanced: in %zu of %zu GCs one heap marked >= %gx as long as another", k, multi,
           o->mark_ratio);
  for (size_t i = 0; i < c->n; i++) {
    const struct ins_gc *g = &c->g[i];
    if (g->mark_heaps >= 2 && g->mark_slow_ms >= o->mark_ratio * g->mark_fast_ms &&
        g->mark_slow_ms - g->mark_fast_ms >= o->mark_min_ms)
      cite(f, g->index);
  }
  f->n_gcs_total = k;
  cat(f->evidence, sizeof f->evidence, "largest gap between the slowest and the fastest heap: %.3f ms "
      "(stats --section balance lists the root kind and the heaps)", worst);
  metric(f, "unbalanced_gcs", (double)k);
  metric(f, "unbalanced_pct", (double)k * 100.0 / (double)multi);
  metric(f, "max_gap_ms", worst);
  snprintf(f->next, sizeof f->next,
           "See which root kind the slow heap spends its time on (stats --section balance): a deep object graph "
           "or many handles on one heap (Older: card marking; Stack: one thread's deep stack); the GC steals "
           "mark work only within kinds that allow it.");
}

/* ---- gen2-frag-gcs: gen2 fragmentation is what condemns gen2 (the mem-doc: "the
 * most common reasons are high memory load and gen2 fragmentation") ------------ */

static uint32_t frag_conditions(void) {
  return (UINT32_C(1) << GCS_CONDEMN_CONDITIONS_MAX_HIGH_FRAG_P) | (UINT32_C(1) << GCS_CONDEMN_CONDITIONS_MAX_HIGH_FRAG_E_P) |
         (UINT32_C(1) << GCS_CONDEMN_CONDITIONS_MAX_HIGH_FRAG_M_P) | (UINT32_C(1) << GCS_CONDEMN_CONDITIONS_MAX_HIGH_FRAG_VM_P);
}

static int frag_gen2(const struct ins_gc *g) {
  return g->gen == GCS_GEN2 && (g->condemn_conditions & frag_conditions()) != 0;
}

static void rule_gen2_frag_gcs(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  size_t gen2s = 0, hit = 0, blocking = 0;
  double longest = 0, paused = 0;
  for (size_t i = 0; i < c->n; i++) {
    const struct ins_gc *g = &c->g[i];
    if (g->gen != GCS_GEN2) continue;
    gen2s++;
    if (!frag_gen2(g)) continue;
    hit++;
    paused += g->pause_ms;
    if (!gcs_type_is_background((uint32_t)g->type)) {
      blocking++;
      if (g->pause_ms > longest) longest = g->pause_ms;
    }
  }
  if (hit < o->frag_gen2_min_gcs || hit == 0) return;
  struct ins_finding *f = add(c, "gen2-frag-gcs", blocking ? INS_SEV_WARNING : INS_SEV_INFO);
  snprintf(f->title, sizeof f->title, "Gen2 fragmentation drove %zu of %zu gen2 GCs (%zu blocking%s)", hit, gen2s,
           blocking, blocking ? "" : ": all background");
  for (size_t i = 0; i < c->n; i++)
    if (frag_gen2(&c->g[i])) cite(f, c->g[i].index);
  cite_list(f->evidence, sizeof f->evidence, c, f, F_PAUSE);
  cat(f->evidence, sizeof f->evidence, "; condemned for gen2 fragmentation (max_high_frag_*), %.1f ms paused in them",
      paused);
  if (blocking) cat(f->evidence, sizeof f->evidence, ", the longest blocking one %.1f ms", longest);
  metric(f, "gcs", (double)hit);
  metric(f, "gen2_gcs", (double)gen2s);
  metric(f, "blocking_gcs", (double)blocking);
  metric(f, "paused_ms", paused);
  snprintf(f->next, sizeof f->next,
           "The GC judged compacting gen2 productive: the free space in gen2 is not reused. Find what leaves it "
           "(pins: pinning-blocks-compaction, gcscope handles; objects dying in gen2 soon after promotion: "
           "mid-life-crisis). With memory to spare and a pause that matters more than the heap size, "
           "GCLatencyMode.SustainedLowLatency makes the GC do full blocking GCs only when it has to.");
}

/* ---- pinning-blocks-compaction: a compacting GC cannot move what is pinned -------- */

static int pin_blocked(const struct ins_gc *g, const struct ins_advise_opts *o) {
  return g->compacted && !gcs_type_is_background((uint32_t)g->type) && g->pinned_surv_pct >= o->pin_surv_pct;
}

static void rule_pin_blocks(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  size_t compacting = 0, k = 0, plugs = 0;
  double plug_mb = 0;
  for (size_t i = 0; i < c->n; i++) {
    const struct ins_gc *g = &c->g[i];
    if (!g->compacted || gcs_type_is_background((uint32_t)g->type)) continue;
    compacting++;
    if (!pin_blocked(g, o)) continue;
    c->x[k++] = g->pinned_surv_pct;
    if (g->pinned_plug_mb > 0) {
      plugs++;
      plug_mb += g->pinned_plug_mb;
    }
  }
  if (compacting == 0 || k < o->pin_block_min_gcs || (double)k * 100.0 / (double)compacting < o->pin_block_share_pct)
    return;
  double med = pct(c->x, k, 50);
  struct ins_finding *f = add(c, "pinning-blocks-compaction", INS_SEV_WARNING);
  snprintf(f->title, sizeof f->title,
           "Pinning blocks compaction: in %zu of %zu compacting GCs >= %.0f %% of the survivors were pinned", k,
           compacting, o->pin_surv_pct);
  for (size_t i = 0; i < c->n; i++)
    if (pin_blocked(&c->g[i], o)) cite(f, c->g[i].index);
  f->n_gcs_total = k;
  cat(f->evidence, sizeof f->evidence, "median pinned share of the survivors %.1f %% (GCPerHeapHistory PinnedSurv)",
      med);
  if (plugs) cat(f->evidence, sizeof f->evidence, "; %.3f MB of pinned plugs in %zu of them (PinPlugAtGCTime)", plug_mb,
                 plugs);
  cat(f->evidence, sizeof f->evidence, "; gen0 fragmentation after: ");
  cite_list(f->evidence, sizeof f->evidence, c, f, F_GEN0FRAG);
  metric(f, "blocked_gcs", (double)k);
  metric(f, "compacting_gcs", (double)compacting);
  metric(f, "median_pinned_surv_pct", med);
  if (plugs) metric(f, "pinned_plug_mb", plug_mb);
  snprintf(f->next, sizeof f->next,
           "A compacting GC leaves pinned objects where they are and the free space before them as fragmentation "
           "(the mem-doc's pinning section). Find the pins (gcscope handles; stats --format json: pinned_object_sizes, "
           "user_pinned_plug_mb), pin for shorter, or allocate long-pinned buffers on the Pinned Object Heap "
           "(GC.AllocateArray(pinned: true)).");
}

/* ---- datas-low-heaps: DATAS holds the heap count while % paused is high ------------ */

/* DATAS (server GC) decides after every third GC whether to change the
 * heap count, from the median throughput cost of those GCs. The rule
 * fires when, with at least datas_min_decisions decisions: the run is at
 * least datas_pause_pct % paused (the process's total pause over its
 * duration), and at least datas_share_pct % of the decisions kept the heap
 * count although the median cost was at least datas_cost_pct %. A .NET 9+
 * decision (SizeAdaptationTuning) kept it when its NewHeapCount is no more
 * than the GC's own count. .NET 8's HeapCountTuning does not carry the
 * count decided (its NewHeapCount is the count the GC ran with; the runtime
 * makes the change before the next GC): it kept the count when no GC after
 * it, up to and with the next decision's GC, has more heaps than the GC of
 * the decision; with no GC after it that has a heap count it is not
 * judged (nor counted). */
static int datas_outcome(const struct ctx *c, size_t i, int *to) {
  const struct ins_gc *g = &c->g[i];
  if (!g->datas_net8) {
    *to = g->datas_new_heaps;
    return 1;
  }
  int most = 0;
  for (size_t j = i + 1; j < c->n; j++) {
    const struct ins_gc *h = &c->g[j];
    if (h->index <= g->index) continue;
    if (h->heap_count > most) most = h->heap_count;
    if (h->datas_decided) break;
  }
  *to = most;
  return most > 0;
}

static int datas_held(const struct ctx *c, size_t i) {
  const struct ins_gc *g = &c->g[i];
  int to;
  return g->datas_decided && datas_outcome(c, i, &to) && g->heap_count > 0 && to <= g->heap_count &&
         g->datas_cost_pct >= c->o->datas_cost_pct;
}

static void rule_datas_low_heaps(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  const struct ins_proc_summary *ps = c->ps;
  if (!ps || !(ps->duration_ms > 0)) return;
  double paused = ps->total_pause_ms * 100.0 / ps->duration_ms;
  size_t decisions = 0, held = 0, net8 = 0;
  int heaps_max = 0, to;
  double cost_max = 0;
  for (size_t i = 0; i < c->n; i++) {
    const struct ins_gc *g = &c->g[i];
    if (g->heap_count > heaps_max) heaps_max = g->heap_count;
    if (!g->datas_decided || !datas_outcome(c, i, &to)) continue;
    decisions++;
    if (g->datas_net8) net8++;
    if (datas_held(c, i)) {
      c->x[held++] = g->datas_cost_pct;
      if (g->datas_cost_pct > cost_max) cost_max = g->datas_cost_pct;
    }
  }
  if (held == 0 || decisions < o->datas_min_decisions || paused < o->datas_pause_pct ||
      (double)held * 100.0 / (double)decisions < o->datas_share_pct)
    return;
  double median = pct(c->x, held, 50);
  struct ins_finding *f = add(c, "datas-low-heaps", INS_SEV_WARNING);
  snprintf(f->title, sizeof f->title,
           "DATAS held the heap count while GCs cost %.1f %% of the run: %zu of %zu decisions added no heap at a "
           "throughput cost >= %g %%", paused, held, decisions, o->datas_cost_pct);
  for (size_t i = 0; i < c->n; i++)
    if (datas_held(c, i)) cite(f, c->g[i].index);
  f->n_gcs_total = held;
  cat(f->evidence, sizeof f->evidence,
      "median throughput cost of those decisions %.1f %% (largest %.1f %%); at most %d heap%s; total pause %.1f ms "
      "over %.1f ms (stats --section datas lists each heap count change)", median, cost_max, heaps_max,
      plural((size_t)heaps_max), ps->total_pause_ms, ps->duration_ms);
  if (net8)
    cat(f->evidence, sizeof f->evidence,
        "; %zu of the decisions are .NET 8's HeapCountTuning, which does not say the count decided: each is judged "
        "by the heaps of the GCs after it, up to the next decision", net8);
  metric(f, "pause_pct", paused);
  metric(f, "decisions", (double)decisions);
  metric(f, "held_decisions", (double)held);
  metric(f, "median_held_cost_pct", median);
  metric(f, "max_heap_count", (double)heaps_max);
  metric(f, "net8_decisions", (double)net8);
  snprintf(f->next, sizeof f->next,
           "DATAS trades throughput for a smaller heap. If %d heap%s is already every core the process may use, "
           "it cannot add more: reduce the allocation or survival instead. Otherwise let the GC use more heaps: "
           "DOTNET_GCDynamicAdaptationMode=0 (a heap per core), or a fixed DOTNET_GCHeapCount; "
           "GCConserveMemory also holds DATAS back.", heaps_max, plural((size_t)heaps_max));
  if (net8)   /* gc.cpp's calculate_new_heap_count (.NET 8): never above n_max_heaps - (1 + (n_max_heaps >= 32)) */
    cat(f->next, sizeof f->next, " .NET 8's DATAS stays a heap short of the most it may use (two short from 32): "
        "on 2 cores it keeps 1 heap.");
}

/* ---- ephemeral-pause ------------------------------------------------------------ */

static void rule_ephemeral(struct ctx *c) {
  const struct ins_advise_opts *o = c->o;
  const struct ins_gc *g = c->g;
  size_t total = 0, outliers = 0;
  double med_p[GCS_GEN1 + 1] = {NAN, NAN}, med_pr[GCS_GEN1 + 1] = {NAN, NAN};
  size_t cnt[GCS_GEN1 + 1] = {0, 0};
  for (int gen = GCS_GEN0; gen <= GCS_GEN1; gen++) {
    size_t m = 0;
    for (size_t i = 0; i < c->n; i++)
      if (g[i].gen == gen && gcs_type_is_blocking((uint32_t)g[i].type) && !isnan(g[i].pause_ms) &&
          !isnan(g[i].promoted_mb)) {
        c->x[m] = g[i].pause_ms;
        c->y[m++] = g[i].promoted_mb;
      }
    cnt[gen] = m;
    if (m < o->eph_min_gcs) continue;
    total += m;
    med_p[gen] = pct(c->x, m, 50);
    med_pr[gen] = pct(c->y, m, 50);
  }
  if (!total) return;
#define OUTLIER(gc)                                                                                     \
  (gcs_gen_is_ephemeral((uint32_t)(gc)->gen) && !isnan(med_p[(gc)->gen]) && gcs_type_is_blocking((uint32_t)(gc)->type) &&           \
   !isnan((gc)->promoted_mb) && (gc)->pause_ms >= o->eph_factor * med_p[(gc)->gen] &&                   \
   (gc)->pause_ms - med_p[(gc)->gen] >= o->eph_min_excess_ms &&                                          \
   (gc)->promoted_mb <= o->eph_promoted_factor * med_pr[(gc)->gen])
  size_t slow_suspend = 0;
  for (size_t i = 0; i < c->n; i++)
    if (OUTLIER(&g[i])) {
      outliers++;
      if (g[i].suspend_ms > (g[i].pause_ms - med_p[g[i].gen]) / 2) slow_suspend++;
    }
  double share = outliers * 100.0 / (double)total;
  if (outliers < o->eph_min_outliers || share < o->eph_share_pct) return;
  struct ins_finding *f = add(c, "ephemeral-pause", INS_SEV_INFO);
  for (size_t i = 0; i < c->n; i++)
    if (OUTLIER(&g[i])) cite(f, g[i].index);
#undef OUTLIER
  snprintf(f->title, sizeof f->title,
           "Ephemeral GC pauses do not track promoted bytes: %zu of %zu (%.1f %%) are >= %.0fx their generation's "
           "median without more promotion",
           outliers, total, share, o->eph_factor);
  for (int gen = GCS_GEN0; gen <= GCS_GEN1; gen++)
    if (!isnan(med_p[gen]))
      cat(f->evidence, sizeof f->evidence, "%sgen%d: median pause %.3f ms, median promoted %.3f MB over %zu GCs",
          f->evidence[0] ? "; " : "", gen, med_p[gen], med_pr[gen], cnt[gen]);
  cat(f->evidence, sizeof f->evidence, "; longest of them: ");
  cite_list(f->evidence, sizeof f->evidence, c, f, F_PAUSE);
  cat(f->evidence, sizeof f->evidence, "; %zu with suspension making up half the excess", slow_suspend);
  metric(f, "outliers", (double)outliers);
  metric(f, "ephemeral_gcs", (double)total);
  metric(f, "share_pct", share);
  metric(f, "gen0_median_pause_ms", med_p[0]);
  metric(f, "gen1_median_pause_ms", med_p[1]);
  metric(f, "slow_suspension", (double)slow_suspend);
  if (slow_suspend * 2 >= outliers)
    snprintf(f->next, sizeof f->next, "%s",
             ins_advice_find(c->a, "long-suspension")
                 ? "Suspension makes up much of the excess: see the long-suspension finding."
                 : "Suspension makes up much of the excess: record scheduler events to see which thread was "
                   "late to reach a safe point (gcscope triggers --suspend-over shows how often).");
  else {
    snprintf(f->next, sizeof f->next,
             "Suspect stolen CPU: other threads or processes running on the CPUs the GC needs; record "
             "scheduler events (context switches) around these GCs");
    if (c->server) cat(f->next, sizeof f->next, ", or use fewer Server GC heaps (GCHeapCount)");
    cat(f->next, sizeof f->next, ".");
  }
}

/* ---- pause-time (the symptom) ---------------------------------------------------- */

static void rule_pause_time(struct ctx *c) {
  const struct ins_proc_summary *ps = c->ps;
  const struct ins_advise_opts *o = c->o;
  if (!ps || !(ps->duration_ms > 0)) return;
  double p = ps->total_pause_ms * 100.0 / ps->duration_ms;
  int overall = p > o->pause_pct;
  int window = !isnan(ps->worst_window_pct) && ps->worst_window_pct > o->window_pct;
  if (!overall && !window) return;
  struct ins_finding *f = add(c, "pause-time", INS_SEV_WARNING);
  if (overall)
    snprintf(f->title, sizeof f->title, "GC pauses take %.1f %% of the run (above %.0f %%)", p, o->pause_pct);
  else
    snprintf(f->title, sizeof f->title, "GC pauses come in bursts: %.1f %% of a %.0f s window (above %.0f %%)",
             ps->worst_window_pct, ps->window_s, o->window_pct);
  cat(f->evidence, sizeof f->evidence, "total pause %.1f ms over %.1f ms = %.1f %%", ps->total_pause_ms,
      ps->duration_ms, p);
  if (!isnan(ps->worst_window_pct) && ps->worst_window_len_ms > 0 && ps->worst_window_len_ms < ps->window_s * 1000)
    cat(f->evidence, sizeof f->evidence, "; worst %.0f s window %.1f %% paused (all %.1f ms traced)", ps->window_s,
        ps->worst_window_pct, ps->worst_window_len_ms);
  else if (!isnan(ps->worst_window_pct))
    cat(f->evidence, sizeof f->evidence, "; worst %.0f s window %.1f %% paused, starting at %.3f ms",
        ps->window_s, ps->worst_window_pct, ps->worst_window_start_ms);
  /* The three longest pauses (earlier GC first on ties). */
  size_t top[3], nt = 0;
  for (; nt < 3; nt++) {
    size_t best = c->n;
    for (size_t i = 0; i < c->n; i++) {
      if (isnan(c->g[i].pause_ms)) continue;
      int taken = 0;
      for (size_t k = 0; k < nt; k++) taken |= top[k] == i;
      if (!taken && (best == c->n || c->g[i].pause_ms > c->g[best].pause_ms)) best = i;
    }
    if (best == c->n) break;
    top[nt] = best;
  }
  for (size_t i = 0; i < nt; i++) cite(f, c->g[top[i]].index);
  if (nt) {
    cat(f->evidence, sizeof f->evidence, "; longest pauses ");
    cite_list(f->evidence, sizeof f->evidence, c, f, F_PAUSE);
  }
  metric(f, "pause_pct", p);
  metric(f, "total_pause_ms", ps->total_pause_ms);
  metric(f, "duration_ms", ps->duration_ms);
  if (!isnan(ps->worst_window_pct)) metric(f, "worst_window_pct", ps->worst_window_pct);
  if (c->a->n > 1)   /* other findings: the causes */
    cat(f->next, sizeof f->next, "This is the symptom: the other findings say why. ");
  cat(f->next, sizeof f->next,
      "Split the pause by generation (gcscope stats): if gen2 GCs dominate see the gen2 findings; if "
      "ephemeral GCs dominate, allocate less (gcscope allocs) or keep less alive (Promoted MB).");
}

size_t ins_advise(const struct ins_gc *gcs, size_t n, const struct ins_proc_summary *ps,
                  const struct ins_advise_opts *o, struct ins_advice *out) {
  out->n = 0;
  struct ctx c = {.g = gcs, .n = n, .ps = ps, .o = o, .a = out, .server = ps && ps->server_gc == 1};
  c.x = malloc((n ? n : 1) * sizeof *c.x);
  c.y = malloc((n ? n : 1) * sizeof *c.y);
  if (!c.x || !c.y) goto out;
  if (ps && ps->duration_ms > 0) c.run_ms = ps->duration_ms;
  else if (n > 1 && gcs[n - 1].start_ms > gcs[0].start_ms) c.run_ms = gcs[n - 1].start_ms - gcs[0].start_ms;
  /* Priority order (ties within a severity): causes first, symptoms last;
   * induced GCs early, since they reshape the whole GC schedule. */
  rule_heap_growth(&c);
  rule_suspension(&c);
  rule_induced(&c);
  rule_gen0_frag(&c);
  rule_loh_churn(&c);
  rule_finalizers(&c);
  rule_high_survival(&c);
  rule_midlife(&c);
  rule_full_blocking(&c);
  rule_gen2_frag(&c);
  rule_gen0_churn(&c);
  rule_peak_after(&c);
  rule_committed(&c);
  rule_unbalanced_mark(&c);
  rule_gen2_frag_gcs(&c);
  rule_pin_blocks(&c);
  rule_datas_low_heaps(&c);
  rule_ephemeral(&c);
  rule_pause_time(&c);
  /* Stable sort by severity, highest first. */
  for (size_t i = 1; i < out->n; i++) {
    struct ins_finding t = out->f[i];
    size_t j = i;
    for (; j > 0 && out->f[j - 1].severity < t.severity; j--) out->f[j] = out->f[j - 1];
    out->f[j] = t;
  }
out:
  free(c.x);
  free(c.y);
  return out->n;
}

const struct ins_finding *ins_advice_find(const struct ins_advice *a, const char *rule) {
  for (size_t i = 0; i < a->n; i++)
    if (strcmp(a->f[i].rule, rule) == 0) return &a->f[i];
  return NULL;
}

double ins_finding_metric(const struct ins_finding *f, const char *name) {
  for (size_t i = 0; f && i < f->n_metrics; i++)
    if (strcmp(f->metrics[i].name, name) == 0) return f->metrics[i].value;
  return NAN;
}

int ins_advice_worst(const struct ins_advice *a) {
  int w = -1;
  for (size_t i = 0; i < a->n; i++)
    if ((int)a->f[i].severity > w) w = (int)a->f[i].severity;
  return w;
}
