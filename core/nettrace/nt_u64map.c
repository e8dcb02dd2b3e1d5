/* nt_u64map.c — open addressing with linear probing; see nt_u64map.h. */
#include "nt_u64map.h"

#include <stdlib.h>

static size_t nt_hash(uint64_t k, size_t cap) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return (size_t)k & (cap - 1);
}

uint32_t *nt_u64map_get(const struct nt_u64map *m, uint64_t key) {
  if (m->cap == 0) return NULL;
  for (size_t i = nt_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (!m->used[i]) return NULL;
    if (m->keys[i] == key) return &m->vals[i];
  }
}

static int nt_u64map_grow(struct nt_u64map *m) {
  size_t ncap = m->cap ? m->cap * 2 : 64;
  struct nt_u64map n = { calloc(ncap, sizeof(uint64_t)), calloc(ncap, sizeof(uint32_t)),
                         calloc(ncap, 1), ncap, 0 };
  if (!n.keys || !n.vals || !n.used) { nt_u64map_free(&n); return -1; }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->used[i]) continue;
    size_t j = nt_hash(m->keys[i], ncap);
    while (n.used[j]) j = (j + 1) & (ncap - 1);
    n.used[j] = 1; n.keys[j] = m->keys[i]; n.vals[j] = m->vals[i]; n.count++;
  }
  nt_u64map_free(m);
  *m = n;
  return 0;
}

int nt_u64map_put(struct nt_u64map *m, uint64_t key, uint32_t val) {
  uint32_t *v = nt_u64map_get(m, key);
  if (v) { *v = val; return 0; }
  /* Keep the load factor under 1/2 so probes stay short. */
  if ((m->count + 1) * 2 > m->cap && nt_u64map_grow(m) != 0) return -1;
  size_t i = nt_hash(key, m->cap);
  while (m->used[i]) i = (i + 1) & (m->cap - 1);
  m->used[i] = 1; m->keys[i] = key; m->vals[i] = val; m->count++;
  return 0;
}

void nt_u64map_free(struct nt_u64map *m) {
  free(m->keys); free(m->vals); free(m->used);
  m->keys = NULL; m->vals = NULL; m->used = NULL; m->cap = 0; m->count = 0;
}
