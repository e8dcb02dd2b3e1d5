/*
 * test_diff_stats.c — diff.h by hand: nearest-rank percentiles, the
 * Mann-Whitney U test (values worked out in the comments), --fail-on rules.
 */
#include <math.h>

#include "check.h"
#include "diff.h"

static int known(const char *n) { return !strcmp(n, "p99_pause") || !strcmp(n, "pct_pause") || !strcmp(n, "max_heap"); }

int main(void) {
  /* Nearest rank: P = x[ceil(p/100 n) - 1]. n = 10: P50 -> x[4], P95 -> x[9], P99 -> x[9], P10 -> x[0]. */
  const double x[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
  CHECK(diff_percentile(x, 10, 50) == 5);
  CHECK(diff_percentile(x, 10, 95) == 10);
  CHECK(diff_percentile(x, 10, 10) == 1);
  CHECK(diff_percentile(x, 10, 11) == 2);
  CHECK(isnan(diff_percentile(x, 0, 50)));

  /* a = {1,2,3}, b = {4,5,6}: b's ranks 4+5+6 = 15, U = 15 - 3*4/2 = 9; mean 4.5,
   * var = 3*3/12 * (6+1) = 5.25; z = (9 - 4.5 - 0.5)/sqrt(5.25) = 1.745743;
   * p = erfc(z/sqrt 2) = 0.080856. */
  struct diff_mw r;
  const double a1[] = { 3, 1, 2 }, b1[] = { 6, 4, 5 };
  CHECK(diff_mann_whitney(a1, 3, b1, 3, &r) == 0);
  CHECK_REL(r.u, 9, 1e-12);
  CHECK_REL(r.z, 4.0 / sqrt(5.25), 1e-12);
  CHECK_REL(r.p, 0.0808556, 1e-5);
  /* Ties: a = {1,2,2}, b = {2,3,3}: ranks 1 | 2,3,4 -> 3 | 5,6 -> 5.5; b's sum
   * 3 + 5.5 + 5.5 = 14, U = 14 - 6 = 8; tie term (27-3) + (8-2) = 30,
   * var = 9/12 * (7 - 30/30) = 4.5; z = (8 - 4.5 - 0.5)/sqrt(4.5) = sqrt 2,
   * p = erfc(1) = 0.157299207. */
  const double a2[] = { 1, 2, 2 }, b2[] = { 2, 3, 3 };
  CHECK(diff_mann_whitney(a2, 3, b2, 3, &r) == 0);
  CHECK_REL(r.u, 8, 1e-12);
  CHECK_REL(r.z, sqrt(2.0), 1e-12);
  CHECK_REL(r.p, 0.15729920705028513, 1e-12);
  /* The same samples swapped: U' = 9 - U = 1, z negated, same p. */
  CHECK(diff_mann_whitney(b2, 3, a2, 3, &r) == 0);
  CHECK_REL(r.u, 1, 1e-12);
  CHECK_REL(r.z, -sqrt(2.0), 1e-12);
  CHECK_REL(r.p, 0.15729920705028513, 1e-12);
  /* Identical samples: U = n^2/2, z = 0, p = 1. Every value tied: no test. */
  CHECK(diff_mann_whitney(a1, 3, a1, 3, &r) == 0);
  CHECK_REL(r.u, 4.5, 1e-12);
  CHECK(r.z == 0 && r.p == 1);
  const double same[] = { 2, 2 };
  CHECK(diff_mann_whitney(same, 2, same, 2, &r) == 0);
  CHECK(isnan(r.p));
  CHECK(diff_mann_whitney(a1, 0, b1, 3, &r) == 0 && isnan(r.p));

  /* Rules. */
  struct diff_rule rules[4];
  char err[256];
  CHECK(diff_rules_parse("p99_pause>+10%,pct_pause>1pt, max_heap<-0.5MB", rules, 4, known, err, sizeof err) == 3);
  CHECK(rules[0].gt && rules[0].value == 10 && rules[0].unit == DIFF_UNIT_PCT);
  CHECK_STR(rules[0].metric, "p99_pause");
  CHECK(rules[1].gt && rules[1].value == 1 && rules[1].unit == DIFF_UNIT_PT);
  CHECK(!rules[2].gt && rules[2].value == -0.5 && rules[2].unit == DIFF_UNIT_ABS);
  CHECK_REL(diff_rule_change(&rules[0], 2.0, 2.5), 25.0, 1e-12);
  CHECK(diff_rule_holds(&rules[0], 25.0) && !diff_rule_holds(&rules[0], 10.0));
  CHECK(isnan(diff_rule_change(&rules[0], 0, 1)) && !diff_rule_holds(&rules[0], NAN));
  CHECK_REL(diff_rule_change(&rules[1], 20.0, 21.5), 1.5, 1e-12);
  CHECK(diff_rule_holds(&rules[2], -0.981) && !diff_rule_holds(&rules[2], -0.4));
  CHECK(diff_rules_parse("nosuch>1", rules, 4, known, err, sizeof err) == -1);
  CHECK_HAS(err, "unknown metric 'nosuch'");
  CHECK(diff_rules_parse("p99_pause=1", rules, 4, known, err, sizeof err) == -1);
  CHECK_HAS(err, "is not METRIC>VALUE");
  CHECK(diff_rules_parse("p99_pause>x", rules, 4, known, err, sizeof err) == -1);
  CHECK_HAS(err, "no number");
  CHECK(diff_rules_parse("p99_pause>5furlongs", rules, 4, known, err, sizeof err) == -1);
  CHECK_HAS(err, "unit 'furlongs'");
  CHECK(diff_rules_parse(",", rules, 4, known, err, sizeof err) == -1);
  return check_done();
}
