/* gcdb_events.c — one trace's events in event order (see gcs_gcdb.h). */
#include <sqlite3.h>
#include <stdio.h>

#include "gcs_gcdb.h"

static int ask(sqlite3 *db, const char *sql, int64_t trace_id) {
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) return 0;
  sqlite3_bind_int64(q, 1, trace_id);
  int yes = sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 1;
  sqlite3_finalize(q);
  return yes;
}

/* 1 when the import recorded that the trace's events were stored in time
 * order; 0 when it recorded otherwise, did not say (NULL), or the database
 * has no such column. A trace with rows in legacy_events (a database made
 * before event_blocks) is never read as stored: the stored path reads only
 * event_blocks (that cannot come from an import, which fills one or the
 * other; the check is one index lookup, events_by_time). */
static int stored_in_order(sqlite3 *db, int64_t trace_id) {
  if (!ask(db, "SELECT time_ordered IS 1 FROM traces WHERE id = ?1", trace_id)) return 0;
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM legacy_events LIMIT 0", -1, &q, NULL) != SQLITE_OK) return 1;
  sqlite3_finalize(q);
  return ask(db, "SELECT NOT EXISTS (SELECT 1 FROM legacy_events WHERE trace_id = ?1)", trace_id);
}

sqlite3_stmt *gcs_gcdb_events_prepare(sqlite3 *db, int64_t trace_id, const char *cols, const char *where,
                                      int *stored, char *err, size_t errlen) {
  int in_order = stored_in_order(db, trace_id);
  /* Stored order: blocks by id (the rowid: no sorter), each block's events
   * as gcs_unpack yields them, by their place (seq). */
  char *sql = in_order
                  ? sqlite3_mprintf("SELECT %s FROM event_blocks b, gcs_unpack(b.data) e WHERE b.trace_id = ?1 "
                                    "AND b.ticks = 0 AND (%s) ORDER BY b.id", cols, where ? where : "1")
                  : sqlite3_mprintf("SELECT %s FROM events e WHERE e.trace_id = ?1 AND (%s) ORDER BY e.ts_ns, e.id",
                                    cols, where ? where : "1");
  if (!sql) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "%s", sqlite3_errmsg(db));
    sqlite3_free(sql);
    return NULL;
  }
  sqlite3_free(sql);
  sqlite3_bind_int64(s, 1, trace_id);
  if (stored) *stored = in_order;
  return s;
}
