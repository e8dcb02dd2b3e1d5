/* gcs_events.c — descriptor tables generated from gc_events.def / gc_enums.def,
 * name and ID look-ups, generic field access and the ETW payload decoder. */
#include "gcs_events.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- field descriptor tables ------------------------------------------- */

/* Each event's table lives in its own function so that the field-index
 * enumerators (used for array count fields) are block-scoped: several events
 * have a field named Count. */
#define GCS_IDX2_F(Name, Type, Since, Unit, Doc) gcs_fidx_##Name,
#define GCS_IDX2_A(Name, Type, CountField, Cap, Since, Unit, Doc) gcs_fidx_##Name,
#define GCS_FN_EV(Name, Symbol, Provider, EtwId, Version, Where, Doc, FIELDS)          \
  static const struct gcs_field_desc *gcs_fields_of_##Name(void) {                     \
    enum { FIELDS(GCS_IDX2_F, GCS_IDX2_A) gcs_fidx__end };                             \
    typedef struct gcs_ev_##Name gcs_ev_cur_t;                                         \
    static const struct gcs_field_desc t[] = { FIELDS(GCS_DESC2_F, GCS_DESC2_A) };     \
    return t;                                                                          \
  }
#define GCS_DESC2_F(Name, Type, Since, Unit, Doc) \
  { #Name, GCS_T_##Type, Since, 0, -1, 0, (uint32_t)offsetof(gcs_ev_cur_t, Name), Unit, Doc },
#define GCS_DESC2_A(Name, Type, CountField, Cap, Since, Unit, Doc) \
  { #Name, GCS_T_##Type, Since, 1, gcs_fidx_##CountField, GCS_CAP_##Cap, \
    (uint32_t)offsetof(gcs_ev_cur_t, Name), Unit, Doc },
GCS_EVENT_LIST(GCS_FN_EV)
#undef GCS_FN_EV

#define GCS_COUNT_F(Name, Type, Since, Unit, Doc) +1
#define GCS_COUNT_A(Name, Type, CountField, Cap, Since, Unit, Doc) +1
#define GCS_ELEMS_F(Name, Type, Since, Unit, Doc)
#define GCS_ELEMS_A(Name, Type, CountField, Cap, Since, Unit, Doc) +GCS_CAP_##Cap
#define GCS_DESC_EV(Name, Symbol, Provider, EtwId, Version, Where, Doc, FIELDS) \
  { #Name, #Symbol, GCS_PROV_##Provider, EtwId, Version, GCS_##Where, Doc, NULL, \
    0 FIELDS(GCS_COUNT_F, GCS_COUNT_A), sizeof(struct gcs_ev_##Name), \
    0 FIELDS(GCS_ELEMS_F, GCS_ELEMS_A) },
static const struct gcs_event_desc gcs_event_descs_proto[GCS_KIND_COUNT] = {
  GCS_EVENT_LIST(GCS_DESC_EV)
};
#undef GCS_DESC_EV

static const struct gcs_field_desc *gcs_fields_table(enum gcs_kind k) {
  switch (k) {
#define GCS_CASE_EV(Name, Symbol, Provider, EtwId, Version, Where, Doc, FIELDS) \
  case gcs_kind_##Name: return gcs_fields_of_##Name();
    GCS_EVENT_LIST(GCS_CASE_EV)
#undef GCS_CASE_EV
  default: return NULL;
  }
}

/* The public table: the proto above with the field pointers filled in at
 * load time (a pointer to a function-local static cannot appear in a file-scope
 * constant initialiser). */
static struct gcs_event_desc gcs_event_descs_rt[GCS_KIND_COUNT];
const struct gcs_event_desc *const gcs_event_descs = gcs_event_descs_rt;

__attribute__((constructor)) static void gcs_events_init(void) {
  for (int k = 0; k < GCS_KIND_COUNT; k++) {
    gcs_event_descs_rt[k] = gcs_event_descs_proto[k];
    gcs_event_descs_rt[k].fields = gcs_fields_table((enum gcs_kind)k);
  }
}

/* ---- name and ID look-ups ---------------------------------------------- */

int gcs_kind_from_lttng_name(const char *full, int *version, int *origin) {
  const char *colon = strchr(full, ':');
  if (!colon) return -1;
  size_t plen = (size_t)(colon - full);
  const char *ev = colon + 1;
  int org, prov;
  if (plen == 3 && memcmp(full, GCS_RGC_PROVIDER, 3) == 0) {
    org = GCS_ORIGIN_RGC; prov = -1;
  } else if (plen == strlen(GCS_CLR_RUNTIME_PROVIDER) && memcmp(full, GCS_CLR_RUNTIME_PROVIDER, plen) == 0) {
    org = GCS_ORIGIN_CLR; prov = GCS_PROV_RUNTIME;
  } else if (plen == strlen(GCS_CLR_PRIVATE_PROVIDER) && memcmp(full, GCS_CLR_PRIVATE_PROVIDER, plen) == 0) {
    org = GCS_ORIGIN_CLR; prov = GCS_PROV_PRIVATE;
  } else {
    return -1;
  }
  /* Split "<Name>_V<n>" into name and version. */
  size_t nlen = strlen(ev);
  int ver = 0;
  const char *v = strstr(ev, "_V");
  if (v && v[2] >= '0' && v[2] <= '9') {
    char *end;
    long n = strtol(v + 2, &end, 10);
    if (*end == '\0') { ver = (int)n; nlen = (size_t)(v - ev); }
  }
  for (int k = 0; k < GCS_KIND_COUNT; k++) {
    const struct gcs_event_desc *d = &gcs_event_descs_proto[k];
    if (strlen(d->name) != nlen || memcmp(d->name, ev, nlen) != 0) continue;
    /* Method events resolve EventPipe stacks; CoreCLR's LTTng events carry none. */
    if (gcs_kind_is_symbols((enum gcs_kind)k)) return -1;
    if (org == GCS_ORIGIN_RGC) {
      if (d->where == GCS_CLR_ONLY) return -1;
      ver = d->version;
    } else {
      if (d->where == GCS_RGC_ONLY || (int)d->provider != prov) continue;
      /* CoreCLR's private GCPerHeapHistory is version 2 without suffix; it
       * carries no data, so it is not decoded. */
    }
    if (version) *version = ver;
    if (origin) *origin = org;
    return k;
  }
  return -1;
}

int gcs_kind_from_etw(enum gcs_provider provider, int etw_id, int version) {
  (void)version;
  for (int k = 0; k < GCS_KIND_COUNT; k++) {
    const struct gcs_event_desc *d = &gcs_event_descs_proto[k];
    if (d->where != GCS_RGC_ONLY && d->provider == provider && d->etw_id == etw_id) return k;
  }
  return -1;
}

const struct gcs_field_desc *gcs_field_find(enum gcs_kind kind, const char *name) {
  if ((int)kind < 0 || kind >= GCS_KIND_COUNT) return NULL;
  const struct gcs_event_desc *d = &gcs_event_descs[kind];
  for (int i = 0; i < d->nfields; i++)
    if (strcmp(d->fields[i].name, name) == 0) return &d->fields[i];
  return NULL;
}

/* ---- generic field access ----------------------------------------------- */

static size_t gcs_type_size(enum gcs_type t) {
  switch (t) {
  case GCS_T_U8: return 1;
  case GCS_T_U16: return 2;
  case GCS_T_U32: case GCS_T_I32: case GCS_T_BOOL: case GCS_T_F32: return 4;
  case GCS_T_U64: case GCS_T_PTR: return 8;
  case GCS_T_STR: return sizeof(const char *);
  case GCS_T_GUID: return 16;
  }
  return 0;
}

static void gcs_store_int(void *p, enum gcs_type t, uint64_t v) {
  switch (t) {
  case GCS_T_U8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
  case GCS_T_U16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
  case GCS_T_U32: case GCS_T_I32: case GCS_T_BOOL: case GCS_T_F32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
  case GCS_T_U64: case GCS_T_PTR: memcpy(p, &v, 8); break;
  default: break;
  }
}

static uint64_t gcs_load_int(const void *p, enum gcs_type t) {
  switch (t) {
  case GCS_T_U8: { uint8_t x; memcpy(&x, p, 1); return x; }
  case GCS_T_U16: { uint16_t x; memcpy(&x, p, 2); return x; }
  case GCS_T_U32: case GCS_T_F32: { uint32_t x; memcpy(&x, p, 4); return x; } /* F32: its bits */
  case GCS_T_I32: case GCS_T_BOOL: { int32_t x; memcpy(&x, p, 4); return (uint64_t)(int64_t)x; }
  case GCS_T_U64: case GCS_T_PTR: { uint64_t x; memcpy(&x, p, 8); return x; }
  default: return 0;
  }
}

void gcs_field_set_int(struct gcs_event *ev, const struct gcs_field_desc *f, uint64_t v) {
  gcs_store_int((char *)&ev->u + f->offset, f->type, v);
}

void gcs_field_set_array_int(struct gcs_event *ev, const struct gcs_field_desc *f,
                             unsigned idx, uint64_t v) {
  if (idx >= f->capacity) { ev->truncated = 1; return; }
  gcs_store_int((char *)&ev->u + f->offset + idx * gcs_type_size(f->type), f->type, v);
}

void gcs_field_set_str(struct gcs_event *ev, const struct gcs_field_desc *f, const char *s) {
  memcpy((char *)&ev->u + f->offset, &s, sizeof s);
}

uint64_t gcs_field_get_int(const struct gcs_event *ev, const struct gcs_field_desc *f) {
  return gcs_load_int((const char *)&ev->u + f->offset, f->type);
}

uint64_t gcs_field_get_array_int(const struct gcs_event *ev, const struct gcs_field_desc *f,
                                 unsigned idx) {
  if (idx >= f->capacity) return 0;
  return gcs_load_int((const char *)&ev->u + f->offset + idx * gcs_type_size(f->type), f->type);
}

double gcs_field_get_f32(const struct gcs_event *ev, const struct gcs_field_desc *f) {
  return gcs_f32_from_bits((uint32_t)gcs_load_int((const char *)&ev->u + f->offset, GCS_T_U32));
}

const char *gcs_field_get_str(const struct gcs_event *ev, const struct gcs_field_desc *f) {
  const char *s;
  memcpy(&s, (const char *)&ev->u + f->offset, sizeof s);
  return s;
}

/* ---- ETW payload decoder ------------------------------------------------ */

/* UTF-16LE NUL-terminated string at data[*pos] -> UTF-8 in strbuf. */
static const char *gcs_utf16z(const uint8_t *data, size_t len, size_t *pos,
                              char *strbuf, size_t strbuf_len, size_t *used, int *ok) {
  char *out = strbuf + *used;
  size_t cap = strbuf_len > *used ? strbuf_len - *used : 0;
  size_t o = 0;
  int terminated = 0;
  while (*pos + 2 <= len) {
    uint32_t c = (uint32_t)data[*pos] | ((uint32_t)data[*pos + 1] << 8);
    *pos += 2;
    if (c == 0) { terminated = 1; break; }
    if (c >= 0xD800 && c < 0xDC00 && *pos + 2 <= len) {
      uint32_t c2 = (uint32_t)data[*pos] | ((uint32_t)data[*pos + 1] << 8);
      if (c2 >= 0xDC00 && c2 < 0xE000) { *pos += 2; c = 0x10000 + ((c - 0xD800) << 10) + (c2 - 0xDC00); }
    }
    char enc[4]; size_t n;
    if (c < 0x80) { enc[0] = (char)c; n = 1; }
    else if (c < 0x800) { enc[0] = (char)(0xC0 | (c >> 6)); enc[1] = (char)(0x80 | (c & 0x3F)); n = 2; }
    else if (c < 0x10000) { enc[0] = (char)(0xE0 | (c >> 12)); enc[1] = (char)(0x80 | ((c >> 6) & 0x3F)); enc[2] = (char)(0x80 | (c & 0x3F)); n = 3; }
    else { enc[0] = (char)(0xF0 | (c >> 18)); enc[1] = (char)(0x80 | ((c >> 12) & 0x3F)); enc[2] = (char)(0x80 | ((c >> 6) & 0x3F)); enc[3] = (char)(0x80 | (c & 0x3F)); n = 4; }
    if (o + n + 1 <= cap) { memcpy(out + o, enc, n); o += n; }
  }
  if (!terminated) *ok = 0;
  if (cap == 0) return "";
  out[o] = '\0';
  *used += o + 1;
  return out;
}

static size_t gcs_wire_size(enum gcs_type t, int ptr_size) {
  if (t == GCS_T_PTR) return (size_t)ptr_size;
  if (t == GCS_T_STR) return 0;
  return gcs_type_size(t);
}

/* The DATAS payloads (gc_events.def): a name, the event it becomes and the
 * one version decoded. Their Data is the event's fields but ClrInstanceID,
 * packed in order; only a payload of exactly that size is decoded. */
static const struct { const char *name; enum gcs_kind kind; uint16_t version; } gcs_dynamic_payloads[] = {
  { "SizeAdaptationSample", gcs_kind_GCSizeAdaptationSample, 1 },
  { "SizeAdaptationTuning", gcs_kind_GCSizeAdaptationTuning, 1 },
  { "SizeAdaptationFullGCTuning", gcs_kind_GCSizeAdaptationFullGCTuning, 1 },
  { "HeapCountSample", gcs_kind_GCHeapCountSample, 1 },   /* .NET 8 */
  { "HeapCountTuning", gcs_kind_GCHeapCountTuning, 1 },
};
#define GCS_DYNAMIC_PAYLOADS (sizeof gcs_dynamic_payloads / sizeof gcs_dynamic_payloads[0])

int gcs_dynamic_name_known(const char *name) {
  if (!name) return 0;
  if (strcmp(name, "CommittedUsage") == 0) return 1;
  for (size_t i = 0; i < GCS_DYNAMIC_PAYLOADS; i++)
    if (strcmp(name, gcs_dynamic_payloads[i].name) == 0) return 1;
  return 0;
}

/* Bytes of Data a DATAS event's fields take (all but ClrInstanceID). */
static size_t gcs_dynamic_data_size(enum gcs_kind k) {
  const struct gcs_event_desc *d = &gcs_event_descs[k];
  size_t n = 0;
  for (int i = 0; i < d->nfields; i++)
    if (strcmp(d->fields[i].name, "ClrInstanceID") != 0) n += gcs_type_size(d->fields[i].type);
  return n;
}

/* Data (dd, its size checked) into ev as event k: the fields in order, then
 * ClrInstanceID from the envelope. */
static void gcs_dynamic_fill(struct gcs_event *ev, enum gcs_kind k, const uint8_t *dd, uint16_t clr) {
  const struct gcs_event_desc *d = &gcs_event_descs[k];
  memset(&ev->u, 0, d->struct_size);
  ev->kind = k;
  ev->version = 0;
  size_t pos = 0;
  for (int i = 0; i < d->nfields; i++) {
    const struct gcs_field_desc *f = &d->fields[i];
    if (strcmp(f->name, "ClrInstanceID") == 0) { gcs_field_set_int(ev, f, clr); continue; }
    enum gcs_type wt = f->type == GCS_T_F32 ? GCS_T_U32 : f->type;
    gcs_field_set_int(ev, f, gcs_load_int(dd + pos, wt));
    pos += gcs_type_size(f->type);
  }
}

/* GCDynamicEvent: Name, DataSize, Data[DataSize], ClrInstanceID. A name this
 * schema knows becomes its own event (CommittedUsage: its fields from Data,
 * when Data is at least as long as they need; the DATAS events: version 1 of
 * their exact size); any other stays GCDynamicEvent without Data. */
static int gcs_dynamic_decode(struct gcs_event *ev, const uint8_t *data, size_t len, char *strbuf,
                              size_t strbuf_len) {
  size_t pos = 0, used = 0;
  int ok = 1;
  struct gcs_ev_GCDynamicEvent *d = &ev->u.GCDynamicEvent;
  d->Name = len ? gcs_utf16z(data, len, &pos, strbuf, strbuf_len, &used, &ok) : "";
  if (!ok || pos + 4 > len) { ev->truncated = 1; return len ? 0 : -1; }
  d->DataSize = (uint32_t)gcs_load_int(data + pos, GCS_T_U32);
  pos += 4;
  if (d->DataSize > len - pos) { ev->truncated = 1; return 0; }
  const uint8_t *dd = data + pos;
  pos += d->DataSize;
  if (pos + 2 <= len) d->ClrInstanceID = (uint16_t)gcs_load_int(data + pos, GCS_T_U16);
  else ev->truncated = 1;
  if (strcmp(d->Name, "CommittedUsage") == 0 && d->DataSize >= 2 + 5 * 8) {
    uint16_t clr = d->ClrInstanceID;
    struct gcs_ev_GCCommittedUsage *c = &ev->u.GCCommittedUsage;
    memset(c, 0, sizeof *c);
    ev->kind = gcs_kind_GCCommittedUsage;
    ev->version = 0;
    c->Version = (uint16_t)gcs_load_int(dd, GCS_T_U16);
    c->TotalCommittedInUse = gcs_load_int(dd + 2, GCS_T_U64);
    c->TotalCommittedInGlobalDecommit = gcs_load_int(dd + 10, GCS_T_U64);
    c->TotalCommittedInFree = gcs_load_int(dd + 18, GCS_T_U64);
    c->TotalCommittedInGlobalFree = gcs_load_int(dd + 26, GCS_T_U64);
    c->TotalBookkeepingCommitted = gcs_load_int(dd + 34, GCS_T_U64);
    c->ClrInstanceID = clr;
    return 0;
  }
  if (ev->truncated) return 0;
  for (size_t i = 0; i < GCS_DYNAMIC_PAYLOADS; i++) {
    if (strcmp(d->Name, gcs_dynamic_payloads[i].name) != 0) continue;
    enum gcs_kind k = gcs_dynamic_payloads[i].kind;
    if (d->DataSize == gcs_dynamic_data_size(k) &&
        gcs_load_int(dd, GCS_T_U16) == gcs_dynamic_payloads[i].version)
      gcs_dynamic_fill(ev, k, dd, d->ClrInstanceID);
    break;
  }
  return 0;
}

int gcs_etw_decode(struct gcs_event *ev, enum gcs_kind kind, int version,
                   const uint8_t *data, size_t len, int ptr_size,
                   char *strbuf, size_t strbuf_len) {
  if ((int)kind < 0 || kind >= GCS_KIND_COUNT || (ptr_size != 4 && ptr_size != 8)) return -1;
  const struct gcs_event_desc *d = &gcs_event_descs[kind];
  memset(&ev->u, 0, d->struct_size);
  ev->kind = kind;
  ev->version = (uint8_t)version;
  ev->truncated = 0;
  size_t pos = 0, used = 0;
  int ok = 1;

  if (kind == gcs_kind_GCDynamicEvent) return gcs_dynamic_decode(ev, data, len, strbuf, strbuf_len);

  /* GCStart v0 is Count, Reason only (not a prefix of later versions). */
  if (kind == gcs_kind_GCStart && version == 0) {
    if (len < 8) { ev->truncated = 1; return len == 0 ? -1 : 0; }
    ev->u.GCStart.Count = (uint32_t)gcs_load_int(data, GCS_T_U32);
    ev->u.GCStart.Reason = (uint32_t)gcs_load_int(data + 4, GCS_T_U32);
    return 0;
  }

  for (int i = 0; i < d->nfields; i++) {
    const struct gcs_field_desc *f = &d->fields[i];
    if (f->since > version) continue;
    /* Version-0 oddities: GCEnd.Depth and GCSuspendEEBegin.Reason were u16. */
    enum gcs_type wt = f->type;
    if (version == 0 && ((kind == gcs_kind_GCEnd && strcmp(f->name, "Depth") == 0) ||
                         (kind == gcs_kind_GCSuspendEEBegin && strcmp(f->name, "Reason") == 0)))
      wt = GCS_T_U16;
    if (f->is_array) {
      /* A struct array: this and the following A() fields with the same
       * count field, interleaved element by element. */
      int first = i, last = i;
      while (last + 1 < d->nfields && d->fields[last + 1].is_array &&
             d->fields[last + 1].count_field == f->count_field && d->fields[last + 1].since <= version)
        last++;
      uint64_t count = gcs_field_get_int(ev, &d->fields[f->count_field]);
      /* The element is the runtime's C struct, copied raw: each member at
       * its natural alignment within the element, the element padded to
       * its largest member (GCLOHCompact: 32 B on 64-bit; homogeneous
       * arrays have no padding). */
      size_t elem_align = 1;
      for (int j = first; j <= last; j++) {
        size_t sz = gcs_wire_size(d->fields[j].type, ptr_size);
        if (sz > elem_align) elem_align = sz;
      }
      for (uint64_t e = 0; e < count; e++) {
        size_t elem_start = pos;
        for (int j = first; j <= last; j++) {
          size_t sz = gcs_wire_size(d->fields[j].type, ptr_size);
          size_t off = pos - elem_start;
          if (sz > 1 && off % sz) pos += sz - off % sz;
          if (pos > len || sz > len - pos) { ev->truncated = 1; return 0; }
          uint64_t v = ptr_size == 4 && d->fields[j].type == GCS_T_PTR
                           ? gcs_load_int(data + pos, GCS_T_U32)
                           : gcs_load_int(data + pos, d->fields[j].type);
          gcs_field_set_array_int(ev, &d->fields[j], (unsigned)e, v);
          pos += sz;
        }
        size_t used_e = pos - elem_start;
        if (used_e % elem_align) {
          size_t pad = elem_align - used_e % elem_align;
          /* the last element's tail padding may be cut off: nothing is read from it */
          pos = pad > len - pos ? len : pos + pad;
        }
      }
      if (count > f->capacity) {  /* (the A() rows of one struct array share a capacity) */
        ev->truncated = 1;
        gcs_field_set_int(ev, &d->fields[f->count_field], f->capacity);
      }
      i = last;
      continue;
    }
    if (f->type == GCS_T_STR) {
      if (pos >= len) { gcs_field_set_str(ev, f, ""); continue; } /* NULL string: no bytes */
      gcs_field_set_str(ev, f, gcs_utf16z(data, len, &pos, strbuf, strbuf_len, &used, &ok));
      if (!ok) { ev->truncated = 1; return 0; }
      continue;
    }
    if (f->type == GCS_T_GUID) {
      if (pos + 16 > len) { ev->truncated = 1; return 0; }
      memcpy((char *)&ev->u + f->offset, data + pos, 16);
      pos += 16;
      continue;
    }
    size_t sz = wt == GCS_T_PTR ? (size_t)ptr_size : gcs_type_size(wt);
    if (pos + sz > len) { ev->truncated = 1; return 0; }
    uint64_t v = (wt == GCS_T_PTR && ptr_size == 4) ? gcs_load_int(data + pos, GCS_T_U32)
                                                     : gcs_load_int(data + pos, wt);
    gcs_field_set_int(ev, f, v);
    pos += sz;
  }
  return 0;
}

/* ---- value maps ---------------------------------------------------------- */

#define GCS_MAP_V(Value, Name, Const) { Value, #Name },
#define GCS_MAP_TABLE(Map, Prefix, IsFlags, Doc) \
  static const struct gcs_map_entry gcs_map_entries_##Map[] = { GCS_MAP_##Map(GCS_MAP_V) };
GCS_MAP_LIST(GCS_MAP_TABLE)
#undef GCS_MAP_TABLE

#define GCS_MAP_DESC(Map, Prefix, IsFlags, Doc) \
  { #Map, IsFlags, Doc, gcs_map_entries_##Map, \
    (int)(sizeof gcs_map_entries_##Map / sizeof gcs_map_entries_##Map[0]) },
static const struct gcs_map_desc gcs_maps[] = { GCS_MAP_LIST(GCS_MAP_DESC) };
#undef GCS_MAP_DESC

const struct gcs_map_desc *gcs_map_find(const char *map) {
  for (size_t i = 0; i < sizeof gcs_maps / sizeof gcs_maps[0]; i++)
    if (strcmp(gcs_maps[i].name, map) == 0) return &gcs_maps[i];
  return NULL;
}

const char *gcs_map_name(const char *map, uint32_t value) {
  const struct gcs_map_desc *m = gcs_map_find(map);
  if (!m) return NULL;
  for (int i = 0; i < m->nentries; i++)
    if (m->entries[i].value == value) return m->entries[i].name;
  return NULL;
}

size_t gcs_map_text(const struct gcs_map_desc *m, uint64_t value, char *buf, size_t n) {
  if (n) buf[0] = '\0';
  if (!m || !n || value > UINT32_MAX) return 0;
  const char *name = NULL;
  if (!m->is_flags || value == 0) {
    for (int i = 0; i < m->nentries && !name; i++)
      if (m->entries[i].value == value) name = m->entries[i].name;
    if (!name) return 0;
    snprintf(buf, n, "%s", name);
    return strlen(buf);
  }
  size_t at = 0;
  for (int b = 0; b < 32; b++) {
    uint32_t bit = UINT32_C(1) << b;
    if (!(value & bit)) continue;
    name = NULL;
    for (int i = 0; i < m->nentries && !name; i++)
      if (m->entries[i].value == bit) name = m->entries[i].name;
    if (!name) { buf[0] = '\0'; return 0; }
    int w = snprintf(buf + at, n - at, "%s%s", at ? "|" : "", name);
    if (w < 0) { buf[0] = '\0'; return 0; }
    at += (size_t)w < n - at ? (size_t)w : n - 1 - at;
  }
  return at;
}

#define GCS_LIFECYCLE_UNPAREN(...) __VA_ARGS__
#define GCS_LIFECYCLE_FIELDS(Name, Fields) \
  static const char *const lifecycle_##Name[] = { GCS_LIFECYCLE_UNPAREN Fields };
GCS_LIFECYCLE_LIST(GCS_LIFECYCLE_FIELDS)
#undef GCS_LIFECYCLE_FIELDS

const char *const *gcs_lifecycle_fields(enum gcs_kind k) {
  switch (k) {
#define GCS_LIFECYCLE_CASE(Name, Fields) case gcs_kind_##Name: return lifecycle_##Name;
  GCS_LIFECYCLE_LIST(GCS_LIFECYCLE_CASE)
#undef GCS_LIFECYCLE_CASE
  default: return NULL;
  }
}

const char *gcs_reason_name(uint32_t reason) {
  const char *n = gcs_map_name("gc_reason", reason);
  return n ? n : "Unknown";
}

const char *gcs_gc_type_name(uint32_t type) {
  const char *n = gcs_map_name("gc_type", type);
  return n ? n : "Unknown";
}

/* ---- payload text -------------------------------------------------------- */

__attribute__((format(printf, 4, 5)))
static void gcs_appendf(char *buf, size_t bufsz, size_t *o, const char *fmt, ...) {
  if (*o + 1 >= bufsz) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + *o, bufsz - *o, fmt, ap);
  va_end(ap);
  if (n > 0) *o = (size_t)n >= bufsz - *o ? bufsz - 1 : *o + (size_t)n;
}

/* The reference text, printf-based (gcs_event_format gives the same bytes;
 * test report.payload_text compares them). */
size_t gcs_event_format_ref(const struct gcs_event *ev, char *buf, size_t bufsz) {
  if (bufsz == 0) return 0;
  buf[0] = '\0';
  if ((int)ev->kind < 0 || ev->kind >= GCS_KIND_COUNT) return 0;
  const struct gcs_event_desc *d = &gcs_event_descs[ev->kind];
  size_t o = 0;
#define GCS_APPEND(...) gcs_appendf(buf, bufsz, &o, __VA_ARGS__)
  for (int i = 0; i < d->nfields; i++) {
    const struct gcs_field_desc *f = &d->fields[i];
    if (ev->origin == GCS_ORIGIN_CLR && f->since > ev->version) continue;
    if (strcmp(f->name, "ClrInstanceID") == 0) continue;
    GCS_APPEND("%s%s=", o ? " " : "", f->name);
    if (f->is_array) {
      uint64_t n = gcs_field_get_int(ev, &d->fields[f->count_field]);
      if (n > f->capacity) n = f->capacity;
      GCS_APPEND("[");
      for (uint64_t e = 0; e < n; e++)
        GCS_APPEND("%s%llu", e ? "," : "", (unsigned long long)gcs_field_get_array_int(ev, f, (unsigned)e));
      GCS_APPEND("]");
    } else if (f->type == GCS_T_STR) {
      const char *s = gcs_field_get_str(ev, f);
      GCS_APPEND("\"%s\"", s ? s : "");
    } else if (f->type == GCS_T_GUID) {
      const uint8_t *g = (const uint8_t *)&ev->u + f->offset;
      for (int b = 0; b < 16; b++) GCS_APPEND("%02x", g[b]);
    } else if (f->type == GCS_T_F32) {
      double x = gcs_field_get_f32(ev, f);
      if (isfinite(x)) GCS_APPEND("%.9g", x);
      else GCS_APPEND("unknown");
    } else {
      uint64_t v = gcs_field_get_int(ev, f);
      const char *name = NULL;
      char flags[160];
      if (strncmp(f->unit, "enum:", 5) == 0) {
        const struct gcs_map_desc *m = gcs_map_find(f->unit + 5);
        if (m && m->is_flags) name = gcs_map_text(m, v, flags, sizeof flags) ? flags : NULL;
        else if (v <= UINT32_MAX) name = gcs_map_name(f->unit + 5, (uint32_t)v);
      }
      if (name) GCS_APPEND("%s", name);
      else if (f->type == GCS_T_I32 || f->type == GCS_T_BOOL) GCS_APPEND("%lld", (long long)(int64_t)v);
      else if (strcmp(f->unit, "addr") == 0 || strncmp(f->unit, "flags:", 6) == 0 ||
               strncmp(f->unit, "condemn:", 8) == 0)
        GCS_APPEND("0x%llx", (unsigned long long)v);
      else GCS_APPEND("%llu", (unsigned long long)v);
    }
  }
#undef GCS_APPEND
  return o;
}

/* How a field prints (decided once per field: the name and unit compares and
 * the value map's look-up cost more than the text itself, and `gcscope
 * events` prints millions of payloads). */
enum fmt_class { FMT_SKIP, FMT_ARRAY, FMT_STR, FMT_GUID, FMT_F32, FMT_ENUM, FMT_SIGNED, FMT_HEX, FMT_UNSIGNED };
struct fmt_field { uint8_t cls, fallback; const struct gcs_map_desc *map; };
static struct fmt_field *fmt_fields[GCS_KIND_COUNT];
static pthread_once_t fmt_once = PTHREAD_ONCE_INIT;

static void fmt_init(void) {
  for (int k = 0; k < GCS_KIND_COUNT; k++) {
    const struct gcs_event_desc *d = &gcs_event_descs[k];
    struct fmt_field *ff = calloc((size_t)d->nfields + 1, sizeof *ff);
    if (!ff) continue;   /* that kind prints through the slow path */
    for (int i = 0; i < d->nfields; i++) {
      const struct gcs_field_desc *f = &d->fields[i];
      uint8_t num = f->type == GCS_T_I32 || f->type == GCS_T_BOOL ? FMT_SIGNED
                    : strcmp(f->unit, "addr") == 0 || strncmp(f->unit, "flags:", 6) == 0 ||
                              strncmp(f->unit, "condemn:", 8) == 0
                        ? FMT_HEX
                        : FMT_UNSIGNED;
      ff[i].fallback = num;
      if (strcmp(f->name, "ClrInstanceID") == 0) ff[i].cls = FMT_SKIP;
      else if (f->is_array) ff[i].cls = FMT_ARRAY;
      else if (f->type == GCS_T_STR) ff[i].cls = FMT_STR;
      else if (f->type == GCS_T_GUID) ff[i].cls = FMT_GUID;
      else if (f->type == GCS_T_F32) ff[i].cls = FMT_F32;
      else if (strncmp(f->unit, "enum:", 5) == 0 && (ff[i].map = gcs_map_find(f->unit + 5)) != NULL) ff[i].cls = FMT_ENUM;
      else ff[i].cls = num;
    }
    fmt_fields[k] = ff;
  }
}

/* Appends len bytes of s to buf (bufsz), cut at bufsz - 1 as snprintf cuts. */
static void fmt_mem(char *buf, size_t bufsz, size_t *o, const char *s, size_t len) {
  if (*o + 1 >= bufsz) return;
  size_t room = bufsz - 1 - *o;
  if (len > room) len = room;
  memcpy(buf + *o, s, len);
  *o += len;
  buf[*o] = '\0';
}

static void fmt_u64(char *buf, size_t bufsz, size_t *o, uint64_t v, int neg) {
  char t[24];
  size_t n = sizeof t;
  do t[--n] = (char)('0' + v % 10); while ((v /= 10) != 0);
  if (neg) t[--n] = '-';
  fmt_mem(buf, bufsz, o, t + n, sizeof t - n);
}

static void fmt_hex(char *buf, size_t bufsz, size_t *o, uint64_t v, int width) {
  static const char hex[] = "0123456789abcdef";
  char t[24];
  size_t n = sizeof t;
  do t[--n] = hex[v & 15]; while ((v >>= 4) != 0 || (int)(sizeof t - n) < width);
  fmt_mem(buf, bufsz, o, t + n, sizeof t - n);
}

static void fmt_value(char *buf, size_t bufsz, size_t *o, int cls, uint64_t v) {
  if (cls == FMT_SIGNED) {
    int64_t s = (int64_t)v;
    fmt_u64(buf, bufsz, o, s < 0 ? 0 - v : v, s < 0);
  } else if (cls == FMT_HEX) {
    fmt_mem(buf, bufsz, o, "0x", 2);
    fmt_hex(buf, bufsz, o, v, 1);
  } else {
    fmt_u64(buf, bufsz, o, v, 0);
  }
}

size_t gcs_event_format(const struct gcs_event *ev, char *buf, size_t bufsz) {
  if (bufsz == 0) return 0;
  buf[0] = '\0';
  if ((int)ev->kind < 0 || ev->kind >= GCS_KIND_COUNT) return 0;
  pthread_once(&fmt_once, fmt_init);
  const struct gcs_event_desc *d = &gcs_event_descs[ev->kind];
  const struct fmt_field *ff = fmt_fields[ev->kind];
  if (!ff) return gcs_event_format_ref(ev, buf, bufsz);
  size_t o = 0;
  for (int i = 0; i < d->nfields; i++) {
    const struct gcs_field_desc *f = &d->fields[i];
    if (ff[i].cls == FMT_SKIP) continue;
    if (ev->origin == GCS_ORIGIN_CLR && f->since > ev->version) continue;
    if (o) fmt_mem(buf, bufsz, &o, " ", 1);
    fmt_mem(buf, bufsz, &o, f->name, strlen(f->name));
    fmt_mem(buf, bufsz, &o, "=", 1);
    switch (ff[i].cls) {
    case FMT_ARRAY: {
      uint64_t n = gcs_field_get_int(ev, &d->fields[f->count_field]);
      if (n > f->capacity) n = f->capacity;
      fmt_mem(buf, bufsz, &o, "[", 1);
      for (uint64_t e = 0; e < n; e++) {
        if (e) fmt_mem(buf, bufsz, &o, ",", 1);
        fmt_u64(buf, bufsz, &o, gcs_field_get_array_int(ev, f, (unsigned)e), 0);
      }
      fmt_mem(buf, bufsz, &o, "]", 1);
      break;
    }
    case FMT_STR: {
      const char *s = gcs_field_get_str(ev, f);
      fmt_mem(buf, bufsz, &o, "\"", 1);
      if (s) fmt_mem(buf, bufsz, &o, s, strlen(s));
      fmt_mem(buf, bufsz, &o, "\"", 1);
      break;
    }
    case FMT_GUID: {
      const uint8_t *g = (const uint8_t *)&ev->u + f->offset;
      for (int b = 0; b < 16; b++) fmt_hex(buf, bufsz, &o, g[b], 2);
      break;
    }
    case FMT_F32: {   /* rare (DATAS' tuning events): printf's %.9g */
      double x = gcs_field_get_f32(ev, f);
      char t[48];
      int n = isfinite(x) ? snprintf(t, sizeof t, "%.9g", x) : snprintf(t, sizeof t, "unknown");
      fmt_mem(buf, bufsz, &o, t, n > 0 ? (size_t)n : 0);
      break;
    }
    case FMT_ENUM: {
      uint64_t v = gcs_field_get_int(ev, f);
      const struct gcs_map_desc *m = ff[i].map;
      const char *name = NULL;
      char flags[160];
      if (m->is_flags) name = gcs_map_text(m, v, flags, sizeof flags) ? flags : NULL;
      else
        for (int e = 0; e < m->nentries && !name && v <= UINT32_MAX; e++)
          if (m->entries[e].value == (uint32_t)v) name = m->entries[e].name;
      if (name) fmt_mem(buf, bufsz, &o, name, strlen(name));
      else fmt_value(buf, bufsz, &o, ff[i].fallback, v);
      break;
    }
    default:
      fmt_value(buf, bufsz, &o, ff[i].cls, gcs_field_get_int(ev, f));
      break;
    }
  }
  return o;
}
