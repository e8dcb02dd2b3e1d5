/* Offline stop triggers on a hand-built event sequence (two processes). */
#include <stdint.h>

#include "gcs_events.h"
#include "check.h"
#include "ins_triggers.h"

#define MS(x) ((int64_t)((x) * 1000000.0 + 0.5)) /* ms -> ns */

#define SB INS_TEV_SUSPEND_BEGIN
#define SE INS_TEV_SUSPEND_END
#define GS INS_TEV_GC_START
#define GE INS_TEV_GC_END
#define RE INS_TEV_RESTART_END

/* {kind, ts, pid, tid, count, arg (GCStart Type / suspend Reason)} */
static const struct ins_tev EV[] = {
    {SB, MS(0), 100, 7, 1, 1},       /* gen0 GC 1 */
    {SB, MS(0.1), 200, 7, 1, 1},     /* other process, same tid: its own key */
    {SE, MS(0.2), 100, 7, 0, 0},     /* suspend 0.2 */
    {GS, MS(0.3), 100, 7, 1, 0},
    {SE, MS(2.1), 200, 7, 0, 0},     /* suspend 2.0 (pid 200) */
    {GE, MS(5.3), 100, 7, 1, 0},     /* GC 1 duration 5.0 */
    {RE, MS(5.5), 100, 7, 0, 0},     /* no BGC final pause open: ignored */
    {SB, MS(10), 100, 7, 2, 1},      /* BGC 2 initial pause */
    {SE, MS(10.1), 100, 7, 0, 0},    /* suspend 0.1 */
    {GS, MS(10.2), 100, 7, 2, 1},    /* Type 1 = BGC: not a gc-over start */
    {RE, MS(10.4), 100, 7, 0, 0},
    {SB, MS(20), 100, 7, 3, 1},      /* foreground GC 3 */
    {SE, MS(23), 100, 7, 0, 0},      /* suspend 3.0 */
    {GS, MS(23.1), 100, 7, 3, 2},
    {GE, MS(25.1), 100, 7, 3, 0},    /* GC 3 duration 2.0 */
    {RE, MS(25.2), 100, 7, 0, 0},
    {SB, MS(30), 100, 9, 3, 6},      /* BGC final pause (SuspendForGCPrep) on the BGC thread */
    {SE, MS(30.5), 100, 9, 0, 0},    /* suspend 0.5 */
    {RE, MS(37.5), 100, 9, 0, 0},    /* final pause 7.5 */
    {GE, MS(40), 100, 9, 2, 0},      /* the BGC's end: orphan for gc-over */
    {SE, MS(41), 100, 11, 0, 0},     /* orphan suspend end */
    {SB, MS(50), 100, 7, 4, 1},
    {SB, MS(51), 100, 7, 4, 1},      /* a second start overwrites the first */
    {SE, MS(52), 100, 7, 0, 0},      /* suspend 1.0 */
};

int main(void) {
  struct ins_trig *t = ins_trig_new();
  CHECK(t != NULL);
  for (size_t i = 0; i < sizeof EV / sizeof *EV; i++) CHECK_EQ_INT(ins_trig_feed(t, &EV[i]), 0);

  size_t n;
  const struct ins_trig_pair *p = ins_trig_pairs(t, INS_TRIG_GC, &n);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_INT(p[0].gc_index, 1);
  CHECK_REL(p[0].ms, 5.0, 1e-9);
  CHECK_EQ_INT(p[1].gc_index, 3);
  CHECK_REL(p[1].ms, 2.0, 1e-9);
  /* --gc-over 2: only GC 1 fires (strictly greater). */
  CHECK(ins_trig_fires(p[0].ms, 2));
  CHECK(!ins_trig_fires(p[1].ms, 2));

  p = ins_trig_pairs(t, INS_TRIG_SUSPEND, &n);
  CHECK_EQ_INT(n, 6);
  const double susp[] = {0.2, 2.0, 0.1, 3.0, 0.5, 1.0};
  const int32_t spid[] = {100, 200, 100, 100, 100, 100};
  for (size_t i = 0; i < 6 && i < n; i++) {
    CHECK_REL(p[i].ms, susp[i], 1e-9);
    CHECK_EQ_INT(p[i].pid, spid[i]);
  }
  CHECK_EQ_INT(p[3].gc_index, 3);
  CHECK_EQ_INT(p[5].start_ns, MS(51));

  p = ins_trig_pairs(t, INS_TRIG_BGC_FINAL, &n);
  CHECK_EQ_INT(n, 1);
  CHECK_REL(p[0].ms, 7.5, 1e-9);
  CHECK_EQ_INT(p[0].tid, 9);
  CHECK_EQ_INT(p[0].gc_index, 3);
  ins_trig_free(t);

  /* Decoded events map onto trigger events. */
  struct gcs_event ev = {0};
  struct ins_tev te;
  ev.kind = gcs_kind_GCSuspendEEBegin;
  ev.ts_ns = 42;
  ev.pid = 5;
  ev.tid = 6;
  ev.u.GCSuspendEEBegin.Reason = 6;
  ev.u.GCSuspendEEBegin.Count = 12;
  CHECK_EQ_INT(ins_tev_from_event(&ev, &te), 0);
  CHECK_EQ_INT(te.kind, INS_TEV_SUSPEND_BEGIN);
  CHECK_EQ_INT(te.arg, 6);
  CHECK_EQ_INT(te.count, 12);
  CHECK_EQ_INT(te.ts_ns, 42);
  memset(&ev, 0, sizeof ev);
  ev.kind = gcs_kind_GCStart;
  ev.u.GCStart.Count = 3;
  ev.u.GCStart.Type = 1;
  CHECK_EQ_INT(ins_tev_from_event(&ev, &te), 0);
  CHECK_EQ_INT(te.kind, INS_TEV_GC_START);
  CHECK_EQ_INT(te.arg, 1);
  ev.kind = gcs_kind_GCHeapStats;
  CHECK_EQ_INT(ins_tev_from_event(&ev, &te), -1);
  return check_done();
}
