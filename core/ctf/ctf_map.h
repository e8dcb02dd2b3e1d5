/*
 * ctf_map.h — private to core/ctf: where the members of an LTTng event's
 * payload go in struct gcs_event, shared by the two readers (libbabeltrace2's
 * field classes in gcs_ctf_reader.c, our own metadata in ctf_native_*.c).
 *
 * A reader describes the payload's members (name as babeltrace2 shows it,
 * leading underscore removed, and what kind of field it is); ctf_map_build
 * looks each one up in the schema once per event class and returns the list
 * of stores to do per event, in payload order. Per event the reader fetches
 * each op's member its own way and calls ctf_store_int / gcs_field_set_*,
 * between ctf_map_begin and ctf_map_end.
 */
#ifndef CTF_MAP_H
#define CTF_MAP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_events.h"

/* What a payload member is. */
enum ctf_mk {
  CM_OTHER,    /* anything else: never stored */
  CM_UINT, CM_SINT,
  CM_STR,      /* a string (or a text array, which babeltrace2 shows as a string) */
  CM_ARRAY     /* a static array or sequence; elem_uint: of unsigned integers */
};
struct ctf_mdesc { const char *name; enum ctf_mk k; int elem_uint, elem_int; };

/* One stored payload member: how it is read and where it goes. */
enum ctf_op {
  OP_U8, OP_U16, OP_U32, OP_U64,   /* unsigned integer member, stored in 1/2/4/8 bytes */
  OP_S8, OP_S16, OP_S32, OP_S64,   /* signed integer member */
  OP_INT,                          /* integer member, other schema type (gcs_field_set_int) */
  OP_STR, OP_ARRAY, OP_GUID
};
struct pl_op {
  uint32_t idx;                    /* member index in the payload structure */
  uint8_t op;                      /* enum ctf_op */
  uint32_t offset;                 /* in ev->u */
  const struct gcs_field_desc *desc;
};

struct ctf_map {
  int kind;            /* -1: not a schema event */
  int version, origin;
  int data_idx;        /* packed CoreCLR event: index of `__data__`, else -1 */
  int stack_idx;       /* GCS_STACK_FIELD (a sequence of unsigned integers), -1 */
  int nops;            /* the members stored, in payload order */
  struct pl_op *ops;
  int nmissing_str;    /* schema string fields absent from the payload: set to "" */
  const struct gcs_field_desc **missing_str;
  int missing_array;   /* a schema array of this version is absent: the event is
                        * short of its data (ev->truncated), as a cut ETW payload */
  /* lttng_ust_statedump:bin_info members, else -1 */
  int bin_baddr, bin_memsz, bin_path, bin_pic;
};

/* Fill m for the event class `name` with payload members mem[0..n). Returns
 * 0, -1 when memory runs out (m is then empty; ctf_map_free is still fine). */
int ctf_map_build(struct ctf_map *m, const char *name, const struct ctf_mdesc *mem, int n);
void ctf_map_free(struct ctf_map *m);

/* Per event: set kind/version/origin, clear ev->u ... */
static inline void ctf_map_begin(struct gcs_event *ev, const struct ctf_map *m) {
  ev->kind = (enum gcs_kind)m->kind;
  ev->version = (uint8_t)m->version;
  ev->origin = (uint8_t)m->origin;
  ev->truncated = 0;
  memset(&ev->u, 0, gcs_event_descs[m->kind].struct_size);
}
/* ... store an integer member (ops OP_U8..OP_INT) ... */
static inline void ctf_store_int(struct gcs_event *ev, const struct pl_op *o, uint64_t v) {
  char *u = (char *)&ev->u + o->offset;
  switch ((enum ctf_op)o->op) {
  case OP_U8: case OP_S8: { uint8_t x = (uint8_t)v; memcpy(u, &x, 1); break; }
  case OP_U16: case OP_S16: { uint16_t x = (uint16_t)v; memcpy(u, &x, 2); break; }
  case OP_U32: case OP_S32: { uint32_t x = (uint32_t)v; memcpy(u, &x, 4); break; }
  case OP_U64: case OP_S64: memcpy(u, &v, 8); break;
  default: gcs_field_set_int(ev, o->desc, v); break;
  }
}
/* ... and the schema's strings and arrays the payload lacks. */
static inline void ctf_map_end(struct gcs_event *ev, const struct ctf_map *m) {
  for (int i = 0; i < m->nmissing_str; i++) gcs_field_set_str(ev, m->missing_str[i], "");
  if (m->missing_array) ev->truncated = 1;
}

/* A discarded-events record whose count the trace does not give: a
 * stream's first packet already counts discarded events (babeltrace2's
 * "Tracer may have discarded events"; seen when --tracefile-count deleted a
 * rotated stream's oldest files). Both readers report it as this count: at
 * least one event is missing. */
#define CTF_LOST_UNKNOWN 1

/* Discarded events, both readers. A stream's count is the difference
 * between two packets' cumulative counters modulo 2^64 (babeltrace2's
 * discarded-events message); a counter that went down (seen on a lossy
 * per-uid lttng-ust 2.13 session, by 3,847) gives a "count" above 2^63,
 * which is no number of events. The stream's loss is its counter's highest
 * value: a drop is owed (*deficit) and paid back by the next rises, so
 * nothing is counted twice and no loss is invented. Returns the count to
 * report, 0 for none. */
static inline uint64_t ctf_lost_settle(uint64_t *deficit, uint64_t count) {
  if (count > (UINT64_C(1) << 63)) {          /* the counter went down by -count */
    *deficit += (uint64_t)0 - count;
    return 0;
  }
  if (count <= *deficit) { *deficit -= count; return 0; }
  count -= *deficit;
  *deficit = 0;
  return count;
}

/* Per-stream deficits for a reader that gets discarded-events counts from
 * libbabeltrace2 messages (keyed by the bt_stream). */
struct ctf_owed { struct { const void *key; uint64_t deficit; } *v; size_t n, cap; };

/* The deficit of stream key, NULL when memory runs out. */
static inline uint64_t *ctf_owed_of(struct ctf_owed *o, const void *key) {
  for (size_t i = 0; i < o->n; i++)
    if (o->v[i].key == key) return &o->v[i].deficit;
  if (o->n == o->cap) {
    size_t cap = o->cap ? 2 * o->cap : 16;
    void *p = realloc(o->v, cap * sizeof *o->v);
    if (!p) return NULL;
    o->v = p;
    o->cap = cap;
  }
  o->v[o->n].key = key;
  o->v[o->n].deficit = 0;
  return &o->v[o->n++].deficit;
}

/* What all streams still owe: subtracted from a total of reported counts,
 * it gives the sum of each stream's counter change, first packet to last. */
static inline uint64_t ctf_owed_total(const struct ctf_owed *o) {
  uint64_t t = 0;
  for (size_t i = 0; i < o->n; i++) t += o->v[i].deficit;
  return t;
}

#endif /* CTF_MAP_H */
