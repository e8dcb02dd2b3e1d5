/* rgc-gcbench — GCBench (Ellis, Kovac, Boehm; parameters as published:
 * stretch tree depth 18, long-lived tree depth 16, an array of 500,000
 * doubles, trees of depth 4..16 in steps of 2, built top-down and bottom-up)
 * on librgc, on bdwgc and on malloc/free, each run a separate process
 * (forked: no heap, allocator cache or page faults carry over from one run
 * to the next), the three in a rotated order per round (ABC, BCA, CAB...).
 * Prints per collector the median over rounds of the time (and its range),
 * CPU time, GC count, max pause (and range), median pause and median gen0
 * pause; then each ratio as the median of the per-round ratios with their
 * range, and the same ratios one per line: the last two lines are
 * `time librgc/bdwgc R` and `median-pause librgc/bdwgc R`.
 *
 *   rgc-gcbench [--small] [--rounds N]   (default 5 rounds; --small: depths /2)
 *   rgc-gcbench --only librgc|bdwgc|malloc [--small]
 *                      (one run in this process, for perf or callgrind)
 */
#include <gc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_child.h"
#include "rgc.h"

static int kStretchTreeDepth = 18, kLongLivedTreeDepth = 16, kArraySize = 500000;
static int kMinTreeDepth = 4, kMaxTreeDepth = 16;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static int TreeSize(int i) { return (1 << (i + 1)) - 1; }
static int NumIters(int i) { return 2 * TreeSize(kStretchTreeDepth) / TreeSize(i); }

/* ---- pause bookkeeping ---- */
#define MAXP 100000
struct pauses { uint64_t ns[MAXP]; int gen[MAXP]; size_t n; };
static struct pauses P[2];
static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}
static double median_ms(const struct pauses *p, int gen_filter) {
  uint64_t *v = malloc(sizeof(uint64_t) * (p->n + 1));
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++) if (gen_filter < 0 || p->gen[i] == gen_filter) v[k++] = p->ns[i];
  double m = 0;
  if (k) { qsort(v, k, sizeof *v, cmp_u64); m = k % 2 ? (double)v[k / 2] : ((double)v[k / 2 - 1] + (double)v[k / 2]) / 2; }
  free(v);
  return m / 1e6;
}
static double max_ms(const struct pauses *p) {
  uint64_t m = 0;
  for (size_t i = 0; i < p->n; i++) if (p->ns[i] > m) m = p->ns[i];
  return (double)m / 1e6;
}

/* ---- librgc ---- */
struct RNode { struct RNode *left, *right; int i, j; };
static const uint32_t rnode_refs[] = {0, 8};
static const rgc_type *rnode_t, *rdbl_t;
static rgc_thread *T;

static void rgc_on_gc(void *ctx, const struct rgc_memory_info *gc) {
  (void)ctx;
  if (P[0].n < MAXP) { P[0].ns[P[0].n] = gc->pause_durations_ns[0]; P[0].gen[P[0].n++] = gc->generation; }
}

static void rPopulate(int depth, struct RNode *node) {
  if (depth <= 0) return;
  size_t m = rgc_root_mark(T);
  rgc_root(T, (void **)&node);
  struct RNode *l = rgc_alloc(T, rnode_t);
  RGC_SET(node, left, l);
  struct RNode *r = rgc_alloc(T, rnode_t);
  RGC_SET(node, right, r);
  rPopulate(depth - 1, node->left);
  rPopulate(depth - 1, node->right);
  rgc_root_release(T, m);
}
static struct RNode *rMakeTree(int depth) {
  if (depth <= 0) return rgc_alloc(T, rnode_t);
  size_t m = rgc_root_mark(T);
  struct RNode *l = rMakeTree(depth - 1);
  rgc_root(T, (void **)&l);
  struct RNode *r = rMakeTree(depth - 1);
  rgc_root(T, (void **)&r);
  struct RNode *n = rgc_alloc(T, rnode_t);
  RGC_SET(n, left, l);
  RGC_SET(n, right, r);
  rgc_root_release(T, m);
  return n;
}

static void run_rgc(void) {
  struct rgc_config c;
  rgc_config_default(&c);
  char err[200];
  if (rgc_config_from_env(&c, err, sizeof err)) { fprintf(stderr, "rgc-gcbench: %s\n", err); exit(1); }
  rgc_runtime *rt = rgc_create(&c, err, sizeof err);
  if (!rt) { fprintf(stderr, "rgc-gcbench: %s\n", err); exit(1); }
  rnode_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Node", .kind = RGC_KIND_OBJECT,
    .size = sizeof(struct RNode), .ref_offsets = rnode_refs, .nrefs = 2});
  rdbl_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "double[]", .kind = RGC_KIND_VALUE_ARRAY, .elem_size = 8});
  rgc_set_gc_callback(rt, rgc_on_gc, NULL);
  T = rgc_attach_thread(rt);
  struct RNode *tmp = rMakeTree(kStretchTreeDepth);
  tmp = NULL;
  struct RNode *longLived = rgc_alloc(T, rnode_t);
  rgc_root(T, (void **)&longLived);
  rPopulate(kLongLivedTreeDepth, longLived);
  double *array = rgc_alloc_array(T, rdbl_t, (size_t)kArraySize);
  rgc_root(T, (void **)&array);
  for (int i = 0; i < kArraySize / 2; i++) ((double *)rgc_array_data(array))[i] = 1.0 / i;
  for (int d = kMinTreeDepth; d <= kMaxTreeDepth; d += 2) {
    int iters = NumIters(d);
    for (int i = 0; i < iters; i++) {
      tmp = rgc_alloc(T, rnode_t);
      rgc_root(T, (void **)&tmp);
      rPopulate(d, tmp);
      rgc_root_release(T, rgc_root_mark(T) - 1);
      tmp = rMakeTree(d);
    }
  }
  if (!longLived || ((double *)rgc_array_data(array))[1000] != 1.0 / 1000) fprintf(stderr, "rgc-gcbench: check failed\n");
  rgc_detach_thread(T);
  rgc_destroy(rt);
}

/* ---- bdwgc ---- */
struct BNode { struct BNode *left, *right; int i, j; };
static uint64_t bdw_stop_t;
static void bdw_event(GC_EventType e) {
  if (e == GC_EVENT_PRE_STOP_WORLD) bdw_stop_t = now_ns();
  else if (e == GC_EVENT_POST_START_WORLD && P[1].n < MAXP) { P[1].ns[P[1].n] = now_ns() - bdw_stop_t; P[1].gen[P[1].n++] = 2; }
}
static void bPopulate(int depth, struct BNode *node) {
  if (depth <= 0) return;
  node->left = GC_MALLOC(sizeof(struct BNode));
  node->right = GC_MALLOC(sizeof(struct BNode));
  bPopulate(depth - 1, node->left);
  bPopulate(depth - 1, node->right);
}
static struct BNode *bMakeTree(int depth) {
  struct BNode *n = GC_MALLOC(sizeof(struct BNode));
  if (depth > 0) { n->left = bMakeTree(depth - 1); n->right = bMakeTree(depth - 1); }
  return n;
}
static size_t run_bdw(void) {
  GC_INIT();
  GC_set_on_collection_event(bdw_event);
  size_t gc0 = GC_get_gc_no();
  struct BNode *tmp = bMakeTree(kStretchTreeDepth);
  tmp = NULL;
  struct BNode *longLived = GC_MALLOC(sizeof(struct BNode));
  bPopulate(kLongLivedTreeDepth, longLived);
  double *array = GC_MALLOC_ATOMIC(sizeof(double) * (size_t)kArraySize);
  for (int i = 0; i < kArraySize / 2; i++) array[i] = 1.0 / i;
  for (int d = kMinTreeDepth; d <= kMaxTreeDepth; d += 2) {
    int iters = NumIters(d);
    for (int i = 0; i < iters; i++) {
      tmp = GC_MALLOC(sizeof(struct BNode));
      bPopulate(d, tmp);
      tmp = bMakeTree(d);
    }
  }
  if (!longLived || array[1000] != 1.0 / 1000) fprintf(stderr, "rgc-gcbench: check failed\n");
  return GC_get_gc_no() - gc0;
}

/* ---- malloc/free ---- */
struct MNode { struct MNode *left, *right; int i, j; };
static void mFree(struct MNode *n) { if (n) { mFree(n->left); mFree(n->right); free(n); } }
static void mPopulate(int depth, struct MNode *node) {
  if (depth <= 0) return;
  node->left = calloc(1, sizeof(struct MNode));
  node->right = calloc(1, sizeof(struct MNode));
  mPopulate(depth - 1, node->left);
  mPopulate(depth - 1, node->right);
}
static struct MNode *mMakeTree(int depth) {
  struct MNode *n = calloc(1, sizeof(struct MNode));
  if (depth > 0) { n->left = mMakeTree(depth - 1); n->right = mMakeTree(depth - 1); }
  return n;
}
static void run_malloc(void) {
  mFree(mMakeTree(kStretchTreeDepth));
  struct MNode *longLived = calloc(1, sizeof(struct MNode));
  mPopulate(kLongLivedTreeDepth, longLived);
  double *array = malloc(sizeof(double) * (size_t)kArraySize);
  for (int i = 0; i < kArraySize / 2; i++) array[i] = 1.0 / i;
  for (int d = kMinTreeDepth; d <= kMaxTreeDepth; d += 2) {
    int iters = NumIters(d);
    for (int i = 0; i < iters; i++) {
      struct MNode *t = calloc(1, sizeof(struct MNode));
      mPopulate(d, t);
      mFree(t);
      mFree(mMakeTree(d));
    }
  }
  if (array[1000] != 1.0 / 1000) fprintf(stderr, "rgc-gcbench: check failed\n");
  mFree(longLived);
  free(array);
}

/* ---- one collector per process ---- */
enum { C_RGC, C_BDW, C_MALLOC, NCOLL };
static const char *const cname[NCOLL] = {"librgc", "bdwgc", "malloc/free"};
struct result { double ms, cpu_ms, max_ms, med_ms, med0_ms; size_t gcs; };

static double cpu_ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static struct result run_one(int c) {
  struct result r = {0};
  double c0 = cpu_ms_now();
  uint64_t t0 = now_ns();
  if (c == C_RGC) run_rgc();
  else if (c == C_BDW) r.gcs = run_bdw();
  else run_malloc();
  r.ms = (double)(now_ns() - t0) / 1e6;
  r.cpu_ms = cpu_ms_now() - c0;
  if (c != C_MALLOC) {
    const struct pauses *p = &P[c == C_RGC ? 0 : 1];
    if (c == C_RGC) r.gcs = p->n;
    r.max_ms = max_ms(p);
    r.med_ms = median_ms(p, -1);
    r.med0_ms = c == C_RGC ? median_ms(p, 0) : 0;
  }
  return r;
}

/* Run collector c in a child process (nothing of one run carries over to the
 * next: heap, caches of the allocator, page faults already taken). */
static void run_one_into(int c, void *out) { *(struct result *)out = run_one(c); }
static struct result run_child(int c) {
  struct result r;
  char what[48];
  snprintf(what, sizeof what, "the %s run", cname[c]);
  bench_run_child("rgc-gcbench", what, run_one_into, c, &r, sizeof r);
  return r;
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
/* Median, minimum and maximum of v[0..n) (sorted in place). */
static double med3(double *v, int n, double *lo, double *hi) {
  qsort(v, (size_t)n, sizeof *v, cmp_dbl);
  *lo = v[0];
  *hi = v[n - 1];
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MAXROUNDS 64

int main(int argc, char **argv) {
  int rounds = 5, only = -1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--small")) {
      kStretchTreeDepth = 12; kLongLivedTreeDepth = 10; kArraySize = 50000; kMaxTreeDepth = 10;
    } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
      rounds = atoi(argv[++i]);
      if (rounds > MAXROUNDS) rounds = MAXROUNDS;
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      const char *w = argv[++i];
      only = !strcmp(w, "librgc") ? C_RGC : !strcmp(w, "bdwgc") ? C_BDW : !strcmp(w, "malloc") ? C_MALLOC : -2;
      if (only == -2) { fprintf(stderr, "rgc-gcbench: --only librgc|bdwgc|malloc\n"); return 2; }
    } else {
      fprintf(stderr, "usage: rgc-gcbench [--small] [--rounds N] [--only librgc|bdwgc|malloc]\n");
      return 2;
    }
  }
  printf("GCBench: stretch depth %d, long-lived depth %d, array %d doubles, depths %d..%d\n",
         kStretchTreeDepth, kLongLivedTreeDepth, kArraySize, kMinTreeDepth, kMaxTreeDepth);
  if (only >= 0) {  /* one run in this process (for profilers) */
    struct result r = run_one(only);
    printf("%s: %.1f ms (cpu %.1f ms), %zu GCs, max pause %.3f ms, median %.3f ms, median gen0 %.3f ms\n",
           cname[only], r.ms, r.cpu_ms, r.gcs, r.max_ms, r.med_ms, r.med0_ms);
    return 0;
  }
  printf("%d rounds; each run a separate process, the three in a rotated order per round\n", rounds);
  static struct result R[MAXROUNDS][NCOLL];
  for (int k = 0; k < rounds; k++)
    for (int j = 0; j < NCOLL; j++) {
      int c = (k + j) % NCOLL;
      R[k][c] = run_child(c);
    }
  /* per collector: medians over rounds (min-max) */
  double v[MAXROUNDS], lo, hi;
  printf("%-12s %22s %9s %6s %22s %10s %14s\n", "collector", "time ms (min-max)", "cpu ms", "GCs",
         "max pause ms (min-max)", "median ms", "median gen0 ms");
  for (int c = 0; c < NCOLL; c++) {
    double t, tl, th, cpu, gcs, mp = 0, mpl = 0, mph = 0, md = 0, md0 = 0;
    for (int k = 0; k < rounds; k++) v[k] = R[k][c].ms;
    t = med3(v, rounds, &tl, &th);
    for (int k = 0; k < rounds; k++) v[k] = R[k][c].cpu_ms;
    cpu = med3(v, rounds, &lo, &hi);
    for (int k = 0; k < rounds; k++) v[k] = (double)R[k][c].gcs;
    gcs = med3(v, rounds, &lo, &hi);
    if (c != C_MALLOC) {
      for (int k = 0; k < rounds; k++) v[k] = R[k][c].max_ms;
      mp = med3(v, rounds, &mpl, &mph);
      for (int k = 0; k < rounds; k++) v[k] = R[k][c].med_ms;
      md = med3(v, rounds, &lo, &hi);
      for (int k = 0; k < rounds; k++) v[k] = R[k][c].med0_ms;
      md0 = med3(v, rounds, &lo, &hi);
      printf("%-12s %8.1f (%5.1f-%5.1f) %9.1f %6.0f %8.3f (%5.3f-%5.3f) %10.3f %14.3f\n", cname[c], t, tl, th,
             cpu, gcs, mp, mpl, mph, md, md0);
    } else {
      printf("%-12s %8.1f (%5.1f-%5.1f) %9.1f %6s %22s %10s %14s\n", cname[c], t, tl, th, cpu, "-", "-", "-", "-");
    }
  }
  /* ratios: median of the per-round ratios, with their range */
  enum { F_MS, F_CPU, F_MAX, F_MED, F_MED0 };
  static const struct { const char *name; int a, b, fa, fb; } ratios[] = {
    {"time librgc/malloc", C_RGC, C_MALLOC, F_MS, F_MS},
    {"cpu librgc/bdwgc", C_RGC, C_BDW, F_CPU, F_CPU},
    {"max-pause librgc/bdwgc", C_RGC, C_BDW, F_MAX, F_MAX},
    {"median-gen0-pause librgc/bdwgc", C_RGC, C_BDW, F_MED0, F_MED},
    {"time librgc/bdwgc", C_RGC, C_BDW, F_MS, F_MS},
    {"median-pause librgc/bdwgc", C_RGC, C_BDW, F_MED, F_MED},
  };
  const size_t nratios = sizeof ratios / sizeof *ratios;
  double rm[sizeof ratios / sizeof *ratios], rl[sizeof ratios / sizeof *ratios], rh[sizeof ratios / sizeof *ratios];
  for (size_t i = 0; i < nratios; i++) {
    int n = 0;
    for (int k = 0; k < rounds; k++) {
      const struct result *ra = &R[k][ratios[i].a], *rb = &R[k][ratios[i].b];
      const double fa[] = {ra->ms, ra->cpu_ms, ra->max_ms, ra->med_ms, ra->med0_ms};
      const double fb[] = {rb->ms, rb->cpu_ms, rb->max_ms, rb->med_ms, rb->med0_ms};
      if (fb[ratios[i].fb] > 0) v[n++] = fa[ratios[i].fa] / fb[ratios[i].fb];
    }
    rm[i] = n ? med3(v, n, &rl[i], &rh[i]) : 0;
    if (!n) rl[i] = rh[i] = 0;
  }
  printf("ratios (median of the per-round ratios, min-max):\n");
  for (size_t i = 0; i < nratios; i++) printf("  %-31s %.3f (%.3f-%.3f)\n", ratios[i].name, rm[i], rl[i], rh[i]);
  /* the last two lines, read by scripts */
  printf("time librgc/bdwgc %.3f\n", rm[nratios - 2]);
  printf("median-pause librgc/bdwgc %.3f\n", rm[nratios - 1]);
  return 0;
}
