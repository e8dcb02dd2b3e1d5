/*
 * ins_triggers.h — the tracer's (= PerfView's) GC stop triggers evaluated
 * offline over recorded events, so thresholds can be chosen from history.
 *
 * Definitions (perfview-gcstats.md §6.2), per process:
 *   gc-over           GCStart -> GCEnd with the same (pid, Count); the start
 *                     counts only if its Type is not BackgroundGC (1), so a
 *                     BGC's GCEnd is an orphan. Measures GC duration, not pause.
 *   suspend-over      GCSuspendEEBegin -> GCSuspendEEEnd on the same (pid, tid),
 *                     any suspend reason.
 *   bgc-final-pause   GCSuspendEEBegin with Reason SuspendForGCPrep (6) ->
 *                     GCRestartEEEnd on the same (pid, tid).
 * A start overwrites an open start with the same key; a stop without an open
 * start is ignored. A pair fires a trigger iff its duration > threshold
 * (strictly greater, as PerfView). Offline, every firing pair is reported
 * (a live trigger fires once).
 *
 * Ownership: ins_trig_new allocates; ins_trig_free releases, including the
 * pair arrays. Threading: one object per thread. Errors: ins_trig_feed returns
 * -1 on allocation failure (the object stays usable), ins_trig_new NULL.
 */
#ifndef INS_TRIGGERS_H
#define INS_TRIGGERS_H

#include <stddef.h>
#include <stdint.h>

struct gcs_event;

enum ins_trigger { INS_TRIG_GC = 0, INS_TRIG_SUSPEND = 1, INS_TRIG_BGC_FINAL = 2, INS_TRIG_N = 3 };
extern const char *const ins_trigger_names[INS_TRIG_N]; /* "gc-over", "suspend-over", "bgc-final-pause-over" */

enum ins_tev_kind {
  INS_TEV_SUSPEND_BEGIN, INS_TEV_SUSPEND_END, INS_TEV_GC_START, INS_TEV_GC_END, INS_TEV_RESTART_END
};

/* The few fields the triggers look at. */
struct ins_tev {
  enum ins_tev_kind kind;
  int64_t ts_ns;
  int32_t pid;
  int32_t tid;
  uint32_t count;   /* GCStart/GCEnd Count; GCSuspendEEBegin Count (V1+), else 0 */
  uint32_t arg;     /* GCStart Type; GCSuspendEEBegin Reason; else 0 */
};

/* Fills *t from a decoded event; returns 0 if the event matters to the
 * triggers, -1 otherwise. */
int ins_tev_from_event(const struct gcs_event *ev, struct ins_tev *t);

struct ins_trig_pair {
  int32_t pid;
  int32_t tid;
  uint32_t gc_index;  /* Count of the start event */
  int64_t start_ns;
  int64_t end_ns;
  double ms;
};

struct ins_trig;
struct ins_trig *ins_trig_new(void);
int ins_trig_feed(struct ins_trig *t, const struct ins_tev *ev);
/* All completed pairs of one trigger, in completion order. */
const struct ins_trig_pair *ins_trig_pairs(const struct ins_trig *t, enum ins_trigger which, size_t *n);
/* Whether a pair of `ms` fires a trigger at `threshold_ms` (strictly greater). */
int ins_trig_fires(double ms, double threshold_ms);
void ins_trig_free(struct ins_trig *t);

#endif /* INS_TRIGGERS_H */
