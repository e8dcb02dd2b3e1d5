/*
 * ins_stats.h — small numeric helpers shared by the insight analyses.
 *
 * Percentiles use the linear-interpolation definition of `gcscope stats` and of
 * the .NET GC team's GC.Analysis.API (= numpy "linear", Excel PERCENTILE.INC):
 * for sorted x[0..n-1], r = p/100*(n-1), x[floor r] + (r-floor r)*(x[ceil r]-x[floor r]).
 *
 * Threading: reentrant, no global state. Errors: NaN for an empty input.
 */
#ifndef INS_STATS_H
#define INS_STATS_H

#include <stddef.h>

/* p in [0,100]; x sorted ascending; NaN when n == 0. */
double ins_percentile_sorted(const double *x, size_t n, double p);
/* Sorts a copy of x (x is left untouched); NaN when n == 0 or out of memory. */
double ins_median(const double *x, size_t n);
/* qsort comparator for doubles, ascending. */
int ins_cmp_double(const void *a, const void *b);
/* Sorts x ascending: exactly the array qsort with ins_cmp_double leaves
 * (glibc's stable merge sort), faster (a radix sort when x holds no -0.0 and
 * no NaN). */
void ins_sort_doubles(double *x, size_t n);
/* Pearson correlation of x and y; NaN when n < 2 or a variance is 0. */
double ins_pearson(const double *x, const double *y, size_t n);

#endif /* INS_STATS_H */
