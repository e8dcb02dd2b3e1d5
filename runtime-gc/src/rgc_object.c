/* rgc_object.c — object sizes, accessors, the write barrier and the free
 * lists (size-bucketed, per heap and generation). */
#include "rgc_internal.h"

#define RGC_MAX_OBJECT ((size_t)1 << 30)

size_t rgc_size_for(const struct rgc_type *ty, size_t length) {
  size_t payload;
  switch (ty->kind) {
  case RGC_KIND_OBJECT: payload = ty->size; break;
  case RGC_KIND_VALUE_ARRAY:
    if (ty->elem_size && length > RGC_MAX_OBJECT / ty->elem_size) return 0;
    payload = 8 + length * ty->elem_size;
    break;
  case RGC_KIND_REF_ARRAY:
    if (length > RGC_MAX_OBJECT / 8) return 0;
    payload = 8 + length * 8;
    break;
  default: return 0;
  }
  size_t s = (RGC_HDR + payload + RGC_GRAIN - 1) & ~(size_t)(RGC_GRAIN - 1);
  return s > RGC_MAX_OBJECT ? 0 : s;
}

const rgc_type *rgc_type_of(const void *obj) { return (const rgc_type *)hdr_of(obj)->tw; }
const char *rgc_type_name(const rgc_type *ty) { return ty->name; }
size_t rgc_object_size(const void *obj) { return hdr_of(obj)->size; }
size_t rgc_array_length(const void *arr) { return (size_t)*(const uint64_t *)arr; }
void *rgc_array_data(void *arr) { return (uint8_t *)arr + 8; }

/* The write barrier: while a background GC marks, log the overwritten
 * reference of an old object (snapshot-at-the-beginning, rgc_bgc.c); store
 * (atomically: the BGC thread may be reading the slot); then dirty the
 * slot's card unless the holder is in gen0 (nothing is younger).
 * Fast path: a holder inside the thread's own allocation context is in gen0
 * (a GC retires every context before it promotes anything), found without
 * the runtime's region tables. */
static __attribute__((noinline)) void write_barrier_slow(struct rgc_thread *t, void *obj,
                                                        void **slot, void *val) {
  if (!t) { __atomic_store_n(slot, val, __ATOMIC_RELAXED); return; }
  struct rgc_runtime *rt = t->rt;
  int g = rgc_gen_at(rt, obj);
  if (g >= GCS_GEN2 && atomic_load_explicit(&rt->bgc_phase, memory_order_relaxed) == RGC_BGC_MARKING) {
    /* acquire: pairs with the release store of whoever wrote the old value,
     * whose region the shading check then reads */
    void *old = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (old && rgc_bgc_needs_shade(rt, old)) rgc_satb_log(rt, old);
  }
  /* release: the BGC thread (acquire load) then sees the target's region */
  __atomic_store_n(slot, val, __ATOMIC_RELEASE);
  if (val && g > GCS_GEN0) rgc_card_set(rt, slot);
}

static inline void write_barrier(void *obj, void **slot, void *val) {
  struct rgc_thread *t = rgc_tls_thread;
  if (t && (uintptr_t)obj - (uintptr_t)t->ctx_start < (uintptr_t)t->alloc_ptr - (uintptr_t)t->ctx_start) {
    __atomic_store_n(slot, val, __ATOMIC_RELEASE);
    return;
  }
  write_barrier_slow(t, obj, slot, val);
}

void rgc_write_ref(void *obj, void **slot, void *val) { write_barrier(obj, slot, val); }

void rgc_array_set(void *arr, size_t i, void *val) {
  write_barrier(arr, &((void **)((uint8_t *)arr + 8))[i], val);
}
void *rgc_array_get(const void *arr, size_t i) {
  return __atomic_load_n(&((void *const *)((const uint8_t *)arr + 8))[i], __ATOMIC_RELAXED);
}

static int bucket_of(size_t size) {
  int b = 0;
  size_t s = size / RGC_FREE_LIST_MIN;
  while (s > 1 && b < RGC_NBUCKETS - 1) s >>= 1, b++;
  return b;
}

void rgc_make_free(struct rgc_runtime *rt, struct rgc_heap *h, struct rgc_region *r,
                   uint8_t *p, size_t size, bool list) {
  struct rgc_hdr *f = (struct rgc_hdr *)p;
  rgc_bricks_note(rt, r, p, size);
  f->size = (uint32_t)size;
  hset(f, OF_FREE);
  f->tw = 0;
  if (list && size >= RGC_FREE_LIST_MIN) {
    int b = bucket_of(size);
    f->tw = (uintptr_t)h->free_lists[r->gen][b];
    h->free_lists[r->gen][b] = f;
    r->fl_bytes += size;
  } else {
    r->fo_bytes += size;
  }
}

void rgc_free_lists_drop_region_gen(struct rgc_heap *h, int gen) {
  for (int b = 0; b < RGC_NBUCKETS; b++) h->free_lists[gen][b] = NULL;
}

/* Remove and return a free-list item of at least `size` bytes of generation
 * gen (first fit in the size's bucket, then any larger bucket). The item's
 * bytes leave the region's free-list count; the caller carves it. */
struct rgc_hdr *rgc_free_list_take(struct rgc_runtime *rt, struct rgc_heap *h, int gen, size_t size) {
  for (int b = bucket_of(size); b < RGC_NBUCKETS; b++) {
    struct rgc_hdr **pp = &h->free_lists[gen][b];
    for (struct rgc_hdr *f = *pp; f; pp = (struct rgc_hdr **)&f->tw, f = *pp) {
      if (f->size >= size) {
        *pp = (struct rgc_hdr *)f->tw;
        f->tw = 0;
        struct rgc_region *r = rgc_region_of(rt, f);
        r->fl_bytes -= f->size;
        return f;
      }
    }
  }
  return NULL;
}
