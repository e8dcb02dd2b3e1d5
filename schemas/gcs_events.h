/*
 * gcs_events.h — C view of schemas/gc_events.def: one struct per event, the
 * event-kind enum, the decoded-event record every decoder produces, and the
 * descriptor tables the generic decoders walk.
 *
 * Conventions
 *  - Ownership: descriptor tables are static and immutable. A struct gcs_event
 *    is plain data owned by whoever declared it; its STR fields point into
 *    memory owned by the decoder that filled it and stay valid only until that
 *    decoder produces its next event (copy what you keep).
 *  - Threading: everything here is reentrant; the only global state is the
 *    payload text's per-field table, built once (pthread_once) and then read.
 *  - Errors: functions return 0 / a valid pointer on success and -1 / NULL on
 *    failure; none of them prints.
 */
#ifndef GCS_EVENTS_H
#define GCS_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gc_events.def"
#include "gcs_enums.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Capacities of per-element arrays (gc_events.def's A() rows name one):
 * SMALL for generations and GC phases; FIT_BUCKETS for GCFitBucketInfo's
 * buckets (CoreCLR's NUM_GEN2_ALIST: gc_heap::bucket_info has 12 elements);
 * HEAPS for arrays with one element per heap (CoreCLR's MAX_SUPPORTED_HEAPS
 * on 64-bit). */
#define GCS_MAX_ARRAY 16
#define GCS_MAX_FIT_BUCKETS 12
#define GCS_MAX_HEAPS 1024
#define GCS_CAP_SMALL GCS_MAX_ARRAY
#define GCS_CAP_FIT_BUCKETS GCS_MAX_FIT_BUCKETS
#define GCS_CAP_HEAPS GCS_MAX_HEAPS

enum gcs_type {
  GCS_T_U8, GCS_T_U16, GCS_T_U32, GCS_T_I32, GCS_T_U64, GCS_T_PTR,
  GCS_T_BOOL, GCS_T_STR, GCS_T_GUID, GCS_T_F32
};

/* C types of the schema's field types. */
#define GCS_CTYPE_U8   uint8_t
#define GCS_CTYPE_U16  uint16_t
#define GCS_CTYPE_U32  uint32_t
#define GCS_CTYPE_I32  int32_t
#define GCS_CTYPE_U64  uint64_t
#define GCS_CTYPE_PTR  uint64_t
#define GCS_CTYPE_BOOL int32_t
#define GCS_CTYPE_STR  const char *
#define GCS_CTYPE_GUID struct gcs_guid
#define GCS_CTYPE_F32  float

struct gcs_guid { uint8_t b[16]; };

/* struct gcs_ev_<Name>: every field of the latest version. */
#define GCS_STRUCT_F(Name, Type, Since, Unit, Doc) GCS_CTYPE_##Type Name;
#define GCS_STRUCT_A(Name, Type, CountField, Cap, Since, Unit, Doc) GCS_CTYPE_##Type Name[GCS_CAP_##Cap];
#define GCS_STRUCT_EV(Name, Symbol, Provider, EtwId, Version, Where, Doc, FIELDS) \
  struct gcs_ev_##Name { FIELDS(GCS_STRUCT_F, GCS_STRUCT_A) };
GCS_EVENT_LIST(GCS_STRUCT_EV)
#undef GCS_STRUCT_EV

enum gcs_kind {
#define GCS_KIND_EV(Name, Symbol, Provider, EtwId, Version, Where, Doc, FIELDS) gcs_kind_##Name,
  GCS_EVENT_LIST(GCS_KIND_EV)
#undef GCS_KIND_EV
  GCS_KIND_COUNT
};

enum gcs_provider { GCS_PROV_NONE, GCS_PROV_RUNTIME, GCS_PROV_PRIVATE, GCS_PROV_RUNDOWN };
enum gcs_where { GCS_RGC_AND_CLR, GCS_CLR_ONLY, GCS_RGC_ONLY };

/* Where a decoded event came from. */
enum gcs_origin { GCS_ORIGIN_RGC, GCS_ORIGIN_CLR };

/* The call stack an event was recorded with (core/stacks resolves it):
 * instruction pointers, leaf first. */
struct gcs_stack {
  uint32_t depth;         /* entries in ip */
  uint8_t truncated;      /* the walk stopped at the recorder's depth limit */
  const uint64_t *ip;
};

/* One decoded event, whatever the source (rgc CTF, CoreCLR CTF, nettrace). */
struct gcs_event {
  enum gcs_kind kind;
  uint8_t version;        /* version of the event as recorded */
  uint8_t origin;         /* enum gcs_origin */
  uint8_t truncated;      /* an array was longer than its capacity, or payload ended early */
  uint64_t ts_ns;         /* ns since the Unix epoch (trace clock with its offset applied) */
  int32_t pid;            /* vpid / nettrace ProcessId; -1 if unknown */
  int32_t tid;            /* vtid / thread id; -1 if unknown */
  int32_t cpu;            /* CPU / processor number; -1 if unknown */
  const struct gcs_stack *stack;  /* NULL: recorded without one; owned by the
                                     decoder, valid as the event's strings are */
  union {
#define GCS_UNION_EV(Name, Symbol, Provider, EtwId, Version, Where, Doc, FIELDS) struct gcs_ev_##Name Name;
    GCS_EVENT_LIST(GCS_UNION_EV)
#undef GCS_UNION_EV
  } u;
};

struct gcs_field_desc {
  const char *name;
  enum gcs_type type;
  uint8_t since;          /* first version with the field */
  uint8_t is_array;       /* A() entry */
  int8_t count_field;     /* for arrays: index of the count field in the event's fields */
  uint16_t capacity;      /* for arrays: elements the struct holds (GCS_CAP_<Cap>); 0 for scalars */
  uint32_t offset;        /* offsetof(struct gcs_ev_<Name>, field) */
  const char *unit;
  const char *doc;
};

struct gcs_event_desc {
  const char *name;       /* canonical name: "GCStart" */
  const char *symbol;     /* rgc LTTng event name: "GCStart_V2" */
  enum gcs_provider provider;
  uint16_t etw_id;
  uint8_t version;        /* latest version */
  enum gcs_where where;
  const char *doc;
  const struct gcs_field_desc *fields;
  int nfields;
  size_t struct_size;
  uint32_t array_elems;   /* Σ capacity of its array fields */
};

struct gcs_map_entry { uint32_t value; const char *name; };
struct gcs_map_desc {
  const char *name;
  int is_flags;
  const char *doc;
  const struct gcs_map_entry *entries;
  int nentries;
};

/* Indexed by enum gcs_kind; filled before main() runs. */
extern const struct gcs_event_desc *const gcs_event_descs;

/* LTTng provider names. */
#define GCS_RGC_PROVIDER "rgc"
#define GCS_CLR_RUNTIME_PROVIDER "DotNETRuntime"
#define GCS_CLR_PRIVATE_PROVIDER "DotNETRuntimePrivate"
#define GCS_CLR_RUNDOWN_PROVIDER "DotNETRuntimeRundown"

/* Look up a full LTTng event name ("rgc:GCStart_V2", "DotNETRuntime:GCStart",
 * "DotNETRuntimePrivate:BGCBegin"). Returns the kind and stores the version
 * and origin; -1 if the event is not one of ours. */
int gcs_kind_from_lttng_name(const char *full_name, int *version, int *origin);

/* Look up by CoreCLR provider (GCS_PROV_RUNTIME / GCS_PROV_PRIVATE), event ID
 * and version (nettrace). -1 if unknown. */
int gcs_kind_from_etw(enum gcs_provider provider, int etw_id, int version);

/* Method events (MethodLoadVerbose, MethodDCEndVerbose): symbols that
 * resolve call stacks, not GC events; import stores no event for them. */
static inline int gcs_kind_is_symbols(enum gcs_kind k) {
  return k == gcs_kind_MethodLoadVerbose || k == gcs_kind_MethodDCEndVerbose;
}

/* Field descriptor of an event by name, NULL if absent. */
const struct gcs_field_desc *gcs_field_find(enum gcs_kind kind, const char *name);

/* Typed setters/getters through a descriptor (integers of any width). */
void gcs_field_set_int(struct gcs_event *ev, const struct gcs_field_desc *f, uint64_t v);
void gcs_field_set_array_int(struct gcs_event *ev, const struct gcs_field_desc *f,
                             unsigned idx, uint64_t v);
void gcs_field_set_str(struct gcs_event *ev, const struct gcs_field_desc *f, const char *s);
uint64_t gcs_field_get_int(const struct gcs_event *ev, const struct gcs_field_desc *f);
uint64_t gcs_field_get_array_int(const struct gcs_event *ev, const struct gcs_field_desc *f,
                                 unsigned idx);
const char *gcs_field_get_str(const struct gcs_event *ev, const struct gcs_field_desc *f);
/* An F32 field's value (the integer accessors carry its IEEE 754 bits). */
double gcs_field_get_f32(const struct gcs_event *ev, const struct gcs_field_desc *f);
static inline double gcs_f32_from_bits(uint32_t bits) {
  float x;
  memcpy(&x, &bits, sizeof x);
  return (double)x;
}

/* 1 if name is a GCDynamicEvent payload this schema decodes into its own
 * event (CommittedUsage, SizeAdaptationSample, ...): such a name left a
 * GCDynamicEvent had a version or size the decoder does not know. */
int gcs_dynamic_name_known(const char *name);

/* Decode an ETW-layout payload (CoreCLR LTTng `__data__`, nettrace payload)
 * of the given kind and version into ev->u. ptr_size is 4 or 8. Strings are
 * converted from UTF-16LE to UTF-8 into strbuf (which must outlive the use of
 * ev). A payload that ends early leaves the missing fields 0 and sets
 * ev->truncated. Returns 0, or -1 if the payload is not decodable. */
int gcs_etw_decode(struct gcs_event *ev, enum gcs_kind kind, int version,
                   const uint8_t *data, size_t len, int ptr_size,
                   char *strbuf, size_t strbuf_len);

/* The GC lifecycle events (gc_events.def's GCS_LIFECYCLE_LIST): their fields
 * the stop triggers read, NULL-terminated, or NULL when k is not one of them. */
const char *const *gcs_lifecycle_fields(enum gcs_kind k);
static inline int gcs_kind_is_lifecycle(enum gcs_kind k) { return gcs_lifecycle_fields(k) != NULL; }

/* Value-map lookups. gcs_map_name returns NULL for an unknown value. */
const struct gcs_map_desc *gcs_map_find(const char *map);
const char *gcs_map_name(const char *map, uint32_t value);
/* A value's text by a map (NULL: no such map): an enum map's name; a flags
 * map's names of the set bits joined by '|' (0: the map's name of 0, if it
 * has one). Writes it to buf (cut at n - 1) and returns its length, or
 * returns 0 and writes "" when any part of the value has no name (the caller
 * prints it as unknown, never a guess). */
size_t gcs_map_text(const struct gcs_map_desc *m, uint64_t value, char *buf, size_t n);
/* Convenience for the common maps. Unknown values give "Unknown". */
const char *gcs_reason_name(uint32_t reason);
const char *gcs_gc_type_name(uint32_t type);

/* "Count=3 Depth=0 Reason=AllocSmall Type=NonConcurrentGC ..." — the payload
 * text of the events table and `gcscope events`. Enum-valued fields print
 * their names, arrays print as [a,b,c]. Returns the length written (always
 * NUL-terminated, truncated to bufsz). */
size_t gcs_event_format(const struct gcs_event *ev, char *buf, size_t bufsz);
/* The same text written with snprintf, field by field: slower, kept as the
 * reference gcs_event_format is tested against (report.payload_text). */
size_t gcs_event_format_ref(const struct gcs_event *ev, char *buf, size_t bufsz);

#ifdef __cplusplus
}
#endif
#endif /* GCS_EVENTS_H */
