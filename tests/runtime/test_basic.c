/* test_basic — single-threaded librgc behaviour with exact, hand-computed
 * figures: weak handles, pinning, finalizers once, counts, memory info,
 * LOH placement, sweeping, configuration errors, rgc.h's inline fast paths,
 * which thread runs a GC. Runs with RGC_VERIFY_HEAP=1
 * (set by CTest). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rgc.h"
#include "check.h"

struct node { struct node *a, *b; uint64_t id, value; };  /* 32 B payload: 48 B objects */
static const uint32_t node_refs[] = {0, 8};
static const rgc_type *node_t, *refs_t, *bytes_t, *fin_t;
static _Atomic int fin_runs[2000];

static void fin(rgc_thread *t, void *o) { (void)t; atomic_fetch_add(&fin_runs[((uint64_t *)o)[0]], 1); }

static rgc_runtime *make(enum rgc_compact_mode mode) {
  struct rgc_config c;
  rgc_config_default(&c);
  c.gen0_size = 4u << 20;
  c.concurrent = 0;  /* blocking gen2 GCs: the figures below are exact */
  c.verify_heap = 1;
  c.compact_mode = mode;
  char err[200];
  rgc_runtime *rt = rgc_create(&c, err, sizeof err);
  if (!rt) { fprintf(stderr, "rgc_create: %s\n", err); exit(1); }
  node_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Node", .kind = RGC_KIND_OBJECT,
    .size = sizeof(struct node), .ref_offsets = node_refs, .nrefs = 2});
  refs_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Object[]", .kind = RGC_KIND_REF_ARRAY});
  bytes_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Byte[]", .kind = RGC_KIND_VALUE_ARRAY, .elem_size = 1});
  fin_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Fin", .kind = RGC_KIND_OBJECT, .size = 8, .finalizer = fin});
  CHECK(node_t && refs_t && bytes_t && fin_t);
  return rt;
}

static void test_sizes_and_promotion(void) {
  rgc_runtime *rt = make(RGC_COMPACT_ALWAYS);
  rgc_thread *t = rgc_attach_thread(rt);
  void *arr = rgc_alloc_array(t, refs_t, 1000);
  rgc_root(t, &arr);
  CHECK_EQ_U64(rgc_object_size(arr), 8032);        /* 16 header + 8 length + 8000, 16-aligned */
  for (int i = 0; i < 1000; i++) {
    struct node *n = rgc_alloc(t, node_t);
    CHECK_EQ_U64(rgc_object_size(n), 48);
    n->id = (uint64_t)i;
    rgc_array_set(arr, (size_t)i, n);
  }
  for (int i = 0; i < 5000; i++) rgc_alloc(t, node_t);  /* garbage */
  void *before = arr;
  CHECK_EQ_U64(rgc_collect(rt, 0, RGC_COLLECT_FORCED), 1);
  CHECK(arr != before);                        /* compacted: promoted into gen1 */
  CHECK_EQ_U64(rgc_generation_of(arr), 1);
  struct rgc_memory_info mi;
  CHECK_EQ_U64(rgc_get_memory_info(rt, RGC_GC_KIND_ANY, &mi), 0);
  CHECK_EQ_U64(mi.index, 1);
  CHECK_EQ_U64(mi.generation, 0);
  CHECK_EQ_U64(mi.compacted, 1);
  CHECK_EQ_U64(mi.promoted_bytes, 1000 * 48 + 8032);
  CHECK_EQ_U64(mi.generation_info[0].size_after, 0);
  CHECK_EQ_U64(mi.generation_info[1].size_after, 1000 * 48 + 8032);
  CHECK_EQ_U64(mi.generation_info[1].fragmentation_after, 0);
  /* gen0 before: 8032 + 6000 * 48 bytes of objects, plus the retired context tail */
  CHECK(mi.generation_info[0].size_before >= 8032 + 6000 * 48);
  CHECK_EQ_U64(mi.generation_info[0].size_before - mi.generation_info[0].fragmentation_before, 8032 + 6000 * 48);
  for (int i = 0; i < 1000; i++) {
    struct node *n = rgc_array_get(arr, (size_t)i);
    CHECK_EQ_U64(n->id, i);
    CHECK_EQ_U64(rgc_generation_of(n), 1);
  }
  CHECK_EQ_U64(rgc_get_memory_info(rt, RGC_GC_KIND_EPHEMERAL, &mi), 0);
  CHECK_EQ_U64(mi.index, 1);
  CHECK_EQ_U64(rgc_get_memory_info(rt, RGC_GC_KIND_FULL_BLOCKING, &mi), 0);
  CHECK_EQ_U64(mi.index, 0);
  /* counts: a gen1 GC counts for gen0 and gen1 */
  rgc_collect(rt, 1, RGC_COLLECT_FORCED);
  CHECK_EQ_U64(rgc_collection_count(rt, 0), 2);
  CHECK_EQ_U64(rgc_collection_count(rt, 1), 1);
  CHECK_EQ_U64(rgc_collection_count(rt, 2), 0);
  CHECK_EQ_U64(rgc_generation_of(arr), 2);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  CHECK_EQ_U64(rgc_collection_count(rt, 0), 3);
  CHECK_EQ_U64(rgc_collection_count(rt, 2), 1);
  CHECK_EQ_U64(rgc_get_memory_info(rt, RGC_GC_KIND_FULL_BLOCKING, &mi), 0);
  CHECK_EQ_U64(mi.index, 3);
  CHECK_EQ_U64(mi.generation, 2);
  CHECK_EQ_U64(mi.promoted_bytes, 1000 * 48 + 8032);
  CHECK_EQ_U64(mi.generation_info[2].size_after, 1000 * 48 + 8032);
  CHECK_EQ_U64(rgc_get_memory_info(rt, RGC_GC_KIND_EPHEMERAL, &mi), 0);
  CHECK_EQ_U64(mi.index, 2);
  /* old-to-young through the write barrier: a gen2 array slot to a new node */
  struct node *young = rgc_alloc(t, node_t);
  young->id = 4242;
  rgc_array_set(arr, 7, young);
  young = NULL;
  rgc_collect(rt, 0, RGC_COLLECT_FORCED);
  CHECK_EQ_U64(((struct node *)rgc_array_get(arr, 7))->id, 4242);
  CHECK_EQ_U64(rgc_generation_of(rgc_array_get(arr, 7)), 1);
  /* LOH */
  void *big = rgc_alloc_array(t, bytes_t, 100000);
  CHECK_EQ_U64(rgc_generation_of(big), 3);
  CHECK_EQ_U64(rgc_object_size(big), 100032);
  void *small = rgc_alloc_array(t, bytes_t, 84000);
  CHECK_EQ_U64(rgc_generation_of(small), 0);
  rgc_detach_thread(t);
  rgc_destroy(rt);
}

static void test_handles_and_pinning(void) {
  rgc_runtime *rt = make(RGC_COMPACT_ALWAYS);
  rgc_thread *t = rgc_attach_thread(rt);
  struct node *n1 = rgc_alloc(t, node_t), *n2 = rgc_alloc(t, node_t), *n3 = rgc_alloc(t, node_t);
  n1->id = 1; n2->id = 2; n3->id = 3;
  rgc_handle ws = rgc_handle_new(t, n1, RGC_HANDLE_WEAK_SHORT);
  rgc_handle wl = rgc_handle_new(t, n1, RGC_HANDLE_WEAK_LONG);
  rgc_handle st = rgc_handle_new(t, n2, RGC_HANDLE_STRONG);
  rgc_handle ws2 = rgc_handle_new(t, n2, RGC_HANDLE_WEAK_SHORT);
  rgc_handle pin = rgc_handle_new(t, n3, RGC_HANDLE_PINNED);
  void *pinned_at = n3;
  n1 = n2 = n3 = NULL;
  rgc_collect(rt, 0, RGC_COLLECT_FORCED);
  CHECK(rgc_handle_get(ws) == NULL);           /* target died */
  CHECK(rgc_handle_get(wl) == NULL);
  CHECK(rgc_handle_get(st) != NULL);
  CHECK_EQ_U64(((struct node *)rgc_handle_get(st))->id, 2);
  CHECK(rgc_handle_get(ws2) == rgc_handle_get(st));  /* moved together, still alive */
  CHECK(rgc_handle_get(pin) == pinned_at);     /* pinned: never moves */
  CHECK_EQ_U64(((struct node *)pinned_at)->id, 3);
  CHECK_EQ_U64(rgc_generation_of(pinned_at), 0);   /* demoted: stays in gen0 */
  struct rgc_memory_info mi;
  rgc_get_memory_info(rt, RGC_GC_KIND_ANY, &mi);
  CHECK_EQ_U64(mi.pinned_objects_count, 1);
  for (int i = 0; i < 3; i++) {
    rgc_collect(rt, 2, RGC_COLLECT_FORCED);
    CHECK(rgc_handle_get(pin) == pinned_at);
  }
  rgc_handle_free(t, pin);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  rgc_get_memory_info(rt, RGC_GC_KIND_ANY, &mi);
  CHECK_EQ_U64(mi.pinned_objects_count, 0);
  /* a strong handle dropped: the weak one clears at the next full GC */
  rgc_handle_free(t, st);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  CHECK(rgc_handle_get(ws2) == NULL);
  CHECK_EQ_U64(rgc_handle_kind_of(wl), RGC_HANDLE_WEAK_LONG);
  rgc_handle_free(t, ws); rgc_handle_free(t, wl); rgc_handle_free(t, ws2);
  /* POH objects never move either */
  void *p = rgc_alloc_pinned(t, bytes_t, 64);
  rgc_root(t, &p);
  void *p0 = p;
  CHECK_EQ_U64(rgc_generation_of(p), 4);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED | RGC_COLLECT_COMPACTING);
  CHECK(p == p0);
  rgc_detach_thread(t);
  rgc_destroy(rt);
}

static void test_finalizers(void) {
  rgc_runtime *rt = make(RGC_COMPACT_AUTO);
  rgc_thread *t = rgc_attach_thread(rt);
  memset(fin_runs, 0, sizeof fin_runs);
  void *keep = NULL;
  rgc_root(t, &keep);
  for (uint64_t i = 0; i < 1000; i++) {
    uint64_t *o = rgc_alloc(t, fin_t);
    o[0] = i;
    if (i % 10 == 3) rgc_suppress_finalize(o);
    if (i == 500) keep = o;
  }
  rgc_collect(rt, 0, RGC_COLLECT_FORCED);
  rgc_wait_for_pending_finalizers(rt);
  for (int i = 0; i < 1000; i++)
    CHECK_EQ_U64(fin_runs[i], (i % 10 == 3 || i == 500) ? 0 : 1);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  rgc_wait_for_pending_finalizers(rt);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  rgc_wait_for_pending_finalizers(rt);
  for (int i = 0; i < 1000; i++)                /* once, never twice */
    CHECK_EQ_U64(fin_runs[i], (i % 10 == 3 || i == 500) ? 0 : 1);
  CHECK_EQ_U64(((uint64_t *)keep)[0], 500);
  keep = NULL;
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  rgc_wait_for_pending_finalizers(rt);
  CHECK_EQ_U64(fin_runs[500], 1);
  rgc_detach_thread(t);
  rgc_destroy(rt);
}

static void test_sweep(void) {
  rgc_runtime *rt = make(RGC_COMPACT_NEVER);
  rgc_thread *t = rgc_attach_thread(rt);
  /* 64-byte objects and an 832-byte (13 x 64) array tile the 8 KB allocation
   * contexts exactly, so the heap layout is known to the byte */
  const rgc_type *n64 = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Node64",
    .kind = RGC_KIND_OBJECT, .size = 48, .ref_offsets = node_refs, .nrefs = 2});
  void *arr = rgc_alloc_array(t, refs_t, 100);
  rgc_root(t, &arr);
  void *at = arr;
  for (int i = 0; i < 100; i++) {
    struct node *n = rgc_alloc(t, n64);
    CHECK_EQ_U64(rgc_object_size(n), 64);
    n->id = (uint64_t)i;
    rgc_array_set(arr, (size_t)i, n);
    for (int k = 0; k < 10; k++) rgc_alloc(t, n64);  /* 640 B dead after each */
  }
  rgc_collect(rt, 0, RGC_COLLECT_FORCED);
  CHECK(arr == at);                             /* swept in place */
  CHECK_EQ_U64(rgc_generation_of(arr), 1);          /* the region was promoted */
  struct rgc_memory_info mi;
  rgc_get_memory_info(rt, RGC_GC_KIND_ANY, &mi);
  CHECK_EQ_U64(mi.compacted, 0);
  CHECK_EQ_U64(rgc_object_size(arr), 832);
  CHECK_EQ_U64(mi.promoted_bytes, 100 * 64 + 832);
  /* size after = live bytes + free gaps: the 99 interior gaps of 640 B each
   * (the dead tail after the last live node is given back) */
  CHECK_EQ_U64(mi.generation_info[1].size_after, 100 * 64 + 832 + 99 * 640);
  CHECK_EQ_U64(mi.generation_info[1].fragmentation_after, 99 * 640);
  /* gen0 before: whole 8 KB contexts handed out (71232 B used -> 9 contexts) */
  CHECK_EQ_U64(mi.generation_info[0].size_before, 9 * 8192);
  CHECK_EQ_U64(mi.generation_info[0].fragmentation_before, 9 * 8192 - (100 * 64 + 832 + 100 * 640));
  for (int i = 0; i < 100; i++) CHECK_EQ_U64(((struct node *)rgc_array_get(arr, (size_t)i))->id, i);
  rgc_detach_thread(t);
  rgc_destroy(rt);
}

static void test_config_errors(void) {
  char err[200];
  setenv("RGC_GCgen0size", "abc", 1);
  CHECK(rgc_create(NULL, err, sizeof err) == NULL);
  CHECK(strstr(err, "RGC_GCgen0size") != NULL);
  unsetenv("RGC_GCgen0size");
  setenv("RGC_GCHeapCount", "4", 1);   /* workstation GC has one heap */
  CHECK(rgc_create(NULL, err, sizeof err) == NULL);
  CHECK(strstr(err, "RGC_GCHeapCount=4") != NULL);
  setenv("RGC_gcServer", "1", 1);
  setenv("RGC_GCHeapCount", "65", 1);
  CHECK(rgc_create(NULL, err, sizeof err) == NULL);
  CHECK(strstr(err, "RGC_GCHeapCount=65") != NULL);
  unsetenv("RGC_gcServer");
  unsetenv("RGC_GCHeapCount");
  setenv("RGC_GCCompactMode", "sometimes", 1);
  CHECK(rgc_create(NULL, err, sizeof err) == NULL);
  CHECK(strstr(err, "RGC_GCCompactMode") != NULL);
  unsetenv("RGC_GCCompactMode");
  setenv("RGC_GCLOHThreshold", "0x10", 1);
  CHECK(rgc_create(NULL, err, sizeof err) == NULL);
  CHECK(strstr(err, "RGC_GCLOHThreshold") != NULL);
  unsetenv("RGC_GCLOHThreshold");
}

/* rgc.h's inline fast paths (rgc_alloc, rgc_root*) agree with the library
 * functions: consecutive 48-byte blocks from one context, type and size in
 * the header, zeroed payload; a finalizable type takes the library path and
 * is still registered; roots pushed past the inline capacity survive a GC. */
static void test_inline_paths(void) {
  rgc_runtime *rt = make(RGC_COMPACT_ALWAYS);
  rgc_thread *t = rgc_attach_thread(rt);
  struct node *a = rgc_alloc(t, node_t);           /* may refill the context */
  struct node *b = rgc_alloc(t, node_t);           /* inline */
  struct node *c = (rgc_alloc)(t, node_t);         /* the library function */
  struct node *d = rgc_alloc(t, node_t);
  CHECK_EQ_U64((uintptr_t)b - (uintptr_t)a, 48);
  CHECK_EQ_U64((uintptr_t)c - (uintptr_t)b, 48);
  CHECK_EQ_U64((uintptr_t)d - (uintptr_t)c, 48);
  CHECK(rgc_type_of(b) == node_t && rgc_type_of(c) == node_t && rgc_type_of(d) == node_t);
  CHECK_EQ_U64(rgc_object_size(b), 48);
  CHECK(b->a == NULL && b->b == NULL && b->id == 0 && b->value == 0);
  CHECK_EQ_U64(rgc_generation_of(b), 0);
  memset(fin_runs, 0, sizeof fin_runs);
  uint64_t *f = rgc_alloc(t, fin_t);                /* finalizable: library path */
  CHECK(f && rgc_type_of(f) == fin_t && rgc_object_size(f) == 32);
  *f = 7;
  f = NULL;
  /* 5000 roots (more than any initial capacity), each a live node */
  enum { NR = 5000 };
  struct node **locals = calloc(NR, sizeof *locals);
  CHECK(locals);
  size_t mark = rgc_root_mark(t);
  for (int i = 0; i < NR; i++) {
    locals[i] = rgc_alloc(t, node_t);
    rgc_root(t, (void **)&locals[i]);
    locals[i]->id = (uint64_t)i + 1;
  }
  CHECK_EQ_U64(rgc_root_mark(t), mark + NR);
  CHECK_EQ_U64(rgc_collect(rt, 2, RGC_COLLECT_FORCED), 1);
  rgc_wait_for_pending_finalizers(rt);
  CHECK_EQ_U64(atomic_load(&fin_runs[7]), 1);          /* it was registered */
  for (int i = 0; i < NR; i++) {
    CHECK_EQ_U64(rgc_generation_of(locals[i]), 1);     /* compacted into gen1: roots fixed */
    CHECK_EQ_U64(locals[i]->id, (uint64_t)i + 1);
  }
  rgc_root_release(t, mark);
  CHECK_EQ_U64(rgc_root_mark(t), mark);
  free(locals);
  rgc_detach_thread(t);
  rgc_destroy(rt);
}

/* Which thread runs a workstation GC: the attached thread that asks for it
 * (by allocating or by rgc_collect), as in CoreCLR; a request from a thread
 * that is not attached goes to the GC thread. Seen from the GC callback,
 * which runs on the thread that ran the GC. */
static pthread_t cb_thread;
static _Atomic int cb_calls;
static void on_gc_thread(void *ctx, const struct rgc_memory_info *gc) {
  (void)ctx; (void)gc;
  cb_thread = pthread_self();
  atomic_fetch_add(&cb_calls, 1);
}
static void *collect_unattached(void *arg) {
  rgc_collect(arg, 0, RGC_COLLECT_FORCED);
  return NULL;
}
static void test_gc_thread(void) {
  rgc_runtime *rt = make(RGC_COMPACT_AUTO);
  rgc_set_gc_callback(rt, on_gc_thread, NULL);
  rgc_thread *t = rgc_attach_thread(rt);
  atomic_store(&cb_calls, 0);
  /* the runtime's finalizer thread attaches, then waits in native: give it
   * the time to get there (in managed code it would send the GC to the GC
   * thread) */
  struct timespec settle = {0, 20 * 1000 * 1000};
  nanosleep(&settle, NULL);
  while (rgc_collection_count(rt, 0) == 0) rgc_alloc(t, node_t);  /* 4 MB budget */
  CHECK_EQ_INT(atomic_load(&cb_calls), 1);
  CHECK(pthread_equal(cb_thread, pthread_self()));
  CHECK_EQ_U64(rgc_collect(rt, 1, RGC_COLLECT_FORCED), 1);
  CHECK_EQ_INT(atomic_load(&cb_calls), 2);
  CHECK(pthread_equal(cb_thread, pthread_self()));
  pthread_t other;
  rgc_enter_native(t);  /* the GC must not wait for this thread */
  CHECK_EQ_INT(pthread_create(&other, NULL, collect_unattached, rt), 0);
  pthread_join(other, NULL);
  rgc_leave_native(t);
  CHECK_EQ_INT(atomic_load(&cb_calls), 3);
  CHECK(!pthread_equal(cb_thread, pthread_self()) && !pthread_equal(cb_thread, other));
  CHECK_EQ_U64(rgc_collection_count(rt, 0), 3);
  rgc_set_gc_callback(rt, NULL, NULL);
  rgc_detach_thread(t);
  rgc_destroy(rt);
}

int main(void) {
  test_inline_paths();
  test_sizes_and_promotion();
  test_handles_and_pinning();
  test_finalizers();
  test_sweep();
  test_config_errors();
  test_gc_thread();
  printf("test_basic: ok\n");
  return check_done();
}
