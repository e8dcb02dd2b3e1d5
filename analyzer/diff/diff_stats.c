/* diff_stats.c — percentiles, Mann-Whitney U, --fail-on rules (diff.h). */
#include "diff.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double diff_percentile(const double *x, size_t n, double p) {
  if (n == 0) return NAN;
  double r = ceil(p / 100.0 * (double)n);
  size_t k = r < 1 ? 0 : (size_t)r - 1;
  if (k >= n) k = n - 1;
  return x[k];
}

struct tagged { double v; int from_b; };

static int cmp_tagged(const void *a, const void *b) {
  double x = ((const struct tagged *)a)->v, y = ((const struct tagged *)b)->v;
  return x < y ? -1 : x > y;
}

int diff_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct diff_mw *out) {
  out->u = out->z = out->p = NAN;
  if (na == 0 || nb == 0) return 0;
  size_t n = na + nb;
  struct tagged *t = malloc(n * sizeof *t);
  if (!t) return -1;
  for (size_t i = 0; i < na; i++) t[i] = (struct tagged){ a[i], 0 };
  for (size_t i = 0; i < nb; i++) t[na + i] = (struct tagged){ b[i], 1 };
  qsort(t, n, sizeof *t, cmp_tagged);
  /* Ranks with ties averaged; the sum of the candidate's ranks gives U. */
  double rank_b = 0, ties = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && t[j].v == t[i].v) j++;
    double avg = ((double)(i + 1) + (double)j) / 2.0, len = (double)(j - i);
    for (size_t k = i; k < j; k++) if (t[k].from_b) rank_b += avg;
    ties += len * len * len - len;
    i = j;
  }
  free(t);
  double dna = (double)na, dnb = (double)nb, dn = (double)n;
  out->u = rank_b - dnb * (dnb + 1) / 2.0;
  double mean = dna * dnb / 2.0;
  double var = dna * dnb / 12.0 * ((dn + 1) - ties / (dn * (dn - 1)));
  if (!(var > 0)) return 0;
  double d = out->u - mean;
  double cc = d > 0 ? -0.5 : d < 0 ? 0.5 : 0;
  out->z = (d + cc) / sqrt(var);
  out->p = erfc(fabs(out->z) / sqrt(2.0));
  if (out->p > 1) out->p = 1;
  return 0;
}

int diff_rules_parse(const char *spec, struct diff_rule *rules, int max, int (*known)(const char *name),
                     char *err, size_t errlen) {
  int n = 0;
  const char *p = spec;
  while (*p) {
    while (*p == ',' || *p == ' ') p++;
    if (!*p) break;
    const char *start = p;
    size_t len = strcspn(p, ",");
    char item[64];
    if (len >= sizeof item) { snprintf(err, errlen, "--fail-on: rule too long: '%.40s...'", p); return -1; }
    memcpy(item, p, len);
    item[len] = '\0';
    p += len;
    if (n == max) { snprintf(err, errlen, "--fail-on: more than %d rules", max); return -1; }
    struct diff_rule *r = &rules[n];
    memset(r, 0, sizeof *r);
    snprintf(r->text, sizeof r->text, "%s", item);
    size_t m = 0;
    while (item[m] && (isalnum((unsigned char)item[m]) || item[m] == '_')) m++;
    if (m == 0 || m >= sizeof r->metric || (item[m] != '>' && item[m] != '<')) {
      snprintf(err, errlen, "--fail-on: '%s' is not METRIC>VALUE or METRIC<VALUE (e.g. p99_pause>+10%%)", item);
      return -1;
    }
    memcpy(r->metric, item, m);
    r->metric[m] = '\0';
    if (!known(r->metric)) {
      snprintf(err, errlen, "--fail-on: unknown metric '%s' (gcscope diff --help lists them)", r->metric);
      return -1;
    }
    r->gt = item[m] == '>';
    char *end;
    r->value = strtod(item + m + 1, &end);
    if (end == item + m + 1 || !isfinite(r->value)) {
      snprintf(err, errlen, "--fail-on: '%s': no number after '%c'", item, item[m]);
      return -1;
    }
    if (!strcmp(end, "%")) r->unit = DIFF_UNIT_PCT;
    else if (!strcmp(end, "pt")) r->unit = DIFF_UNIT_PT;
    else if (!*end || !strcmp(end, "ms") || !strcmp(end, "MB") || !strcmp(end, "MB/s")) r->unit = DIFF_UNIT_ABS;
    else {
      snprintf(err, errlen, "--fail-on: '%s': unit '%s' (use %%, pt, ms, MB, MB/s or none)", item, end);
      return -1;
    }
    (void)start;
    n++;
  }
  if (n == 0) { snprintf(err, errlen, "--fail-on: no rule given"); return -1; }
  return n;
}

double diff_rule_change(const struct diff_rule *r, double base, double cand) {
  if (isnan(base) || isnan(cand)) return NAN;
  if (r->unit == DIFF_UNIT_PCT) return base != 0 ? (cand - base) / fabs(base) * 100.0 : NAN;
  return cand - base;
}

int diff_rule_holds(const struct diff_rule *r, double change) {
  if (isnan(change)) return 0;
  return r->gt ? change > r->value : change < r->value;
}
