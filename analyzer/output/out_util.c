/* out_util.c — see gcs_output.h: CSV/JSON/HTML escaping
 * (number text: out_num.c; the aligned table: out_table.c). */
#include "gcs_output.h"
#include "gcs_text.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rpt_csv_field(const char *s, void (*put)(void *ctx, const char *p, size_t n), void *ctx) {
  if (!s) return;
  size_t n = strcspn(s, ",\"\r\n");
  if (!s[n]) {
    put(ctx, s, n);
    return;
  }
  put(ctx, "\"", 1);
  while (*s) {
    n = strcspn(s, "\"");
    put(ctx, s, n);
    s += n;
    if (*s == '"') {
      put(ctx, "\"\"", 2);
      s++;
    }
  }
  put(ctx, "\"", 1);
}

static void put_file(void *f, const char *p, size_t n) { fwrite(p, 1, n, f); }

void rpt_csv_str(FILE *out, const char *s) { rpt_csv_field(s, put_file, out); }

struct mem_sink { char *p; size_t n; };

static void put_mem(void *ctx, const char *p, size_t n) {
  struct mem_sink *m = ctx;
  memcpy(m->p + m->n, p, n);
  m->n += n;
}

size_t rpt_csv_mem(char *dst, const char *s) {
  struct mem_sink m = { dst, 0 };
  rpt_csv_field(s, put_mem, &m);
  return m.n;
}

void rpt_json_str(FILE *out, const char *s) {
  if (!s) {
    fputs("null", out);
    return;
  }
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    char e[GCS_TEXT_JSON_ESC_MAX];
    fwrite(e, 1, gcs_text_json_escape(*p, e), out);
  }
  fputc('"', out);
}

/* "null" for NaN and infinities, else the shortest exact form (gcs_output.h)
 * (the text comes from rpt_fmt_json, which writes exactly that). */
void rpt_json_num(FILE *out, double v) {
  char b[RPT_FMT_MAX];
  size_t n = rpt_fmt_json(b, v);
  fwrite(b, 1, n, out);
}


void rpt_html_str(FILE *out, const char *s) {
  if (!s) return;
  for (; *s; s++) {
    switch (*s) {
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '&': fputs("&amp;", out); break;
    case '"': fputs("&quot;", out); break;
    default:
      /* A control character (a process name's escape sequence, say): not
       * HTML text, and raw on a terminal it drives it. U+FFFD instead. */
      if (((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r') || *s == 0x7f)
        fputs("&#xFFFD;", out);
      else
        fputc(*s, out);
    }
  }
}

FILE *rpt_pager_open(void) {
  const char *cmd = getenv("GCSCOPE_PAGER");
  if (!cmd) cmd = getenv("PAGER");
  if (!cmd) cmd = "less -FRX";
  if (!*cmd || strcmp(cmd, "cat") == 0) return NULL;
  fflush(stdout);
  signal(SIGPIPE, SIG_IGN);
  FILE *f = popen(cmd, "w");
  if (!f) signal(SIGPIPE, SIG_DFL);
  return f;
}

void rpt_pager_close(FILE *pager) {
  pclose(pager);
  signal(SIGPIPE, SIG_DFL);
}

double rpt_nice_step(double range, int n) {
  if (!(range > 0) || n < 1) return 1;
  double raw = range / n, mag = pow(10, floor(log10(raw))), f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

double rpt_svg_axes(FILE *o, double x0, double y0, double x1, double y1, double xmin, double xmax, double ymax,
                    const char *yunit) {
  return rpt_svg_axes_x(o, x0, y0, x1, y1, xmin, xmax, ymax, "ms", yunit);
}

double rpt_svg_axes_x(FILE *o, double x0, double y0, double x1, double y1, double xmin, double xmax, double ymax,
                      const char *xunit, const char *yunit) {
  double ystep = rpt_nice_step(ymax, 4), ytop = ceil(ymax / ystep - 1e-9) * ystep;
  if (!(ytop > 0)) ytop = ystep;
  for (int k = 0; k * ystep <= ytop * (1 + 1e-9); k++) {
    double v = k * ystep, y = y1 - v / ytop * (y1 - y0);
    fprintf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
               "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%g</text>\n",
            x0, y, x1, y, x0 - 4, y + 3, v);
  }
  double span = xmax - xmin, xstep = rpt_nice_step(span, 6);
  int times = !strcmp(xunit, "ms"), secs = times && xstep >= 1000;
  for (double v = ceil(xmin / xstep - 1e-9) * xstep; v <= xmax + xstep * 1e-9; v += xstep) {
    double x = x0 + (v - xmin) / span * (x1 - x0), lab = secs ? v / 1000 : v;
    if (fabs(lab) < 1e-9 * (secs ? xstep / 1000 : xstep)) lab = 0;   /* never "-0" */
    fprintf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
               "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>"
               "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">%g %s</text>\n",
            x, y0, x, y1, x, y1, x, y1 + 4, x, y1 + 15, lab, secs ? "s" : xunit);
  }
  fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>"
             "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n",
          x0, y1, x1, y1, x0, y0, x0, y1);
  fprintf(o, "<text x=\"4\" y=\"%.1f\" font-size=\"10\">%s</text>\n", y0 - 6, yunit);
  return ytop;
}

size_t rpt_text_cols(const char *s) {
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) n += (*p & 0xC0) != 0x80;
  return n;
}

const char *rpt_printable(char *buf, size_t cap, const char *name) {
  const unsigned char *p = (const unsigned char *)name;
  while (*p >= 0x20 && *p < 0x7f) p++;
  return *p ? gcs_text_printable(name, strlen(name), buf, cap) : name;
}

char *rpt_fit_name(char *buf, size_t cap, const char *name, size_t width) {
  if (!cap) return buf;
  char safe[4096];
  name = rpt_printable(safe, sizeof safe, name);
  if (width < 4) width = 4;
  size_t cols = rpt_text_cols(name);
  const char *from = name;
  const char *lead = "";
  if (cols > width) {
    /* skip the first cols - (width - 3) characters */
    size_t skip = cols - (width - 3);
    const unsigned char *p = (const unsigned char *)name;
    for (size_t k = 0; *p;) {
      if ((*p & 0xC0) != 0x80) {
        if (k == skip) break;
        k++;
      }
      p++;
    }
    from = (const char *)p;
    lead = "...";
  }
  size_t n = (size_t)snprintf(buf, cap, "%s%s", lead, from);
  if (n >= cap && cap > 1) { /* cut short at cap-1 bytes: drop a last character cut in two */
    size_t end = cap - 1, i = end - 1;
    while (i > 0 && ((unsigned char)buf[i] & 0xC0) == 0x80) i--;
    unsigned char lead = (unsigned char)buf[i];
    size_t len = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (i + len > end) buf[i] = 0;
  }
  return buf;
}
