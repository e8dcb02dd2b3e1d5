/* lttng_prog — the small librgc program test_lttng.py traces: some
 * allocation-triggered GCs, a pinned object during an induced gen0 GC, an
 * induced gen1 and gen2 GC. Prints what the trace must show. */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "rgc.h"

struct node { struct node *a, *b; uint64_t v; };
static const uint32_t refs[] = {0, 8};

int main(void) {
  struct rgc_config c;
  rgc_config_default(&c);
  c.gen0_size = 256 * 1024;
  c.concurrent = 0;  /* every GC blocking: test_lttng checks the blocking sequence */
  char err[200];
  rgc_runtime *rt = rgc_create(&c, err, sizeof err);
  if (!rt) { fprintf(stderr, "lttng_prog: %s\n", err); return 1; }
  const rgc_type *node_t = rgc_register_type(rt, &(struct rgc_type_desc){
    .name = "Test.Node", .kind = RGC_KIND_OBJECT, .size = sizeof(struct node), .ref_offsets = refs, .nrefs = 2});
  rgc_thread *t = rgc_attach_thread(rt);
  struct node *keep = NULL;
  rgc_root(t, (void **)&keep);
  for (int i = 0; i < 40000; i++) {      /* ~1.4 MB: a few gen0 budgets */
    struct node *n = rgc_alloc(t, node_t);
    if (i % 100 == 0) { RGC_SET(n, a, keep); keep = n; }
  }
  struct node *p = rgc_alloc(t, node_t);
  rgc_handle pin = rgc_handle_new(t, p, RGC_HANDLE_PINNED);
  rgc_collect(rt, 0, RGC_COLLECT_FORCED);
  rgc_collect(rt, 1, RGC_COLLECT_FORCED);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED | RGC_COLLECT_COMPACTING);
  printf("pid=%d gcs=%llu gen1=%llu gen2=%llu pinned=%llu\n", (int)getpid(),
         (unsigned long long)rgc_collection_count(rt, 0), (unsigned long long)rgc_collection_count(rt, 1),
         (unsigned long long)rgc_collection_count(rt, 2), (unsigned long long)(uintptr_t)p);
  rgc_handle_free(t, pin);
  rgc_detach_thread(t);
  rgc_destroy(rt);
  return 0;
}
