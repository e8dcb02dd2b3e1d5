/*
 * nt_u64map.h — a small open-addressing hash map from uint64 keys to uint32
 * values (capture thread id -> last sequence number, metadata id -> index).
 * Grows by doubling; memory is proportional to the number of keys, which a
 * file can only raise by adding records. Not thread-safe; owned by its user.
 */
#ifndef NT_U64MAP_H
#define NT_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct nt_u64map {
  uint64_t *keys;
  uint32_t *vals;
  uint8_t *used;
  size_t cap;    /* power of two, 0 when empty */
  size_t count;
};

/* Pointer to the value of key, or NULL if absent. Valid until the next put. */
uint32_t *nt_u64map_get(const struct nt_u64map *m, uint64_t key);
/* Insert or overwrite. 0, or -1 when out of memory. */
int nt_u64map_put(struct nt_u64map *m, uint64_t key, uint32_t val);
void nt_u64map_free(struct nt_u64map *m);

#endif /* NT_U64MAP_H */
