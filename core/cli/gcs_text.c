/* gcs_text.c — see gcs_text.h. */
#include "gcs_text.h"

#include <stdint.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p (at most n bytes) and its code
 * point, or 0 when it is not one (overlong forms and surrogates included). */
static size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp) {
  unsigned char c = p[0];
  size_t len;
  uint32_t v, min;
  if (c < 0x80) { *cp = c; return 1; }
  if ((c & 0xE0) == 0xC0) { len = 2; v = c & 0x1F; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { len = 3; v = c & 0x0F; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { len = 4; v = c & 0x07; min = 0x10000; }
  else return 0;
  if (len > n) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (p[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) return 0;
  *cp = v;
  return len;
}

static int unsafe(uint32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

char *gcs_text_printable(const char *in, size_t len, char *out, size_t cap) {
  if (cap == 0) return out;
  const unsigned char *p = (const unsigned char *)(in ? in : "");
  size_t n = in ? strnlen(in, len) : 0, o = 0;
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t l = utf8_seq(p + i, n - i, &cp);
    const char *src = (const char *)p + i;
    size_t w = l;
    if (l == 0 || unsafe(cp)) { src = "?"; w = 1; if (l == 0) l = 1; }
    if (o + w + 1 > cap) break;
    memcpy(out + o, src, w);
    o += w;
    i += l;
  }
  out[o] = '\0';
  return out;
}

size_t gcs_text_json_escape(unsigned char c, char out[GCS_TEXT_JSON_ESC_MAX]) {
  static const char hex[] = "0123456789abcdef";
  if (c == '"' || c == '\\') {
    out[0] = '\\';
    out[1] = (char)c;
    return 2;
  }
  if (c < 0x20) {
    out[0] = '\\';
    out[1] = 'u';
    out[2] = '0';
    out[3] = '0';
    out[4] = hex[c >> 4];
    out[5] = hex[c & 15];
    return 6;
  }
  out[0] = (char)c;
  return 1;
}
