/* trc_ep_flight.c — the EventPipe flight recorder (trc_ep_flight.h). */
#include "trc_ep_flight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct obj {
  struct gcs_nettrace_object o;   /* o.body: the copy below */
  uint8_t *bytes;
};

/* A growable list of objects; the ring is a list whose head advances. */
struct objlist {
  struct obj *v;
  size_t head, n, cap;          /* live objects are v[head .. head+n) */
};

struct trc_epf {
  uint64_t budget, kept, dropped;
  struct obj trace;             /* the Trace object (len 0 until seen) */
  struct objlist meta, ring;
};

static struct obj copy_of(const struct gcs_nettrace_object *o, int *failed) {
  struct obj c = { *o, malloc(o->len ? o->len : 1) };
  *failed = c.bytes == NULL;
  if (c.bytes && o->len) memcpy(c.bytes, o->body, o->len);
  c.o.body = c.bytes;
  return c;
}

static int list_push(struct objlist *l, const struct gcs_nettrace_object *o) {
  if (l->head + l->n == l->cap) {
    if (l->head > l->cap / 2) {          /* reuse the dropped front */
      memmove(l->v, l->v + l->head, l->n * sizeof *l->v);
      l->head = 0;
    } else {
      size_t cap = l->cap ? 2 * l->cap : 256;
      struct obj *v = realloc(l->v, cap * sizeof *v);
      if (!v) return -1;
      l->v = v;
      l->cap = cap;
    }
  }
  int failed;
  struct obj c = copy_of(o, &failed);
  if (failed) return -1;
  l->v[l->head + l->n++] = c;
  return 0;
}

static void list_free(struct objlist *l) {
  for (size_t i = 0; i < l->n; i++) free(l->v[l->head + i].bytes);
  free(l->v);
  memset(l, 0, sizeof *l);
}

struct trc_epf *trc_epf_new(uint64_t budget_bytes) {
  struct trc_epf *f = calloc(1, sizeof *f);
  if (f) f->budget = budget_bytes;
  return f;
}

void trc_epf_free(struct trc_epf *f) {
  if (!f) return;
  free(f->trace.bytes);
  list_free(&f->meta);
  list_free(&f->ring);
  free(f);
}

int trc_epf_add(const struct gcs_nettrace_object *o, void *ud) {
  struct trc_epf *f = ud;
  if (o->kind == GCS_NETTRACE_OBJ_TRACE) {
    int failed;
    struct obj c = copy_of(o, &failed);
    if (failed) return -1;
    free(f->trace.bytes);
    f->trace = c;
    return 0;
  }
  if (o->kind == GCS_NETTRACE_OBJ_METADATA) return list_push(&f->meta, o);
  if (list_push(&f->ring, o)) return -1;
  f->kept += o->len;
  /* Drop the oldest blocks while over budget; the newest always stays. */
  while (f->kept > f->budget && f->ring.n > 1) {
    struct obj *old = &f->ring.v[f->ring.head];
    f->kept -= old->o.len;
    free(old->bytes);
    old->bytes = NULL;
    f->ring.head++;
    f->ring.n--;
    f->dropped++;
  }
  return 0;
}

uint64_t trc_epf_kept_bytes(const struct trc_epf *f) { return f->kept; }
uint64_t trc_epf_dropped(const struct trc_epf *f) { return f->dropped; }

static int write_list(struct gcs_nettrace_writer *w, const struct objlist *l, char *err, size_t errlen) {
  for (size_t i = 0; i < l->n; i++) {
    if (gcs_nettrace_writer_object(w, &l->v[l->head + i].o, err, errlen)) return -1;
  }
  return 0;
}

int trc_epf_write(const struct trc_epf *f, const char *path, char *err, size_t errlen) {
  if (!f->trace.bytes) {
    snprintf(err, errlen, "%s: the stream's header has not arrived yet", path);
    return -1;
  }
  struct gcs_nettrace_writer *w = gcs_nettrace_writer_open(path, err, errlen);
  if (!w) return -1;
  int rc = gcs_nettrace_writer_object(w, &f->trace.o, err, errlen);
  if (!rc) rc = write_list(w, &f->meta, err, errlen);
  if (!rc) rc = write_list(w, &f->ring, err, errlen);
  char err2[512];
  if (gcs_nettrace_writer_close(w, rc ? err2 : err, rc ? sizeof err2 : errlen)) rc = -1;
  return rc;
}
