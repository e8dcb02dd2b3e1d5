/*
 * recon_db.h — the reconstruction's tables in an in-memory database, and
 * one-value queries on them (tests only).
 */
#ifndef RECON_DB_H
#define RECON_DB_H

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcs_tables.h"

/* A new in-memory database holding the schema gcs_recon_store writes to. */
static inline sqlite3 *recon_db_new(void) {
  sqlite3 *db = NULL;
  char *err = NULL;
  CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
  CHECK(sqlite3_exec(db, gcs_schema_sql_kept(), NULL, NULL, &err) == SQLITE_OK);
  if (err) fprintf(stderr, "schema: %s\n", err);
  sqlite3_free(err);
  return db;
}

/* The first column of SQL's first row as an integer; -1 (and a line on
 * stderr) when the query fails or the value is not an integer. */
static inline int64_t recon_q1(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_type(st, 0) == SQLITE_INTEGER)
    v = sqlite3_column_int64(st, 0);
  else
    fprintf(stderr, "query failed or not an integer: %s: %s\n", sql, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return v;
}

/* The same as a double; NaN when the query fails or the value is NULL. */
static inline double recon_qd(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  double v = NAN;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_type(st, 0) != SQLITE_NULL)
    v = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* Every row of the n tables named, as text: each value's storage class and
 * bytes (a REAL's 64 bits in hex), each table's rows then "-- table".
 * ORDER is an ORDER BY list ("1, 2, 3"), or NULL for the rows as a SELECT
 * without ORDER BY reads them (a rowid table: in rowid order, as sqlite3's
 * .dump). Freed by the caller. */
static inline char *recon_dump_tables(sqlite3 *db, const char *const *tables, size_t ntables, const char *order) {
  size_t cap = 1 << 20, n = 0;
  char *out = malloc(cap);
  CHECK(out != NULL);
  for (size_t i = 0; i < ntables; i++) {
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT * FROM %s%s%s", tables[i], order ? " ORDER BY " : "", order ? order : "");
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(st); c++) {
        char cell[128];
        int t = sqlite3_column_type(st, c);
        if (t == SQLITE_FLOAT) {
          double v = sqlite3_column_double(st, c);
          uint64_t bits;
          memcpy(&bits, &v, sizeof bits);
          snprintf(cell, sizeof cell, "F%016llx|", (unsigned long long)bits);
        } else if (t == SQLITE_INTEGER) {
          snprintf(cell, sizeof cell, "I%lld|", (long long)sqlite3_column_int64(st, c));
        } else if (t == SQLITE_NULL) {
          snprintf(cell, sizeof cell, "N|");
        } else {
          snprintf(cell, sizeof cell, "T%.100s|", (const char *)sqlite3_column_text(st, c));
        }
        size_t len = strlen(cell);
        if (n + len + 64 > cap) {
          cap *= 2;
          out = realloc(out, cap);
          CHECK(out != NULL);
        }
        memcpy(out + n, cell, len);
        n += len;
      }
      out[n++] = '\n';
    }
    n += (size_t)snprintf(out + n, cap - n, "-- %s\n", tables[i]);
    sqlite3_finalize(st);
  }
  out[n] = 0;
  return out;
}

/* Every row of the tables the reconstruction writes (recon_dump_tables),
 * ordered by the first five columns (the ids first). Freed by the caller. */
static inline char *recon_dump(sqlite3 *db) {
  static const char *const tables[] = { "gcs", "gc_gens", "gc_heaps", "gc_heap_gens", "gc_loh_waits",
                                        "gc_mark_times", "gc_loh_compact", "gc_fit_buckets",
                                        "gc_datas_samples", "gc_datas_tunings", "gc_datas_gen2_tunings",
                                        "gc_datas_hc_samples", "gc_datas_hc_tunings", "gc_process_summary" };
  return recon_dump_tables(db, tables, sizeof tables / sizeof tables[0], "1, 2, 3, 4, 5");
}

/* Checks that two dumps are the same text; on a difference prints the first
 * one with 200 bytes before it, after WHAT (which comparison). */
static inline void recon_same_text(const char *da, const char *db, const char *what) {
  CHECK(strcmp(da, db) == 0);
  if (strcmp(da, db) != 0) {
    size_t i = 0;
    while (da[i] && da[i] == db[i]) i++;
    size_t from = i > 200 ? i - 200 : 0;
    fprintf(stderr, "%s: first difference at byte %zu:\nA: %.300s\nB: %.300s\n", what, i, da + from, db + from);
  }
}

/* Checks that two databases hold the same rows (recon_dump's text).
 * Returns the dump's length, so a caller can check that it compared
 * something. */
static inline size_t recon_same(sqlite3 *a, sqlite3 *b) {
  char *da = recon_dump(a), *db = recon_dump(b);
  recon_same_text(da, db, "recon_dump");
  size_t len = strlen(da);
  free(da);
  free(db);
  return len;
}

#endif
