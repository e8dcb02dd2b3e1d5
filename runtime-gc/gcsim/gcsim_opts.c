/* gcsim_opts.c — gcsim's command line: defaults (GCPerfSim's where it has
 * one), the named scenario presets and strict option parsing. A preset is
 * applied first wherever --scenario appears, so explicit options override it. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void gcsim_usage(FILE *out) {
  fprintf(out,
    "usage: gcsim [--scenario NAME] [options]\n"
    "A librgc workload generator (GCPerfSim-like). MB = 10^6 bytes, KB = 10^3 bytes.\n"
    "  --scenario NAME          apply a preset (options given override it)\n"
    "  --seconds N              run time (default 5; the run also ends at --alloc-mb)\n"
    "  --threads N              allocating threads (default 2, max %d)\n"
    "  --alloc-mb N             stop after N MB allocated in total (default 0 = no limit)\n"
    "  --survival F             fraction of objects that survive (default 0.03)\n"
    "  --lifetime N|forever     survivors kept per thread, oldest dropped first (default 1000)\n"
    "  --ring-chunk N           survivor ring slots per array, 8 bytes a slot (default 4096;\n"
    "                           10625 or more put each array on the LOH)\n"
    "  --size-min N --size-max N          small object payload sizes (default 100..4000)\n"
    "  --loh-size-min N --loh-size-max N  LOH array sizes (default 102400..204800)\n"
    "  --poh-size-min N --poh-size-max N  POH array sizes (default 100..204800)\n"
    "  --loh-fraction F         share of allocated bytes on the LOH (default 0)\n"
    "  --poh-fraction F         share of allocated bytes on the POH (default 0)\n"
    "  --pin-fraction F         share of survivors held by a pinned handle (default 0)\n"
    "  --finalizable-fraction F share of small objects that are finalizable (default 0)\n"
    "  --induce-every MS        induce a GC every MS milliseconds (default 0 = never)\n"
    "  --induce-gen G           generation of induced GCs, 0..2 (default 2)\n"
    "  --induce-compacting      induced GCs are compacting\n"
    "  --requests               request mode: each thread runs requests (rgc:RequestStart/Stop)\n"
    "  --request-kb N           allocation per request (default 100)\n"
    "  --request-survival F     share of a request's objects live until it ends (default 0.2)\n"
    "  --slow-ms N              a thread stays in managed code N ms without a safepoint ...\n"
    "  --slow-every-ms N        ... once every N ms (default 1000)\n"
    "  --gc-server 0|1          override RGC_gcServer\n"
    "  --gc-concurrent 0|1      override RGC_gcConcurrent\n"
    "  --seed N                 random seed (default 1)\n"
    "  --check                  verify the scenario's GC signature; exit %d if not met\n"
    "  --quiet                  no key=value report\n"
    "  --help                   this text\n"
    "Scenarios:\n", GCSIM_MAX_THREADS, GCSIM_EXIT_SIGNATURE);
  for (int i = 1; i < GCSIM_SC_COUNT; i++) fprintf(out, "  %-16s %s\n", names[i], blurbs[i]);
  fprintf(out,
    "Exit: 0 ok, 1 runtime error, %d bad usage, %d signature not met (--check),\n"
    "%d the runtime does not support the scenario's GC flavour.\n",
    GCSIM_EXIT_USAGE, GCSIM_EXIT_SIGNATURE, GCSIM_EXIT_UNSUPPORTED);
}

static int num(const char *opt, const char *s, double lo, double hi, double *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  double v = s && *s ? strtod(s, &end) : NAN;
  if (!s || !*s || errno || *end || isnan(v) || v < lo || v > hi) {
    snprintf(err, errlen, "%s: expected a number from %g to %g, got '%s'", opt, lo, hi, s ? s : "");
    return -1;
  }
  *out = v;
  return 0;
}

static int integer(const char *opt, const char *s, double lo, double hi, uint64_t *out, char *err,
                   size_t errlen) {
  double v;
  if (num(opt, s, lo, hi, &v, err, errlen)) return -1;
  if (v != floor(v)) {
    snprintf(err, errlen, "%s: expected an integer, got '%s'", opt, s);
    return -1;
  }
  *out = (uint64_t)v;
  return 0;
}

int gcsim_parse_args(int argc, char **argv, struct gcsim_opts *o, FILE *out, char *err, size_t errlen) {
  gcsim_defaults(o);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      gcsim_usage(out);
      return 1;
    }
    if (!strcmp(argv[i], "--scenario")) {
      if (i + 1 >= argc) { snprintf(err, errlen, "--scenario: missing NAME"); return -1; }
      if (gcsim_apply_preset(argv[i + 1], o)) {
        snprintf(err, errlen, "--scenario: unknown scenario '%s' (see --help)", argv[i + 1]);
        return -1;
      }
      i++;
    }
  }
  const double big = 1e12, maxsize = 1e9;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    double d;
    uint64_t u;
#define NUM(name, lo, hi, dst) else if (!strcmp(a, name)) { \
      if (num(name, v, lo, hi, &d, err, errlen)) { return -1; } dst = d; i++; }
#define INT(name, lo, hi, dst) else if (!strcmp(a, name)) { \
      if (integer(name, v, lo, hi, &u, err, errlen)) { return -1; } dst = u; i++; }
    if (!strcmp(a, "--scenario")) i++;
    NUM("--seconds", 0, 86400, o->seconds)
    INT("--threads", 1, GCSIM_MAX_THREADS, o->threads)
    NUM("--alloc-mb", 0, big, o->alloc_mb)
    NUM("--survival", 0, 1, o->survival)
    INT("--ring-chunk", 1, 1e8, o->ring_chunk)
    INT("--size-min", 1, maxsize, o->size_min)
    INT("--size-max", 1, maxsize, o->size_max)
    INT("--loh-size-min", 1, maxsize, o->loh_size_min)
    INT("--loh-size-max", 1, maxsize, o->loh_size_max)
    INT("--poh-size-min", 1, maxsize, o->poh_size_min)
    INT("--poh-size-max", 1, maxsize, o->poh_size_max)
    NUM("--loh-fraction", 0, 1, o->loh_fraction)
    NUM("--poh-fraction", 0, 1, o->poh_fraction)
    NUM("--pin-fraction", 0, 1, o->pin_fraction)
    NUM("--finalizable-fraction", 0, 1, o->finalizable_fraction)
    INT("--induce-every", 0, 3600000, o->induce_every_ms)
    INT("--induce-gen", 0, 2, o->induce_gen)
    NUM("--request-kb", 0.001, 1e6, o->request_kb)
    NUM("--request-survival", 0, 1, o->request_survival)
    INT("--slow-ms", 0, 60000, o->slow_ms)
    INT("--slow-every-ms", 1, 3600000, o->slow_every_ms)
    INT("--gc-server", 0, 1, o->gc_server)
    INT("--gc-concurrent", 0, 1, o->gc_concurrent)
    INT("--seed", 0, 9007199254740992.0, o->seed)
    else if (!strcmp(a, "--lifetime")) {
      if (v && !strcmp(v, "forever")) o->lifetime = 0;
      else if (integer("--lifetime", v, 1, 1e8, &u, err, errlen)) {
        snprintf(err, errlen, "--lifetime: expected a count from 1 to 1e+08 or 'forever', got '%s'",
                 v ? v : "");
        return -1;
      } else o->lifetime = u;
      i++;
    }
    else if (!strcmp(a, "--induce-compacting")) o->induce_compacting = 1;
    else if (!strcmp(a, "--requests")) o->requests = 1;
    else if (!strcmp(a, "--check")) o->check = 1;
    else if (!strcmp(a, "--quiet")) o->quiet = 1;
    else {
      snprintf(err, errlen, "unknown option '%s' (see --help)", a);
      return -1;
    }
#undef NUM
#undef INT
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
