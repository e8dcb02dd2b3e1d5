/* test_gcsim_opts.c — gcsim's option parser (presets, overrides, bad values)
 * and the signature judge on hand-made facts, without running a workload. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcsim.h"

static int parse(struct gcsim_opts *o, char *err, int n, ...) {
  char *argv[32] = {"gcsim"};
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) argv[i + 1] = va_arg(ap, char *);
  va_end(ap);
  FILE *devnull = fopen("/dev/null", "w");
  int r = gcsim_parse_args(n + 1, argv, o, devnull, err, 256);
  fclose(devnull);
  return r;
}

static void test_presets(void) {
  struct gcsim_opts o;
  char err[256];
  /* the preset applies wherever --scenario is; explicit options override it */
  CHECK(parse(&o, err, 4, "--survival", "0.25", "--scenario", "loh-churn") == 0);
  CHECK(o.scenario == GCSIM_SC_LOH_CHURN);
  CHECK(o.loh_fraction == 0.7);
  CHECK(o.survival == 0.25);
  CHECK(o.lifetime == 200);
  CHECK(parse(&o, err, 2, "--scenario", "leak") == 0);
  CHECK(o.lifetime == 0 && o.induce_every_ms == 250 && o.induce_gen == 2 && o.induce_compacting);
  CHECK(parse(&o, err, 2, "--scenario", "bgc") == 0);
  CHECK(o.gc_concurrent == 1 && o.gc_server == -1);
  CHECK(parse(&o, err, 2, "--scenario", "server") == 0);
  CHECK(o.gc_server == 1 && o.threads >= 1);
  CHECK(parse(&o, err, 2, "--scenario", "slow-suspension") == 0);
  CHECK(o.slow_ms == 200 && o.slow_every_ms == 1000);
  CHECK(parse(&o, err, 4, "--scenario", "slow-suspension", "--slow-ms", "50") == 0);
  CHECK(o.slow_ms == 50);
  /* GCPerfSim's defaults */
  CHECK(parse(&o, err, 0) == 0);
  CHECK(o.scenario == GCSIM_SC_CUSTOM && o.threads == 2 && o.size_min == 100 && o.size_max == 4000);
  CHECK(o.loh_size_min == 102400 && o.loh_size_max == 204800 && o.survival == 0.03);
  CHECK(parse(&o, err, 5, "--lifetime", "forever", "--requests", "--request-kb", "12.5") == 0);
  CHECK(o.lifetime == 0 && o.requests == 1 && o.request_kb == 12.5);
  CHECK(o.ring_chunk == 4096);
  CHECK(parse(&o, err, 4, "--scenario", "high-survival", "--ring-chunk", "20000") == 0);
  CHECK(o.ring_chunk == 20000 && o.lifetime == 20000);
  CHECK(parse(&o, err, 2, "--ring-chunk", "0") == -1);
  for (int s = 1; s < GCSIM_SC_COUNT; s++) {
    CHECK(gcsim_apply_preset(gcsim_scenario_name((enum gcsim_scenario)s), &o) == 0);
    CHECK((int)o.scenario == s);
  }
}

static void test_bad(void) {
  struct gcsim_opts o;
  char err[256];
  CHECK(parse(&o, err, 1, "--nope") == -1);
  CHECK_STR(err, "unknown option '--nope' (see --help)");
  CHECK(parse(&o, err, 2, "--pin-fraction", "-0.1") == -1);
  CHECK_STR(err, "--pin-fraction: expected a number from 0 to 1, got '-0.1'");
  CHECK(parse(&o, err, 2, "--induce-gen", "3") == -1);
  CHECK_STR(err, "--induce-gen: expected a number from 0 to 2, got '3'");
  CHECK(parse(&o, err, 2, "--threads", "4x") == -1);
  CHECK_STR(err, "--threads: expected a number from 1 to 256, got '4x'");
  CHECK(parse(&o, err, 2, "--loh-size-min", "300000") == -1);
  CHECK_STR(err, "a --loh/--poh-size-min is larger than its -max");
  CHECK(parse(&o, err, 1, "--help") == 1);
}

static struct gcsim_facts base(void) {
  struct gcsim_facts f;
  memset(&f, 0, sizeof f);
  f.scenario = "test";
  return f;
}

static void test_signatures(void) {
  char why[512];
  struct gcsim_facts f = base();
  /* alloc-heavy: 40 gen0, 10 gen1+gen2 is exactly 4x; promoted 5 of 100 = 0.05 */
  f.gen0_gcs = 40, f.gen1_gcs = 6, f.gen2_gcs = 4, f.ob.eph_samples = 3;
  f.ob.sum_eph_promoted = 5, f.ob.sum_eph_gen0_before = 100;
  CHECK(gcsim_signature(GCSIM_SC_ALLOC_HEAVY, &f, why, sizeof why) == 1);
  CHECK_STR(why, "");
  f.ob.sum_eph_promoted = 6;
  CHECK(gcsim_signature(GCSIM_SC_ALLOC_HEAVY, &f, why, sizeof why) == 0);
  CHECK_STR(why, "ephemeral GCs promote 0.060 of gen0 (want <= 0.05: tiny pauses)");
  f.gen2_gcs = 5, f.gen0_gcs = 9;
  CHECK(gcsim_signature(GCSIM_SC_ALLOC_HEAVY, &f, why, sizeof why) == 0);
  CHECK_STR(why, "only 9 gen0 GCs (want >= 10); gen0 GCs (9) not >= 4x the gen1+gen2 GCs (11); "
                 "ephemeral GCs promote 0.060 of gen0 (want <= 0.05: tiny pauses)");

  /* loh-churn: 3 gen2 of 6 GCs is half */
  f = base();
  f.gen2_gcs = 3, f.gc_count = 6, f.loh_bytes = 2, f.soh_bytes = 1;
  CHECK(gcsim_signature(GCSIM_SC_LOH_CHURN, &f, why, sizeof why) == 1);
  f.gc_count = 7;
  CHECK(gcsim_signature(GCSIM_SC_LOH_CHURN, &f, why, sizeof why) == 0);
  CHECK_STR(why, "gen2 GCs are 3 of 7 GCs (want at least half)");

  /* leak: strictly growing live heap after full GCs */
  f = base();
  f.ob.full_n = 4;
  f.ob.full_live_after[0] = 10, f.ob.full_live_after[1] = 20;
  f.ob.full_live_after[2] = 30, f.ob.full_live_after[3] = 31;
  CHECK(gcsim_signature(GCSIM_SC_LEAK, &f, why, sizeof why) == 1);
  f.ob.full_live_after[3] = 30;
  CHECK(gcsim_signature(GCSIM_SC_LEAK, &f, why, sizeof why) == 0);
  CHECK_STR(why, "live heap after full GCs grew in only 2 of 3 intervals");

  /* slow-suspension: a pause of at least half the delay (100 of 200 ms) */
  f = base();
  f.slow_ms = 200, f.slow_spins = 1, f.slow_max_pause_ns = 100000000;
  CHECK(gcsim_signature(GCSIM_SC_SLOW_SUSPENSION, &f, why, sizeof why) == 1);
  f.slow_max_pause_ns = 99999999;
  CHECK(gcsim_signature(GCSIM_SC_SLOW_SUSPENSION, &f, why, sizeof why) == 0);

  /* finalizers: the probe must show the extra GC */
  f = base();
  f.fin_created = 10, f.finalized = 9;
  f.probe = (struct gcsim_fin_probe){1, 1, 1, 1, 1, 1};
  CHECK(gcsim_signature(GCSIM_SC_FINALIZERS, &f, why, sizeof why) == 1);
  f.probe.gen_after_gc1 = 0;
  CHECK(gcsim_signature(GCSIM_SC_FINALIZERS, &f, why, sizeof why) == 0);
  CHECK_STR(why, "probe: dead finalizable object not kept and promoted to gen1 (generation 0)");

  /* pinning: fragmentation 1 of 10 bytes is the 0.1 threshold */
  f = base();
  f.pinned_handles = 1, f.ob.max_pinned_objects = 1;
  f.ob.max_gen0_frag_after = 1, f.ob.gen0_size_after_at_max_frag = 10;
  CHECK(gcsim_signature(GCSIM_SC_PINNING, &f, why, sizeof why) == 1);
  f.ob.gen0_size_after_at_max_frag = 11;
  CHECK(gcsim_signature(GCSIM_SC_PINNING, &f, why, sizeof why) == 0);

  /* induced: every induced GC is a gen2 GC */
  f = base();
  f.induced = 3, f.gen2_gcs = 2;
  CHECK(gcsim_signature(GCSIM_SC_INDUCED, &f, why, sizeof why) == 0);
  CHECK_STR(why, "gen2 GCs 2 fewer than the 3 induced");

  /* bgc and server need the runtime's flavour */
  f = base();
  CHECK(gcsim_signature(GCSIM_SC_BGC, &f, why, sizeof why) == 0);
  CHECK(gcsim_signature(GCSIM_SC_SERVER, &f, why, sizeof why) == 0);
  CHECK(gcsim_signature(GCSIM_SC_CUSTOM, &f, why, sizeof why) == 1);

  /* a tiny buffer truncates the reason but still judges */
  char small[8];
  f = base();
  CHECK(gcsim_signature(GCSIM_SC_ALLOC_HEAVY, &f, small, sizeof small) == 0);
  CHECK(strlen(small) < sizeof small);
}

int main(void) {
  test_presets();
  test_bad();
  test_signatures();
  return check_done();
}
