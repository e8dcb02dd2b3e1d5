/*
 * ins_overhead.h — GC overhead over time: % of time paused per window (JMC's
 * GcPauseRatio rule: 60 s windows, worst one reported) and the minimum mutator
 * utilisation curve (Go's MMU: for a window size w, the smallest fraction of
 * any w-long window of the run during which the program was not paused).
 *
 * The run is [t0, t1) (ns). Pauses come as an ins_timeline (merged intervals).
 *   tumbling windows  [t0 + k*W, min(t0 + (k+1)*W, t1)); % = paused / window length.
 *   worst window      the W-long window, anywhere in [t0, t1), with the most
 *                     paused time (earliest one on ties); when the run is shorter
 *                     than W, the whole run.
 *   MMU(w)            1 - (most paused time in any w-long window inside the run) / w;
 *                     NaN when w is longer than the run.
 *
 * Ownership: ins_overhead_windows allocates *wins; free() it.
 * Threading: reentrant. Errors: -1 on allocation failure or t1 <= t0 or W <= 0.
 */
#ifndef INS_OVERHEAD_H
#define INS_OVERHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "ins_timeline.h"

struct ins_window {
  int64_t start_ns;
  int64_t end_ns;
  int64_t paused_ns;
  double paused_pct;
};

int ins_overhead_windows(const struct ins_timeline *t, int64_t t0, int64_t t1, int64_t window_ns,
                         struct ins_window **wins, size_t *n_wins, struct ins_window *worst);

/* The most paused w-long window inside [t0, t1): its start and paused time.
 * Returns -1 when w > t1 - t0 or w <= 0. */
int ins_worst_window(const struct ins_timeline *t, int64_t t0, int64_t t1, int64_t w,
                     int64_t *start_ns, int64_t *paused_ns);

/* MMU for one window size, in [0,1]; NaN when w > t1 - t0. */
double ins_mmu(const struct ins_timeline *t, int64_t t0, int64_t t1, int64_t w);

/* The default MMU window sizes: 1-2-5 steps from 1 ms to 10 s (13 sizes). */
#define INS_MMU_N 13
extern const int64_t ins_mmu_windows_ns[INS_MMU_N];

#endif /* INS_OVERHEAD_H */
