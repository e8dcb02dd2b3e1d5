/*
 * trc_profile.h — which LTTng tracepoints a `gcscope record` profile enables.
 *
 * rgc names come from schemas/gc_events.def (every event librgc emits, minus
 * the high-volume ones the profile leaves out); CoreCLR names (--dotnet) are
 * perfcollect's GCCollectOnly lists plus the versions current runtimes fire and
 * the sentinel tracepoints CoreCLR checks before it emits at all
 * (coreclr-lttng-events.md §2.8, §3).
 * Ownership: the returned names are static strings. Threading: reentrant.
 */
#ifndef TRC_PROFILE_H
#define TRC_PROFILE_H

enum trc_profile { TRC_PROFILE_GC, TRC_PROFILE_ALLOC, TRC_PROFILE_HANDLES, TRC_PROFILE_VERBOSE };

#define TRC_MAX_EVENTS 256

/* Fills names[] (capacity TRC_MAX_EVENTS) and returns how many. */
int trc_profile_events(enum trc_profile p, int dotnet, const char **names);
/* "gc", "alloc", "handles", "verbose". */
const char *trc_profile_name(enum trc_profile p);
/* The profile named name: 0, or -1 if none is. */
int trc_profile_parse(const char *name, enum trc_profile *p);

#endif
