/* Advisor rules: for each rule a GC history that triggers it (and only it),
 * with its severity and exact figures, and histories that must not trigger
 * it (below a threshold, a single outlier, a warm-up that levels off). The
 * base history is healthy: no rule fires. */
#include <math.h>
#include <stdint.h>

#include "ins_advise.h"
#include "check.h"
#include "gcs_enums.h"

#define CAP 64

/* n gen0 GCs, one per second: pause 1 ms, suspend 0.05 ms, promoted 1 MB,
 * Peak 12 MB / After 8 MB, gen0 fragmentation 10 %, gen0 survival 5 %, no
 * pins, no finalizable survivors. */
static size_t base_n(struct ins_gc *g, size_t n) {
  for (size_t i = 0; i < n; i++)
    g[i] = (struct ins_gc){.index = (uint32_t)i + 1, .gen = 0, .type = 0, .reason = 0,
                           .start_ms = (double)i * 1000.0, .pause_ms = 1, .suspend_ms = 0.05,
                           .promoted_mb = 1, .peak_mb = 12, .after_mb = 8, .gen0_frag_pct = 10,
                           .gen2_frag_before_pct = NAN, .pinned_objects = 0, .condemn_conditions = 0,
                           .gen0_survival_pct = 5, .gen1_survival_pct = NAN, .gen2_survival_pct = NAN,
                           .finalizable_surv_mb = 0};
  return n;
}
static size_t base(struct ins_gc *g) { return base_n(g, 10); }

static struct ins_gc gen2(uint32_t index, int type, int reason, double start, double after) {
  return (struct ins_gc){.index = index, .gen = 2, .type = type, .reason = reason, .start_ms = start,
                         .pause_ms = 2, .suspend_ms = 0.05, .promoted_mb = 20, .peak_mb = NAN,
                         .after_mb = after, .gen0_frag_pct = 10, .gen2_frag_before_pct = NAN,
                         .gen0_survival_pct = NAN, .gen1_survival_pct = NAN, .gen2_survival_pct = NAN,
                         .finalizable_surv_mb = NAN};
}

static struct ins_gc gen1(uint32_t index, double start, double surv, double promoted) {
  return (struct ins_gc){.index = index, .gen = 1, .type = 0, .reason = 0, .start_ms = start,
                         .pause_ms = 1, .suspend_ms = 0.05, .promoted_mb = promoted, .peak_mb = 12,
                         .after_mb = 8, .gen0_frag_pct = 10, .gen2_frag_before_pct = NAN,
                         .gen0_survival_pct = 5, .gen1_survival_pct = surv, .gen2_survival_pct = NAN,
                         .finalizable_surv_mb = 0};
}

static struct ins_proc_summary healthy = {10000, 10, 0.5, 0, 0, 60, 0, 1};
static struct ins_advise_opts O;
static struct ins_advice A;

/* Runs the rules and checks that exactly `rule` fired (or nothing if NULL),
 * with severity sev. */
static const struct ins_finding *only(const struct ins_gc *g, size_t n, const struct ins_proc_summary *ps,
                                      const char *rule, int sev, int line) {
  size_t k = ins_advise(g, n, ps, &O, &A);
  size_t want = rule ? 1 : 0;
  if (k != want || (rule && !ins_advice_find(&A, rule))) {
    char got[512] = "";
    for (size_t i = 0; i < k; i++) snprintf(got + strlen(got), sizeof got - strlen(got), " %s", A.f[i].rule);
    check_fail_at(__FILE__, line, "expected %s, got %zu finding(s):%s", rule ? rule : "none", k, got);
    return NULL;
  }
  const struct ins_finding *f = rule ? ins_advice_find(&A, rule) : NULL;
  if (f && (int)f->severity != sev)
    check_fail_at(__FILE__, line, "%s: severity %s, expected %s", rule, ins_severity_name(f->severity),
                  ins_severity_name((enum ins_severity)sev));
  return f;
}
#define ONLY(g, n, ps, rule, sev) only(g, n, ps, rule, sev, __LINE__)
#define NONE(g, n, ps) only(g, n, ps, NULL, -1, __LINE__)
#define M(f, name) ins_finding_metric(f, name)
enum { INFO = INS_SEV_INFO, WARN = INS_SEV_WARNING, CRIT = INS_SEV_CRITICAL };

int main(void) {
  ins_advise_default_opts(&O);
  struct ins_gc g[CAP];
  size_t n = base(g);
  NONE(g, n, &healthy);
  CHECK_STR(ins_severity_name(INS_SEV_CRITICAL), "critical");
  CHECK_EQ_INT(ins_parse_severity("warning"), INS_SEV_WARNING);
  CHECK_EQ_INT(ins_parse_severity("severe"), -1);

  /* pause-time: 600 ms of 10 s = 6 % > 5 %; 500 ms = 5 % is not above. */
  struct ins_proc_summary ps = healthy;
  ps.total_pause_ms = 600;
  const struct ins_finding *f = ONLY(g, n, &ps, "pause-time", WARN);
  if (f) {
    CHECK_HAS(f->title, "6.0 %");
    CHECK_NEAR(M(f, "pause_pct"), 6, 1e-9);
    CHECK_EQ_INT(f->n_gcs, 3);
    CHECK_EQ_INT(f->gcs[0], 1);   /* equal pauses: earliest first */
  }
  ps.total_pause_ms = 500;
  NONE(g, n, &ps);
  /* ... or a burst: worst 60 s window 12 % > 10 %; 10 % is not. */
  ps = healthy;
  ps.worst_window_pct = 12;
  f = ONLY(g, n, &ps, "pause-time", WARN);
  if (f) CHECK_HAS(f->title, "bursts");
  ps.worst_window_pct = 10;
  NONE(g, n, &ps);

  /* loh-churn: gen2 GCs 11, 12 AllocLarge (4), 13 AllocSmall: 2 of 3 gen2,
   * 2 of 13 GCs (15.4 % < 25 %): warning. */
  n = base(g);
  g[n++] = gen2(11, 1, 4, 10000, 50);
  g[n++] = gen2(12, 1, 4, 11000, 50);
  g[n++] = gen2(13, 1, 0, 12000, 50);
  f = ONLY(g, n, &healthy, "loh-churn", WARN);
  if (f) {
    CHECK_EQ_INT(f->n_gcs, 2);
    CHECK_EQ_INT(f->gcs[0], 11);
    CHECK_EQ_INT(f->gcs[1], 12);
    CHECK_HAS(f->title, "2 of 3");
    CHECK_NEAR(M(f, "share_of_all_pct"), 200.0 / 13, 1e-9);
  }
  g[n++] = gen2(14, 1, 0, 13000, 50);   /* 2 of 4 = 50 %: not more than half */
  NONE(g, n, &healthy);
  /* 4 AllocLarge gen2 GCs of 14 GCs = 28.6 %: critical. */
  n = base(g);
  for (uint32_t i = 0; i < 4; i++) g[n++] = gen2(11 + i, 1, 4, 10000 + i * 1000, 50);
  f = ONLY(g, n, &healthy, "loh-churn", CRIT);
  if (f) CHECK_NEAR(M(f, "share_of_all_pct"), 400.0 / 14, 1e-9);

  /* induced: GC 4 Induced, GC 7 InducedCompacting: two, info; a third: warning. */
  n = base(g);
  g[3].reason = 1;
  g[6].reason = 10;
  f = ONLY(g, n, &healthy, "induced", INFO);
  if (f) {
    CHECK_EQ_INT(f->n_gcs_total, 2);
    CHECK_EQ_INT(f->gcs[0], 4);
    CHECK_EQ_INT(f->gcs[1], 7);
    CHECK_HAS(f->evidence, "Induced 1");
    CHECK_HAS(f->evidence, "InducedCompacting 1");
  }
  g[8].reason = 1;
  f = ONLY(g, n, &healthy, "induced", WARN);
  if (f) CHECK_NEAR(M(f, "per_second"), 0.3, 1e-9);   /* 3 in 10 s */
  g[3].reason = 4;   /* AllocLarge on a gen0 GC: not induced */
  g[6].reason = 0;
  g[8].reason = 0;
  NONE(g, n, &healthy);

  /* full-blocking-gen2: a 2N GC condemned for high memory load. */
  n = base(g);
  g[n] = gen2(11, 0, 0, 10000, 50);
  g[n++].condemn_conditions = 1u << 2;   /* high_mem_p */
  f = ONLY(g, n, &healthy, "full-blocking-gen2", WARN);
  if (f) {
    CHECK_HAS(f->evidence, "high_mem_p");
    CHECK_HAS(f->next, "memory load");
    CHECK_EQ_INT(f->gcs[0], 11);
  }
  g[n - 1].pause_ms = 150;   /* >= 100 ms: critical */
  f = ONLY(g, n, &healthy, "full-blocking-gen2", CRIT);
  if (f) CHECK_NEAR(M(f, "longest_pause_ms"), 150, 1e-9);
  g[n - 1].reason = 1;   /* induced: the induced finding's, not this one's; 150 ms: critical too */
  f = ONLY(g, n, &healthy, "induced", CRIT);
  if (f) CHECK_NEAR(M(f, "longest_pause_ms"), 150, 1e-9);
  g[n - 1].pause_ms = 1800;   /* issue 29: an induced 1.8 s blocking gen2 pause was "info" */
  f = ONLY(g, n, &healthy, "induced", CRIT);
  if (f) CHECK_HAS(f->evidence, "longest pause 1800.0 ms");
  g[n - 1].pause_ms = 99.9;   /* shorter than full_critical_ms, one induced GC: information */
  ONLY(g, n, &healthy, "induced", INFO);
  g[n - 1].pause_ms = 150;
  g[n - 1].reason = 0;
  g[n - 1].type = 1;   /* the same GC as a BGC: fine */
  NONE(g, n, &healthy);

  /* gen2-frag-bgc: BGC 11 started with 20 % gen2 fragmentation (1 of 1); 15 % is fine;
   * 1 of 3 BGCs above is less than half: fine. */
  n = base(g);
  g[n] = gen2(11, 1, 0, 10000, 50);
  g[n++].gen2_frag_before_pct = 20;
  f = ONLY(g, n, &healthy, "gen2-frag-bgc", WARN);
  if (f) {
    CHECK_HAS(f->evidence, "#11 (20.0 %)");
    CHECK_NEAR(M(f, "median_gen2_frag_pct"), 20, 1e-9);
  }
  g[n - 1].gen2_frag_before_pct = 15;
  NONE(g, n, &healthy);
  g[n - 1].gen2_frag_before_pct = 20;
  g[n] = gen2(12, 1, 0, 11000, 50);
  g[n++].gen2_frag_before_pct = 10;
  g[n] = gen2(13, 1, 0, 12000, 50);
  g[n++].gen2_frag_before_pct = 10;
  NONE(g, n, &healthy);

  /* gen0-frag-pinning: GCs 1-5 with 99 % gen0 fragmentation and 5..9 pins: 5 of
   * 10 = 50 %: critical; of 18 GCs (27.8 %): warning; 4 GCs: too few. */
  n = base(g);
  for (int i = 0; i < 5; i++) {
    g[i].gen0_frag_pct = 99;
    g[i].pinned_objects = 5 + (uint32_t)i;
  }
  f = ONLY(g, n, &healthy, "gen0-frag-pinning", CRIT);
  if (f) {
    CHECK_EQ_INT(f->gcs[0], 1);
    CHECK_EQ_INT(f->n_gcs_total, 5);
    CHECK_NEAR(M(f, "share_pct"), 50, 1e-9);
    CHECK_NEAR(M(f, "median_gen0_frag_pct"), 99, 1e-9);
    CHECK_NEAR(M(f, "median_pinned_objects"), 7, 1e-9);
    CHECK_NEAR(M(f, "max_pinned_objects"), 9, 1e-9);
  }
  n = base_n(g, 18);
  for (int i = 0; i < 5; i++) {
    g[i].gen0_frag_pct = 99;
    g[i].pinned_objects = 5;
  }
  f = ONLY(g, n, &healthy, "gen0-frag-pinning", WARN);
  if (f) CHECK_NEAR(M(f, "share_pct"), 500.0 / 18, 1e-9);
  g[4].pinned_objects = 0;   /* 4 GCs: too few (fragmentation without pins does not count) */
  NONE(g, n, &healthy);
  g[4].pinned_objects = 5;
  g[4].gen0_frag_pct = 40;   /* pins without much fragmentation */
  NONE(g, n, &healthy);

  /* ephemeral-pause: of 20 gen0 GCs (median pause 1 ms, promoted 1 MB), one
   * pausing 5 ms is an outlier, not a finding; 5 of 20 (25 %) are: info. */
  n = base_n(g, 20);
  g[5].pause_ms = 5;
  NONE(g, n, &healthy);
  for (int i = 6; i < 10; i++) g[i].pause_ms = 5;
  f = ONLY(g, n, &healthy, "ephemeral-pause", INFO);
  if (f) {
    CHECK_EQ_INT(f->n_gcs_total, 5);
    CHECK_EQ_INT(f->gcs[0], 6);
    CHECK_NEAR(M(f, "share_pct"), 25, 1e-9);
    CHECK_NEAR(M(f, "gen0_median_pause_ms"), 1, 1e-9);
    CHECK_HAS(f->evidence, "gen0: median pause 1.000 ms");
    CHECK_HAS(f->next, "stolen CPU");
    CHECK(strstr(f->next, "Server") == NULL);   /* workstation GC: no server advice */
  }
  ps = healthy;
  ps.server_gc = 1;
  f = ONLY(g, n, &ps, "ephemeral-pause", INFO);
  if (f) CHECK_HAS(f->next, "fewer Server GC heaps");
  for (int i = 5; i < 10; i++) g[i].suspend_ms = 3;   /* most of the excess is suspension */
  f = ONLY(g, n, &healthy, "ephemeral-pause", INFO);
  if (f) {
    CHECK_HAS(f->next, "Suspension makes up");
    CHECK(strstr(f->next, "long-suspension finding") == NULL);   /* it was not printed */
    CHECK_NEAR(M(f, "slow_suspension"), 5, 1e-9);
  }
  for (int i = 5; i < 10; i++) {
    g[i].suspend_ms = 0.05;
    g[i].promoted_mb = 5;   /* the long pauses promoted 5x more: they track */
  }
  NONE(g, n, &healthy);
  /* gen1 GCs are judged against gen1's median, not gen0's. */
  n = base_n(g, 20);
  for (uint32_t i = 0; i < 5; i++) {
    g[n] = gen1(21 + i, 20000 + i * 1000, 30, 1);
    g[n++].pause_ms = 4;
  }
  NONE(g, n, &healthy);

  /* long-suspension: one GC at 6 ms is not enough; two are (warning); one at
   * 60 ms (>= 50 ms) is critical. */
  n = base(g);
  g[8].suspend_ms = 6;
  NONE(g, n, &healthy);
  g[2].suspend_ms = 7;
  f = ONLY(g, n, &healthy, "long-suspension", WARN);
  if (f) {
    CHECK_HAS(f->evidence, "#3 (7.0 ms), #9 (6.0 ms)");
    CHECK_NEAR(M(f, "worst_suspend_ms"), 7, 1e-9);
    CHECK_NEAR(M(f, "median_suspend_ms"), 0.05, 1e-9);
  }
  g[2].suspend_ms = 5;   /* 5 ms is not above */
  NONE(g, n, &healthy);
  g[8].suspend_ms = 60;
  f = ONLY(g, n, &healthy, "long-suspension", CRIT);

  /* committed-above-heap: committed 100 MB after, After 40 MB everywhere
   * (ratio 2.5, 60 MB above): info; 80 MB (ratio 2, 40 MB above): none. */
  n = base(g);
  for (size_t i = 0; i < n; i++) { g[i].after_mb = 40; g[i].committed_after_mb = 100; }
  f = ONLY(g, n, &healthy, "committed-above-heap", INFO);
  if (f) {
    CHECK_HAS(f->title, "median committed/After 2.50, median excess 60.0 MB");
    CHECK_NEAR(M(f, "median_committed_after_ratio"), 2.5, 1e-9);
    CHECK_NEAR(M(f, "median_committed_minus_after_mb"), 60, 1e-9);
  }
  for (size_t i = 0; i < n; i++) g[i].committed_after_mb = 80;
  NONE(g, n, &healthy);

  /* unbalanced-mark: 2 heaps; GCs 1, 4, 7 have a slow heap 3 ms vs 1 ms
   * (>= 2x, 2 ms more): 3 of 10 GCs (30 %): warning. 1.5 ms vs 1 ms (not 2x)
   * and 0.5 vs 0.1 ms (5x but 0.4 ms) do not count: then 2 GCs, none. */
  n = base(g);
  for (size_t i = 0; i < n; i++) { g[i].mark_heaps = 2; g[i].mark_slow_ms = 1.2; g[i].mark_fast_ms = 1; }
  g[0].mark_slow_ms = g[3].mark_slow_ms = g[6].mark_slow_ms = 3;
  f = ONLY(g, n, &healthy, "unbalanced-mark", WARN);
  if (f) {
    CHECK_HAS(f->title, "in 3 of 10 GCs");
    CHECK_EQ_INT((int)f->n_gcs, 3);
    CHECK_NEAR(M(f, "max_gap_ms"), 2, 1e-9);
    CHECK_NEAR(M(f, "unbalanced_pct"), 30, 1e-9);
  }
  g[6].mark_slow_ms = 1.5;
  g[5].mark_slow_ms = 0.5;
  g[5].mark_fast_ms = 0.1;
  NONE(g, n, &healthy);
  for (size_t i = 0; i < n; i++) g[i].mark_heaps = 0;

  /* gen2-frag-gcs (issue 26): two background gen2 GCs condemned for gen2
   * fragmentation (max_high_frag_p), one for nothing: info (all background),
   * "2 of 3"; one of them blocking (2N, 30 ms, not induced) adds
   * full-blocking-gen2, so the condition alone is checked on a BGC first. */
  n = base(g);
  g[n] = gen2(11, GCS_GC_TYPE_BACKGROUND, 0, 11000, 8);
  g[n++].condemn_conditions = UINT32_C(1) << GCS_CONDEMN_CONDITIONS_MAX_HIGH_FRAG_P;
  g[n] = gen2(12, GCS_GC_TYPE_BACKGROUND, 0, 12000, 8);
  g[n++].condemn_conditions = UINT32_C(1) << GCS_CONDEMN_CONDITIONS_MAX_HIGH_FRAG_M_P;
  g[n++] = gen2(13, GCS_GC_TYPE_BACKGROUND, 0, 13000, 8);
  f = ONLY(g, n, &healthy, "gen2-frag-gcs", INFO);
  if (f) {
    CHECK_HAS(f->title, "Gen2 fragmentation drove 2 of 3 gen2 GCs (0 blocking: all background)");
    CHECK_EQ_INT((int)f->n_gcs, 2);
    CHECK_NEAR(M(f, "paused_ms"), 4, 1e-9);
    CHECK_HAS(f->next, "SustainedLowLatency");
  }
  g[11].condemn_conditions = UINT32_C(1) << GCS_CONDEMN_CONDITIONS_HIGH_MEM_P;   /* memory, not fragmentation */
  g[10].condemn_conditions = 0;
  NONE(g, n, &healthy);

  /* pinning-blocks-compaction (issue 26): compacting blocking GCs, 3 of 10
   * with 12 % of their survivors pinned (>= 10 %): 30 % >= 10 %, 3 >= 3:
   * warning; pinned plugs known for one of them. 9 % is not enough; a swept
   * GC (no Compaction) does not count. */
  n = base(g);
  for (size_t i = 0; i < n; i++) { g[i].compacted = 1; g[i].pinned_surv_pct = 2; }
  g[1].pinned_surv_pct = g[4].pinned_surv_pct = g[8].pinned_surv_pct = 12;
  g[4].pinned_plug_mb = 0.5;
  f = ONLY(g, n, &healthy, "pinning-blocks-compaction", WARN);
  if (f) {
    CHECK_HAS(f->title, "in 3 of 10 compacting GCs >= 10 % of the survivors were pinned");
    CHECK_EQ_INT((int)f->n_gcs, 3);
    CHECK_NEAR(M(f, "median_pinned_surv_pct"), 12, 1e-9);
    CHECK_NEAR(M(f, "pinned_plug_mb"), 0.5, 1e-9);
    CHECK_HAS(f->evidence, "0.500 MB of pinned plugs in 1 of them");
  }
  g[8].pinned_surv_pct = 9;
  NONE(g, n, &healthy);
  g[8].pinned_surv_pct = 12;
  g[8].compacted = 0;
  NONE(g, n, &healthy);
  /* datas-low-heaps (issue 26): 2 heaps; DATAS decided at GCs 3, 6, 9 (3
   * decisions): at 3 for 2 heaps at cost 40 %, at 6 for 2 at 20 %, at 9 for
   * 3 (a growth) at 30 %: 2 of 3 held (66.7 % >= 50 %), their median cost
   * 30 %; the run 12 % paused (>= 10 %): warning, beside pause-time (> 5 %).
   * Not with 9 % paused (pause-time alone), nor when GC 6's cost is 9 %
   * (1 of 3 held), nor with 2 decisions. */
  n = base(g);
  for (size_t i = 0; i < n; i++) g[i].heap_count = 2;
  g[2].datas_decided = g[5].datas_decided = g[8].datas_decided = 1;
  g[2].datas_new_heaps = 2; g[2].datas_cost_pct = 40;
  g[5].datas_new_heaps = 2; g[5].datas_cost_pct = 20;
  g[8].datas_new_heaps = 3; g[8].datas_cost_pct = 30;
  ps = healthy;
  ps.total_pause_ms = 1200;
  CHECK_EQ_INT((int)ins_advise(g, n, &ps, &O, &A), 2);
  f = ins_advice_find(&A, "datas-low-heaps");
  CHECK(f != NULL && ins_advice_find(&A, "pause-time") != NULL);
  if (f) {
    CHECK_EQ_INT(f->severity, WARN);
    CHECK_HAS(f->title, "2 of 3 decisions");
    CHECK_HAS(f->title, "12.0 %");
    CHECK_EQ_INT((int)f->n_gcs, 2);
    CHECK_EQ_INT(f->gcs[0], 3);
    CHECK_EQ_INT(f->gcs[1], 6);
    CHECK_NEAR(M(f, "median_held_cost_pct"), 30, 1e-9);
    CHECK_NEAR(M(f, "pause_pct"), 12, 1e-9);
    CHECK_NEAR(M(f, "max_heap_count"), 2, 1e-9);
    CHECK_EQ_INT(A.f[0].rule == f->rule || A.f[1].rule == f->rule, 1);
  }
  ps.total_pause_ms = 900;
  ONLY(g, n, &ps, "pause-time", WARN);
  ps.total_pause_ms = 1200;
  g[5].datas_cost_pct = 9;
  ONLY(g, n, &ps, "pause-time", WARN);
  g[5].datas_cost_pct = 20;
  g[8].datas_decided = 0;
  ONLY(g, n, &ps, "pause-time", WARN);
  for (size_t i = 0; i < n; i++) { g[i].heap_count = 0; g[i].datas_decided = 0; }
  /* datas-low-heaps on .NET 8's HeapCountTuning, whose NewHeapCount is the
   * count the GC ran with (gc.cpp: dynamic_heap_count_data.new_n_heaps), not
   * the decided one: GCs 1-4 ran with 1 heap, GCs 5-10 with 2; decisions at
   * GCs 3 (NewHeapCount 1, cost 40 %), 6 (2, 20 %) and 9 (2, 30 %). Judged by
   * the heaps of the GCs after each up to the next decision: at 3 the count
   * grew (GCs 5 and 6 have 2 heaps), at 6 and 9 it did not (GCs 7-9, 10: 2
   * heaps): 2 of 3 held, median cost 25 %. Read as .NET 9's NewHeapCount the
   * decision at 3 would count as held too (3 of 3, median 30 %). Without
   * GC 10, the decision at 9 has no GC after it: not judged, 2 decisions
   * (fewer than 3): no finding. */
  n = base(g);
  for (size_t i = 0; i < n; i++) g[i].heap_count = i < 4 ? 1 : 2;
  g[2].datas_decided = g[5].datas_decided = g[8].datas_decided = 1;
  g[2].datas_net8 = g[5].datas_net8 = g[8].datas_net8 = 1;
  g[2].datas_new_heaps = 1; g[2].datas_cost_pct = 40;
  g[5].datas_new_heaps = 2; g[5].datas_cost_pct = 20;
  g[8].datas_new_heaps = 2; g[8].datas_cost_pct = 30;
  ps = healthy;
  ps.total_pause_ms = 1200;
  CHECK_EQ_INT((int)ins_advise(g, n, &ps, &O, &A), 2);
  f = ins_advice_find(&A, "datas-low-heaps");
  CHECK(f != NULL);
  if (f) {
    CHECK_HAS(f->title, "2 of 3 decisions added no heap");
    CHECK_EQ_INT((int)f->n_gcs, 2);
    CHECK_EQ_INT(f->gcs[0], 6);
    CHECK_EQ_INT(f->gcs[1], 9);
    CHECK_NEAR(M(f, "median_held_cost_pct"), 25, 1e-9);
    CHECK_NEAR(M(f, "decisions"), 3, 1e-9);
    CHECK_NEAR(M(f, "net8_decisions"), 3, 1e-9);
    CHECK_NEAR(M(f, "max_heap_count"), 2, 1e-9);
    CHECK_HAS(f->evidence, "3 of the decisions are .NET 8's HeapCountTuning");
    CHECK_HAS(f->next, "a heap short");
  }
  ONLY(g, n - 1, &ps, "pause-time", WARN);
  for (size_t i = 0; i < n; i++) { g[i].heap_count = 0; g[i].datas_decided = 0; g[i].datas_net8 = 0; }

  /* peak-vs-after: Peak 30 / After 10 everywhere (ratio 3, 20 MB): info. */
  n = base(g);
  for (size_t i = 0; i < n; i++) { g[i].peak_mb = 30; g[i].after_mb = 10; }
  f = ONLY(g, n, &healthy, "peak-vs-after", INFO);
  if (f) {
    CHECK_HAS(f->title, "median Peak/After 3.00");
    CHECK(strstr(f->next, "Server") == NULL);
  }
  ps = healthy;
  ps.server_gc = 1;
  f = ONLY(g, n, &ps, "peak-vs-after", INFO);
  if (f) CHECK_HAS(f->next, "Server GC");
  for (size_t i = 0; i < n; i++) { g[i].peak_mb = 14; g[i].after_mb = 5; }   /* ratio 2.8 but 9 MB */
  NONE(g, n, &healthy);
  for (size_t i = 0; i < n; i++) { g[i].peak_mb = 30; g[i].after_mb = 20; }  /* 10 MB but ratio 1.5 */
  NONE(g, n, &healthy);

  /* heap-growth: five BGCs at 0, 2, 4, 6, 8 s. The tail (the last half of the
   * run, from 4 s) holds the last three; its slope is (E - C) / 4 s over a
   * 4 s window, so the growth is E - C MB, against the tail's median level. */
  static const double rising[5] = {100, 130, 160, 190, 220};   /* 60 / 190 = 31.6 %: warning */
  static const double plateau[5] = {100, 200, 240, 241, 240};  /* warm-up: +140 % first to last, flat tail */
  static const double steep[5] = {100, 150, 200, 300, 400};    /* 200 / 300 = 66.7 %: critical */
  static const double slow[5] = {100, 110, 120, 135, 150};     /* 30 / 135 = 22.2 %: below 30 % */
  const double *hist[4] = {rising, plateau, steep, slow};
  for (int h = 0; h < 4; h++) {
    n = 0;
    for (uint32_t i = 0; i < 5; i++) g[n++] = gen2(i + 1, 1, 0, i * 2000.0, hist[h][i]);
    if (h == 0) {
      f = ONLY(g, n, &healthy, "heap-growth", WARN);
      if (f) {
        CHECK_NEAR(M(f, "tail_growth_mb"), 60, 1e-9);
        CHECK_NEAR(M(f, "tail_growth_pct"), 6000.0 / 190, 1e-9);
        CHECK_NEAR(M(f, "trend_mb_per_min"), 900, 1e-9);
        CHECK_NEAR(M(f, "tail_gen2_gcs"), 3, 1e-9);
        CHECK_EQ_INT(f->n_gcs, 3);
        CHECK_EQ_INT(f->gcs[0], 3);
        CHECK_HAS(f->evidence, "2 of 2 steps up");
      }
    } else if (h == 2) {
      f = ONLY(g, n, &healthy, "heap-growth", CRIT);
      if (f) CHECK_NEAR(M(f, "tail_growth_pct"), 20000.0 / 300, 1e-9);
    } else {
      NONE(g, n, &healthy);
    }
  }
  /* A noisy tail that does not go up most of the time: 200, 150, 260, 160
   * (1 of 3 steps up) is not a leak even with a rising slope. */
  n = 0;
  static const double noisy[7] = {100, 120, 140, 200, 150, 260, 160};
  for (uint32_t i = 0; i < 7; i++) g[n++] = gen2(i + 1, 1, 0, i * 1000.0, noisy[i]);
  NONE(g, n, &healthy);
  /* With >= 4 full blocking gen2 GCs only they count (their After is what
   * lives; a BGC's After also holds what was allocated while it ran):
   * BGCs rising 100..350 MB between 2N GCs staying at 20 MB: no leak ... */
  n = 0;
  for (uint32_t i = 0; i < 12; i++)
    g[n++] = gen2(i + 1, i % 2 ? 0 : 1, 0, i * 1000.0, i % 2 ? 20 : 100 + 50.0 * (i / 2));
  ins_advise(g, n, &healthy, &O, &A);
  CHECK(ins_advice_find(&A, "heap-growth") == NULL);
  /* ... and 2N GCs rising 20, 40, ..., 120 under flat BGCs: a leak, judged on
   * the 2N GCs. Run 0..11 s, tail from 5.5 s: 2N at 7, 9, 11 s (80, 100, 120):
   * slope 10 MB/s over the 5.5 s window = 55 MB, median level 100 -> 55 %. */
  for (uint32_t i = 1; i < 12; i += 2) g[i].after_mb = 20 + 20.0 * (i / 2);
  for (uint32_t i = 0; i < 12; i += 2) g[i].after_mb = 100;
  ins_advise(g, n, &healthy, &O, &A);
  f = ins_advice_find(&A, "heap-growth");
  CHECK(f != NULL);
  if (f) {
    CHECK_NEAR(M(f, "blocking_only"), 1, 1e-9);
    CHECK_NEAR(M(f, "tail_growth_mb"), 55, 1e-9);
    CHECK_NEAR(M(f, "tail_growth_pct"), 55, 1e-9);
    CHECK_EQ_INT(f->severity, INS_SEV_WARNING);
    CHECK_HAS(f->evidence, "full blocking gen2 GCs");
  }
  /* Three gen2 GCs are too few. */
  n = 0;
  for (uint32_t i = 0; i < 3; i++) g[n++] = gen2(i + 1, 1, 0, i * 2000.0, 100 + 100 * i);
  NONE(g, n, &healthy);

  /* high-survival: gen0 survival 20 % (>= 15 %): warning; 45 % (>= 40 %):
   * critical; 14 %: none. */
  n = base(g);
  for (size_t i = 0; i < n; i++) g[i].gen0_survival_pct = 20;
  f = ONLY(g, n, &healthy, "high-survival", WARN);
  if (f) {
    CHECK_NEAR(M(f, "gen0_survival_median_pct"), 20, 1e-9);
    CHECK_NEAR(M(f, "gen0_promoted_median_mb"), 1, 1e-9);
    CHECK_EQ_INT(f->n_gcs, 5);
  }
  for (size_t i = 0; i < n; i++) g[i].gen0_survival_pct = i < 6 ? 45 : 10;   /* median 45 */
  f = ONLY(g, n, &healthy, "high-survival", CRIT);
  if (f) CHECK_HAS(f->title, "a median 45.0 % of gen0 survives");
  for (size_t i = 0; i < n; i++) g[i].gen0_survival_pct = 14;
  NONE(g, n, &healthy);
  /* ... or gen1 GCs keeping >= 90 % of gen1 and promoting >= 5 MB each. */
  n = base(g);
  for (uint32_t i = 0; i < 5; i++) g[n++] = gen1(11 + i, 10000 + i * 1000, 95, 6);
  f = ONLY(g, n, &healthy, "high-survival", WARN);
  if (f) {
    CHECK_HAS(f->title, "High promotion cost");
    CHECK_NEAR(M(f, "gen1_promoted_median_mb"), 6, 1e-9);
    CHECK_NEAR(M(f, "gen1_survival_median_pct"), 95, 1e-9);
    CHECK_EQ_INT(f->gcs[0], 11);   /* most promoted first, earliest on ties */
  }
  for (size_t i = 10; i < n; i++) g[i].promoted_mb = 4;
  NONE(g, n, &healthy);

  /* mid-life-crisis: 5 gen1 GCs keep 60 % (3 MB each), then 3 budget-triggered
   * gen2 BGCs keep 10 %; 60 % in gen2: none; the gen2 GCs induced: only induced. */
  n = base(g);
  for (uint32_t i = 0; i < 5; i++) g[n++] = gen1(11 + i, 10000 + i * 1000, 60, 3);
  for (uint32_t i = 0; i < 3; i++) {
    g[n] = gen2(16 + i, 1, 0, 15000 + i * 1000, 8);
    g[n++].gen2_survival_pct = 10 + i;
  }
  f = ONLY(g, n, &healthy, "mid-life-crisis", WARN);
  if (f) {
    CHECK_NEAR(M(f, "gen1_survival_median_pct"), 60, 1e-9);
    CHECK_NEAR(M(f, "gen2_survival_median_pct"), 11, 1e-9);
    CHECK_NEAR(M(f, "gen2_per_100_gen1"), 60, 1e-9);
    CHECK_EQ_INT(f->n_gcs_total, 3);
    CHECK_HAS(f->evidence, "#16 (10.0 %)");
  }
  for (size_t i = n - 3; i < n; i++) g[i].gen2_survival_pct = 60;
  NONE(g, n, &healthy);
  for (size_t i = n - 3; i < n; i++) {
    g[i].gen2_survival_pct = 10;
    g[i].reason = 1;
  }
  ONLY(g, n, &healthy, "induced", WARN);

  /* finalizers: every GC promotes 0.5 of its 1 MB for finalization (50 %):
   * critical; 0.1 MB (10 %): warning; in 4 GCs only: too few. */
  n = base(g);
  for (size_t i = 0; i < n; i++) g[i].finalizable_surv_mb = 0.5;
  f = ONLY(g, n, &healthy, "finalizers", CRIT);
  if (f) {
    CHECK_NEAR(M(f, "total_finalizable_surv_mb"), 5, 1e-9);
    CHECK_NEAR(M(f, "median_share_of_promoted_pct"), 50, 1e-9);
    CHECK_NEAR(M(f, "share_pct"), 100, 1e-9);
    CHECK_EQ_INT(f->n_gcs, 5);
  }
  for (size_t i = 0; i < n; i++) g[i].finalizable_surv_mb = 0.1;
  ONLY(g, n, &healthy, "finalizers", WARN);
  for (size_t i = 0; i < n; i++) g[i].finalizable_surv_mb = 0.005;   /* 0.5 % of promoted: negligible */
  NONE(g, n, &healthy);
  for (size_t i = 0; i < n; i++) g[i].finalizable_surv_mb = 0.1;
  for (size_t i = 4; i < n; i++) g[i].finalizable_surv_mb = 0;
  NONE(g, n, &healthy);

  /* gen0-churn: 30 gen0 GCs in a 1 s run (30 per second, median survival 5 %),
   * pausing 30 ms (3 %): info; pausing 2 ms each (6 %): warning; survival 10 %: none. */
  n = base_n(g, 30);
  for (size_t i = 0; i < n; i++) g[i].start_ms = (double)i * 1000.0 / 30;
  ps = healthy;
  ps.duration_ms = 1000;
  f = ONLY(g, n, &ps, "gen0-churn", INFO);
  if (f) {
    CHECK_NEAR(M(f, "gen0_per_second"), 30, 1e-9);
    CHECK_NEAR(M(f, "gen0_pause_pct_of_run"), 3, 1e-9);
  }
  for (size_t i = 0; i < n; i++) g[i].pause_ms = 2;
  f = ONLY(g, n, &ps, "gen0-churn", WARN);
  for (size_t i = 0; i < n; i++) g[i].gen0_survival_pct = 10;
  NONE(g, n, &ps);

  /* Order: severity first, then causes before symptoms. LOH churn (critical),
   * pause-time (warning) after full-blocking-gen2 (warning), induced (info) last. */
  n = base(g);
  for (uint32_t i = 0; i < 4; i++) g[n++] = gen2(11 + i, 1, 4, 10000 + i * 1000, 50);
  g[n++] = gen2(15, 0, 0, 14000, 50);
  g[0].reason = 1;
  ps = healthy;
  ps.total_pause_ms = 1000;
  CHECK_EQ_INT(ins_advise(g, n, &ps, &O, &A), 4);
  if (A.n == 4) {
    CHECK_STR(A.f[0].rule, "loh-churn");
    CHECK_STR(A.f[1].rule, "full-blocking-gen2");
    CHECK_STR(A.f[2].rule, "pause-time");
    CHECK_STR(A.f[3].rule, "induced");
    CHECK_EQ_INT(ins_advice_worst(&A), INS_SEV_CRITICAL);
  }
  n = base(g);
  ins_advise(g, n, &healthy, &O, &A);
  CHECK_EQ_INT(ins_advice_worst(&A), -1);
  return check_done();
}
