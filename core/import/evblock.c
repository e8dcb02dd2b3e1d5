/* evblock.c — packed event blocks (evblock.h) and the gcs_unpack table-valued
 * function every gcscope connection has (gcs_db_functions, gcs_db.h). */
#include "evblock.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "gcs_db.h"
#include "gcs_text.h"

/* zlib level: 2 packs the events 3-5 % smaller than 1 in the same time
 * (both deflate_fast; 6 is 10-15 % smaller at three times the time). */
#define EVB_ZLEVEL 2
/* Largest raw block a reader accepts (a writer never comes near it). */
#define EVB_RAW_MAX (64u * 1024 * 1024)

/* ---- writing --------------------------------------------------------------- */

static int grow(struct evb_buf *b, size_t more) {
  if (b->len + more <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 16384;
  while (cap < b->len + more) cap *= 2;
  uint8_t *p = realloc(b->p, cap);
  if (!p) return -1;
  b->p = p;
  b->cap = cap;
  return 0;
}

/* The writers go through a local cursor o, not b->p[b->len++]: a store
 * through a uint8_t pointer may alias b, so that form reloads and stores
 * b->p and b->len at every byte (evb_pack was 12 % of the writing thread's
 * instructions on the alloc-heavy trace). */
static uint8_t *put_varint(uint8_t *o, uint64_t v) {
  while (v >= 0x80) { *o++ = (uint8_t)(v | 0x80); v >>= 7; }
  *o++ = (uint8_t)v;
  return o;
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Room for the fixed part and the numbers of one event: at most 10 bytes a
 * varint, 20 a field and 10 an element of each array at its capacity. */
static size_t max_packed(const struct gcs_event_desc *d) {
  return 64 + (size_t)d->nfields * 20 + (size_t)d->array_elems * 10;
}

static int is_signed(enum gcs_type t) { return t == GCS_T_I32 || t == GCS_T_BOOL; }

/* gcs_field_get_int's value, read here so that the switch inlines. */
static uint64_t load_int(const char *p, enum gcs_type t) {
  switch (t) {
  case GCS_T_U8: { uint8_t x; memcpy(&x, p, 1); return x; }
  case GCS_T_U16: { uint16_t x; memcpy(&x, p, 2); return x; }
  case GCS_T_U32: case GCS_T_F32: { uint32_t x; memcpy(&x, p, 4); return x; } /* F32: its bits */
  case GCS_T_I32: case GCS_T_BOOL: { int32_t x; memcpy(&x, p, 4); return (uint64_t)zigzag(x); }
  case GCS_T_U64: case GCS_T_PTR: { uint64_t x; memcpy(&x, p, 8); return x; }
  default: return 0;
  }
}

/* The thread's slot of a delta-coded tick (evblock.h): its previous TypeID
 * and Address, 0 when the slot held another thread or none. */
static int tick_slot(struct evb_tick_state *st, int32_t tid, uint64_t *type_id, uint64_t *address) {
  int k = (int)((uint32_t)tid % EVB_TICK_SLOTS);
  if (st->slot[k].used && st->slot[k].tid == tid) {
    *type_id = st->slot[k].type_id;
    *address = st->slot[k].address;
  } else {
    *type_id = *address = 0;
  }
  return k;
}

static void tick_slot_set(struct evb_tick_state *st, int k, int32_t tid, uint64_t type_id, uint64_t address) {
  st->slot[k].used = 1;
  st->slot[k].tid = tid;
  st->slot[k].type_id = type_id;
  st->slot[k].address = address;
}

/* The fields of a GCAllocationTick, delta-coded (evblock.h). The fixed
 * fields fit the room evb_pack reserved; the type name grows the buffer. */
static uint8_t *pack_tick(struct evb_buf *b, uint8_t *o, const struct gcs_event *ev, int64_t type_id) {
  const struct gcs_event_desc *d = &gcs_event_descs[gcs_kind_GCAllocationTick];
  const struct gcs_ev_GCAllocationTick *t = &ev->u.GCAllocationTick;
  const char *u = (const char *)&ev->u;
  uint64_t ptype, paddr;
  int k = tick_slot(&b->ts, ev->tid, &ptype, &paddr);
  for (int i = 0; i < d->nfields; i++) {
    const struct gcs_field_desc *f = &d->fields[i];
    if (f->is_array) {  /* (none today: as in the plain form) */
      uint64_t n = gcs_field_get_int(ev, &d->fields[f->count_field]);
      if (n > f->capacity) n = f->capacity;
      for (unsigned e = 0; e < n; e++) o = put_varint(o, gcs_field_get_array_int(ev, f, e));
    } else if (f->type == GCS_T_GUID) {
      memcpy(o, u + f->offset, 16);
      o += 16;
    } else if (f->offset == offsetof(struct gcs_ev_GCAllocationTick, TypeID)) {
      o = put_varint(o, zigzag((int64_t)(t->TypeID - ptype)));
    } else if (f->offset == offsetof(struct gcs_ev_GCAllocationTick, Address)) {
      o = put_varint(o, zigzag((int64_t)(t->Address - paddr)));
    } else if (f->offset == offsetof(struct gcs_ev_GCAllocationTick, AllocationAmount64)) {
      o = put_varint(o, zigzag((int64_t)(t->AllocationAmount64 - t->AllocationAmount)));
    } else if (f->type == GCS_T_STR) {
      const char *s = gcs_field_get_str(ev, f);
      int is_name = f->offset == offsetof(struct gcs_ev_GCAllocationTick, TypeName);
      int hit = -1;
      if (s && is_name && type_id >= 0)
        for (int j = b->ts.nnames - 1; j >= 0; j--)
          if (b->ts.name_key[j] == type_id) { hit = j; break; }
      if (!s) { o = put_varint(o, 0); continue; }
      if (hit >= 0) { o = put_varint(o, (uint64_t)hit + 2); continue; }
      size_t n = strlen(s);
      b->len = (size_t)(o - b->p);
      if (grow(b, n + 22 + max_packed(d)) != 0) return NULL;
      o = put_varint(b->p + b->len, 1);
      o = put_varint(o, n + 1);
      memcpy(o, s, n + 1);
      o += n + 1;
      /* A name without a types.id is never referred to, but takes its
       * entry as the reader's table does. */
      if (b->ts.nnames < EVB_TICK_NAMES) b->ts.name_key[b->ts.nnames++] = is_name ? type_id : -1;
    } else {
      o = put_varint(o, load_int(u + f->offset, f->type));
    }
  }
  tick_slot_set(&b->ts, k, ev->tid, t->TypeID, t->Address);
  return o;
}

int evb_pack(struct evb_buf *b, const struct gcs_event *ev, int64_t type_id, int64_t stack_id) {
  if ((int)ev->kind < 0 || ev->kind >= GCS_KIND_COUNT) return -1;
  const struct gcs_event_desc *d = &gcs_event_descs[ev->kind];
  size_t room = max_packed(d);
  if (grow(b, room) != 0) return -1;
  if (b->n == 0) {
    b->first_ts = b->last_ts = ev->ts_ns;
    b->prev_ts = 0;
    b->ts.nnames = 0;
    for (int i = 0; i < EVB_TICK_SLOTS; i++) b->ts.slot[i].used = 0;
  }
  if (ev->ts_ns < b->first_ts) b->first_ts = ev->ts_ns;
  if (ev->ts_ns > b->last_ts) b->last_ts = ev->ts_ns;
  uint8_t *o = b->p + b->len;
  o = put_varint(o, (uint64_t)ev->kind);
  int tick = ev->kind == gcs_kind_GCAllocationTick;
  o = put_varint(o, (uint64_t)ev->version | (uint64_t)(ev->origin & 1) << 8 | (uint64_t)(ev->truncated & 1) << 9 |
                       (uint64_t)(stack_id > 0) << 10 | (tick ? EVB_F_TICK_DELTA : 0));
  o = put_varint(o, zigzag((int64_t)(ev->ts_ns - b->prev_ts)));
  b->prev_ts = ev->ts_ns;
  o = put_varint(o, zigzag(ev->pid));
  o = put_varint(o, zigzag(ev->tid));
  o = put_varint(o, zigzag(ev->cpu));
  if (stack_id > 0) o = put_varint(o, (uint64_t)stack_id);
  const char *u = (const char *)&ev->u;
  if (tick) {
    o = pack_tick(b, o, ev, type_id);
    if (!o) return -1;
  } else {
  for (int i = 0; i < d->nfields; i++) {
    const struct gcs_field_desc *f = &d->fields[i];
    if (f->is_array) {
      uint64_t n = gcs_field_get_int(ev, &d->fields[f->count_field]);
      if (n > f->capacity) n = f->capacity;
      for (unsigned e = 0; e < n; e++) o = put_varint(o, gcs_field_get_array_int(ev, f, e));
    } else if (f->type == GCS_T_STR) {
      const char *s = gcs_field_get_str(ev, f);
      size_t n = s ? strlen(s) : 0;
      b->len = (size_t)(o - b->p);
      /* The string, then room again for the fields after it. */
      if (grow(b, n + 11 + room) != 0) return -1;
      o = put_varint(b->p + b->len, s ? n + 1 : 0);
      if (s) { memcpy(o, s, n + 1); o += n + 1; }
    } else if (f->type == GCS_T_GUID) {
      memcpy(o, u + f->offset, 16);
      o += 16;
    } else {
      o = put_varint(o, load_int(u + f->offset, f->type));
    }
  }
  }
  if (ev->kind == gcs_kind_GCAllocationTick) o = put_varint(o, type_id >= 0 ? (uint64_t)type_id + 1 : 0);
  b->len = (size_t)(o - b->p);
  b->n++;
  return 0;
}

/* One deflate stream per buffer, reset for each block: compress2 set up
 * (and glibc then returned to the kernel) about 270 KB of zlib state per
 * block, whose pages faulted in again every time. The output is the same. */
int evb_deflate(struct evb_buf *b, const uint8_t **out, size_t *outlen) {
  z_stream *z = b->zs;
  if (!z) {
    if (!(z = calloc(1, sizeof *z))) return -1;
    if (deflateInit(z, EVB_ZLEVEL) != Z_OK) { free(z); return -1; }
    b->zs = z;
  } else if (deflateReset(z) != Z_OK) {
    return -1;
  }
  size_t need = deflateBound(z, (uLong)b->len) + 10;
  if (need > b->outcap) {
    uint8_t *o = realloc(b->out, need);
    if (!o) return -1;
    b->out = o;
    b->outcap = need;
  }
  uint8_t *o = b->out;
  size_t h = 0;
  for (uint64_t v = b->len; ; v >>= 7) {
    o[h++] = (uint8_t)(v >= 0x80 ? (v | 0x80) : v);
    if (v < 0x80) break;
  }
  z->next_in = b->p;
  z->avail_in = (uInt)b->len;
  z->next_out = o + h;
  z->avail_out = (uInt)(b->outcap - h);
  if (deflate(z, Z_FINISH) != Z_STREAM_END) return -1;
  *out = o;
  *outlen = h + z->total_out;
  return 0;
}

void evb_reset(struct evb_buf *b) { b->len = 0; b->n = 0; b->prev_ts = 0; b->first_ts = b->last_ts = 0; }

void evb_free(struct evb_buf *b) {
  if (b->zs) { deflateEnd(b->zs); free(b->zs); }
  free(b->out);
  free(b->p);
  memset(b, 0, sizeof *b);
}

/* ---- reading --------------------------------------------------------------- */

static int get_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= len) return -1;
    uint8_t c = p[(*pos)++];
    r |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) { *v = r; return 0; }
  }
  return -1;
}

int evb_inflate(const uint8_t *data, size_t len, uint8_t **raw, size_t *rawlen) {
  size_t pos = 0;
  uint64_t n;
  *raw = NULL;
  *rawlen = 0;
  if (!data || get_varint(data, len, &pos, &n) != 0 || n > EVB_RAW_MAX) return -1;
  uint8_t *r = malloc(n ? n : 1);
  if (!r) return -1;
  uLongf got = (uLongf)n;
  if (uncompress(r, &got, data + pos, (uLong)(len - pos)) != Z_OK || got != n) { free(r); return -1; }
  *raw = r;
  *rawlen = n;
  return 0;
}

void evb_read_start(struct evb_read_state *st) {
  st->prev_ts = 0;
  st->tick.nnames = 0;
  for (int i = 0; i < EVB_TICK_SLOTS; i++) st->tick.slot[i].used = 0;
}

/* A string in the plain form (length + 1, 0: none; the bytes and a NUL). */
static int get_str(const uint8_t *raw, size_t rawlen, size_t *pos, const char **out) {
  uint64_t v;
  if (get_varint(raw, rawlen, pos, &v) != 0 || v > rawlen - *pos) return -1;
  if (v == 0) { *out = NULL; return 0; }
  const char *s = (const char *)raw + *pos;
  if (s[v - 1] != '\0' || memchr(s, '\0', v - 1)) return -1;
  *out = s;
  *pos += v;
  return 0;
}

int evb_unpack(const uint8_t *raw, size_t rawlen, size_t *pos, struct evb_read_state *st, struct gcs_event *ev,
               int64_t *type_id, int64_t *stack_id) {
  uint64_t kind, flags, v;
  if (get_varint(raw, rawlen, pos, &kind) != 0 || kind >= GCS_KIND_COUNT) return -1;
  if (get_varint(raw, rawlen, pos, &flags) != 0 || flags >= (1u << 12)) return -1;
  int delta = (flags & EVB_F_TICK_DELTA) != 0;
  if (delta && kind != gcs_kind_GCAllocationTick) return -1;
  const struct gcs_event_desc *d = &gcs_event_descs[kind];
  memset(ev, 0, offsetof(struct gcs_event, u) + d->struct_size);
  ev->kind = (enum gcs_kind)kind;
  ev->version = (uint8_t)flags;
  ev->origin = (uint8_t)((flags >> 8) & 1);
  ev->truncated = (uint8_t)((flags >> 9) & 1);
  if (get_varint(raw, rawlen, pos, &v) != 0) return -1;
  ev->ts_ns = st->prev_ts + (uint64_t)unzigzag(v);
  st->prev_ts = ev->ts_ns;
  int32_t *ids[3] = { &ev->pid, &ev->tid, &ev->cpu };
  for (int i = 0; i < 3; i++) {
    if (get_varint(raw, rawlen, pos, &v) != 0) return -1;
    *ids[i] = (int32_t)unzigzag(v);
  }
  *stack_id = -1;
  if (flags & (1u << 10)) {
    if (get_varint(raw, rawlen, pos, &v) != 0 || v == 0 || v > INT64_MAX) return -1;
    *stack_id = (int64_t)v;
  }
  uint64_t ptype = 0, paddr = 0;
  int slot = delta ? tick_slot(&st->tick, ev->tid, &ptype, &paddr) : 0;
  struct gcs_ev_GCAllocationTick *t = &ev->u.GCAllocationTick;
  uint64_t a64_delta = 0;
  for (int i = 0; i < d->nfields; i++) {
    const struct gcs_field_desc *f = &d->fields[i];
    if (f->is_array) {
      uint64_t n = gcs_field_get_int(ev, &d->fields[f->count_field]);
      if (n > f->capacity) n = f->capacity;
      for (unsigned e = 0; e < n; e++) {
        if (get_varint(raw, rawlen, pos, &v) != 0) return -1;
        gcs_field_set_array_int(ev, f, e, v);
      }
    } else if (f->type == GCS_T_STR) {
      const char *s;
      if (delta) {
        if (get_varint(raw, rawlen, pos, &v) != 0) return -1;
        if (v == 0) {
          s = NULL;
        } else if (v == 1) {
          if (get_str(raw, rawlen, pos, &s) != 0 || !s) return -1;
          if (st->tick.nnames < EVB_TICK_NAMES) st->tick.name[st->tick.nnames++] = s;
        } else {
          if (v - 2 >= (uint64_t)st->tick.nnames) return -1;
          s = st->tick.name[v - 2];
        }
      } else if (get_str(raw, rawlen, pos, &s) != 0) {
        return -1;
      }
      gcs_field_set_str(ev, f, s);
    } else if (f->type == GCS_T_GUID) {
      if (rawlen - *pos < 16) return -1;
      memcpy((char *)&ev->u + f->offset, raw + *pos, 16);
      *pos += 16;
    } else {
      if (get_varint(raw, rawlen, pos, &v) != 0) return -1;
      if (delta && f->offset == offsetof(struct gcs_ev_GCAllocationTick, TypeID))
        t->TypeID = ptype + (uint64_t)unzigzag(v);
      else if (delta && f->offset == offsetof(struct gcs_ev_GCAllocationTick, Address))
        t->Address = paddr + (uint64_t)unzigzag(v);
      else if (delta && f->offset == offsetof(struct gcs_ev_GCAllocationTick, AllocationAmount64))
        a64_delta = v;  /* AllocationAmount comes first, but do not rely on the order */
      else
        gcs_field_set_int(ev, f, is_signed(f->type) ? (uint64_t)unzigzag(v) : v);
    }
  }
  if (delta) {
    t->AllocationAmount64 = (uint64_t)t->AllocationAmount + (uint64_t)unzigzag(a64_delta);
    tick_slot_set(&st->tick, slot, ev->tid, t->TypeID, t->Address);
  }
  *type_id = -1;
  if (kind == gcs_kind_GCAllocationTick) {
    if (get_varint(raw, rawlen, pos, &v) != 0) return -1;
    *type_id = v ? (int64_t)(v - 1) : -1;
  }
  return 0;
}

/* ---- fields as JSON ---------------------------------------------------------- */

struct jbuf { char *p; size_t len, cap; int oom; };

static void jput(struct jbuf *j, const char *s, size_t n) {
  if (j->oom) return;
  if (j->len + n + 1 > j->cap) {
    size_t cap = j->cap ? j->cap : 1024;
    while (cap < j->len + n + 1) cap *= 2;
    char *p = realloc(j->p, cap);
    if (!p) { j->oom = 1; return; }
    j->p = p;
    j->cap = cap;
  }
  memcpy(j->p + j->len, s, n);
  j->len += n;
  j->p[j->len] = '\0';
}
static void jputs(struct jbuf *j, const char *s) { jput(j, s, strlen(s)); }

static void jstr(struct jbuf *j, const char *s) {
  jput(j, "\"", 1);
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    char esc[GCS_TEXT_JSON_ESC_MAX];
    jput(j, esc, gcs_text_json_escape(*c, esc));
  }
  jput(j, "\"", 1);
}

static void jint(struct jbuf *j, enum gcs_type t, uint64_t v) {
  char num[32];
  if (is_signed(t)) snprintf(num, sizeof num, "%lld", (long long)(int64_t)v);
  else snprintf(num, sizeof num, "%llu", (unsigned long long)v);
  jputs(j, num);
}

/* Every field of ev, ClrInstanceID and the fields of later versions included:
 * {"Count":3,"Depth":0,...}; arrays as JSON arrays, strings as strings (null
 * when absent), a GUID as 32 hex digits. */
static void fields_json(const struct gcs_event *ev, struct jbuf *j) {
  const struct gcs_event_desc *d = &gcs_event_descs[ev->kind];
  j->len = 0;
  jput(j, "{", 1);
  for (int i = 0; i < d->nfields; i++) {
    const struct gcs_field_desc *f = &d->fields[i];
    if (i) jput(j, ",", 1);
    jstr(j, f->name);
    jput(j, ":", 1);
    if (f->is_array) {
      uint64_t n = gcs_field_get_int(ev, &d->fields[f->count_field]);
      if (n > f->capacity) n = f->capacity;
      jput(j, "[", 1);
      for (unsigned e = 0; e < n; e++) {
        if (e) jput(j, ",", 1);
        jint(j, f->type, gcs_field_get_array_int(ev, f, e));
      }
      jput(j, "]", 1);
    } else if (f->type == GCS_T_STR) {
      const char *s = gcs_field_get_str(ev, f);
      if (s) jstr(j, s); else jputs(j, "null");
    } else if (f->type == GCS_T_GUID) {
      char hex[40];
      const uint8_t *g = (const uint8_t *)&ev->u + f->offset;
      for (int k = 0; k < 16; k++) snprintf(hex + 2 * k, 3, "%02x", g[k]);
      jstr(j, hex);
    } else if (f->type == GCS_T_F32) {
      double x = gcs_field_get_f32(ev, f);
      char num[40];
      if (isfinite(x)) { snprintf(num, sizeof num, "%.9g", x); jputs(j, num); }
      else jputs(j, "null");
    } else {
      jint(j, f->type, gcs_field_get_int(ev, f));
    }
  }
  jput(j, "}", 1);
}

/* ---- gcs_unpack(data): one row per event of a block ------------------------- */

enum {
  U_TS_NS, U_PID, U_TID, U_CPU, U_NAME, U_VERSION, U_PAYLOAD, U_FIELDS, U_SEQ,
  U_ALLOC_KIND, U_AMOUNT, U_TYPE_ID, U_HEAP, U_OBJECT_SIZE, U_TRUNCATED,
  U_LIFECYCLE, U_LC_COUNT, U_LC_DEPTH, U_LC_TYPE, U_LC_REASON, U_STACK_ID, U_DATA
};
static const char unpack_schema[] =
    "CREATE TABLE x(ts_ns INTEGER, pid INTEGER, tid INTEGER, cpu INTEGER, name TEXT, version INTEGER, "
    "payload TEXT, fields TEXT, seq INTEGER, alloc_kind INTEGER, amount INTEGER, type_id INTEGER, heap INTEGER, "
    "object_size INTEGER, truncated INTEGER, lifecycle INTEGER, lc_count INTEGER, lc_depth INTEGER, lc_type INTEGER, "
    "lc_reason INTEGER, stack_id INTEGER, data HIDDEN)";

/* The gc_lifecycle view's typed fields: of the lifecycle fields the stop
 * triggers read (gc_events.def's GCS_LIFECYCLE_LIST), those named count, depth, type and reason
 * (any case), as the import stored them in the gc_lifecycle table before. */
static const char *const lc_names[] = { "count", "depth", "type", "reason" };

static void lc_column(sqlite3_context *ctx, const struct gcs_event *ev, int which) {
  const char *const *fields = gcs_lifecycle_fields(ev->kind);
  if (!fields) return;
  for (const char *const *f = fields; *f; f++) {
    if (strcasecmp(*f, lc_names[which]) != 0) continue;
    const struct gcs_field_desc *fd = gcs_field_find(ev->kind, *f);
    if (fd) sqlite3_result_int64(ctx, (sqlite3_int64)gcs_field_get_int(ev, fd));
    return;
  }
}

/* Room for the longest payload text: 16 KiB of scalar fields and strings
 * (as the events table stored it), plus 21 bytes (20 digits and a comma)
 * per array element at the arrays' capacities: GCLOHCompact's heap arrays
 * are 5 x 1024 elements. */
static size_t payload_max(void) {
  uint32_t elems = 0;
  for (int k = 0; k < GCS_KIND_COUNT; k++)
    if (gcs_event_descs[k].array_elems > elems) elems = gcs_event_descs[k].array_elems;
  return 16384 + (size_t)elems * 21;
}

struct unpack_cursor {
  sqlite3_vtab_cursor base;
  uint8_t *raw;
  size_t rawlen, pos;
  struct evb_read_state rs;
  int64_t seq, type_id, stack_id;
  int eof;
  struct gcs_event ev;
  struct jbuf json;
  /* The payload text of the current event, formatted on its first read:
   * a query that names the column several times (gcscope heaps cuts three
   * fields out of it, eight references) formats it once. -1: not yet. */
  int text_len;
  size_t text_cap;
  char *text;
};

static int u_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err) {
  (void)aux; (void)argc; (void)argv; (void)err;
  int rc = sqlite3_declare_vtab(db, unpack_schema);
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *out = v;
  return SQLITE_OK;
}

static int u_disconnect(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }

/* Usable only with its data argument (data = ?): SQLite then reads the
 * blocks first and each block's events after it. */
static int u_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn != U_DATA || c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!c->usable) return SQLITE_CONSTRAINT;
    info->aConstraintUsage[i].argvIndex = 1;
    info->aConstraintUsage[i].omit = 1;
    info->estimatedCost = 1000;
    info->estimatedRows = 1000;
    return SQLITE_OK;
  }
  return SQLITE_CONSTRAINT;
}

static int u_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  struct unpack_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  c->text_cap = payload_max();
  if (!(c->text = malloc(c->text_cap))) { sqlite3_free(c); return SQLITE_NOMEM; }
  c->eof = 1;
  *out = &c->base;
  return SQLITE_OK;
}

static int u_close(sqlite3_vtab_cursor *cur) {
  struct unpack_cursor *c = (struct unpack_cursor *)cur;
  free(c->raw);
  free(c->json.p);
  free(c->text);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int u_corrupt(sqlite3_vtab_cursor *cur) {
  sqlite3_free(cur->pVtab->zErrMsg);
  cur->pVtab->zErrMsg = sqlite3_mprintf("gcs_unpack: not a gcscope event block (damaged database?)");
  return SQLITE_CORRUPT;
}

static int u_step(sqlite3_vtab_cursor *cur) {
  struct unpack_cursor *c = (struct unpack_cursor *)cur;
  if (c->pos >= c->rawlen) { c->eof = 1; return SQLITE_OK; }
  if (evb_unpack(c->raw, c->rawlen, &c->pos, &c->rs, &c->ev, &c->type_id, &c->stack_id) != 0) {
    c->eof = 1;
    return u_corrupt(cur);
  }
  c->seq++;
  c->text_len = -1;
  return SQLITE_OK;
}

static int u_filter(sqlite3_vtab_cursor *cur, int idxnum, const char *idxstr, int argc, sqlite3_value **argv) {
  (void)idxnum; (void)idxstr;
  struct unpack_cursor *c = (struct unpack_cursor *)cur;
  free(c->raw);
  c->raw = NULL;
  c->rawlen = c->pos = 0;
  evb_read_start(&c->rs);
  c->seq = -1;
  c->eof = 1;
  if (argc < 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL) return SQLITE_OK;
  if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) return u_corrupt(cur);
  const uint8_t *data = sqlite3_value_blob(argv[0]);
  size_t len = (size_t)sqlite3_value_bytes(argv[0]);
  if (evb_inflate(data, len, &c->raw, &c->rawlen) != 0) return u_corrupt(cur);
  c->eof = 0;
  return u_step(cur);
}

static int u_eof(sqlite3_vtab_cursor *cur) { return ((struct unpack_cursor *)cur)->eof; }

static int u_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  struct unpack_cursor *c = (struct unpack_cursor *)cur;
  const struct gcs_event *ev = &c->ev;
  int tick = ev->kind == gcs_kind_GCAllocationTick;
  const struct gcs_ev_GCAllocationTick *t = &ev->u.GCAllocationTick;
  switch (col) {
  case U_TS_NS: sqlite3_result_int64(ctx, (sqlite3_int64)ev->ts_ns); break;
  case U_PID: sqlite3_result_int(ctx, ev->pid); break;
  case U_TID: sqlite3_result_int(ctx, ev->tid); break;
  case U_CPU: sqlite3_result_int(ctx, ev->cpu); break;
  case U_NAME: sqlite3_result_text(ctx, gcs_event_descs[ev->kind].name, -1, SQLITE_STATIC); break;
  case U_VERSION: sqlite3_result_int(ctx, ev->version); break;
  case U_PAYLOAD:
    if (c->text_len < 0) {
      size_t n = gcs_event_format(ev, c->text, c->text_cap);
      if (n >= c->text_cap) n = strlen(c->text);
      c->text_len = (int)n;
    }
    sqlite3_result_text(ctx, c->text, c->text_len, SQLITE_TRANSIENT);
    break;
  case U_FIELDS:
    fields_json(ev, &c->json);
    if (c->json.oom) { c->json.oom = 0; return SQLITE_NOMEM; }
    sqlite3_result_text(ctx, c->json.p, (int)c->json.len, SQLITE_TRANSIENT);
    sqlite3_result_subtype(ctx, 'J');
    break;
  case U_SEQ: sqlite3_result_int64(ctx, c->seq); break;
  case U_ALLOC_KIND: if (tick) sqlite3_result_int64(ctx, t->AllocationKind); break;
  case U_AMOUNT:
    if (tick) sqlite3_result_int64(ctx, (sqlite3_int64)(ev->version >= 2 ? t->AllocationAmount64 : t->AllocationAmount));
    break;
  case U_TYPE_ID: if (tick && c->type_id >= 0) sqlite3_result_int64(ctx, c->type_id); break;
  case U_HEAP: if (tick && ev->version >= 2 && t->TypeName) sqlite3_result_int64(ctx, t->HeapIndex); break;
  case U_OBJECT_SIZE: if (tick && ev->version >= 4) sqlite3_result_int64(ctx, (sqlite3_int64)t->ObjectSize); break;
  case U_TRUNCATED: sqlite3_result_int(ctx, ev->truncated); break;
  case U_LIFECYCLE: sqlite3_result_int(ctx, gcs_kind_is_lifecycle(ev->kind)); break;
  case U_LC_COUNT: case U_LC_DEPTH: case U_LC_TYPE: case U_LC_REASON: lc_column(ctx, ev, col - U_LC_COUNT); break;
  case U_STACK_ID: if (c->stack_id > 0) sqlite3_result_int64(ctx, c->stack_id); break;
  default: break;  /* data: not returned */
  }
  return SQLITE_OK;
}

static int u_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((struct unpack_cursor *)cur)->seq;
  return SQLITE_OK;
}

static const sqlite3_module unpack_module = {
  .iVersion = 0,
  .xConnect = u_connect,
  .xBestIndex = u_best_index,
  .xDisconnect = u_disconnect,
  .xOpen = u_open,
  .xClose = u_close,
  .xFilter = u_filter,
  .xNext = u_step,
  .xEof = u_eof,
  .xColumn = u_column,
  .xRowid = u_rowid,
};

int gcs_db_functions(sqlite3 *db) {
  return sqlite3_create_module(db, "gcs_unpack", &unpack_module, NULL) == SQLITE_OK ? 0 : -1;
}
