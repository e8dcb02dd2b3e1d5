/*
 * nt_requests.h — EventSource start/stop pairs as gcscope request events
 * (SourceRequestStart/Stop): which metadata records are request events
 * (the built-in pairs and the specs a stream was given), and their decoding
 * from the event's header (activity id, thread) and payload (method, path,
 * a named key field). Owned by the reader; not thread-safe.
 */
#ifndef NT_REQUESTS_H
#define NT_REQUESTS_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_nettrace.h"
#include "nt_meta.h"

#define NT_REQ_MAX_LAYOUTS 256   /* request event records kept (a hostile file may define more: skipped) */
#define NT_REQ_PREFIX 20         /* bytes put before a pending request event's payload */

struct nt_req_layout {
  int start;                     /* 1 start event, 0 stop event */
  uint8_t source;                /* enum gcs_nettrace_req_source */
  int nfields;
  uint32_t typecode[NT_META_MAX_FIELDS];
  int8_t method_i, path_i, key_i; /* field indexes, -1 if absent */
};

struct nt_req {
  struct gcs_nettrace_reqspec specs[GCS_NETTRACE_MAX_REQSPECS];
  int nspecs;
  struct nt_req_layout *layouts;
  size_t nlayouts;
  uint8_t *scratch;              /* prefix + payload of the event being queued */
  size_t scratch_cap;
};

/* Built-in specs (ASP.NET Core hosting, HttpClient) in place. */
void nt_req_init(struct nt_req *q);
void nt_req_free(struct nt_req *q);
int nt_req_add(struct nt_req *q, const struct gcs_nettrace_reqspec *spec);
/* A record nt_meta_parse skipped: when it is a request event, sets m->kind
 * and m->req. -1 when out of memory. */
int nt_req_match(struct nt_req *q, const uint8_t *payload, size_t len, struct nt_meta *m);
/* The bytes to queue for a request event: the prefix (activity id, layout)
 * then the payload; NULL when out of memory. */
const uint8_t *nt_req_pack(struct nt_req *q, const struct nt_meta *m, const uint8_t activity[16],
                           const uint8_t *payload, uint32_t len, uint32_t *out_len);
/* Fill ev (kind already set; tid set) from packed bytes; strings go to
 * strbuf (cap bytes). */
void nt_req_decode(const struct nt_req *q, struct gcs_event *ev, const uint8_t *packed, uint32_t len,
                   char *strbuf, size_t cap);

#endif /* NT_REQUESTS_H */
