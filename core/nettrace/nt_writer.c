/* nt_writer.c — a nettrace file from a stream's objects (gcs_nettrace.h):
 * the stream header, each object with its FastSerialization framing and the
 * 4-byte alignment of block bodies recomputed for its new offset, and the
 * end-of-stream tag. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcs_nettrace.h"

/* FastSerialization tags (as the reader's). */
enum { W_TAG_NULL = 1, W_TAG_BEGIN_PRIVATE = 5, W_TAG_END = 6 };

struct gcs_nettrace_writer {
  FILE *f;
  char path[4096];
  uint64_t off;
  int failed;
};

static void put(struct gcs_nettrace_writer *w, const void *p, size_t n) {
  if (w->failed || n == 0) return;
  if (fwrite(p, 1, n, w->f) != n) w->failed = errno ? errno : EIO;
  w->off += n;
}

static void put_u8(struct gcs_nettrace_writer *w, uint8_t v) { put(w, &v, 1); }

static void put_u32(struct gcs_nettrace_writer *w, uint32_t v) {
  uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
  put(w, b, 4);
}

static int fail(struct gcs_nettrace_writer *w, char *err, size_t errlen) {
  if (err && errlen) snprintf(err, errlen, "%s: %s", w->path, strerror(w->failed ? w->failed : EIO));
  return -1;
}

struct gcs_nettrace_writer *gcs_nettrace_writer_open(const char *path, char *err, size_t errlen) {
  struct gcs_nettrace_writer *w = calloc(1, sizeof *w);
  if (!w) { if (err && errlen) snprintf(err, errlen, "%s: out of memory", path); return NULL; }
  snprintf(w->path, sizeof w->path, "%s", path);
  w->f = fopen(path, "wb");
  if (!w->f) {
    if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(errno));
    free(w);
    return NULL;
  }
  static const char serializer[] = "!FastSerialization.1";
  put(w, "Nettrace", 8);
  put_u32(w, (uint32_t)(sizeof serializer - 1));
  put(w, serializer, sizeof serializer - 1);
  if (w->failed) {
    fail(w, err, errlen);
    fclose(w->f);
    unlink(path);
    free(w);
    return NULL;
  }
  return w;
}

static const char *type_name(enum gcs_nettrace_object_kind k) {
  switch (k) {
  case GCS_NETTRACE_OBJ_TRACE: return "Trace";
  case GCS_NETTRACE_OBJ_METADATA: return "MetadataBlock";
  case GCS_NETTRACE_OBJ_EVENTS: return "EventBlock";
  case GCS_NETTRACE_OBJ_STACKS: return "StackBlock";
  case GCS_NETTRACE_OBJ_SEQPOINT: return "SPBlock";
  }
  return NULL;
}

int gcs_nettrace_writer_object(struct gcs_nettrace_writer *w, const struct gcs_nettrace_object *o, char *err,
                               size_t errlen) {
  const char *name = type_name(o->kind);
  if (!name || o->len > UINT32_MAX) {
    if (err && errlen) snprintf(err, errlen, "%s: not a nettrace object", w->path);
    return -1;
  }
  put_u8(w, W_TAG_BEGIN_PRIVATE);
  put_u8(w, W_TAG_BEGIN_PRIVATE);
  put_u8(w, W_TAG_NULL);
  put_u32(w, (uint32_t)o->version);
  put_u32(w, (uint32_t)o->min_version);
  put_u32(w, (uint32_t)strlen(name));
  put(w, name, strlen(name));
  put_u8(w, W_TAG_END);
  if (o->kind != GCS_NETTRACE_OBJ_TRACE) {
    put_u32(w, (uint32_t)o->len);
    static const uint8_t zeros[3];
    put(w, zeros, (size_t)((4 - (w->off & 3)) & 3));
  }
  put(w, o->body, o->len);
  put_u8(w, W_TAG_END);
  return w->failed ? fail(w, err, errlen) : 0;
}

int gcs_nettrace_writer_close(struct gcs_nettrace_writer *w, char *err, size_t errlen) {
  if (!w) return -1;
  put_u8(w, W_TAG_NULL);
  if (!w->failed && fflush(w->f) != 0) w->failed = errno;
  if (!w->failed && fsync(fileno(w->f)) != 0 && errno != EINVAL) w->failed = errno;
  int rc = w->failed ? fail(w, err, errlen) : 0;
  if (fclose(w->f) != 0 && rc == 0) { w->failed = errno; rc = fail(w, err, errlen); }
  if (rc) unlink(w->path);
  free(w);
  return rc;
}
