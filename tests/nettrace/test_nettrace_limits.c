/*
 * test_nettrace_limits.c — the sort buffer's bound. A file with one
 * EventBlock of GCS_NETTRACE_MAX_PENDING + 1 GCRestartEEEnd events and no
 * sequence point must fail with a clear message (not grow without bound).
 * The same events flagged IsSorted must all be delivered in order, because
 * an IsSorted event lets the reader drain the buffer early.
 */
#include <stdlib.h>

#include "check.h"
#include "nt_internal.h"

struct buf { uint8_t *p; size_t n, cap; };

static void put(struct buf *b, const void *d, size_t n) {
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
static void put_u16z(struct buf *b, const char *s) { while (*s) put16(b, (uint8_t)*s++); put16(b, 0); }

static void type_header(struct buf *b, const char *name, int version) {
  put8(b, 5); put8(b, 5); put8(b, 1);
  put32(b, (uint32_t)version); put32(b, (uint32_t)version);
  put32(b, (uint32_t)strlen(name)); put(b, name, strlen(name));
  put8(b, 6);
}

/* Block object: size, padding to a 4-byte file offset, body; returns the
 * offset of the size field so it can be patched. */
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

static void putvar(struct buf *b, uint64_t v) {
  do { uint8_t c = v & 0x7F; v >>= 7; put8(b, (uint8_t)(c | (v ? 0x80 : 0))); } while (v);
}

/* mode: 0 plain ascending (ts 1, 2, ...); 1 the same flagged IsSorted;
 * 2 the sort bomb of issue 25: every event flagged IsSorted and each one
 * older than all before it (ts nevents, nevents - 1, ..., 1: a delta of
 * 2^64 - 1), so once NT_SORTED_FLUSH_MIN (65,536) events wait every new
 * one asks for a partial delivery of a buffer it has just unsorted.
 * payload: bytes per event (>= 2: ClrInstanceID first). */
static size_t ev_at[8];   /* file offsets of the first 8 event records */

static void make_file_ex(struct buf *b, uint32_t nevents, int mode, uint32_t payload) {
  put(b, "Nettrace", 8); put32(b, 20); put(b, "!FastSerialization.1", 20);
  type_header(b, "Trace", 4);
  const uint16_t st[8] = { 2024, 1, 2, 2, 3, 4, 5, 678 };
  for (int i = 0; i < 8; i++) put16(b, st[i]);
  put64(b, 0); put64(b, 1000000000); put32(b, 8); put32(b, 77); put32(b, 2); put32(b, 1000);
  put8(b, 6);

  size_t at = block_begin(b, "MetadataBlock");
  put16(b, 20); put16(b, 1); put64(b, 0); put64(b, 0);  /* header, compressed */
  struct buf rec = { 0 };
  put32(&rec, 1); put_u16z(&rec, "Microsoft-Windows-DotNETRuntime"); put32(&rec, 3); put_u16z(&rec, "");
  put64(&rec, 1); put32(&rec, 1); put32(&rec, 4); put32(&rec, 0);
  put8(b, 0x80); put8(b, 0); put8(b, (uint8_t)rec.n);  /* flags, ts delta 0, payload size */
  put(b, rec.p, rec.n);
  free(rec.p);
  block_end(b, at);

  at = block_begin(b, "EventBlock");
  put16(b, 20); put16(b, 1); put64(b, 0); put64(b, 0);
  uint8_t sflag = mode ? 0x40 : 0;
  /* First: metadata id 1, thread 9, seq 1, payload (ClrInstanceID 3, zeros). */
  ev_at[0] = b->n;
  put8(b, (uint8_t)(0x01 | 0x02 | 0x04 | 0x80 | sflag));
  put8(b, 1); put8(b, 0); put8(b, 9); put8(b, 0); put8(b, 9);
  putvar(b, mode == 2 ? nevents : 1); putvar(b, payload);
  put16(b, 3); for (uint32_t k = 2; k < payload; k++) put8(b, 0);
  for (uint32_t i = 1; i < nevents; i++) {
    if (i < 8) ev_at[i] = b->n;
    put8(b, sflag); putvar(b, mode == 2 ? UINT64_MAX : 1);
    put16(b, 3); for (uint32_t k = 2; k < payload; k++) put8(b, 0);
  }
  block_end(b, at);
  put8(b, 1);
}

static void make_file(struct buf *b, uint32_t nevents, int sorted) { make_file_ex(b, nevents, sorted, 2); }

struct order { uint64_t n, last_ts, out_of_order; };

static int on_event(const struct gcs_event *ev, void *ud) {
  struct order *o = ud;
  if (ev->ts_ns < o->last_ts || ev->kind != gcs_kind_GCRestartEEEnd) o->out_of_order++;
  o->last_ts = ev->ts_ns;
  o->n++;
  return 0;
}

int main(void) {
  const uint32_t n = GCS_NETTRACE_MAX_PENDING + 1;
  struct buf b = { 0 };
  struct gcs_nettrace_info info;
  char err[512];
  struct order o = { 0 };

  make_file(&b, n, 0);
  int rc = nt_read_buffer("limits.nettrace", b.p, b.n, on_event, &o, &info, err, sizeof err);
  CHECK_EQ_U64(rc, -1);
  CHECK_HAS(err, "limits.nettrace: more than 1048576 GC events between two sequence points");
  CHECK_EQ_U64(o.n, 0);
  free(b.p);

  b = (struct buf){ 0 };
  memset(&o, 0, sizeof o);
  make_file(&b, n, 1);
  rc = nt_read_buffer("sorted.nettrace", b.p, b.n, on_event, &o, &info, err, sizeof err);
  if (rc != 0) fprintf(stderr, "%s\n", err);
  CHECK_EQ_U64(rc, 0);
  CHECK_EQ_U64(o.n, n);
  CHECK_EQ_U64(o.out_of_order, 0);
  CHECK_EQ_U64(info.events_total, n);
  CHECK_EQ_U64(info.events_lost, 0);
  CHECK_EQ_U64(info.pid, 77);
  /* Event i is at tick i (1 ns ticks from SyncTimeQPC 0). */
  CHECK_EQ_U64(info.end_ns - info.start_ns, n);
  free(b.p);

  /* The sort bomb: 200,000 events, each delivered in O(log n). Before the
   * heap this took about 5 ms an event past the 65,536th (CTest's TIMEOUT
   * of this test fails it). Event k (0-based) has ts nevents - k; from the
   * 65,536th on each is the oldest waiting and is delivered at once, so
   * every one of them after the first is late; the 65,535 left are
   * delivered in order at the end, none of them older than what went
   * before. */
  {
    const uint32_t nb = 200000;
    b = (struct buf){ 0 };
    memset(&o, 0, sizeof o);
    make_file_ex(&b, nb, 2, 2);
    rc = nt_read_buffer("bomb.nettrace", b.p, b.n, on_event, &o, &info, err, sizeof err);
    if (rc != 0) fprintf(stderr, "%s\n", err);
    CHECK_EQ_U64(rc, 0);
    CHECK_EQ_U64(o.n, nb);
    CHECK_EQ_U64(info.events_total, nb);
    CHECK_EQ_U64(info.events_late, nb - 65536);
    free(b.p);
  }

  /* The byte cap: 5 events of 300,000 bytes under a 1 MiB cap (1,048,576):
   * the fourth (900,000 waiting + 300,000) is refused. */
  {
    b = (struct buf){ 0 };
    memset(&o, 0, sizeof o);
    make_file_ex(&b, 5, 0, 300000);
    rc = nt_read_buffer_limited("fat.nettrace", b.p, b.n, 0, 1u << 20, on_event, &o, &info, err, sizeof err);
    CHECK_EQ_U64(rc, -1);
    char want[256];
    snprintf(want, sizeof want, "fat.nettrace: more than 1 MiB of GC event payloads between two sequence points "
             "(an event of 300000 bytes on top of 900000 waiting) (at byte %zu)", ev_at[3]);
    CHECK_STR(err, want);
    CHECK_EQ_U64(o.n, 0);
    free(b.p);
  }

  return check_done();
}
