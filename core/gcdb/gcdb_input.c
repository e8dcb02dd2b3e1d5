/* gcdb_input.c — the one input policy of the reports (see gcs_gcdb.h):
 * open a database, or import a trace into the database file first, and
 * record the traces the report covers in temp.input_traces. */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>

#include "gcs_db.h"
#include "gcs_gcdb.h"

static int is_sqlite_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char hdr[16] = {0};
  size_t n = fread(hdr, 1, sizeof hdr, f);
  fclose(f);
  return n == 16 && memcmp(hdr, "SQLite format 3", 16) == 0;
}

/* A database whose first 16 bytes ("SQLite format 3") are damaged: the
 * rest of its header still is SQLite's (the payload fractions 64, 32, 32 at
 * bytes 21..23, file format versions 1 or 2 at 18 and 19), or the name says
 * database. Such a file is reported as a corrupt database, not imported as
 * a trace (which would say "not a trace" and create ./gcscope.db). */
static int looks_like_damaged_db(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  unsigned char h[24] = {0};
  size_t n = fread(h, 1, sizeof h, f);
  fclose(f);
  if (n == sizeof h && (h[18] == 1 || h[18] == 2) && (h[19] == 1 || h[19] == 2) && h[21] == 64 && h[22] == 32 &&
      h[23] == 32)
    return 1;
  const char *dot = strrchr(path, '.');
  return dot && (strcmp(dot, ".db") == 0 || strcmp(dot, ".sqlite") == 0 || strcmp(dot, ".sqlite3") == 0);
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen) {
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK) return 0;
  snprintf(err, errlen, "database: %s", sqlite3_errmsg(db));
  return -1;
}

/* Imports the trace at path into db_path; the ids of its traces (new or
 * already there) into *ids (malloc'ed). */
static int import_trace(const char *path, const char *db_path, FILE *progress, int64_t **ids, int *nids, char *err,
                        size_t errlen) {
  /* A database this call creates is removed again when the import commits
   * nothing: a report on a bad trace leaves no ./gcscope.db behind. */
  struct stat st;
  int absent = stat(db_path, &st) != 0 && errno == ENOENT;
  sqlite3 *db = gcs_db_open(db_path, err, errlen);
  if (!db) {
    if (absent) unlink(db_path);
    return -1;
  }
  struct gcs_import_totals *tot = malloc(sizeof *tot);
  if (!tot) {
    sqlite3_close(db);
    if (absent) unlink(db_path);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  const char *paths[1] = {path};
  struct gcs_import_opts o = {.out = progress};
  if (isatty(STDERR_FILENO)) o.progress = gcs_import_progress_line;   /* a long import shows where it is */
  /* On a terminal, say where the import goes before a long wait; otherwise
   * the engine's summary line after it is enough, and a bad trace gets only
   * its one error line. */
  if (isatty(fileno(progress))) fprintf(progress, "importing %s into %s\n", path, db_path);
  int rc = gcs_import_paths_db(db, paths, 1, &o, tot, err, errlen);
  sqlite3_close(db);
  if (rc != 0 && absent && tot->traces_imported == 0 && tot->traces_skipped == 0) unlink(db_path);
  if (rc == 0 && tot->ntrace_ids > GCS_IMPORT_MAX_IDS) {
    snprintf(err, errlen, "%s: %d traces, over %d: import it, report with --trace ID", path, tot->ntrace_ids,
             GCS_IMPORT_MAX_IDS);
    rc = -1;
  }
  if (rc == 0) {
    *nids = tot->ntrace_ids;
    *ids = malloc(sizeof **ids * (size_t)(*nids ? *nids : 1));
    if (*ids) memcpy(*ids, tot->trace_ids, sizeof **ids * (size_t)*nids);
    else {
      snprintf(err, errlen, "out of memory");
      rc = -1;
    }
  }
  free(tot);
  return rc;
}

static int has_gcscope_tables(sqlite3 *db, int *yes, char *err, size_t errlen) {
  sqlite3_stmt *q = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') AND "
                         "name IN ('traces', 'processes', 'events', 'gcs', 'gc_process_summary')",
                         -1, &q, NULL) != SQLITE_OK ||
      sqlite3_step(q) != SQLITE_ROW) {
    snprintf(err, errlen, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(q);
    return -1;
  }
  *yes = sqlite3_column_int(q, 0) == 5;
  sqlite3_finalize(q);
  return 0;
}

/* temp.input_traces := ids (or every trace when ids is NULL), then narrowed
 * to only_trace when >= 0. */
static int fill_scope(sqlite3 *db, const int64_t *ids, int nids, int have_tables, int64_t only_trace,
                      const char *what, char *err, size_t errlen) {
  if (exec(db, "CREATE TEMP TABLE input_traces(id INTEGER PRIMARY KEY)", err, errlen)) return -1;
  if (!have_tables) return 0;
  if (!ids) {
    if (exec(db, "INSERT INTO temp.input_traces SELECT id FROM main.traces", err, errlen)) return -1;
  } else {
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO temp.input_traces VALUES(?)", -1, &s, NULL) != SQLITE_OK) {
      snprintf(err, errlen, "database: %s", sqlite3_errmsg(db));
      return -1;
    }
    for (int i = 0; i < nids; i++) {
      sqlite3_bind_int64(s, 1, ids[i]);
      sqlite3_step(s);
      sqlite3_reset(s);
    }
    sqlite3_finalize(s);
  }
  if (only_trace < 0) return 0;
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "DELETE FROM temp.input_traces WHERE id <> ?", -1, &s, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_int64(s, 1, only_trace);
  sqlite3_step(s);
  sqlite3_finalize(s);
  int left = 0;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM temp.input_traces", -1, &s, NULL) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW)
    left = sqlite3_column_int(s, 0);
  sqlite3_finalize(s);
  if (!left) {
    snprintf(err, errlen, "--trace %" PRId64 ": no such trace in %s", only_trace, what);
    return -1;
  }
  return 0;
}

int gcs_input_open(const char *arg, const struct gcs_input_opts *opts, struct gcs_input *in, char *err,
                   size_t errlen) {
  static const struct gcs_input_opts defaults = {.trace_id = -1};
  if (!opts) opts = &defaults;
  memset(in, 0, sizeof *in);
  struct stat st;
  if (stat(arg, &st) != 0) {
    if (errno == ENOENT) snprintf(err, errlen, "%s: no such file or directory", arg);
    else if (errno == EACCES) snprintf(err, errlen, "%s: permission denied", arg);
    else snprintf(err, errlen, "%s: %s", arg, strerror(errno));
    return -1;
  }
  /* A file that cannot be read is neither a database nor a trace: said as
   * such (it was taken for a trace, imported into ./gcscope.db, and the
   * error named that file instead). */
  if (!S_ISDIR(st.st_mode) && access(arg, R_OK) != 0 && (errno == EACCES || errno == EPERM)) {
    snprintf(err, errlen, "%s: permission denied", arg);
    return -1;
  }
  int64_t *ids = NULL;
  int nids = 0;
  int is_db = S_ISREG(st.st_mode) && (is_sqlite_file(arg) || (opts->allow_empty && st.st_size == 0));
  if (is_db) {
    snprintf(in->db_path, sizeof in->db_path, "%s", arg);
  } else {
    if (opts->db_only || (S_ISREG(st.st_mode) && st.st_size == 0)) {
      snprintf(err, errlen, "%s: not a gcscope database", arg);
      return -1;
    }
    if (S_ISREG(st.st_mode) && looks_like_damaged_db(arg)) {
      snprintf(err, errlen, "%s: corrupt database (its SQLite header is damaged or missing)", arg);
      return -1;
    }
    snprintf(in->db_path, sizeof in->db_path, "%s", opts->db_path ? opts->db_path : GCS_DB_DEFAULT_PATH);
    if (import_trace(arg, in->db_path, opts->progress ? opts->progress : stderr, &ids, &nids, err, errlen))
      return -1;
    in->imported = 1;
  }
  /* NOMUTEX: the connection is used by one thread only, and per-call mutex
   * traffic was a tenth of the time to read 100,000 GC rows. */
  int flags = (opts->writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(in->db_path, &db, flags, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "%s: %s", in->db_path, db ? sqlite3_errmsg(db) : "cannot open");
    goto fail;
  }
  /* Before anything reads the schema: an import may hold the write lock. */
  sqlite3_busy_timeout(db, GCS_INPUT_BUSY_MS);
  gcs_db_harden(db);
  gcs_db_functions(db);
  int have = 0;
  if (has_gcscope_tables(db, &have, err, errlen)) {
    char why[256];
    int code = sqlite3_errcode(db);
    snprintf(why, sizeof why, "%s", err);
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
      snprintf(err, errlen, "%s: busy: an import is writing; retry or wait", in->db_path);
    else if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
      snprintf(err, errlen, "%s: corrupt database (%s)", in->db_path, why);
    else
      snprintf(err, errlen, "%s: not a gcscope database (%s)", in->db_path, why);
    goto fail;
  }
  if (!have && !opts->allow_empty) {
    snprintf(err, errlen, "%s: not a gcscope database", in->db_path);
    goto fail;
  }
  char view[128], why[256];
  int damaged = have && gcs_db_views_read(db, view, sizeof view, why, sizeof why) != 0;
  if (damaged && !opts->damaged_ok) {
    snprintf(err, errlen, "%s: damaged database: %s (%s)", in->db_path, view, why);
    goto fail;
  }
  /* (A damaged database is opened as it is: the update would make its
   * dropped tables again, empty.) */
  if (have && !damaged && !gcs_db_is_current(db)) {
    /* Made by an older gcscope: add the newer columns (empty until its
     * traces are imported again), as an import would. */
    sqlite3_close(db);
    db = gcs_db_open(in->db_path, err, errlen);
    if (!db) {
      char why[256];
      snprintf(why, sizeof why, "%s", err);
      snprintf(err, errlen, "%s: made by an older gcscope and cannot be brought up to date (%s)", in->db_path, why);
      goto fail;
    }
    sqlite3_close(db);
    db = NULL;
    if (sqlite3_open_v2(in->db_path, &db, flags, NULL) != SQLITE_OK) {
      snprintf(err, errlen, "%s: %s", in->db_path, db ? sqlite3_errmsg(db) : "cannot open");
      goto fail;
    }
    sqlite3_busy_timeout(db, GCS_INPUT_BUSY_MS);
    gcs_db_harden(db);
    gcs_db_functions(db);
  }
  if (fill_scope(db, ids, nids, have, opts->trace_id, in->imported ? arg : in->db_path, err, errlen)) goto fail;
  free(ids);
  in->db = db;
  return 0;
fail:
  free(ids);
  sqlite3_close(db);
  return -1;
}

/* One warning line per trace the query returns (id, path, a number): fmt
 * takes the prefix, the id, the path and the number. */
static int warn_traces(sqlite3 *db, const char *sql, const char *fmt, FILE *out, const char *prefix) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return 0;
  int n = 0;
  for (; sqlite3_step(st) == SQLITE_ROW; n++) {
    const unsigned char *path = sqlite3_column_text(st, 1);
    fprintf(out, fmt, prefix, (long long)sqlite3_column_int64(st, 0), path ? (const char *)path : "?",
            (long long)sqlite3_column_int64(st, 2));
  }
  sqlite3_finalize(st);
  return n;
}

int gcs_input_open_report(const char *cmd, const char *arg, const struct gcs_input_opts *opts,
                          struct gcs_input *in) {
  char err[1200], prefix[160];
  snprintf(prefix, sizeof prefix, "gcscope %s: ", cmd);
  if (gcs_input_open(arg, opts, in, err, sizeof err)) {
    fprintf(stderr, "%s%s\n", prefix, err);
    return -1;
  }
  gcs_input_warn_discarded(in, stderr, prefix);
  return 0;
}

int gcs_input_warn_discarded(const struct gcs_input *in, FILE *out, const char *prefix) {
  if (!in->db) return 0;
  int n = 0;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(in->db, "SELECT id, path, discarded, packet_gaps FROM traces WHERE discarded > 0 AND "
                         GCS_IN_INPUT("id") " ORDER BY id", -1, &st, NULL) == SQLITE_OK) {
    for (; sqlite3_step(st) == SQLITE_ROW; n++) {
      const unsigned char *path = sqlite3_column_text(st, 1);
      char lost[256];
      fprintf(out, "%swarning: trace %lld (%s): %s: nearby GCs incomplete, not in figures\n", prefix, (long long)sqlite3_column_int64(st, 0), path ? (const char *)path : "?",
              gcs_lost_text(sqlite3_column_int64(st, 2),
                            sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3), lost,
                            sizeof lost));
    }
    sqlite3_finalize(st);
  }
  n += warn_traces(in->db, "SELECT id, path, truncated_at FROM traces WHERE truncated_at IS NOT NULL AND "
                   GCS_IN_INPUT("id") " ORDER BY id",
                   "%swarning: trace %lld (%s): cut at byte %lld, open GCs incomplete\n", out, prefix);
  struct gcs_overlap *ov;
  int nov;
  if (gcs_input_overlaps(in->db, &ov, &nov) == 0)
    for (int i = 0; i < nov; i++, n++) gcs_overlap_note(out, prefix, &ov[i]);
  free(ov);
  return n;
}

int gcs_input_overlaps(sqlite3 *db, struct gcs_overlap **out, int *n) {
  *out = NULL;
  *n = 0;
  /* Two traces at least, or the self-join below (every GC of the input
   * against every other) can find nothing: skip it. */
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT count(*) >= 2 FROM (SELECT 1 FROM temp.input_traces LIMIT 2)", -1, &st, NULL) !=
      SQLITE_OK)
    return -1;
  int several = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  if (!several) return 0;
  static const char sql[] =
      "WITH k AS (SELECT g.trace_id, g.pid, g.gc_index, g.start_ns, coalesce(p.host, '') AS host FROM gcs g "
      "  LEFT JOIN processes p ON p.trace_id = g.trace_id AND p.pid = g.pid WHERE " GCS_IN_INPUT("g.trace_id") ") "
      "SELECT a.trace_id, b.trace_id, a.pid, min(a.gc_index), max(a.gc_index), count(*) FROM k a JOIN k b "
      "ON b.pid = a.pid AND b.gc_index = a.gc_index AND b.start_ns = a.start_ns AND b.host = a.host "
      "AND b.trace_id > a.trace_id GROUP BY a.trace_id, b.trace_id, a.pid ORDER BY 1, 2, 3";
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  int cap = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (*n == cap) {
      cap = cap ? 2 * cap : 4;
      struct gcs_overlap *v = realloc(*out, (size_t)cap * sizeof *v);
      if (!v) break;
      *out = v;
    }
    struct gcs_overlap *o = &(*out)[(*n)++];
    o->trace_a = sqlite3_column_int64(st, 0);
    o->trace_b = sqlite3_column_int64(st, 1);
    o->pid = sqlite3_column_int(st, 2);
    o->first_gc = (uint32_t)sqlite3_column_int64(st, 3);
    o->last_gc = (uint32_t)sqlite3_column_int64(st, 4);
    o->count = sqlite3_column_int64(st, 5);
  }
  sqlite3_finalize(st);
  return 0;
}

void gcs_overlap_note(FILE *out, const char *prefix, const struct gcs_overlap *o) {
  fprintf(out, "%snote: traces %lld and %lld both hold GCs #%u-#%u of pid %d (%lld GCs): use --trace ID\n",
          prefix, (long long)o->trace_a, (long long)o->trace_b, o->first_gc, o->last_gc, o->pid, (long long)o->count);
}

void gcs_input_close(struct gcs_input *in) {
  sqlite3_close(in->db);
  in->db = NULL;
}
