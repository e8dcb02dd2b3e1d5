/* gcs_db.c — open/create the gcscope database and build its indexes. */
#include "gcs_db.h"

#include <sqlite3.h>
#include <stdio.h>

#include "gcs_tables.h"

static const char schema_sql[] = GCS_SCHEMA_SQL;
static const char index_sql[] = GCS_INDEX_SQL;

sqlite3 *gcs_db_open(const char *path, char *err, size_t errlen) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc != SQLITE_OK) {
    snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 5000);
  char *msg = NULL;
  /* Bulk-load settings: the rollback journal keeps each trace's transaction
   * atomic (a crash or Ctrl-C leaves the database as it was); NORMAL sync
   * and a large page cache keep the load fast. */
  rc = sqlite3_exec(db,
                    "PRAGMA journal_mode=DELETE; PRAGMA synchronous=NORMAL; "
                    "PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;",
                    NULL, NULL, &msg);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, schema_sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK) {
    /* A file that is not a database ends up here ("file is not a database"). */
    snprintf(err, errlen, "%s: %s", path, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

int gcs_db_create_indexes(sqlite3 *db, char *err, size_t errlen) {
  char *msg = NULL;
  if (sqlite3_exec(db, index_sql, NULL, NULL, &msg) != SQLITE_OK) {
    snprintf(err, errlen, "creating indexes: %s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return -1;
  }
  return 0;
}
