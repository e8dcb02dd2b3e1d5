/* nt_pending.c — the delivery heap of nt_pending.h. */
#include "nt_pending.h"

#include <stdlib.h>
#include <string.h>

#define NT_ARENA_COMPACT_MIN (1u << 20)   /* below this, dead bytes are left until the buffer empties */

static int before(const struct nt_pending_ev *x, const struct nt_pending_ev *y) {
  if (x->ts != y->ts) return x->ts < y->ts;
  return x->order < y->order;
}

/* Copy the live payloads into a fresh arena of exactly their size. */
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

static int reserve_arena(struct nt_pending *p, size_t more) {
  if (p->arena_len + more <= p->arena_cap) return 0;
  /* Mostly dead bytes (payloads delivered out of arena order): reclaim
   * them before growing, so the arena stays within twice the live bytes. */
  if (p->arena_len > 2 * p->live_bytes && compact(p) == 0 && p->arena_len + more <= p->arena_cap) return 0;
  size_t ncap = p->arena_cap > 1 ? p->arena_cap : 65536;
  while (ncap < p->arena_len + more) {
    if (ncap > SIZE_MAX / 2) return -1;
    ncap *= 2;
  }
  uint8_t *na = realloc(p->arena, ncap);
  if (!na) return -1;
  p->arena = na;
  p->arena_cap = ncap;
  return 0;
}

enum nt_push_rc nt_pending_push(struct nt_pending *p, const struct nt_pending_ev *e, const uint8_t *payload) {
  if (p->n >= p->max) return NT_PUSH_MAX_EVENTS;
  if (p->max_bytes && e->len > p->max_bytes - p->live_bytes) return NT_PUSH_MAX_BYTES;
  if (p->n == p->cap) {
    size_t ncap = p->cap ? p->cap * 2 : 1024;
    if (ncap > p->max) ncap = p->max;
    struct nt_pending_ev *nv = realloc(p->v, ncap * sizeof *nv);
    if (!nv) return NT_PUSH_NO_MEMORY;
    p->v = nv;
    p->cap = ncap;
  }
  if (reserve_arena(p, e->len) != 0) return NT_PUSH_NO_MEMORY;
  struct nt_pending_ev c = *e;
  c.off = p->arena_len;
  if (e->len) memcpy(p->arena + p->arena_len, payload, e->len);
  p->arena_len += e->len;
  p->live_bytes += e->len;
  /* Sift up. */
  size_t i = p->n++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!before(&c, &p->v[parent])) break;
    p->v[i] = p->v[parent];
    i = parent;
  }
  p->v[i] = c;
  return NT_PUSH_OK;
}

void nt_pending_pop(struct nt_pending *p, struct nt_pending_ev *out) {
  *out = p->v[0];
  p->live_bytes -= out->len;
  struct nt_pending_ev last = p->v[--p->n];
  if (p->n == 0) return;
  /* Sift the last element down from the root. */
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1;
    if (l >= p->n) break;
    size_t m = l + 1 < p->n && before(&p->v[l + 1], &p->v[l]) ? l + 1 : l;
    if (!before(&p->v[m], &last)) break;
    p->v[i] = p->v[m];
    i = m;
  }
  p->v[i] = last;
}

void nt_pending_settle(struct nt_pending *p) {
  if (p->n == 0) { p->arena_len = 0; p->live_bytes = 0; return; }
  if (p->arena_len > NT_ARENA_COMPACT_MIN && p->arena_len > 2 * p->live_bytes) (void)compact(p);
}

void nt_pending_free(struct nt_pending *p) {
  free(p->v);
  free(p->arena);
  memset(p, 0, sizeof *p);
}
