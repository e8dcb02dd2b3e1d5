/* nt_pending.c — the sort buffer of nt_pending.h. */
#include "nt_pending.h"

#include <stdlib.h>
#include <string.h>

int nt_pending_push(struct nt_pending *p, const struct nt_pending_ev *e) {
  if (p->n >= p->max) return -1;
  if (p->n == p->cap) {
    size_t ncap = p->cap ? p->cap * 2 : 1024;
    if (ncap > p->max) ncap = p->max;
    struct nt_pending_ev *nv = realloc(p->v, ncap * sizeof *nv);
    if (!nv) return -1;
    p->v = nv;
    p->cap = ncap;
  }
  p->v[p->n++] = *e;
  return 0;
}

static int nt_pending_cmp(const void *a, const void *b) {
  const struct nt_pending_ev *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

void nt_pending_sort(struct nt_pending *p) {
  /* Events mostly arrive in order already; skip the sort when they do. */
  size_t i = 1;
  while (i < p->n && nt_pending_cmp(&p->v[i - 1], &p->v[i]) <= 0) i++;
  if (i < p->n) qsort(p->v, p->n, sizeof *p->v, nt_pending_cmp);
}

size_t nt_pending_prefix(const struct nt_pending *p, uint64_t limit) {
  size_t lo = 0, hi = p->n;  /* first index with ts > limit */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->v[mid].ts <= limit) lo = mid + 1; else hi = mid;
  }
  return lo;
}

void nt_pending_drop(struct nt_pending *p, size_t k) {
  if (k >= p->n) { p->n = 0; return; }
  memmove(p->v, p->v + k, (p->n - k) * sizeof *p->v);
  p->n -= k;
}

void nt_pending_free(struct nt_pending *p) {
  free(p->v);
  p->v = NULL;
  p->n = p->cap = 0;
}
