/* sqlite_ext.c — gcscope.so, a loadable SQLite extension: the plain sqlite3
 * shell (or any SQLite program) gets the functions every gcscope connection
 * has (gcs_db_functions: gcs_unpack, behind the events, alloc_ticks and
 * gc_lifecycle views), so it reads a gcscope database whole:
 *
 *   sqlite3 gcscope.db -cmd '.load /path/to/gcscope' 'SELECT count(*) FROM events'
 *
 * The module calls libsqlite3 directly (it links the system library the
 * shell has loaded), so it is for SQLite programs that use that library,
 * like Debian's sqlite3. */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "gcs_db.h"

int sqlite3_gcscope_init(sqlite3 *db, char **err, const sqlite3_api_routines *api);

int sqlite3_gcscope_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  if (gcs_db_functions(db) != 0) {
    if (err) *err = sqlite3_mprintf("gcscope: cannot register gcs_unpack: %s", sqlite3_errmsg(db));
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}
