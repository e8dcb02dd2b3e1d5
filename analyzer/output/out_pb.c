/* out_pb.c — the protocol-buffers encoder (gcs_pb.h). */
#include "gcs_pb.h"

#include <stdlib.h>
#include <string.h>

void gcs_pb_put(struct gcs_pb *b, const void *data, size_t len) {
  if (b->oom || len == 0) return;   /* data may be NULL when len is 0 */
  if (b->n + len > b->cap) {
    size_t c = b->cap ? b->cap * 2 : 256;
    while (c < b->n + len) c *= 2;
    unsigned char *q = realloc(b->p, c);
    if (!q) { b->oom = 1; return; }
    b->p = q;
    b->cap = c;
  }
  memcpy(b->p + b->n, data, len);
  b->n += len;
}

void gcs_pb_varint(struct gcs_pb *b, uint64_t v) {
  unsigned char buf[10];
  size_t k = 0;
  do {
    buf[k] = (unsigned char)(v & 0x7f);
    v >>= 7;
    if (v) buf[k] |= 0x80;
    k++;
  } while (v);
  gcs_pb_put(b, buf, k);
}

void gcs_pb_tag(struct gcs_pb *b, unsigned field, unsigned wt) { gcs_pb_varint(b, (uint64_t)field << 3 | wt); }
void gcs_pb_uint(struct gcs_pb *b, unsigned field, uint64_t v) { gcs_pb_tag(b, field, GCS_PB_WT_VARINT); gcs_pb_varint(b, v); }
/* int32/int64 fields: two's complement as a 64-bit varint (not zigzag) */
void gcs_pb_int(struct gcs_pb *b, unsigned field, int64_t v) { gcs_pb_uint(b, field, (uint64_t)v); }

void gcs_pb_double(struct gcs_pb *b, unsigned field, double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  unsigned char le[8];
  for (int i = 0; i < 8; i++) le[i] = (unsigned char)(u >> (8 * i));
  gcs_pb_tag(b, field, GCS_PB_WT_I64);
  gcs_pb_put(b, le, sizeof le);
}

void gcs_pb_bytes(struct gcs_pb *b, unsigned field, const void *data, size_t len) {
  gcs_pb_tag(b, field, GCS_PB_WT_LEN);
  gcs_pb_varint(b, len);
  gcs_pb_put(b, data, len);
}

void gcs_pb_str(struct gcs_pb *b, unsigned field, const char *s) { gcs_pb_bytes(b, field, s, strlen(s)); }

/* Appends child as the length-delimited field and empties child. */
void gcs_pb_msg(struct gcs_pb *b, unsigned field, struct gcs_pb *child) {
  if (child->oom) b->oom = 1;
  gcs_pb_bytes(b, field, child->p ? child->p : (unsigned char *)"", child->n);
  child->n = 0;
}

void gcs_pb_free(struct gcs_pb *b) { free(b->p); memset(b, 0, sizeof *b); }
