/*
 * gcs_pb.h — the protocol-buffers encoder of gcscope's binary exports (the
 * Perfetto trace of `gcscope export`, the pprof profile of `gcscope
 * stacks`): a growable byte buffer and the wire types (varint, 64-bit,
 * length-delimited). Messages are built bottom-up: a child buffer is
 * appended to its parent as one length-delimited field.
 *
 * Ownership: a struct gcs_pb owns its bytes (gcs_pb_free). Threading: one
 * thread per buffer. Errors: out of memory sets oom (the buffer then stops
 * growing); callers test it once, at the end.
 */
#ifndef GCS_PB_H
#define GCS_PB_H

#include <stddef.h>
#include <stdint.h>

enum { GCS_PB_WT_VARINT = 0, GCS_PB_WT_I64 = 1, GCS_PB_WT_LEN = 2 };

struct gcs_pb {
  unsigned char *p;
  size_t n, cap;
  int oom;
};

void gcs_pb_put(struct gcs_pb *b, const void *data, size_t len);
void gcs_pb_varint(struct gcs_pb *b, uint64_t v);
void gcs_pb_tag(struct gcs_pb *b, unsigned field, unsigned wire_type);
void gcs_pb_uint(struct gcs_pb *b, unsigned field, uint64_t v);
/* int32/int64 fields: two's complement as a 64-bit varint (not zigzag) */
void gcs_pb_int(struct gcs_pb *b, unsigned field, int64_t v);
void gcs_pb_double(struct gcs_pb *b, unsigned field, double d);
void gcs_pb_bytes(struct gcs_pb *b, unsigned field, const void *data, size_t len);
void gcs_pb_str(struct gcs_pb *b, unsigned field, const char *s);
/* Appends child as the length-delimited field and empties child. */
void gcs_pb_msg(struct gcs_pb *b, unsigned field, struct gcs_pb *child);
void gcs_pb_free(struct gcs_pb *b);

#endif /* GCS_PB_H */
