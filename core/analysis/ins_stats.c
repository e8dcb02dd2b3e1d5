/* ins_stats.c — percentile, median, correlation (see ins_stats.h). */
#include "ins_stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int ins_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* qsort(x, n, sizeof *x, ins_cmp_double), the order glibc's stable merge sort
 * gives, by an LSD radix sort on the values' bits: the same array whenever no
 * two different bit patterns compare equal, i.e. without -0.0 and NaN (then
 * qsort itself runs). 100,000 pauses: a tenth of qsort's time. */
void ins_sort_doubles(double *x, size_t n) {
  uint64_t *k = n > 64 ? malloc(2 * sizeof *k * n) : NULL;
  int plain = k != NULL;
  for (size_t i = 0; plain && i < n; i++) {
    uint64_t b;
    memcpy(&b, &x[i], sizeof b);
    if (isnan(x[i]) || b == UINT64_C(0x8000000000000000)) plain = 0;
    k[i] = b >> 63 ? ~b : b | UINT64_C(0x8000000000000000);   /* unsigned order = numeric order */
  }
  if (!plain) {
    free(k);
    qsort(x, n, sizeof *x, ins_cmp_double);
    return;
  }
  uint64_t *a = k, *b = k + n;
  for (int shift = 0; shift < 64; shift += 8) {
    size_t count[257] = { 0 };
    for (size_t i = 0; i < n; i++) count[((a[i] >> shift) & 0xff) + 1]++;
    if (count[((a[0] >> shift) & 0xff) + 1] == n) continue;   /* one byte value: the pass changes nothing */
    for (int d = 0; d < 256; d++) count[d + 1] += count[d];
    for (size_t i = 0; i < n; i++) b[count[(a[i] >> shift) & 0xff]++] = a[i];
    uint64_t *t = a;
    a = b;
    b = t;
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t v = a[i] >> 63 ? a[i] & ~UINT64_C(0x8000000000000000) : ~a[i];
    memcpy(&x[i], &v, sizeof v);
  }
  free(k);
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
  ins_sort_doubles(c, n);
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
