/* rpt_util.c — see rpt_util.h: opening a database, CSV/JSON/HTML escaping
 * (number text: rpt_num.c; the aligned table: rpt_table.c). */
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
  /* NOMUTEX: the connection is used by one thread only, and per-call mutex
   * traffic was a tenth of the time to read 100,000 GC rows. */
  int flags = (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
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
