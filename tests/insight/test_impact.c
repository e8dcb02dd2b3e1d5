/* Pause impact on request latency: a hand-built timeline of 10 requests and
 * 5 GCs where every figure is computed by hand (see the comments). */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "ins_impact.h"
#include "ins_stats.h"

#define MS(x) ((int64_t)((x) * 1000000.0 + 0.5)) /* ms -> ns */

/* Pauses (ms): GC1 [10,12]; GC2 [30,31]; GC3 (a BGC, two pauses) [50,50.5]
 * and [60,61]; GC4 [60.5,62] (overlaps GC3's second: union [60,62]);
 * GC5 [100,104]. */
static const struct ins_pause P[] = {
    {1, MS(10), MS(12)}, {2, MS(30), MS(31)}, {3, MS(50), MS(50.5)},
    {3, MS(60), MS(61)}, {4, MS(60.5), MS(62)}, {5, MS(100), MS(104)},
};

/* Requests (ms) -> latency, GC time inside, GCs:
 *  1 [0,5]     5  0
 *  2 [8,14]    6  2    {1}
 *  3 [12,20]   8  0    touches GC1's end only: not affected
 *  4 [29,33]   4  1    {2}
 *  5 [49,63]  14  2.5  {3,4}  0.5 + union [60,62]
 *  6 [70,71]   1  0
 *  7 [72,74]   2  0
 *  8 [99,101]  2  1    {5}
 *  9 [102,110] 8  2    {5}
 * 10 [111,114] 3  0
 * Sorted latencies 1 2 2 3 4 5 6 8 8 14. */
static const struct ins_request R[] = {
    {1, MS(0), MS(5)},    {2, MS(8), MS(14)},  {3, MS(12), MS(20)},   {4, MS(29), MS(33)},
    {5, MS(49), MS(63)},  {6, MS(70), MS(71)}, {7, MS(72), MS(74)},   {8, MS(99), MS(101)},
    {9, MS(102), MS(110)}, {10, MS(111), MS(114)},
};

static void test_percentile_definition(void) {
  const double x[] = {1, 2, 2, 3, 4, 5, 6, 8, 8, 14};
  CHECK_REL(ins_percentile_sorted(x, 10, 50), 4.5, 1e-9);   /* r=4.5 */
  CHECK_REL(ins_percentile_sorted(x, 10, 90), 8.6, 1e-9);   /* r=8.1: 8+0.1*6 */
  CHECK_REL(ins_percentile_sorted(x, 10, 0), 1, 1e-9);
  CHECK_REL(ins_percentile_sorted(x, 1, 99), 1, 1e-9);
  CHECK(isnan(ins_percentile_sorted(x, 0, 50)));
}

static void test_default_bands(void) {
  struct ins_impact r;
  CHECK_EQ_INT(ins_impact_compute(R, 10, P, 6, ins_default_cuts, 3, 3, &r), 0);
  CHECK_EQ_INT(r.requests, 10);
  CHECK_EQ_INT(r.invalid, 0);
  CHECK_REL(r.pct_ms[0], 4.5, 1e-9);     /* P50 r=4.5 */
  CHECK_REL(r.pct_ms[1], 8.6, 1e-9);     /* P90 r=8.1 */
  CHECK_REL(r.pct_ms[2], 11.3, 1e-9);    /* P95 r=8.55: 8+0.55*6 */
  CHECK_REL(r.pct_ms[3], 13.46, 1e-9);   /* P99 r=8.91 */
  CHECK_REL(r.pct_ms[4], 13.946, 1e-9);  /* P99.9 r=8.991 */
  CHECK_REL(r.pct_ms[5], 14, 1e-9);
  CHECK_EQ_INT(r.affected, 5);         /* 2 4 5 8 9 */
  CHECK_REL(r.affected_pct, 50, 1e-9);
  CHECK_REL(r.affected_latency_ms, 34, 1e-9);   /* 6+4+14+2+8 */
  CHECK_REL(r.affected_gc_ms, 8.5, 1e-9);       /* 2+1+2.5+1+2 */
  CHECK_REL(r.gc_impact_pct, 25, 1e-9);
  CHECK_EQ_INT(r.multi_gc, 1);                /* request 5: GCs 3 and 4 */
  CHECK_REL(r.total_latency_ms, 53, 1e-9);
  CHECK_REL(r.total_gc_ms, 8.5, 1e-9);

  CHECK_EQ_INT(r.n_bands, 4);
  /* <= P50 (4.5): requests 4 6 7 8 10, latency 4+1+2+2+3 = 12, GC 1+1 = 2 */
  CHECK_EQ_INT(r.bands[0].requests, 5);
  CHECK_REL(r.bands[0].latency_ms, 12, 1e-9);
  CHECK_REL(r.bands[0].gc_ms, 2, 1e-9);
  CHECK_REL(r.bands[0].gc_share_pct, 200.0 / 12, 1e-9);
  CHECK(isnan(r.bands[0].lo_ms));
  CHECK_REL(r.bands[0].hi_ms, 4.5, 1e-9);
  /* (P50, P90 = 8.6]: requests 1 2 3 9, latency 5+6+8+8 = 27, GC 2+2 = 4 */
  CHECK_EQ_INT(r.bands[1].requests, 4);
  CHECK_REL(r.bands[1].latency_ms, 27, 1e-9);
  CHECK_REL(r.bands[1].gc_share_pct, 400.0 / 27, 1e-9);
  /* (P90, P99 = 13.46]: none */
  CHECK_EQ_INT(r.bands[2].requests, 0);
  CHECK(isnan(r.bands[2].gc_share_pct));
  /* > P99: request 5, 2.5 of 14 */
  CHECK_EQ_INT(r.bands[3].requests, 1);
  CHECK_REL(r.bands[3].gc_share_pct, 250.0 / 14, 1e-9);
  CHECK(isnan(r.bands[3].hi_ms));

  /* Slowest 3: request 5 (14), then the two 8 ms ones by start: 3, 9. */
  CHECK_EQ_INT(r.n_slowest, 3);
  CHECK_EQ_INT(r.slowest[0].id, 5);
  CHECK_REL(r.slowest[0].gc_ms, 2.5, 1e-9);
  CHECK_EQ_INT(r.slowest[0].n_gcs, 2);
  CHECK_EQ_INT(r.slowest[0].gcs[0], 3);
  CHECK_EQ_INT(r.slowest[0].gcs[1], 4);
  CHECK_EQ_INT(r.slowest[1].id, 3);
  CHECK_EQ_INT(r.slowest[1].n_gcs, 0);
  CHECK_EQ_INT(r.slowest[2].id, 9);
  CHECK_EQ_INT(r.slowest[2].n_gcs, 1);
  CHECK_EQ_INT(r.slowest[2].gcs[0], 5);
  CHECK_REL(r.slowest[2].latency_ms, 8, 1e-9);
  ins_impact_free(&r);
}

static void test_custom_bands_and_bad_input(void) {
  double cuts[4];
  CHECK_EQ_INT(ins_parse_cuts("95", cuts, 4), 1);
  CHECK_EQ_INT(ins_parse_cuts("50,90,99.9", cuts, 4), 3);
  CHECK_REL(cuts[2], 99.9, 1e-9);
  CHECK_EQ_INT(ins_parse_cuts("90,50", cuts, 4), -1);   /* not increasing */
  CHECK_EQ_INT(ins_parse_cuts("0,50", cuts, 4), -1);    /* outside (0,100) */
  CHECK_EQ_INT(ins_parse_cuts("50,", cuts, 4), -1);
  CHECK_EQ_INT(ins_parse_cuts("x", cuts, 4), -1);
  CHECK_EQ_INT(ins_parse_cuts("1,2,3,4,5", cuts, 4), -1); /* too many */

  struct ins_impact r;
  const double c95[] = {95};
  /* Add a request with end < start: not analysed, counted as invalid. */
  struct ins_request rq[11];
  memcpy(rq, R, sizeof R);
  rq[10] = (struct ins_request){11, MS(200), MS(199)};
  CHECK_EQ_INT(ins_impact_compute(rq, 11, P, 6, c95, 1, 0, &r), 0);
  CHECK_EQ_INT(r.invalid, 1);
  CHECK_EQ_INT(r.requests, 10);
  CHECK_EQ_INT(r.n_bands, 2);
  CHECK_EQ_INT(r.bands[0].requests, 9);     /* <= 11.3 */
  CHECK_REL(r.bands[0].latency_ms, 39, 1e-9); /* 53 - 14 */
  CHECK_REL(r.bands[0].gc_ms, 6, 1e-9);       /* 8.5 - 2.5 */
  CHECK_EQ_INT(r.bands[1].requests, 1);
  CHECK_EQ_INT(r.n_slowest, 0);
  ins_impact_free(&r);

  const double bad[] = {90, 90};
  CHECK_EQ_INT(ins_impact_compute(R, 10, P, 6, bad, 2, 0, &r), -1);
}

static void test_no_requests_no_pauses(void) {
  struct ins_impact r;
  CHECK_EQ_INT(ins_impact_compute(NULL, 0, NULL, 0, ins_default_cuts, 3, 5, &r), 0);
  CHECK_EQ_INT(r.requests, 0);
  CHECK(isnan(r.pct_ms[0]));
  CHECK(isnan(r.affected_pct));
  CHECK(isnan(r.gc_impact_pct));
  CHECK_EQ_INT(r.n_slowest, 0);
  ins_impact_free(&r);
  /* Requests but no GC: nothing affected, impact undefined, 0 % affected. */
  CHECK_EQ_INT(ins_impact_compute(R, 10, NULL, 0, ins_default_cuts, 3, 1, &r), 0);
  CHECK_REL(r.affected_pct, 0, 1e-9);
  CHECK(isnan(r.gc_impact_pct));
  CHECK_REL(r.bands[3].gc_share_pct, 0, 1e-9);
  ins_impact_free(&r);
}

static void test_timeline(void) {
  struct ins_timeline t;
  CHECK_EQ_INT(ins_timeline_build(&t, P, 6), 0);
  CHECK_EQ_INT(t.n, 5);                       /* [10,12] [30,31] [50,50.5] [60,62] [100,104] */
  CHECK_EQ_INT(ins_timeline_total(&t), MS(9.5));  /* 2+1+0.5+2+4 */
  CHECK_EQ_INT(ins_timeline_paused(&t, MS(11), MS(61)), MS(1 + 1 + 0.5 + 1));
  CHECK_EQ_INT(ins_timeline_paused(&t, MS(12), MS(30)), 0);
  CHECK_EQ_INT(ins_timeline_paused(&t, MS(5), MS(5)), 0);
  ins_timeline_free(&t);
}

/* Without/with GC percentiles and the GCs that cost requests most, by hand:
 * clean requests 1 3 6 7 10 (latencies 1 2 3 5 8), affected 2 4 5 8 9
 * (2 4 6 8 14). Per GC, its pauses' overlap with each request, summed:
 * GC1 [10,12] in request 2: 2 ms (request 3 only touches it); GC2 in 4: 1;
 * GC3 in 5: 0.5 + 1 = 1.5; GC4 [60.5,62] in 5: 1.5 (its own overlap, though
 * it shares [60.5,61] with GC3); GC5 in 8: 1 and in 9: 2 = 3 ms, 2 requests. */
static void test_split_and_worst(void) {
  struct ins_impact r;
  CHECK_EQ_INT(ins_impact_compute(R, 10, P, 6, ins_default_cuts, 3, 0, &r), 0);
  CHECK_REL(r.pct_clean_ms[0], 3, 1e-9);     /* 1 2 3 5 8: r=2 */
  CHECK_REL(r.pct_clean_ms[1], 6.8, 1e-9);   /* r=3.6: 5+0.6*3 */
  CHECK_REL(r.pct_clean_ms[5], 8, 1e-9);
  CHECK_REL(r.pct_hit_ms[0], 6, 1e-9);       /* 2 4 6 8 14 */
  CHECK_REL(r.pct_hit_ms[1], 11.6, 1e-9);    /* 8+0.6*6 */
  CHECK_REL(r.pct_hit_ms[5], 14, 1e-9);
  CHECK_EQ_INT(r.n_worst, 5);
  const uint32_t gc[5] = {5, 1, 3, 4, 2};     /* ties (GC3, GC4 at 1.5): lower index first */
  const double lost[5] = {3, 2, 1.5, 1.5, 1};
  const size_t nreq[5] = {2, 1, 1, 1, 1};
  for (int i = 0; i < 5; i++) {
    CHECK_EQ_INT(r.worst[i].gc_index, gc[i]);
    CHECK_REL(r.worst[i].lost_ms, lost[i], 1e-9);
    CHECK_EQ_INT(r.worst[i].requests, nreq[i]);
  }
  ins_impact_free(&r);
  /* No pauses: every request is clean, nothing is worst, the hit side unknown. */
  CHECK_EQ_INT(ins_impact_compute(R, 10, NULL, 0, ins_default_cuts, 3, 0, &r), 0);
  CHECK_EQ_INT(r.n_worst, 0);
  CHECK(isnan(r.pct_hit_ms[0]));
  CHECK_REL(r.pct_clean_ms[5], 14, 1e-9);
  ins_impact_free(&r);
}

int main(void) {
  test_percentile_definition();
  test_split_and_worst();
  test_default_bands();
  test_custom_bands_and_bad_input();
  test_no_requests_no_pauses();
  test_timeline();
  return check_done();
}
