/* gcsim.h — gcsim, a workload generator for librgc in the spirit of the .NET
 * team's GCPerfSim: allocating threads with a survival fraction and lifetime,
 * an object size distribution, LOH/POH shares, pinning, finalizable objects,
 * induced GCs, a thread that delays suspension, request spans, and named
 * scenario presets whose GC signature `--check` verifies in process.
 *
 * Split: gcsim_opts.c (options, presets, help), gcsim_work.c (the mutator
 * threads), gcsim_observe.c (in-process sampling of rgc_get_memory_info),
 * gcsim_check.c (facts and per-scenario signatures), gcsim_main.c.
 *
 * Conventions: functions returning int give 0 on success and -1 on error
 * with a one-line message in err; sizes are bytes, MB = 10^6 bytes. Nothing
 * here is thread-safe unless said so (the run state is shared only through
 * the atomics in struct gcsim_run). */
#ifndef GCSIM_H
#define GCSIM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rgc.h"

#define GCSIM_EXIT_USAGE 2
#define GCSIM_EXIT_SIGNATURE 3    /* --check: the scenario's signature was not met */
#define GCSIM_EXIT_UNSUPPORTED 77 /* the runtime lacks the GC flavour the scenario needs */
#define GCSIM_MAX_THREADS 256
#define GCSIM_MAX_FULL_SAMPLES 64

enum gcsim_scenario {
  GCSIM_SC_CUSTOM = 0, GCSIM_SC_ALLOC_HEAVY, GCSIM_SC_HIGH_SURVIVAL, GCSIM_SC_LOH_CHURN,
  GCSIM_SC_PINNING, GCSIM_SC_FINALIZERS, GCSIM_SC_INDUCED, GCSIM_SC_SLOW_SUSPENSION,
  GCSIM_SC_BGC, GCSIM_SC_LEAK, GCSIM_SC_SERVER, GCSIM_SC_COUNT
};

struct gcsim_opts {
  enum gcsim_scenario scenario;
  double seconds;            /* run time limit (whichever of seconds/alloc_mb comes first) */
  unsigned threads;          /* allocating threads */
  double alloc_mb;           /* total allocation limit in MB, 0 = none */
  double survival;           /* fraction of objects that survive into the survivor ring */
  uint64_t lifetime;         /* survivor ring slots per thread; 0 = forever (never dropped) */
  uint64_t ring_chunk;       /* slots per survivor ring array (8 bytes a slot) */
  size_t size_min, size_max; /* SOH object sizes (payload bytes) */
  size_t loh_size_min, loh_size_max;
  size_t poh_size_min, poh_size_max;
  double loh_fraction;       /* share of allocated bytes that go to the LOH */
  double poh_fraction;       /* share of allocated bytes that go to the POH */
  double pin_fraction;       /* share of survivors pinned (pinned handle) while they live */
  double finalizable_fraction; /* share of SOH objects that are finalizable */
  unsigned induce_every_ms;  /* induce a GC every N ms, 0 = never */
  int induce_gen;            /* generation of induced GCs (default 2) */
  int induce_compacting;     /* induced GCs ask for compaction */
  int requests;              /* request mode */
  double request_kb;         /* allocation per request in KB (10^3 bytes) */
  double request_survival;   /* share of a request's objects kept until the request ends */
  unsigned slow_ms;          /* a thread delays suspension for N ms ... */
  unsigned slow_every_ms;    /* ... once every N ms; slow_ms 0 = off */
  int gc_server;             /* -1 = leave to the environment (RGC_gcServer) */
  int gc_concurrent;         /* -1 = leave to the environment (RGC_gcConcurrent) */
  uint64_t seed;
  int check;                 /* --check: verify the scenario signature */
  int quiet;                 /* no key=value report */
};

/* Parsing. Returns 0 and fills o; 1 when --help was given (usage printed to
 * out); -1 on a bad option with a one-line message in err (without the
 * "gcsim: " prefix). */
int gcsim_parse_args(int argc, char **argv, struct gcsim_opts *o, FILE *out, char *err, size_t errlen);
void gcsim_usage(FILE *out);
const char *gcsim_scenario_name(enum gcsim_scenario s);
/* Apply a scenario's preset to o (defaults first); -1 for an unknown name. */
int gcsim_apply_preset(const char *name, struct gcsim_opts *o);
void gcsim_defaults(struct gcsim_opts *o);

/* What an in-process observer saw: one sample per distinct GC index it
 * caught, plus the heap after every full blocking GC it caught. */
struct gcsim_observed {
  uint64_t samples;             /* distinct GCs sampled */
  uint64_t eph_samples, full_samples, bgc_samples;
  uint64_t max_pause_ns, max_eph_pause_ns, sum_eph_pause_ns;
  uint64_t sum_eph_promoted, sum_eph_gen0_before; /* for the promoted ratio */
  uint64_t max_pinned_objects;
  uint64_t max_gen0_frag_after;     /* gen0 fragmentation after an ephemeral GC */
  uint64_t gen0_size_after_at_max_frag;
  uint64_t max_finalization_pending;
  uint64_t bgc_with_two_pauses;     /* background GCs with both pauses non-zero */
  uint64_t full_live_after[GCSIM_MAX_FULL_SAMPLES]; /* heap minus fragmentation */
  unsigned full_n;
  uint64_t last_full_index;
  uint64_t last_bgc_index;
};
void gcsim_observe_sample(rgc_runtime *rt, struct gcsim_observed *ob, uint64_t *last_index);
void gcsim_observe_full(rgc_runtime *rt, struct gcsim_observed *ob);

/* The finalizer probe: one finalizable object dropped at once must survive
 * the gen0 GC that finds it dead (weak-short handle cleared, weak-long kept,
 * object promoted to gen1) and be gone after finalization and a gen1 GC. */
struct gcsim_fin_probe {
  int ran;
  int short_cleared_gc1, long_alive_gc1, gen_after_gc1, finalized_before_gc2, long_cleared_gc2;
};

/* Shared run state (atomics: written by the worker threads). */
struct gcsim_run {
  const struct gcsim_opts *o;
  rgc_runtime *rt;
  const rgc_type *bytes_t, *refs_t, *fin_t;
  size_t loh_threshold;                  /* from the runtime's configuration */
  atomic_int stop;
  atomic_int failed;                     /* an allocation returned NULL */
  _Atomic uint64_t allocated;            /* bytes, all heaps (for --alloc-mb) */
  _Atomic uint64_t soh_bytes, loh_bytes, poh_bytes;
  _Atomic uint64_t fin_created, finalized;
  _Atomic uint64_t requests, next_request_id;
  _Atomic uint64_t pinned_handles;       /* pinned handles created */
  _Atomic uint64_t slow_spins;           /* suspension delays performed */
  _Atomic uint64_t slow_max_pause_ns;    /* the pause of the GC a delay held up */
  _Atomic uint64_t induced;
};

/* Start the worker threads (and the suspension-delaying thread when
 * slow_ms > 0). Returns 0 or -1 with err; on error no thread is running. */
int gcsim_start(struct gcsim_run *run, char *err, size_t errlen);
/* Ask the threads to stop and join them. */
void gcsim_join(struct gcsim_run *run);
/* Register the types a run uses; -1 with err on failure. */
int gcsim_register_types(struct gcsim_run *run, char *err, size_t errlen);
void gcsim_fin_probe_run(struct gcsim_run *run, struct gcsim_fin_probe *p);

/* The facts a run reports (key=value) and its signature is judged on. */
struct gcsim_facts {
  const char *scenario;
  double seconds_taken;
  double cpu_seconds_taken;     /* the process's CPU time (all threads) over the same span */
  unsigned threads;
  uint64_t soh_bytes, loh_bytes, poh_bytes, total_allocated;
  uint64_t gc_count, gen0_gcs, gen1_gcs, gen2_gcs;  /* GCs of exactly that generation */
  uint64_t induced;
  uint64_t fin_created, finalized;
  uint64_t requests, pinned_handles, slow_spins, slow_max_pause_ns;
  unsigned slow_ms;
  int gc_server, gc_concurrent;                    /* as the runtime was created */
  uint64_t final_heap_size, final_fragmentation;
  struct gcsim_observed ob;
  struct gcsim_fin_probe probe;
};
void gcsim_facts_print(const struct gcsim_facts *f, FILE *out);
/* Judge the signature of scenario s. Returns 1 when met, 0 when not, with
 * the reason(s) in why (one line). GCSIM_SC_CUSTOM always passes. */
int gcsim_signature(enum gcsim_scenario s, const struct gcsim_facts *f, char *why, size_t whylen);

#endif
