/*
 * diff.h — the pure part of `gcscope diff` (internal): percentiles, the
 * Mann-Whitney U test, and the --fail-on rules. No database, no I/O.
 * Threading: reentrant. Errors: diff_rules_parse returns -1 with one line.
 */
#ifndef DIFF_H
#define DIFF_H

#include <stddef.h>

/* Nearest-rank percentile of sorted x[0..n): x[ceil(p/100 n) - 1]; NaN if n == 0. */
double diff_percentile(const double *sorted, size_t n, double p);

struct diff_mw {
  double u;        /* U of the candidate sample (a = base, b = candidate): pairs b > a, ties 1/2 */
  double z;        /* normal approximation, tie-corrected, continuity-corrected */
  double p;        /* two-sided p-value; NaN when a sample is empty or every value ties */
};
/* a and b need not be sorted; they are not changed. 0, or -1 when out of memory. */
int diff_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct diff_mw *out);

/* --fail-on: "METRIC>+10%,METRIC<-2pt,METRIC>5ms,..." */
enum diff_unit { DIFF_UNIT_PCT, DIFF_UNIT_PT, DIFF_UNIT_ABS };
struct diff_rule {
  char metric[32];
  int gt;                 /* 1: '>', 0: '<' */
  double value;           /* signed threshold on the change */
  enum diff_unit unit;    /* %: relative change in percent; pt/ms/MB/none: candidate - base */
  char text[64];          /* the rule as written */
};
/* Parses spec into rules (capacity max). known(name) says whether a metric
 * exists. Returns the count, or -1 with a message in err. */
int diff_rules_parse(const char *spec, struct diff_rule *rules, int max, int (*known)(const char *name),
                     char *err, size_t errlen);
/* The change the rule reads (relative % or absolute), NaN when it cannot be
 * computed (a zero base for a relative rule, a missing value). */
double diff_rule_change(const struct diff_rule *r, double base, double cand);
/* Does the rule hold for this change? (NaN never holds) */
int diff_rule_holds(const struct diff_rule *r, double change);

#endif
