/* rpt_util.c — see rpt_util.h. */
#include "rpt_util.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gcs_db.h"

static int is_sqlite_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char hdr[16] = { 0 };
  size_t n = fread(hdr, 1, sizeof hdr, f);
  fclose(f);
  return n == 16 && memcmp(hdr, "SQLite format 3", 16) == 0;
}

sqlite3 *rpt_open(const char *path, int allow_import, int writable, char *err, size_t errlen) {
  struct stat st;
  if (stat(path, &st) != 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return NULL;
  }
  const char *db_path = path;
  if (!S_ISREG(st.st_mode) || !is_sqlite_file(path)) {
    if (!allow_import || (S_ISREG(st.st_mode) && st.st_size == 0)) {
      snprintf(err, errlen, "%s: not a gcscope database", path);
      return NULL;
    }
    const char *paths[1] = { path };
    struct gcs_import_opts o = { .out = stderr, .quiet = 0 };
    char ierr[512];
    fprintf(stderr, "importing %s into %s\n", path, GCS_DB_DEFAULT_PATH);
    if (gcs_import_paths(GCS_DB_DEFAULT_PATH, paths, 1, &o, ierr, sizeof ierr) != 0) {
      snprintf(err, errlen, "%s", ierr);
      return NULL;
    }
    db_path = GCS_DB_DEFAULT_PATH;
  }
  sqlite3 *db = NULL;
  int flags = writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
  if (sqlite3_open_v2(db_path, &db, flags, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "%s: %s", db_path, db ? sqlite3_errmsg(db) : "cannot open");
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_stmt *q = NULL;
  int ok = sqlite3_prepare_v2(db,
                              "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
                              "name IN ('traces', 'processes', 'events', 'gcs', 'gc_process_summary')",
                              -1, &q, NULL) == SQLITE_OK &&
           sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 5;
  sqlite3_finalize(q);
  if (!ok) {
    snprintf(err, errlen, "%s: not a gcscope database", db_path);
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 2000);
  return db;
}

char *rpt_num(char *buf, size_t n, double v, int decimals) {
  if (isnan(v)) {
    snprintf(buf, n, "NaN");
    return buf;
  }
  if (isinf(v)) {
    snprintf(buf, n, v > 0 ? "Infinity" : "-Infinity");
    return buf;
  }
  char raw[64];
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

void rpt_table_init(struct rpt_table *t, int ncols, const char *const *headers) {
  memset(t, 0, sizeof *t);
  t->ncols = ncols;
  t->right = calloc((size_t)ncols, 1);
  t->nrows = -1;
  rpt_table_add(t, headers);
}

int rpt_table_add(struct rpt_table *t, const char *const *cells) {
  int row = t->nrows + 1;
  if (row + 1 > t->cap) {
    int nc = t->cap ? t->cap * 2 : 64;
    char **c = realloc(t->cells, (size_t)nc * (size_t)t->ncols * sizeof *c);
    unsigned char *m = realloc(t->mark, (size_t)nc);
    if (!c || !m) {
      if (c) t->cells = c;
      if (m) t->mark = m;
      return -1;
    }
    t->cells = c;
    t->mark = m;
    t->cap = nc;
  }
  for (int i = 0; i < t->ncols; i++)
    t->cells[(size_t)row * (size_t)t->ncols + (size_t)i] = strdup(cells[i] ? cells[i] : "");
  t->mark[row] = 0;
  t->nrows = row;
  return row;
}

void rpt_table_print(const struct rpt_table *t, FILE *out, int color) {
  int *w = calloc((size_t)t->ncols, sizeof *w);
  if (!w) return;
  for (int r = 0; r <= t->nrows; r++)
    for (int c = 0; c < t->ncols; c++) {
      int l = (int)strlen(t->cells[(size_t)r * (size_t)t->ncols + (size_t)c]);
      if (l > w[c]) w[c] = l;
    }
  for (int r = 0; r <= t->nrows; r++) {
    int hl = color && t->mark[r];
    if (hl) fputs("\033[1;31m", out);
    for (int c = 0; c < t->ncols; c++) {
      const char *s = t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];
      int last = c == t->ncols - 1;
      if (t->right[c]) fprintf(out, "%*s", w[c], s);
      else if (last) fputs(s, out);
      else fprintf(out, "%-*s", w[c], s);
      if (!last) fputs("  ", out);
    }
    if (hl) fputs("\033[0m", out);
    fputc('\n', out);
    if (r == 0) {
      int total = 0;
      for (int c = 0; c < t->ncols; c++) total += w[c] + (c ? 2 : 0);
      for (int i = 0; i < total; i++) fputc('-', out);
      fputc('\n', out);
    }
  }
  free(w);
}

void rpt_table_free(struct rpt_table *t) {
  if (t->cells)
    for (int r = 0; r <= t->nrows; r++)
      for (int c = 0; c < t->ncols; c++) free(t->cells[(size_t)r * (size_t)t->ncols + (size_t)c]);
  free(t->cells);
  free(t->right);
  free(t->mark);
  memset(t, 0, sizeof *t);
}

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
