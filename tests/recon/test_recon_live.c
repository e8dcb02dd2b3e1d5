/*
 * test_recon_live — the live-trigger hooks (suspend_done, gc_end,
 * bgc_final_pause) that `gcscope record`'s stop triggers use.
 *
 * Script (times in µs after T0) and the calls expected, computed by hand:
 *  pid 100, GC thread 101
 *   GC 1, blocking gen1:
 *     1000 SuspendEEBegin(reason 1, Count 1)   1300 SuspendEEEnd
 *        -> suspend_done(100, 1, reason 1, 300 µs, at 1300)
 *     1400 GCStart(1, gen1, type 0)   51400 GCEnd(1)
 *        -> gc_end(100, 1, gen1, type 0, 51400-1400 = 50000 µs, at 51400)
 *     51450 GCEnd(1) again: no call (an orphan, as in PerfView's machine)
 *     51500 GCHeapStats  51600 RestartEEBegin  51700 RestartEEEnd
 *        -> gc_done(GC 1), pause 51700-1000 = 50.7 ms; no bgc_final_pause
 *   GC 2, background gen2:
 *     100000 SuspendEEBegin(1, 2)  100100 SuspendEEEnd -> suspend_done(100, 2, 1, 100 µs)
 *     100200 GCStart(2, gen2, type 1)  100500 RestartEEEnd (initial pause)
 *     200000 SuspendEEBegin(6, 2)  200050 SuspendEEEnd -> suspend_done(100, 2, 6, 50 µs)
 *     235000 RestartEEEnd -> bgc_final_pause(100, 2, 235000-200000 = 35000 µs, at 235000)
 *     240000 GCEnd(2) -> gc_end(100, 2, gen2, type 1, 240000-100200 = 139800 µs)
 *     240100 GCHeapStats -> gc_done(GC 2), bgc_pause2 35 ms
 *   a debugger suspension on thread 102:
 *     300000 SuspendEEBegin(5, Count 0xffffffff)  300800 SuspendEEEnd
 *        -> suspend_done(100, 0, reason 5, 800 µs); 301000 RestartEEEnd: nothing
 *   302000 SuspendEEEnd on thread 103 (no begin): nothing
 *  pid 200 (trace began inside its GC 1): 400000 GCStart(1, gen0)  400700 GCEnd(1)
 *        -> gc_end(200, 1, gen0, type 0, 700 µs): same index, other process
 *  pid 300, no BGC seen: 500000 SuspendEEBegin(6, 7)  500010 SuspendEEEnd
 *        -> suspend_done(300, 7, 6, 10 µs); 500090 RestartEEEnd
 *        -> bgc_final_pause(300, 7, 90 µs)  (index from the suspension's Count)
 */
#include "recon_events.h"

#define MAXCALLS 32
struct call {
  char what;                  /* 's' suspend_done, 'e' gc_end, 'b' bgc_final_pause, 'd' gc_done */
  int32_t pid;
  uint32_t index, gen, type, reason;
  uint64_t ns, ts;
  double pause_msec;
};
static struct call calls[MAXCALLS];
static int ncalls;

static struct call *add(char what) {
  if (ncalls == MAXCALLS) return NULL;
  struct call *c = &calls[ncalls++];
  memset(c, 0, sizeof *c);
  c->what = what;
  return c;
}

static void on_done(const struct gcs_gc *g, void *ud) {
  CHECK(ud == &calls);
  struct call *c = add('d');
  if (!c) return;
  c->pid = g->pid;
  c->index = g->number;
  c->pause_msec = g->pause_msec;
}
static void on_suspend(int32_t pid, uint32_t idx, uint32_t reason, uint64_t ns, uint64_t ts, void *ud) {
  CHECK(ud == &calls);
  struct call *c = add('s');
  if (!c) return;
  c->pid = pid, c->index = idx, c->reason = reason, c->ns = ns, c->ts = ts;
}
static void on_gc_end(int32_t pid, uint32_t idx, uint32_t gen, uint32_t type, uint64_t ns, uint64_t ts,
                      void *ud) {
  CHECK(ud == &calls);
  struct call *c = add('e');
  if (!c) return;
  c->pid = pid, c->index = idx, c->gen = gen, c->type = type, c->ns = ns, c->ts = ts;
}
static void on_bgc_final(int32_t pid, uint32_t idx, uint64_t ns, uint64_t ts, void *ud) {
  CHECK(ud == &calls);
  struct call *c = add('b');
  if (!c) return;
  c->pid = pid, c->index = idx, c->ns = ns, c->ts = ts;
}

#define US(x) ((uint64_t)(x) * 1000ull)

static void expect(int i, char what, int32_t pid, uint32_t index, uint64_t ns, uint64_t ts_us) {
  if (i >= ncalls) {
    CHECK_FAIL("call %d missing (expected '%c')", i, what);
    return;
  }
  const struct call *c = &calls[i];
  if (c->what != what || c->pid != pid || c->index != index || (what != 'd' && c->ns != ns) ||
      (what != 'd' && c->ts != T0 + US(ts_us))) {
    CHECK_FAIL("call %d: got '%c' pid %d #%u %llu ns at +%lld ns; expected '%c' pid %d #%u %llu ns at +%llu us",
            i, c->what, c->pid, c->index, (unsigned long long)c->ns, (long long)(c->ts - T0), what, pid,
            index, (unsigned long long)ns, (unsigned long long)ts_us);
  }
}

/* gcs_recon_forget_old: GC 1 never gets its GCHeapStats (not reported), GCs
 * 2..21 are complete blocking GCs 1 ms apart. Keeping 16 drops GCs 1..5;
 * GC 1 is reported (incomplete) as it goes. GC 22 afterwards still works. */
static int done_total, done_incomplete;
static void count_done(const struct gcs_gc *g, void *ud) {
  (void)ud;
  done_total++;
  if (!g->complete) done_incomplete++;
}

static void test_forget_old(void) {
  struct gcs_recon_callbacks cb = { .gc_done = count_done };
  struct gcs_recon *r = gcs_recon_new(&cb, NULL);
  if (!r) { CHECK_FAIL("gcs_recon_new failed"); return; }
  static const uint64_t size[5] = { 1, 2, 3, 4, 5 }, prom[5] = { 0 };
  feed_suspend(r, 0, 9, 9, 1, 1);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 10, 9, 9);
  feed_start(r, 20, 9, 9, 1, 0, 0, 0);
  feed_end(r, 30, 9, 9, 1, 0);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 40, 9, 9);
  for (uint32_t n = 2; n <= 21; n++) {
    struct blocking b = { .suspend = n * 1000.0, .suspend_end = n * 1000.0 + 10, .start = n * 1000.0 + 20,
                          .end = n * 1000.0 + 30, .heap_stats = n * 1000.0 + 40, .restart = n * 1000.0 + 50,
                          .count = n };
    memcpy(b.size, size, sizeof size);
    memcpy(b.prom, prom, sizeof prom);
    feed_blocking(r, 9, 9, &b);
  }
  CHECK(done_total == 20 && done_incomplete == 0);
  CHECK(gcs_recon_gc_count(r, 0) == 21);
  gcs_recon_forget_old(r, 16);
  CHECK(done_total == 21 && done_incomplete == 1);
  CHECK(gcs_recon_gc_count(r, 0) == 16);
  const struct gcs_gc *first = gcs_recon_gc(r, 0, 0);
  CHECK(first && first->number == 6 && first->list_index == 0);
  struct blocking b = { .suspend = 22000, .suspend_end = 22010, .start = 22020, .end = 22030,
                        .heap_stats = 22040, .restart = 22050, .count = 22 };
  memcpy(b.size, size, sizeof size);
  feed_blocking(r, 9, 9, &b);
  CHECK(done_total == 22 && gcs_recon_gc_count(r, 0) == 17);
  const struct gcs_gc *last = gcs_recon_gc(r, 0, 16);
  CHECK(last && last->number == 22 && last->complete && last->list_index == 16);
  if (last) CHECK_REL(last->pause_msec, 0.05, 1e-9);   /* 22000 -> 22050 us */
  gcs_recon_forget_old(r, 100);                    /* fewer GCs than keep: nothing */
  CHECK(gcs_recon_gc_count(r, 0) == 17);
  gcs_recon_finish(r);
  CHECK(done_total == 22);
  gcs_recon_free(r);
}

int main(void) {
  test_forget_old();
  struct gcs_recon_callbacks cb = {
    .gc_done = on_done, .suspend_done = on_suspend, .gc_end = on_gc_end, .bgc_final_pause = on_bgc_final,
  };
  struct gcs_recon *r = gcs_recon_new(&cb, &calls);
  CHECK(r != NULL);
  if (!r) return 1;
  gcs_recon_set_time_origin(r, T0);

  /* pid 100, GC 1 (blocking gen1) */
  feed_suspend(r, 1000, 100, 101, 1, 1);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 1300, 100, 101);
  feed_start(r, 1400, 100, 101, 1, 1, 0, 0);
  feed_end(r, 51400, 100, 101, 1, 1);
  feed_end(r, 51450, 100, 101, 1, 1);
  feed_simple(r, gcs_kind_GCHeapStats, 51500, 100, 101);
  feed_simple(r, gcs_kind_GCRestartEEBegin, 51600, 100, 101);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 51700, 100, 101);
  /* pid 100, GC 2 (BGC) */
  feed_suspend(r, 100000, 100, 101, 1, 2);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 100100, 100, 101);
  feed_start(r, 100200, 100, 101, 2, 2, 0, 1);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 100500, 100, 101);
  feed_suspend(r, 200000, 100, 101, 6, 2);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 200050, 100, 101);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 235000, 100, 101);
  feed_end(r, 240000, 100, 101, 2, 2);
  feed_simple(r, gcs_kind_GCHeapStats, 240100, 100, 101);
  /* pid 100, a debugger suspension, then an orphan SuspendEEEnd */
  feed_suspend(r, 300000, 100, 102, 5, 0xffffffffu);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 300800, 100, 102);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 301000, 100, 102);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 302000, 100, 103);
  /* pid 200: GC 1 without its suspension */
  feed_start(r, 400000, 200, 201, 1, 0, 0, 0);
  feed_end(r, 400700, 200, 201, 1, 0);
  /* pid 300: a SuspendForGCPrep suspension with no BGC seen */
  feed_suspend(r, 500000, 300, 301, 6, 7);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 500010, 300, 301);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 500090, 300, 301);

  int i = 0;
  expect(i++, 's', 100, 1, US(300), 1300);
  expect(i++, 'e', 100, 1, US(50000), 51400);
  CHECK(calls[i - 1].gen == 1 && calls[i - 1].type == 0);
  expect(i++, 'd', 100, 1, 0, 0);
  CHECK_REL(calls[i - 1].pause_msec, 50.7, 1e-9);
  expect(i++, 's', 100, 2, US(100), 100100);
  CHECK(calls[i - 1].reason == 1);
  expect(i++, 's', 100, 2, US(50), 200050);
  CHECK(calls[i - 1].reason == 6);
  expect(i++, 'b', 100, 2, US(35000), 235000);
  expect(i++, 'e', 100, 2, US(139800), 240000);
  CHECK(calls[i - 1].gen == 2 && calls[i - 1].type == 1);
  expect(i++, 'd', 100, 2, 0, 0);
  expect(i++, 's', 100, 0, US(800), 300800);
  CHECK(calls[i - 1].reason == 5);
  expect(i++, 'e', 200, 1, US(700), 400700);
  CHECK(calls[i - 1].gen == 0 && calls[i - 1].type == 0);
  expect(i++, 's', 300, 7, US(10), 500010);
  CHECK(calls[i - 1].reason == 6);
  expect(i++, 'b', 300, 7, US(90), 500090);
  CHECK(ncalls == i);

  /* The BGC's figures agree with the hook: BGCFinalPauseMSec = 35 ms. */
  const struct gcs_gc *bgc = gcs_recon_gc(r, 0, 1);
  CHECK(bgc && bgc->number == 2);
  if (bgc) CHECK_REL(bgc->bgc_pause2_msec, 35.0, 1e-9);

  /* Without gc_end and bgc_final_pause (NULL), the same input only reports GCs. */
  gcs_recon_free(r);
  ncalls = 0;
  struct gcs_recon_callbacks gcs_only = { .gc_done = on_done, .suspend_done = on_suspend };
  r = gcs_recon_new(&gcs_only, &calls);
  if (!r) return 1;
  feed_suspend(r, 200000, 100, 101, 6, 2);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 235000, 100, 101);
  CHECK(ncalls == 0);
  gcs_recon_free(r);

  return check_done();
}
