/* The GC-handle analysis (core/analysis ins_handles) on hand-built events.
 *
 * Trace 1 runs from 1 s to 11 s (ns since the epoch: 10 s long), buckets of 1 s.
 * Process 7, times in ms from the trace's start:
 *     100  set 0x10 Pinned          200  set 0x20 Strong
 *     300  GC 101 starts            (-1: GC 103 has no GCStart)
 *    1500  destroy 0x10             1600  set 0x30 AsyncPinned
 *    2000  set 0x40 Pinned, and GC 102 starts at the same instant
 *    3000  set 0x40 Strong (its pin ends)
 *    3500  destroy 0x99 (never set: kind unknown)
 *    4000  GC 104 starts
 * Process 8: 500 set 0x10 Pinned (another handle than process 7's 0x10),
 *     600 GC 201 starts.
 * By hand:
 *   buckets (7): 0 Pinned +1, 0 Strong +1, 1 Pinned -1, 1 AsyncPinned +1,
 *                2 Pinned +1, 3 Strong +1, 3 unknown -1; (8): 0 Pinned +1.
 *   pinned alive at GC start: 103 none (no start), 101 one (0x10), 102 two
 *     (0x30, and 0x40 set at its instant), 104 one (0x30); 201 one.
 *   pins: (7) 0x10 100..1500 = 1400 ms, 0x40 2000..3000 = 1000 ms, 0x30 from
 *     1600 alive to the end (10000 ms: 8400 ms); (8) 0x10 from 500 alive (9500 ms).
 *   --top 2 keeps the two alive ones; --top 3 adds 1400 ms; 0 keeps all four.
 * Events are given out of order: the analysis sorts them. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "gcs_enums.h"
#include "ins_handles.h"

#define T0 1000000000LL
#define AT(ms) (T0 + (int64_t)(ms) * 1000000LL)

static const struct ins_handle_ev EV[] = {
  { 1, AT(3000), 6, 0x40, 7, GCS_HANDLE_KIND_STRONG, 1 },
  { 1, AT(100), 1, 0x10, 7, GCS_HANDLE_KIND_PINNED, 1 },
  { 1, AT(1500), 3, 0x10, 7, 0, 0 },
  { 1, AT(500), 8, 0x10, 8, GCS_HANDLE_KIND_PINNED, 1 },
  { 1, AT(200), 2, 0x20, 7, GCS_HANDLE_KIND_STRONG, 1 },
  { 1, AT(2000), 5, 0x40, 7, GCS_HANDLE_KIND_PINNED, 1 },
  { 1, AT(1600), 4, 0x30, 7, GCS_HANDLE_KIND_ASYNC_PINNED, 1 },
  { 1, AT(3500), 7, 0x99, 7, 0, 0 },
};
static const struct ins_handle_gc GC[] = {
  { 1, AT(2000), 102, 7 }, { 1, AT(300), 101, 7 }, { 1, AT(4000), 104, 7 }, { 1, -1, 103, 7 }, { 1, AT(600), 201, 8 },
};
static const struct ins_handle_trace TR[] = { { 1, T0, AT(10000) } };

static struct ins_handles run(long top) {
  struct ins_handle_ev ev[sizeof EV / sizeof *EV];
  struct ins_handle_gc gc[sizeof GC / sizeof *GC];
  memcpy(ev, EV, sizeof ev);
  memcpy(gc, GC, sizeof gc);
  struct ins_handles r;
  CHECK_EQ_INT(ins_handles_compute(ev, 8, gc, 5, TR, 1, 1000000000LL, top, &r), 0);
  return r;
}

static const struct ins_handle_bucket *bucket(const struct ins_handles *r, int pid, int64_t b, int kind) {
  for (size_t i = 0; i < r->nbuckets; i++)
    if (r->buckets[i].pid == pid && r->buckets[i].bucket == b && r->buckets[i].kind == kind) return &r->buckets[i];
  return NULL;
}

static long long alive_at(const struct ins_handles *r, int64_t gc) {
  for (size_t i = 0; i < r->nat_gc; i++) if (r->at_gc[i].gc_id == gc) return r->at_gc[i].alive;
  return -99;
}

static const struct ins_handle_pin *pin(const struct ins_handles *r, int pid, int64_t handle, int64_t set_ns) {
  for (size_t i = 0; i < r->npins; i++)
    if (r->pins[i].pid == pid && r->pins[i].handle == handle && r->pins[i].set_ns == set_ns) return &r->pins[i];
  return NULL;
}

static void check_bucket(const struct ins_handles *r, int pid, int64_t b, int kind, long long created,
                         long long destroyed) {
  const struct ins_handle_bucket *x = bucket(r, pid, b, kind);
  if (!x) { CHECK_FAIL("no bucket pid %d #%lld kind %d", pid, (long long)b, kind); return; }
  CHECK_EQ_INT(x->created, created);
  CHECK_EQ_INT(x->destroyed, destroyed);
}

int main(void) {
  struct ins_handles r = run(0);
  CHECK_EQ_INT(r.nbuckets, 8);
  check_bucket(&r, 7, 0, GCS_HANDLE_KIND_PINNED, 1, 0);
  check_bucket(&r, 7, 0, GCS_HANDLE_KIND_STRONG, 1, 0);
  check_bucket(&r, 7, 1, GCS_HANDLE_KIND_PINNED, 0, 1);
  check_bucket(&r, 7, 1, GCS_HANDLE_KIND_ASYNC_PINNED, 1, 0);
  check_bucket(&r, 7, 2, GCS_HANDLE_KIND_PINNED, 1, 0);
  check_bucket(&r, 7, 3, GCS_HANDLE_KIND_STRONG, 1, 0);
  check_bucket(&r, 7, 3, -1, 0, 1);
  check_bucket(&r, 8, 0, GCS_HANDLE_KIND_PINNED, 1, 0);

  CHECK_EQ_INT(r.nat_gc, 5);
  CHECK_EQ_INT(alive_at(&r, 103), 0);
  CHECK_EQ_INT(alive_at(&r, 101), 1);
  CHECK_EQ_INT(alive_at(&r, 102), 2);
  CHECK_EQ_INT(alive_at(&r, 104), 1);
  CHECK_EQ_INT(alive_at(&r, 201), 1);

  CHECK_EQ_INT(r.npins, 4);
  const struct ins_handle_pin *p = pin(&r, 7, 0x10, AT(100));
  CHECK(p && p->end_ns == AT(1500) && p->kind == GCS_HANDLE_KIND_PINNED);
  p = pin(&r, 7, 0x40, AT(2000));
  CHECK(p && p->end_ns == AT(3000) && p->kind == GCS_HANDLE_KIND_PINNED);
  p = pin(&r, 7, 0x30, AT(1600));
  CHECK(p && p->end_ns == INS_HANDLE_ALIVE && p->kind == GCS_HANDLE_KIND_ASYNC_PINNED);
  p = pin(&r, 8, 0x10, AT(500));
  CHECK(p && p->end_ns == INS_HANDLE_ALIVE && p->kind == GCS_HANDLE_KIND_PINNED);
  ins_handles_free(&r);

  r = run(2);   /* 9500 and 8400 ms */
  CHECK_EQ_INT(r.npins, 2);
  CHECK(pin(&r, 8, 0x10, AT(500)) && pin(&r, 7, 0x30, AT(1600)));
  ins_handles_free(&r);
  r = run(3);   /* and 1400 ms */
  CHECK_EQ_INT(r.npins, 3);
  CHECK(pin(&r, 7, 0x10, AT(100)) && !pin(&r, 7, 0x40, AT(2000)));
  ins_handles_free(&r);

  /* no input: nothing, and no error */
  CHECK_EQ_INT(ins_handles_compute(NULL, 0, NULL, 0, NULL, 0, 1000000000LL, 5, &r), 0);
  CHECK(r.nbuckets == 0 && r.nat_gc == 0 && r.npins == 0);
  ins_handles_free(&r);
  return check_done();
}
