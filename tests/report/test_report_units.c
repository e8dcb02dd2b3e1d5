/*
 * Report helpers: linear-interpolation percentiles (numpy's default method,
 * worked by hand), PerfView-style number text, the aligned text table, and
 * st_load's column selection.
 *   x = 1, 2, 3, 4, 10: P50 -> rank 0.5*4 = 2 -> 3; P95 -> rank 3.8 -> 4 + 0.8*6 = 8.8;
 *   P99 -> rank 3.96 -> 4 + 0.96*6 = 9.76. One value: every percentile is it.
 *
 * usage: test_report_units [SCRATCH_DIR]   (a database is written there; default ".")
 */
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gcs_gcdb.h"
#include "gcs_tables.h"
#include "ins_stats.h"
#include "gcs_output.h"
#include "stats_model.h"


/* ---- number text ------------------------------------------------------------ */

/* The definition rpt_num must meet: printf's "%.*f", "-0..." without its sign,
 * then a comma every three integer digits. */
static void ref_num(char *out, double v, int d) {
  char raw[400];
  snprintf(raw, sizeof raw, "%.*f", d, v);
  const char *s = raw;
  if (*s == '-' && strspn(s + 1, "0.") == strlen(s + 1)) s++;
  size_t o = 0;
  if (*s == '-') out[o++] = *s++;
  size_t intlen = strcspn(s, ".");
  for (size_t i = 0; i < intlen; i++) {
    out[o++] = s[i];
    if ((intlen - i - 1) % 3 == 0 && i + 1 < intlen) out[o++] = ',';
  }
  strcpy(out + o, s + intlen);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) { /* xorshift64 */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void test_num(void) {
  char b[400], r[400];
  CHECK(strcmp(rpt_num(b, 64, 12345.6789, 3), "12,345.679") == 0);
  CHECK(strcmp(rpt_num(b, 64, -1234567.5, 1), "-1,234,567.5") == 0);
  CHECK(strcmp(rpt_num(b, 64, 999.9996, 3), "1,000.000") == 0);
  CHECK(strcmp(rpt_num(b, 64, -0.0001, 1), "0.0") == 0);
  CHECK(strcmp(rpt_num(b, 64, -0.0, 3), "0.000") == 0);
  CHECK(strcmp(rpt_num(b, 64, -0.4, 0), "0") == 0);
  CHECK(strcmp(rpt_num(b, 64, NAN, 1), "-") == 0);
  CHECK(strcmp(rpt_num(b, 64, INFINITY, 1), "-") == 0);
  CHECK(strcmp(rpt_num(b, 64, -INFINITY, 1), "-") == 0);
  /* a value not known: "unknown" in text (rpt_num_unknown, rpt_num3), an
   * empty CSV field, JSON null; a known value as rpt_num / "%.3f" */
  CHECK(strcmp(rpt_num_unknown(b, 64, NAN, 1), "unknown") == 0);
  CHECK(strcmp(rpt_num_unknown(b, 64, -INFINITY, 3), "unknown") == 0);
  CHECK(strcmp(rpt_num_unknown(b, 64, 1234.5, 1), "1,234.5") == 0);
  {
    static const enum rpt_format fmts[3] = { RPT_TEXT, RPT_CSV, RPT_JSON };
    static const char *const want[3] = { "unknown|unknown|12.346", "||12.346", "null|null|12.346" };
    for (int i = 0; i < 3; i++) {
      char *mem = NULL;
      size_t len = 0;
      FILE *m = open_memstream(&mem, &len);
      CHECK(m != NULL);
      if (!m) continue;
      rpt_num3(m, fmts[i], NAN);
      fputc('|', m);
      rpt_num3(m, fmts[i], INFINITY);
      fputc('|', m);
      rpt_num3(m, fmts[i], 12.3456);
      fclose(m);
      CHECK(strcmp(mem, want[i]) == 0);
      free(mem);
    }
  }
  CHECK(strcmp(rpt_num(b, 64, 42, 0), "42") == 0);
  CHECK(strcmp(rpt_num(b, 64, 100, 0), "100") == 0);
  CHECK(strcmp(rpt_num(b, 64, 1000, 0), "1,000") == 0);
  CHECK(strcmp(rpt_num(b, 64, -999999.0004, 3), "-999,999.000") == 0);
  /* Decimal ties are decided by the binary value (printf rounds it exactly):
   * 0.0025 is 0.00250000000000000005..., 1.0005 is 1.000499999999999989...,
   * 2.675 is 2.67499999999999982..., 0.125 is exact (tie to even). */
  CHECK(strcmp(rpt_num(b, 64, 0.0025, 3), "0.003") == 0);
  CHECK(strcmp(rpt_num(b, 64, 1.0005, 3), "1.000") == 0);
  CHECK(strcmp(rpt_num(b, 64, 2.675, 2), "2.67") == 0);
  CHECK(strcmp(rpt_num(b, 64, 0.125, 2), "0.12") == 0);
  CHECK(strcmp(rpt_num(b, 64, 0.375, 2), "0.38") == 0);
  CHECK(strcmp(rpt_num(b, 64, 2.5, 0), "2") == 0);
  CHECK(strcmp(rpt_num(b, 64, -3.5, 0), "-4") == 0);
  /* Larger than any fast path; printf's digits with separators. */
  CHECK(strcmp(rpt_num(b, sizeof b, 1e20, 1), "100,000,000,000,000,000,000.0") == 0);
  CHECK(strcmp(rpt_num(b, sizeof b, 4294967296.25, 3), "4,294,967,296.250") == 0);
  /* A buffer too small is never overrun. */
  memset(b, 'x', sizeof b);
  rpt_num(b, 8, 1234567.891, 3);
  CHECK(strlen(b) < 8 && strncmp(b, "1,234,", 6) == 0);
  /* A value wider than 64 characters is not cut short. */
  rpt_num(b, sizeof b, 1e70, 0);
  CHECK(strlen(b) == 71 + 23 && b[0] == '1' && b[1] == '0' && b[2] == ',');

  /* Against the definition: random magnitudes, and values on or one ulp away
   * from decimal ties, every decimals count the reports use and more. */
  int bad = 0;
  for (int i = 0; i < 400000 && bad < 5; i++) {
    uint64_t x = next_rand();
    int d = (int)(x % 8);
    double v;
    switch ((x >> 3) % 4) {
    case 0: /* mantissa * 10^(-6..12) */
      v = (double)(next_rand() >> 11) / 9007199254740992.0 * pow(10, (double)((x >> 5) % 19) - 6);
      break;
    case 1: { /* exactly (k + 0.5) / 10^d, rounded to a double */
      double k = (double)(next_rand() % 100000000);
      v = (k + 0.5) / pow(10, d);
      break;
    }
    case 2: { /* one ulp either side of that */
      double k = (double)(next_rand() % 1000000);
      v = (k + 0.5) / pow(10, d);
      v = nextafter(v, (x >> 6) & 1 ? INFINITY : -INFINITY);
      break;
    }
    default: /* around the fast path's upper bound */
      v = ldexp(1.0, 40) / pow(10, d) * (0.999 + (double)(next_rand() % 2000) / 1e6);
      break;
    }
    if ((x >> 8) & 1) v = -v;
    rpt_num(b, sizeof b, v, d);
    ref_num(r, v, d);
    if (strcmp(b, r) != 0) {
      fprintf(stderr, "rpt_num(%.17g, %d) = \"%s\", want \"%s\"\n", v, d, b, r);
      bad++;
    }
  }
  CHECK(bad == 0);
}

/* ---- printf-free %g and JSON numbers (rpt_fmt.c) ----------------------------- */

/* What rpt_fmt_g and rpt_fmt_json must write: printf's own text. */
static void ref_g(char *out, double v, int prec) { snprintf(out, RPT_FMT_MAX, "%.*g", prec, v); }
static void ref_json(char *out, double v) {
  if (!isfinite(v)) strcpy(out, "null");
  else if (v == floor(v) && fabs(v) < 1e17) snprintf(out, RPT_FMT_MAX, "%.0f", v);
  else {
    /* the shortest of %.15g, %.16g, %.17g that reads back as v */
    for (int prec = 15; prec <= 17; prec++) {
      snprintf(out, RPT_FMT_MAX, "%.*g", prec, v);
      if (strtod(out, NULL) == v) break;
    }
  }
}

static int fmt_bad;
static void check_fmt(double v) {
  char b[RPT_FMT_MAX], r[RPT_FMT_MAX];
  static const int precs[] = { 15, 17, 1, 6, 16 };
  for (size_t i = 0; i < sizeof precs / sizeof precs[0] && fmt_bad < 8; i++) {
    size_t n = rpt_fmt_g(b, v, precs[i]);
    ref_g(r, v, precs[i]);
    if (strcmp(b, r) != 0 || n != strlen(r)) {
      fprintf(stderr, "rpt_fmt_g(%a, %d) = \"%s\", printf \"%s\"\n", v, precs[i], b, r);
      fmt_bad++;
    }
  }
  size_t n = rpt_fmt_json(b, v);
  ref_json(r, v);
  if (strcmp(b, r) != 0 || n != strlen(r)) {
    fprintf(stderr, "rpt_fmt_json(%a) = \"%s\", want \"%s\"\n", v, b, r);
    fmt_bad++;
  }
}

static void test_fmt(void) {
  char b[RPT_FMT_MAX];
  /* Exact expected text, independent of printf. */
  CHECK(rpt_fmt_g(b, 0.0, 15) == 1 && strcmp(b, "0") == 0);
  CHECK(rpt_fmt_g(b, -0.0, 15) == 2 && strcmp(b, "-0") == 0);
  rpt_fmt_g(b, 0.1, 17);
  CHECK(strcmp(b, "0.10000000000000001") == 0);
  rpt_fmt_g(b, 0.1, 15);
  CHECK(strcmp(b, "0.1") == 0);
  rpt_fmt_g(b, 1e15, 15);
  CHECK(strcmp(b, "1e+15") == 0);
  rpt_fmt_g(b, 123456789012345.0, 15);
  CHECK(strcmp(b, "123456789012345") == 0);
  rpt_fmt_g(b, 0.0001, 15);
  CHECK(strcmp(b, "0.0001") == 0);
  rpt_fmt_g(b, 0.00001, 15);
  CHECK(strcmp(b, "1e-05") == 0);
  rpt_fmt_g(b, -2.5e-300, 15);
  CHECK(strcmp(b, "-2.5e-300") == 0);
  rpt_fmt_g(b, 1.7976931348623157e308, 17);
  CHECK(strcmp(b, "1.7976931348623157e+308") == 0);
  rpt_fmt_g(b, 4.9406564584124654e-324, 17);
  CHECK(strcmp(b, "4.9406564584124654e-324") == 0);
  /* Exact decimal ties go to the even digit: 1234567890123455 and ...65 are
   * doubles (< 2^53); 15 digits keep ...45|5 -> ...46 and ...46|5 -> ...46. */
  rpt_fmt_g(b, 1234567890123455.0, 15);
  CHECK(strcmp(b, "1.23456789012346e+15") == 0);
  rpt_fmt_g(b, 1234567890123465.0, 15);
  CHECK(strcmp(b, "1.23456789012346e+15") == 0);
  rpt_fmt_g(b, 0.125, 2);
  CHECK(strcmp(b, "0.12") == 0);
  rpt_fmt_g(b, 0.375, 2);
  CHECK(strcmp(b, "0.38") == 0);
  /* A carry into a new digit: 9.9999999999999995 (the double below 10) -> 10. */
  rpt_fmt_g(b, nextafter(10.0, 0), 15);
  CHECK(strcmp(b, "10") == 0);
  rpt_fmt_g(b, nextafter(1e-4, 0), 15);
  CHECK(strcmp(b, "0.0001") == 0);
  rpt_fmt_g(b, nextafter(1e-4, 0), 17);
  CHECK(strcmp(b, "9.9999999999999991e-05") == 0);
  CHECK(rpt_fmt_json(b, NAN) == 4 && strcmp(b, "null") == 0);
  rpt_fmt_json(b, -INFINITY);
  CHECK(strcmp(b, "null") == 0);
  rpt_fmt_json(b, -0.0);
  CHECK(strcmp(b, "-0") == 0);
  rpt_fmt_json(b, 999999999999999.0);
  CHECK(strcmp(b, "999999999999999") == 0);
  rpt_fmt_json(b, 1e15);
  CHECK(strcmp(b, "1000000000000000") == 0);
  rpt_fmt_json(b, 12.3456);
  CHECK(strcmp(b, "12.3456") == 0);              /* not %.17g's 12.345599999999999 */
  rpt_fmt_json(b, 28.362894);
  CHECK(strcmp(b, "28.362894") == 0);            /* not 28.362894000000001 */
  rpt_fmt_json(b, 0.1 + 0.2);
  CHECK(strcmp(b, "0.30000000000000004") == 0);  /* 17 digits: 0.3 reads back as another double */
  rpt_fmt_json(b, 1.0 / 3);
  CHECK(strcmp(b, "0.3333333333333333") == 0);   /* 16 digits suffice */
  rpt_fmt_json(b, 1e17);
  CHECK(strcmp(b, "1e+17") == 0);
  rpt_fmt_json(b, 12345678901234566.0);          /* an integer below 1e17 (doubles are 2 apart there) */
  CHECK(strcmp(b, "12345678901234566") == 0);
  rpt_fmt_json(b, -7.0);
  CHECK(strcmp(b, "-7") == 0);

  /* Against printf: edge values, then random ones of every kind. */
  static const double edges[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 9.5, 99.5, 0.05, 0.15, 0.25, 1e-4, 1e-5,
    9.99999999999999e-5, 1e14, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23, 1e28, 1e29, 1e-11, 1e-12, 1e100, 1e-100,
    1e300, 1e-300, 2.2250738585072014e-308, 4.9406564584124654e-324, 1.7976931348623157e308,
    9007199254740992.0, 9007199254740993.0, 18014398509481984.0, 4503599627370495.5, 123456.789,
    999999999999999.9, 99999999999999.99, 0.999999999999999944, 1.00000000000000022, 5e-324,
    INFINITY, -INFINITY, NAN,
  };
  for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
    check_fmt(edges[i]);
    check_fmt(-edges[i]);
    if (isfinite(edges[i])) {
      check_fmt(nextafter(edges[i], INFINITY));
      check_fmt(nextafter(edges[i], -INFINITY));
    }
  }
  for (int i = 0; i < 300000 && fmt_bad < 8; i++) {
    uint64_t x = next_rand();
    double v;
    switch (x % 6) {
    case 0: { /* any finite bit pattern */
      uint64_t bits = next_rand();
      memcpy(&v, &bits, sizeof v);
      if (!isfinite(v)) v = 1.5;
      break;
    }
    case 1: /* report-like magnitudes: mantissa * 10^(-12..18) */
      v = (double)(next_rand() >> 11) / 9007199254740992.0 * pow(10, (double)((x >> 3) % 31) - 12);
      break;
    case 2: /* short decimals, as milliseconds and MB are: k / 10^(0..6) */
      v = (double)(next_rand() % 100000000) / pow(10, (double)((x >> 3) % 7));
      break;
    case 3: /* integers up to 2^53 and a bit beyond, where 15/16/17 digits tie */
      v = (double)(next_rand() >> (11 - (x >> 3) % 4));
      break;
    case 4: { /* decimal ties at 15 and 17 digits: (2k+1) * 5 * 10^e, e small */
      double k = (double)(next_rand() % 1000000000000000ull);
      v = (k * 10 + 5) * pow(10, (double)((x >> 3) % 5));
      break;
    }
    default: /* powers of ten and two, one ulp either side */
      v = (x >> 3) & 1 ? pow(10, (double)((x >> 4) % 60) - 30) : ldexp(1.0, (int)((x >> 4) % 200) - 100);
      v = nextafter(v, (x >> 10) & 1 ? INFINITY : -INFINITY);
      break;
    }
    if ((x >> 12) & 1) v = -v;
    check_fmt(v);
  }
  CHECK(fmt_bad == 0);

  /* The write buffer: text longer than the buffer, and many small writes. */
  FILE *f = tmpfile();
  CHECK(f != NULL);
  if (!f) return;
  static struct rpt_wbuf w;
  w.f = f;
  w.n = 0;
  for (int i = 0; i < 20000; i++) {
    rpt_wbuf_i64(&w, i - 10000);
    rpt_wbuf_char(&w, ',');
    rpt_wbuf_g(&w, i / 7.0, 15);
    rpt_wbuf_char(&w, '\n');
  }
  static char big[100000];
  memset(big, 'z', sizeof big - 1);
  rpt_wbuf_str(&w, big);
  rpt_wbuf_json_str(&w, "a\"b\\c\n");
  rpt_wbuf_csv_str(&w, "x,\"y\"");
  rpt_wbuf_flush(&w);
  long len = ftell(f);
  rewind(f);
  char *all = malloc((size_t)len + 1);
  CHECK(all && fread(all, 1, (size_t)len, f) == (size_t)len);
  if (all) {
    all[len] = 0;
    char want[64];
    CHECK(strncmp(all, "-10000,0\n-9999,0.142857142857143\n", 33) == 0);
    snprintf(want, sizeof want, "9999,%.15g\n", 19999 / 7.0);
    const char *z = strchr(all, 'z');
    CHECK(z && z - all >= (long)strlen(want) && strncmp(z - strlen(want), want, strlen(want)) == 0);
    CHECK(z && strspn(z, "z") == sizeof big - 1);
    CHECK(strcmp(all + len - strlen("\"a\\\"b\\\\c\\u000a\"\"x,\"\"y\"\"\""), "\"a\\\"b\\\\c\\u000a\"\"x,\"\"y\"\"\"") == 0);
    free(all);
  }
  fclose(f);
}

/* ---- ins_sort_doubles against qsort ------------------------------------------ */

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void test_sort(void) {
  enum { N = 5000 };
  static double a[N], b[N];
  for (int round = 0; round < 40; round++) {
    int n = round < 4 ? round * 30 : N - round * 17;   /* small ones take qsort's path */
    for (int i = 0; i < n; i++) {
      uint64_t x = next_rand();
      switch ((round + i) % 5) {
      case 0: a[i] = (double)(x % 100) / 10; break;                     /* many equal values */
      case 1: a[i] = -(double)(x % 1000) * 0.37; break;                 /* negatives */
      case 2: a[i] = ldexp((double)(x >> 12), (int)(x % 200) - 150); break;
      case 3: a[i] = (x & 1) ? 0.0 : 1e300; break;
      default: a[i] = (double)(x % 7) - 3; break;
      }
    }
    if (round % 10 == 9) a[n / 2] = -0.0;     /* qsort's own path */
    if (round % 10 == 8) a[n / 3] = NAN;
    memcpy(b, a, sizeof a[0] * (size_t)n);
    ins_sort_doubles(a, (size_t)n);
    qsort(b, (size_t)n, sizeof b[0], cmp_dbl);
    CHECK(memcmp(a, b, sizeof a[0] * (size_t)n) == 0);
  }
  double c[] = { 3, -1, 2.5, 2.5, -1e-300, 0, 7, 1e308, -1e308, 0.5 };
  ins_sort_doubles(c, 10);
  const double want[] = { -1e308, -1, -1e-300, 0, 0.5, 2.5, 2.5, 3, 7, 1e308 };
  CHECK(memcmp(c, want, sizeof c) == 0);
}

/* ---- aligned table ------------------------------------------------------------ */

static char *print_to_string(const struct rpt_table *t, int color) {
  FILE *f = tmpfile();
  if (!f) return NULL;
  rpt_table_print(t, f, color);
  long n = ftell(f);
  rewind(f);
  char *s = calloc((size_t)n + 1, 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) s[0] = 0;
  fclose(f);
  return s;
}

static void test_table(void) {
  const char *h[] = { "A", "Num", "Last" };
  struct rpt_table t;
  rpt_table_init(&t, 3, h);
  t.right[1] = 1;
  const char *r1[] = { "xx", "1,234.5", "end" }, *r2[] = { NULL, "7", NULL };
  CHECK(rpt_table_add(&t, r1) == 1);
  CHECK(rpt_table_add(&t, r2) == 2);
  CHECK(strcmp(rpt_table_cell(&t, 1, 1), "1,234.5") == 0 && strcmp(rpt_table_cell(&t, 2, 2), "") == 0);
  t.mark[2] = 1;
  /* Widths 2, 7, 4; the last (left-aligned) column is not padded. */
  const char *plain = "A       Num  Last\n"
                      "-----------------\n"
                      "xx  1,234.5  end\n"
                      "          7  \n";
  char *s = print_to_string(&t, 0);
  CHECK(s && strcmp(s, plain) == 0);
  free(s);
  s = print_to_string(&t, 1);
  CHECK(s && strcmp(s, "A       Num  Last\n-----------------\nxx  1,234.5  end\n\033[1;31m          7  \033[0m\n") == 0);
  free(s);
  /* Many rows: the arena and offsets grow and every cell stays intact. */
  for (int i = 0; i < 5000; i++) {
    char a[16], n[16];
    snprintf(a, sizeof a, "r%d", i);
    snprintf(n, sizeof n, "%d", i * 7);
    const char *row[] = { a, n, "z" };
    rpt_table_add(&t, row);
  }
  CHECK(t.nrows == 5002 && strcmp(rpt_table_cell(&t, 5002, 0), "r4999") == 0 &&
        strcmp(rpt_table_cell(&t, 5002, 1), "34993") == 0 && strcmp(rpt_table_cell(&t, 1, 0), "xx") == 0);
  rpt_table_free(&t);
}

/* ---- st_load: what each level reads ---------------------------------------- */

/* Process 100: GC 1 gen0 (no GCPerHeapHistory, but "Induced NotForced" from
 * the global history), GC 2 a background gen2 with per-heap history and both
 * BGC pauses, GC 3 incomplete. Process 200: one GC, none with history. */
static const char *const fixture_sql =
    "INSERT INTO traces (id, path, identity, event_count, gc_event_count, discarded, source, imported_ns) "
    "VALUES (1, 'fixture', 'f', 0, 0, 0, 'lttng', 0);"
    "INSERT INTO processes (trace_id, pid, name, event_count, gc_event_count) VALUES (1, 100, 'app', 0, 0), "
    "(1, 200, 'other', 0, 0);"
    "INSERT INTO gc_process_summary (trace_id, pid, clr_instance, gc_count, incomplete_count, induced_count, "
    "total_pause_msec, total_alloc_mb, total_promoted_mb, process_duration_msec, pct_pause_time, lost_events, "
    "max_heap_mb) VALUES (1, 100, 0, 2, 1, 0, 3.5, 10, 1, 100, 3.5, 0, 50), "
    "(1, 200, 0, 1, 0, 0, 1, 1, 0, 10, 10, 0, 5);"
    "INSERT INTO gcs (trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name, reason, "
    "reason_name, complete, pause_start_msec, pause_msec, suspend_msec, peak_mb, after_mb, gen0_mb, "
    "bgc_pause1_msec, bgc_pause2_msec, duration_msec, phh_count, total_alloc_mb, "
    "cr_initial_generation, cr_final_generation, cr_induced) VALUES "
    "(1, 100, 0, 1, 0, 0, 0, '0N', 0, 'AllocSmall', 1, 10, 1.5, 0.1, 20, 12, 4.25, NULL, NULL, 1.5, 0, 4, "
    " 0, 0, 2),"
    "(1, 100, 0, 2, 1, 2, 1, '2B', 0, 'AllocSmall', 1, 30, 2, 0.2, 50, 40, 3.5, 1.25, 0.75, 80, 1, 6, "
    " 2, 2, 0),"
    "(1, 100, 0, 3, 2, 1, 0, '1N', 5, 'OutOfSpaceSOH', 0, 120, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
    " NULL, 0, NULL, 0, 0, 0),"
    "(1, 200, 0, 1, 0, 0, 0, '0N', 0, 'AllocSmall', 1, 5, 1, 0.1, 5, 3, 1, NULL, NULL, 1, 0, 1, 1, 1, 0);";

static const struct st_proc *find_proc(const struct st_model *m, int pid) {
  for (int i = 0; i < m->nprocs; i++)
    if (m->procs[i].pid == pid) return &m->procs[i];
  return NULL;
}

static char *text_of(const struct st_model *m) {
  FILE *f = tmpfile();
  if (!f) return NULL;
  const struct st_text_opts to = {.wide = 0, .color = 0, .gcs = ST_GCS_ALL};
  st_write_text(f, m, &to);
  long n = ftell(f);
  rewind(f);
  char *s = calloc((size_t)n + 1, 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) s[0] = 0;
  fclose(f);
  return s;
}

/* ---- csv: against the writer it replaced --------------------------------------- */

/* The csv as st_write_csv wrote it before (one query, printf): the reference. */
static void ref_csv(FILE *o, sqlite3 *db, int pid) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db,
                         "SELECT (SELECT name FROM processes p WHERE p.trace_id = g.trace_id AND p.pid = g.pid "
                         "LIMIT 1) AS process_name, g.* FROM gcs g WHERE g.trace_id IN (SELECT id FROM "
                         "temp.input_traces) AND (?1 < 0 OR g.pid = ?1) ORDER BY g.trace_id, g.pid, g.list_index",
                         -1, &s, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_int(s, 1, pid);
  int n = sqlite3_column_count(s);
  for (int c = 0; c < n; c++) fprintf(o, "%s%s", c ? "," : "", sqlite3_column_name(s, c));
  fputc('\n', o);
  while (sqlite3_step(s) == SQLITE_ROW) {
    for (int c = 0; c < n; c++) {
      if (c) fputc(',', o);
      switch (sqlite3_column_type(s, c)) {
      case SQLITE_NULL: break;
      case SQLITE_INTEGER: fprintf(o, "%lld", (long long)sqlite3_column_int64(s, c)); break;
      case SQLITE_FLOAT: fprintf(o, "%.15g", sqlite3_column_double(s, c)); break;
      default: rpt_csv_str(o, (const char *)sqlite3_column_text(s, c));
      }
    }
    fputc('\n', o);
  }
  sqlite3_finalize(s);
}

static char *file_text(FILE *f, long *len) {
  fflush(f);
  *len = ftell(f);
  rewind(f);
  char *t = malloc((size_t)*len + 1);
  if (t && fread(t, 1, (size_t)*len, f) != (size_t)*len) {
    free(t);
    return NULL;
  }
  if (t) t[*len] = 0;
  return t;
}

/* 30,000 GCs over three processes of two traces (enough rows for the csv to
 * be written in two halves at once), list_index ties, NULLs, text to quote,
 * reals of every size: byte for byte the old writer's csv, whole and per pid. */
static void test_csv(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/test_report_csv.db", dir);
  unlink(path);
  sqlite3 *w;
  CHECK(sqlite3_open(path, &w) == SQLITE_OK);
  CHECK(sqlite3_exec(w, gcs_schema_sql_kept(), NULL, NULL, NULL) == SQLITE_OK);
  CHECK(sqlite3_exec(w,
                     "INSERT INTO traces (id, path, identity, event_count, gc_event_count, discarded, source, "
                     "imported_ns) VALUES (1, 'a', 'a', 0, 0, 0, 'lttng', 0), (2, 'b', 'b', 0, 0, 0, 'lttng', 0);"
                     "INSERT INTO processes (trace_id, pid, name, event_count, gc_event_count) VALUES "
                     "(1, 7, 'app, \"quoted\"', 0, 0), (1, 9, NULL, 0, 0), (2, 7, 'other', 0, 0);"
                     "INSERT INTO gc_process_summary (trace_id, pid, clr_instance, gc_count, incomplete_count, "
                     "induced_count, total_pause_msec, total_alloc_mb, total_promoted_mb, process_duration_msec, "
                     "pct_pause_time, lost_events) VALUES (1, 7, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0), "
                     "(1, 9, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0), (2, 7, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0);",
                     NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_stmt *ins;
  CHECK(sqlite3_prepare_v2(w,
                           "INSERT INTO gcs (trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name, "
                           "reason, reason_name, complete, incomplete_why, start_ns, pause_msec, peak_mb, "
                           "pct_pause_time, gen0_mb, suspend_begin_ns, restart_end_ns, bgc_prep_suspend_begin_ns, "
                           "bgc_prep_restart_end_ns) "
                           "VALUES (?1, ?2, 0, ?3, ?4, ?5, ?14, '0N', 0, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?15, ?16, ?17, ?18)",
                           -1, &ins, NULL) == SQLITE_OK);
  sqlite3_exec(w, "BEGIN", NULL, NULL, NULL);
  int bad_ins = 0;
  for (int i = 0; i < 30000; i++) {
    int proc = i % 3;  /* rows stored interleaved: the csv orders them */
    uint64_t x = next_rand();
    sqlite3_bind_int(ins, 1, proc == 2 ? 2 : 1);
    sqlite3_bind_int(ins, 2, proc == 1 ? 9 : 7);
    sqlite3_bind_int(ins, 3, i);
    sqlite3_bind_int(ins, 4, (i / 3) / 2);  /* every list_index twice */
    sqlite3_bind_int(ins, 5, (int)(x % 3));
    sqlite3_bind_text(ins, 6, x % 5 == 0 ? "Alloc,\"Small\"" : "AllocSmall", -1, SQLITE_STATIC);
    sqlite3_bind_int(ins, 7, (int)(x % 7 != 0));
    if (x % 7 == 0) sqlite3_bind_text(ins, 8, "trace ended\ninside it", -1, SQLITE_STATIC);
    else sqlite3_bind_null(ins, 8);
    sqlite3_bind_int64(ins, 9, (int64_t)(1700000000000000000ull + (x >> 20)));
    sqlite3_bind_double(ins, 10, (double)(x % 100000) / 1000.0);
    double big;
    uint64_t bits = next_rand();
    memcpy(&big, &bits, sizeof big);
    if (!isfinite(big)) big = -0.0;
    if (x % 11 == 0) sqlite3_bind_null(ins, 11);
    else sqlite3_bind_double(ins, 11, x % 2 ? big : (double)(x % 977) * 0.1);
    sqlite3_bind_double(ins, 12, (double)(x >> 11) / 9007199254740992.0 * 100);
    sqlite3_bind_double(ins, 13, x % 13 == 0 ? 1e15 * (double)(x % 50) : (double)(x % 4000) / 3.0);
    /* Pauses as the gc_pauses view sees them: SuspendEEBegin or else GCStart,
     * to RestartEEEnd; a background GC's final pause. */
    int64_t t = 1000000000 + (int64_t)i * 20000000;
    sqlite3_bind_int(ins, 14, (int)(x % 4 == 1));
    if (x % 4 == 0) sqlite3_bind_null(ins, 15);
    else sqlite3_bind_int64(ins, 15, t - (int64_t)(x % 1000));
    if (x % 9 == 0) sqlite3_bind_null(ins, 16);
    else sqlite3_bind_int64(ins, 16, t + (int64_t)(x % 30000000));
    sqlite3_bind_int64(ins, 17, t + 5000000);
    if (x % 8 == 5) sqlite3_bind_null(ins, 18);
    else sqlite3_bind_int64(ins, 18, t + 5000000 + (int64_t)(x % 3000000));
    if (sqlite3_step(ins) != SQLITE_DONE) bad_ins++;
    sqlite3_reset(ins);
  }
  sqlite3_exec(w, "COMMIT", NULL, NULL, NULL);
  CHECK(bad_ins == 0);
  sqlite3_finalize(ins);
  CHECK(sqlite3_exec(w, GCS_INDEX_SQL, NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(w);

  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = -1, .db_only = 1};
  sqlite3 *db = gcs_input_open(path, &io, &in, err, sizeof err) == 0 ? in.db : NULL;
  CHECK(db != NULL);
  if (!db) return;
  static const int pids[] = { -1, 7, 9, 12345 };
  for (size_t k = 0; k < sizeof pids / sizeof pids[0]; k++) {
    FILE *a = tmpfile(), *b = tmpfile();
    CHECK(a && b);
    if (!a || !b) break;
    CHECK(st_write_csv(a, db, pids[k]) == 0);
    ref_csv(b, db, pids[k]);
    long la, lb;
    char *ta = file_text(a, &la), *tb = file_text(b, &lb);
    CHECK(ta && tb && la == lb && memcmp(ta, tb, (size_t)la) == 0);
    if (k == 0) CHECK(la > 1000000);   /* the whole csv is there */
    free(ta);
    free(tb);
    fclose(a);
    fclose(b);
  }
  /* st_load's overhead figures, from the GC rows, are those of the view. */
  struct st_model m;
  CHECK(st_load(db, -1, ST_LOAD_TEXT, &m, err, sizeof err) == 0 && m.nprocs == 3);
  for (int i = 0; i < m.nprocs; i++) {
    struct st_proc copy = m.procs[i];
    CHECK(m.procs[i].ov.have && st_load_overhead(db, &copy) == 0);
    CHECK(memcmp(&m.procs[i].ov, &copy.ov, sizeof copy.ov) == 0);
  }
  st_free(&m);
  gcs_input_close(&in);
  unlink(path);
}

static void test_load(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/test_report_units.db", dir);
  unlink(path);
  sqlite3 *w;
  char *e = NULL;
  CHECK(sqlite3_open(path, &w) == SQLITE_OK);
  CHECK(sqlite3_exec(w, gcs_schema_sql_kept(), NULL, NULL, &e) == SQLITE_OK);
  CHECK(sqlite3_exec(w, fixture_sql, NULL, NULL, &e) == SQLITE_OK);
  CHECK(sqlite3_exec(w, GCS_INDEX_SQL, NULL, NULL, &e) == SQLITE_OK);
  if (e) fprintf(stderr, "fixture: %s\n", e);
  sqlite3_free(e);
  sqlite3_close(w);

  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = -1, .db_only = 1};
  sqlite3 *db = gcs_input_open(path, &io, &in, err, sizeof err) == 0 ? in.db : NULL;
  CHECK(db != NULL);
  if (!db) return;
  struct st_model narrow, all, procs;
  CHECK(st_load(db, -1, ST_LOAD_TEXT, &narrow, err, sizeof err) == 0);
  CHECK(st_load(db, -1, ST_LOAD_ALL, &all, err, sizeof err) == 0);
  CHECK(st_load(db, 100, ST_LOAD_PROCS, &procs, err, sizeof err) == 0);

  /* ST_LOAD_PROCS: the process and its summary, no GC. */
  CHECK(procs.nprocs == 1 && procs.procs[0].pid == 100 && procs.procs[0].ngcs == 0);
  CHECK(procs.procs[0].name && strcmp(procs.procs[0].name, "app") == 0 && procs.procs[0].gc_count == 2);

  const struct st_proc *n1 = find_proc(&narrow, 100), *a1 = find_proc(&all, 100), *n2 = find_proc(&narrow, 200);
  CHECK(narrow.nprocs == 2 && n1 && a1 && n2);
  if (n1 && a1 && n2) {
    CHECK(n1->ngcs == 3 && a1->ngcs == 3 && n2->ngcs == 1);
    /* Shown columns are read; the --wide-only ones stay NaN, except the BGC pauses. */
    CHECK(n1->gcs[0].v[STC_pause_msec] == 1.5 && n1->gcs[0].v[STC_peak_mb] == 20);
    CHECK(isnan(n1->gcs[0].v[STC_gen0_mb]) && a1->gcs[0].v[STC_gen0_mb] == 4.25);
    CHECK(n1->gcs[1].v[STC_bgc_pause1_msec] == 1.25 && n1->gcs[1].v[STC_bgc_pause2_msec] == 0.75);
    CHECK(n1->gcs[1].duration_msec == 80 && n1->gcs[1].type == 1 && n1->gcs[1].gen == 2);
    CHECK(strcmp(n1->gcs[2].reason, "OutOfSpaceSOH") == 0 && strcmp(n1->gcs[2].gen_name, "1N") == 0);
    CHECK(!n1->gcs[2].complete && isnan(n1->gcs[2].v[STC_pause_msec]));
    /* Condemned reasons: read for the process with per-heap history, on every
     * GC (GC 1's comes from the global history alone). */
    CHECK(n1->has_phh && n1->gcs[0].cr[4] == 2 && n1->gcs[1].cr[0] == 2 && n1->gcs[1].cr[1] == 2);
    CHECK(memcmp(n1->gcs[0].cr, a1->gcs[0].cr, sizeof n1->gcs[0].cr) == 0);
    CHECK(memcmp(n1->gcs[1].cr, a1->gcs[1].cr, sizeof n1->gcs[1].cr) == 0);
    CHECK(!n2->has_phh);
    /* Derived figures: complete GCs 1.5 and 2 ms. */
    CHECK(n1->roll[0].count == 2 && n1->roll[0].total_pause == 3.5 && n1->kinds[ST_K_BGC].count == 1);
    CHECK(n1->roll[0].total_alloc == 10); /* sum of total_alloc_mb over complete GCs: 4 + 6 */
  }
  /* The overhead figures from the loaded GC rows are those of the gc_pauses view. */
  for (int i = 0; i < all.nprocs; i++) {
    struct st_proc copy = all.procs[i];
    CHECK(st_load_overhead(db, &copy) == 0);
    const struct st_overhead *x = &all.procs[i].ov, *y = &copy.ov;
    CHECK(x->have == y->have);
    CHECK(memcmp(x, y, sizeof *x) == 0);
  }
  /* The 120-column text is the same from either load. */
  char *tn = text_of(&narrow), *ta = text_of(&all);
  CHECK(tn && ta && strcmp(tn, ta) == 0);
  CHECK(tn && strstr(tn, "Condemned reasons for GCs") && strstr(tn, "NotForced"));
  free(tn);
  free(ta);
  st_free(&narrow);
  st_free(&all);
  st_free(&procs);
  sqlite3_close(db);
  unlink(path);
}

/* rpt_fit_name: a name that fits is itself; a longer one is "..." and its
 * last width-3 characters (counted by hand below), cut at a UTF-8
 * character boundary, and never more than cap-1 bytes. */
static void test_fit_name(void) {
  char b[64];
  CHECK_STR(rpt_fit_name(b, sizeof b, "System.String", 13), "System.String");
  CHECK_STR(rpt_fit_name(b, sizeof b, "System.String", 40), "System.String");
  /* 35 characters into 20: "..." and the last 17, "n.Metadata.TypeName" minus "n." */
  CHECK_STR(rpt_fit_name(b, sizeof b, "System.Reflection.Metadata.TypeName", 20), "...Metadata.TypeName");
  CHECK_STR(rpt_fit_name(b, sizeof b, "System.String", 12), "...em.String");
  CHECK_STR(rpt_fit_name(b, sizeof b, "abcdef", 2), "...f");   /* width < 4 is 4 */
  /* "é" is 2 bytes, 1 column: "Aé.Type" is 7 columns; into 6: "..." + "ype"... */
  CHECK_STR(rpt_fit_name(b, sizeof b, "A\xc3\xa9.Type", 6), "...ype");
  CHECK_STR(rpt_fit_name(b, sizeof b, "A\xc3\xa9.Type", 8), "A\xc3\xa9.Type");
  CHECK_STR(rpt_fit_name(b, sizeof b, "ABC\xc3\xa9.\xc3\xa9", 5), "....\xc3\xa9");   /* 6 columns, keep 2 */
  CHECK_STR(rpt_fit_name(b, sizeof b, "ABC\xc3\xa9.\xc3\xa9", 6), "ABC\xc3\xa9.\xc3\xa9");
  CHECK(rpt_text_cols("A\xc3\xa9\xc3\xa9.Type") == 8);
  char s[8];   /* a small buffer: cut whole characters only */
  CHECK_STR(rpt_fit_name(s, sizeof s, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 10), "\xc3\xa9\xc3\xa9\xc3\xa9");
}

int main(int argc, char **argv) {
  const double x[] = { 1, 2, 3, 4, 10 };
  CHECK(fabs(st_percentile(x, 5, 50) - 3) < 1e-12);
  CHECK(fabs(st_percentile(x, 5, 95) - 8.8) < 1e-12);
  CHECK(fabs(st_percentile(x, 5, 99) - 9.76) < 1e-12);
  CHECK(fabs(st_percentile(x, 1, 99) - 1) < 1e-12);
  CHECK(isnan(st_percentile(x, 0, 50)));
  test_num();
  test_fit_name();
  test_fmt();
  test_sort();
  test_table();
  test_load(argc > 1 ? argv[1] : ".");
  test_csv(argc > 1 ? argv[1] : ".");
  return check_done();
}
