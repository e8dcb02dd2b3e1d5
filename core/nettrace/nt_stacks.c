/* nt_stacks.c — StackBlock stacks between sequence points (nt_stacks.h). */
#include "nt_stacks.h"

#include <stdlib.h>
#include <string.h>

#include "nt_cursor.h"

/* A stack deeper than this is not a real walk (the runtime stops at 100
 * frames on most paths; a crafted size could ask for millions). */
#define NT_STACK_MAX_DEPTH 4096

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t ncap = *cap ? *cap : 256;
  while (ncap < need) ncap *= 2;
  void *np = realloc(*p, ncap * elem);
  if (!np) return -1;
  *p = np;
  *cap = ncap;
  return 0;
}

int nt_stacks_add_block(struct nt_stacks *s, const uint8_t *body, size_t len, int ptr_size, const char **why) {
  struct nt_cursor c = nt_cursor_make(body, 0, len);
  uint32_t first = nt_u32(&c);
  uint32_t count = nt_u32(&c);
  if (!c.ok || count > len / 4) { *why = "bad StackBlock header"; return -1; }
  for (uint32_t i = 0; i < count; i++) {
    uint32_t size = nt_u32(&c);
    const uint8_t *p = nt_bytes(&c, size);
    if (!c.ok) { *why = "stack runs past the end of its StackBlock"; return -1; }
    if (size % (uint32_t)ptr_size != 0) { *why = "stack size not a multiple of the pointer size"; return -1; }
    uint32_t depth = size / (uint32_t)ptr_size;
    s->read++;
    if (depth > NT_STACK_MAX_DEPTH) depth = NT_STACK_MAX_DEPTH;
    if ((s->nips + depth) * sizeof(uint64_t) > NT_STACKS_MAX_BYTES || s->n >= NT_STACKS_MAX_COUNT) {
      s->dropped++;
      continue;
    }
    if (grow((void **)&s->ips, &s->capips, s->nips + depth, sizeof *s->ips) != 0 ||
        grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v) != 0) {
      *why = "out of memory";
      return -1;
    }
    /* An empty walk may come first: ips is then still NULL (no offset from it). */
    for (uint32_t k = 0; k < depth; k++) {
      const uint8_t *b = p + (size_t)k * (size_t)ptr_size;
      uint64_t v = 0;
      for (int j = ptr_size - 1; j >= 0; j--) v = (v << 8) | b[j];
      s->ips[s->nips + k] = v;
    }
    s->v[s->n].off = s->nips;
    s->v[s->n].depth = depth;
    if (nt_u64map_put(&s->index, (uint64_t)first + i, (uint32_t)s->n) != 0) { *why = "out of memory"; return -1; }
    s->n++;
    s->nips += depth;
  }
  return 0;
}

const uint64_t *nt_stacks_get(const struct nt_stacks *s, uint32_t id, uint32_t *depth) {
  const uint32_t *k = nt_u64map_get(&s->index, id);
  if (!k) return NULL;
  *depth = s->v[*k].depth;
  static const uint64_t none[1];  /* only empty walks so far: no array yet, still a known stack */
  return s->ips ? s->ips + s->v[*k].off : none;
}

void nt_stacks_clear(struct nt_stacks *s) {
  nt_u64map_free(&s->index);
  s->n = 0;
  s->nips = 0;
}

void nt_stacks_free(struct nt_stacks *s) {
  nt_u64map_free(&s->index);
  free(s->v);
  free(s->ips);
  memset(s, 0, sizeof *s);
}
