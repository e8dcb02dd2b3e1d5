/*
 * test_dynamic_decode.c — GCDynamicEvent payloads (Name UTF-16, DataSize u32,
 * Data, ClrInstanceID u16) through gcs_etw_decode, bytes built here:
 * - "CommittedUsage" with Data = version 1 and five i64 (42 bytes) becomes a
 *   GCCommittedUsage event with exactly those values and the ClrInstanceID;
 * - another name stays GCDynamicEvent with its name, size and ClrInstanceID;
 * - a CommittedUsage shorter than 42 bytes stays GCDynamicEvent;
 * - a DataSize past the payload's end, a missing ClrInstanceID, a name
 *   without its NUL: flagged truncated, never read past the end (ASan).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcs_events.h"

struct buf { uint8_t p[256]; size_t n; };
static void put(struct buf *b, const void *d, size_t n) { memcpy(b->p + b->n, d, n); b->n += n; }
static void put16(struct buf *b, uint16_t v) { uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) }; put(b, x, 2); }
static void put32(struct buf *b, uint32_t v) { put16(b, (uint16_t)v); put16(b, (uint16_t)(v >> 16)); }
static void put64(struct buf *b, uint64_t v) { put32(b, (uint32_t)v); put32(b, (uint32_t)(v >> 32)); }
static void name(struct buf *b, const char *s) { while (*s) put16(b, (uint8_t)*s++); put16(b, 0); }

static int decode(struct gcs_event *ev, const struct buf *b, size_t len, char *sb, size_t sbn) {
  memset(ev, 0, sizeof *ev);
  /* the payload in its own allocation, so that ASan sees a read past len */
  uint8_t *p = malloc(len ? len : 1);
  if (!p) abort();
  memcpy(p, b->p, len);
  int rc = gcs_etw_decode(ev, gcs_kind_GCDynamicEvent, 0, p, len, 8, sb, sbn);
  free(p);
  return rc;
}

int main(void) {
  char sb[512];
  struct gcs_event ev;
  struct buf b = {0};
  name(&b, "CommittedUsage");
  put32(&b, 42);
  put16(&b, 1);
  put64(&b, 2183168);
  put64(&b, 8192);
  put64(&b, 4096);
  put64(&b, 12288);
  put64(&b, 229376);
  put16(&b, 3);
  CHECK(decode(&ev, &b, b.n, sb, sizeof sb) == 0);
  CHECK(ev.kind == gcs_kind_GCCommittedUsage && !ev.truncated);
  const struct gcs_ev_GCCommittedUsage *c = &ev.u.GCCommittedUsage;
  CHECK(c->Version == 1 && c->TotalCommittedInUse == 2183168 && c->TotalCommittedInGlobalDecommit == 8192);
  CHECK(c->TotalCommittedInFree == 4096 && c->TotalCommittedInGlobalFree == 12288);
  CHECK(c->TotalBookkeepingCommitted == 229376 && c->ClrInstanceID == 3);

  /* every shorter payload: no read past its end; short of ClrInstanceID: truncated */
  for (size_t len = 0; len < b.n; len++) {
    decode(&ev, &b, len, sb, sizeof sb);
    CHECK(ev.truncated || len == 0);
  }

  struct buf o = {0};
  name(&o, "SizeAdaptationSample");
  put32(&o, 38);
  for (int i = 0; i < 38; i++) { uint8_t z = (uint8_t)i; put(&o, &z, 1); }
  put16(&o, 0);
  CHECK(decode(&ev, &o, o.n, sb, sizeof sb) == 0);
  CHECK(ev.kind == gcs_kind_GCDynamicEvent && !ev.truncated);
  CHECK(strcmp(ev.u.GCDynamicEvent.Name, "SizeAdaptationSample") == 0 && ev.u.GCDynamicEvent.DataSize == 38);

  struct buf s = {0};
  name(&s, "CommittedUsage");
  put32(&s, 10);
  for (int i = 0; i < 10; i++) { uint8_t z = 0; put(&s, &z, 1); }
  put16(&s, 0);
  CHECK(decode(&ev, &s, s.n, sb, sizeof sb) == 0);
  CHECK(ev.kind == gcs_kind_GCDynamicEvent && ev.u.GCDynamicEvent.DataSize == 10);

  struct buf h = {0};
  name(&h, "CommittedUsage");
  put32(&h, 0xfffffff0u);
  put64(&h, 1);
  CHECK(decode(&ev, &h, h.n, sb, sizeof sb) == 0);
  CHECK(ev.truncated && ev.kind == gcs_kind_GCDynamicEvent);
  return check_done();
}
