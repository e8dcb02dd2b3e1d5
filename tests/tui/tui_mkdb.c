/* tui_mkdb — test helper: create a database with the real gcscope schema
 * (schemas/gcs_tables.h) and run an SQL file of fixture rows into it. The
 * fixture's events are text rows, as an older gcscope stored them: the
 * events and alloc_ticks tables of GCS_LEGACY_SQL stand for the views (the
 * TUI's first open brings the database up to date and keeps the rows).
 *   tui_mkdb DB FIXTURE.sql */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcs_tables.h"

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: tui_mkdb DB FIXTURE.sql\n"); return 2; }
  FILE *f = fopen(argv[2], "rb");
  if (!f) { perror(argv[2]); return 1; }
  static char sql[1 << 20];
  size_t n = fread(sql, 1, sizeof sql - 1, f);
  fclose(f);
  sql[n] = '\0';
  sqlite3 *db;
  if (sqlite3_open(argv[1], &db) != SQLITE_OK) { fprintf(stderr, "%s\n", sqlite3_errmsg(db)); return 1; }
  char *err = NULL;
  if (sqlite3_exec(db, gcs_schema_sql_kept(), NULL, NULL, &err) != SQLITE_OK ||
      sqlite3_exec(db, "DROP VIEW events; DROP VIEW alloc_ticks; DROP VIEW gc_lifecycle;" GCS_LEGACY_SQL, NULL, NULL, &err) != SQLITE_OK ||
      sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "tui_mkdb: %s\n", err);
    sqlite3_free(err);
    sqlite3_close(db);
    return 1;
  }
  sqlite3_close(db);
  return 0;
}
