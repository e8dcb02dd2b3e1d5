/* rgc-demo — a small multi-threaded librgc program whose trace shows every
 * rgc event: objects with a mix of lifetimes, LOH arrays, GC handles of each
 * kind, pinned objects, finalizable objects, request spans and one induced
 * gen2 GC.
 *
 *   rgc-demo [--seconds N] [--threads N]
 */
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rgc.h"

struct node { struct node *left, *right; uint64_t value; };
static const uint32_t node_refs[] = {0, 8};

static rgc_runtime *rt;
static const rgc_type *node_t, *bytes_t, *refs_t, *fin_t;
static double run_seconds = 3;
static _Atomic uint64_t finalized;
static _Atomic uint64_t next_request;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_finalize(rgc_thread *t, void *obj) {
  (void)t; (void)obj;
  atomic_fetch_add(&finalized, 1);
}

static struct node *make_tree(rgc_thread *t, int depth) {
  struct node *n = rgc_alloc(t, node_t);
  if (!n || depth == 0) return n;
  size_t m = rgc_root_mark(t);
  rgc_root(t, (void **)&n);
  struct node *l = make_tree(t, depth - 1);
  if (n && l) RGC_SET(n, left, l);
  struct node *r = make_tree(t, depth - 1);
  if (n && r) RGC_SET(n, right, r);
  rgc_root_release(t, m);
  return n;
}

static void *worker(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg * 7919u + 1;
  rgc_thread *t = rgc_attach_thread(rt);
  if (!t) return NULL;
  /* long-lived data: a tree held by a strong handle, a cache array */
  void *cache = rgc_alloc_array(t, refs_t, 512);
  rgc_handle strong = rgc_handle_new(t, cache, RGC_HANDLE_STRONG);
  cache = NULL;
  double end = now_s() + run_seconds;
  uint64_t iter = 0;
  while (now_s() < end) {
    uint64_t id = atomic_fetch_add(&next_request, 1);
    rgc_request_begin(rt, id);
    /* short-lived garbage */
    for (int i = 0; i < 20; i++) make_tree(t, 6);
    /* medium-lived: replace a random cache entry */
    struct node *tree = make_tree(t, 5);
    if (tree) rgc_array_set(rgc_handle_get(strong), (size_t)(rand_r(&seed) % 512), tree);
    /* weak handles of both kinds to a young object */
    void *w = rgc_alloc(t, node_t);
    rgc_handle ws = rgc_handle_new(t, w, RGC_HANDLE_WEAK_SHORT);
    rgc_handle wl = rgc_handle_new(t, w, RGC_HANDLE_WEAK_LONG);
    /* finalizable objects, most dropped at once */
    for (int i = 0; i < 4; i++) rgc_alloc(t, fin_t);
    /* a pinned buffer, held across some allocation */
    void *buf = rgc_alloc_array(t, bytes_t, 4096);
    rgc_handle pin = rgc_handle_new(t, buf, RGC_HANDLE_PINNED);
    buf = NULL;
    for (int i = 0; i < 5; i++) make_tree(t, 6);
    rgc_handle_free(t, pin);
    rgc_handle_free(t, ws);
    rgc_handle_free(t, wl);
    /* now and then a large object (LOH) and a pinned-heap object (POH) */
    if (iter % 16 == 0) rgc_alloc_array(t, bytes_t, 200000);
    if (iter % 64 == 0) rgc_alloc_pinned(t, bytes_t, 1024);
    rgc_request_end(rt, id);
    iter++;
  }
  rgc_handle_free(t, strong);
  rgc_detach_thread(t);
  return NULL;
}

int main(int argc, char **argv) {
  int nthreads = 2;
  for (int i = 1; i < argc; i++) {
    char *end;
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
      run_seconds = strtod(argv[++i], &end);
      if (*end || run_seconds < 0 || run_seconds > 86400) goto usage;
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      nthreads = (int)strtol(argv[++i], &end, 10);
      if (*end || nthreads < 1 || nthreads > 64) goto usage;
    } else {
      goto usage;
    }
  }
  char err[256];
  rt = rgc_create(NULL, err, sizeof err);
  if (!rt) {
    fprintf(stderr, "rgc-demo: %s\n", err);
    return 1;
  }
  node_t = rgc_register_type(rt, &(struct rgc_type_desc){
    .name = "Demo.Node", .kind = RGC_KIND_OBJECT, .size = sizeof(struct node),
    .ref_offsets = node_refs, .nrefs = 2});
  bytes_t = rgc_register_type(rt, &(struct rgc_type_desc){
    .name = "System.Byte[]", .kind = RGC_KIND_VALUE_ARRAY, .elem_size = 1});
  refs_t = rgc_register_type(rt, &(struct rgc_type_desc){
    .name = "System.Object[]", .kind = RGC_KIND_REF_ARRAY});
  fin_t = rgc_register_type(rt, &(struct rgc_type_desc){
    .name = "Demo.FileHandle", .kind = RGC_KIND_OBJECT, .size = 16, .finalizer = on_finalize});
  pthread_t th[64];
  for (int i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
  /* halfway: one induced, blocking, compacting gen2 GC */
  struct timespec half = {.tv_sec = (time_t)(run_seconds / 2),
                          .tv_nsec = (long)((run_seconds / 2 - (double)(time_t)(run_seconds / 2)) * 1e9)};
  nanosleep(&half, NULL);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED | RGC_COLLECT_BLOCKING | RGC_COLLECT_COMPACTING);
  for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  rgc_wait_for_pending_finalizers(rt);
  printf("rgc-demo: %d threads, %.1f s, %llu GCs (gen0 %llu, gen1 %llu, gen2 %llu)\n"
         "rgc-demo: %llu objects finalized\n",
         nthreads, run_seconds, (unsigned long long)rgc_collection_count(rt, 0),
         (unsigned long long)(rgc_collection_count(rt, 0) - rgc_collection_count(rt, 1)),
         (unsigned long long)(rgc_collection_count(rt, 1) - rgc_collection_count(rt, 2)),
         (unsigned long long)rgc_collection_count(rt, 2), (unsigned long long)atomic_load(&finalized));
  rgc_destroy(rt);
  return 0;
usage:
  fprintf(stderr, "usage: rgc-demo [--seconds N] [--threads N]\n");
  return 2;
}
