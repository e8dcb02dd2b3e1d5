/* ins_sqlview.c — argument parsing and table printing for SQL-backed views. */
#include "ins_sqlview.h"

#include "gcs_cli.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { O_TRACE, O_PID, O_TOP, O_BUCKET, O_ALL, O_FORMAT, O_DB, O_N };

int ins_view_args(const char *cmd, const char *synopsis, unsigned extra, int argc, char **argv,
                  struct ins_view_opts *o) {
  *o = (struct ins_view_opts){.pid = -1, .trace = -1, .top = 20, .bucket_s = 1, .fmt = RPT_TEXT};
  const struct gcs_cli_opt all[O_N] = {
    [O_TRACE] = GCS_OPT_TRACE,
    [O_PID] = GCS_OPT_PID,
    [O_TOP] = { "top", 0, GCS_CLI_INT, 1, 1e9, "N", "rows of the ranked tables (default 20)" },
    [O_BUCKET] = { "bucket", 0, GCS_CLI_DOUBLE, 0.001, 1e9, "SEC", "time bucket in seconds (default 1)" },
    [O_ALL] = { "all", 0, GCS_CLI_FLAG, 0, 0, NULL, "also every row, not only the summary" },
    [O_FORMAT] = GCS_OPT_FORMAT("text (default) or csv"),
    [O_DB] = GCS_OPT_DB,
  };
  /* The options this command takes, in table order; index -> option kind. */
  struct gcs_cli_opt opts[O_N + 1];
  int kind[O_N], n = 0;
  for (int k = 0; k < O_N; k++) {
    int common = k == O_TRACE || k == O_PID || k == O_FORMAT || k == O_DB;
    unsigned bit = k == O_TOP ? INS_VIEW_TOP : k == O_ALL ? INS_VIEW_ALL : INS_VIEW_BUCKET;
    if (!common && !(extra & bit)) continue;
    kind[n] = k;
    opts[n++] = all[k];
  }
  opts[n] = (struct gcs_cli_opt){0};
  const struct gcs_cli_spec spec = { .cmd = cmd, .usage = synopsis, .opts = opts };
  struct gcs_cli p;
  gcs_cli_init(&p, &spec, argc, argv);
  for (int i; (i = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (i == GCS_CLI_HELP) { gcs_cli_usage(&spec, stdout); return 1; }
    if (i == GCS_CLI_BAD) { gcs_cli_fail("%s", p.err); return 2; }
    switch (kind[i]) {
    case O_TRACE: o->trace = (long)p.ival; break;
    case O_PID: o->pid = (long)p.ival; break;
    case O_TOP: o->top = (long)p.ival; break;
    case O_BUCKET: o->bucket_s = p.dval; break;
    case O_ALL: o->all = 1; break;
    case O_DB: o->db_path = p.value; break;
    case O_FORMAT: {
      char ferr[160];
      int f = rpt_format_parse(p.value, RPT_F(RPT_TEXT) | RPT_F(RPT_CSV), ferr, sizeof ferr);
      if (f < 0) { gcs_cli_fail("%s", ferr); return 2; }
      o->fmt = (enum rpt_format)f;
      break;
    }
    }
  }
  if (p.optind < argc) o->input = argv[p.optind];
  if (p.optind + 1 < argc) { gcs_cli_fail("one DB or TRACE only ('%s')", argv[p.optind + 1]); return 2; }
  if (!o->input) { gcs_cli_usage(&spec, stderr); return 2; }
  return 0;
}

/* One cell's text: NULL is "-" in text (not applicable), empty in CSV. */
static const char *cell_text(const struct ins_view_opts *o, sqlite3_stmt *st, int c, char buf[64]) {
  switch (sqlite3_column_type(st, c)) {
  case SQLITE_NULL: return o->fmt == RPT_TEXT ? "-" : "";
  case SQLITE_INTEGER: snprintf(buf, 64, "%lld", (long long)sqlite3_column_int64(st, c)); return buf;
  case SQLITE_FLOAT: snprintf(buf, 64, "%.3f", sqlite3_column_double(st, c)); return buf;
  default: {
    const char *t = (const char *)sqlite3_column_text(st, c);
    return t ? t : "";
  }
  }
}

static void csv_cell(const char *s) {
  if (strpbrk(s, ",\"\n")) {
    putchar('"');
    for (; *s; s++) {
      if (*s == '"') putchar('"');
      putchar(*s);
    }
    putchar('"');
  } else fputs(s, stdout);
}

int ins_view_any(const char *cmd, sqlite3 *db, const char *sql, const struct ins_view_opts *o) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "gcscope %s: database: %s\n", cmd, sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_int64(st, 1, o->pid);
  int any = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) != 0;
  sqlite3_finalize(st);
  return any;
}

#define MAX_COLS 32

/* Text: the leading trace_id and pid columns become a "pid P, trace T" line
 * whenever they change; numbers are right-aligned, at least 7 wide (their
 * name's width); text columns (as the first row has them) go last,
 * left-aligned, so that a long type name does not push the numbers out of
 * 80 columns. CSV: every column as the query has it. */
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
  if (nc > MAX_COLS) nc = MAX_COLS;
  int rc = sqlite3_step(st);
  char buf[64];
  long rows = 0;
  if (o->fmt == RPT_CSV) {
    for (int c = 0; c < nc; c++) printf("%s%s", c ? "," : "", sqlite3_column_name(st, c));
    printf("\n");
    for (; rc == SQLITE_ROW; rc = sqlite3_step(st), rows++) {
      for (int c = 0; c < nc; c++) {
        if (c) putchar(',');
        csv_cell(cell_text(o, st, c, buf));
      }
      printf("\n");
    }
  } else {
    int group = nc > 2 && strcmp(sqlite3_column_name(st, 0), "trace_id") == 0 &&
                strcmp(sqlite3_column_name(st, 1), "pid") == 0;
    int order[MAX_COLS], width[MAX_COLS], text[MAX_COLS], n = 0;
    for (int pass = 0; pass < 2; pass++)
      for (int c = group ? 2 : 0; c < nc; c++) {
        int is_text = rc == SQLITE_ROW && sqlite3_column_type(st, c) == SQLITE_TEXT;
        if (is_text != pass) continue;
        order[n] = c;
        text[n] = is_text;
        width[n] = (int)strlen(sqlite3_column_name(st, c));
        if (!is_text && width[n] < 7) width[n] = 7;
        n++;
      }
    gcs_cli_paragraph(stdout, "", title, 2);
    long long cur_trace = 0, cur_pid = 0;
    for (int first = 1; rc == SQLITE_ROW; rc = sqlite3_step(st), rows++) {
      if (group && (first || sqlite3_column_int64(st, 0) != cur_trace || sqlite3_column_int64(st, 1) != cur_pid)) {
        cur_trace = sqlite3_column_int64(st, 0);
        cur_pid = sqlite3_column_int64(st, 1);
        printf("%spid %lld, trace %lld\n", first ? "" : "\n", cur_pid, cur_trace);
        first = 1;
      }
      if (first) {
        for (int k = 0; k < n; k++) {
          const char *name = sqlite3_column_name(st, order[k]);
          if (text[k] && k + 1 == n) printf(" %s", name);
          else printf(text[k] ? " %-*s" : " %*s", width[k], name);
        }
        printf("\n");
        first = 0;
      }
      for (int k = 0; k < n; k++) {
        const char *v = cell_text(o, st, order[k], buf);
        if (text[k] && k + 1 == n) printf(" %s", v);
        else printf(text[k] ? " %-*s" : " %*s", width[k], v);
      }
      printf("\n");
    }
    if (rows == 0) { /* the header alone */
      for (int k = 0; k < n; k++) printf(" %*s", width[k], sqlite3_column_name(st, order[k]));
      printf("\n");
    }
  }
  if (rc != SQLITE_DONE) {
    fprintf(stderr, "gcscope %s: database: %s\n", cmd, sqlite3_errmsg(db));
    rows = -1;
  }
  sqlite3_finalize(st);
  if (o->fmt == RPT_TEXT) printf("\n");
  return rows;
}
