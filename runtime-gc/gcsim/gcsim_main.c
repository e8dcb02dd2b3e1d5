/* gcsim_main.c — gcsim: configure and create the runtime, run the workload
 * (the main thread paces the run, induces GCs and samples memory info),
 * then print the report and, with --check, judge the scenario signature. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "gcsim.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(double ms) {
  if (ms <= 0) return;
  struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6)};
  nanosleep(&ts, NULL);
}

/* Pace the run: until the time or allocation limit, induce GCs on schedule
 * and sample the last GC about every millisecond. */
static void pace(struct gcsim_run *run, struct gcsim_observed *ob, double t0) {
  const struct gcsim_opts *o = run->o;
  double next_induce = t0 + o->induce_every_ms / 1000.0;
  uint64_t last = 0;
  unsigned mode = RGC_COLLECT_FORCED | RGC_COLLECT_BLOCKING | (o->induce_compacting ? RGC_COLLECT_COMPACTING : 0);
  while (!atomic_load(&run->stop)) {
    double now = now_s();
    if (now - t0 >= o->seconds) break;
    if (o->induce_every_ms && now >= next_induce) {
      rgc_collect(run->rt, o->induce_gen, mode);
      atomic_fetch_add(&run->induced, 1);
      if (o->induce_gen == RGC_MAX_GENERATION) gcsim_observe_full(run->rt, ob);
      next_induce += o->induce_every_ms / 1000.0;
    }
    gcsim_observe_sample(run->rt, ob, &last);
    sleep_ms(1);
  }
  gcsim_observe_sample(run->rt, ob, &last);
}

static void gather(struct gcsim_run *run, struct gcsim_facts *f, const struct rgc_config *cfg) {
  rgc_runtime *rt = run->rt;
  f->scenario = gcsim_scenario_name(run->o->scenario);
  f->threads = run->o->threads;
  f->gc_server = cfg->server, f->gc_concurrent = cfg->concurrent;
  f->soh_bytes = atomic_load(&run->soh_bytes);
  f->loh_bytes = atomic_load(&run->loh_bytes);
  f->poh_bytes = atomic_load(&run->poh_bytes);
  f->total_allocated = rgc_total_allocated_bytes(rt);
  uint64_t c0 = rgc_collection_count(rt, 0), c1 = rgc_collection_count(rt, 1), c2 = rgc_collection_count(rt, 2);
  f->gc_count = c0, f->gen0_gcs = c0 - c1, f->gen1_gcs = c1 - c2, f->gen2_gcs = c2;
  f->induced = atomic_load(&run->induced);
  f->fin_created = atomic_load(&run->fin_created);
  f->finalized = atomic_load(&run->finalized);
  f->requests = atomic_load(&run->requests);
  f->pinned_handles = atomic_load(&run->pinned_handles);
  f->slow_spins = atomic_load(&run->slow_spins);
  f->slow_max_pause_ns = atomic_load(&run->slow_max_pause_ns);
  f->slow_ms = run->o->slow_ms;
  struct rgc_memory_info mi;
  if (rgc_get_memory_info(rt, RGC_GC_KIND_ANY, &mi) == 0) {
    f->final_heap_size = mi.heap_size_bytes;
    f->final_fragmentation = mi.fragmented_bytes;
  }
}

/* CPU time of the whole process (every thread, user + system), s. */
static double cpu_s(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv) {
  struct gcsim_opts o;
  char err[512];
  int pr = gcsim_parse_args(argc, argv, &o, stdout, err, sizeof err);
  if (pr == 1) return 0;
  if (pr < 0) {
    fprintf(stderr, "gcsim: %s\n", err);
    return GCSIM_EXIT_USAGE;
  }

  /* Configuration: defaults, the RGC_* environment, then the scenario's GC flavour. */
  struct rgc_config cfg;
  rgc_config_default(&cfg);
  if (rgc_config_from_env(&cfg, err, sizeof err)) {
    fprintf(stderr, "gcsim: %s\n", err);
    return GCSIM_EXIT_USAGE;
  }
  if (o.gc_server >= 0) cfg.server = o.gc_server;
  if (o.gc_concurrent >= 0) cfg.concurrent = o.gc_concurrent;
  if (cfg.server && cfg.heap_count <= 1 && !getenv("RGC_GCHeapCount")) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cfg.heap_count = n > 0 ? (unsigned)n : 1;
  }
  struct gcsim_run run;
  memset(&run, 0, sizeof run);
  run.o = &o;
  run.loh_threshold = cfg.loh_threshold;
  run.rt = rgc_create(&cfg, err, sizeof err);
  if (!run.rt) {
    if (cfg.server || cfg.concurrent) {
      fprintf(stderr, "gcsim: scenario %s needs %s GC, which this librgc cannot create: %s\n",
              gcsim_scenario_name(o.scenario), cfg.server ? "server" : "background", err);
      return GCSIM_EXIT_UNSUPPORTED;
    }
    fprintf(stderr, "gcsim: %s\n", err);
    return 1;
  }
  if (gcsim_register_types(&run, err, sizeof err) || gcsim_start(&run, err, sizeof err)) {
    fprintf(stderr, "gcsim: %s\n", err);
    rgc_destroy(run.rt);
    return 1;
  }
  struct gcsim_facts f;
  memset(&f, 0, sizeof f);
  double t0 = now_s(), c0 = cpu_s();
  pace(&run, &f.ob, t0);
  gcsim_join(&run);
  f.seconds_taken = now_s() - t0;
  f.cpu_seconds_taken = cpu_s() - c0;
  int failed = atomic_load(&run.failed);
  if (!failed && o.scenario == GCSIM_SC_FINALIZERS) gcsim_fin_probe_run(&run, &f.probe);
  /* A background GC still running is counted when it ends: let it end, so
   * that the counts cover every GC the trace has. */
  rgc_wait_background_gc(run.rt);
  gather(&run, &f, &cfg);
  rgc_destroy(run.rt);

  if (failed) {
    fprintf(stderr, "gcsim: allocation failed (heap hard limit reached?) after %.1f s\n", f.seconds_taken);
    return 1;
  }
  if (!o.quiet) gcsim_facts_print(&f, stdout);
  if (o.check) {
    char why[1024];
    int ok = gcsim_signature(o.scenario, &f, why, sizeof why);
    printf("signature=%s\n", ok ? "met" : "not-met");
    fflush(stdout);
    if (!ok) {
      fprintf(stderr, "gcsim: scenario %s: signature not met: %s\n", gcsim_scenario_name(o.scenario), why);
      return GCSIM_EXIT_SIGNATURE;
    }
  }
  return 0;
}
