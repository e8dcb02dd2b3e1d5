/*
 * gcs_triggers.h — PerfView's three GC stop triggers, the one definition used
 * live by `gcscope record` (events from LTTng trigger notifications) and
 * offline by `gcscope triggers` (the same events replayed from the database's
 * gc_lifecycle table). The events go into one GC reconstruction (gcs_recon.h),
 * whose callbacks report the pairs as they close:
 *
 *   gc-over              GCStart -> GCEnd of the same GC, background GCs
 *                        excluded (PerfView: a BGC's GC/Stop is an orphan);
 *                        PerfView's /StopOnGCOverMSec
 *   suspend-over         GCSuspendEEBegin -> GCSuspendEEEnd on the suspending
 *                        thread, every suspend reason (PerfView's
 *                        /StopOnGCSuspendOverMSec counts them all)
 *   bgc-final-pause-over GCSuspendEEBegin(SuspendForGCPrep) -> GCRestartEEEnd;
 *                        PerfView's /StopOnBGCFinalPauseOverMsec
 *
 * A pair fires when one of the rules (gcs_rules.h; the three flags are rules
 * of the builtin form) matches it: its kind and predicates, a duration
 * strictly greater than its threshold (0: every pair longer than 0), and its
 * limits (max=, cooldown=, for=, timed by the events). Rules of the other
 * forms see the events themselves (event pairs) or each complete GC's pause
 * (the windowed % paused).
 * Re-arming (after a capture, or when notifications were lost): pairs that
 * began before the re-arm time are not reported at all (PerfView re-creates
 * its triggers, so such a stop is an orphan; a pair spanning lost events
 * could join a begin and an end of different pauses).
 *
 * Timestamps: the events' ts_ns are used as given, except that a time earlier
 * than the previous event's (a CLOCK_REALTIME step) is raised to it.
 * Ownership: gcs_triggers_new returns an object freed by gcs_triggers_free.
 * Threading: one thread at a time. Errors: gcs_triggers_new returns NULL on
 * allocation failure.
 */
#ifndef GCS_TRIGGERS_H
#define GCS_TRIGGERS_H

#include <stdbool.h>
#include <stdint.h>

#include "gcs_events.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gcs_trigger_kind {
  GCS_TRIGGER_GC_OVER,
  GCS_TRIGGER_SUSPEND_OVER,
  GCS_TRIGGER_BGC_FINAL_OVER,
  GCS_TRIGGER_NKINDS,
  /* the other rule forms (gcs_rules.h): pairs of events, a windowed metric */
  GCS_TRIGGER_EVENT_PAIR = GCS_TRIGGER_NKINDS,
  GCS_TRIGGER_WINDOW
};
/* "gc-over", "suspend-over", "bgc-final-pause-over", "event-pair", "pct-pause" */
const char *gcs_trigger_name(enum gcs_trigger_kind k);

/* One closed pair. */
struct gcs_trigger_pair {
  enum gcs_trigger_kind kind;
  int32_t pid;
  int32_t tid;              /* thread of the closing event (suspensions: the suspending thread) */
  uint32_t gc_index;        /* the GC the pair belongs to (see gcs_triggers_resolve) */
  int gen, type;            /* GCStart Depth and Type; -1 while not known */
  uint32_t reason;          /* suspend-over: the suspend reason */
  double ms;                /* end_ns - begin_ns in ms */
  uint64_t begin_ns, end_ns;
  int fires;                /* a rule fired on it */
  int resolved;             /* gc_index/gen/type are those of the GC's GCStart */
  int rule;                 /* the (first) rule that fired (gcs_triggers_rule), -1 none */
  uint64_t rules_fired;     /* bit i: rule i fired on it (several with gcs_triggers_every_rule) */
  double value;             /* window: the % of the window paused; else ms */
};

/* Every pair reported (fired or not), in closing order. */
typedef void (*gcs_trigger_pair_fn)(const struct gcs_trigger_pair *p, void *ud);

struct gcs_trigger_summary {
  int nprocs;               /* processes with at least one GC */
  uint64_t gcs;             /* GCs seen (GCStart), complete or not */
  double max_pause_ms;      /* longest PauseDurationMSec of a complete GC; 0 if none */
  int32_t max_pid;
  uint32_t max_gc;
};

struct gcs_triggers;

/* keep_gcs > 0 bounds the reconstruction's memory for long live watches
 * (only the last keep_gcs GCs of a process stay resolvable); 0 keeps every
 * GC (offline replay resolves at the end). on_pair may be NULL. No trigger
 * has a threshold until gcs_triggers_set_threshold. */
struct gcs_triggers *gcs_triggers_new(int keep_gcs, gcs_trigger_pair_fn on_pair, void *ud);
void gcs_triggers_free(struct gcs_triggers *t);
/* PerfView's flag form: the builtin rule named after k (gcs_rule_builtin),
 * added or given the new threshold. */
void gcs_triggers_set_threshold(struct gcs_triggers *t, enum gcs_trigger_kind k, double ms);
/* PerfView's three flags (record's --stop-on-...): which are on, and their
 * thresholds. The one spelling of "threshold off" is on[k] == false; ms[k]
 * is then not read. */
struct gcs_trigger_thresholds {
  bool on[GCS_TRIGGER_NKINDS];
  double ms[GCS_TRIGGER_NKINDS];
};
/* Is any of the three on? (th may be NULL: none.) */
bool gcs_trigger_thresholds_any(const struct gcs_trigger_thresholds *th);
/* gcs_triggers_set_threshold for each one that is on (th may be NULL). */
void gcs_triggers_set_thresholds(struct gcs_triggers *t, const struct gcs_trigger_thresholds *th);
/* Any rule (gcs_rules.h), copied; rules are tried in the order added and the
 * first that fires on a pair wins. -1 when out of memory. */
struct gcs_rule;
int gcs_triggers_add_rule(struct gcs_triggers *t, const struct gcs_rule *r);
int gcs_triggers_nrules(const struct gcs_triggers *t);
const struct gcs_rule *gcs_triggers_rule(const struct gcs_triggers *t, int i);
/* Offline evaluation: every rule that matches a pair fires on it (each with
 * its own limits), not only the first. */
void gcs_triggers_every_rule(struct gcs_triggers *t, int on);
/* At most GCS_TRIGGERS_MAX_RULES rules. */
#define GCS_TRIGGERS_MAX_RULES 64
/* Rule i's last firing does not count (its capture was discarded): its
 * max= and cooldown= forget it. */
void gcs_triggers_discard(struct gcs_triggers *t, int i);

/* The events the rules read, and their payload fields (NULL-terminated, by
 * gc_events.def name); every other field may be 0. */
int gcs_triggers_event_needed(enum gcs_kind k);
const char *const *gcs_triggers_event_fields(enum gcs_kind k);

/* Feed one event in arrival order. Returns 1 and fills *fired (if not NULL)
 * when the event made a rule fire, resolved as far as known. One event can
 * make several fire (a GCEnd closes a gc-over pair and a start/stop pair):
 * gcs_triggers_next returns the others, then 0. */
#define GCS_TRIGGERS_MAX_FIRES 8
int gcs_triggers_feed(struct gcs_triggers *t, const struct gcs_event *ev, struct gcs_trigger_pair *fired);
int gcs_triggers_next(struct gcs_triggers *t, struct gcs_trigger_pair *fired);
/* count events were lost somewhere in [begin_ns, end_ns] (gcs_recon_lost:
 * begin_ns 0 unknown; a loss at one known time: begin_ns = end_ns): the GCs
 * whose events may lie there become incomplete, and pairs re-arm at end_ns. */
void gcs_triggers_lost(struct gcs_triggers *t, uint64_t begin_ns, uint64_t end_ns, uint64_t count);
/* Pairs that began before ts_ns are no longer reported. */
void gcs_triggers_rearm(struct gcs_triggers *t, uint64_t ts_ns);
/* Fill gc_index, gen and type from the reconstructed GC the pair belongs to
 * (suspend-over: the GC that followed the suspension, known only once its
 * GCStart arrived). Returns 1 when resolved (also for a suspension not made
 * for a GC, which has none), 0 while the GCStart is still to come. */
int gcs_triggers_resolve(const struct gcs_triggers *t, struct gcs_trigger_pair *p);
/* End of input: close the reconstruction and summarise it (s may be NULL).
 * Resolving still works after; feeding does not. */
void gcs_triggers_finish(struct gcs_triggers *t, struct gcs_trigger_summary *s);

#ifdef __cplusplus
}
#endif
#endif /* GCS_TRIGGERS_H */
