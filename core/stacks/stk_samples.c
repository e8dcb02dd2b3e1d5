/* stk_samples.c — the events of one kind with their stack ids, read from the
 * packed event blocks (gcs_stacks.h). */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "gcs_stacks.h"

/* ?1 pid or -1, ?2 from ns or NULL, ?3 to ns or NULL, ?4 event name, ?5 ticks block, ?6 trace or -1. */
#define SAMPLES_SQL \
  "SELECT b.trace_id, u.pid, u.stack_id, %s FROM traces t JOIN event_blocks b ON b.trace_id = t.id, " \
  "gcs_unpack(b.data) u WHERE t.id IN (SELECT id FROM temp.input_traces) AND b.ticks = ?5 " \
  "AND (?1 < 0 OR u.pid = ?1) " \
  "AND (?2 IS NULL OR (b.last_ns >= t.start_ns + ?2 AND u.ts_ns >= t.start_ns + ?2)) " \
  "AND (?3 IS NULL OR (b.first_ns <= t.start_ns + ?3 AND u.ts_ns <= t.start_ns + ?3)) AND u.name = ?4 " \
  "AND (?6 < 0 OR t.id = ?6)"

long long gcs_stacks_samples(sqlite3 *db, const struct gcs_stacks_query *q, gcs_stacks_sample_cb cb, void *ud,
                             char *err, size_t errlen) {
  int tick = q->kind == gcs_kind_GCAllocationTick;
  const char *cols = tick ? "coalesce((SELECT name FROM types WHERE id = u.type_id), 'unknown'), u.alloc_kind, u.amount"
                     : q->kind == gcs_kind_GCTriggered ? "NULL, json_extract(u.fields, '$.Reason'), 0"
                     : q->kind == gcs_kind_SetGCHandle ? "NULL, json_extract(u.fields, '$.Kind'), 0"
                                                       : "NULL, NULL, 0";
  char sql[1024];
  snprintf(sql, sizeof sql, SAMPLES_SQL, cols);
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_int64(s, 1, q->pid);
  if (q->from_ns >= 0) sqlite3_bind_int64(s, 2, q->from_ns);
  if (q->to_ns >= 0) sqlite3_bind_int64(s, 3, q->to_ns);
  sqlite3_bind_text(s, 4, gcs_event_descs[q->kind].name, -1, SQLITE_STATIC);
  sqlite3_bind_int(s, 5, tick);
  sqlite3_bind_int64(s, 6, q->trace_id);
  long long n = 0;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    struct gcs_stacks_sample x;
    x.trace_id = sqlite3_column_int64(s, 0);
    x.pid = sqlite3_column_int(s, 1);
    x.stack_id = sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 2);
    x.type_name = tick ? (const char *)sqlite3_column_text(s, 3) : NULL;
    x.value = sqlite3_column_type(s, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 4);
    x.bytes = tick ? (uint64_t)sqlite3_column_int64(s, 5) : 0;
    n++;
    if (cb && cb(&x, ud) != 0) { rc = SQLITE_DONE; break; }
  }
  if (rc != SQLITE_DONE) {
    snprintf(err, errlen, "database: %s", sqlite3_errmsg(db));
    n = -1;
  }
  sqlite3_finalize(s);
  return n;
}
