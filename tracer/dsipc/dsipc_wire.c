/* dsipc_wire.c — encoding and decoding of diagnostics IPC messages. */
#include "dsipc_wire.h"

#include <string.h>

static void put(struct dsipc_buf *b, const void *src, size_t n) {
  if (b->bad || n > b->cap - b->len) { b->bad = 1; return; }
  memcpy(b->p + b->len, src, n);
  b->len += n;
}

static void put_le(struct dsipc_buf *b, uint64_t v, int n) {
  uint8_t t[8];
  for (int i = 0; i < n; i++) t[i] = (uint8_t)(v >> (8 * i));
  put(b, t, (size_t)n);
}

void dsipc_put_u8(struct dsipc_buf *b, uint8_t v) { put_le(b, v, 1); }
void dsipc_put_u16(struct dsipc_buf *b, uint16_t v) { put_le(b, v, 2); }
void dsipc_put_u32(struct dsipc_buf *b, uint32_t v) { put_le(b, v, 4); }
void dsipc_put_u64(struct dsipc_buf *b, uint64_t v) { put_le(b, v, 8); }

/* Next code point of UTF-8 text; an invalid byte reads as U+FFFD. */
static uint32_t next_cp(const unsigned char **s) {
  const unsigned char *p = *s;
  uint32_t c = *p++;
  int more = c >= 0xF0 && c < 0xF8 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (c >= 0x80 && !more) { *s = p; return 0xFFFD; }
  if (more) c &= 0x3Fu >> more;
  for (int i = 0; i < more; i++, p++) {
    if ((*p & 0xC0) != 0x80) { *s = p; return 0xFFFD; }
    c = (c << 6) | (*p & 0x3F);
  }
  *s = p;
  return c > 0x10FFFF ? 0xFFFD : c;
}

static size_t utf16_units(const char *utf8) {
  size_t n = 0;
  for (const unsigned char *s = (const unsigned char *)utf8; *s;) n += next_cp(&s) > 0xFFFF ? 2 : 1;
  return n;
}

void dsipc_put_string(struct dsipc_buf *b, const char *utf8) {
  if (!utf8) { dsipc_put_u32(b, 0); return; }
  dsipc_put_u32(b, (uint32_t)(utf16_units(utf8) + 1));
  for (const unsigned char *s = (const unsigned char *)utf8; *s;) {
    uint32_t c = next_cp(&s);
    if (c > 0xFFFF) {
      c -= 0x10000;
      dsipc_put_u16(b, (uint16_t)(0xD800 | (c >> 10)));
      dsipc_put_u16(b, (uint16_t)(0xDC00 | (c & 0x3FF)));
    } else {
      dsipc_put_u16(b, (uint16_t)c);
    }
  }
  dsipc_put_u16(b, 0);
}

void dsipc_begin(struct dsipc_buf *b, uint8_t set, uint8_t id) {
  uint8_t magic[DSIPC_MAGIC_LEN] = { 0 };
  memcpy(magic, DSIPC_MAGIC, sizeof DSIPC_MAGIC - 1);
  b->len = 0;
  b->bad = 0;
  put(b, magic, sizeof magic);
  dsipc_put_u16(b, 0);
  dsipc_put_u8(b, set);
  dsipc_put_u8(b, id);
  dsipc_put_u16(b, 0);
}

int dsipc_finish(struct dsipc_buf *b) {
  if (b->bad || b->len > DSIPC_MAX_MESSAGE) return -1;
  b->p[DSIPC_MAGIC_LEN] = (uint8_t)b->len;
  b->p[DSIPC_MAGIC_LEN + 1] = (uint8_t)(b->len >> 8);
  return 0;
}

static uint64_t get_le(struct dsipc_buf *b, int n) {
  if (b->bad || (size_t)n > b->len - b->pos) { b->bad = 1; return 0; }
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)b->p[b->pos + i] << (8 * i);
  b->pos += (size_t)n;
  return v;
}

uint8_t dsipc_get_u8(struct dsipc_buf *b) { return (uint8_t)get_le(b, 1); }
uint16_t dsipc_get_u16(struct dsipc_buf *b) { return (uint16_t)get_le(b, 2); }
uint32_t dsipc_get_u32(struct dsipc_buf *b) { return (uint32_t)get_le(b, 4); }
uint64_t dsipc_get_u64(struct dsipc_buf *b) { return get_le(b, 8); }

void dsipc_get_bytes(struct dsipc_buf *b, uint8_t *out, size_t n) {
  if (b->bad || n > b->len - b->pos) { b->bad = 1; memset(out, 0, n); return; }
  memcpy(out, b->p + b->pos, n);
  b->pos += n;
}

static size_t put_utf8(char *out, size_t at, size_t outlen, uint32_t c) {
  char t[4];
  size_t n;
  if (c < 0x80) t[0] = (char)c, n = 1;
  else if (c < 0x800) t[0] = (char)(0xC0 | (c >> 6)), t[1] = (char)(0x80 | (c & 0x3F)), n = 2;
  else if (c < 0x10000)
    t[0] = (char)(0xE0 | (c >> 12)), t[1] = (char)(0x80 | ((c >> 6) & 0x3F)), t[2] = (char)(0x80 | (c & 0x3F)), n = 3;
  else
    t[0] = (char)(0xF0 | (c >> 18)), t[1] = (char)(0x80 | ((c >> 12) & 0x3F)),
    t[2] = (char)(0x80 | ((c >> 6) & 0x3F)), t[3] = (char)(0x80 | (c & 0x3F)), n = 4;
  if (at + n >= outlen) return at;   /* cut: never split a character */
  memcpy(out + at, t, n);
  return at + n;
}

void dsipc_get_string(struct dsipc_buf *b, char *out, size_t outlen) {
  uint32_t count = dsipc_get_u32(b);
  size_t at = 0;
  if (outlen) out[0] = '\0';
  if (b->bad || count == 0) return;
  if ((uint64_t)count * 2 > b->len - b->pos) { b->bad = 1; return; }
  for (uint32_t i = 0; i < count; i++) {
    uint32_t c = dsipc_get_u16(b);
    if (c == 0) { b->pos += (size_t)(count - 1 - i) * 2; break; }
    if (c >= 0xD800 && c < 0xDC00 && i + 1 < count) {
      uint32_t lo = b->p[b->pos] | (uint32_t)b->p[b->pos + 1] << 8;
      if (lo >= 0xDC00 && lo < 0xE000) {
        b->pos += 2, i++;
        c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
      }
    }
    if (c >= 0xD800 && c < 0xE000) c = 0xFFFD;
    if (outlen) at = put_utf8(out, at, outlen, c);
  }
  if (outlen) out[at] = '\0';
}

int dsipc_decode_header(const uint8_t *p, struct dsipc_header *h) {
  uint8_t magic[DSIPC_MAGIC_LEN] = { 0 };
  memcpy(magic, DSIPC_MAGIC, sizeof DSIPC_MAGIC - 1);
  if (memcmp(p, magic, sizeof magic)) return -1;
  h->size = (uint16_t)(p[14] | p[15] << 8);
  h->set = p[16];
  h->id = p[17];
  h->reserved = (uint16_t)(p[18] | p[19] << 8);
  return h->size < DSIPC_HEADER_LEN ? -1 : 0;
}
