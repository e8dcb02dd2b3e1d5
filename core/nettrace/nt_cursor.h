/*
 * nt_cursor.h — bounds-checked little-endian reads over a byte range.
 *
 * Every read checks the remaining length first; on a short read the cursor
 * is marked failed (ok = 0), nothing is consumed and 0 is returned, so a
 * parser can read a whole header and test ok once. Offsets are kept relative
 * to the start of the file (base) so error messages and the format's
 * "pad to a 4-byte file offset" rules can use them.
 */
#ifndef NT_CURSOR_H
#define NT_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct nt_cursor {
  const uint8_t *base;  /* start of the file */
  size_t pos;           /* current offset from base */
  size_t end;           /* offset one past the last readable byte */
  int ok;               /* 0 once any read ran past end */
};

static inline struct nt_cursor nt_cursor_make(const uint8_t *base, size_t pos, size_t end) {
  struct nt_cursor c = { base, pos, end, 1 };
  return c;
}

static inline size_t nt_left(const struct nt_cursor *c) {
  return c->pos <= c->end ? c->end - c->pos : 0;
}

static inline int nt_need(struct nt_cursor *c, size_t n) {
  if (!c->ok || nt_left(c) < n) { c->ok = 0; return 0; }
  return 1;
}

static inline const uint8_t *nt_bytes(struct nt_cursor *c, size_t n) {
  if (!nt_need(c, n)) return NULL;
  const uint8_t *p = c->base + c->pos;
  c->pos += n;
  return p;
}

static inline void nt_skip(struct nt_cursor *c, size_t n) { (void)nt_bytes(c, n); }

static inline uint8_t nt_u8(struct nt_cursor *c) {
  const uint8_t *p = nt_bytes(c, 1);
  return p ? p[0] : 0;
}

static inline uint16_t nt_u16(struct nt_cursor *c) {
  const uint8_t *p = nt_bytes(c, 2);
  return p ? (uint16_t)(p[0] | (p[1] << 8)) : 0;
}

static inline uint32_t nt_u32(struct nt_cursor *c) {
  const uint8_t *p = nt_bytes(c, 4);
  return p ? (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24) : 0;
}

static inline uint64_t nt_u64(struct nt_cursor *c) {
  uint64_t lo = nt_u32(c);
  uint64_t hi = nt_u32(c);
  return lo | (hi << 32);
}

/* LEB128-style unsigned varint of at most maxbytes bytes (5 for 32-bit
 * values, 10 for 64-bit ones); a longer encoding fails the cursor. */
static inline uint64_t nt_varint(struct nt_cursor *c, int maxbytes) {
  uint64_t v = 0;
  for (int i = 0; i < maxbytes; i++) {
    const uint8_t *p = nt_bytes(c, 1);
    if (!p) return 0;
    v |= (uint64_t)(p[0] & 0x7F) << (7 * i);
    if (!(p[0] & 0x80)) return v;
  }
  c->ok = 0;
  return 0;
}

/* Advance to the next multiple of 4 of the file offset. */
static inline void nt_align4(struct nt_cursor *c) {
  size_t pad = (4 - (c->pos & 3)) & 3;
  nt_skip(c, pad);
}

#endif /* NT_CURSOR_H */
