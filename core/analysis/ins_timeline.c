/* ins_timeline.c — merged pause intervals with prefix sums (see ins_timeline.h). */
#include "ins_timeline.h"

#include <stdlib.h>
#include <string.h>

static int cmp_pause_start(const void *a, const void *b) {
  const struct ins_pause *x = a, *y = b;
  return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

int ins_timeline_build(struct ins_timeline *t, const struct ins_pause *p, size_t n) {
  memset(t, 0, sizeof *t);
  struct ins_pause *s = malloc((n ? n : 1) * sizeof *s);
  t->start = malloc((n ? n : 1) * sizeof *t->start);
  t->end = malloc((n ? n : 1) * sizeof *t->end);
  t->cum = malloc((n + 1) * sizeof *t->cum);
  if (!s || !t->start || !t->end || !t->cum) {
    free(s);
    ins_timeline_free(t);
    return -1;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (p[i].end_ns > p[i].start_ns) s[m++] = p[i];
  size_t sorted = 1;   /* pauses read in GC order are usually in order already */
  while (sorted < m && s[sorted - 1].start_ns <= s[sorted].start_ns) sorted++;
  if (sorted < m) qsort(s, m, sizeof *s, cmp_pause_start);
  size_t k = 0;
  for (size_t i = 0; i < m; i++) {
    if (k > 0 && s[i].start_ns <= t->end[k - 1]) {
      if (s[i].end_ns > t->end[k - 1]) t->end[k - 1] = s[i].end_ns;
    } else {
      t->start[k] = s[i].start_ns;
      t->end[k] = s[i].end_ns;
      k++;
    }
  }
  free(s);
  t->n = k;
  t->cum[0] = 0;
  for (size_t i = 0; i < k; i++) t->cum[i + 1] = t->cum[i] + (t->end[i] - t->start[i]);
  return 0;
}

void ins_timeline_free(struct ins_timeline *t) {
  free(t->start);
  free(t->end);
  free(t->cum);
  memset(t, 0, sizeof *t);
}

/* Paused time in (-inf, x): whole intervals ending before x plus the part of
 * the interval that contains x. */
static int64_t paused_before(const struct ins_timeline *t, int64_t x) {
  size_t lo = 0, hi = t->n;           /* first interval with end > x */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->end[mid] <= x) lo = mid + 1; else hi = mid;
  }
  int64_t v = t->cum[lo];
  if (lo < t->n && t->start[lo] < x) v += x - t->start[lo];
  return v;
}

int64_t ins_timeline_paused(const struct ins_timeline *t, int64_t a, int64_t b) {
  if (b <= a || t->n == 0) return 0;
  return paused_before(t, b) - paused_before(t, a);
}

int64_t ins_timeline_total(const struct ins_timeline *t) { return t->n ? t->cum[t->n] : 0; }
