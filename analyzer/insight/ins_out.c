/* ins_out.c — number/JSON output and option helpers (see ins_out.h). */
#include "ins_out.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ins_parse_format(const char *s) {
  if (strcmp(s, "text") == 0) return INS_TEXT;
  if (strcmp(s, "csv") == 0) return INS_CSV;
  if (strcmp(s, "json") == 0) return INS_JSON;
  return -1;
}

void ins_num(FILE *f, enum ins_format fmt, double v) {
  if (isnan(v) || isinf(v)) {
    if (fmt == INS_TEXT) fputs("-", f);
    else if (fmt == INS_JSON) fputs("null", f);
    return;
  }
  fprintf(f, "%.3f", v);
}

void ins_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}
