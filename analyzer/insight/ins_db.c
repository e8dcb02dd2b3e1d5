/* ins_db.c — reading the insight inputs from the gcscope database (see ins_db.h). */
#include "ins_db.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gcs_db.h"

static int is_sqlite_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char hdr[16] = {0};
  size_t n = fread(hdr, 1, sizeof hdr, f);
  fclose(f);
  return n == 16 && memcmp(hdr, "SQLite format 3", 16) == 0;
}

sqlite3 *ins_db_open_input(const char *cmd, const char *path) {
  struct stat st;
  char err[512];
  if (stat(path, &st) != 0) {
    fprintf(stderr, "gcscope %s: %s: no such file or directory\n", cmd, path);
    return NULL;
  }
  if (S_ISREG(st.st_mode) && is_sqlite_file(path)) {
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
      fprintf(stderr, "gcscope %s: %s: %s\n", cmd, path, db ? sqlite3_errmsg(db) : "cannot open");
      sqlite3_close(db);
      return NULL;
    }
    sqlite3_stmt *st2 = NULL;
    int ok = sqlite3_prepare_v2(db, "SELECT 1 FROM gcs LIMIT 1", -1, &st2, NULL) == SQLITE_OK;
    sqlite3_finalize(st2);
    if (!ok) {
      fprintf(stderr, "gcscope %s: %s: not a gcscope database (no gcs table)\n", cmd, path);
      sqlite3_close(db);
      return NULL;
    }
    return db;
  }
  /* A trace: import it into a private in-memory database. */
  sqlite3 *db = gcs_db_open(":memory:", err, sizeof err);
  if (!db) {
    fprintf(stderr, "gcscope %s: %s\n", cmd, err);
    return NULL;
  }
  struct gcs_import_opts o = {.quiet = 1};
  const char *paths[1] = {path};
  if (gcs_import_paths_db(db, paths, 1, &o, NULL, err, sizeof err) != 0) {
    fprintf(stderr, "gcscope %s: %s\n", cmd, err);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

static int prep(const char *cmd, sqlite3 *db, const char *sql, sqlite3_stmt **st) {
  if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
    fprintf(stderr, "gcscope %s: database: %s\n", cmd, sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

static int step_done(const char *cmd, sqlite3 *db, int rc) {
  if (rc != SQLITE_DONE) {
    fprintf(stderr, "gcscope %s: database: %s\n", cmd, sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

/* Grows *arr (element size sz) to hold n+1 elements. */
static int grow(void **arr, size_t *cap, size_t n, size_t sz) {
  if (n < *cap) return 0;
  size_t nc = *cap ? *cap * 2 : 64;
  void *p = realloc(*arr, nc * sz);
  if (!p) return -1;
  *arr = p;
  *cap = nc;
  return 0;
}

static double col_d(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* Runs sql with ?1 = trace id and ?2 = pid of p and turns each row into one
 * element of size sz with fill(). *out is malloc'ed (the caller frees it). */
static int load_proc_rows(const char *cmd, sqlite3 *db, const char *sql, const struct ins_proc_key *p,
                          size_t sz, void (*fill)(sqlite3_stmt *st, void *elem), void **out, size_t *n) {
  sqlite3_stmt *st;
  *out = NULL;
  *n = 0;
  if (prep(cmd, db, sql, &st)) return -1;
  sqlite3_bind_int64(st, 1, p->trace_id);
  sqlite3_bind_int(st, 2, p->pid);
  size_t cap = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (grow(out, &cap, *n, sz)) break;
    fill(st, (char *)*out + (*n)++ * sz);
  }
  sqlite3_finalize(st);
  return step_done(cmd, db, rc);
}

int ins_db_processes(const char *cmd, sqlite3 *db, int with_requests, struct ins_proc_key **out, size_t *n) {
  const char *sql =
      "SELECT k.trace_id, k.pid, coalesce(p.name, ''), coalesce(p.first_ns, 0), coalesce(p.last_ns, 0), "
      "coalesce(t.start_ns, 0) FROM (SELECT DISTINCT trace_id, pid FROM gcs UNION "
      "SELECT DISTINCT trace_id, pid FROM requests WHERE ?1) k "
      "LEFT JOIN processes p ON p.trace_id = k.trace_id AND p.pid = k.pid "
      "LEFT JOIN traces t ON t.id = k.trace_id GROUP BY k.trace_id, k.pid ORDER BY k.trace_id, k.pid";
  sqlite3_stmt *st;
  *out = NULL;
  *n = 0;
  if (prep(cmd, db, sql, &st)) return -1;
  sqlite3_bind_int(st, 1, with_requests);
  size_t cap = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (grow((void **)out, &cap, *n, sizeof **out)) break;
    struct ins_proc_key *k = &(*out)[(*n)++];
    memset(k, 0, sizeof *k);
    k->trace_id = sqlite3_column_int64(st, 0);
    k->pid = sqlite3_column_int(st, 1);
    snprintf(k->name, sizeof k->name, "%s", (const char *)sqlite3_column_text(st, 2));
    k->first_ns = sqlite3_column_int64(st, 3);
    k->last_ns = sqlite3_column_int64(st, 4);
    k->trace_start_ns = sqlite3_column_int64(st, 5);
  }
  sqlite3_finalize(st);
  return step_done(cmd, db, rc);
}

static void fill_pause(sqlite3_stmt *st, void *elem) {
  *(struct ins_pause *)elem = (struct ins_pause){(uint32_t)sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                                 sqlite3_column_int64(st, 2)};
}

int ins_db_pauses(const char *cmd, sqlite3 *db, const struct ins_proc_key *p, struct ins_pause **out, size_t *n) {
  const char *sql =
      "SELECT gc_index, coalesce(suspend_begin_ns, start_ns), restart_end_ns FROM gcs "
      "WHERE trace_id = ?1 AND pid = ?2 AND restart_end_ns IS NOT NULL "
      "AND coalesce(suspend_begin_ns, start_ns) IS NOT NULL "
      "UNION ALL SELECT gc_index, bgc_prep_suspend_begin_ns, bgc_prep_restart_end_ns FROM gcs "
      "WHERE trace_id = ?1 AND pid = ?2 AND type = 1 AND bgc_prep_suspend_begin_ns IS NOT NULL "
      "AND bgc_prep_restart_end_ns IS NOT NULL";
  return load_proc_rows(cmd, db, sql, p, sizeof **out, fill_pause, (void **)out, n);
}

static void fill_request(sqlite3_stmt *st, void *elem) {
  *(struct ins_request *)elem = (struct ins_request){(uint64_t)sqlite3_column_int64(st, 0),
                                                     sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)};
}

int ins_db_requests(const char *cmd, sqlite3 *db, const struct ins_proc_key *p, struct ins_request **out,
                    size_t *n) {
  const char *sql = "SELECT request_id, start_ns, end_ns FROM requests WHERE trace_id = ?1 AND pid = ?2 "
                    "AND start_ns IS NOT NULL AND end_ns IS NOT NULL ORDER BY start_ns";
  return load_proc_rows(cmd, db, sql, p, sizeof **out, fill_request, (void **)out, n);
}

static void fill_gc(sqlite3_stmt *st, void *elem) {
  struct ins_gc *g = elem;
  *g = (struct ins_gc){
      .index = (uint32_t)sqlite3_column_int64(st, 0), .gen = sqlite3_column_int(st, 1),
      .type = sqlite3_column_int(st, 2), .reason = sqlite3_column_int(st, 3), .start_ms = col_d(st, 4),
      .pause_ms = col_d(st, 5), .suspend_ms = col_d(st, 6), .promoted_mb = col_d(st, 7),
      .peak_mb = col_d(st, 8), .after_mb = col_d(st, 9), .gen0_frag_pct = col_d(st, 10),
      .gen2_frag_before_pct = col_d(st, 11), .pinned_objects = (uint32_t)sqlite3_column_int64(st, 12)};
  const char *c = (const char *)sqlite3_column_text(st, 13);
  while (c && *c) {
    char *end;
    g->condemn_conditions |= (uint32_t)strtoul(c, &end, 10);
    c = *end == ',' ? end + 1 : NULL;
  }
}

int ins_db_gcs(const char *cmd, sqlite3 *db, const struct ins_proc_key *p, struct ins_gc **out, size_t *n) {
  /* gen2 fragmentation before the GC and the condemned conditions come from
   * the per-heap history; conditions of all heaps are OR-ed. */
  const char *sql =
      "SELECT g.gc_index, g.gen, g.type, g.reason, g.pause_start_msec, g.pause_msec, g.suspend_msec, "
      "g.promoted_mb, g.peak_mb, g.after_mb, g.gen0_frag_pct, "
      "(SELECT CASE WHEN sum(h.size_before) > 0 THEN "
      "  sum(h.free_list_before + h.free_obj_before) * 100.0 / sum(h.size_before) END "
      "  FROM gc_heap_gens h WHERE h.trace_id = g.trace_id AND h.pid = g.pid AND h.gc_index = g.gc_index "
      "  AND h.gen = 2), "
      "coalesce(g.pinned_obj, 0), "
      "(SELECT group_concat(coalesce(x.condemn_reasons1, 0)) FROM gc_heaps x WHERE x.trace_id = g.trace_id "
      "  AND x.pid = g.pid AND x.gc_index = g.gc_index) "
      "FROM gcs g WHERE g.trace_id = ?1 AND g.pid = ?2 AND g.complete = 1 ORDER BY g.list_index";
  return load_proc_rows(cmd, db, sql, p, sizeof **out, fill_gc, (void **)out, n);
}

int ins_db_summary(sqlite3 *db, const struct ins_proc_key *p, struct ins_proc_summary *s) {
  sqlite3_stmt *st;
  *s = (struct ins_proc_summary){0, 0, NAN, NAN, 60};
  if (sqlite3_prepare_v2(db,
                         "SELECT sum(process_duration_msec), sum(total_pause_msec) FROM gc_process_summary "
                         "WHERE trace_id = ?1 AND pid = ?2",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, p->trace_id);
  sqlite3_bind_int(st, 2, p->pid);
  int rc = -1;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
    s->duration_ms = sqlite3_column_double(st, 0);
    s->total_pause_ms = sqlite3_column_double(st, 1);
    rc = 0;
  }
  sqlite3_finalize(st);
  return rc;
}

int ins_payload_field(const char *payload, const char *name, char *buf, size_t cap) {
  size_t nl = strlen(name);
  for (const char *p = payload; p && *p;) {
    if (strncmp(p, name, nl) == 0 && p[nl] == '=') {
      const char *v = p + nl + 1;
      size_t len = strcspn(v, " ");
      if (len >= cap) len = cap - 1;
      memcpy(buf, v, len);
      buf[len] = '\0';
      return 0;
    }
    p = strchr(p, ' ');
    if (p) p++;
  }
  return -1;
}
