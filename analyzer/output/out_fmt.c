/* out_fmt.c — printf's "%.*g" text of a double without printf, and a write
 * buffer for the csv and json writers (see gcs_output.h).
 *
 * The csv and json reports print millions of numbers; glibc's exact decimal
 * conversion (multi-precision arithmetic per number) was most of their time.
 * Here the same digits come from exact integer arithmetic: |v| = m * 2^k
 * (m < 2^53), and the P significant digits are N = round(|v| * 10^s) with
 * s = P - 1 - floor(log10 |v|). The product m * 5^s * 2^(k+s) is formed
 * exactly in 128 bits (as a quotient when s < 0), so N and the rounding,
 * half to even on an exact tie as printf does in the default rounding mode,
 * are exact. Values whose product does not fit (|s| > 27: |v| below about
 * 1e-11, or above about 1e41) and precisions over 17 go through snprintf. The
 * text (fixed or exponent style, trailing zeros removed) follows C11
 * 7.21.6.1 for %g. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_output.h"
#include "gcs_text.h"

static const uint64_t pow10_u64[20] = {
  1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
  10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
  1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
  10000000000000000000ull,
};

#define POW5_MAX 27   /* 5^27 < 2^63 */
static const uint64_t pow5_u64[POW5_MAX + 1] = {
  1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull, 1953125ull, 9765625ull,
  48828125ull, 244140625ull, 1220703125ull, 6103515625ull, 30517578125ull, 152587890625ull, 762939453125ull,
  3814697265625ull, 19073486328125ull, 95367431640625ull, 476837158203125ull, 2384185791015625ull,
  11920928955078125ull, 59604644775390625ull, 298023223876953125ull, 1490116119384765625ull,
  7450580596923828125ull,
};

/* "00".."99": two digits per division. */
static const char digit_pairs[201] =
  "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
  "8081828384858687888990919293949596979899";

/* The decimal digits of u < 10^8, exactly `width` of them, into out. */
static inline void put_digits32(char *out, uint32_t u, int width) {
  int i = width;
  while (i >= 2) {
    uint32_t d = u % 100;
    u /= 100;
    i -= 2;
    memcpy(out + i, digit_pairs + 2 * d, 2);
  }
  if (i) out[0] = (char)('0' + u % 10);
}

/* The decimal digits of u, exactly `width` of them (leading zeros), into out:
 * eight at a time in 32-bit arithmetic. */
static inline void put_digits(char *out, uint64_t u, int width) {
  while (width > 8) {
    width -= 8;
    put_digits32(out + width, (uint32_t)(u % 100000000), 8);
    u /= 100000000;
  }
  put_digits32(out, (uint32_t)u, width);
}

/* The number of decimal digits of u (1 for 0). */
static int count_digits(uint64_t u) {
  int n = 1;
  while (n < 20 && u >= pow10_u64[n]) n++;
  return n;
}

static int bitlen128(unsigned __int128 x) {
  uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
  return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* round(m * 2^k * 10^s), half to even, exactly; 0 with *ok = 0 when the
 * numbers do not fit. */
static uint64_t scaled_round(uint64_t m, int k, int s, int *ok) {
  unsigned __int128 num = m, den = 1;
  int twos = k + s;   /* 10^s = 5^s * 2^s */
  *ok = 0;
  if (s > POW5_MAX || -s > POW5_MAX) return 0;
  if (s >= 0) num *= pow5_u64[s];
  else den = pow5_u64[-s];
  if (twos >= 0) {
    if (bitlen128(num) + twos > 127) return 0;
    num <<= twos;
    twos = 0;
  }
  unsigned __int128 q, r, d;
  if (den == 1) {
    int sh = -twos;
    if (sh == 0) {
      q = num;
      r = 0;
      d = 1;
    } else {
      if (sh > 126) return 0;
      d = (unsigned __int128)1 << sh;
      q = num >> sh;
      r = num & (d - 1);
    }
  } else {
    if (bitlen128(den) + (-twos) > 126) return 0;
    d = den << (-twos);
    q = num / d;
    r = num % d;
  }
  if (q >> 63) return 0;
  if (r * 2 > d || (r * 2 == d && (q & 1))) q++;
  *ok = 1;
  return (uint64_t)q;
}

/* The exact path of rpt_fmt_g for finite non-zero v; 0 when it does not apply. */
static size_t fmt_g_exact(char *buf, double v, int prec) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  int neg = (int)(bits >> 63), be = (int)((bits >> 52) & 0x7ff);
  uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
  int k;
  if (be == 0) {
    k = -1074;                     /* subnormal */
  } else {
    m |= UINT64_C(1) << 52;
    k = be - 1075;
  }
  int e2 = k + 63 - __builtin_clzll(m);          /* floor(log2 |v|) */
  int e10 = (int)(((int64_t)e2 * 78913) >> 18);  /* floor(e2 * log10(2)): floor(log10 |v|) or one less */
  if (e10 >= -1 && e10 < 19 && fabs(v) >= (double)pow10_u64[e10 + 1]) e10++;   /* exact for these */
  uint64_t n = 0;
  for (int tries = 0;; tries++) {
    int ok;
    if (tries == 3) return 0;
    n = scaled_round(m, k, prec - 1 - e10, &ok);
    if (!ok) return 0;
    if (n >= pow10_u64[prec]) e10++;             /* too many digits (also a carry: 9.99.. -> 10.0) */
    else if (n < pow10_u64[prec - 1]) e10--;
    else break;
  }
  /* Trailing zeros go (%g removes them): most figures have few digits. */
  int nd = prec;                                 /* significant digits left */
  if (n % 100000000 == 0 && nd > 8) n /= 100000000, nd -= 8;
  if (n % 10000 == 0 && nd > 4) n /= 10000, nd -= 4;
  if (n % 100 == 0 && nd > 2) n /= 100, nd -= 2;
  if (n % 10 == 0 && nd > 1) n /= 10, nd -= 1;
  if (n % 10 == 0 && nd > 1) n /= 10, nd -= 1;   /* 8 + 4 + 2 + 1 + 1 covers 16 */
  char dig[20];
  put_digits(dig, n, nd);
  size_t o = 0;
  if (neg) buf[o++] = '-';
  if (e10 < -4 || e10 >= prec) {                 /* d[.ddd]e+XX */
    buf[o++] = dig[0];
    if (nd > 1) {
      buf[o++] = '.';
      memcpy(buf + o, dig + 1, (size_t)nd - 1);
      o += (size_t)nd - 1;
    }
    buf[o++] = 'e';
    int x = e10;
    buf[o++] = x < 0 ? '-' : '+';
    if (x < 0) x = -x;
    if (x >= 100) buf[o++] = (char)('0' + x / 100);
    buf[o++] = (char)('0' + x / 10 % 10);
    buf[o++] = (char)('0' + x % 10);
  } else if (e10 >= 0) {                         /* ddd[.ddd] */
    int whole = e10 + 1, lead = nd < whole ? nd : whole;
    memcpy(buf + o, dig, (size_t)lead);
    o += (size_t)lead;
    for (int i = lead; i < whole; i++) buf[o++] = '0';
    if (nd > whole) {
      buf[o++] = '.';
      memcpy(buf + o, dig + whole, (size_t)(nd - whole));
      o += (size_t)(nd - whole);
    }
  } else {                                       /* 0.000ddd */
    buf[o++] = '0';
    buf[o++] = '.';
    for (int i = 0; i < -e10 - 1; i++) buf[o++] = '0';
    memcpy(buf + o, dig, (size_t)nd);
    o += (size_t)nd;
  }
  buf[o] = 0;
  return o;
}

size_t rpt_fmt_g(char *buf, double v, int prec) {
  if (prec >= 1 && prec <= 17 && isfinite(v)) {
    if (v == 0) {
      size_t o = 0;
      if (signbit(v)) buf[o++] = '-';
      buf[o++] = '0';
      buf[o] = 0;
      return o;
    }
    size_t n = fmt_g_exact(buf, v, prec);
    if (n) return n;
  }
  int n = snprintf(buf, RPT_FMT_MAX, "%.*g", prec, v);
  return n < 0 ? 0 : (size_t)n < RPT_FMT_MAX ? (size_t)n : RPT_FMT_MAX - 1;
}

/* Whether the %g text s reads back as v, as strtod would say. The digits
 * D (< 2^53) and a power of ten 10^x with |x| <= 22 are exact doubles, so one
 * multiplication or division rounds D * 10^x correctly (Clinger's fast
 * path); other texts go through strtod. */
static int reads_back(const char *s, double v) {
  static const double p10[23] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
  const char *c = s;
  int neg = *c == '-', x = 0, dot = 0;
  if (neg) c++;
  uint64_t d = 0;
  for (; (*c >= '0' && *c <= '9') || *c == '.'; c++) {
    if (*c == '.') { dot = 1; continue; }
    d = d * 10 + (uint64_t)(*c - '0');
    x -= dot;
  }
  if (*c == 'e') x += atoi(c + 1);
  if (d >= (UINT64_C(1) << 53) || x < -22 || x > 22) return strtod(s, NULL) == v;
  double r = x >= 0 ? (double)d * p10[x] : (double)d / p10[-x];
  return (neg ? -r : r) == v;
}

size_t rpt_fmt_json(char *buf, double v) {
  if (!isfinite(v)) {
    memcpy(buf, "null", 5);
    return 4;
  }
  if (v == floor(v) && fabs(v) < 1e17) {         /* "%.0f" of an integer */
    uint64_t u = (uint64_t)fabs(v);
    size_t o = 0;
    if (signbit(v)) buf[o++] = '-';              /* -0.0 prints "-0", as printf does */
    int nd = count_digits(u);
    put_digits(buf + o, u, nd);
    o += (size_t)nd;
    buf[o] = 0;
    return o;
  }
  /* The shortest exact form: 15 digits give back most values (28.362894),
   * 16 or 17 the rest; 17 always reads back. */
  for (int prec = 15; prec < 17; prec++) {
    size_t n = rpt_fmt_g(buf, v, prec);
    if (reads_back(buf, v)) return n;
  }
  return rpt_fmt_g(buf, v, 17);
}

/* ---- write buffer ------------------------------------------------------------ */

void rpt_wbuf_flush(struct rpt_wbuf *w) {
  if (w->n) fwrite(w->b, 1, w->n, w->f);
  w->n = 0;
}

void rpt_wbuf_mem(struct rpt_wbuf *w, const char *s, size_t len) {
  if (w->n + len > sizeof w->b) {
    rpt_wbuf_flush(w);
    if (len > sizeof w->b) {
      fwrite(s, 1, len, w->f);
      return;
    }
  }
  memcpy(w->b + w->n, s, len);
  w->n += len;
}

size_t rpt_fmt_i64(char *buf, long long v) {
  uint64_t u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  size_t o = 0;
  if (v < 0) buf[o++] = '-';
  int nd = count_digits(u);
  put_digits(buf + o, u, nd);
  o += (size_t)nd;
  buf[o] = 0;
  return o;
}

void rpt_wbuf_i64(struct rpt_wbuf *w, long long v) {
  char *p = rpt_wbuf_room(w, 24);
  if ((unsigned long long)v < 10) {              /* 0 and flags: most integer cells */
    *p = (char)('0' + v);
    w->n++;
    return;
  }
  w->n += rpt_fmt_i64(p, v);
}

void rpt_wbuf_g(struct rpt_wbuf *w, double v, int prec) {
  char *p = rpt_wbuf_room(w, RPT_FMT_MAX);
  w->n += rpt_fmt_g(p, v, prec);
}

void rpt_wbuf_json_num(struct rpt_wbuf *w, double v) {
  char *p = rpt_wbuf_room(w, RPT_FMT_MAX);
  w->n += rpt_fmt_json(p, v);
}

void rpt_wbuf_json_str(struct rpt_wbuf *w, const char *s) {
  if (!s) {
    rpt_wbuf_mem(w, "null", 4);
    return;
  }
  rpt_wbuf_char(w, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    /* A run of bytes JSON takes as they are, in one copy; then one escape. */
    const unsigned char *q = p;
    while (*q >= 0x20 && *q != '"' && *q != '\\') q++;
    if (q > p) {
      rpt_wbuf_mem(w, (const char *)p, (size_t)(q - p));
      p = q;
      continue;
    }
    char e[GCS_TEXT_JSON_ESC_MAX];
    rpt_wbuf_mem(w, e, gcs_text_json_escape(*p++, e));
  }
  rpt_wbuf_char(w, '"');
}

static void put_wbuf(void *w, const char *p, size_t n) { rpt_wbuf_mem(w, p, n); }

void rpt_wbuf_csv_str(struct rpt_wbuf *w, const char *s) { rpt_csv_field(s, put_wbuf, w); }
