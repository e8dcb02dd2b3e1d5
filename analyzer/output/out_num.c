/* out_num.c — PerfView's number text (see gcs_output.h): "%.*f" with thousands
 * separators and no "-0.0"; where PerfView prints NaN or Infinity (an empty
 * kind, a ratio whose divisor is 0) the text says RPT_NO_VALUE ("-");
 * rpt_num_unknown says RPT_UNKNOWN for a value not known.
 *
 * The GC tables print hundreds of thousands of numbers, and printf's exact
 * decimal conversion dominated `gcscope stats`. Most values take a fast path
 * that is still exactly printf's result: with p = |v| * 10^d rounded to a
 * double, the exact product differs from p by at most half an ulp of p
 * (<= 2^-13 while p < 2^40), so whenever p's fraction is more than 1e-3 away
 * from one half, rounding p to the nearest integer gives the same digits as
 * printf's correctly rounded conversion. Values near a tie, large values and
 * more than 6 decimals go through snprintf (so does a buffer too small for the
 * whole text, which is then cut short as before). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gcs_output.h"

/* The fast path: v's text with `decimals` digits and thousands separators
 * written straight into buf. Returns 0 (buf untouched) when it does not apply
 * or buf is too small; the caller then formats with snprintf. */
static int fast_num(char *buf, size_t n, double v, int decimals) {
  static const double pow10[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6 };
  static const uint64_t ipow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
  if (decimals < 0 || decimals > 6) return 0;
  double p = fabs(v) * pow10[decimals];
  if (!(p < 1099511627776.0)) return 0; /* 2^40; also rejects NaN */
  double whole = floor(p), frac = p - whole;
  if (fabs(frac - 0.5) < 1e-3) return 0;
  uint64_t q = (uint64_t)whole + (frac > 0.5);
  uint64_t ip = q / ipow10[decimals], fp = q % ipow10[decimals];
  char digits[24]; /* integer digits, least significant first */
  int nd = 0;
  do {
    digits[nd++] = (char)('0' + ip % 10);
    ip /= 10;
  } while (ip);
  int neg = v < 0 && q != 0; /* no "-0.000" */
  size_t len = (size_t)neg + (size_t)nd + (size_t)(nd - 1) / 3 + (decimals ? 1 + (size_t)decimals : 0);
  if (len + 1 > n) return 0;
  size_t o = 0;
  if (neg) buf[o++] = '-';
  for (int i = nd - 1; i >= 0; i--) {
    buf[o++] = digits[i];
    if (i && i % 3 == 0) buf[o++] = ',';
  }
  if (decimals) {
    buf[o++] = '.';
    for (int i = decimals - 1; i >= 0; i--) {
      buf[o + (size_t)i] = (char)('0' + fp % 10);
      fp /= 10;
    }
    o += (size_t)decimals;
  }
  buf[o] = 0;
  return 1;
}

char *rpt_num_unknown(char *buf, size_t n, double v, int decimals) {
  if (!isfinite(v)) {
    snprintf(buf, n, "%s", RPT_UNKNOWN);
    return buf;
  }
  return rpt_num(buf, n, v, decimals);
}

char *rpt_num(char *buf, size_t n, double v, int decimals) {
  if (!isfinite(v)) {   /* an empty kind, a ratio over zero: PerfView's NaN/Infinity */
    snprintf(buf, n, "%s", RPT_NO_VALUE);
    return buf;
  }
  if (fast_num(buf, n, v, decimals)) return buf;
  char raw[352];
  snprintf(raw, sizeof raw, "%.*f", decimals, v);
  if (strcmp(raw, "-0") == 0 || strncmp(raw, "-0.", 3) == 0) {
    int zero = 1;
    for (const char *p = raw + 1; *p; p++)
      if (*p != '0' && *p != '.') zero = 0;
    if (zero) memmove(raw, raw + 1, strlen(raw));
  }
  const char *s = raw;
  size_t o = 0;
  if (*s == '-') buf[o++] = *s++;
  const char *dot = strchr(s, '.');
  size_t intlen = dot ? (size_t)(dot - s) : strlen(s);
  for (size_t i = 0; i < intlen && o + 2 < n; i++) {
    buf[o++] = s[i];
    size_t left = intlen - i - 1;
    if (left && left % 3 == 0) buf[o++] = ',';
  }
  if (dot)
    for (const char *p = dot; *p && o + 1 < n; p++) buf[o++] = *p;
  buf[o] = 0;
  return buf;
}
