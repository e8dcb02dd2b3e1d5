/*
 * gcs_rules.h — stop rules: the one form behind record's --stop-on-... flags,
 * its --rules FILE and `gcscope triggers --rules FILE` (evaluated by
 * gcs_triggers.h, live and offline alike).
 *
 * A rules file has one rule a line, `NAME: KEY=VALUE ...`; `#` starts a
 * comment. Three forms:
 *
 *   pair=gc-over|suspend-over|bgc-final-pause-over over=MS
 *       one of PerfView's three pairs (the flags are this form, named after
 *       the pair), with optional predicates gen=0|1|2,
 *       type=nonconcurrent|background|foreground, reason=NAME|N (the GC's
 *       reason; suspend-over: the suspend reason), pid=N;
 *   start=EVENT stop=EVENT [key=thread|process|count] [where=FIELD OP VALUE] over=MS
 *       PerfView's /StopOnEtwEvent form over the GC lifecycle events
 *       (GCSuspendEEBegin, GCSuspendEEEnd, GCStart, GCEnd, GCHeapStats,
 *       GCRestartEEEnd): a start opens a pair under its key (the thread by
 *       default, the process, or the events' Count field), the next stop
 *       with the same key closes it; where= tests a field of the start event
 *       (Reason, Count, Depth, Type) with = != < <= > >=;
 *   metric=pct-pause window=SEC above=PCT [sustain=SEC]
 *       the share of the last window a process was paused (each complete
 *       GC's pause and a background GC's final pause), evaluated at every
 *       pause end, firing once it stayed above PCT for sustain seconds.
 *
 * Limits and actions, for every form: max=N firings (default: no limit of
 * its own; record's --max-captures bounds the captures), cooldown=SEC after
 * a firing, for=SEC (active during the first SEC of the input only),
 * action=capture (default) | stop (capture, then end the recording) | log
 * (no capture), and run=COMMAND — last on its line, it takes the rest of the
 * line — run by `sh -c` after the capture with GCSCOPE_RULE, GCSCOPE_PID,
 * GCSCOPE_GC, GCSCOPE_VALUE and GCSCOPE_CAPTURE in its environment.
 *
 * Ownership: gcs_rules_load returns a malloc'ed array the caller frees.
 * Threading: reentrant. Errors: -1 with one line "FILE:LINE: what" (or
 * "what" for one rule) in err.
 */
#ifndef GCS_RULES_H
#define GCS_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_events.h"
#include "gcs_triggers.h"

enum gcs_rule_form { GCS_RULE_BUILTIN, GCS_RULE_EVENT_PAIR, GCS_RULE_WINDOW };
enum gcs_rule_key { GCS_RULE_KEY_THREAD, GCS_RULE_KEY_PROCESS, GCS_RULE_KEY_COUNT };
enum gcs_rule_action { GCS_RULE_CAPTURE, GCS_RULE_STOP, GCS_RULE_LOG };
enum gcs_rule_op { GCS_OP_EQ, GCS_OP_NE, GCS_OP_LT, GCS_OP_LE, GCS_OP_GT, GCS_OP_GE };

#define GCS_RULE_NAME_MAX 48
#define GCS_RULE_RUN_MAX 512

struct gcs_rule {
  char name[GCS_RULE_NAME_MAX];
  enum gcs_rule_form form;
  double over_ms;                  /* builtin, event pair: fires when strictly longer */
  /* builtin */
  enum gcs_trigger_kind kind;
  int gen, type;                   /* -1 = any */
  int64_t reason;                  /* -1 = any */
  int32_t pid;                     /* 0 = any process (every form) */
  /* event pair */
  enum gcs_kind start, stop;
  enum gcs_rule_key key;
  int has_where;
  char where_field[32];
  enum gcs_rule_op where_op;
  uint64_t where_value;
  /* window */
  double window_ms, above_pct, sustain_ms;
  /* limits and actions */
  int max_fires;                   /* 0 = no limit */
  double cooldown_ms, active_ms;   /* 0 = none, the whole input */
  enum gcs_rule_action action;
  char run[GCS_RULE_RUN_MAX];      /* "" = none */
};

/* A rule of the builtin form (what --stop-on-... makes), named after it. */
void gcs_rule_builtin(struct gcs_rule *r, enum gcs_trigger_kind k, double over_ms);
/* Parse "NAME: KEY=VALUE ..." (no comment, not blank). */
int gcs_rule_parse(const char *line, struct gcs_rule *r, char *err, size_t errlen);
/* Every rule of a file; *n may be 0 (an empty file is an error). */
int gcs_rules_load(const char *path, struct gcs_rule **rules, int *n, char *err, size_t errlen);
/* One line for people: "long-gen2 (gc-over > 50 ms, gen 2)". */
void gcs_rule_describe(const struct gcs_rule *r, char *buf, size_t n);
/* The events the rules read (gcs_triggers_event_needed) cover r's events:
 * 0, else -1 with the reason in err. */
int gcs_rule_events_ok(const struct gcs_rule *r, char *err, size_t errlen);

#endif
