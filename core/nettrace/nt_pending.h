/*
 * nt_pending.h — GC events waiting to be delivered in timestamp order.
 *
 * EventPipe writes events roughly in time order only: per thread buffers are
 * flushed in batches. The format guarantees that every event between two
 * sequence points has a timestamp between theirs, so the reader buffers the
 * GC events of one region (as references into the mapped file, not copies),
 * sorts them by (timestamp, file order) and delivers them at the next
 * sequence point. Not thread-safe; owned by the reader.
 */
#ifndef NT_PENDING_H
#define NT_PENDING_H

#include <stddef.h>
#include <stdint.h>

struct nt_pending_ev {
  uint64_t ts;             /* raw QPC timestamp */
  uint64_t order;          /* position in the file: the tie breaker */
  const uint8_t *payload;  /* into the mapped file */
  uint32_t len;
  int32_t tid, cpu;
  int16_t kind;            /* enum gcs_kind */
  uint8_t version;
};

struct nt_pending {
  struct nt_pending_ev *v;
  size_t n, cap, max;      /* max: hard limit on n */
};

/* Append; 0, or -1 when max is reached or memory runs out. */
int nt_pending_push(struct nt_pending *p, const struct nt_pending_ev *e);
/* Sort by (ts, order). */
void nt_pending_sort(struct nt_pending *p);
/* After a sort: how many leading events have ts <= limit. */
size_t nt_pending_prefix(const struct nt_pending *p, uint64_t limit);
/* Drop the first k events (keeps the order of the rest). */
void nt_pending_drop(struct nt_pending *p, size_t k);
void nt_pending_free(struct nt_pending *p);

#endif /* NT_PENDING_H */
