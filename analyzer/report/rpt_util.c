/* rpt_util.c — see rpt_util.h: CSV/JSON/HTML escaping
 * (number text: rpt_num.c; the aligned table: rpt_table.c). */
#include "rpt_util.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rpt_csv_str(FILE *out, const char *s) {
  if (!s) return;
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

void rpt_json_str(FILE *out, const char *s) {
  if (!s) {
    fputs("null", out);
    return;
  }
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
    else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
    else fputc(*p, out);
  }
  fputc('"', out);
}

void rpt_json_num(FILE *out, double v) {
  if (!isfinite(v)) fputs("null", out);
  else if (v == floor(v) && fabs(v) < 1e15) fprintf(out, "%.0f", v);
  else fprintf(out, "%.17g", v);
}

void rpt_html_str(FILE *out, const char *s) {
  if (!s) return;
  for (; *s; s++) {
    switch (*s) {
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '&': fputs("&amp;", out); break;
    case '"': fputs("&quot;", out); break;
    default: fputc(*s, out);
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
