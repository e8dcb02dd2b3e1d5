/* test_trc_trigger — the stop triggers (trc_trigger: thresholds, BGC
 * exclusion, re-arming, resolving the GC, the summary) on hand-made event
 * sequences fed through the GC reconstruction. Every expected figure follows
 * from the timestamps written here (times in ms after T0). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "trc_opts.h"
#include "trc_trigger.h"


#define MS 1000000ull
#define T0 (1700000000ull * 1000000000ull)

static struct gcs_event ev(enum gcs_kind k, int32_t pid, int32_t tid, uint64_t ms) {
  struct gcs_event e;
  memset(&e, 0, sizeof e);
  e.kind = k;
  e.version = gcs_event_descs[k].version;
  e.pid = pid;
  e.tid = tid;
  e.ts_ns = T0 + ms * MS;
  return e;
}

static int nfired;
static struct trc_fire last;
static void feed(struct trc_trigger *t, const struct gcs_event *e) {
  struct trc_fire f;
  if (trc_trigger_feed(t, e, &f)) {
    nfired++;
    last = f;
  }
}
static void susp(struct trc_trigger *t, int32_t pid, int32_t tid, uint64_t ms, uint32_t reason, uint32_t count) {
  struct gcs_event e = ev(gcs_kind_GCSuspendEEBegin, pid, tid, ms);
  e.u.GCSuspendEEBegin.Reason = reason;
  e.u.GCSuspendEEBegin.Count = count;
  feed(t, &e);
}
static void simple(struct trc_trigger *t, enum gcs_kind k, int32_t pid, int32_t tid, uint64_t ms) {
  struct gcs_event e = ev(k, pid, tid, ms);
  feed(t, &e);
}
static void start(struct trc_trigger *t, int32_t pid, uint64_t ms, uint32_t count, uint32_t depth, uint32_t type) {
  struct gcs_event e = ev(gcs_kind_GCStart, pid, pid, ms);
  e.u.GCStart.Count = count;
  e.u.GCStart.Depth = depth;
  e.u.GCStart.Type = type;
  feed(t, &e);
}
static void end(struct trc_trigger *t, int32_t pid, uint64_t ms, uint32_t count) {
  struct gcs_event e = ev(gcs_kind_GCEnd, pid, pid, ms);
  e.u.GCEnd.Count = count;
  feed(t, &e);
}

/* A blocking GC on thread pid, CoreCLR style (SuspendEEBegin.Count = n - 1):
 * suspend s ms, GC g ms, heap stats and restart at once. */
static void blocking(struct trc_trigger *t, int32_t pid, uint64_t t0, uint32_t n, uint32_t depth,
                     uint64_t s, uint64_t g) {
  susp(t, pid, pid, t0, 1, n - 1);
  simple(t, gcs_kind_GCSuspendEEEnd, pid, pid, t0 + s);
  start(t, pid, t0 + s, n, depth, 0);
  end(t, pid, t0 + s + g, n);
  simple(t, gcs_kind_GCHeapStats, pid, pid, t0 + s + g);
  simple(t, gcs_kind_GCRestartEEEnd, pid, pid, t0 + s + g);
}

static struct trc_trigger *make(int kind, double ms) {
  int on[TRC_NKINDS] = { 0 };
  double thr[TRC_NKINDS] = { 0 };
  on[kind] = 1;
  thr[kind] = ms;
  nfired = 0;
  return trc_trigger_new(on, thr);
}

static void test_gc_over(void) {
  struct trc_trigger *t = make(TRC_GC_OVER, 50);
  blocking(t, 10, 1000, 1, 0, 1, 20);
  blocking(t, 10, 2000, 2, 0, 1, 50);   /* exactly 50: not over */
  CHECK(nfired == 0);
  blocking(t, 10, 3000, 3, 1, 1, 51);
  CHECK(nfired == 1);
  CHECK(last.kind == TRC_GC_OVER && last.pid == 10 && last.gc_index == 3 && last.gen == 1 && last.type == 0);
  CHECK(last.ms == 51.0 && last.resolved && last.ts_ns == T0 + 3052 * MS && last.begin_ns == T0 + 3001 * MS);
  /* A background GC never fires gc-over, however long. */
  susp(t, 10, 10, 4000, 1, 3);
  simple(t, gcs_kind_GCSuspendEEEnd, 10, 10, 4001);
  start(t, 10, 4001, 4, 2, 1);
  simple(t, gcs_kind_GCRestartEEEnd, 10, 10, 4002);
  end(t, 10, 5000, 4);
  simple(t, gcs_kind_GCHeapStats, 10, 10, 5000);
  CHECK(nfired == 1);
  /* Another process with the same GC index is a different GC. */
  blocking(t, 11, 6000, 3, 0, 0, 100);
  CHECK(nfired == 2 && last.pid == 11 && last.gc_index == 3 && last.gen == 0 && last.ms == 100.0);
  /* Re-armed at 7000: a GC that started before does not fire, one after does. */
  susp(t, 10, 10, 6990, 1, 4);
  simple(t, gcs_kind_GCSuspendEEEnd, 10, 10, 6995);
  start(t, 10, 6995, 5, 0, 0);
  trc_trigger_rearm(t, T0 + 7000 * MS);
  end(t, 10, 7200, 5);
  simple(t, gcs_kind_GCHeapStats, 10, 10, 7200);
  simple(t, gcs_kind_GCRestartEEEnd, 10, 10, 7200);
  CHECK(nfired == 2);
  blocking(t, 10, 8000, 6, 0, 0, 60);
  CHECK(nfired == 3 && last.gc_index == 6);
  /* Summary: GCs 1-6 of pid 10, GC 3 of pid 11; longest pause (SuspendEEBegin
   * -> RestartEEEnd of a complete GC): GC 5 of pid 10, 6990 -> 7200 = 210 ms.
   * The BGC (GC 4) has a 1 ms initial pause and no final one. */
  struct trc_summary s;
  trc_trigger_summary(t, &s);
  CHECK(s.gcs == 7 && s.nprocs == 2);
  CHECK(s.max_pause_ms == 210.0 && s.max_pid == 10 && s.max_gc == 5);
  trc_trigger_free(t);
}

static void test_suspend_over(void) {
  struct trc_trigger *t = make(TRC_SUSPEND_OVER, 10);
  blocking(t, 7, 0, 1, 0, 10, 500);     /* 10 ms suspension: not over */
  CHECK(nfired == 0);
  /* GC 2: 11 ms suspension. It fires at SuspendEEEnd, before GCStart: the GC
   * is resolved (index 2 from GCStart, not the suspension's Count 1) later. */
  struct trc_fire f;
  memset(&f, 0, sizeof f);
  susp(t, 7, 7, 1000, 1, 1);
  struct gcs_event e = ev(gcs_kind_GCSuspendEEEnd, 7, 7, 1011);
  CHECK(trc_trigger_feed(t, &e, &f) == 1);
  CHECK(f.kind == TRC_SUSPEND_OVER && f.ms == 11.0 && f.reason == 1 && !f.resolved && f.gc_index == 1);
  CHECK(trc_trigger_resolve(t, &f) == 0 && f.gen == -1);
  start(t, 7, 1011, 2, 1, 0);
  CHECK(trc_trigger_resolve(t, &f) == 1 && f.gc_index == 2 && f.gen == 1 && f.type == 0);
  end(t, 7, 1012, 2);
  simple(t, gcs_kind_GCHeapStats, 7, 7, 1012);
  simple(t, gcs_kind_GCRestartEEEnd, 7, 7, 1012);
  /* An end on another thread is an orphan. */
  susp(t, 7, 70, 2000, 1, 2);
  simple(t, gcs_kind_GCSuspendEEEnd, 7, 71, 2100);
  CHECK(nfired == 0);
  simple(t, gcs_kind_GCRestartEEEnd, 7, 70, 2100);
  /* A debugger suspension (reason 5) counts, as in PerfView; it has no GC. */
  susp(t, 7, 72, 3000, 5, 0xffffffffu);
  simple(t, gcs_kind_GCSuspendEEEnd, 7, 72, 3020);
  CHECK(nfired == 1 && last.reason == 5 && last.ms == 20.0 && last.resolved && last.gen == -1);
  simple(t, gcs_kind_GCRestartEEEnd, 7, 72, 3021);
  /* Lost notifications at 4005 re-arm: a suspension that began at 4000 does
   * not fire even though its end (4100) arrives afterwards. */
  susp(t, 7, 7, 4000, 1, 3);
  trc_trigger_lost(t, T0 + 4005 * MS, 2);
  simple(t, gcs_kind_GCSuspendEEEnd, 7, 7, 4100);
  CHECK(nfired == 1);
  trc_trigger_free(t);
}

static void test_bgc_final(void) {
  struct trc_trigger *t = make(TRC_BGC_FINAL_OVER, 30);
  /* BGC #9: first pause 40 ms (reason 1: does not count), final pause 35 ms. */
  susp(t, 5, 50, 100, 1, 8);
  simple(t, gcs_kind_GCSuspendEEEnd, 5, 50, 100);
  struct gcs_event e = ev(gcs_kind_GCStart, 5, 50, 101);
  e.u.GCStart.Count = 9;
  e.u.GCStart.Depth = 2;
  e.u.GCStart.Type = 1;
  feed(t, &e);
  simple(t, gcs_kind_GCRestartEEEnd, 5, 50, 140);
  CHECK(nfired == 0);
  susp(t, 5, 50, 300, 6, 8);
  simple(t, gcs_kind_GCSuspendEEEnd, 5, 50, 301);
  CHECK(nfired == 0);
  simple(t, gcs_kind_GCRestartEEEnd, 5, 50, 335);
  CHECK(nfired == 1);
  CHECK(last.kind == TRC_BGC_FINAL_OVER && last.gc_index == 9 && last.gen == 2 && last.type == 1 && last.ms == 35.0);
  /* Exactly 30 ms is not over. */
  susp(t, 5, 50, 400, 6, 8);
  simple(t, gcs_kind_GCRestartEEEnd, 5, 50, 430);
  CHECK(nfired == 1);
  trc_trigger_free(t);
}

/* A clock stepping back: the time is held, not negative. */
static void test_clock_step(void) {
  struct trc_trigger *t = make(TRC_SUSPEND_OVER, 0);
  susp(t, 3, 3, 5000, 1, 0);
  simple(t, gcs_kind_GCSuspendEEEnd, 3, 3, 4000);
  CHECK(nfired == 0);   /* 0 ms: not > 0 */
  simple(t, gcs_kind_GCRestartEEEnd, 3, 3, 4001);
  susp(t, 3, 3, 6000, 1, 0);
  simple(t, gcs_kind_GCSuspendEEEnd, 3, 3, 6001);
  CHECK(nfired == 1 && last.ms == 1.0);
  trc_trigger_free(t);
}

/* A long watch: 600 GCs (the reconstruction keeps only the recent ones); the
 * summary still counts all 600 and keeps GC 10's 30 ms pause (suspend 10 ms +
 * GC 20 ms) as the longest; the others pause 2 ms. */
static void test_long_watch(void) {
  struct trc_trigger *t = make(TRC_SUSPEND_OVER, 5);
  for (uint32_t n = 1; n <= 10; n++) blocking(t, 4, n * 100, n, 0, n == 10 ? 10 : 1, n == 10 ? 20 : 1);
  /* Fired at SuspendEEEnd with the suspension's Count (9), resolved to GC 10. */
  CHECK(nfired == 1 && last.gc_index == 9 && !last.resolved && last.ms == 10.0);
  CHECK(trc_trigger_resolve(t, &last) == 1 && last.gc_index == 10);
  for (uint32_t n = 11; n <= 600; n++) blocking(t, 4, n * 100, n, 0, 1, 1);
  CHECK(nfired == 1);
  /* The last GC is still there to resolve a fire against. */
  struct trc_fire f = { .kind = TRC_SUSPEND_OVER, .pid = 4, .reason = 1, .begin_ns = T0 + 60000 * MS };
  CHECK(trc_trigger_resolve(t, &f) == 1 && f.gc_index == 600);
  struct trc_summary s;
  trc_trigger_summary(t, &s);
  CHECK(s.gcs == 600 && s.nprocs == 1);
  CHECK(s.max_pause_ms == 30.0 && s.max_pid == 4 && s.max_gc == 10);
  trc_trigger_free(t);
}

int main(void) {
  test_long_watch();
  test_gc_over();
  test_suspend_over();
  test_bgc_final();
  test_clock_step();
  return check_done();
}
