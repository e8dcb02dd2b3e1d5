/* Advisor rules: for each rule a GC history that triggers it (and only it)
 * and one that does not. The base history is healthy: no rule fires. */
#include <stdint.h>

#include "ins_advise.h"
#include "check.h"

#define NB 10

/* 10 gen0 GCs, one per second: pause 1 ms, suspend 0.05 ms, promoted 1 MB,
 * Peak 12 MB / After 8 MB, gen0 fragmentation 10 %, no pins. */
static size_t base(struct ins_gc *g) {
  for (int i = 0; i < NB; i++)
    g[i] = (struct ins_gc){.index = (uint32_t)i + 1, .gen = 0, .type = 0, .reason = 0,
                           .start_ms = i * 1000.0, .pause_ms = 1, .suspend_ms = 0.05,
                           .promoted_mb = 1, .peak_mb = 12, .after_mb = 8, .gen0_frag_pct = 10,
                           .gen2_frag_before_pct = NAN, .pinned_objects = 0, .condemn_conditions = 0};
  return NB;
}

static struct ins_gc gen2(uint32_t index, int type, int reason, double start, double after) {
  return (struct ins_gc){.index = index, .gen = 2, .type = type, .reason = reason, .start_ms = start,
                         .pause_ms = 2, .suspend_ms = 0.05, .promoted_mb = 20, .peak_mb = NAN,
                         .after_mb = after, .gen0_frag_pct = 10, .gen2_frag_before_pct = NAN};
}

static struct ins_proc_summary healthy = {10000, 10, 0.5, 0, 60};
static struct ins_advise_opts O;

/* Runs the rules and checks that exactly `rule` fired (or nothing if NULL). */
static const struct ins_finding *only(const struct ins_gc *g, size_t n, const struct ins_proc_summary *ps,
                                      const char *rule, int line) {
  static struct ins_advice a;
  size_t k = ins_advise(g, n, ps, &O, &a);
  size_t want = rule ? 1 : 0;
  if (k != want || (rule && !ins_advice_find(&a, rule))) {
    char got[512] = "";
    for (size_t i = 0; i < k; i++) snprintf(got + strlen(got), sizeof got - strlen(got), " %s", a.f[i].rule);
    check_fail_at(__FILE__, line, "expected %s, got %zu finding(s):%s", rule ? rule : "none", k, got);
    return NULL;
  }
  return rule ? ins_advice_find(&a, rule) : NULL;
}
#define ONLY(g, n, ps, rule) only(g, n, ps, rule, __LINE__)

int main(void) {
  ins_advise_default_opts(&O);
  struct ins_gc g[NB + 8];
  size_t n = base(g);
  ONLY(g, n, &healthy, NULL);

  /* pause-time: 600 ms of 10 s = 6 % > 5 %; 500 ms = 5 % is not above. */
  struct ins_proc_summary ps = healthy;
  ps.total_pause_ms = 600;
  const struct ins_finding *f = ONLY(g, n, &ps, "pause-time");
  if (f) {
    CHECK_HAS(f->finding, "6.0 %");
    CHECK_EQ_INT(f->n_gcs, 3);
    CHECK_EQ_INT(f->gcs[0], 1);   /* equal pauses: earliest first */
  }
  ps.total_pause_ms = 500;
  ONLY(g, n, &ps, NULL);
  /* ... or a burst: worst 60 s window 12 % > 10 %; 10 % is not. */
  ps = healthy;
  ps.worst_window_pct = 12;
  f = ONLY(g, n, &ps, "pause-time");
  if (f) CHECK_HAS(f->finding, "bursts");
  ps.worst_window_pct = 10;
  ONLY(g, n, &ps, NULL);

  /* loh-churn: gen2 GCs 11, 12 AllocLarge (4), 13 AllocSmall: 2 of 3. */
  n = base(g);
  g[n++] = gen2(11, 1, 4, 10000, 50);
  g[n++] = gen2(12, 1, 4, 11000, 50);
  g[n++] = gen2(13, 1, 0, 12000, 50);
  f = ONLY(g, n, &healthy, "loh-churn");
  if (f) {
    CHECK_EQ_INT(f->n_gcs, 2);
    CHECK_EQ_INT(f->gcs[0], 11);
    CHECK_EQ_INT(f->gcs[1], 12);
    CHECK_HAS(f->finding, "2 of 3");
  }
  g[n++] = gen2(14, 1, 0, 13000, 50);   /* 2 of 4 = 50 %: not more than half */
  ONLY(g, n, &healthy, NULL);

  /* induced: GC 4 Induced, GC 7 InducedCompacting. */
  n = base(g);
  g[3].reason = 1;
  g[6].reason = 10;
  f = ONLY(g, n, &healthy, "induced");
  if (f) {
    CHECK_EQ_INT(f->n_gcs_total, 2);
    CHECK_EQ_INT(f->gcs[0], 4);
    CHECK_EQ_INT(f->gcs[1], 7);
    CHECK_HAS(f->evidence, "Induced 1");
    CHECK_HAS(f->evidence, "InducedCompacting 1");
  }
  g[3].reason = 4;   /* AllocLarge on a gen0 GC: not induced */
  g[6].reason = 0;
  ONLY(g, n, &healthy, NULL);

  /* full-blocking-gen2: a 2N GC condemned for high memory load. */
  n = base(g);
  g[n] = gen2(11, 0, 0, 10000, 50);
  g[n++].condemn_conditions = 1u << 2;   /* high_mem_p */
  f = ONLY(g, n, &healthy, "full-blocking-gen2");
  if (f) {
    CHECK_HAS(f->evidence, "high_mem_p");
    CHECK_HAS(f->next, "memory load");
    CHECK_EQ_INT(f->gcs[0], 11);
  }
  g[n - 1].type = 1;   /* the same GC as a BGC: fine */
  ONLY(g, n, &healthy, NULL);

  /* gen2-frag-bgc: BGC 11 started with 20 % gen2 fragmentation; 15 % is fine. */
  n = base(g);
  g[n] = gen2(11, 1, 0, 10000, 50);
  g[n++].gen2_frag_before_pct = 20;
  f = ONLY(g, n, &healthy, "gen2-frag-bgc");
  if (f) CHECK_HAS(f->evidence, "#11 (20.0 %)");
  g[n - 1].gen2_frag_before_pct = 15;
  ONLY(g, n, &healthy, NULL);

  /* gen0-frag-pinning: GC 5 with 99 % gen0 fragmentation and 5 pins. */
  n = base(g);
  g[4].gen0_frag_pct = 99;
  g[4].pinned_objects = 5;
  f = ONLY(g, n, &healthy, "gen0-frag-pinning");
  if (f) {
    CHECK_EQ_INT(f->gcs[0], 5);
    CHECK_HAS(f->evidence, "5 pinned");
  }
  g[4].pinned_objects = 0;   /* fragmentation without pins */
  ONLY(g, n, &healthy, NULL);
  g[4].pinned_objects = 5;
  g[4].gen0_frag_pct = 50;   /* pins without much fragmentation */
  ONLY(g, n, &healthy, NULL);

  /* ephemeral-pause: GC 6 pauses 5 ms (median 1) promoting the same 1 MB. */
  n = base(g);
  g[5].pause_ms = 5;
  f = ONLY(g, n, &healthy, "ephemeral-pause");
  if (f) {
    CHECK_EQ_INT(f->n_gcs_total, 1);
    CHECK_EQ_INT(f->gcs[0], 6);
    CHECK_HAS(f->evidence, "median ephemeral pause 1.000 ms");
    CHECK_HAS(f->next, "stolen CPU");
  }
  g[5].suspend_ms = 3;   /* most of the excess is suspension */
  f = ONLY(g, n, &healthy, "ephemeral-pause");
  if (f) CHECK_HAS(f->next, "Suspension");
  g[5].suspend_ms = 0.05;
  g[5].promoted_mb = 5;  /* the long pause promoted 5x more: it tracks */
  ONLY(g, n, &healthy, NULL);

  /* long-suspension: 6 ms > 5 ms; 5 ms is not above. */
  n = base(g);
  g[8].suspend_ms = 6;
  f = ONLY(g, n, &healthy, "long-suspension");
  if (f) CHECK_HAS(f->evidence, "#9 (6.0 ms)");
  g[8].suspend_ms = 5;
  ONLY(g, n, &healthy, NULL);

  /* peak-vs-after: Peak 30 / After 10 everywhere (ratio 3, 20 MB). */
  n = base(g);
  for (size_t i = 0; i < n; i++) { g[i].peak_mb = 30; g[i].after_mb = 10; }
  f = ONLY(g, n, &healthy, "peak-vs-after");
  if (f) CHECK_HAS(f->finding, "median Peak/After 3.00");
  for (size_t i = 0; i < n; i++) { g[i].peak_mb = 14; g[i].after_mb = 5; }   /* ratio 2.8 but 9 MB */
  ONLY(g, n, &healthy, NULL);
  for (size_t i = 0; i < n; i++) { g[i].peak_mb = 30; g[i].after_mb = 20; }  /* 10 MB but ratio 1.5 */
  ONLY(g, n, &healthy, NULL);

  /* heap-growth: After 100 -> 110 -> 125 MB at gen2 GCs (+25 %). */
  n = base(g);
  g[n++] = gen2(11, 1, 0, 10000, 100);
  g[n++] = gen2(12, 1, 0, 40000, 110);
  g[n++] = gen2(13, 1, 0, 70000, 125);
  f = ONLY(g, n, &healthy, "heap-growth");
  if (f) {
    CHECK_HAS(f->finding, "+25.0 %");
    CHECK_HAS(f->evidence, "25.000 MB per minute");   /* 25 MB in 60 s */
    CHECK_EQ_INT(f->n_gcs, 3);
  }
  g[n - 1].after_mb = 115;   /* +15 % */
  ONLY(g, n, &healthy, NULL);
  g[n - 2].after_mb = 130;   /* 100, 130, 115, 140: +40 % but only 2 of 3 steps up */
  g[n - 1].after_mb = 115;
  g[n++] = gen2(14, 1, 0, 80000, 140);
  ONLY(g, n, &healthy, NULL);
  return check_done();
}
