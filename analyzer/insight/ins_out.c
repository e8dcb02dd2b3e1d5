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

int ins_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char **val) {
  const char *a = argv[*i];
  size_t nl = strlen(name);
  if (strncmp(a, name, nl) != 0) return 0;
  if (a[nl] == '=') {
    *val = a + nl + 1;
    return 1;
  }
  if (a[nl] != '\0') return 0;
  if (*i + 1 >= argc) {
    fprintf(stderr, "gcscope %s: %s needs a value\n", cmd, name);
    return -1;
  }
  *val = argv[++*i];
  return 1;
}

int ins_opt_double(const char *cmd, const char *name, const char *val, double *out) {
  char *end;
  errno = 0;
  double v = strtod(val, &end);
  if (end == val || *end || errno || !(v >= 0) || isinf(v)) {
    fprintf(stderr, "gcscope %s: %s: not a non-negative number: '%s'\n", cmd, name, val);
    return -1;
  }
  *out = v;
  return 0;
}

int ins_opt_long(const char *cmd, const char *name, const char *val, long *out) {
  char *end;
  errno = 0;
  long v = strtol(val, &end, 10);
  if (end == val || *end || errno || v < 0) {
    fprintf(stderr, "gcscope %s: %s: not a non-negative integer: '%s'\n", cmd, name, val);
    return -1;
  }
  *out = v;
  return 0;
}
