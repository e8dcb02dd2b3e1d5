/* gcsim_opts.c — gcsim's command line: defaults (GCPerfSim's where it has
 * one), the named scenario presets and strict option parsing. A preset is
 * applied first wherever --scenario appears, so explicit options override it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcs_cli.h"
#include "gcsim.h"

static const char *const names[GCSIM_SC_COUNT] = {
  "custom", "alloc-heavy", "high-survival", "loh-churn", "pinning", "finalizers",
  "induced", "slow-suspension", "bgc", "leak", "server"};

static const char *const blurbs[GCSIM_SC_COUNT] = {
  "no preset: only the options given",
  "many gen0 GCs with tiny pauses (almost nothing survives)",
  "long ephemeral pauses tracking promoted bytes (half of the objects survive)",
  "gen2 GCs triggered by AllocLarge (70% of bytes are short-lived LOH arrays)",
  "gen0 fragmentation from long-lived pins (half of the survivors pinned)",
  "finalizable objects surviving one extra GC (30% of objects finalizable)",
  "induced gen2 GCs every 100 ms",
  "a thread stays in managed code without a safepoint 200 ms once a second",
  "background GCs with foreground GCs inside (RGC_gcConcurrent=1)",
  "heap after full GCs keeps growing (survivors never die; full GC every 250 ms)",
  "server GC on all cores (RGC_gcServer=1)"};

const char *gcsim_scenario_name(enum gcsim_scenario s) {
  return (unsigned)s < GCSIM_SC_COUNT ? names[s] : "?";
}

void gcsim_defaults(struct gcsim_opts *o) {
  memset(o, 0, sizeof *o);
  o->seconds = 5;
  o->threads = 2;
  o->survival = 0.03;          /* GCPerfSim sohSurvInterval 30 */
  o->lifetime = 1000;
  o->ring_chunk = 4096;        /* 32,768-byte arrays: age like the survivors they hold */
  o->size_min = 100, o->size_max = 4000;
  o->loh_size_min = 102400, o->loh_size_max = 204800;
  o->poh_size_min = 100, o->poh_size_max = 204800;
  o->induce_gen = 2;
  o->request_kb = 100;
  o->request_survival = 0.2;
  o->slow_every_ms = 1000;
  o->gc_server = -1, o->gc_concurrent = -1;
  o->seed = 1;
}

int gcsim_apply_preset(const char *name, struct gcsim_opts *o) {
  int s = -1;
  for (int i = 0; i < GCSIM_SC_COUNT; i++)
    if (!strcmp(name, names[i])) s = i;
  if (s < 0) return -1;
  gcsim_defaults(o);
  o->scenario = (enum gcsim_scenario)s;
  switch (o->scenario) {
  case GCSIM_SC_CUSTOM: break;
  case GCSIM_SC_ALLOC_HEAVY: o->survival = 0.001; o->lifetime = 100; break;
  case GCSIM_SC_HIGH_SURVIVAL: o->survival = 0.5; o->lifetime = 20000; break;
  case GCSIM_SC_LOH_CHURN: o->loh_fraction = 0.7; o->survival = 0.01; o->lifetime = 200; break;
  case GCSIM_SC_PINNING: o->survival = 0.02; o->pin_fraction = 0.5; o->lifetime = 2000; break;
  case GCSIM_SC_FINALIZERS: o->finalizable_fraction = 0.3; o->survival = 0.01; break;
  case GCSIM_SC_INDUCED: o->induce_every_ms = 100; o->induce_gen = 2; break;
  case GCSIM_SC_SLOW_SUSPENSION: o->slow_ms = 200; o->slow_every_ms = 1000; break;
  case GCSIM_SC_BGC: o->gc_concurrent = 1; o->survival = 0.1; o->lifetime = 50000; break;
  case GCSIM_SC_LEAK:
    o->survival = 0.02; o->lifetime = 0; o->induce_every_ms = 250; o->induce_gen = 2;
    o->induce_compacting = 1;
    break;
  case GCSIM_SC_SERVER: {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    o->gc_server = 1;
    o->threads = n > 0 && n <= GCSIM_MAX_THREADS ? (unsigned)n : 2;
    break;
  }
  case GCSIM_SC_COUNT: break;
  }
  return 0;
}

enum {
  O_SCENARIO, O_SECONDS, O_THREADS, O_ALLOC_MB, O_SURVIVAL, O_LIFETIME, O_RING_CHUNK, O_SIZE_MIN, O_SIZE_MAX,
  O_LOH_SIZE_MIN, O_LOH_SIZE_MAX, O_POH_SIZE_MIN, O_POH_SIZE_MAX, O_LOH_FRACTION, O_POH_FRACTION,
  O_PIN_FRACTION, O_FINALIZABLE_FRACTION, O_INDUCE_EVERY, O_INDUCE_GEN, O_INDUCE_COMPACTING, O_REQUESTS,
  O_REQUEST_KB, O_REQUEST_SURVIVAL, O_SLOW_MS, O_SLOW_EVERY_MS, O_GC_SERVER, O_GC_CONCURRENT, O_SEED,
  O_CHECK, O_QUIET,
};

#define STR_(x) #x
#define STR(x) STR_(x)
#define BIG 1e12
#define MAXSIZE 1e9

static const struct gcs_cli_opt gcsim_opts_table[] = {
  [O_SCENARIO] = { "scenario", 0, GCS_CLI_STRING, 0, 0, "NAME", "apply a preset (options given override it)" },
  [O_SECONDS] = { "seconds", 0, GCS_CLI_DOUBLE, 0, 86400, "N", "run time (default 5; the run also ends at --alloc-mb)" },
  [O_THREADS] = { "threads", 0, GCS_CLI_INT, 1, GCSIM_MAX_THREADS, "N", "allocating threads (default 2, max " STR(GCSIM_MAX_THREADS) ")" },
  [O_ALLOC_MB] = { "alloc-mb", 0, GCS_CLI_DOUBLE, 0, BIG, "N", "stop after N MB allocated in total (default 0 = no limit)" },
  [O_SURVIVAL] = { "survival", 0, GCS_CLI_DOUBLE, 0, 1, "F", "fraction of objects that survive (default 0.03)" },
  [O_LIFETIME] = { "lifetime", 0, GCS_CLI_STRING, 0, 0, "N|forever",
                   "survivors kept per thread, oldest dropped first (default 1000)" },
  [O_RING_CHUNK] = { "ring-chunk", 0, GCS_CLI_INT, 1, 1e8, "N",
                     "survivor ring slots per array, 8 bytes a slot (default 4096;\n"
                     "10625 or more put each array on the LOH)" },
  [O_SIZE_MIN] = { "size-min", 0, GCS_CLI_INT, 1, MAXSIZE, "N", "small object payload size, least (default 100)" },
  [O_SIZE_MAX] = { "size-max", 0, GCS_CLI_INT, 1, MAXSIZE, "N", "small object payload size, most (default 4000)" },
  [O_LOH_SIZE_MIN] = { "loh-size-min", 0, GCS_CLI_INT, 1, MAXSIZE, "N", "LOH array size, least (default 102400)" },
  [O_LOH_SIZE_MAX] = { "loh-size-max", 0, GCS_CLI_INT, 1, MAXSIZE, "N", "LOH array size, most (default 204800)" },
  [O_POH_SIZE_MIN] = { "poh-size-min", 0, GCS_CLI_INT, 1, MAXSIZE, "N", "POH array size, least (default 100)" },
  [O_POH_SIZE_MAX] = { "poh-size-max", 0, GCS_CLI_INT, 1, MAXSIZE, "N", "POH array size, most (default 204800)" },
  [O_LOH_FRACTION] = { "loh-fraction", 0, GCS_CLI_DOUBLE, 0, 1, "F", "share of allocated bytes on the LOH (default 0)" },
  [O_POH_FRACTION] = { "poh-fraction", 0, GCS_CLI_DOUBLE, 0, 1, "F", "share of allocated bytes on the POH (default 0)" },
  [O_PIN_FRACTION] = { "pin-fraction", 0, GCS_CLI_DOUBLE, 0, 1, "F", "share of survivors held by a pinned handle (default 0)" },
  [O_FINALIZABLE_FRACTION] = { "finalizable-fraction", 0, GCS_CLI_DOUBLE, 0, 1, "F",
                               "share of small objects that are finalizable (default 0)" },
  [O_INDUCE_EVERY] = { "induce-every", 0, GCS_CLI_INT, 0, 3600000, "MS", "induce a GC every MS milliseconds (default 0 = never)" },
  [O_INDUCE_GEN] = { "induce-gen", 0, GCS_CLI_INT, 0, 2, "G", "generation of induced GCs, 0..2 (default 2)" },
  [O_INDUCE_COMPACTING] = { "induce-compacting", 0, GCS_CLI_FLAG, 0, 0, NULL, "induced GCs are compacting" },
  [O_REQUESTS] = { "requests", 0, GCS_CLI_FLAG, 0, 0, NULL, "request mode: each thread runs requests (rgc:RequestStart/Stop)" },
  [O_REQUEST_KB] = { "request-kb", 0, GCS_CLI_DOUBLE, 0.001, 1e6, "N", "allocation per request (default 100)" },
  [O_REQUEST_SURVIVAL] = { "request-survival", 0, GCS_CLI_DOUBLE, 0, 1, "F",
                           "share of a request's objects live until it ends (default 0.2)" },
  [O_SLOW_MS] = { "slow-ms", 0, GCS_CLI_INT, 0, 60000, "N", "a thread stays in managed code N ms without a safepoint ..." },
  [O_SLOW_EVERY_MS] = { "slow-every-ms", 0, GCS_CLI_INT, 1, 3600000, "N", "... once every N ms (default 1000)" },
  [O_GC_SERVER] = { "gc-server", 0, GCS_CLI_INT, 0, 1, "0|1", "override RGC_gcServer" },
  [O_GC_CONCURRENT] = { "gc-concurrent", 0, GCS_CLI_INT, 0, 1, "0|1", "override RGC_gcConcurrent" },
  [O_SEED] = { "seed", 0, GCS_CLI_INT, 0, 9007199254740992.0, "N", "random seed (default 1)" },
  [O_CHECK] = { "check", 0, GCS_CLI_FLAG, 0, 0, NULL, "verify the scenario's GC signature; exit " STR(GCSIM_EXIT_SIGNATURE) " if not met" },
  [O_QUIET] = { "quiet", 0, GCS_CLI_FLAG, 0, 0, NULL, "no key=value report" },
  { 0 },
};

static const struct gcs_cli_spec gcsim_spec = {
  .prog = "gcsim",
  .usage = "[--scenario NAME] [options]",
  .about = "A librgc workload generator (GCPerfSim-like). MB = 10^6 bytes, KB = 10^3 bytes.",
  .opts = gcsim_opts_table,
};

void gcsim_usage(FILE *out) {
  gcs_cli_usage(&gcsim_spec, out);
  fprintf(out, "\nScenarios:\n");
  for (int i = 1; i < GCSIM_SC_COUNT; i++) fprintf(out, "  %-16s %s\n", names[i], blurbs[i]);
  fprintf(out,
    "Exit: 0 ok, 1 runtime error, %d bad usage, %d signature not met (--check),\n"
    "%d the runtime does not support the scenario's GC flavour.\n",
    GCSIM_EXIT_USAGE, GCSIM_EXIT_SIGNATURE, GCSIM_EXIT_UNSUPPORTED);
}

/* One option whose value the table has checked (all but --scenario). */
static int apply(int k, const struct gcs_cli *p, struct gcsim_opts *o, char *err, size_t errlen) {
  uint64_t u = (uint64_t)p->ival;
  switch (k) {
  case O_SECONDS: o->seconds = p->dval; break;
  case O_THREADS: o->threads = (unsigned)u; break;
  case O_ALLOC_MB: o->alloc_mb = p->dval; break;
  case O_SURVIVAL: o->survival = p->dval; break;
  case O_LIFETIME: {
    double v;
    char ignored[8];
    if (!strcmp(p->value, "forever")) o->lifetime = 0;
    else if (gcs_cli_number("--lifetime", p->value, 1, 1, 1e8, &v, ignored, sizeof ignored)) {
      snprintf(err, errlen, "--lifetime: expected a count from 1 to 1e+08 or 'forever', got '%s'", p->value);
      return -1;
    } else o->lifetime = (uint64_t)v;
    break;
  }
  case O_RING_CHUNK: o->ring_chunk = u; break;
  case O_SIZE_MIN: o->size_min = (size_t)u; break;
  case O_SIZE_MAX: o->size_max = (size_t)u; break;
  case O_LOH_SIZE_MIN: o->loh_size_min = (size_t)u; break;
  case O_LOH_SIZE_MAX: o->loh_size_max = (size_t)u; break;
  case O_POH_SIZE_MIN: o->poh_size_min = (size_t)u; break;
  case O_POH_SIZE_MAX: o->poh_size_max = (size_t)u; break;
  case O_LOH_FRACTION: o->loh_fraction = p->dval; break;
  case O_POH_FRACTION: o->poh_fraction = p->dval; break;
  case O_PIN_FRACTION: o->pin_fraction = p->dval; break;
  case O_FINALIZABLE_FRACTION: o->finalizable_fraction = p->dval; break;
  case O_INDUCE_EVERY: o->induce_every_ms = (unsigned)u; break;
  case O_INDUCE_GEN: o->induce_gen = (int)u; break;
  case O_INDUCE_COMPACTING: o->induce_compacting = 1; break;
  case O_REQUESTS: o->requests = 1; break;
  case O_REQUEST_KB: o->request_kb = p->dval; break;
  case O_REQUEST_SURVIVAL: o->request_survival = p->dval; break;
  case O_SLOW_MS: o->slow_ms = (unsigned)u; break;
  case O_SLOW_EVERY_MS: o->slow_every_ms = (unsigned)u; break;
  case O_GC_SERVER: o->gc_server = (int)u; break;
  case O_GC_CONCURRENT: o->gc_concurrent = (int)u; break;
  case O_SEED: o->seed = u; break;
  case O_CHECK: o->check = 1; break;
  case O_QUIET: o->quiet = 1; break;
  default: break;
  }
  return 0;
}

int gcsim_parse_args(int argc, char **argv, struct gcsim_opts *o, FILE *out, char *err, size_t errlen) {
  gcsim_defaults(o);
  struct gcs_cli p;
  /* First pass: --help, and the preset every other option then overrides. */
  gcs_cli_init(&p, &gcsim_spec, argc, argv);
  for (int k; (k = gcs_cli_next(&p)) >= 0 || k == GCS_CLI_HELP;) {
    if (k == GCS_CLI_HELP) { gcsim_usage(out); return 1; }
    if (k == O_SCENARIO && gcsim_apply_preset(p.value, o)) {
      snprintf(err, errlen, "--scenario: unknown scenario '%s' (see --help)", p.value);
      return -1;
    }
  }
  gcs_cli_init(&p, &gcsim_spec, argc, argv);
  int k;
  while ((k = gcs_cli_next(&p)) != GCS_CLI_DONE) {
    if (k == GCS_CLI_BAD) { snprintf(err, errlen, "%s", p.err); return -1; }
    if (k != O_SCENARIO && apply(k, &p, o, err, errlen)) return -1;
  }
  if (p.optind < argc) {
    snprintf(err, errlen, "unknown option '%s' (see --help)", argv[p.optind]);
    return -1;
  }
  if (o->size_min > o->size_max) {
    snprintf(err, errlen, "--size-min %zu is larger than --size-max %zu", o->size_min, o->size_max);
    return -1;
  }
  if (o->loh_size_min > o->loh_size_max || o->poh_size_min > o->poh_size_max) {
    snprintf(err, errlen, "a --loh/--poh-size-min is larger than its -max");
    return -1;
  }
  if (o->loh_fraction + o->poh_fraction > 1) {
    snprintf(err, errlen, "--loh-fraction + --poh-fraction must not exceed 1");
    return -1;
  }
  if (o->slow_ms && o->slow_ms >= o->slow_every_ms) {
    snprintf(err, errlen, "--slow-ms %u must be shorter than --slow-every-ms %u", o->slow_ms,
             o->slow_every_ms);
    return -1;
  }
  return 0;
}
