/*
 * evblock.h — the compact store of decoded events: blocks of consecutive
 * events of one trace, each event packed field by field (varints, strings
 * with their NUL), the block deflated. One row of event_blocks
 * (tables_raw.def) per block; gcs_unpack (gcs_db_functions) turns a block
 * back into one row per event with every field (internal to gcs_import).
 *
 * Packed event: kind, flags (version | origin << 8 | truncated << 9 |
 * has-stack << 10), the time as the difference from the previous event's
 * (the block's first: from 0; zigzag), pid, tid, cpu (zigzag), stacks.id
 * when has-stack, then every field of the kind in
 * gc_events.def order, whatever the version: integers as varints (signed
 * ones zigzag), a string as its length + 1 (0: none) then its bytes and a
 * NUL, a GUID as 16 bytes, an array as min(count, its capacity) varints.
 * After the fields, a GCAllocationTick carries types.id + 1 of its type name
 * (0: none). The block's data is the raw length (varint) then the zlib
 * stream of the packed events.
 *
 * Delta-coded ticks (flag bit 11, EVB_F_TICK_DELTA; written since issue 27,
 * read alongside the plain form): a GCAllocationTick whose flags have it
 * stores, instead of the plain value,
 *   - TypeID and Address: zigzag(value - the same field of the previous tick
 *     of its thread in the block), the thread's slot being tid mod
 *     EVB_TICK_SLOTS (a slot holding another thread, or none yet, counts
 *     as 0);
 *   - AllocationAmount64: zigzag(AllocationAmount64 - AllocationAmount);
 *   - TypeName: 0 none, 1 a string in the plain form follows (added to the
 *     block's name table while it has fewer than EVB_TICK_NAMES entries), or
 *     k >= 2 the table's entry k - 2.
 * Every other field as above. Nothing is lost: every field reads back the
 * same.
 *
 * Threading: plain data, one user at a time. Errors: -1 (corrupt input, out
 * of memory), never a crash on any bytes.
 */
#ifndef EVBLOCK_H
#define EVBLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_events.h"
#include "gcs_tables.h"

/* A block is written when its packed events reach this size or count. */
#define EVB_RAW_BYTES (64 * 1024)
#define EVB_MAX_EVENTS 4096
/* GCAllocationTick blocks are twice as large: 64 KB of ticks deflate to
 * about 10 KB, a row that takes a 16 KB page of its own (a third of the
 * page unused); 128 KB deflate to about 20 KB, past SQLite's largest local
 * row (16,349 bytes), so the row spills into whole overflow pages and its
 * remainder shares a leaf page: event_blocks 31.8 -> 23.1 MB on the 10 s
 * alloc-heavy recording. The other events' blocks deflate to 13-20 KB
 * already, and `gcscope events`, when it sorts them by time (a trace not
 * stored in time order), reads them faster at this size. (Measured with
 * 16 KB pages and plain ticks; since issue 27 the pages are 8 KB and a
 * delta-coded tick packs to about 25 bytes, so 128 KB hold about 5,000
 * ticks and deflate to 25-30 KB.) */
#define EVB_TICK_RAW_BYTES (128 * 1024)
#define EVB_TICK_MAX_EVENTS 8192
/* Events of one block are numbered seq = 0..; events.id = block id *
 * GCS_EVENT_ID_SPAN + seq (tables_raw.def). */
_Static_assert(EVB_MAX_EVENTS <= GCS_EVENT_ID_SPAN, "a block's events fit its id span");
_Static_assert(EVB_TICK_MAX_EVENTS <= GCS_EVENT_ID_SPAN, "a block's events fit its id span");

#define EVB_F_TICK_DELTA (1u << 11)
#define EVB_TICK_SLOTS 16
#define EVB_TICK_NAMES 64

/* What a delta-coded tick is relative to (one per block, writer and reader). */
struct evb_tick_state {
  struct { int32_t tid; int used; uint64_t type_id, address; } slot[EVB_TICK_SLOTS];
  int nnames;
  int64_t name_key[EVB_TICK_NAMES];      /* writer: the types.id of each entry */
  const char *name[EVB_TICK_NAMES];      /* reader: each entry, inside the raw block */
};

struct evb_buf {
  struct evb_tick_state ts;  /* delta-coded ticks */
  uint8_t *p;
  size_t len, cap;
  uint64_t prev_ts;
  int n;                 /* events in the block */
  uint64_t first_ts, last_ts;  /* earliest and latest event time */
  void *zs;              /* the z_stream evb_deflate reuses (NULL until then) */
  uint8_t *out;          /* evb_deflate's output */
  size_t outcap;
};

/* Append ev (type_id: types.id of a GCAllocationTick's type, -1 none;
 * stack_id: stacks.id of its call stack, -1 none). -1: out of memory. */
int evb_pack(struct evb_buf *b, const struct gcs_event *ev, int64_t type_id, int64_t stack_id);
/* The block's data (raw length + deflated events) in *out, which stays
 * the buffer's until its next evb_deflate or evb_free. -1 on failure. */
int evb_deflate(struct evb_buf *b, const uint8_t **out, size_t *outlen);
/* Empty the block for the next events (keeps the memory). */
void evb_reset(struct evb_buf *b);
void evb_free(struct evb_buf *b);

/* Reading: inflate a block's data into a malloc'ed buffer (*raw, *rawlen). */
int evb_inflate(const uint8_t *data, size_t len, uint8_t **raw, size_t *rawlen);
/* The state carried from one event of a block to the next while reading
 * (evb_read_start at the block start). */
struct evb_read_state {
  uint64_t prev_ts;
  struct evb_tick_state tick;
};
void evb_read_start(struct evb_read_state *st);
/* Unpack the event at raw[*pos] into ev (strings point into raw), advancing
 * *pos; st carries the time and the ticks' references between calls.
 * *type_id: the tick's types.id, -1 none; *stack_id: stacks.id, -1 none.
 * -1 if the bytes are not a packed event. */
int evb_unpack(const uint8_t *raw, size_t rawlen, size_t *pos, struct evb_read_state *st, struct gcs_event *ev,
               int64_t *type_id, int64_t *stack_id);

#endif /* EVBLOCK_H */
