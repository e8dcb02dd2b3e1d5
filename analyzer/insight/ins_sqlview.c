/* ins_sqlview.c — argument parsing and table printing for SQL-backed views. */
#include "ins_sqlview.h"

#include "gcs_cli.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { O_TRACE, O_PID, O_TOP, O_BUCKET, O_ALL, O_WIDE, O_FORMAT, O_DB, O_N };

int ins_view_args(const char *cmd, const char *synopsis, unsigned extra, int argc, char **argv,
                  struct ins_view_opts *o) {
  *o = (struct ins_view_opts){.pid = -1, .trace = -1, .top = 20, .bucket_s = 1, .fmt = RPT_TEXT};
  const struct gcs_cli_opt all[O_N] = {
    [O_TRACE] = GCS_OPT_TRACE,
    [O_PID] = GCS_OPT_PID,
    [O_TOP] = { "top", 0, GCS_CLI_INT, 1, 1e9, "N", "rows of the ranked tables (default 20)" },
    [O_BUCKET] = { "bucket", 0, GCS_CLI_DOUBLE, 0.001, 1e9, "SEC", "time bucket in seconds (default 1)" },
    [O_ALL] = { "all", 0, GCS_CLI_FLAG, 0, 0, NULL, "also every row, not only the summary" },
    [O_WIDE] = { "wide", 'w', GCS_CLI_FLAG, 0, 0, NULL, "text: whole type names (a long one is cut to fit 80 columns: \"...\" and its end)" },
    [O_FORMAT] = GCS_OPT_FORMAT("text (default) or csv"),
    [O_DB] = GCS_OPT_DB,
  };
  /* The options this command takes, in table order; index -> option kind. */
  struct gcs_cli_opt opts[O_N + 1];
  int kind[O_N], n = 0;
  for (int k = 0; k < O_N; k++) {
    int common = k == O_TRACE || k == O_PID || k == O_FORMAT || k == O_DB;
    unsigned bit = k == O_TOP ? INS_VIEW_TOP : k == O_ALL ? INS_VIEW_ALL : k == O_WIDE ? INS_VIEW_WIDE : INS_VIEW_BUCKET;
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
    case O_WIDE: o->wide = 1; break;
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

/* One cell's text: NULL (a share of a 0 total, a name not in the trace) is
 * RPT_UNKNOWN in text, an empty field in CSV (as sqlite3 -csv). */
static const char *cell_text(const struct ins_view_opts *o, sqlite3_stmt *st, int c, char buf[64]) {
  switch (sqlite3_column_type(st, c)) {
  case SQLITE_NULL: return o->fmt == RPT_TEXT ? RPT_UNKNOWN : "";
  case SQLITE_INTEGER: snprintf(buf, 64, "%lld", (long long)sqlite3_column_int64(st, c)); return buf;
  case SQLITE_FLOAT: snprintf(buf, 64, "%.3f", sqlite3_column_double(st, c)); return buf;
  default: {
    const char *t = (const char *)sqlite3_column_text(st, c);
    return t ? t : "";
  }
  }
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

/* The text table's rows, kept until every width is known. */
struct vtext {
  char *s;            /* cells back to back, NUL-terminated */
  size_t len, cap;
  size_t *off;        /* nrows * ncols offsets into s */
  long long *key;     /* nrows * 2: trace_id, pid */
  size_t nrows, rcap;
  int ncols;
};

static int vtext_add(struct vtext *t, const char *const *cells, long long trace, long long pid) {
  if (t->nrows == t->rcap) {
    size_t c = t->rcap ? 2 * t->rcap : 64;
    size_t *o = realloc(t->off, c * (size_t)t->ncols * sizeof *o);
    if (!o) return -1;
    t->off = o;
    long long *k = realloc(t->key, c * 2 * sizeof *k);
    if (!k) return -1;
    t->key = k;
    t->rcap = c;
  }
  for (int c = 0; c < t->ncols; c++) {
    char safe[4096];   /* a name from the trace: no control characters on the terminal */
    const char *cell = rpt_printable(safe, sizeof safe, cells[c]);
    size_t n = strlen(cell) + 1;
    if (t->len + n > t->cap) {
      size_t cap = t->cap ? t->cap : 4096;
      while (t->len + n > cap) cap *= 2;
      char *s = realloc(t->s, cap);
      if (!s) return -1;
      t->s = s;
      t->cap = cap;
    }
    memcpy(t->s + t->len, cell, n);
    t->off[t->nrows * (size_t)t->ncols + (size_t)c] = t->len;
    t->len += n;
  }
  t->key[2 * t->nrows] = trace;
  t->key[2 * t->nrows + 1] = pid;
  t->nrows++;
  return 0;
}

static const char *vtext_cell(const struct vtext *t, size_t r, int c) {
  return t->s + t->off[r * (size_t)t->ncols + (size_t)c];
}

/* A column name broken after its '_' into lines of at most w columns (a
 * piece longer than w goes whole) in out; returns the line count. */
static int name_lines(const char *name, int w, char out[][64], int max) {
  int n = 0;
  const char *p = name;
  while (*p && n < max) {
    /* take as many '_'-ended pieces as fit in w (at least one) */
    const char *end = p, *q = p;
    for (;;) {
      const char *u = strchr(q, '_');
      const char *next = u ? u + 1 : q + strlen(q);
      if (end != p && next - p > w) break;
      end = next;
      if (!u) break;
      q = next;
    }
    snprintf(out[n++], 64, "%.*s", (int)(end - p), p);
    p = end;
  }
  return n;
}

/* The longest '_'-ended piece of a column name. */
static int longest_piece(const char *name) {
  int best = 0;
  for (const char *p = name; *p;) {
    const char *u = strchr(p, '_');
    int n = u ? (int)(u + 1 - p) : (int)strlen(p);
    if (n > best) best = n;
    p += n;
  }
  return best;
}

/* Text: the leading trace_id and pid columns become a "pid P, trace T" line
 * whenever they change; numbers are right-aligned, at least 7 wide (their
 * name's width, or their widest value's); text columns (as the first row has
 * them) go last, left-aligned. The table fits 80 columns: when the names
 * make it wider, each name is broken after a '_' over several header lines;
 * a name in the last column is cut to the room left, "..." and its end
 * (rpt_fit_name; --wide: whole). CSV: every column as the query has it. */
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
    for (int c = 0; c < nc; c++) {
      if (c) putchar(',');
      rpt_csv_str(stdout, sqlite3_column_name(st, c));
    }
    printf("\n");
    for (; rc == SQLITE_ROW; rc = sqlite3_step(st), rows++) {
      for (int c = 0; c < nc; c++) {
        if (c) putchar(',');
        rpt_csv_str(stdout, cell_text(o, st, c, buf));
      }
      printf("\n");
    }
  } else {
    int group = nc > 2 && strcmp(sqlite3_column_name(st, 0), "trace_id") == 0 &&
                strcmp(sqlite3_column_name(st, 1), "pid") == 0;
    int order[MAX_COLS], width[MAX_COLS], text[MAX_COLS], n = 0;
    const char *names[MAX_COLS];
    for (int pass = 0; pass < 2; pass++)
      for (int c = group ? 2 : 0; c < nc; c++) {
        int is_text = rc == SQLITE_ROW && sqlite3_column_type(st, c) == SQLITE_TEXT;
        if (is_text != pass) continue;
        order[n] = c;
        text[n] = is_text;
        names[n] = sqlite3_column_name(st, c);
        n++;
      }
    struct vtext t = { .ncols = n };
    for (; rc == SQLITE_ROW; rc = sqlite3_step(st), rows++) {
      char bufs[MAX_COLS][64];
      const char *cells[MAX_COLS];
      for (int k = 0; k < n; k++) cells[k] = cell_text(o, st, order[k], bufs[k]);
      if (vtext_add(&t, cells, group ? sqlite3_column_int64(st, 0) : 0, group ? sqlite3_column_int64(st, 1) : 0)) {
        fprintf(stderr, "gcscope %s: out of memory\n", cmd);
        free(t.s), free(t.off), free(t.key);
        sqlite3_finalize(st);
        return -1;
      }
    }
    /* widths: the widest value, at least 7 for a number, and the name. When
     * that passes 80 columns (with the last text column's widest value), the
     * columns that gain most are narrowed to their widest value and the
     * longest '_'-ended piece of their name, which goes over several header
     * lines, until it fits. */
    int last_text = n > 0 && text[n - 1];
    int vw[MAX_COLS], small[MAX_COLS], split[MAX_COLS], total = 0, target = GCS_TEXT_WIDTH;
    for (int k = 0; k < n; k++) {
      vw[k] = 0;
      for (size_t r = 0; r < t.nrows; r++) {
        int w = (int)rpt_text_cols(vtext_cell(&t, r, k));
        if (w > vw[k]) vw[k] = w;
      }
      int nw = (int)strlen(names[k]), piece = longest_piece(names[k]);
      width[k] = vw[k] > nw ? vw[k] : nw;
      if (!text[k] && width[k] < 7) width[k] = 7;
      small[k] = vw[k] > piece ? vw[k] : piece;
      split[k] = 0;
      if (k + 1 == n && last_text) target -= 1 + (o->wide || vw[k] < nw ? nw : vw[k]);
      else total += 1 + width[k];
    }
    while (total > target) {
      int best = -1;
      for (int k = 0; k < n - last_text; k++)
        if (!split[k] && width[k] > small[k] && (best < 0 || width[k] - small[k] > width[best] - small[best])) best = k;
      if (best < 0) break;
      total -= width[best] - small[best];
      width[best] = small[best];
      split[best] = 1;
    }
    int room = GCS_TEXT_WIDTH;
    for (int k = 0; k + 1 < n; k++) room -= 1 + width[k];
    room -= 1;
    /* header lines: names broken after '_' (split), bottom-aligned */
    char hl[MAX_COLS][4][64];
    int nh[MAX_COLS], lines = 1;
    for (int k = 0; k < n; k++) {
      if (split[k]) nh[k] = name_lines(names[k], width[k], hl[k], 4);
      else nh[k] = 1, snprintf(hl[k][0], 64, "%s", names[k]);
      if (nh[k] > lines) lines = nh[k];
    }
    gcs_cli_paragraph(stdout, "", title, 2);
    char fit[1024];
    for (size_t r = 0; r < t.nrows || (r == 0 && t.nrows == 0); r++) {
      int first = r == 0;
      if (group && t.nrows && (first || t.key[2 * r] != t.key[2 * r - 2] || t.key[2 * r + 1] != t.key[2 * r - 1])) {
        printf("%spid %lld, trace %lld\n", first ? "" : "\n", t.key[2 * r + 1], t.key[2 * r]);
        first = 1;
      }
      if (first) {
        for (int l = 0; l < lines; l++) {
          int end = n;   /* trailing blanks left out */
          while (end > 0 && l < lines - nh[end - 1]) end--;
          for (int k = 0; k < end; k++) {
            const char *h = l >= lines - nh[k] ? hl[k][l - (lines - nh[k])] : "";
            if (text[k] && k + 1 == n) printf(" %s", h);
            else printf(text[k] ? " %-*s" : " %*s", width[k], h);
          }
          printf("\n");
        }
      }
      if (!t.nrows) break;
      for (int k = 0; k < n; k++) {
        const char *v = vtext_cell(&t, r, k);
        if (text[k] && k + 1 == n) printf(" %s", o->wide ? v : rpt_fit_name(fit, sizeof fit, v, (size_t)room));
        else printf(text[k] ? " %-*s" : " %*s", width[k] + (int)(strlen(v) - rpt_text_cols(v)), v);
      }
      printf("\n");
    }
    free(t.s);
    free(t.off);
    free(t.key);
  }
  if (rc != SQLITE_DONE) {
    fprintf(stderr, "gcscope %s: database: %s\n", cmd, sqlite3_errmsg(db));
    rows = -1;
  }
  sqlite3_finalize(st);
  if (o->fmt == RPT_TEXT) printf("\n");
  return rows;
}
