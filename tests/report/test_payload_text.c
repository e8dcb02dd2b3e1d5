/* The payload text (gcs_event_format, what `gcscope events`, the events
 * view and every export print) is written without printf since issue 27;
 * its bytes must be those of the printf-based reference it replaced
 * (gcs_event_format_ref, the former code kept beside it). Every event kind,
 * every version and both origins, fields filled from a fixed pseudo-random
 * sequence (values of every width, negative I32s, F32s with NaN and
 * infinities, unknown enum values, strings, GUIDs, arrays longer than
 * their capacity: 16, or 1024 for GCLOHCompact's per-heap arrays), printed
 * into buffers of every size from 0 up to 4 KiB and then every fifth of the
 * text up to a full one (the text cut short as snprintf cuts it). Then two texts written by hand from the field order in
 * schemas/gc_events.def. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "gcs_events.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* A value with a random number of significant bits (small ones are common:
 * enum values, counts). */
static uint64_t value(void) {
  uint64_t v = next();
  int bits = (int)(next() % 65);
  return bits == 64 ? v : v & ((1ull << bits) - 1);
}

static const char *const strings[] = { "", "System.String", "a \"quoted\" name", "Bench.Namespace.Type07",
                                       "x" };

static void fill(struct gcs_event *ev, enum gcs_kind k) {
  const struct gcs_event_desc *d = &gcs_event_descs[k];
  for (int i = 0; i < d->nfields; i++) {
    const struct gcs_field_desc *f = &d->fields[i];
    if (f->is_array) {
      for (unsigned e = 0; e < f->capacity; e++) gcs_field_set_array_int(ev, f, e, value());
    } else if (f->type == GCS_T_STR) {
      gcs_field_set_str(ev, f, next() % 7 == 0 ? NULL : strings[next() % 5]);
    } else if (f->type == GCS_T_GUID) {
      uint8_t *g = (uint8_t *)&ev->u + f->offset;
      for (int b = 0; b < 16; b++) g[b] = (uint8_t)next();
    } else if (f->type == GCS_T_F32) {   /* its bits: now and then NaN or an infinity ("unknown") */
      static const uint32_t odd[] = { 0x7fc00000u, 0x7f800000u, 0xff800000u, 0x80000000u };
      gcs_field_set_int(ev, f, next() % 3 == 0 ? odd[next() % 4] : (uint32_t)next());
    } else {
      gcs_field_set_int(ev, f, value());
    }
  }
  /* Array counts: within, at and beyond the capacity. */
  for (int i = 0; i < d->nfields; i++)
    if (d->fields[i].is_array)
      gcs_field_set_int(ev, &d->fields[d->fields[i].count_field], next() % (d->fields[i].capacity + 4u));
}

int main(void) {
  static char a[1 << 17], b[1 << 17];  /* 5 arrays of 1024 20-digit numbers fit */
  long texts = 0, mismatches = 0;
  for (int k = 0; k < GCS_KIND_COUNT; k++) {
    for (int round = 0; round < 40; round++) {
      struct gcs_event ev;
      memset(&ev, 0, sizeof ev);
      ev.kind = (enum gcs_kind)k;
      ev.origin = round % 2 ? GCS_ORIGIN_CLR : GCS_ORIGIN_RGC;
      ev.version = (uint8_t)(round / 2 % (gcs_event_descs[k].version + 2));
      fill(&ev, (enum gcs_kind)k);
      size_t full = gcs_event_format_ref(&ev, b, sizeof b);
      /* Every cut for the first rounds, a few for the others. */
      CHECK(full < sizeof b);
      for (size_t sz = 0; sz <= full + 2 && sz <= sizeof a; sz += round < 4 && sz < 4096 ? 1 : 1 + full / 5) {
        size_t dirty = sz + 8 < sizeof a ? sz + 8 : sizeof a;
        memset(a, 'A', dirty);
        memset(b, 'B', dirty);
        size_t na = gcs_event_format(&ev, a, sz), nb = gcs_event_format_ref(&ev, b, sz);
        texts++;
        if (na != nb || (sz && memcmp(a, b, nb + 1) != 0)) {
          if (mismatches++ < 5)
            CHECK_FAIL("%s round %d size %zu: '%.*s' (%zu) vs reference '%.*s' (%zu)", gcs_event_descs[k].name,
                       round, sz, (int)(na < sz ? na : 0), a, na, (int)(nb < sz ? nb : 0), b, nb);
        }
      }
    }
  }
  CHECK_EQ_INT(mismatches, 0);
  CHECK(texts > 10000);

  /* By hand, from the fields' order in gc_events.def: ClrInstanceID is never
   * printed, enum values by name, addresses in hex, an unknown enum value as
   * its number. */
  struct gcs_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = gcs_kind_GCMarkWithType;
  ev.origin = GCS_ORIGIN_CLR;
  ev.u.GCMarkWithType.HeapNum = 3;
  ev.u.GCMarkWithType.ClrInstanceID = 9;
  ev.u.GCMarkWithType.Type = 3;
  ev.u.GCMarkWithType.Bytes = 18446744073709551615ull;
  gcs_event_format(&ev, a, sizeof a);
  CHECK_STR(a, "HeapNum=3 Type=Older Bytes=18446744073709551615");
  ev.u.GCMarkWithType.Type = 4000000000u;
  gcs_event_format(&ev, a, sizeof a);
  CHECK_STR(a, "HeapNum=3 Type=4000000000 Bytes=18446744073709551615");
  gcs_event_format(&ev, a, 12);
  CHECK_STR(a, "HeapNum=3 T");
  memset(&ev, 0, sizeof ev);
  ev.kind = gcs_kind_GCCreateSegment;
  ev.origin = GCS_ORIGIN_CLR;
  ev.version = 0;   /* ClrInstanceID is since version 1: absent, and never printed */
  ev.u.GCCreateSegment.Address = 0x7f677a600000ull;
  ev.u.GCCreateSegment.Size = 2097152;
  ev.u.GCCreateSegment.Type = 0;
  gcs_event_format(&ev, a, sizeof a);
  CHECK_STR(a, "Address=0x7f677a600000 Size=2097152 Type=SmallObjectHeap");
  return check_done();
}
