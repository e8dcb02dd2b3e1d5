/* ins_overhead.c — windowed % paused and MMU (see ins_overhead.h). */
#include "ins_overhead.h"

#include <math.h>
#include <stdlib.h>

const int64_t ins_mmu_windows_ns[INS_MMU_N] = {
    1000000LL,    2000000LL,    5000000LL,    10000000LL,   20000000LL,
    50000000LL,   100000000LL,  200000000LL,  500000000LL,  1000000000LL,
    2000000000LL, 5000000000LL, 10000000000LL};

/* A cursor over the paused time in (-inf, x), for x that never decreases: the
 * value of ins_timeline_paused's binary search, found by walking forward. */
struct cursor { const struct ins_timeline *t; size_t j; };
static inline int64_t paused_before(struct cursor *c, int64_t x) {
  const struct ins_timeline *t = c->t;
  while (c->j < t->n && t->end[c->j] <= x) c->j++;
  int64_t v = t->cum[c->j];
  if (c->j < t->n && t->start[c->j] < x) v += x - t->start[c->j];
  return v;
}

/* The paused time of [s, s+w) is piecewise linear in s; its maximum is reached
 * where the window's start meets a pause start or its end meets a pause end
 * (or at the run's edges), so only those positions are tried: t0, every pause
 * start, every pause end minus w, and t1 - w, each clamped to [t0, t1 - w].
 * Both lists are ascending, so merging them visits the starts in ascending
 * order and both window edges only move forward: O(n). The first start with
 * the largest paused time is the earliest one; once a window is wholly paused
 * no later one can hold more. */
int ins_worst_window(const struct ins_timeline *t, int64_t t0, int64_t t1, int64_t w,
                     int64_t *start_ns, int64_t *paused_ns) {
  if (w <= 0 || w > t1 - t0) return -1;
  int64_t last = t1 - w;
  struct cursor lo = {t, 0}, hi = {t, 0};
  int64_t best_s = t0, best = paused_before(&hi, t0 + w) - paused_before(&lo, t0);
  size_t ia = 0, ib = 0;
  while (best < w) {
    int64_t s;
    if (ia < t->n && (ib >= t->n || t->start[ia] <= t->end[ib] - w)) s = t->start[ia++];
    else if (ib < t->n) s = t->end[ib++] - w;
    else s = last;
    if (s < t0) s = t0;
    if (s > last) s = last;
    int64_t v = paused_before(&hi, s + w) - paused_before(&lo, s);
    if (v > best) {
      best = v;
      best_s = s;
    }
    if (ia >= t->n && ib >= t->n && s == last) break;
  }
  *start_ns = best_s;
  *paused_ns = best;
  return 0;
}

double ins_mmu(const struct ins_timeline *t, int64_t t0, int64_t t1, int64_t w) {
  int64_t s, p;
  if (ins_worst_window(t, t0, t1, w, &s, &p) != 0) return NAN;
  return 1.0 - (double)p / (double)w;
}

int ins_overhead_windows(const struct ins_timeline *t, int64_t t0, int64_t t1, int64_t window_ns,
                         struct ins_window **wins, size_t *n_wins, struct ins_window *worst) {
  *wins = NULL;
  *n_wins = 0;
  if (t1 <= t0 || window_ns <= 0) return -1;
  int64_t span = t1 - t0;
  size_t n = (size_t)(span / window_ns + (span % window_ns ? 1 : 0));
  struct ins_window *w = malloc(n * sizeof *w);
  if (!w) return -1;
  for (size_t k = 0; k < n; k++) {
    int64_t s = t0 + (int64_t)k * window_ns;
    int64_t e = s + window_ns < t1 ? s + window_ns : t1;
    int64_t p = ins_timeline_paused(t, s, e);
    w[k] = (struct ins_window){s, e, p, (double)p * 100.0 / (double)(e - s)};
  }
  int64_t ws = window_ns < span ? window_ns : span;
  int64_t bs, bp;
  if (ins_worst_window(t, t0, t1, ws, &bs, &bp) != 0) {
    free(w);
    return -1;
  }
  *worst = (struct ins_window){bs, bs + ws, bp, (double)bp * 100.0 / (double)ws};
  *wins = w;
  *n_wins = n;
  return 0;
}
