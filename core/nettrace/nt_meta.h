/*
 * nt_meta.h — decode one nettrace metadata record (the payload of an event
 * blob in a MetadataBlock) into what the reader needs: which gcscope event
 * kind, if any, the metadata id stands for, and the event version.
 */
#ifndef NT_META_H
#define NT_META_H

#include <stddef.h>
#include <stdint.h>

enum {
  NT_META_SKIP = -1,         /* an event gcscope does not decode */
  NT_META_PROCESSINFO = -2,  /* Microsoft-DotNETCore-EventPipe/ProcessInfo */
};

struct nt_meta {
  int16_t kind;     /* enum gcs_kind, or NT_META_SKIP / NT_META_PROCESSINFO */
  uint8_t version;  /* event version (clamped to 255) */
  uint8_t v5_tags;  /* the record carries format-V5 metadata tags */
  uint16_t req;     /* request events: 1 + index of its layout (nt_requests.h), else 0 */
};

/* What a request pair needs of a record: its names and the top-level
 * fields' TypeCodes and names (nfields < 0: the description is missing or
 * holds a nested one; fields past it are unknown). */
#define NT_META_MAX_FIELDS 16
struct nt_meta_names {
  char provider[128];
  char event[64];
  uint32_t event_id;
  int nfields;
  uint32_t typecode[NT_META_MAX_FIELDS];
  char field[NT_META_MAX_FIELDS][32];
};

/* Parse the record; stores its metadata id. 0, or -1 if the fixed header
 * (id, provider, event id, name, keywords, version, level) is cut short.
 * Field descriptions are skipped; a malformed description only means no
 * V5 tags are looked for. */
int nt_meta_parse(const uint8_t *payload, size_t len, uint32_t *meta_id, struct nt_meta *out);
/* The same record's names and field list, for an event nt_meta_parse
 * skipped (names is filled even when it returns -1 past the header). */
int nt_meta_names(const uint8_t *payload, size_t len, struct nt_meta_names *names);

#endif /* NT_META_H */
