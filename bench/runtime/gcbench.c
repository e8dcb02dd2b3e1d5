/* rgc-gcbench — GCBench (Ellis, Kovac, Boehm; parameters as published:
 * stretch tree depth 18, long-lived tree depth 16, an array of 500,000
 * doubles, trees of depth 4..16 in steps of 2, built top-down and bottom-up)
 * run in one invocation on librgc, on bdwgc and on malloc/free. Prints total
 * time, GC count, max and median pause for each, then the ratios; the last
 * two lines are `time librgc/bdwgc R` and `median-pause librgc/bdwgc R`.
 *
 *   rgc-gcbench [--small]     (--small: depths /2, for a smoke test)
 */
#include <gc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--small")) {
      kStretchTreeDepth = 12; kLongLivedTreeDepth = 10; kArraySize = 50000; kMaxTreeDepth = 10;
    } else {
      fprintf(stderr, "usage: rgc-gcbench [--small]\n");
      return 2;
    }
  }
  printf("GCBench: stretch depth %d, long-lived depth %d, array %d doubles, depths %d..%d\n",
         kStretchTreeDepth, kLongLivedTreeDepth, kArraySize, kMinTreeDepth, kMaxTreeDepth);
  uint64_t t0 = now_ns(); run_malloc(); uint64_t t_malloc = now_ns() - t0;
  t0 = now_ns(); run_rgc(); uint64_t t_rgc = now_ns() - t0;
  t0 = now_ns(); size_t bdw_gcs = run_bdw(); uint64_t t_bdw = now_ns() - t0;
  printf("%-12s %10s %6s %14s %14s %16s\n", "collector", "time ms", "GCs", "max pause ms", "median ms", "median gen0 ms");
  printf("%-12s %10.1f %6zu %14.3f %14.3f %16.3f\n", "librgc", (double)t_rgc / 1e6, P[0].n,
         max_ms(&P[0]), median_ms(&P[0], -1), median_ms(&P[0], 0));
  printf("%-12s %10.1f %6zu %14.3f %14.3f %16s\n", "bdwgc", (double)t_bdw / 1e6, bdw_gcs,
         max_ms(&P[1]), median_ms(&P[1], -1), "-");
  printf("%-12s %10.1f %6s %14s %14s %16s\n", "malloc/free", (double)t_malloc / 1e6, "-", "-", "-", "-");
  double mb = median_ms(&P[1], -1);
  printf("time librgc/malloc %.3f\n", (double)t_rgc / (double)t_malloc);
  printf("median-gen0-pause librgc/bdwgc %.3f\n", mb > 0 ? median_ms(&P[0], 0) / mb : 0);
  printf("time librgc/bdwgc %.3f\n", (double)t_rgc / (double)t_bdw);
  printf("median-pause librgc/bdwgc %.3f\n", mb > 0 ? median_ms(&P[0], -1) / mb : 0);
  return 0;
}
