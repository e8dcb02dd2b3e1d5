/* test_bgc — background GC, latency modes, high memory load and GC handle
 * stress, single mutator thread, exact hand-computed figures where the
 * layout is deterministic. Runs with RGC_VERIFY_HEAP=1 (set by CTest). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rgc.h"
#include "check.h"

struct node { struct node *a, *b; uint64_t id, value; };  /* 48 B objects */
static const uint32_t node_refs[] = {0, 8};
static const rgc_type *node_t, *refs_t, *bytes_t, *fin_t;
static _Atomic int fin_runs;

static void fin(rgc_thread *t, void *o) { (void)t; (void)o; atomic_fetch_add(&fin_runs, 1); }

static rgc_runtime *make(struct rgc_config *c) {
  char err[200];
  rgc_runtime *rt = rgc_create(c, err, sizeof err);
  if (!rt) { fprintf(stderr, "rgc_create: %s\n", err); exit(1); }
  node_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Node", .kind = RGC_KIND_OBJECT,
    .size = sizeof(struct node), .ref_offsets = node_refs, .nrefs = 2});
  refs_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Object[]", .kind = RGC_KIND_REF_ARRAY});
  bytes_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Byte[]", .kind = RGC_KIND_VALUE_ARRAY, .elem_size = 1});
  fin_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Fin", .kind = RGC_KIND_OBJECT, .size = 8, .finalizer = fin});
  CHECK(node_t && refs_t && bytes_t && fin_t);
  return rt;
}

static void wait_bgc(rgc_runtime *rt) { rgc_wait_background_gc(rt); }

/* One BGC over a known gen2: exact sizes, two pauses, weak handles,
 * finalization of an old object, no compaction, kinds of memory info. */
static void test_bgc_memory_info(void) {
  struct rgc_config c;
  rgc_config_default(&c);
  c.gen0_size = 4u << 20;
  c.verify_heap = 1;
  CHECK_EQ_U64(c.concurrent, 1);                  /* background GC is the default */
  rgc_runtime *rt = make(&c);
  CHECK_EQ_U64(rgc_get_latency_mode(rt), RGC_LATENCY_INTERACTIVE);
  rgc_thread *t = rgc_attach_thread(rt);
  void *arr = rgc_alloc_array(t, refs_t, 1000);   /* 8032 B */
  void *f = NULL;
  rgc_root(t, &arr);
  rgc_root(t, &f);
  for (int i = 0; i < 1000; i++) {
    struct node *n = rgc_alloc(t, node_t);
    n->id = (uint64_t)i;
    rgc_array_set(arr, (size_t)i, n);
  }
  f = rgc_alloc(t, fin_t);                         /* 32 B, finalizable */
  for (int i = 0; i < 5000; i++) rgc_alloc(t, node_t);
  /* two blocking compacting gen2 GCs: gen0 -> gen1 -> gen2, in address order */
  CHECK_EQ_U64(rgc_collect(rt, 2, RGC_COLLECT_FORCED | RGC_COLLECT_COMPACTING), 1);
  CHECK_EQ_U64(rgc_collect(rt, 2, RGC_COLLECT_FORCED | RGC_COLLECT_COMPACTING), 1);
  CHECK_EQ_U64(rgc_generation_of(arr), 2);
  CHECK_EQ_U64(rgc_generation_of(f), 2);
  rgc_handle w_dead = rgc_handle_new(t, rgc_array_get(arr, 1), RGC_HANDLE_WEAK_SHORT);
  rgc_handle w_live = rgc_handle_new(t, rgc_array_get(arr, 0), RGC_HANDLE_WEAK_LONG);
  /* drop the odd nodes (n1..n999) and the finalizable object */
  for (int i = 1; i < 1000; i += 2) rgc_array_set(arr, (size_t)i, NULL);
  f = NULL;
  struct rgc_memory_info mi;
  CHECK_EQ_U64(rgc_get_memory_info(rt, RGC_GC_KIND_BACKGROUND, &mi), 0);
  CHECK_EQ_U64(mi.index, 0);                         /* none yet */

  CHECK_EQ_U64(rgc_collect(rt, 2, RGC_COLLECT_NON_BLOCKING), 1);
  wait_bgc(rt);
  CHECK_EQ_U64(rgc_get_memory_info(rt, RGC_GC_KIND_BACKGROUND, &mi), 0);
  CHECK_EQ_U64(mi.index, 3);
  CHECK_EQ_U64(mi.generation, 2);
  CHECK_EQ_U64(mi.concurrent, 1);
  CHECK_EQ_U64(mi.compacted, 0);
  CHECK(mi.pause_durations_ns[0] > 0);
  CHECK(mi.pause_durations_ns[1] > 0);
  /* gen2 before: arr, n0..n999, fin object (32 B), no fragmentation */
  CHECK_EQ_U64(mi.generation_info[2].size_before, 8032 + 1000 * 48 + 32);
  CHECK_EQ_U64(mi.generation_info[2].fragmentation_before, 0);
  /* survivors: arr and the 500 even nodes; the finalizable object was dead
   * (it is resurrected for its finalizer, so it survives this BGC too) */
  CHECK_EQ_U64(mi.promoted_bytes, 8032 + 500 * 48 + 32);
  /* after: n1, n3, ..., n999 are single 48 B holes between live objects
   * (free objects, too small for the free list); the resurrected fin
   * object ends the region, so no dead tail is trimmed */
  CHECK_EQ_U64(mi.generation_info[2].size_after, 8032 + 1000 * 48 + 32);
  CHECK_EQ_U64(mi.generation_info[2].fragmentation_after, 500 * 48);
  CHECK(rgc_handle_get(w_dead) == NULL);
  CHECK(rgc_handle_get(w_live) == rgc_array_get(arr, 0));
  for (int i = 0; i < 1000; i += 2) CHECK_EQ_U64(((struct node *)rgc_array_get(arr, (size_t)i))->id, i);
  rgc_wait_for_pending_finalizers(rt);
  CHECK_EQ_U64(atomic_load(&fin_runs), 1);
  CHECK_EQ_U64(rgc_collection_count(rt, 2), 3);
  CHECK_EQ_U64(rgc_collection_count(rt, 0), 3);
  CHECK_EQ_U64(rgc_get_memory_info(rt, RGC_GC_KIND_FULL_BLOCKING, &mi), 0);
  CHECK_EQ_U64(mi.index, 2);
  CHECK_EQ_U64(mi.concurrent, 0);
  CHECK_EQ_U64(rgc_get_memory_info(rt, RGC_GC_KIND_ANY, &mi), 0);
  CHECK_EQ_U64(mi.index, 3);

  /* a blocking gen2 GC afterwards compacts the holes away */
  CHECK_EQ_U64(rgc_collect(rt, 2, RGC_COLLECT_FORCED | RGC_COLLECT_COMPACTING), 1);
  CHECK_EQ_U64(rgc_get_memory_info(rt, RGC_GC_KIND_ANY, &mi), 0);
  CHECK_EQ_U64(mi.index, 4);
  CHECK_EQ_U64(mi.concurrent, 0);
  CHECK_EQ_U64(mi.generation_info[2].size_after, 8032 + 500 * 48);
  CHECK_EQ_U64(mi.generation_info[2].fragmentation_after, 0);
  rgc_handle_free(t, w_dead);
  rgc_handle_free(t, w_live);
  rgc_detach_thread(t);
  rgc_destroy(rt);
}

/* Latency modes: Batch makes gen2 GCs blocking; LowLatency keeps an
 * allocation-triggered gen2 GC (LOH budget) at gen1; Interactive and
 * SustainedLowLatency need background GC. */
static void test_latency_modes(void) {
  struct rgc_config c;
  rgc_config_default(&c);
  c.gen0_size = 4u << 20;
  c.verify_heap = 1;
  rgc_runtime *rt = make(&c);
  rgc_thread *t = rgc_attach_thread(rt);
  CHECK_EQ_U64(rgc_set_latency_mode(rt, (enum rgc_latency_mode)7), -1);
  CHECK_EQ_U64(rgc_set_latency_mode(rt, RGC_LATENCY_BATCH), 0);
  CHECK_EQ_U64(rgc_collect(rt, 2, RGC_COLLECT_NON_BLOCKING), 1);
  CHECK_EQ_U64(rgc_background_gc_in_progress(rt), 0);
  struct rgc_memory_info mi;
  rgc_get_memory_info(rt, RGC_GC_KIND_FULL_BLOCKING, &mi);
  CHECK_EQ_U64(mi.index, 1);
  rgc_get_memory_info(rt, RGC_GC_KIND_BACKGROUND, &mi);
  CHECK_EQ_U64(mi.index, 0);

  CHECK_EQ_U64(rgc_set_latency_mode(rt, RGC_LATENCY_LOW_LATENCY), 0);
  CHECK_EQ_U64(rgc_get_latency_mode(rt), RGC_LATENCY_LOW_LATENCY);
  uint64_t gen2 = rgc_collection_count(rt, 2), gen1 = rgc_collection_count(rt, 1);
  /* 40 x 100 KB on the LOH: the 3 MB LOH budget runs out -> AllocLarge GCs */
  for (int i = 0; i < 40; i++) CHECK(rgc_alloc_array(t, bytes_t, 100000));
  CHECK(rgc_collection_count(rt, 1) > gen1);
  CHECK_EQ_U64(rgc_collection_count(rt, 2), gen2);
  /* an induced gen2 GC still happens */
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  CHECK_EQ_U64(rgc_collection_count(rt, 2), gen2 + 1);

  CHECK_EQ_U64(rgc_set_latency_mode(rt, RGC_LATENCY_SUSTAINED_LOW_LATENCY), 0);
  for (int i = 0; i < 40; i++) CHECK(rgc_alloc_array(t, bytes_t, 100000));
  wait_bgc(rt);
  rgc_get_memory_info(rt, RGC_GC_KIND_BACKGROUND, &mi);
  CHECK(mi.index > 0);                        /* the AllocLarge gen2 ran in the background */
  rgc_detach_thread(t);
  rgc_destroy(rt);

  c.concurrent = 0;
  rt = make(&c);
  CHECK_EQ_U64(rgc_get_latency_mode(rt), RGC_LATENCY_BATCH);
  CHECK_EQ_U64(rgc_set_latency_mode(rt, RGC_LATENCY_SUSTAINED_LOW_LATENCY), -1);
  CHECK_EQ_U64(rgc_set_latency_mode(rt, RGC_LATENCY_INTERACTIVE), -1);
  CHECK_EQ_U64(rgc_get_latency_mode(rt), RGC_LATENCY_BATCH);
  rgc_destroy(rt);
}

/* Memory load against the hard limit above RGC_GCHighMemPercent: an
 * allocation-triggered GC becomes a full blocking compacting gen2 GC even
 * with background GC on. */
static void test_high_memory_load(void) {
  struct rgc_config c;
  rgc_config_default(&c);
  c.gen0_size = 256 * 1024;
  c.heap_hard_limit = 64u << 20;
  c.high_mem_percent = 20;       /* 12.8 MB committed is "high" */
  c.verify_heap = 1;
  rgc_runtime *rt = make(&c);
  rgc_thread *t = rgc_attach_thread(rt);
  void *keep = rgc_alloc_array(t, refs_t, 16);
  rgc_root(t, &keep);
  for (int i = 0; i < 16; i++) rgc_array_set(keep, (size_t)i, rgc_alloc_array(t, bytes_t, 1000000));
  /* 16 MB of live LOH arrays -> load >= 25 % (LOH budget GCs ran meanwhile) */
  wait_bgc(rt);
  struct rgc_memory_info mi;
  rgc_get_memory_info(rt, RGC_GC_KIND_ANY, &mi);
  uint64_t last = mi.index;
  uint64_t gcs = rgc_collection_count(rt, 0);
  while (rgc_collection_count(rt, 0) == gcs) rgc_alloc(t, node_t);   /* gen0 budget runs out */
  rgc_get_memory_info(rt, RGC_GC_KIND_FULL_BLOCKING, &mi);
  CHECK_EQ_U64(mi.index, last + 1);                /* that GC: full and blocking */
  CHECK_EQ_U64(mi.generation, 2);
  CHECK_EQ_U64(mi.concurrent, 0);
  CHECK_EQ_U64(mi.compacted, 1);
  CHECK(mi.memory_load_bytes >= mi.high_memory_load_threshold_bytes);
  rgc_detach_thread(t);
  rgc_destroy(rt);
}

/* Millions of handles: every strong handle keeps its own object through
 * ephemeral, blocking and background GCs; weak ones clear when their target
 * dies and only then. */
static void test_handle_stress(void) {
  enum { N = 1000000 };
  struct rgc_config c;
  rgc_config_default(&c);
  c.verify_heap = 0;   /* a full verification per GC would dominate the run */
  rgc_runtime *rt = make(&c);
  rgc_thread *t = rgc_attach_thread(rt);
  rgc_handle *strong = malloc(N * sizeof *strong), *weak = malloc(N * sizeof *weak);
  CHECK(strong && weak);
  for (int i = 0; i < N; i++) {
    struct node *n = rgc_alloc(t, node_t);
    n->id = (uint64_t)i;
    n->value = (uint64_t)i * 7;
    strong[i] = rgc_handle_new(t, n, RGC_HANDLE_STRONG);
    weak[i] = rgc_handle_new(t, n, (i & 1) ? RGC_HANDLE_WEAK_LONG : RGC_HANDLE_WEAK_SHORT);
    CHECK(strong[i] && weak[i]);
  }
  rgc_collect(rt, 0, RGC_COLLECT_FORCED);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED | RGC_COLLECT_COMPACTING);
  /* free every third strong handle: those objects die */
  for (int i = 0; i < N; i += 3) { rgc_handle_free(t, strong[i]); strong[i] = NULL; }
  rgc_collect(rt, 2, RGC_COLLECT_NON_BLOCKING);
  for (int k = 0; k < 20000; k++) rgc_alloc(t, node_t);   /* foreground GCs maybe */
  wait_bgc(rt);
  rgc_collect(rt, 1, RGC_COLLECT_FORCED);
  for (int i = 0; i < N; i++) {
    struct node *w = rgc_handle_get(weak[i]);
    if (strong[i]) {
      struct node *s = rgc_handle_get(strong[i]);
      CHECK(s && s == w);
      CHECK_EQ_U64(s->id, i);
      CHECK_EQ_U64(s->value, (uint64_t)i * 7);
    } else {
      CHECK(w == NULL);
    }
  }
  for (int i = 0; i < N; i++) {
    if (strong[i]) rgc_handle_free(t, strong[i]);
    rgc_handle_free(t, weak[i]);
  }
  free(strong);
  free(weak);
  rgc_detach_thread(t);
  rgc_destroy(rt);
}

int main(void) {
  test_bgc_memory_info();
  test_latency_modes();
  test_high_memory_load();
  test_handle_stress();
  printf("test_bgc: ok\n");
  return check_done();
}
