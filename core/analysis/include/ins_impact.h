/*
 * ins_impact.h — GC pause impact on request latency, for one process
 * (seed 000's tail-latency method, seed 002's "GC impact of P95").
 *
 * Definitions (all times in ns in, ms out):
 *   latency        end - start of a request.
 *   affected       at least one GC pause overlaps the request by a positive
 *                  length (a pause that only touches an end does not count).
 *   GC time        length of the union of pause intervals inside the request.
 *   affected_pct   affected / requests * 100.
 *   gc_impact_pct  sum GC time / sum latency over the AFFECTED requests * 100
 *                  (seed 000's "GC impact in these requests").
 *   multi_gc       requests overlapped by pauses of >= 2 distinct GC indexes
 *                  (a BGC's two pauses are one GC).
 *   percentiles    P50, P90, P95, P99, P99.9 and max of latency, linear
 *                  interpolation (ins_stats.h).
 *   bands          cut points c[0] < ... < c[k-1] (percentiles): band 0 holds
 *                  latency <= P(c0), band i holds P(c[i-1]) < latency <= P(c[i]),
 *                  the last band latency > P(c[k-1]). For each: requests, summed
 *                  latency, summed GC time, gc_share_pct = GC time / latency * 100
 *                  over ALL requests of the band ("GC impact of P95").
 *   slowest        the N slowest requests (ties: earlier start first), each
 *                  with the distinct GC indexes whose pauses overlap it.
 *   pct_clean_ms,  the same percentiles over the requests no pause overlaps
 *   pct_hit_ms     and over the affected ones (NaN where there are none).
 *   worst          the INS_WORST_GCS GCs that cost requests the most time:
 *                  per GC index, the overlap of its pauses with each
 *                  request, summed over requests (lost_ms), and the requests
 *                  it overlapped; largest first, ties: lower index first.
 *
 * Ownership: ins_impact_compute fills *out with heap arrays; ins_impact_free
 * releases them. Threading: reentrant. Errors: returns -1 on allocation failure
 * or invalid cut points (not strictly increasing within (0,100)), 0 otherwise.
 * Requests with end < start are not analysed; they are counted in `invalid`.
 */
#ifndef INS_IMPACT_H
#define INS_IMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "ins_timeline.h"

struct ins_request {
  uint64_t id;
  int64_t start_ns;
  int64_t end_ns;
};

#define INS_N_PCTS 6
extern const double ins_impact_pcts[INS_N_PCTS];     /* 50, 90, 95, 99, 99.9, 100 */
extern const char *const ins_impact_pct_names[INS_N_PCTS]; /* "p50" ... "max" */

struct ins_band {
  double lo_pct, hi_pct;     /* percentile bounds; lo_pct < 0: none (first band), hi_pct > 100: none (last) */
  double lo_ms, hi_ms;       /* latency bounds (values of those percentiles); NaN when none */
  size_t requests;
  double latency_ms;
  double gc_ms;
  double gc_share_pct;       /* NaN when latency_ms == 0 */
};

struct ins_slow_request {
  uint64_t id;
  int64_t start_ns;
  double latency_ms;
  double gc_ms;
  size_t n_gcs;
  uint32_t *gcs;             /* distinct GC indexes, ascending */
};

#define INS_WORST_GCS 5
struct ins_worst_gc {
  uint32_t gc_index;
  size_t requests;
  double lost_ms;
};

struct ins_impact {
  size_t requests;           /* analysed requests */
  size_t invalid;            /* end < start */
  double pct_ms[INS_N_PCTS]; /* NaN when no requests */
  size_t affected;
  double affected_pct;       /* NaN when no requests */
  double affected_latency_ms;
  double affected_gc_ms;
  double gc_impact_pct;      /* NaN when nothing was affected */
  size_t multi_gc;
  double total_latency_ms;   /* all requests */
  double total_gc_ms;        /* GC time inside all requests */
  size_t n_bands;
  struct ins_band *bands;
  size_t n_slowest;
  struct ins_slow_request *slowest;
  double pct_clean_ms[INS_N_PCTS];
  double pct_hit_ms[INS_N_PCTS];
  size_t n_worst;
  struct ins_worst_gc worst[INS_WORST_GCS];
};

/* Default band cut points: 50, 90, 99. */
extern const double ins_default_cuts[3];

int ins_impact_compute(const struct ins_request *req, size_t n_req,
                       const struct ins_pause *pauses, size_t n_pauses,
                       const double *cuts, size_t n_cuts, size_t slowest_n,
                       struct ins_impact *out);
void ins_impact_free(struct ins_impact *out);

/* Parses "50,90,99" into cuts (at most max); returns the count or -1 on a
 * syntax error / not strictly increasing / outside (0,100). */
int ins_parse_cuts(const char *s, double *cuts, size_t max);

#endif /* INS_IMPACT_H */
