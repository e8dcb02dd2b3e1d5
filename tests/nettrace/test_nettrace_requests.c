/*
 * test_nettrace_requests.c — EventSource start/stop pairs read as
 * SourceRequestStart/Stop (core/nettrace/nt_requests.c) from a hand-built
 * file: ASP.NET Core hosting's RequestStart(method, path)/RequestStop()
 * paired by the header's ActivityID (carried over between compressed
 * headers), a custom pair keyed by a payload field, an unterminated string
 * (hostile payload: the strings are empty, the event still pairs), a zero
 * activity id (keyed by the thread), and the custom pair not delivered when
 * the stream was not given it. Every expected value is computed here from
 * the bytes written.
 */
#include <stdlib.h>

#include "check.h"
#include "gcs_nettrace.h"

struct buf { uint8_t *p; size_t n, cap; };

static void put(struct buf *b, const void *d, size_t n) {
  if (n == 0) return;
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2;
    b->p = realloc(b->p, b->cap);
    if (!b->p) abort();
  }
  memcpy(b->p + b->n, d, n);
  b->n += n;
}
static void put8(struct buf *b, uint8_t v) { put(b, &v, 1); }
static void put16(struct buf *b, uint16_t v) { uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) }; put(b, x, 2); }
static void put32(struct buf *b, uint32_t v) { put16(b, (uint16_t)v); put16(b, (uint16_t)(v >> 16)); }
static void put64(struct buf *b, uint64_t v) { put32(b, (uint32_t)v); put32(b, (uint32_t)(v >> 32)); }
static void put_varint(struct buf *b, uint32_t v) {
  while (v >= 0x80) { put8(b, (uint8_t)(v | 0x80)); v >>= 7; }
  put8(b, (uint8_t)v);
}
static void put_u16z(struct buf *b, const char *s) { while (*s) put16(b, (uint8_t)*s++); put16(b, 0); }
static void put_u16(struct buf *b, const char *s) { while (*s) put16(b, (uint8_t)*s++); }

static void type_header(struct buf *b, const char *name, int version) {
  put8(b, 5); put8(b, 5); put8(b, 1);
  put32(b, (uint32_t)version); put32(b, (uint32_t)version);
  put32(b, (uint32_t)strlen(name)); put(b, name, strlen(name));
  put8(b, 6);
}
static size_t block_begin(struct buf *b, const char *name) {
  type_header(b, name, 2);
  size_t at = b->n;
  put32(b, 0);
  while (b->n % 4) put8(b, 0);
  return at;
}
static void block_end(struct buf *b, size_t size_at) {
  uint32_t size = (uint32_t)(b->n - ((size_at + 4 + 3) & ~(size_t)3));
  for (int i = 0; i < 4; i++) b->p[size_at + i] = (uint8_t)(size >> (8 * i));
  put8(b, 6);
}

/* A metadata record: id, provider, event id, name, keywords, version,
 * level, then nf fields (TypeCode, name). */
static void meta(struct buf *b, uint32_t id, const char *prov, uint32_t ev, const char *name, int nf,
                 const uint32_t *tc, const char *const *fn) {
  struct buf r = { 0 };
  put32(&r, id); put_u16z(&r, prov); put32(&r, ev); put_u16z(&r, name);
  put64(&r, 0); put32(&r, 0); put32(&r, 4);
  put32(&r, (uint32_t)nf);
  for (int i = 0; i < nf; i++) { put32(&r, tc[i]); put_u16z(&r, fn[i]); }
  put8(b, 0x80); put8(b, 0); put_varint(b, (uint32_t)r.n);
  put(b, r.p, r.n);
  free(r.p);
}

static const uint8_t A1[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t A2[16] = { 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
static const uint8_t A3[16] = { 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7 };
static const uint8_t Z[16] = { 0 };

/* One compressed event: metadata id, thread 9 (first event: capture info
 * too), ts delta 1, activity (NULL: carried over), payload. */
static void event(struct buf *b, int first, uint8_t meta_id, const uint8_t *act, const struct buf *pl) {
  uint8_t f = 0x01 | 0x80 | (first ? 0x02 | 0x04 : 0) | (act ? 0x10 : 0);
  put8(b, f);
  put8(b, meta_id);
  if (first) { put8(b, 0); put8(b, 9); put8(b, 0); put8(b, 9); }
  put8(b, 1);
  if (act) put(b, act, 16);
  put_varint(b, (uint32_t)pl->n);
  put(b, pl->p, pl->n);
}

static void make(struct buf *b) {
  put(b, "Nettrace", 8); put32(b, 20); put(b, "!FastSerialization.1", 20);
  type_header(b, "Trace", 4);
  const uint16_t st[8] = { 2024, 1, 2, 2, 3, 4, 5, 678 };
  for (int i = 0; i < 8; i++) put16(b, st[i]);
  put64(b, 0); put64(b, 1000000000); put32(b, 8); put32(b, 77); put32(b, 2); put32(b, 1000);
  put8(b, 6);

  size_t at = block_begin(b, "MetadataBlock");
  put16(b, 20); put16(b, 1); put64(b, 0); put64(b, 0);
  static const uint32_t str2[2] = { 18, 18 }, idpath[2] = { 11, 18 }, id1[1] = { 11 };
  static const char *const mp[2] = { "method", "path" }, *const ip[2] = { "id", "path" }, *const io[1] = { "id" };
  meta(b, 1, "Microsoft.AspNetCore.Hosting", 3, "RequestStart", 2, str2, mp);
  meta(b, 2, "Microsoft.AspNetCore.Hosting", 4, "RequestStop", 0, NULL, NULL);
  meta(b, 3, "My-Src", 1, "WorkBegin", 2, idpath, ip);
  meta(b, 4, "My-Src", 2, "WorkEnd", 1, id1, io);
  block_end(b, at);

  at = block_begin(b, "EventBlock");
  put16(b, 20); put16(b, 1); put64(b, 0); put64(b, 0);
  struct buf get = { 0 }, post = { 0 }, none = { 0 }, cut = { 0 }, wb = { 0 }, we = { 0 };
  put_u16z(&get, "GET"); put_u16z(&get, "/a");
  put_u16z(&post, "POST"); put_u16z(&post, "/b");
  put_u16(&cut, "GET");                        /* no terminator: the string runs off the payload */
  put64(&wb, 42); put_u16z(&wb, "/w");
  put64(&we, 42);
  event(b, 1, 1, A1, &get);      /* 1 start A1 GET /a */
  event(b, 0, 1, A2, &post);     /* 2 start A2 POST /b */
  event(b, 0, 2, A1, &none);     /* 3 stop A1 */
  event(b, 0, 2, NULL, &none);   /* 4 stop, activity carried over: A1 again */
  event(b, 0, 2, A2, &none);     /* 5 stop A2 */
  event(b, 0, 1, A3, &cut);      /* 6 start A3, hostile payload */
  event(b, 0, 3, Z, &wb);        /* 7 WorkBegin id 42 */
  event(b, 0, 4, NULL, &we);     /* 8 WorkEnd id 42 (activity still zero) */
  event(b, 0, 1, NULL, &get);    /* 9 start with activity zero: keyed by thread 9 */
  free(get.p); free(post.p); free(cut.p); free(wb.p); free(we.p);
  block_end(b, at);
  put8(b, 1);
}

struct got { int n; struct gcs_event ev[16]; char method[16][16], path[16][16]; };

static int on_event(const struct gcs_event *ev, void *ud) {
  struct got *g = ud;
  if (g->n >= 16) return 0;
  g->ev[g->n] = *ev;
  snprintf(g->method[g->n], 16, "%s", ev->u.SourceRequestStart.Method);
  snprintf(g->path[g->n], 16, "%s", ev->u.SourceRequestStart.Path);
  g->n++;
  return 0;
}

static uint64_t fold(const uint8_t *a) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < 16; i++) h = (h ^ a[i]) * 1099511628211ull;
  return h & 0x3FFFFFFFFFFFFFFFull;
}

static int read_it(const struct buf *b, int custom, struct got *g) {
  memset(g, 0, sizeof *g);
  struct gcs_nettrace_stream *s = gcs_nettrace_stream_new("req.nettrace", on_event, NULL, g);
  char err[300];
  if (custom) {
    struct gcs_nettrace_reqspec spec;
    CHECK_EQ_INT(gcs_nettrace_reqspec_parse("My-Src:WorkBegin:WorkEnd:id", &spec, err, sizeof err), 0);
    CHECK_EQ_INT(gcs_nettrace_stream_add_requests(s, &spec), 0);
  }
  int rc = gcs_nettrace_stream_feed(s, b->p, b->n, err, sizeof err);
  if (rc == 0) rc = gcs_nettrace_stream_finish(s, err, sizeof err);
  if (rc) fprintf(stderr, "%s\n", err);
  gcs_nettrace_stream_free(s);
  return rc;
}

int main(void) {
  struct buf b = { 0 };
  make(&b);
  static struct got g;
  CHECK_EQ_INT(read_it(&b, 1, &g), 0);
  CHECK_EQ_INT(g.n, 9);
  const enum gcs_kind kind[9] = { gcs_kind_SourceRequestStart, gcs_kind_SourceRequestStart, gcs_kind_SourceRequestStop,
                                  gcs_kind_SourceRequestStop, gcs_kind_SourceRequestStop, gcs_kind_SourceRequestStart,
                                  gcs_kind_SourceRequestStart, gcs_kind_SourceRequestStop, gcs_kind_SourceRequestStart };
  const uint64_t id[9] = { fold(A1), fold(A2), fold(A1), fold(A1), fold(A2), fold(A3), 42, 42, (1ull << 62) | 9 };
  const uint8_t src[9] = { 1, 1, 1, 1, 1, 1, 3, 3, 1 };
  const char *const method[9] = { "GET", "POST", "", "", "", "", "", "", "GET" };
  const char *const path[9] = { "/a", "/b", "", "", "", "", "/w", "", "/a" };
  for (int i = 0; i < 9 && i < g.n; i++) {
    CHECK_EQ_INT(g.ev[i].kind, kind[i]);
    CHECK_EQ_U64(g.ev[i].u.SourceRequestStart.Id, id[i]);
    CHECK_EQ_INT(g.ev[i].u.SourceRequestStart.Source, src[i]);
    CHECK_STR(g.method[i], method[i]);
    CHECK_STR(g.path[i], path[i]);
    CHECK_EQ_INT(g.ev[i].tid, 9);
  }
  CHECK(fold(A1) != fold(A2));
  /* Without the custom pair: its two events are not request events. */
  CHECK_EQ_INT(read_it(&b, 0, &g), 0);
  CHECK_EQ_INT(g.n, 7);
  /* Spec syntax errors. */
  struct gcs_nettrace_reqspec spec;
  char err[300];
  CHECK_EQ_INT(gcs_nettrace_reqspec_parse("My-Src:WorkBegin", &spec, err, sizeof err), -1);
  CHECK_EQ_INT(gcs_nettrace_reqspec_parse("a:b:c:d:e", &spec, err, sizeof err), -1);
  CHECK_EQ_INT(gcs_nettrace_reqspec_parse("bad name:b:c", &spec, err, sizeof err), -1);
  CHECK_EQ_INT(gcs_nettrace_reqspec_parse("::", &spec, err, sizeof err), -1);
  CHECK_EQ_INT(gcs_nettrace_reqspec_parse("aspnet", &spec, err, sizeof err), 0);
  CHECK_STR(spec.provider, "Microsoft.AspNetCore.Hosting");
  /* Every prefix of the file reads without a crash (cut streams). */
  for (size_t n = 1; n < b.n; n++) {
    struct gcs_nettrace_stream *s = gcs_nettrace_stream_new("cut", on_event, NULL, &g);
    g.n = 0;
    if (gcs_nettrace_stream_feed(s, b.p, n, err, sizeof err) == 0) (void)gcs_nettrace_stream_finish(s, err, sizeof err);
    gcs_nettrace_stream_free(s);
  }
  free(b.p);
  return check_done();
}
