/* gc_modes — librgc GC flavours compared in one run, as ratios:
 *
 *   rgc-gc-modes [--small]
 *
 * 1. Gen0 pauses, server GC (one heap and GC thread per core) against
 *    workstation GC, on the same workload: 2 threads building trees that
 *    survive a while (so gen0 GCs mark real work). Median gen0 pause of each.
 * 2. Gen2 pause on a large heap (linked lists, ~40 MB; --small: ~5 MB):
 *    one blocking gen2 GC against one background GC (its two pauses added).
 * Last lines: "gen0 median pause server/workstation R" and
 * "gen2 pause background/blocking R". Not a test: numbers vary per machine. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rgc.h"

struct node { struct node *a, *b; uint64_t v; };
static const uint32_t refs[] = {0, 8};
static rgc_runtime *rt;
static const rgc_type *node_t, *refs_t;
static int small;

#define MAXP 100000
static uint64_t pauses[MAXP];
static size_t npauses;
static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;

static void on_gc(void *ctx, const struct rgc_memory_info *mi) {
  (void)ctx;
  pthread_mutex_lock(&plock);
  if (mi->generation == 0 && npauses < MAXP) pauses[npauses++] = mi->pause_durations_ns[0];
  pthread_mutex_unlock(&plock);
}

static int cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

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

static void *worker(void *arg) {
  (void)arg;
  rgc_thread *t = rgc_attach_thread(rt);
  void *keep = rgc_alloc_array(t, refs_t, 64);
  rgc_root(t, &keep);
  int rounds = small ? 300 : 3000;
  for (int i = 0; i < rounds; i++) {
    struct node *n = tree(t, 10);                      /* ~49 KB */
    rgc_array_set(keep, (size_t)(i % 64), n);          /* lives for 64 rounds */
  }
  rgc_detach_thread(t);
  return NULL;
}

static rgc_runtime *make(int server, int concurrent) {
  struct rgc_config c;
  rgc_config_default(&c);
  c.server = server;
  c.heap_count = server ? 2 : 1;
  c.concurrent = concurrent;
  c.gen0_size = 1u << 20;
  char err[200];
  rgc_runtime *r = rgc_create(&c, err, sizeof err);
  if (!r) { fprintf(stderr, "rgc-gc-modes: %s\n", err); exit(1); }
  node_t = rgc_register_type(r, &(struct rgc_type_desc){.name = "Node", .kind = RGC_KIND_OBJECT,
    .size = sizeof(struct node), .ref_offsets = refs, .nrefs = 2});
  refs_t = rgc_register_type(r, &(struct rgc_type_desc){.name = "Object[]", .kind = RGC_KIND_REF_ARRAY});
  return r;
}

static double gen0_median(int server) {
  rt = make(server, 0);
  npauses = 0;
  rgc_set_gc_callback(rt, on_gc, NULL);
  pthread_t th[2];
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, worker, NULL);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  rgc_set_gc_callback(rt, NULL, NULL);
  rgc_destroy(rt);
  qsort(pauses, npauses, sizeof *pauses, cmp);
  double med = npauses ? (double)pauses[npauses / 2] / 1e6 : 0;
  printf("%-12s gen0 GCs %5zu  median gen0 pause %.3f ms\n", server ? "server(2)" : "workstation", npauses, med);
  return med;
}

static void gen2_pauses(double *blocking, double *background) {
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
  *blocking = (double)mi.pause_durations_ns[0] / 1e6;
  rgc_collect(rt, 2, RGC_COLLECT_NON_BLOCKING);
  rgc_wait_background_gc(rt);
  rgc_get_memory_info(rt, RGC_GC_KIND_BACKGROUND, &mi);
  *background = (double)(mi.pause_durations_ns[0] + mi.pause_durations_ns[1]) / 1e6;
  printf("gen2 heap %.1f MB: blocking pause %.3f ms, background pauses %.3f + %.3f ms\n",
         (double)mi.generation_info[2].size_before / 1e6, *blocking,
         (double)mi.pause_durations_ns[0] / 1e6, (double)mi.pause_durations_ns[1] / 1e6);
  rgc_detach_thread(t);
  rgc_destroy(rt);
}

int main(int argc, char **argv) {
  small = argc > 1 && !strcmp(argv[1], "--small");
  double wks = gen0_median(0), svr = gen0_median(1);
  double blocking, background;
  gen2_pauses(&blocking, &background);
  printf("gen0 median pause server/workstation %.3f\n", wks > 0 ? svr / wks : 0);
  printf("gen2 pause background/blocking %.3f\n", blocking > 0 ? background / blocking : 0);
  return 0;
}
