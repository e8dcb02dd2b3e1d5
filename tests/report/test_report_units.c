/*
 * Report helpers: linear-interpolation percentiles (numpy's default method,
 * worked by hand) and PerfView-style number text.
 *   x = 1, 2, 3, 4, 10: P50 -> rank 0.5*4 = 2 -> 3; P95 -> rank 3.8 -> 4 + 0.8*6 = 8.8;
 *   P99 -> rank 3.96 -> 4 + 0.96*6 = 9.76. One value: every percentile is it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rpt_util.h"
#include "stats_model.h"

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

int main(void) {
  const double x[] = { 1, 2, 3, 4, 10 };
  CHECK(fabs(st_percentile(x, 5, 50) - 3) < 1e-12);
  CHECK(fabs(st_percentile(x, 5, 95) - 8.8) < 1e-12);
  CHECK(fabs(st_percentile(x, 5, 99) - 9.76) < 1e-12);
  CHECK(fabs(st_percentile(x, 1, 99) - 1) < 1e-12);
  CHECK(isnan(st_percentile(x, 0, 50)));
  char b[64];
  CHECK(strcmp(rpt_num(b, sizeof b, 12345.6789, 3), "12,345.679") == 0);
  CHECK(strcmp(rpt_num(b, sizeof b, -1234567.5, 1), "-1,234,567.5") == 0);
  CHECK(strcmp(rpt_num(b, sizeof b, 999.9996, 3), "1,000.000") == 0);
  CHECK(strcmp(rpt_num(b, sizeof b, -0.0001, 1), "0.0") == 0);
  CHECK(strcmp(rpt_num(b, sizeof b, NAN, 1), "NaN") == 0);
  CHECK(strcmp(rpt_num(b, sizeof b, INFINITY, 1), "Infinity") == 0);
  CHECK(strcmp(rpt_num(b, sizeof b, 42, 0), "42") == 0);
  return fails != 0;
}
