/*
 * ins_triggers.h — the tracer's (= PerfView's) GC stop triggers evaluated
 * offline over recorded events, so thresholds can be chosen from history.
 *
 * The events of one trace are replayed through the rules `gcscope record`
 * evaluates live (core/triggers, gcs_triggers.h: definitions there); this
 * module keeps every pair each trigger measures, in closing order, and whether
 * it fires at the given threshold. Offline nothing re-arms: every pair is
 * kept (a live trigger captures once, then re-arms). At the end each pair is
 * resolved to the GC it belongs to (a suspension: the GC that followed it).
 *
 * Ownership: ins_trig_new allocates; ins_trig_free releases, including the
 * pair arrays. Threading: one object per thread. Errors: ins_trig_feed
 * returns -1 once a pair could not be kept (allocation failure),
 * ins_trig_new NULL.
 */
#ifndef INS_TRIGGERS_H
#define INS_TRIGGERS_H

#include <stddef.h>

#include "gcs_events.h"
#include "gcs_triggers.h"

struct ins_trig;
/* th: the thresholds that are on (gcs_triggers.h; NULL: none, nothing fires
 * but the rules); rules (gcs_rules.h, may be NULL) are evaluated after them. */
struct gcs_rule;
struct ins_trig *ins_trig_new(const struct gcs_trigger_thresholds *th, const struct gcs_rule *rules, int nrules);
/* One decoded event of the trace, in time order (others than the triggers'
 * events are ignored). */
int ins_trig_feed(struct ins_trig *t, const struct gcs_event *ev);
/* End of the trace: resolve every pair's GC. Call once, before ins_trig_pairs. */
void ins_trig_finish(struct ins_trig *t);
/* All pairs of one kind (the three pairs, GCS_TRIGGER_EVENT_PAIR for
 * start/stop rules, GCS_TRIGGER_WINDOW for the firings of windowed rules),
 * in closing order; p->rule says which rule fired on it. */
const struct gcs_trigger_pair *ins_trig_pairs(const struct ins_trig *t, enum gcs_trigger_kind k, size_t *n);
void ins_trig_free(struct ins_trig *t);
/* The rule set (gcs_triggers_rule for names). */
const struct gcs_triggers *ins_trig_rules(const struct ins_trig *t);

#endif /* INS_TRIGGERS_H */
