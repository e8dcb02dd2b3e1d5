/*
 * nt_pending.h — GC events waiting to be delivered in timestamp order.
 *
 * EventPipe writes events roughly in time order only: per thread buffers are
 * flushed in batches. The format guarantees that every event between two
 * sequence points has a timestamp between theirs, so the reader buffers the
 * GC events of one region, sorts them by (timestamp, stream order) and
 * delivers them at the next sequence point (or, in live mode, once they are
 * older than the newest timestamp by the live lag). The stream's bytes do not
 * outlive a feed, so payloads are copied into an arena the buffer owns.
 * Not thread-safe; owned by the reader.
 */
#ifndef NT_PENDING_H
#define NT_PENDING_H

#include <stddef.h>
#include <stdint.h>

struct nt_pending_ev {
  uint64_t ts;             /* raw QPC timestamp */
  uint64_t order;          /* position in the stream: the tie breaker */
  size_t off;              /* payload: arena + off */
  uint32_t len;
  int32_t tid, cpu;
  int16_t kind;            /* enum gcs_kind */
  uint8_t version;
  uint32_t stack;          /* StackBlock stack id, 0 for none */
};

struct nt_pending {
  struct nt_pending_ev *v;
  size_t n, cap, max;      /* max: hard limit on n */
  uint8_t *arena;
  size_t arena_len, arena_cap;
  size_t live_bytes;       /* payload bytes of the n events */
};

/* Append with a copy of payload; 0, or -1 when max is reached or memory runs out. */
int nt_pending_push(struct nt_pending *p, const struct nt_pending_ev *e, const uint8_t *payload);
static inline const uint8_t *nt_pending_payload(const struct nt_pending *p, const struct nt_pending_ev *e) {
  return p->arena + e->off;
}
/* Sort by (ts, order). */
void nt_pending_sort(struct nt_pending *p);
/* After a sort: how many leading events have ts <= limit. */
size_t nt_pending_prefix(const struct nt_pending *p, uint64_t limit);
/* Drop the first k events (keeps the order of the rest); the arena is
 * compacted when most of it is dead. 0, or -1 when out of memory. */
int nt_pending_drop(struct nt_pending *p, size_t k);
void nt_pending_free(struct nt_pending *p);

#endif /* NT_PENDING_H */
