/* test_rules — stop rules (core/triggers: gcs_rules.h parsing, the rule forms
 * and limits evaluated by gcs_triggers.h) on hand-made event sequences.
 * Times in ms after T0; every expected firing follows from them:
 *
 * Builtin with predicates: GCs #1 gen0 30 ms, #2 gen2 40 ms, #3 gen2 60 ms
 *   (GCStart->GCEnd). "big2: pair=gc-over over=35 gen=2" fires on #2 and #3
 *   without limits; with max=1 only #2; with cooldown=1000 (GCs 100 ms apart)
 *   only #2; with for=0.15 (150 ms from the first event at 0) #2 (ends at
 *   140) but not #3 (ends at 260). reason=Induced: #3 only (its Reason 1).
 * Event pair: "susp2: start=GCSuspendEEBegin stop=GCRestartEEEnd over=50"
 *   by thread: #1 whole pause 0..30 (30 ms), #2 100..140 (40), #3 200..260
 *   (60) -> fires on #3 with value 60 and gc_index 2 (the Count of its
 *   SuspendEEBegin, CoreCLR's n - 1). where=Reason=2 (no such suspension): none.
 * Window: 10 GCs of 20 ms every 100 ms from t=1000 (pauses 1000..1020, ...):
 *   "busy: metric=pct-pause window=0.5 above=15 sustain=0.2": in any 500 ms
 *   window ending at a pause end there are 5 pauses (100 ms of 500: 20 %)
 *   from the fifth pause on (end 1420: pauses 1000..1420 all within
 *   [920, 1420]: 5 x 20 = 100 ms = 20 %), but at 1320 only 4 (1020..1320
 *   windows [820,1320]: 4 x 20 = 80 ms = 16 % > 15 too). First above at the
 *   4th pause end 1320 (16 %; 3rd at 1220: 60/500 = 12 %); sustained 200 ms
 *   at 1520 -> fires at GC #15, value 20 % (the pause 1000..1020 has left
 *   the window [1020, 1520]); then above again at 1620, fires at 1820 (#18).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "gcs_test_event.h"
#include "gcs_enums.h"
#include "gcs_rules.h"
#include "gcs_triggers.h"

#define MS 1000000ull
#define T0 (1700000000ull * 1000000000ull)

static struct gcs_event ev(enum gcs_kind k, int32_t pid, int32_t tid, uint64_t ms) {
  return gcs_test_event(k, pid, tid, T0 + ms * MS);
}

static int nfired;
static struct gcs_trigger_pair fired[32];
static void feed(struct gcs_triggers *t, struct gcs_event e) {
  struct gcs_trigger_pair f;
  if (gcs_triggers_feed(t, &e, &f) && nfired < 32) fired[nfired++] = f;
}

/* A blocking GC: SuspendEEBegin at t0 (Count n - 1), GCStart at once, GCEnd after g ms, restart then. */
static void gc(struct gcs_triggers *t, uint64_t t0, uint32_t n, uint32_t depth, uint32_t reason, uint64_t g) {
  int pid = 7;
  struct gcs_event e = ev(gcs_kind_GCSuspendEEBegin, pid, pid, t0);
  e.u.GCSuspendEEBegin.Reason = GCS_SUSPEND_REASON_SUSPEND_FOR_GC;
  e.u.GCSuspendEEBegin.Count = n - 1;
  feed(t, e);
  feed(t, ev(gcs_kind_GCSuspendEEEnd, pid, pid, t0));
  e = ev(gcs_kind_GCStart, pid, pid, t0);
  e.u.GCStart.Count = n;
  e.u.GCStart.Depth = depth;
  e.u.GCStart.Reason = reason;
  e.u.GCStart.Type = GCS_GC_TYPE_NON_CONCURRENT;
  feed(t, e);
  e = ev(gcs_kind_GCEnd, pid, pid, t0 + g);
  e.u.GCEnd.Count = n;
  e.u.GCEnd.Depth = depth;
  feed(t, e);
  feed(t, ev(gcs_kind_GCHeapStats, pid, pid, t0 + g));
  feed(t, ev(gcs_kind_GCRestartEEEnd, pid, pid, t0 + g));
}

static struct gcs_triggers *with(const char *line) {
  struct gcs_rule r;
  char err[256] = "";
  int rc = gcs_rule_parse(line, &r, err, sizeof err);
  if (rc) printf("parse failed: %s: %s\n", line, err);
  CHECK(rc == 0);
  struct gcs_triggers *t = gcs_triggers_new(0, NULL, NULL);
  CHECK(gcs_triggers_add_rule(t, &r) == 0);
  nfired = 0;
  return t;
}

static void three(struct gcs_triggers *t) {
  gc(t, 0, 1, 0, GCS_GC_REASON_ALLOC_SMALL, 30);
  gc(t, 100, 2, 2, GCS_GC_REASON_ALLOC_SMALL, 40);
  gc(t, 200, 3, 2, GCS_GC_REASON_INDUCED, 60);
}

static void bad(const char *line, const char *want) {
  struct gcs_rule r;
  char err[256] = "";
  int rc = gcs_rule_parse(line, &r, err, sizeof err);
  if (rc == 0 || !strstr(err, want)) printf("line %s: got %d '%s', want error with '%s'\n", line, rc, err, want);
  CHECK(rc != 0 && strstr(err, want));
}

int main(void) {
  struct gcs_triggers *t = with("big2: pair=gc-over over=35 gen=2");
  three(t);
  CHECK(nfired == 2 && fired[0].gc_index == 2 && fired[1].gc_index == 3 && fired[0].rule == 0);
  CHECK_REL(fired[1].ms, 60.0, 1e-12);
  gcs_triggers_free(t);

  t = with("big2: pair=gc-over over=35 gen=2 max=1");
  three(t);
  CHECK(nfired == 1 && fired[0].gc_index == 2);
  gcs_triggers_discard(t, 0); /* its capture was discarded: the next one may fire */
  gc(t, 300, 4, 2, GCS_GC_REASON_ALLOC_SMALL, 50);
  CHECK(nfired == 2 && fired[1].gc_index == 4);
  gcs_triggers_free(t);

  t = with("big2: pair=gc-over over=35 gen=2 cooldown=1");
  three(t);
  CHECK(nfired == 1 && fired[0].gc_index == 2);
  gcs_triggers_free(t);

  t = with("early: pair=gc-over over=35 for=0.15");
  three(t);
  CHECK(nfired == 1 && fired[0].gc_index == 2);
  gcs_triggers_free(t);

  t = with("ind: pair=gc-over over=0 reason=Induced");
  three(t);
  CHECK(nfired == 1 && fired[0].gc_index == 3);
  gcs_triggers_free(t);

  t = with("susp2: start=GCSuspendEEBegin stop=GCRestartEEEnd over=50 action=log");
  three(t);
  CHECK(nfired == 1 && fired[0].kind == GCS_TRIGGER_EVENT_PAIR && fired[0].gc_index == 2);
  CHECK_REL(fired[0].value, 60.0, 1e-12);
  CHECK(gcs_triggers_rule(t, 0)->action == GCS_RULE_LOG);
  gcs_triggers_free(t);

  t = with("none: start=GCSuspendEEBegin stop=GCRestartEEEnd key=process where=Reason=2 over=0");
  three(t);
  CHECK(nfired == 0);
  gcs_triggers_free(t);

  t = with("byc: start=GCStart stop=GCEnd key=count where=Depth>=2 over=39.5");
  three(t);
  CHECK(nfired == 2 && fired[0].gc_index == 2 && fired[1].gc_index == 3);
  gcs_triggers_free(t);

  t = with("busy: metric=pct-pause window=0.5 above=15 sustain=0.2 run=echo fired $GCSCOPE_GC # kept");
  for (uint32_t i = 0; i < 10; i++) gc(t, 1000 + 100 * i, 10 + i, 0, GCS_GC_REASON_ALLOC_SMALL, 20);
  CHECK(nfired >= 1 && fired[0].kind == GCS_TRIGGER_WINDOW && fired[0].gc_index == 15);
  CHECK_REL(fired[0].value, 20.0, 1e-9);
  CHECK(strcmp(gcs_triggers_rule(t, 0)->run, "echo fired $GCSCOPE_GC # kept") == 0);
  /* after a firing the count starts again: above at 1620 (#16), sustained at 1820 (#18) */
  CHECK(nfired == 2 && fired[1].gc_index == 18);
  gcs_triggers_free(t);

  /* the flags are this form */
  t = gcs_triggers_new(0, NULL, NULL);
  gcs_triggers_set_threshold(t, GCS_TRIGGER_GC_OVER, 35);
  gcs_triggers_set_threshold(t, GCS_TRIGGER_GC_OVER, 45);
  CHECK(gcs_triggers_nrules(t) == 1 && strcmp(gcs_triggers_rule(t, 0)->name, "gc-over") == 0);
  nfired = 0;
  three(t);
  CHECK(nfired == 1 && fired[0].gc_index == 3);
  char d[200];
  gcs_rule_describe(gcs_triggers_rule(t, 0), d, sizeof d);
  CHECK(strcmp(d, "gc-over (gc-over > 45 ms)") == 0);
  gcs_triggers_free(t);

  /* the flags' one "off": on[k] false; ms[k] of an off trigger is not read
   * (here a value that would fire on every pair, and a NaN) */
  struct gcs_trigger_thresholds th = { .on = { false, true, false }, .ms = { 0, 7.5, NAN } };
  CHECK(gcs_trigger_thresholds_any(&th) && !gcs_trigger_thresholds_any(NULL));
  t = gcs_triggers_new(0, NULL, NULL);
  gcs_triggers_set_thresholds(t, &th);
  gcs_triggers_set_thresholds(t, NULL);
  CHECK(gcs_triggers_nrules(t) == 1 && strcmp(gcs_triggers_rule(t, 0)->name, "suspend-over") == 0 &&
        gcs_triggers_rule(t, 0)->over_ms == 7.5);
  gcs_triggers_free(t);
  th.on[1] = false;
  CHECK(!gcs_trigger_thresholds_any(&th));

  struct gcs_rule r;
  char err[256];
  CHECK(gcs_rule_parse("x: pair=gc-over over=5 gen=2 type=background reason=AllocLarge pid=9", &r, err, sizeof err) == 0);
  gcs_rule_describe(&r, d, sizeof d);
  CHECK(strcmp(d, "x (gc-over > 5 ms, gen 2, BackgroundGC, reason AllocLarge, pid 9)") == 0);

  bad("nocolon pair=gc-over over=1", "name and a colon");
  bad("a: pair=gc-over", "needs over=MS");
  bad("a: pair=gcover over=1", "expected gc-over");
  bad("a: pair=gc-over over=-1", "expected milliseconds");
  bad("a: pair=suspend-over over=1 gen=2", "closes before its GC starts");
  bad("a: start=GCStart over=1", "go together");
  bad("a: start=GCStart stop=GCAllocationTick over=1", "not GCAllocationTick");
  bad("a: start=GCStart stop=GCEnd where=Foo=1 over=1", "where=");
  bad("a: start=GCStart stop=GCHeapStats key=count over=1", "lacks");
  bad("a: metric=pct-pause above=5", "needs window=SEC");
  bad("a: metric=pct-pause window=1 above=5 over=3", "metric= takes");
  bad("a: pair=gc-over over=1 frobnicate=2", "unknown key 'frobnicate'");
  bad("a: pair=gc-over over=1 action=explode", "expected capture, stop or log");
  bad("a: pair=gc-over over=1 start=GCStart stop=GCEnd", "exactly one of");
  return check_done();
}
