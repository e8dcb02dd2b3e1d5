/* test_mark_balance — server GC with 2 heaps marks everything reachable when
 * all the old-generation roots sit on one heap, and both heaps' GC threads
 * share that marking.
 *
 * The graph: one mutator thread (so every object is on heap 0) roots a
 * reference array A of N = 65,536 slots (512 KB: on the LOH, older than
 * every gen0 GC). Before each gen0 GC, every slot of A gets a new Pair whose
 * `next` is a new Leaf. A gen0 GC then finds exactly N Pairs and N Leaves,
 * all through A's dirty cards (root kind Older): N * (48 + 32) bytes. Pair
 * is {next, other, value} (24 bytes + the 16-byte header = 40, rounded to
 * 48: object sizes are multiples of 16), Leaf {tag, pad} (16 + 16 = 32). No
 * other root reaches a condemned object (A itself is not condemned).
 *
 * Checks, for each of ROUNDS gen0 GCs after a warm-up GC:
 *  - the sum over both heaps of the Older bytes (rgc_get_mark_bytes, the
 *    GCMarkWithType values) is N * 80 exactly, the other root kinds 0;
 *  - after the GC, every Pair still carries its value and its Leaf its tag
 *    (RGC_VERIFY_HEAP=1 also checks the whole heap after every GC);
 *  - balance: in at least 2 of the GCs, the heap that marked less marked
 *    at least 1/8 of that GC's bytes. A's card marking is split into 32 KB
 *    chunks (16 of them) that either GC thread takes. Before that split,
 *    A's region was one task, and the drain that followed each slot never
 *    held more than one object on its stack (a Pair, whose only child is a
 *    Leaf with no references), so none of it could be shared: in every GC
 *    one heap marked all of it and the other none (0 GCs pass). The bound
 *    leaves room for a GC thread that the machine's other load keeps off
 *    its CPU when a GC starts (it then marks nothing: a helper that joins
 *    after the others finished does nothing, and no GC waits for it): on
 *    this 2-core machine shared with other builds (load average 10), 3 to
 *    9 of the 16 GCs passed, most of them split near 1/2. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rgc.h"
#include "check.h"

#define N 65536
#define ROUNDS 16
#define PAIR_SIZE 48
#define LEAF_SIZE 32

struct pair { struct pair *next, *other; uint64_t value; };
struct leaf { uint64_t tag, pad; };
static const uint32_t pair_refs[] = {0, 8};

int main(void) {
  struct rgc_config c;
  rgc_config_default(&c);
  c.server = 1;
  c.heap_count = 2;
  c.concurrent = 0;
  c.verify_heap = 1;
  c.gen0_size = c.gen0_max_budget = (size_t)64 << 20;  /* only induced GCs */
  char err[200];
  rgc_runtime *rt = rgc_create(&c, err, sizeof err);
  if (!rt) { CHECK_FAIL("rgc_create: %s", err); return check_done(); }
  const rgc_type *pair_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Pair",
    .kind = RGC_KIND_OBJECT, .size = sizeof(struct pair), .ref_offsets = pair_refs, .nrefs = 2});
  const rgc_type *leaf_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Leaf",
    .kind = RGC_KIND_OBJECT, .size = sizeof(struct leaf)});
  const rgc_type *refs_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Object[]",
    .kind = RGC_KIND_REF_ARRAY});
  rgc_thread *t = rgc_attach_thread(rt);
  void *a = rgc_alloc_array(t, refs_t, N);
  rgc_root(t, &a);
  CHECK_EQ_INT(rgc_generation_of(a), 3);  /* on the LOH */

  uint64_t heap_total[2] = {0, 0};
  int balanced = 0;  /* GCs whose smaller heap marked at least 1/8 */
  for (int round = 0; round <= ROUNDS; round++) {
    for (uint64_t i = 0; i < N; i++) {
      struct pair *p = rgc_alloc(t, pair_t);
      size_t m = rgc_root_mark(t);
      rgc_root(t, (void **)&p);
      struct leaf *l = rgc_alloc(t, leaf_t);
      l->tag = ~((uint64_t)round * N + i);
      RGC_SET(p, next, (struct pair *)(void *)l);
      p->value = (uint64_t)round * N + i;
      rgc_array_set(a, i, p);
      rgc_root_release(t, m);
      if (round == 0 && i == 0) {
        CHECK_EQ_U64(rgc_object_size(p), PAIR_SIZE);
        CHECK_EQ_U64(rgc_object_size(l), LEAF_SIZE);
      }
    }
    uint64_t before = rgc_collection_count(rt, 0);
    rgc_collect(rt, 0, RGC_COLLECT_FORCED);
    CHECK_EQ_U64(rgc_collection_count(rt, 0), before + 1);
    uint64_t mb[2][4], older = 0;
    for (int h = 0; h < 2; h++) {
      CHECK_EQ_INT(rgc_get_mark_bytes(rt, h, mb[h]), (long long)rgc_collection_count(rt, 0));
      CHECK_EQ_U64(mb[h][0] + mb[h][1] + mb[h][2], 0);
      older += mb[h][3];
    }
    uint64_t none[4];
    CHECK_EQ_INT(rgc_get_mark_bytes(rt, 2, none), -1);
    if (older != (uint64_t)N * (PAIR_SIZE + LEAF_SIZE)) {
      CHECK_FAIL("round %d: the heaps marked %llu + %llu bytes from older roots, the graph has %llu\n", round,
              (unsigned long long)mb[0][3], (unsigned long long)mb[1][3],
              (unsigned long long)N * (PAIR_SIZE + LEAF_SIZE));
      break;
    }
    for (uint64_t i = 0; i < N; i++) {
      struct pair *p = rgc_array_get(a, i);
      const struct leaf *l = (const struct leaf *)(void *)p->next;
      if (p->value != (uint64_t)round * N + i || l->tag != ~((uint64_t)round * N + i)) {
        CHECK_FAIL("round %d: slot %llu lost its pair or leaf", round, (unsigned long long)i);
        break;
      }
    }
    if (round == 0) continue;  /* warm-up: A's region has no bricks yet, so it is one task */
    if ((mb[0][3] < mb[1][3] ? mb[0][3] : mb[1][3]) * 8 >= older) balanced++;
    heap_total[0] += mb[0][3];
    heap_total[1] += mb[1][3];
    printf("round %2d: heap 0 marked %7llu, heap 1 %7llu bytes from older roots\n", round,
           (unsigned long long)mb[0][3], (unsigned long long)mb[1][3]);
  }
  uint64_t all = heap_total[0] + heap_total[1];
  uint64_t less = heap_total[0] < heap_total[1] ? heap_total[0] : heap_total[1];
  printf("over %d GCs: heap 0 %llu, heap 1 %llu bytes (the smaller share %.3f); %d GCs with the smaller "
         "heap's share at least 1/8 (%d needed)\n", ROUNDS, (unsigned long long)heap_total[0],
         (unsigned long long)heap_total[1], (double)less / (double)all, balanced, 2);
  CHECK_EQ_U64(all, (uint64_t)ROUNDS * N * (PAIR_SIZE + LEAF_SIZE));
  CHECK(balanced >= 2);
  rgc_detach_thread(t);
  rgc_destroy(rt);
  return check_done();
}
