/* out_format.c — the one `--format` parser and the insight tables' number
 * cell (see gcs_output.h). */
#include "gcs_output.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const format_names[] = {
  [RPT_TEXT] = "text", [RPT_CSV] = "csv", [RPT_JSON] = "json", [RPT_HTML] = "html",
  [RPT_PERFETTO] = "perfetto", [RPT_CHROME_JSON] = "chrome-json",
};
#define NFORMATS ((int)(sizeof format_names / sizeof format_names[0]))

int rpt_format_parse(const char *s, unsigned allowed, char *err, size_t errlen) {
  for (int f = 0; f < NFORMATS; f++)
    if ((allowed & RPT_F(f)) && strcmp(s, format_names[f]) == 0) return f;
  /* "--format: expected a, b or c, not 'x'" */
  int n = 0, left = 0;
  for (int f = 0; f < NFORMATS; f++) left += (allowed & RPT_F(f)) != 0;
  size_t o = (size_t)snprintf(err, errlen, "--format: expected ");
  for (int f = 0; f < NFORMATS && o < errlen; f++) {
    if (!(allowed & RPT_F(f))) continue;
    const char *sep = n == 0 ? "" : n == left - 1 ? " or " : ", ";
    o += (size_t)snprintf(err + o, errlen - o, "%s%s", sep, format_names[f]);
    n++;
  }
  if (o < errlen) snprintf(err + o, errlen - o, ", not '%s'", s);
  return -1;
}

void rpt_num3(FILE *f, enum rpt_format fmt, double v) {
  if (isnan(v) || isinf(v)) {
    if (fmt == RPT_TEXT) fputs(RPT_UNKNOWN, f);
    else if (fmt == RPT_JSON) fputs("null", f);
    return;
  }
  fprintf(f, "%.3f", v);
}
