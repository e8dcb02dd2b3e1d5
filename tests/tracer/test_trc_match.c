/* test_trc_match — PerfView's trigger machine (trc_match) on hand-made event
 * sequences; every expected figure follows from the timestamps given here. */
#include <stdio.h>
#include <string.h>

#include "trc_match.h"
#include "trc_opts.h"

static int failures;
#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); failures++; } } while (0)

#define MS 1000000ull
static struct gcs_event ev(enum gcs_kind k, int32_t pid, int32_t tid, uint64_t ts) {
  struct gcs_event e;
  memset(&e, 0, sizeof e);
  e.kind = k;
  e.pid = pid;
  e.tid = tid;
  e.ts_ns = ts;
  return e;
}
static struct gcs_event susp(int32_t pid, int32_t tid, uint64_t ts, uint32_t reason, uint32_t count) {
  struct gcs_event e = ev(gcs_kind_GCSuspendEEBegin, pid, tid, ts);
  e.u.GCSuspendEEBegin.Reason = reason;
  e.u.GCSuspendEEBegin.Count = count;
  return e;
}
static struct gcs_event start(int32_t pid, uint64_t ts, uint32_t count, uint32_t depth, uint32_t type) {
  struct gcs_event e = ev(gcs_kind_GCStart, pid, pid, ts);
  e.u.GCStart.Count = count;
  e.u.GCStart.Depth = depth;
  e.u.GCStart.Type = type;
  return e;
}
static struct gcs_event end(int32_t pid, uint64_t ts, uint32_t count) {
  struct gcs_event e = ev(gcs_kind_GCEnd, pid, pid, ts);
  e.u.GCEnd.Count = count;
  return e;
}

/* A blocking GC on thread pid: suspend s ms, GC g ms, restart at once. */
static int blocking(struct trc_match *m, int32_t pid, uint64_t t0, uint32_t n, uint32_t depth,
                    uint64_t s, uint64_t g, struct trc_fire *f) {
  int fired = 0;
  struct gcs_event e = susp(pid, pid, t0, 1, n);
  fired += trc_match_feed(m, &e, f);
  e = ev(gcs_kind_GCSuspendEEEnd, pid, pid, t0 + s * MS);
  fired += trc_match_feed(m, &e, f);
  e = start(pid, t0 + s * MS, n, depth, 0);
  fired += trc_match_feed(m, &e, f);
  e = end(pid, t0 + (s + g) * MS, n);
  fired += trc_match_feed(m, &e, f);
  e = ev(gcs_kind_GCRestartEEEnd, pid, pid, t0 + (s + g) * MS);
  fired += trc_match_feed(m, &e, f);
  return fired;
}

static void test_gc_over(void) {
  int on[TRC_NKINDS] = { 1, 0, 0 };
  double thr[TRC_NKINDS] = { 50, 0, 0 };
  struct trc_match *m = trc_match_new(on, thr);
  struct trc_fire f;
  memset(&f, 0, sizeof f);
  CHECK(blocking(m, 10, 1000 * MS, 1, 0, 1, 20, &f) == 0);
  CHECK(blocking(m, 10, 2000 * MS, 2, 0, 1, 50, &f) == 0);   /* exactly 50: not over */
  CHECK(blocking(m, 10, 3000 * MS, 3, 1, 1, 51, &f) == 1);
  CHECK(f.kind == TRC_GC_OVER && f.pid == 10 && f.gc_index == 3 && f.gen == 1 && f.type == 0);
  CHECK(f.ms == 51.0);
  /* A background GC never fires gc-over (its GCEnd is an orphan). */
  struct gcs_event e = start(10, 4000 * MS, 4, 2, 1);
  CHECK(trc_match_feed(m, &e, &f) == 0);
  e = end(10, 5000 * MS, 4);
  CHECK(trc_match_feed(m, &e, &f) == 0);
  /* Another process with the same GC index is a different key. */
  e = start(11, 6000 * MS, 5, 0, 0);
  trc_match_feed(m, &e, &f);
  e = end(10, 6100 * MS, 5);
  CHECK(trc_match_feed(m, &e, &f) == 0);
  e = end(11, 6100 * MS, 5);
  CHECK(trc_match_feed(m, &e, &f) == 1 && f.pid == 11 && f.ms == 100.0);
  /* Summary: pid 10 has 4 GCs; its longest suspend->restart is GC 3 (52 ms). */
  CHECK(trc_match_nprocs(m) == 2);
  const struct trc_proc_stats *p = trc_match_proc(m, 0);
  CHECK(p->pid == 10 && p->gcs == 4 && p->max_pause_ms == 52.0 && p->max_pause_gc == 3);
  trc_match_free(m);
}

static void test_suspend_over(void) {
  int on[TRC_NKINDS] = { 0, 1, 0 };
  double thr[TRC_NKINDS] = { 0, 10, 0 };
  struct trc_match *m = trc_match_new(on, thr);
  struct trc_fire f;
  CHECK(blocking(m, 7, 0, 1, 0, 10, 500, &f) == 0);        /* 10 ms suspension: not over */
  CHECK(blocking(m, 7, 1000 * MS, 2, 0, 11, 0, &f) == 1);
  CHECK(f.kind == TRC_SUSPEND_OVER && f.gc_index == 2 && f.ms == 11.0);
  /* Keyed by thread: an end on another thread is an orphan. */
  struct gcs_event e = susp(7, 70, 2000 * MS, 1, 3);
  trc_match_feed(m, &e, &f);
  e = ev(gcs_kind_GCSuspendEEEnd, 7, 71, 2100 * MS);
  CHECK(trc_match_feed(m, &e, &f) == 0);
  /* After a reset (re-arm), the open start is forgotten. */
  trc_match_reset(m);
  e = ev(gcs_kind_GCSuspendEEEnd, 7, 70, 2100 * MS);
  CHECK(trc_match_feed(m, &e, &f) == 0);
  trc_match_free(m);
}

static void test_bgc_final(void) {
  int on[TRC_NKINDS] = { 0, 0, 1 };
  double thr[TRC_NKINDS] = { 0, 0, 30 };
  struct trc_match *m = trc_match_new(on, thr);
  struct trc_fire f;
  /* BGC #9: first pause 40 ms (reason 1: does not count), final pause 35 ms. */
  struct gcs_event e = susp(5, 50, 100 * MS, 1, 9);
  CHECK(trc_match_feed(m, &e, &f) == 0);
  e = start(5, 101 * MS, 9, 2, 1);
  trc_match_feed(m, &e, &f);
  e = ev(gcs_kind_GCRestartEEEnd, 5, 50, 140 * MS);
  CHECK(trc_match_feed(m, &e, &f) == 0);
  e = susp(5, 50, 300 * MS, 6, 9);
  CHECK(trc_match_feed(m, &e, &f) == 0);
  e = ev(gcs_kind_GCSuspendEEEnd, 5, 50, 301 * MS);
  CHECK(trc_match_feed(m, &e, &f) == 0);
  e = ev(gcs_kind_GCRestartEEEnd, 5, 50, 335 * MS);
  CHECK(trc_match_feed(m, &e, &f) == 1);
  CHECK(f.kind == TRC_BGC_FINAL_OVER && f.gc_index == 9 && f.gen == 2 && f.type == 1 && f.ms == 35.0);
  trc_match_free(m);
}

static void test_opts(void) {
  struct trc_opts o;
  char *a1[] = { "record", "--stop-on-gc-over", "15", "--collect-multiple", "3", "--circular-mb", "300",
                 "--delay-after-trigger", "0", "--", "prog", "-x", NULL };
  CHECK(trc_opts_parse(12, a1, &o) == 0);
  CHECK(o.trigger_on[TRC_GC_OVER] && o.trigger_ms[TRC_GC_OVER] == 15 && !o.trigger_on[TRC_SUSPEND_OVER]);
  CHECK(o.collect_multiple == 3 && o.circular_mb == 300 && o.delay_after_sec == 0);
  CHECK(o.command && !strcmp(o.command[0], "prog") && !strcmp(o.command[1], "-x"));
  char *a2[] = { "record", "--buffer-size", "1M", "--num-subbuf", "8", "--profile", "alloc", NULL };
  CHECK(trc_opts_parse(7, a2, &o) == 0);
  CHECK(o.subbuf_size == 1048576 && o.num_subbuf == 8 && o.profile == TRC_PROFILE_ALLOC);
  CHECK(o.delay_after_sec == 5 && o.collect_multiple == 1 && !o.command);   /* PerfView's defaults */
  char *a3[] = { "record", "--buffer-size", "3000", NULL };
  CHECK(trc_opts_parse(3, a3, &o) == 2);                      /* not a power of two */
  char *a4[] = { "record", "--collect-multiple", "0", NULL };
  CHECK(trc_opts_parse(3, a4, &o) == 2);
}

int main(void) {
  test_gc_over();
  test_suspend_over();
  test_bgc_final();
  test_opts();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
