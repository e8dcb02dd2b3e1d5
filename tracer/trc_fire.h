/*
 * trc_fire.h — what `gcscope record` says about a stop trigger that fired,
 * and the rules it arms, the same over LTTng and EventPipe.
 * Threading: reentrant. Errors: trc_rules_new returns NULL when out of memory.
 */
#ifndef TRC_FIRE_H
#define TRC_FIRE_H

#include <stddef.h>

#include "gcs_triggers.h"
#include "trc_opts.h"

/* The flight recorder's size when a trigger is given without --circular-mb. */
#define TRC_DEFAULT_TRIGGER_CIRCULAR_MB 64.0

/* "GC #12 gen2 NonConcurrentGC", "suspension (SUSPEND_OTHER, no GC)" ... for
 * a resolved (or unresolvable) pair. */
void trc_fire_describe(const struct gcs_trigger_pair *p, char *buf, size_t n);
/* The stop-trigger rules with the thresholds of the --stop-on-... options
 * given; keep_gcs as gcs_triggers_new. */
struct gcs_triggers *trc_rules_new(const struct trc_opts *o, int keep_gcs);
/* "trigger gc-over 50 ms" for a --stop-on-... flag, "rule NAME (what)" for
 * a --rules rule. */
void trc_fire_label(const struct gcs_triggers *m, const struct gcs_trigger_pair *f, char *buf, size_t n);
/* "gcscope record: rule NAME (...) fired (pid P GC #N, X ms); capturing in D s". */
void trc_fire_announce(const struct gcs_triggers *m, const struct gcs_trigger_pair *f, double delay_sec);
/* The rule's run= command (none: nothing), by sh -c in a detached
 * grandchild, with GCSCOPE_RULE, _PID, _GC, _VALUE and _CAPTURE (capture may
 * be NULL: empty). */
void trc_fire_run(const struct gcs_rule *rule, const struct gcs_trigger_pair *f, const char *capture);
/* One line in OUTDIR/firings.tsv (with a header when new): which rule fired
 * on which GC, the capture and its verdict (verified, not verified,
 * discarded, logged). `gcscope import` of the directory stores it. */
void trc_fire_note(const char *outdir, const struct gcs_triggers *m, const struct gcs_trigger_pair *f,
                   const char *capture, const char *verdict);

#endif
