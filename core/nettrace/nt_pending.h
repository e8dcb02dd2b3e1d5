/*
 * nt_pending.h — GC events waiting to be delivered in timestamp order.
 *
 * EventPipe writes events roughly in time order only: per thread buffers are
 * flushed in batches. The format guarantees that every event between two
 * sequence points has a timestamp between theirs, so the reader buffers the
 * GC events of one region and delivers them by (timestamp, stream order) at
 * the next sequence point (or, in live mode, once they are older than the
 * newest timestamp by the live lag; or at an IsSorted event). The buffer is a
 * binary min-heap: a push and a pop cost O(log n) whatever the order of the
 * stream, and asking whether anything is due costs O(1), so a crafted stream
 * that asks for a partial delivery at every event costs no more than one
 * that does not. The stream's bytes do not outlive a feed, so payloads are
 * copied into an arena the buffer owns.
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
  struct nt_pending_ev *v; /* a min-heap on (ts, order) */
  size_t n, cap, max;      /* max: hard limit on n */
  uint8_t *arena;
  size_t arena_len, arena_cap;
  size_t live_bytes;       /* payload bytes of the n events */
  size_t max_bytes;        /* hard limit on live_bytes (0: none) */
};

/* What nt_pending_push returns. */
enum nt_push_rc {
  NT_PUSH_OK = 0,
  NT_PUSH_MAX_EVENTS = -1, /* n would pass max */
  NT_PUSH_MAX_BYTES = -2,  /* live_bytes would pass max_bytes */
  NT_PUSH_NO_MEMORY = -3   /* an allocation failed */
};

/* Append with a copy of payload. */
enum nt_push_rc nt_pending_push(struct nt_pending *p, const struct nt_pending_ev *e, const uint8_t *payload);
static inline const uint8_t *nt_pending_payload(const struct nt_pending *p, const struct nt_pending_ev *e) {
  /* Only empty payloads were pushed so far: no arena to point into (NULL + 0
   * is undefined behaviour), an empty one of its own. */
  static const uint8_t none[1];
  return p->arena ? p->arena + e->off : none;
}
/* The earliest event, or NULL when empty. */
static inline const struct nt_pending_ev *nt_pending_top(const struct nt_pending *p) {
  return p->n ? &p->v[0] : NULL;
}
/* Remove the earliest event into *out. Its payload stays valid (in the
 * arena) until nt_pending_settle. */
void nt_pending_pop(struct nt_pending *p, struct nt_pending_ev *out);
/* After a run of pops: reclaim the arena when most of it is dead (when that
 * allocation fails the dead bytes are simply kept). */
void nt_pending_settle(struct nt_pending *p);
void nt_pending_free(struct nt_pending *p);

#endif /* NT_PENDING_H */
