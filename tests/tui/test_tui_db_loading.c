/* `gcscope top DB` on a database bigger than the first poll reads (5,000
 * GCs, so that the first frame comes at once; then up to 200,000 a poll,
 * issue 27 item 4): until every row is in, the source says it is loading (title LOADING, the
 * status line "loading: N of M GCs read, figures partial") and the loop polls
 * again at once (issue 29, item 8: the first frame showed GC #20000 of 51,234
 * and a max pause of 168 instead of 184 ms, with no mark). The database is
 * made here with the real schema: 20,001 gen0 GCs of pid 7, the last with the
 * longest pause (9 ms; the others 1 ms).
 *   test_tui_db_loading DB */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gcs_tables.h"
#include "tui_model.h"
#include "tui_source.h"

#define N 20001

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  unlink(argv[1]);
  sqlite3 *db;
  CHECK(sqlite3_open(argv[1], &db) == SQLITE_OK);
  char *err = NULL;
  CHECK(sqlite3_exec(db, gcs_schema_sql_kept(), NULL, NULL, &err) == SQLITE_OK);
  CHECK(sqlite3_exec(db, "BEGIN;", NULL, NULL, &err) == SQLITE_OK);
  CHECK(sqlite3_exec(db, "INSERT INTO traces (id, path, start_ns, end_ns, identity, event_count, gc_event_count, "
                         "discarded, source, imported_ns) VALUES (1, '/t', 1000000000, 2000000000, 't', 0, 0, 0, "
                         "'lttng', 0)", NULL, NULL, &err) == SQLITE_OK);
  sqlite3_stmt *st;
  CHECK(sqlite3_prepare_v2(db, "INSERT INTO gcs (trace_id, pid, clr_instance, gc_index, list_index, gen, type, "
                               "gen_name, reason, reason_name, complete, start_ns, pause_start_msec, start_msec, "
                               "pause_msec) VALUES (1, 7, 0, ?1, ?1 - 1, 0, 0, '0N', 0, 'AllocSmall', 1, "
                               "1000000000 + ?1 * 1000, ?1 * 0.001, ?1 * 0.001, ?2)", -1, &st, NULL) == SQLITE_OK);
  for (int i = 1; i <= N; i++) {
    sqlite3_bind_int(st, 1, i);
    sqlite3_bind_double(st, 2, i == N ? 9.0 : 1.0);
    CHECK(sqlite3_step(st) == SQLITE_DONE);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  CHECK(sqlite3_exec(db, "COMMIT", NULL, NULL, &err) == SQLITE_OK);
  sqlite3_close(db);

  char e[512];
  struct tui_source *src = tui_db_open(argv[1], e, sizeof e);
  CHECK(src != NULL);
  if (!src) return check_done();
  struct tui_model *m = tui_model_new();
  CHECK(src->ops->poll(src, m) == 1);
  CHECK(src->loading == 1);
  CHECK_STR(src->note, "loading: 5000 of 20001 GCs read, figures partial");
  CHECK(src->live == 0);
  CHECK(src->ops->poll(src, m) == 1);
  CHECK(src->loading == 0);
  CHECK_STR(src->note, "");
  const struct tui_proc *p = tui_model_proc_at(m, 0);
  CHECK(p != NULL);
  if (p) {
    struct tui_summary s;
    tui_proc_summary(p, &s);
    CHECK_NEAR(s.max_pause_ms, 9.0, 1e-12);
  }
  CHECK(src->ops->poll(src, m) == 0);
  CHECK(src->loading == 0);
  tui_model_free(m);
  src->ops->close(src);
  return check_done();
}
