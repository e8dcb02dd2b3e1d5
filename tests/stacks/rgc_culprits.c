/* rgc_culprits — a librgc program with known culprits for tests/stacks
 * (rgc_stacks.py): two allocation sites of known byte shares and types (one
 * of them a static function), a caller of the induced-GC API a known number
 * of times, and a function that pins a known number of handles. Prints what
 * the views must show. Every site is noinline and does work after its calls,
 * so its frame is on every stack it makes; the two allocation sites differ in
 * their bodies, else GCC's identical-code folding (-fipa-icf, on at -O2)
 * makes them one function. */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "rgc.h"

#define NOINLINE __attribute__((noinline))

static volatile uintptr_t sink;

/* 3/4 of the bytes: 3 * 4096 arrays of 1 KB of type "Culprit.Static". */
static NOINLINE void static_alloc_site(rgc_thread *t, const rgc_type *ty, int n) {
  for (int i = 0; i < n; i++) sink ^= (uintptr_t)rgc_alloc_array(t, ty, 1024);
  sink += 3;
}

/* 1/4 of the bytes: 4096 arrays of 1 KB of type "Culprit.Public". */
NOINLINE void public_alloc_site(rgc_thread *t, const rgc_type *ty, int n) {
  for (int i = 0; i < n; i++) sink += (uintptr_t)rgc_alloc_array(t, ty, 1024);
  sink++;
}

NOINLINE int induce_site(rgc_runtime *rt, int n) {
  int ran = 0;
  for (int i = 0; i < n; i++) ran += rgc_collect(rt, 0, RGC_COLLECT_FORCED);
  sink++;
  return ran;
}

NOINLINE void pin_site(rgc_thread *t, const rgc_type *ty, rgc_handle *h, int n) {
  for (int i = 0; i < n; i++) h[i] = rgc_handle_new(t, rgc_alloc_array(t, ty, 16), RGC_HANDLE_PINNED);
  sink++;
}

int main(void) {
  struct rgc_config c;
  rgc_config_default(&c);
  c.concurrent = 0;
  char err[200];
  rgc_runtime *rt = rgc_create(&c, err, sizeof err);
  if (!rt) { fprintf(stderr, "rgc_culprits: %s\n", err); return 1; }
  const rgc_type *st = rgc_register_type(rt, &(struct rgc_type_desc){
    .name = "Culprit.Static", .kind = RGC_KIND_VALUE_ARRAY, .elem_size = 1});
  const rgc_type *pt = rgc_register_type(rt, &(struct rgc_type_desc){
    .name = "Culprit.Public", .kind = RGC_KIND_VALUE_ARRAY, .elem_size = 1});
  rgc_thread *t = rgc_attach_thread(rt);
  enum { ROUNDS = 8, PINS = 5, INDUCED = 3 };
  for (int r = 0; r < ROUNDS; r++) {
    static_alloc_site(t, st, 3 * 4096 / ROUNDS);
    public_alloc_site(t, pt, 4096 / ROUNDS);
  }
  int induced = induce_site(rt, INDUCED);
  rgc_handle h[PINS];
  pin_site(t, pt, h, PINS);
  printf("pid=%d induced=%d pins=%d\n", (int)getpid(), induced, PINS);
  for (int i = 0; i < PINS; i++) rgc_handle_free(t, h[i]);
  rgc_detach_thread(t);
  rgc_destroy(rt);
  return 0;
}
