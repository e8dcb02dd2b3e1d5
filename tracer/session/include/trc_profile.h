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

/* The default channel geometry of a streaming (not snapshot) recording of
 * profile p on ncpus CPUs, per CPU: 8 sub-buffers (room for the consumer to
 * fall behind while a busy machine does not schedule it) of a power of two
 * bytes, together per CPU: gc 4 MiB, handles 16 MiB, alloc and verbose
 * 32 MiB (AllocationTick and the other Verbose events); at most 256 MiB over
 * every CPU, at least 256 KiB per CPU. LTTng's own default (4 x 512 KiB)
 * dropped events in 5 of 11 three-second gcsim recordings on a busy 2-core
 * machine. */
void trc_profile_geometry(enum trc_profile p, long ncpus, unsigned long long *subbuf, unsigned long long *num);

#endif
