/*
 * ins_timeline.h — a set of pause intervals merged into disjoint, sorted
 * intervals, with prefix sums so "paused time inside [a,b)" is O(log n).
 * Used by the request-impact and the windowed-overhead/MMU analyses.
 *
 * Times are integer nanoseconds (any common origin). Overlapping or touching
 * pauses are merged, so a stretch covered by two pauses (e.g. a BGC's initial
 * pause and the ephemeral GC run inside it) counts once.
 *
 * Ownership: ins_timeline_build allocates; ins_timeline_free releases.
 * Threading: a built timeline is read-only and may be shared across threads.
 * Errors: ins_timeline_build returns -1 on allocation failure (t left empty).
 */
#ifndef INS_TIMELINE_H
#define INS_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

struct ins_pause {
  uint32_t gc_index;   /* GC the pause belongs to (PerfView's GC Index) */
  int64_t start_ns;
  int64_t end_ns;      /* end >= start; zero-length pauses are ignored */
};

struct ins_timeline {
  size_t n;
  int64_t *start;      /* merged intervals, ascending, disjoint */
  int64_t *end;
  int64_t *cum;        /* cum[i] = total length of intervals 0..i-1 (n+1 entries) */
};

int ins_timeline_build(struct ins_timeline *t, const struct ins_pause *p, size_t n);
void ins_timeline_free(struct ins_timeline *t);
/* Paused nanoseconds inside [a, b) (0 if b <= a). */
int64_t ins_timeline_paused(const struct ins_timeline *t, int64_t a, int64_t b);
/* Total paused nanoseconds. */
int64_t ins_timeline_total(const struct ins_timeline *t);

#endif /* INS_TIMELINE_H */
