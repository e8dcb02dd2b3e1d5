/* gc_modes — librgc GC flavours compared, as ratios:
 *
 *   rgc-gc-modes [--small] [--rounds N] [--heaps N,N...]
 *   rgc-gc-modes --only CONFIG [--small]     (one run in this process)
 *
 * 1. Gen0 pauses, server GC with N heaps (one GC thread per heap) against
 *    workstation GC, on the same work per GC: 2 mutator threads build binary
 *    trees that stay referenced for 64 rounds (so a gen0 GC marks and keeps
 *    real work), with the same total gen0 budget in every configuration
 *    (workstation: B; server with N heaps: B/N per heap; the budget does not
 *    adapt: gen0MaxBudget = gen0size), so every configuration makes the same
 *    number of gen0 GCs over the same survivors. Each configuration runs in a
 *    separate process (no heap, warm-up or page faults carry over), the
 *    configurations in a rotated order per round; a run reports the median
 *    of its gen0 pauses after the first 10 (warm-up). Printed per
 *    configuration: the median over rounds of the run medians, their range,
 *    the GC count, the median GC's promoted MB (the work per GC, equal in
 *    every configuration); per N: the median of the per-round ratios
 *    server(N)/workstation with their interquartile range and range.
 * 2. Gen2 pause on a large heap (linked lists, ~40 MB; --small: ~5 MB):
 *    one blocking gen2 GC against one background GC (its two pauses added),
 *    once, in its own process.
 * Last lines: "gen0 median pause server/workstation R" (N = 2, or the first
 * N of --heaps above 1) and "gen2 pause background/blocking R". Not a test:
 * numbers vary per machine, and server GC needs idle cores to gain. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_child.h"
#include "rgc.h"

struct node { struct node *a, *b; uint64_t v; };
static const uint32_t refs[] = {0, 8};
static rgc_runtime *rt;
static const rgc_type *node_t, *refs_t;
static int small;

#define GEN0_BUDGET (64u << 20)  /* total gen0 budget, every configuration (never reached) */
#define WARMUP 10                 /* gen0 GCs not counted */
#define MAXP 100000
static uint64_t pauses[MAXP], promoted[MAXP];
static size_t npauses, nseen;
static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;

static void on_gc(void *ctx, const struct rgc_memory_info *mi) {
  (void)ctx;
  pthread_mutex_lock(&plock);
  if (mi->generation == 0 && nseen++ >= WARMUP && npauses < MAXP) {
    promoted[npauses] = mi->promoted_bytes;
    pauses[npauses++] = mi->pause_durations_ns[0];
  }
  pthread_mutex_unlock(&plock);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}
static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median_d(double *v, int n, double *lo, double *hi) {
  qsort(v, (size_t)n, sizeof *v, cmp_dbl);
  *lo = v[0];
  *hi = v[n - 1];
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
/* Quartiles of v[0..n) once sorted (median_d sorts): nearest rank. */
static double q1_d(const double *v, int n) { return v[(n - 1) / 4]; }
static double q3_d(const double *v, int n) { return v[(3 * (n - 1) + 3) / 4]; }

static struct node *tree(rgc_thread *t, int depth) {
  struct node *n = rgc_alloc(t, node_t);
  if (depth > 0) {
    size_t m = rgc_root_mark(t);
    rgc_root(t, (void **)&n);
    struct node *l = tree(t, depth - 1);
    RGC_SET(n, a, l);
    struct node *r = tree(t, depth - 1);
    RGC_SET(n, b, r);
    rgc_root_release(t, m);
  }
  return n;
}

/* The two mutators meet at a barrier every ROUNDS_PER_GC rounds (waiting in
 * native, so a GC need not wait for them); between two barriers, worker 0
 * induces the GC: gen0, every 8th gen1, every 64th gen2 (budgets never
 * trigger one). Every configuration thus runs the same GCs over the same
 * survivors: each gen0 GC finds 2 x ROUNDS_PER_GC kept trees (2 x 390 KB)
 * among 2 x 1.2 MB of new objects, the rest of them garbage. */
#define ROUNDS_PER_GC 4
static pthread_barrier_t meet;

static void meet_in_native(rgc_thread *t) {
  rgc_enter_native(t);
  pthread_barrier_wait(&meet);
  rgc_leave_native(t);
}

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  rgc_thread *t = rgc_attach_thread(rt);
  void *keep = rgc_alloc_array(t, refs_t, 64);
  rgc_root(t, &keep);
  int rounds = small ? 120 : 1200, gcs = 0;
  for (int i = 0; i < rounds; i++) {
    struct node *n = tree(t, 10);                      /* 2,047 nodes, 98 KB */
    rgc_array_set(keep, (size_t)(i % 64), n);          /* lives for 64 rounds */
    (void)tree(t, 11);                                 /* garbage, 196 KB */
    if ((i + 1) % ROUNDS_PER_GC == 0) {
      meet_in_native(t);
      if (id == 0) {
        gcs++;
        rgc_collect(rt, gcs % 64 == 0 ? 2 : gcs % 8 == 0 ? 1 : 0, RGC_COLLECT_FORCED);
      }
      meet_in_native(t);
    }
  }
  rgc_detach_thread(t);
  return NULL;
}

/* heaps 0: workstation GC; N >= 1: server GC with N heaps. */
static rgc_runtime *make(int heaps, int concurrent) {
  struct rgc_config c;
  rgc_config_default(&c);
  c.server = heaps > 0;
  c.heap_count = heaps > 0 ? (unsigned)heaps : 1;
  c.concurrent = concurrent;
  /* GCs are induced (worker): no budget runs out between them */
  c.gen0_size = c.gen0_max_budget = GEN0_BUDGET / c.heap_count;
  char err[200];
  rgc_runtime *r = rgc_create(&c, err, sizeof err);
  if (!r) { fprintf(stderr, "rgc-gc-modes: %s\n", err); exit(1); }
  node_t = rgc_register_type(r, &(struct rgc_type_desc){.name = "Node", .kind = RGC_KIND_OBJECT,
    .size = sizeof(struct node), .ref_offsets = refs, .nrefs = 2});
  refs_t = rgc_register_type(r, &(struct rgc_type_desc){.name = "Object[]", .kind = RGC_KIND_REF_ARRAY});
  return r;
}

/* promoted_mb: the median gen0 GC's promoted MB (the work per GC: the same
 * in every configuration) */
struct result { double med_ms, p90_ms, promoted_mb; size_t gcs; double blocking_ms, background_ms, gen2_mb; };

static struct result gen0_run(int heaps) {
  struct result res = {0};
  rt = make(heaps, 0);
  npauses = nseen = 0;
  rgc_set_gc_callback(rt, on_gc, NULL);
  pthread_t th[2];
  pthread_barrier_init(&meet, NULL, 2);
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&meet);
  rgc_set_gc_callback(rt, NULL, NULL);
  rgc_destroy(rt);
  qsort(pauses, npauses, sizeof *pauses, cmp_u64);
  qsort(promoted, npauses, sizeof *promoted, cmp_u64);
  res.gcs = nseen;
  if (npauses) res.promoted_mb = (double)promoted[npauses / 2] / 1e6;
  if (npauses) {
    res.med_ms = (double)pauses[npauses / 2] / 1e6;
    res.p90_ms = (double)pauses[npauses * 9 / 10] / 1e6;
  }
  return res;
}

static struct result gen2_run(void) {
  struct result res = {0};
  rt = make(0, 1);
  rgc_thread *t = rgc_attach_thread(rt);
  int lists = small ? 100 : 800;
  void *arr = rgc_alloc_array(t, refs_t, (size_t)lists);
  rgc_root(t, &arr);
  for (int i = 0; i < lists; i++) {          /* lists of 1000 nodes: 48 KB each */
    struct node *head = NULL;
    size_t m = rgc_root_mark(t);
    rgc_root(t, (void **)&head);
    for (int k = 0; k < 1000; k++) {
      struct node *n = rgc_alloc(t, node_t);
      RGC_SET(n, a, head);
      head = n;
    }
    rgc_array_set(arr, (size_t)i, head);
    rgc_root_release(t, m);
  }
  rgc_collect(rt, 2, RGC_COLLECT_FORCED | RGC_COLLECT_COMPACTING);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED | RGC_COLLECT_COMPACTING);  /* all in gen2 now */
  struct rgc_memory_info mi;
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  rgc_get_memory_info(rt, RGC_GC_KIND_FULL_BLOCKING, &mi);
  res.blocking_ms = (double)mi.pause_durations_ns[0] / 1e6;
  rgc_collect(rt, 2, RGC_COLLECT_NON_BLOCKING);
  rgc_wait_background_gc(rt);
  rgc_get_memory_info(rt, RGC_GC_KIND_BACKGROUND, &mi);
  res.background_ms = (double)(mi.pause_durations_ns[0] + mi.pause_durations_ns[1]) / 1e6;
  res.gen2_mb = (double)mi.generation_info[2].size_before / 1e6;
  printf("gen2 heap %.1f MB: blocking pause %.3f ms, background pauses %.3f + %.3f ms\n", res.gen2_mb,
         res.blocking_ms, (double)mi.pause_durations_ns[0] / 1e6, (double)mi.pause_durations_ns[1] / 1e6);
  rgc_detach_thread(t);
  rgc_destroy(rt);
  return res;
}

/* config -1: the gen2 comparison; 0: workstation; N: server with N heaps. */
static struct result run_one(int config) {
  return config < 0 ? gen2_run() : gen0_run(config);
}

static void run_one_into(int config, void *out) { *(struct result *)out = run_one(config); }
static struct result run_child(int config) {
  struct result r;
  char what[48];
  snprintf(what, sizeof what, "configuration %d", config);
  bench_run_child("rgc-gc-modes", what, run_one_into, config, &r, sizeof r);
  return r;
}

static void config_name(int config, char *buf, size_t n) {
  if (config == 0) snprintf(buf, n, "workstation");
  else snprintf(buf, n, "server(%d)", config);
}

#define MAXROUNDS 64
#define MAXCONF 9

int main(int argc, char **argv) {
  int rounds = 5, only = -2;
  int heaps[MAXCONF - 1] = {1, 2}, nh = 2;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--small")) {
      small = 1;
    } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
      rounds = atoi(argv[++i]);
      if (rounds > MAXROUNDS) rounds = MAXROUNDS;
    } else if (!strcmp(argv[i], "--heaps") && i + 1 < argc) {
      nh = 0;
      for (char *s = argv[++i]; *s && nh < MAXCONF - 1;) {
        int v = (int)strtol(s, &s, 10);
        if (v < 1 || v > 64) { fprintf(stderr, "rgc-gc-modes: --heaps takes 1..64, comma-separated\n"); return 2; }
        heaps[nh++] = v;
        if (*s == ',') s++;
        else if (*s) { fprintf(stderr, "rgc-gc-modes: --heaps takes 1..64, comma-separated\n"); return 2; }
      }
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      const char *w = argv[++i];
      only = !strcmp(w, "workstation") ? 0 : !strcmp(w, "gen2") ? -1
             : !strncmp(w, "server", 6) && atoi(w + 6) > 0 ? atoi(w + 6) : -3;
      if (only == -3) { fprintf(stderr, "rgc-gc-modes: --only workstation|serverN|gen2\n"); return 2; }
    } else {
      fprintf(stderr, "usage: rgc-gc-modes [--small] [--rounds N] [--heaps N,N...] [--only workstation|serverN|gen2]\n");
      return 2;
    }
  }
  if (only >= -1) {
    struct result r = run_one(only);
    if (only >= 0) {
      char name[32];
      config_name(only, name, sizeof name);
      printf("%s: %zu gen0 GCs, median gen0 pause %.3f ms, p90 %.3f ms, %.3f MB promoted\n", name, r.gcs,
             r.med_ms, r.p90_ms, r.promoted_mb);
    }
    return 0;
  }
  int conf[MAXCONF] = {0}, nconf = 1;
  for (int i = 0; i < nh; i++) conf[nconf++] = heaps[i];
  printf("gen0: 2 threads, a GC induced every %d rounds of each (same GCs and survivors in every "
         "configuration), %d rounds, each run a separate process, rotated order; %ld CPUs online\n",
         ROUNDS_PER_GC, rounds, sysconf(_SC_NPROCESSORS_ONLN));
  static struct result R[MAXROUNDS][MAXCONF];
  for (int k = 0; k < rounds; k++)
    for (int j = 0; j < nconf; j++) {
      int c = (k + j) % nconf;
      R[k][c] = run_child(conf[c]);
    }
  double v[MAXROUNDS], lo, hi;
  printf("%-12s %8s %28s %8s %12s\n", "config", "gen0 GCs", "median gen0 pause ms (min-max)", "p90 ms",
         "promoted MB");
  for (int c = 0; c < nconf; c++) {
    char name[32];
    config_name(conf[c], name, sizeof name);
    for (int k = 0; k < rounds; k++) v[k] = (double)R[k][c].gcs;
    double gcs = median_d(v, rounds, &lo, &hi);
    for (int k = 0; k < rounds; k++) v[k] = R[k][c].p90_ms;
    double p90 = median_d(v, rounds, &lo, &hi);
    for (int k = 0; k < rounds; k++) v[k] = R[k][c].promoted_mb;
    double prom = median_d(v, rounds, &lo, &hi);
    for (int k = 0; k < rounds; k++) v[k] = R[k][c].med_ms;
    double med = median_d(v, rounds, &lo, &hi);
    printf("%-12s %8.0f %12.3f (%6.3f-%6.3f) %8.3f %12.3f\n", name, gcs, med, lo, hi, p90, prom);
  }
  double main_ratio = 0;
  int main_set = 0;
  for (int c = 1; c < nconf; c++) {
    for (int k = 0; k < rounds; k++) v[k] = R[k][0].med_ms > 0 ? R[k][c].med_ms / R[k][0].med_ms : 0;
    double m = median_d(v, rounds, &lo, &hi);
    printf("gen0 median pause server(%d)/workstation %.3f (IQR %.3f-%.3f, rounds %.3f-%.3f)\n", conf[c], m,
           q1_d(v, rounds), q3_d(v, rounds), lo, hi);
    if (!main_set && conf[c] > 1) main_ratio = m, main_set = 1;
  }
  struct result g2 = run_child(-1);
  printf("gen0 median pause server/workstation %.3f\n", main_ratio);
  printf("gen2 pause background/blocking %.3f\n", g2.blocking_ms > 0 ? g2.background_ms / g2.blocking_ms : 0);
  return 0;
}
