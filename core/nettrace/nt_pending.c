/* nt_pending.c — the sort buffer of nt_pending.h. */
#include "nt_pending.h"

#include <stdlib.h>
#include <string.h>

#define NT_ARENA_COMPACT_MIN (1u << 20)   /* below this, dead bytes are left until the buffer empties */

static int reserve_arena(struct nt_pending *p, size_t more) {
  if (p->arena_len + more <= p->arena_cap) return 0;
  size_t ncap = p->arena_cap ? p->arena_cap : 65536;
  while (ncap < p->arena_len + more) ncap *= 2;
  uint8_t *na = realloc(p->arena, ncap);
  if (!na) return -1;
  p->arena = na;
  p->arena_cap = ncap;
  return 0;
}

int nt_pending_push(struct nt_pending *p, const struct nt_pending_ev *e, const uint8_t *payload) {
  if (p->n >= p->max) return -1;
  if (p->n == p->cap) {
    size_t ncap = p->cap ? p->cap * 2 : 1024;
    if (ncap > p->max) ncap = p->max;
    struct nt_pending_ev *nv = realloc(p->v, ncap * sizeof *nv);
    if (!nv) return -1;
    p->v = nv;
    p->cap = ncap;
  }
  if (reserve_arena(p, e->len) != 0) return -1;
  struct nt_pending_ev c = *e;
  c.off = p->arena_len;
  if (e->len) memcpy(p->arena + p->arena_len, payload, e->len);
  p->arena_len += e->len;
  p->live_bytes += e->len;
  p->v[p->n++] = c;
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

/* Copy the live payloads into a fresh arena. */
static int compact(struct nt_pending *p) {
  uint8_t *na = malloc(p->live_bytes ? p->live_bytes : 1);
  if (!na) return -1;
  size_t o = 0;
  for (size_t i = 0; i < p->n; i++) {
    if (p->v[i].len) memcpy(na + o, p->arena + p->v[i].off, p->v[i].len);
    p->v[i].off = o;
    o += p->v[i].len;
  }
  free(p->arena);
  p->arena = na;
  p->arena_len = o;
  p->arena_cap = p->live_bytes ? p->live_bytes : 1;
  return 0;
}

int nt_pending_drop(struct nt_pending *p, size_t k) {
  if (k > p->n) k = p->n;
  for (size_t i = 0; i < k; i++) p->live_bytes -= p->v[i].len;
  if (k && p->n > k) memmove(p->v, p->v + k, (p->n - k) * sizeof *p->v);
  p->n -= k;
  if (p->n == 0) { p->arena_len = 0; p->live_bytes = 0; return 0; }
  if (p->arena_len > NT_ARENA_COMPACT_MIN && p->arena_len > 2 * p->live_bytes) return compact(p);
  return 0;
}

void nt_pending_free(struct nt_pending *p) {
  free(p->v);
  free(p->arena);
  memset(p, 0, sizeof *p);
}
