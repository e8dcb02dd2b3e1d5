/* bgc_prog — librgc programs traced by test_bgc_lttng.py.
 *
 *   rgc-test-bgc-prog bgc      background GCs over a ~19 MB gen2, each with
 *                              an induced gen0 GC (a foreground GC) and LOH
 *                              allocations past the LOH budget inside it
 *   rgc-test-bgc-prog server   server GC with 2 heaps: a few GCs
 * Prints what the trace must show. */
#include <pthread.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rgc.h"

struct node { struct node *a, *b; uint64_t v; };
static const uint32_t refs[] = {0, 8};
static rgc_runtime *rt;
static const rgc_type *node_t, *refs_t, *bytes_t;

static rgc_runtime *make(struct rgc_config *c) {
  char err[200];
  rgc_runtime *r = rgc_create(c, err, sizeof err);
  if (!r) { fprintf(stderr, "bgc_prog: %s\n", err); _exit(1); }
  node_t = rgc_register_type(r, &(struct rgc_type_desc){.name = "Test.Node", .kind = RGC_KIND_OBJECT,
    .size = sizeof(struct node), .ref_offsets = refs, .nrefs = 2});
  refs_t = rgc_register_type(r, &(struct rgc_type_desc){.name = "Object[]", .kind = RGC_KIND_REF_ARRAY});
  bytes_t = rgc_register_type(r, &(struct rgc_type_desc){.name = "Byte[]", .kind = RGC_KIND_VALUE_ARRAY, .elem_size = 1});
  return r;
}

/* Background GCs as the runtime reports them (its GC callback): besides the
 * ones this program asks for, an LOH allocation past its budget right after
 * a BGC ends may start another. */
static _Atomic unsigned long background_gcs;
static void count_background(void *ctx, const struct rgc_memory_info *gc) {
  (void)ctx;
  if (gc->concurrent) background_gcs++;
}

static int run_bgc(void) {
  struct rgc_config c;
  rgc_config_default(&c);
  c.gen0_size = 1u << 20;
  rt = make(&c);
  rgc_set_gc_callback(rt, count_background, NULL);
  if (rgc_set_latency_mode(rt, RGC_LATENCY_SUSTAINED_LOW_LATENCY)) return 1;
  rgc_thread *t = rgc_attach_thread(rt);
  void *lists = rgc_alloc_array(t, refs_t, 1000);
  rgc_root(t, &lists);
  for (int i = 0; i < 1000; i++) {          /* 1000 lists of 400 nodes */
    struct node *head = NULL;
    size_t m = rgc_root_mark(t);
    rgc_root(t, (void **)&head);
    for (int k = 0; k < 400; k++) {
      struct node *n = rgc_alloc(t, node_t);
      RGC_SET(n, a, head);
      head = n;
    }
    rgc_array_set(lists, (size_t)i, head);
    rgc_root_release(t, m);
  }
  rgc_collect(rt, 2, RGC_COLLECT_FORCED | RGC_COLLECT_COMPACTING);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED | RGC_COLLECT_COMPACTING);
  int attempts = 0, inside = 0;
  while (attempts < 5 && !inside) {
    attempts++;
    rgc_collect(rt, 2, RGC_COLLECT_NON_BLOCKING);   /* returns after the first pause */
    rgc_collect(rt, 0, RGC_COLLECT_FORCED);          /* a foreground GC if the BGC still runs */
    inside = rgc_background_gc_in_progress(rt);
    for (int k = 0; k < 200 && rgc_background_gc_in_progress(rt); k++)
      rgc_alloc_array(t, bytes_t, 100000);           /* past the 3 MB LOH budget: waits */
    rgc_wait_background_gc(rt);
  }
  rgc_detach_thread(t);
  rgc_wait_background_gc(rt);      /* no allocation now: no GC can start after this */
  unsigned long long gcs = rgc_collection_count(rt, 0), gen2 = rgc_collection_count(rt, 2);
  rgc_destroy(rt);                 /* joins the GC threads: every callback has run */
  printf("pid=%d attempts=%d inside=%d gcs=%llu gen2=%llu bgcs=%lu\n", (int)getpid(), attempts, inside, gcs, gen2,
         (unsigned long)background_gcs);
  return inside ? 0 : 1;
}

static void *server_mutator(void *arg) {
  (void)arg;
  rgc_thread *t = rgc_attach_thread(rt);
  struct node *keep = NULL;
  rgc_root(t, (void **)&keep);
  for (int i = 0; i < 60000; i++) {
    struct node *n = rgc_alloc(t, node_t);
    if (i % 50 == 0) { RGC_SET(n, a, keep); keep = n; }
  }
  rgc_detach_thread(t);
  return NULL;
}

static int run_server(void) {
  struct rgc_config c;
  rgc_config_default(&c);
  c.server = 1;
  c.heap_count = 2;
  c.concurrent = 0;
  c.gen0_size = 256 * 1024;
  rt = make(&c);
  pthread_t th[2];
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, server_mutator, NULL);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  rgc_collect(rt, 1, RGC_COLLECT_FORCED);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  printf("pid=%d gcs=%llu\n", (int)getpid(), (unsigned long long)rgc_collection_count(rt, 0));
  rgc_destroy(rt);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "bgc")) return run_bgc();
  if (argc == 2 && !strcmp(argv[1], "server")) return run_server();
  fprintf(stderr, "usage: rgc-test-bgc-prog bgc|server\n");
  return 2;
}
