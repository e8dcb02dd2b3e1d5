/*
 * trc_trigger.h — PerfView's three GC stop triggers (perfview-gcstats.md §6.2)
 * on top of the GC reconstruction (core/recon, gcs_recon.h): the events
 * the watcher receives go into one gcs_recon per recording, whose live hooks
 * report the pairs as they close; this module compares them with the
 * thresholds and keeps the end-of-recording summary.
 *
 *   gc-over              recon's gc_end: GCStart -> GCEnd, BGCs excluded
 *   suspend-over         recon's suspend_done: SuspendEEBegin -> SuspendEEEnd
 *                        (every suspend reason, as PerfView)
 *   bgc-final-pause-over recon's bgc_final_pause: SuspendEEBegin(reason 6)
 *                        -> RestartEEEnd
 * A pair fires when its duration is strictly greater than the threshold
 * (MS = 0: every pair). After a capture the caller re-arms: pairs that began
 * before the re-arm time no longer fire (PerfView re-creates its triggers, so
 * such a stop is an orphan). Lost notifications re-arm too (a pair spanning a
 * gap could join a begin and an end of different pauses).
 *
 * Timestamps: the events' ts_ns are used as given, except that a time earlier
 * than the previous event's (a CLOCK_REALTIME step) is raised to it.
 * Ownership: trc_trigger_new returns an object freed by trc_trigger_free.
 * Threading: one thread at a time. Errors: trc_trigger_new returns NULL on OOM.
 */
#ifndef TRC_TRIGGER_H
#define TRC_TRIGGER_H

#include <stdint.h>

#include "gcs_events.h"
#include "trc_opts.h"

struct trc_fire {
  enum trc_trigger_kind kind;
  int32_t pid;
  uint32_t gc_index;        /* the GC the pause belongs to (see trc_trigger_resolve) */
  int gen, type;            /* GCStart Depth and Type; -1 while not known */
  uint32_t reason;          /* suspend-over: the suspend reason */
  double ms;                /* the measured duration */
  uint64_t begin_ns, ts_ns; /* the pair's first and closing event times */
  int resolved;             /* gc_index/gen/type are those of the GC's GCStart */
};

struct trc_summary {
  int nprocs;               /* processes with at least one GC */
  uint64_t gcs;             /* GCs seen (GCStart), complete or not */
  double max_pause_ms;      /* longest PauseDurationMSec of a complete GC; 0 if none */
  int32_t max_pid;
  uint32_t max_gc;
};

struct trc_trigger;

/* enabled/threshold_ms indexed by enum trc_trigger_kind. */
struct trc_trigger *trc_trigger_new(const int *enabled, const double *threshold_ms);
void trc_trigger_free(struct trc_trigger *t);
/* Feed one event in arrival order. Returns 1 and fills *fire when the event
 * closes a pair over a threshold (one pair at most closes per event). */
int trc_trigger_feed(struct trc_trigger *t, const struct gcs_event *ev, struct trc_fire *fire);
/* count notifications were lost at ts_ns: open GCs become incomplete, and
 * pairs that began before ts_ns no longer fire. */
void trc_trigger_lost(struct trc_trigger *t, uint64_t ts_ns, uint64_t count);
/* Re-arm after a capture: pairs that began before ts_ns no longer fire. */
void trc_trigger_rearm(struct trc_trigger *t, uint64_t ts_ns);
/* Fill gc_index, gen and type from the reconstructed GC the fire belongs to
 * (for suspend-over: the GC that followed the suspension, which is known only
 * once its GCStart arrived). Returns 1 when resolved (also for a non-GC
 * suspension, which has no GC), 0 while the GCStart is still to come. */
int trc_trigger_resolve(const struct trc_trigger *t, struct trc_fire *fire);
/* End of input: close the reconstruction and summarise it. No feeding after. */
void trc_trigger_summary(struct trc_trigger *t, struct trc_summary *s);

#endif
