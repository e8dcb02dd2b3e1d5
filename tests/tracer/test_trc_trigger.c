/* test_trc_trigger — the stop-trigger rules `gcscope record` evaluates live
 * (core/triggers, gcs_triggers.h: thresholds, BGC exclusion, re-arming,
 * resolving the GC, the summary) on hand-made event sequences fed through the
 * GC reconstruction, with the memory bound record uses. Every expected figure
 * follows from the timestamps written here (times in ms after T0). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "gcs_test_event.h"
#include "gcs_enums.h"
#include "gcs_triggers.h"


#define MS 1000000ull
#define T0 (1700000000ull * 1000000000ull)
#define KEEP_GCS 256   /* as record */

#define FOR_GC GCS_SUSPEND_REASON_SUSPEND_FOR_GC
#define FOR_GC_PREP GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP
#define FOR_DEBUGGER GCS_SUSPEND_REASON_SUSPEND_FOR_DEBUGGER
#define NONCONC GCS_GC_TYPE_NON_CONCURRENT
#define BGC GCS_GC_TYPE_BACKGROUND

static struct gcs_event ev(enum gcs_kind k, int32_t pid, int32_t tid, uint64_t ms) {
  return gcs_test_event(k, pid, tid, T0 + ms * MS);
}

static int nfired;
static struct gcs_trigger_pair last;
static void feed(struct gcs_triggers *t, const struct gcs_event *e) {
  struct gcs_trigger_pair f;
  if (gcs_triggers_feed(t, e, &f)) {
    nfired++;
    last = f;
  }
}
static void susp(struct gcs_triggers *t, int32_t pid, int32_t tid, uint64_t ms, uint32_t reason, uint32_t count) {
  struct gcs_event e = ev(gcs_kind_GCSuspendEEBegin, pid, tid, ms);
  e.u.GCSuspendEEBegin.Reason = reason;
  e.u.GCSuspendEEBegin.Count = count;
  feed(t, &e);
}
static void simple(struct gcs_triggers *t, enum gcs_kind k, int32_t pid, int32_t tid, uint64_t ms) {
  struct gcs_event e = ev(k, pid, tid, ms);
  feed(t, &e);
}
static void start(struct gcs_triggers *t, int32_t pid, uint64_t ms, uint32_t count, uint32_t depth, uint32_t type) {
  struct gcs_event e = ev(gcs_kind_GCStart, pid, pid, ms);
  e.u.GCStart.Count = count;
  e.u.GCStart.Depth = depth;
  e.u.GCStart.Type = type;
  feed(t, &e);
}
static void end(struct gcs_triggers *t, int32_t pid, uint64_t ms, uint32_t count) {
  struct gcs_event e = ev(gcs_kind_GCEnd, pid, pid, ms);
  e.u.GCEnd.Count = count;
  feed(t, &e);
}

/* A blocking GC on thread pid, CoreCLR style (SuspendEEBegin.Count = n - 1):
 * suspend s ms, GC g ms, heap stats and restart at once. */
static void blocking(struct gcs_triggers *t, int32_t pid, uint64_t t0, uint32_t n, uint32_t depth,
                     uint64_t s, uint64_t g) {
  susp(t, pid, pid, t0, FOR_GC, n - 1);
  simple(t, gcs_kind_GCSuspendEEEnd, pid, pid, t0 + s);
  start(t, pid, t0 + s, n, depth, NONCONC);
  end(t, pid, t0 + s + g, n);
  simple(t, gcs_kind_GCHeapStats, pid, pid, t0 + s + g);
  simple(t, gcs_kind_GCRestartEEEnd, pid, pid, t0 + s + g);
}

static struct gcs_triggers *make(enum gcs_trigger_kind kind, double ms) {
  nfired = 0;
  struct gcs_triggers *t = gcs_triggers_new(KEEP_GCS, NULL, NULL);
  if (t) gcs_triggers_set_threshold(t, kind, ms);
  return t;
}

static void test_gc_over(void) {
  struct gcs_triggers *t = make(GCS_TRIGGER_GC_OVER, 50);
  blocking(t, 10, 1000, 1, 0, 1, 20);
  blocking(t, 10, 2000, 2, 0, 1, 50);   /* exactly 50: not over */
  CHECK(nfired == 0);
  blocking(t, 10, 3000, 3, 1, 1, 51);
  CHECK(nfired == 1);
  CHECK(last.kind == GCS_TRIGGER_GC_OVER && last.pid == 10 && last.gc_index == 3 && last.gen == 1 && last.type == NONCONC);
  CHECK(last.ms == 51.0 && last.resolved && last.end_ns == T0 + 3052 * MS && last.begin_ns == T0 + 3001 * MS);
  /* A background GC never fires gc-over, however long. */
  susp(t, 10, 10, 4000, FOR_GC, 3);
  simple(t, gcs_kind_GCSuspendEEEnd, 10, 10, 4001);
  start(t, 10, 4001, 4, 2, BGC);
  simple(t, gcs_kind_GCRestartEEEnd, 10, 10, 4002);
  end(t, 10, 5000, 4);
  simple(t, gcs_kind_GCHeapStats, 10, 10, 5000);
  CHECK(nfired == 1);
  /* Another process with the same GC index is a different GC. */
  blocking(t, 11, 6000, 3, 0, 0, 100);
  CHECK(nfired == 2 && last.pid == 11 && last.gc_index == 3 && last.gen == 0 && last.ms == 100.0);
  /* Re-armed at 7000: a GC that started before does not fire, one after does. */
  susp(t, 10, 10, 6990, FOR_GC, 4);
  simple(t, gcs_kind_GCSuspendEEEnd, 10, 10, 6995);
  start(t, 10, 6995, 5, 0, NONCONC);
  gcs_triggers_rearm(t, T0 + 7000 * MS);
  end(t, 10, 7200, 5);
  simple(t, gcs_kind_GCHeapStats, 10, 10, 7200);
  simple(t, gcs_kind_GCRestartEEEnd, 10, 10, 7200);
  CHECK(nfired == 2);
  blocking(t, 10, 8000, 6, 0, 0, 60);
  CHECK(nfired == 3 && last.gc_index == 6);
  /* Summary: GCs 1-6 of pid 10, GC 3 of pid 11; longest pause (SuspendEEBegin
   * -> RestartEEEnd of a complete GC): GC 5 of pid 10, 6990 -> 7200 = 210 ms.
   * The BGC (GC 4) has a 1 ms initial pause and no final one. */
  struct gcs_trigger_summary s;
  gcs_triggers_finish(t, &s);
  CHECK(s.gcs == 7 && s.nprocs == 2);
  CHECK(s.max_pause_ms == 210.0 && s.max_pid == 10 && s.max_gc == 5);
  gcs_triggers_free(t);
}

static void test_suspend_over(void) {
  struct gcs_triggers *t = make(GCS_TRIGGER_SUSPEND_OVER, 10);
  blocking(t, 7, 0, 1, 0, 10, 500);     /* 10 ms suspension: not over */
  CHECK(nfired == 0);
  /* GC 2: 11 ms suspension. It fires at SuspendEEEnd, before GCStart: the GC
   * is resolved (index 2 from GCStart, not the suspension's Count 1) later. */
  struct gcs_trigger_pair f;
  memset(&f, 0, sizeof f);
  susp(t, 7, 7, 1000, FOR_GC, 1);
  struct gcs_event e = ev(gcs_kind_GCSuspendEEEnd, 7, 7, 1011);
  CHECK(gcs_triggers_feed(t, &e, &f) == 1);
  CHECK(f.kind == GCS_TRIGGER_SUSPEND_OVER && f.ms == 11.0 && f.reason == FOR_GC && !f.resolved && f.gc_index == 1);
  CHECK(gcs_triggers_resolve(t, &f) == 0 && f.gen == -1);
  start(t, 7, 1011, 2, 1, NONCONC);
  CHECK(gcs_triggers_resolve(t, &f) == 1 && f.gc_index == 2 && f.gen == 1 && f.type == NONCONC);
  end(t, 7, 1012, 2);
  simple(t, gcs_kind_GCHeapStats, 7, 7, 1012);
  simple(t, gcs_kind_GCRestartEEEnd, 7, 7, 1012);
  /* An end on another thread is an orphan. */
  susp(t, 7, 70, 2000, FOR_GC, 2);
  simple(t, gcs_kind_GCSuspendEEEnd, 7, 71, 2100);
  CHECK(nfired == 0);
  simple(t, gcs_kind_GCRestartEEEnd, 7, 70, 2100);
  /* A debugger suspension counts, as in PerfView; it has no GC. */
  susp(t, 7, 72, 3000, FOR_DEBUGGER, 0xffffffffu);
  simple(t, gcs_kind_GCSuspendEEEnd, 7, 72, 3020);
  CHECK(nfired == 1 && last.reason == FOR_DEBUGGER && last.ms == 20.0 && last.resolved && last.gen == -1);
  simple(t, gcs_kind_GCRestartEEEnd, 7, 72, 3021);
  /* Lost notifications at 4005 re-arm: a suspension that began at 4000 does
   * not fire even though its end (4100) arrives afterwards. */
  susp(t, 7, 7, 4000, FOR_GC, 3);
  gcs_triggers_lost(t, T0 + 4005 * MS, T0 + 4005 * MS, 2);
  simple(t, gcs_kind_GCSuspendEEEnd, 7, 7, 4100);
  CHECK(nfired == 1);
  gcs_triggers_free(t);
}

static void test_bgc_final(void) {
  struct gcs_triggers *t = make(GCS_TRIGGER_BGC_FINAL_OVER, 30);
  /* BGC #9: first pause 40 ms (SuspendForGC: does not count), final pause 35 ms. */
  susp(t, 5, 50, 100, FOR_GC, 8);
  simple(t, gcs_kind_GCSuspendEEEnd, 5, 50, 100);
  struct gcs_event e = ev(gcs_kind_GCStart, 5, 50, 101);
  e.u.GCStart.Count = 9;
  e.u.GCStart.Depth = 2;
  e.u.GCStart.Type = BGC;
  feed(t, &e);
  simple(t, gcs_kind_GCRestartEEEnd, 5, 50, 140);
  CHECK(nfired == 0);
  susp(t, 5, 50, 300, FOR_GC_PREP, 8);
  simple(t, gcs_kind_GCSuspendEEEnd, 5, 50, 301);
  CHECK(nfired == 0);
  simple(t, gcs_kind_GCRestartEEEnd, 5, 50, 335);
  CHECK(nfired == 1);
  CHECK(last.kind == GCS_TRIGGER_BGC_FINAL_OVER && last.gc_index == 9 && last.gen == 2 && last.type == BGC && last.ms == 35.0);
  /* Exactly 30 ms is not over. */
  susp(t, 5, 50, 400, FOR_GC_PREP, 8);
  simple(t, gcs_kind_GCRestartEEEnd, 5, 50, 430);
  CHECK(nfired == 1);
  gcs_triggers_free(t);
}

/* A clock stepping back: the time is held, not negative. */
static void test_clock_step(void) {
  struct gcs_triggers *t = make(GCS_TRIGGER_SUSPEND_OVER, 0);
  susp(t, 3, 3, 5000, FOR_GC, 0);
  simple(t, gcs_kind_GCSuspendEEEnd, 3, 3, 4000);
  CHECK(nfired == 0);   /* 0 ms: not > 0 */
  simple(t, gcs_kind_GCRestartEEEnd, 3, 3, 4001);
  susp(t, 3, 3, 6000, FOR_GC, 0);
  simple(t, gcs_kind_GCSuspendEEEnd, 3, 3, 6001);
  CHECK(nfired == 1 && last.ms == 1.0);
  gcs_triggers_free(t);
}

/* A long watch: 600 GCs (the reconstruction keeps only the recent ones); the
 * summary still counts all 600 and keeps GC 10's 30 ms pause (suspend 10 ms +
 * GC 20 ms) as the longest; the others pause 2 ms. */
static void test_long_watch(void) {
  struct gcs_triggers *t = make(GCS_TRIGGER_SUSPEND_OVER, 5);
  for (uint32_t n = 1; n <= 10; n++) blocking(t, 4, n * 100, n, 0, n == 10 ? 10 : 1, n == 10 ? 20 : 1);
  /* Fired at SuspendEEEnd with the suspension's Count (9), resolved to GC 10. */
  CHECK(nfired == 1 && last.gc_index == 9 && !last.resolved && last.ms == 10.0);
  CHECK(gcs_triggers_resolve(t, &last) == 1 && last.gc_index == 10);
  for (uint32_t n = 11; n <= 600; n++) blocking(t, 4, n * 100, n, 0, 1, 1);
  CHECK(nfired == 1);
  /* The last GC is still there to resolve a fire against. */
  struct gcs_trigger_pair f = { .kind = GCS_TRIGGER_SUSPEND_OVER, .pid = 4, .reason = FOR_GC, .begin_ns = T0 + 60000 * MS };
  CHECK(gcs_triggers_resolve(t, &f) == 1 && f.gc_index == 600);
  struct gcs_trigger_summary s;
  gcs_triggers_finish(t, &s);
  CHECK(s.gcs == 600 && s.nprocs == 1);
  CHECK(s.max_pause_ms == 30.0 && s.max_pid == 4 && s.max_gc == 10);
  gcs_triggers_free(t);
}

int main(void) {
  test_long_watch();
  test_gc_over();
  test_suspend_over();
  test_bgc_final();
  test_clock_step();
  return check_done();
}
