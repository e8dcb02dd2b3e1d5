/*
 * test_gcfields_decode.c — issue 26's events decoded from bytes written here
 * by hand:
 *  - GCLOHCompact (runtime provider, event 208, version 0): u16
 *    ClrInstanceID, u16 Count, then Count elements of the runtime's C struct
 *    copied raw: u32 TimePlan, u32 TimeCompact, u32 TimeRelocate, 4 bytes of
 *    padding, u64 TotalRefs, u64 ZeroRefs (32 B on 64-bit; 20 B, no padding,
 *    on 32-bit). A .NET 10.0.12 recording (gcprog lohcompact) sent 36 bytes:
 *    00 00 01 00 04 00 00 00 f1 04 00 00 then 20 zero bytes;
 *  - GCFitBucketInfo (event 209): u16 ClrInstanceID, u16 BucketKind, u64
 *    TotalSize, u16 Count, then elements u16 Index, 2 bytes of padding, u32
 *    Count, pointer Size (16 B on 64-bit, 12 B on 32-bit);
 *  - BGCRevisit (private provider, event 21): u64 Pages, u64 Objects, u32
 *    IsLarge, u16 ClrInstanceID.
 * Padding bytes are 0xEE, so reading one as data shows. GCLOHCompact of 24,
 * 1024 (the per-heap arrays' capacity) and 1025 heaps checks every heap.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "gcs_events.h"

static size_t put(uint8_t *p, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
  return at + (size_t)n;
}

int main(void) {
  struct gcs_event ev;
  char sb[64];
  uint8_t b[256];

  /* GCLOHCompact, two heaps, 64-bit */
  CHECK(gcs_kind_from_etw(GCS_PROV_RUNTIME, 208, 0) == gcs_kind_GCLOHCompact);
  size_t n = 0;
  n = put(b, n, 3, 2);
  n = put(b, n, 2, 2);
  for (int h = 0; h < 2; h++) {
    n = put(b, n, 4 + h, 4);
    n = put(b, n, 1265 + h, 4);
    n = put(b, n, 7 + h, 4);
    n = put(b, n, 0xEEEEEEEEu, 4);
    n = put(b, n, 1000 + h, 8);
    n = put(b, n, 10 + h, 8);
  }
  CHECK_EQ_U64(n, 4 + 2 * 32);
  memset(&ev, 0, sizeof ev);
  CHECK(gcs_etw_decode(&ev, gcs_kind_GCLOHCompact, 0, b, n, 8, sb, sizeof sb) == 0);
  const struct gcs_ev_GCLOHCompact *l = &ev.u.GCLOHCompact;
  CHECK(!ev.truncated);
  CHECK_EQ_U64(l->ClrInstanceID, 3);
  CHECK_EQ_U64(l->Count, 2);
  CHECK_EQ_U64(l->TimePlan[1], 5);
  CHECK_EQ_U64(l->TimeCompact[0], 1265);
  CHECK_EQ_U64(l->TimeCompact[1], 1266);
  CHECK_EQ_U64(l->TimeRelocate[1], 8);
  CHECK_EQ_U64(l->TotalRefs[0], 1000);
  CHECK_EQ_U64(l->TotalRefs[1], 1001);
  CHECK_EQ_U64(l->ZeroRefs[1], 11);

  /* The same on 32-bit: 20-byte elements, no padding */
  n = 0;
  n = put(b, n, 0, 2);
  n = put(b, n, 1, 2);
  n = put(b, n, 4, 4);
  n = put(b, n, 1265, 4);
  n = put(b, n, 9, 4);
  n = put(b, n, 77, 4);
  n = put(b, n, 5, 4);
  memset(&ev, 0, sizeof ev);
  CHECK(gcs_etw_decode(&ev, gcs_kind_GCLOHCompact, 0, b, n, 4, sb, sizeof sb) == 0);
  CHECK(!ev.truncated);
  CHECK_EQ_U64(ev.u.GCLOHCompact.TimeRelocate[0], 9);
  CHECK_EQ_U64(ev.u.GCLOHCompact.TotalRefs[0], 77);
  CHECK_EQ_U64(ev.u.GCLOHCompact.ZeroRefs[0], 5);

  /* The recorded .NET 10 payload, byte for byte */
  static const uint8_t rec[36] = { 0x00, 0x00, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00, 0xf1, 0x04, 0x00, 0x00 };
  memset(&ev, 0, sizeof ev);
  CHECK(gcs_etw_decode(&ev, gcs_kind_GCLOHCompact, 0, rec, sizeof rec, 8, sb, sizeof sb) == 0);
  CHECK(!ev.truncated);
  CHECK_EQ_U64(ev.u.GCLOHCompact.TimePlan[0], 4);
  CHECK_EQ_U64(ev.u.GCLOHCompact.TimeCompact[0], 1265);
  /* cut inside the element's last field: flagged */
  memset(&ev, 0, sizeof ev);
  CHECK(gcs_etw_decode(&ev, gcs_kind_GCLOHCompact, 0, rec, 30, 8, sb, sizeof sb) == 0);
  CHECK(ev.truncated);

  /* Server GCs of 24 and 1024 heaps (CoreCLR's most on 64-bit: the
   * capacity of the per-heap arrays), 64- and 32-bit, every heap's values
   * distinct; then 1025 heaps, one more than any runtime sends: the first
   * 1024 kept, Count cut to 1024 and the event flagged truncated (recon
   * leaves it out). */
  CHECK_EQ_U64(gcs_field_find(gcs_kind_GCLOHCompact, "TimePlan")->capacity, 1024);
  CHECK_EQ_U64(gcs_field_find(gcs_kind_GCLOHCompact, "ZeroRefs")->capacity, 1024);
  CHECK_EQ_U64(gcs_field_find(gcs_kind_GCFitBucketInfo, "Size")->capacity, GCS_MAX_FIT_BUCKETS);
  CHECK_EQ_U64(GCS_MAX_FIT_BUCKETS, 12);  /* CoreCLR's NUM_GEN2_ALIST (gcpriv.h) */
  CHECK_EQ_U64(gcs_field_find(gcs_kind_GCPerHeapHistory, "SizeBefore")->capacity, 16);
  static uint8_t big[4 + 32 * 1025];
  static const int heaps[] = { 24, 1024, 1025 };
  for (int ptr = 4; ptr <= 8; ptr += 4)
    for (int c = 0; c < 3; c++) {
      int nh = heaps[c];
      n = 0;
      n = put(big, n, 3, 2);
      n = put(big, n, (uint64_t)nh, 2);
      for (int h = 0; h < nh; h++) {
        n = put(big, n, 1000u + (unsigned)h, 4);
        n = put(big, n, 200000u + 3u * (unsigned)h, 4);
        n = put(big, n, 50000u + 7u * (unsigned)h, 4);
        if (ptr == 8) n = put(big, n, 0xEEEEEEEEu, 4);
        n = put(big, n, 1000000000u + 1001u * (unsigned)h, (int)ptr);
        n = put(big, n, 13u * (unsigned)h, (int)ptr);
      }
      CHECK_EQ_U64(n, 4 + (size_t)nh * (ptr == 8 ? 32 : 20));
      memset(&ev, 0, sizeof ev);
      CHECK(gcs_etw_decode(&ev, gcs_kind_GCLOHCompact, 0, big, n, ptr, sb, sizeof sb) == 0);
      const struct gcs_ev_GCLOHCompact *L = &ev.u.GCLOHCompact;
      int kept = nh > 1024 ? 1024 : nh;
      CHECK_EQ_INT(ev.truncated, nh > 1024);
      CHECK_EQ_U64(L->Count, (uint64_t)kept);
      int bad = 0;
      for (int h = 0; h < kept; h++)
        bad += L->TimePlan[h] != 1000u + (unsigned)h || L->TimeCompact[h] != 200000u + 3u * (unsigned)h ||
               L->TimeRelocate[h] != 50000u + 7u * (unsigned)h || L->TotalRefs[h] != 1000000000u + 1001u * (unsigned)h ||
               L->ZeroRefs[h] != 13u * (unsigned)h;
      CHECK_EQ_INT(bad, 0);
      /* the payload text lists every kept heap: its last ZeroRefs ends it */
      static char t[1 << 17];
      size_t tl = gcs_event_format(&ev, t, sizeof t);
      char tail[48];
      snprintf(tail, sizeof tail, ",%u]", 13u * (unsigned)(kept - 1));
      CHECK(tl < sizeof t && tl > strlen(tail) && strcmp(t + tl - strlen(tail), tail) == 0);
    }

  /* GCFitBucketInfo, three buckets, 64-bit */
  CHECK(gcs_kind_from_etw(GCS_PROV_RUNTIME, 209, 0) == gcs_kind_GCFitBucketInfo);
  n = 0;
  n = put(b, n, 0, 2);
  n = put(b, n, GCS_BUCKET_KIND_PLUG, 2);
  n = put(b, n, 123456789, 8);
  n = put(b, n, 3, 2);
  for (int i = 0; i < 3; i++) {
    n = put(b, n, 2 + i, 2);
    n = put(b, n, 0xEEEE, 2);
    n = put(b, n, 100 + i, 4);
    n = put(b, n, 4096u << i, 8);
  }
  CHECK_EQ_U64(n, 14 + 3 * 16);
  memset(&ev, 0, sizeof ev);
  CHECK(gcs_etw_decode(&ev, gcs_kind_GCFitBucketInfo, 0, b, n, 8, sb, sizeof sb) == 0);
  const struct gcs_ev_GCFitBucketInfo *f = &ev.u.GCFitBucketInfo;
  CHECK(!ev.truncated);
  CHECK_EQ_U64(f->BucketKind, GCS_BUCKET_KIND_PLUG);
  CHECK_EQ_U64(f->TotalSize, 123456789);
  CHECK_EQ_U64(f->Count, 3);
  CHECK_EQ_U64(f->Index[2], 4);
  CHECK_EQ_U64(f->ItemCount[0], 100);
  CHECK_EQ_U64(f->ItemCount[2], 102);
  CHECK_EQ_U64(f->Size[1], 8192);
  CHECK_EQ_U64(f->Size[2], 16384);
  /* 32-bit: 12-byte elements */
  n = 0;
  n = put(b, n, 0, 2);
  n = put(b, n, GCS_BUCKET_KIND_FL_ITEM, 2);
  n = put(b, n, 500, 8);
  n = put(b, n, 2, 2);
  for (int i = 0; i < 2; i++) {
    n = put(b, n, 7 + i, 2);
    n = put(b, n, 0xEEEE, 2);
    n = put(b, n, 3 + i, 4);
    n = put(b, n, 200 + i, 4);
  }
  memset(&ev, 0, sizeof ev);
  CHECK(gcs_etw_decode(&ev, gcs_kind_GCFitBucketInfo, 0, b, n, 4, sb, sizeof sb) == 0);
  CHECK(!ev.truncated);
  CHECK_EQ_U64(ev.u.GCFitBucketInfo.Index[1], 8);
  CHECK_EQ_U64(ev.u.GCFitBucketInfo.ItemCount[1], 4);
  CHECK_EQ_U64(ev.u.GCFitBucketInfo.Size[1], 201);

  /* BGCRevisit: the values a .NET 10 background GC sent (Pages=10 Objects=5120 IsLarge=1) */
  CHECK(gcs_kind_from_etw(GCS_PROV_PRIVATE, 21, 0) == gcs_kind_BGCRevisit);
  n = 0;
  n = put(b, n, 10, 8);
  n = put(b, n, 5120, 8);
  n = put(b, n, 1, 4);
  n = put(b, n, 0, 2);
  CHECK_EQ_U64(n, 22);
  memset(&ev, 0, sizeof ev);
  CHECK(gcs_etw_decode(&ev, gcs_kind_BGCRevisit, 0, b, n, 8, sb, sizeof sb) == 0);
  CHECK(!ev.truncated);
  CHECK_EQ_U64(ev.u.BGCRevisit.Pages, 10);
  CHECK_EQ_U64(ev.u.BGCRevisit.Objects, 5120);
  CHECK_EQ_U64(ev.u.BGCRevisit.IsLarge, 1);

  /* A homogeneous array keeps its layout: GCGlobalHeapHistory v4's Times */
  char text[512];
  gcs_event_format(&ev, text, sizeof text);
  CHECK(strstr(text, "Pages=10 Objects=5120 IsLarge=1") != NULL);
  return check_done();
}
