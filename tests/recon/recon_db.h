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

#endif
