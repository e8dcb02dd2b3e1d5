/* rgc_region.c — the virtual reservation, region slots, commit/release and
 * the card table. Regions are carved from one reservation so that the region
 * of an address and its card are found by arithmetic. */
#include <stdlib.h>
#include <sys/mman.h>

#include "rgc_internal.h"

int rgc_reserve(struct rgc_runtime *rt, char *err, size_t errlen) {
  /* 16 GB of address space (more with a large hard limit); nothing is
   * committed until a region is made. */
  size_t reserve = (size_t)16 << 30;
  if (rt->cfg.heap_hard_limit && rt->cfg.heap_hard_limit * 2 > reserve)
    reserve = (rt->cfg.heap_hard_limit * 2 + RGC_REGION_SIZE - 1) & ~(RGC_REGION_SIZE - 1);
  size_t extra = RGC_REGION_SIZE; /* for alignment */
  void *m = mmap(NULL, reserve + extra, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    if (err) snprintf(err, errlen, "cannot reserve %zu bytes of address space", reserve);
    return -1;
  }
  uintptr_t a = ((uintptr_t)m + RGC_REGION_SIZE - 1) & ~(uintptr_t)(RGC_REGION_SIZE - 1);
  /* give back the unaligned head and tail */
  if (a > (uintptr_t)m) munmap(m, a - (uintptr_t)m);
  uintptr_t tail = (uintptr_t)m + reserve + extra - (a + reserve);
  if (tail) munmap((void *)(a + reserve), tail);
  rt->base = (uint8_t *)a;
  rt->reserve = reserve;
  rt->nslots = reserve >> RGC_REGION_SHIFT;
  size_t ncards = reserve >> RGC_CARD_SHIFT;
  void *c = mmap(NULL, ncards, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (c == MAP_FAILED) {
    munmap(rt->base, reserve);
    if (err) snprintf(err, errlen, "cannot reserve the card table (%zu bytes)", ncards);
    return -1;
  }
  rt->cards = c;
  size_t nbricks = reserve >> RGC_BRICK_SHIFT;
  void *b = mmap(NULL, nbricks * sizeof *rt->bricks, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (b == MAP_FAILED) {
    munmap(rt->base, reserve);
    munmap(c, ncards);
    rt->base = NULL;
    rt->cards = NULL;
    if (err) snprintf(err, errlen, "cannot reserve the object-start table (%zu bytes)", nbricks * sizeof *rt->bricks);
    return -1;
  }
  rt->bricks = b;
  rt->slot_owner = malloc(rt->nslots * sizeof *rt->slot_owner);
  rt->slot_gen = malloc(rt->nslots * sizeof *rt->slot_gen);
  rt->regions = aligned_alloc(_Alignof(struct rgc_region), rt->nslots * sizeof *rt->regions);
  if (rt->regions) memset(rt->regions, 0, rt->nslots * sizeof *rt->regions);
  if (!rt->slot_owner || !rt->slot_gen || !rt->regions) {
    if (err) snprintf(err, errlen, "out of memory for region tables");
    return -1;
  }
  for (size_t i = 0; i < rt->nslots; i++) {
    atomic_init(&rt->slot_owner[i], -1);
    atomic_init(&rt->slot_gen[i], -1);
    rt->regions[i].gen = -1;
  }
  return 0;
}

void rgc_unreserve(struct rgc_runtime *rt) {
  if (rt->base) munmap(rt->base, rt->reserve);
  if (rt->cards) munmap((void *)rt->cards, rt->reserve >> RGC_CARD_SHIFT);
  if (rt->bricks) munmap(rt->bricks, (rt->reserve >> RGC_BRICK_SHIFT) * sizeof *rt->bricks);
  free(rt->slot_owner);
  free((void *)rt->slot_gen);
  free(rt->regions);
}

static enum gcs_segment_type segment_type(int gen) {
  return gen == RGC_LOH   ? GCS_SEGMENT_TYPE_LARGE_OBJECT_HEAP
         : gen == RGC_POH ? GCS_SEGMENT_TYPE_PINNED_OBJECT_HEAP
                          : GCS_SEGMENT_TYPE_SMALL_OBJECT_HEAP;
}

/* A new region of at least `bytes` for generation gen of heap h, appended to
 * the generation's list. NULL when the hard limit or the reservation is
 * exhausted. Memory is zero (fresh pages). */
struct rgc_region *rgc_region_new(struct rgc_runtime *rt, struct rgc_heap *h, int gen, size_t bytes) {
  size_t n = (bytes + RGC_REGION_SIZE - 1) >> RGC_REGION_SHIFT;
  if (!n) n = 1;
  pthread_mutex_lock(&rt->region_lock);
  if (rt->cfg.heap_hard_limit && rt->committed + n * RGC_REGION_SIZE > rt->cfg.heap_hard_limit) {
    pthread_mutex_unlock(&rt->region_lock);
    return NULL;
  }
  size_t run = 0, i, first;
  uint8_t *start;
  if (n == 1 && rt->cache_n) {
    /* a recently released region, still committed: no page faults */
    first = i = rt->region_cache[--rt->cache_n];
    start = rt->base + (first << RGC_REGION_SHIFT);
    goto take;
  }
  for (i = 0; i < rt->nslots; i++) {
    run = atomic_load_explicit(&rt->slot_owner[i], memory_order_relaxed) == -1 ? run + 1 : 0;
    if (run == n) break;
  }
  if (i == rt->nslots) {
    pthread_mutex_unlock(&rt->region_lock);
    return NULL;
  }
  first = i + 1 - n;
  start = rt->base + (first << RGC_REGION_SHIFT);
  if (mprotect(start, n * RGC_REGION_SIZE, PROT_READ | PROT_WRITE)) {
    pthread_mutex_unlock(&rt->region_lock);
    return NULL;
  }
take:;
  /* describe the region, then publish it in the slot map (release: pairs
   * with rgc_region_of's acquire load) */
  struct rgc_region *r = &rt->regions[first];
  memset(r, 0, sizeof *r);
  r->start = r->top = start;
  r->end = start + n * RGC_REGION_SIZE;
  r->nslots = (int)n;
  r->new_gen = gen;
  rgc_region_set_gen(rt, r, gen);
  r->heap = h->index;
  r->fresh = true;  /* see the note on fresh in rgc_internal.h */
  for (size_t k = first; k <= i; k++)
    atomic_store_explicit(&rt->slot_owner[k], (int32_t)first, memory_order_release);
  rt->committed += n * RGC_REGION_SIZE;
  pthread_mutex_unlock(&rt->region_lock);
  /* append: bump allocation prefers the newest region */
  struct rgc_region **pp = &h->gens[gen];
  while (*pp) pp = &(*pp)->next;
  *pp = r;
  rgc_ev_segment_create(start, n * RGC_REGION_SIZE, segment_type(gen));
  return r;
}

/* Make region r's bricks exact: one walk of its blocks. */
void rgc_bricks_build(struct rgc_runtime *rt, struct rgc_region *r) {
  RGC_FOR_EACH_OBJECT(r, h) rgc_bricks_set(rt, (const uint8_t *)h, h->size);
  atomic_store_explicit(&r->bricks_ok, true, memory_order_relaxed);
}

/* Return a region's memory (zeroed on next use) and its cards. The caller has
 * already unlinked it from its generation list. */
void rgc_region_release(struct rgc_runtime *rt, struct rgc_region *r) {
  uint8_t *start = r->start;
  size_t first = (size_t)(start - rt->base) >> RGC_REGION_SHIFT;
  size_t bytes = (size_t)(r->end - start);
  int nslots = r->nslots;
  rgc_ev_segment_free(start);
  memset((void *)&rt->cards[rgc_card_index(rt, start)], 0, bytes >> RGC_CARD_SHIFT);
  /* the descriptor is reset before the slots go back: once they are free,
   * another thread may claim them and write it (rgc_region_new) */
  rgc_region_set_gen(rt, r, -1);
  r->start = r->top = r->end = NULL;
  pthread_mutex_lock(&rt->region_lock);
  rt->committed -= bytes;
  if (nslots == 1 && rt->cache_n < RGC_REGION_CACHE) {
    /* keep it committed for reuse (slot marked -2: neither free nor owned);
     * its contents are stale, every user of a region overwrites or zeroes */
    atomic_store_explicit(&rt->slot_owner[first], -2, memory_order_relaxed);
    rt->region_cache[rt->cache_n++] = first;
    pthread_mutex_unlock(&rt->region_lock);
  } else {
    pthread_mutex_unlock(&rt->region_lock);
    madvise(start, bytes, MADV_DONTNEED);
    mprotect(start, bytes, PROT_NONE);
    pthread_mutex_lock(&rt->region_lock);
    for (size_t k = 0; k < (size_t)nslots; k++)
      atomic_store_explicit(&rt->slot_owner[first + k], -1, memory_order_relaxed);
    pthread_mutex_unlock(&rt->region_lock);
  }
}
