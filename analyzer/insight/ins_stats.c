/* ins_stats.c — percentile, median, correlation (see ins_stats.h). */
#include "ins_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ins_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double ins_percentile_sorted(const double *x, size_t n, double p) {
  if (n == 0) return NAN;
  if (p <= 0) return x[0];
  if (p >= 100) return x[n - 1];
  double r = p / 100.0 * (double)(n - 1);
  size_t lo = (size_t)floor(r), hi = (size_t)ceil(r);
  if (hi >= n) hi = n - 1;
  return x[lo] + (r - (double)lo) * (x[hi] - x[lo]);
}

double ins_median(const double *x, size_t n) {
  if (n == 0) return NAN;
  double *c = malloc(n * sizeof *c);
  if (!c) return NAN;
  memcpy(c, x, n * sizeof *c);
  qsort(c, n, sizeof *c, ins_cmp_double);
  double m = ins_percentile_sorted(c, n, 50);
  free(c);
  return m;
}

double ins_pearson(const double *x, const double *y, size_t n) {
  if (n < 2) return NAN;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; i++) { mx += x[i]; my += y[i]; }
  mx /= (double)n;
  my /= (double)n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; i++) {
    double dx = x[i] - mx, dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx <= 0 || syy <= 0) return NAN;
  return sxy / sqrt(sxx * syy);
}
