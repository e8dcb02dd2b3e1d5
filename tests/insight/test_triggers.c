/* Offline stop triggers (ins_triggers: the events replayed through the rules
 * `gcscope record` uses, gcs_triggers.h) on a hand-built event sequence (two
 * processes). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gcs_enums.h"
#include "gcs_events.h"
#include "check.h"
#include "ins_triggers.h"

#define MS(x) ((int64_t)((x) * 1000000.0 + 0.5)) /* ms -> ns */

#define SB gcs_kind_GCSuspendEEBegin
#define SE gcs_kind_GCSuspendEEEnd
#define GS gcs_kind_GCStart
#define GE gcs_kind_GCEnd
#define RE gcs_kind_GCRestartEEEnd

#define FOR_GC GCS_SUSPEND_REASON_SUSPEND_FOR_GC
#define FOR_GC_PREP GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP
#define NONCONC GCS_GC_TYPE_NON_CONCURRENT
#define BGC GCS_GC_TYPE_BACKGROUND
#define FGC GCS_GC_TYPE_FOREGROUND

/* arg: GCStart Type / GCSuspendEEBegin Reason; count: their Count (GCEnd's too). */
struct step {
  enum gcs_kind kind;
  int64_t ts_ns;
  int32_t pid, tid;
  uint32_t count, arg;
};

static const struct step EV[] = {
    {SB, MS(0), 100, 7, 1, FOR_GC},      /* gen0 GC 1 */
    {SB, MS(0.1), 200, 7, 1, FOR_GC},    /* other process, same tid: its own suspension */
    {SE, MS(0.2), 100, 7, 0, 0},         /* suspend 0.2 */
    {GS, MS(0.3), 100, 7, 1, NONCONC},
    {SE, MS(2.1), 200, 7, 0, 0},         /* suspend 2.0 (pid 200) */
    {GE, MS(5.3), 100, 7, 1, 0},         /* GC 1 duration 5.0 */
    {RE, MS(5.5), 100, 7, 0, 0},         /* no BGC final pause open: ignored */
    {SB, MS(10), 100, 7, 2, FOR_GC},     /* BGC 2 initial pause */
    {SE, MS(10.1), 100, 7, 0, 0},        /* suspend 0.1 */
    {GS, MS(10.2), 100, 7, 2, BGC},      /* a BGC: its GCEnd does not close a gc-over pair */
    {RE, MS(10.4), 100, 7, 0, 0},
    {SB, MS(20), 100, 7, 3, FOR_GC},     /* foreground GC 3 */
    {SE, MS(23), 100, 7, 0, 0},          /* suspend 3.0 */
    {GS, MS(23.1), 100, 7, 3, FGC},
    {GE, MS(25.1), 100, 7, 3, 0},        /* GC 3 duration 2.0 */
    {RE, MS(25.2), 100, 7, 0, 0},
    {SB, MS(30), 100, 9, 3, FOR_GC_PREP}, /* BGC 2's final pause on the BGC thread (Count: the latest GC, 3) */
    {SE, MS(30.5), 100, 9, 0, 0},        /* suspend 0.5 */
    {RE, MS(37.5), 100, 9, 0, 0},        /* final pause 7.5 */
    {GE, MS(40), 100, 9, 2, 0},          /* the BGC's end: no gc-over pair */
    {SE, MS(41), 100, 11, 0, 0},         /* orphan suspend end */
    {SB, MS(50), 100, 7, 4, FOR_GC},
    {SB, MS(51), 100, 7, 4, FOR_GC},     /* a second begin replaces the first */
    {SE, MS(52), 100, 7, 0, 0},          /* suspend 1.0 */
};

static struct gcs_event event(const struct step *s) {
  struct gcs_event e;
  memset(&e, 0, sizeof e);
  e.kind = s->kind;
  e.version = gcs_event_descs[s->kind].version;
  e.ts_ns = (uint64_t)s->ts_ns;
  e.pid = s->pid;
  e.tid = s->tid;
  if (s->kind == SB) {
    e.u.GCSuspendEEBegin.Reason = s->arg;
    e.u.GCSuspendEEBegin.Count = s->count;
  } else if (s->kind == GS) {
    e.u.GCStart.Count = s->count;
    e.u.GCStart.Type = s->arg;
  } else if (s->kind == GE) {
    e.u.GCEnd.Count = s->count;
  }
  return e;
}

int main(void) {
  const struct gcs_trigger_thresholds thr = {.on = {true, false, true}, .ms = {2, 0, 7.5}};
  struct ins_trig *t = ins_trig_new(&thr, NULL, 0);
  CHECK(t != NULL);
  if (!t) return 1;
  for (size_t i = 0; i < sizeof EV / sizeof *EV; i++) {
    struct gcs_event e = event(&EV[i]);
    CHECK_EQ_INT(ins_trig_feed(t, &e), 0);
  }
  /* Events the triggers do not read are ignored. */
  struct gcs_event other = event(&EV[0]);
  other.kind = gcs_kind_GCAllocationTick;
  CHECK_EQ_INT(ins_trig_feed(t, &other), 0);
  ins_trig_finish(t);

  size_t n;
  const struct gcs_trigger_pair *p = ins_trig_pairs(t, GCS_TRIGGER_GC_OVER, &n);
  CHECK_EQ_INT(n, 2);
  if (n == 2) {
    CHECK_EQ_INT(p[0].gc_index, 1);
    CHECK_REL(p[0].ms, 5.0, 1e-9);
    CHECK_EQ_INT(p[1].gc_index, 3);
    CHECK_REL(p[1].ms, 2.0, 1e-9);
    /* --gc-over 2: only GC 1 fires (strictly greater). */
    CHECK(p[0].fires);
    CHECK(!p[1].fires);
  }

  p = ins_trig_pairs(t, GCS_TRIGGER_SUSPEND_OVER, &n);
  CHECK_EQ_INT(n, 6);
  const double susp[] = {0.2, 2.0, 0.1, 3.0, 0.5, 1.0};
  const int32_t spid[] = {100, 200, 100, 100, 100, 100};
  for (size_t i = 0; i < 6 && i < n; i++) {
    CHECK_REL(p[i].ms, susp[i], 1e-9);
    CHECK_EQ_INT(p[i].pid, spid[i]);
    CHECK(!p[i].fires);   /* no --suspend-over */
  }
  if (n == 6) {
    CHECK_EQ_INT(p[3].gc_index, 3);
    CHECK_EQ_INT(p[5].begin_ns, MS(51));
  }

  p = ins_trig_pairs(t, GCS_TRIGGER_BGC_FINAL_OVER, &n);
  CHECK_EQ_INT(n, 1);
  if (n == 1) {
    CHECK_REL(p[0].ms, 7.5, 1e-9);
    CHECK_EQ_INT(p[0].tid, 9);
    /* The final pause belongs to the running BGC, GC 2 (as `record` reports
     * it), not to the SuspendEEBegin's Count. */
    CHECK_EQ_INT(p[0].gc_index, 2);
    CHECK(!p[0].fires);   /* 7.5 is not over 7.5 */
  }
  ins_trig_free(t);
  return check_done();
}
