/*
 * Values written by hand through the GC views (gcs, gc_gens, gc_heaps,
 * gc_heap_gens: their INSTEAD OF triggers, schemas/gcs_compact.c) read back
 * as a table of the older layout gives them back, and are stored as the
 * writer stores them.
 *
 * GC 1 of process 7 (blocking, gen0): SuspendEEBegin at 1,000 us,
 * SuspendEEEnd 1,010, GCStart 1,020, GCEnd 1,250, GCHeapStats 1,300 (gen0
 * 1,000,000 bytes ... ), RestartEEEnd 1,400; one heap's GCPerHeapHistory.
 * The writer stores its figures in ms and MB as integer counts of ns and
 * bytes where they read back exactly: pause_msec 0.4 (1,400 - 1,000 us) as
 * the integer 400000; gc_gens' gen0 size_after_mb 1.0 as 1000000; its event
 * times but start_ns as offsets from start_ns (end_ns: 230,000).
 *
 * What the triggers did before (typeof through the view and in the base
 * table, sqlite3 3.40):
 *   UPDATE gcs SET gen = 1: every E6 column of the row stored NEW * 1.0:
 *     gcs_base.pause_msec 400000 (integer) became 0.4 (real), the value
 *     read the same; gc_gens the same for each generation;
 *   UPDATE gcs SET pause_msec = 5: base 5.0 (real), view 5.0 (real);
 *   UPDATE gcs SET pause_msec = 'n/a': 0.0 (a text times 1.0);
 *   with start_ns 1,584,489,854,906,997,257 (set through the view, as in
 *     the corpus trace netcore31-perfcollect-default), UPDATE gcs SET
 *     end_ns = 7.5: stored 7.5 - start_ns, a real, rounded to a multiple
 *     of 256, which the INTEGER column made an integer: read back as the
 *     integer 9;
 *   UPDATE gcs SET end_ns = 'x': 'x' - start_ns, read back 0.
 * Now:
 *   an E6 value gets the REAL column's affinity (as the older table: 5 is
 *     5.0, '7.5' is 7.5, 'n/a' stays a text, NULL NULL) and is stored as
 *     the writer would: 5.0 as the integer 5000000, 0.1 as 100000, 0.4 as
 *     400000 (so an UPDATE of another column leaves the base row as it
 *     was, integer for integer), 1.0000000001 (no integer count of 10^-6
 *     reads back as it) as the real;
 *   a time: the offset when it is an integer (end_ns = start_ns + 2000:
 *     base 2000); a real or a text is stored as written and the row's times
 *     absolute (bit 60 of gcs_base.condemned): 7.5 reads back 7.5 (real),
 *     'x' 'x', the other times unchanged; an integer time again makes them
 *     offsets again;
 *   a row INSERTed through gcs with no condemned-reasons group and a real
 *     time: groups NULL (bit 61), times absolute.
 * And for every value of {7, 7.5, 'x7', '7.5', 0.1, 2^62, NULL, x'01'}
 * written into a column of each storage (E6 gcs.pause_msec, DELTA_NS
 * gcs.end_ns, INTEGER gcs.gen, REAL gcs.pct_gc, TEXT gcs.gen_name, folded
 * E6 gc_gens.size_after_mb, folded INTEGER gc_heap_gens.size_after,
 * gc_heaps' INTEGER heap_index): the view gives what a one-column
 * table of the declared type gives (typeof() and the value, IS).
 */
#include <stdint.h>

#include "recon_db.h"
#include "recon_events.h"

static void exec(sqlite3 *db, const char *sql) {
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  if (rc != SQLITE_OK) fprintf(stderr, "%s: %s\n", sql, err ? err : "?");
  CHECK(rc == SQLITE_OK);
  sqlite3_free(err);
}

/* sql is refused with the message want (a trigger's RAISE). */
static void refused(sqlite3 *db, const char *sql, const char *want) {
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  if (rc == SQLITE_OK || !err || strcmp(err, want) != 0) fprintf(stderr, "%s: %s\n", sql, err ? err : "(accepted)");
  CHECK(rc != SQLITE_OK && err && strcmp(err, want) == 0);
  sqlite3_free(err);
}

/* The first column of sql's first row as text ("NULL" for NULL), in buf. */
static const char *q_text(sqlite3 *db, const char *sql, char *buf, size_t n) {
  sqlite3_stmt *st;
  snprintf(buf, n, "?");
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(st, 0);
    snprintf(buf, n, "%s", t ? (const char *)t : "NULL");
  } else {
    fprintf(stderr, "query failed: %s: %s\n", sql, sqlite3_errmsg(db));
  }
  sqlite3_finalize(st);
  return buf;
}
#define TEXT_IS(db, sql, want)                                    \
  do {                                                            \
    char b_[256];                                                 \
    const char *got_ = q_text(db, sql, b_, sizeof b_);            \
    if (strcmp(got_, want) != 0) fprintf(stderr, "%s: got %s, expected %s\n", sql, got_, want); \
    CHECK(strcmp(got_, want) == 0);                               \
  } while (0)

static void feed_gc(struct gcs_recon *r) {
  feed_suspend(r, 1000, 7, 70, GCS_SUSPEND_REASON_SUSPEND_FOR_GC, 0);
  feed_simple(r, gcs_kind_GCSuspendEEEnd, 1010, 7, 70);
  feed_start(r, 1020, 7, 70, 1, GCS_GEN0, GCS_GC_REASON_ALLOC_SMALL, GCS_GC_TYPE_NON_CONCURRENT);
  uint64_t before[5] = {2000000, 500000, 300000, 100000, 0}, after[5] = {1000000, 600000, 300000, 100000, 0},
           surv[5] = {100000, 0, 0, 0, 0};
  feed_phh(r, 1240, 7, 70, before, after, surv);
  feed_end(r, 1250, 7, 70, 1, GCS_GEN0);
  uint64_t size[5] = {1000000, 600000, 300000, 100000, 0}, prom[5] = {100000, 0, 0, 0, 0};
  feed_heap_stats(r, 1300, 7, 70, size, prom);
  feed_simple(r, gcs_kind_GCRestartEEBegin, 1390, 7, 70);
  feed_simple(r, gcs_kind_GCRestartEEEnd, 1400, 7, 70);
}

/* Column col of view (row where) against a table of type decl, for each
 * value: typeof() and value the same. */
static void like_table(sqlite3 *db, const char *view, const char *col, const char *where, const char *decl) {
  static const char *const values[] = { "7", "7.5", "'x7'", "'7.5'", "0.1", "4611686018427387904", "NULL", "x'01'" };
  char sql[512];
  exec(db, "DROP TABLE IF EXISTS temp.leg");
  snprintf(sql, sizeof sql, "CREATE TEMP TABLE leg (v %s)", decl);
  exec(db, sql);
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    if (strcmp(values[i], "NULL") == 0 && strstr(decl, "NOT NULL")) continue;
    snprintf(sql, sizeof sql, "DELETE FROM leg; INSERT INTO leg VALUES (%s); UPDATE %s SET %s = %s WHERE %s",
             values[i], view, col, values[i], where);
    exec(db, sql);
    snprintf(sql, sizeof sql,
             "SELECT (SELECT typeof(v) FROM leg) = (SELECT typeof(%s) FROM %s WHERE %s) "
             "AND (SELECT v FROM leg) IS (SELECT %s FROM %s WHERE %s)",
             col, view, where, col, view, where);
    int64_t same = recon_q1(db, sql);
    if (same != 1) fprintf(stderr, "%s.%s = %s: not as a %s column gives it back\n", view, col, values[i], decl);
    CHECK(same == 1);
  }
}

int main(void) {
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  gcs_recon_set_time_origin(r, T0);
  feed_gc(r);
  sqlite3 *db = recon_db_new();
  CHECK(gcs_recon_store(r, db, 1) == SQLITE_OK);
  gcs_recon_free(r);
  CHECK(recon_q1(db, "SELECT count(*) FROM gcs") == 1);
  const int64_t start = (int64_t)(T0 + 1020000);

  /* as the writer stored it */
  TEXT_IS(db, "SELECT typeof(pause_msec) || ' ' || pause_msec FROM gcs_base", "integer 400000");
  TEXT_IS(db, "SELECT typeof(pause_msec) || ' ' || pause_msec FROM gcs", "real 0.4");
  TEXT_IS(db, "SELECT typeof(g0_size_after_mb) || ' ' || g0_size_after_mb FROM gc_gens_base", "integer 1000000");
  CHECK(recon_q1(db, "SELECT end_ns FROM gcs_base") == 230000);
  CHECK(recon_q1(db, "SELECT end_ns FROM gcs") == start + 230000);

  /* an UPDATE of another column leaves the base row as it was */
  char *base_row = NULL;
  {
    char buf[4096];
    q_text(db, "SELECT group_concat(t, ',') FROM (SELECT typeof(pause_msec) || quote(pause_msec) || "
               "typeof(start_msec) || quote(start_msec) || typeof(duration_msec) || quote(duration_msec) || "
               "typeof(after_mb) || quote(after_mb) || typeof(end_ns) || quote(end_ns) || quote(condemned) AS t "
               "FROM gcs_base)", buf, sizeof buf);
    base_row = strdup(buf);
  }
  exec(db, "UPDATE gcs SET gen = 1");
  TEXT_IS(db, "SELECT group_concat(t, ',') FROM (SELECT typeof(pause_msec) || quote(pause_msec) || "
              "typeof(start_msec) || quote(start_msec) || typeof(duration_msec) || quote(duration_msec) || "
              "typeof(after_mb) || quote(after_mb) || typeof(end_ns) || quote(end_ns) || quote(condemned) AS t "
              "FROM gcs_base)", base_row);
  free(base_row);
  TEXT_IS(db, "SELECT typeof(pause_msec) || ' ' || pause_msec FROM gcs_base", "integer 400000");
  CHECK(recon_q1(db, "SELECT gen FROM gcs") == 1);
  exec(db, "UPDATE gc_gens SET promoted_mb = 0 WHERE gen = 1");
  TEXT_IS(db, "SELECT typeof(g0_size_after_mb) || ' ' || g0_size_after_mb FROM gc_gens_base", "integer 1000000");
  TEXT_IS(db, "SELECT typeof(g1_size_after_mb) || ' ' || g1_size_after_mb FROM gc_gens_base", "integer 600000");

  /* E6: an integer or a real as the writer would store it */
  exec(db, "UPDATE gcs SET pause_msec = 5");
  TEXT_IS(db, "SELECT typeof(pause_msec) || ' ' || pause_msec FROM gcs_base", "integer 5000000");
  TEXT_IS(db, "SELECT typeof(pause_msec) || ' ' || pause_msec FROM gcs", "real 5.0");
  exec(db, "UPDATE gcs SET pause_msec = 0.1");
  TEXT_IS(db, "SELECT typeof(pause_msec) || ' ' || pause_msec FROM gcs_base", "integer 100000");
  CHECK(recon_q1(db, "SELECT pause_msec = 0.1 AND typeof(pause_msec) = 'real' FROM gcs") == 1);
  exec(db, "UPDATE gcs SET pause_msec = 1.0000000001");
  CHECK(recon_q1(db, "SELECT typeof(pause_msec) = 'real' AND pause_msec = 1.0000000001 FROM gcs_base") == 1);
  CHECK(recon_q1(db, "SELECT pause_msec = 1.0000000001 FROM gcs") == 1);
  exec(db, "UPDATE gcs SET pause_msec = 'n/a'");
  TEXT_IS(db, "SELECT typeof(pause_msec) || ' ' || pause_msec FROM gcs", "text n/a");
  exec(db, "UPDATE gcs SET pause_msec = '7.5'");
  TEXT_IS(db, "SELECT typeof(pause_msec) || ' ' || pause_msec FROM gcs", "real 7.5");
  TEXT_IS(db, "SELECT typeof(pause_msec) || ' ' || pause_msec FROM gcs_base", "integer 7500000");
  exec(db, "UPDATE gc_gens SET size_after_mb = 2 WHERE gen = 0");
  TEXT_IS(db, "SELECT typeof(g0_size_after_mb) || ' ' || g0_size_after_mb FROM gc_gens_base", "integer 2000000");
  TEXT_IS(db, "SELECT typeof(size_after_mb) || ' ' || size_after_mb FROM gc_gens WHERE gen = 0", "real 2.0");

  /* times: offsets when integers, else the row's times as written */
  exec(db, "UPDATE gcs SET start_ns = 1584489854906997257");
  const int64_t start2 = INT64_C(1584489854906997257);
  CHECK(recon_q1(db, "SELECT suspend_begin_ns FROM gcs") == (int64_t)(T0 + 1000000));
  CHECK(recon_q1(db, "SELECT (condemned >> 60) & 1 FROM gcs_base") == 0);
  exec(db, "UPDATE gcs SET end_ns = start_ns + 2000");
  CHECK(recon_q1(db, "SELECT end_ns FROM gcs_base") == 2000);
  CHECK(recon_q1(db, "SELECT end_ns FROM gcs") == start2 + 2000);
  CHECK(recon_q1(db, "SELECT (condemned >> 60) & 1 FROM gcs_base") == 0);
  exec(db, "UPDATE gcs SET end_ns = 7.5");
  TEXT_IS(db, "SELECT typeof(end_ns) || ' ' || end_ns FROM gcs", "real 7.5");
  CHECK(recon_q1(db, "SELECT (condemned >> 60) & 1 FROM gcs_base") == 1);
  CHECK(recon_q1(db, "SELECT suspend_begin_ns FROM gcs") == (int64_t)(T0 + 1000000));
  CHECK(recon_q1(db, "SELECT restart_end_ns FROM gcs") == (int64_t)(T0 + 1400000));
  CHECK(recon_q1(db, "SELECT start_ns FROM gcs") == start2);
  CHECK(recon_q1(db, "SELECT cr_induced IS 0 AND cr_final_generation IS 0 FROM gcs") == 1);
  /* a condemned-reasons group holds two bits: 0..3 or NULL, else refused
   * (before, 5 was stored as 1) */
  const char *cr_err = "gcs: a cr_ column holds 0, 1, 2, 3 or NULL";
  refused(db, "UPDATE gcs SET cr_induced = 5", cr_err);
  refused(db, "UPDATE gcs SET cr_final_generation = -1", cr_err);
  refused(db, "UPDATE gcs SET cr_induced = 'x'", cr_err);
  CHECK(recon_q1(db, "SELECT cr_induced IS 0 AND cr_final_generation IS 0 FROM gcs") == 1);
  exec(db, "UPDATE gcs SET cr_induced = 3, cr_final_generation = 2");
  CHECK(recon_q1(db, "SELECT cr_induced = 3 AND cr_final_generation = 2 FROM gcs") == 1);
  exec(db, "UPDATE gcs SET cr_induced = 0, cr_final_generation = 0");
  exec(db, "UPDATE gcs SET end_ns = 'x'");
  TEXT_IS(db, "SELECT typeof(end_ns) || ' ' || end_ns FROM gcs", "text x");
  exec(db, "UPDATE gcs SET end_ns = start_ns + 3000");
  CHECK(recon_q1(db, "SELECT (condemned >> 60) & 1 FROM gcs_base") == 0);
  CHECK(recon_q1(db, "SELECT end_ns FROM gcs_base") == 3000);
  CHECK(recon_q1(db, "SELECT suspend_begin_ns FROM gcs") == (int64_t)(T0 + 1000000));

  /* a row inserted by hand: no condemned-reasons groups, a real time */
  exec(db, "INSERT INTO gcs (id, trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name, reason, "
           "reason_name, complete, start_ns, end_ns, pause_msec) "
           "VALUES (100, 1, 7, 0, 99, 99, 0, 0, '0N', 0, 'AllocSmall', 1, 1000, 1500.5, 3)");
  TEXT_IS(db, "SELECT typeof(end_ns) || ' ' || end_ns FROM gcs WHERE id = 100", "real 1500.5");
  TEXT_IS(db, "SELECT typeof(cr_induced) FROM gcs WHERE id = 100", "null");
  TEXT_IS(db, "SELECT typeof(pause_msec) || ' ' || pause_msec FROM gcs_base WHERE id = 100", "integer 3000000");
  TEXT_IS(db, "SELECT typeof(pause_msec) || ' ' || pause_msec FROM gcs WHERE id = 100", "real 3.0");
  exec(db, "INSERT INTO gcs (id, trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name, reason, "
           "reason_name, complete, start_ns, end_ns) VALUES (101, 1, 7, 0, 100, 100, 0, 0, '0N', 0, 'AllocSmall', "
           "1, 1000, 1500)");
  TEXT_IS(db, "SELECT typeof(end_ns) || ' ' || end_ns FROM gcs WHERE id = 101", "integer 1500");
  TEXT_IS(db, "SELECT quote(condemned) || ' ' || end_ns FROM gcs_base WHERE id = 101", "NULL 500");
  TEXT_IS(db, "SELECT typeof(cr_induced) FROM gcs WHERE id = 101", "null");
  refused(db, "INSERT INTO gcs (id, trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name, reason, "
              "reason_name, complete, start_ns, cr_induced) VALUES (102, 1, 7, 0, 101, 101, 0, 0, '0N', 0, "
              "'AllocSmall', 1, 1000, 4)", cr_err);
  CHECK(recon_q1(db, "SELECT count(*) FROM gcs WHERE id = 102") == 0);

  /* every kind of column against a table of its declared type */
  like_table(db, "gcs", "pause_msec", "id = 1", "REAL");
  like_table(db, "gcs", "end_ns", "id = 1", "INTEGER");
  like_table(db, "gcs", "gen", "id = 1", "INTEGER NOT NULL");
  like_table(db, "gcs", "pct_gc", "id = 1", "REAL");
  like_table(db, "gcs", "gen_name", "id = 1", "TEXT NOT NULL");
  like_table(db, "gc_gens", "size_after_mb", "gc_id = 1 AND gen = 2", "REAL");
  like_table(db, "gc_heap_gens", "size_after", "gc_id = 1 AND gen = 1 AND heap_slot = 0", "INTEGER");
  like_table(db, "gc_heaps", "heap_index", "gc_id = 1 AND heap_slot = 0", "INTEGER NOT NULL");
  sqlite3_close(db);
  return check_done();
}
