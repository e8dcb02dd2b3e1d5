/*
 * trc_match.h — PerfView's start/stop trigger machine for the three GC stop
 * triggers (perfview-gcstats.md §6.2), plus the per-process counts the
 * end-of-recording summary prints.
 *
 *   gc-over              GCStart (Type != BackgroundGC) -> GCEnd, key (Count, pid)
 *   suspend-over         GCSuspendEEBegin -> GCSuspendEEEnd, key (thread, pid)
 *   bgc-final-pause-over GCSuspendEEBegin with Reason 6 (SuspendForGCPrep)
 *                        -> GCRestartEEEnd, key (thread, pid)
 * A stop event without its start is an orphan and ignored; a start overwrites
 * an open one with the same key; a pair fires when its duration is strictly
 * greater than the threshold. This is PerfView's trigger machine, not its
 * GCStats analysis: the trigger must fire at the stop event, per thread.
 *
 * Ownership: trc_match_new returns an object freed by trc_match_free.
 * Threading: one thread at a time. Errors: trc_match_new returns NULL on OOM.
 */
#ifndef TRC_MATCH_H
#define TRC_MATCH_H

#include <stdint.h>

#include "gcs_events.h"
#include "trc_opts.h"

struct trc_fire {
  enum trc_trigger_kind kind;
  int32_t pid, tid;
  uint32_t gc_index;        /* GC the pause belongs to (Count) */
  int gen;                  /* its generation, -1 if not known yet */
  int type;                 /* its GCStart Type, -1 if not known yet */
  double ms;                /* the measured duration */
  uint64_t ts_ns;           /* when the stop event was seen */
};

struct trc_proc_stats {
  int32_t pid;
  uint64_t gcs;             /* GCStart events */
  double max_pause_ms;      /* longest GCSuspendEEBegin -> GCRestartEEEnd */
  uint32_t max_pause_gc;    /* the GC index of that pause */
};

struct trc_match;

/* enabled/threshold_ms indexed by enum trc_trigger_kind. */
struct trc_match *trc_match_new(const int *enabled, const double *threshold_ms);
void trc_match_free(struct trc_match *m);
/* Feed one event (kinds other than the five lifecycle events are ignored).
 * Returns 1 and fills *fire when the event completes a pair over a threshold
 * (at most one trigger kind fires per event; gc-over first). */
int trc_match_feed(struct trc_match *m, const struct gcs_event *ev, struct trc_fire *fire);
/* Forget every open start (re-arming after a capture, or after drops). */
void trc_match_reset(struct trc_match *m);
/* Generation and type of GC `index` of `pid` if its GCStart was seen. */
int trc_match_gc_info(const struct trc_match *m, int32_t pid, uint32_t index, int *gen, int *type);
int trc_match_nprocs(const struct trc_match *m);
const struct trc_proc_stats *trc_match_proc(const struct trc_match *m, int i);

#endif
