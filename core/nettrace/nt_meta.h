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
};

/* Parse the record; stores its metadata id. 0, or -1 if the fixed header
 * (id, provider, event id, name, keywords, version, level) is cut short.
 * Field descriptions are skipped; a malformed description only means no
 * V5 tags are looked for. */
int nt_meta_parse(const uint8_t *payload, size_t len, uint32_t *meta_id, struct nt_meta *out);

#endif /* NT_META_H */
