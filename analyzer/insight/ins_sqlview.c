/* ins_sqlview.c — argument parsing and table printing for SQL-backed views. */
#include "ins_sqlview.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ins_view_args(const char *cmd, const char *usage, int argc, char **argv, struct ins_view_opts *o) {
  *o = (struct ins_view_opts){.pid = -1, .trace = -1, .top = 20, .bucket_s = 1, .fmt = INS_TEXT};
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    int r;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) { fprintf(stderr, "%s", usage); return 1; }
    if ((r = ins_opt(cmd, argc, argv, &i, "--pid", &v))) {
      if (r < 0 || ins_opt_long(cmd, "--pid", v, &o->pid)) return 2;
    } else if ((r = ins_opt(cmd, argc, argv, &i, "--trace", &v))) {
      if (r < 0 || ins_opt_long(cmd, "--trace", v, &o->trace)) return 2;
    } else if ((r = ins_opt(cmd, argc, argv, &i, "--top", &v))) {
      if (r < 0 || ins_opt_long(cmd, "--top", v, &o->top)) return 2;
    } else if ((r = ins_opt(cmd, argc, argv, &i, "--bucket", &v))) {
      if (r < 0 || ins_opt_double(cmd, "--bucket", v, &o->bucket_s)) return 2;
      if (!(o->bucket_s >= 0.001)) { fprintf(stderr, "gcscope %s: --bucket: at least 0.001 s\n", cmd); return 2; }
    } else if ((r = ins_opt(cmd, argc, argv, &i, "--format", &v))) {
      int f = r < 0 ? -1 : ins_parse_format(v);
      if (f < 0 || f == INS_JSON) { fprintf(stderr, "gcscope %s: --format: text or csv\n", cmd); return 2; }
      o->fmt = (enum ins_format)f;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "gcscope %s: unknown option '%s'\n", cmd, argv[i]);
      return 2;
    } else if (!o->input) o->input = argv[i];
    else { fprintf(stderr, "gcscope %s: one DB or TRACE only ('%s')\n", cmd, argv[i]); return 2; }
  }
  if (!o->input) { fprintf(stderr, "%s", usage); return 2; }
  return 0;
}

static void cell(const struct ins_view_opts *o, sqlite3_stmt *st, int c, int width) {
  char buf[64];
  const char *s = buf;
  switch (sqlite3_column_type(st, c)) {
  case SQLITE_NULL: s = o->fmt == INS_TEXT ? "-" : ""; break;
  case SQLITE_INTEGER: snprintf(buf, sizeof buf, "%lld", (long long)sqlite3_column_int64(st, c)); break;
  case SQLITE_FLOAT: snprintf(buf, sizeof buf, "%.3f", sqlite3_column_double(st, c)); break;
  default: s = (const char *)sqlite3_column_text(st, c); break;
  }
  if (o->fmt == INS_CSV) {
    if (strpbrk(s, ",\"\n")) {
      putchar('"');
      for (; *s; s++) { if (*s == '"') putchar('"'); putchar(*s); }
      putchar('"');
    } else fputs(s, stdout);
  } else {
    printf(c == 0 ? "  %*s" : " %*s", width, s);
  }
}

long ins_view_print(const char *cmd, sqlite3 *db, const char *title, const char *sql, const struct ins_view_opts *o) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "gcscope %s: database: %s\n", cmd, sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_int64(st, 1, o->pid);
  sqlite3_bind_int64(st, 2, o->top);
  sqlite3_bind_int64(st, 3, (sqlite3_int64)(o->bucket_s * 1e9));
  int nc = sqlite3_column_count(st);
  int width[32];
  for (int c = 0; c < nc && c < 32; c++) {
    width[c] = (int)strlen(sqlite3_column_name(st, c));
    if (width[c] < 10) width[c] = 10;
  }
  if (o->fmt == INS_TEXT) printf("%s\n", title);
  for (int c = 0; c < nc; c++) {
    if (o->fmt == INS_CSV) printf("%s%s", c ? "," : "", sqlite3_column_name(st, c));
    else printf(c == 0 ? "  %*s" : " %*s", width[c < 32 ? c : 31], sqlite3_column_name(st, c));
  }
  printf("\n");
  long rows = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    for (int c = 0; c < nc; c++) {
      if (o->fmt == INS_CSV && c) putchar(',');
      cell(o, st, c, width[c < 32 ? c : 31]);
    }
    printf("\n");
    rows++;
  }
  if (rc != SQLITE_DONE) {
    fprintf(stderr, "gcscope %s: database: %s\n", cmd, sqlite3_errmsg(db));
    rows = -1;
  }
  sqlite3_finalize(st);
  if (o->fmt == INS_TEXT) printf("\n");
  return rows;
}
