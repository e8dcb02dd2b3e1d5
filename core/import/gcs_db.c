/* gcs_db.c — open/create the gcscope database and build its indexes. */
#include "gcs_db.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcs_tables.h"

static const char schema_sql[] = GCS_SCHEMA_SQL;
static const char index_sql[] = GCS_INDEX_SQL;

/* Columns added after the first release: a database made before gets them
 * (NULL in the rows it has), so newer imports and reports work on it; its
 * traces can be imported again for the new figures. */
static const struct { const char *table, *column, *type; } added_columns[] = {
  { "traces", "truncated_at", "INTEGER" },
  { "traces", "time_ordered", "INTEGER" },
  { "traces", "packet_gaps", "INTEGER" },
  { "lost_events", "begin_ns", "INTEGER" },
  { "lost_events", "packets_missing", "INTEGER" },
  { "gcs", "soh_alloc_measured_mb", "REAL" },
  { "gcs", "loh_alloc_measured_mb", "REAL" },
  { "gcs", "poh_alloc_measured_mb", "REAL" },
  { "gcs", "alloc_measured_mb", "REAL" },
  { "gc_process_summary", "total_alloc_measured_mb", "REAL" },
  { "gcs", "runtime_pause_msec", "REAL" },
  { "gc_process_summary", "heap_count_min", "INTEGER" },
  { "gc_process_summary", "heap_count_max", "INTEGER" },
  { "gc_process_summary", "heap_count_changes", "INTEGER" },
  { "gc_process_summary", "total_runtime_pause_msec", "REAL" },
  { "requests", "method", "TEXT" },
  { "requests", "path", "TEXT" },
  { "stack_symbols", "native_modules", "INTEGER NOT NULL DEFAULT 0" },
  { "stack_symbols", "native_note", "TEXT" },
  /* issue 26: GC phase times (GCGlobalHeapHistory v4), committed memory (GCCommittedUsage) */
  { "gcs", "phase_mark_root_usec", "INTEGER" },
  { "gcs", "phase_mark_short_weak_usec", "INTEGER" },
  { "gcs", "phase_mark_scan_finalization_usec", "INTEGER" },
  { "gcs", "phase_mark_long_weak_usec", "INTEGER" },
  { "gcs", "phase_plan_usec", "INTEGER" },
  { "gcs", "phase_relocate_usec", "INTEGER" },
  { "gcs", "phase_compact_usec", "INTEGER" },
  { "gcs", "phase_sweep_usec", "INTEGER" },
  { "gcs", "committed_before_in_use", "INTEGER" },
  { "gcs", "committed_before_in_global_decommit", "INTEGER" },
  { "gcs", "committed_before_in_free", "INTEGER" },
  { "gcs", "committed_before_in_global_free", "INTEGER" },
  { "gcs", "committed_before_bookkeeping", "INTEGER" },
  { "gcs", "committed_before_mb", "REAL" },
  { "gcs", "committed_after_in_use", "INTEGER" },
  { "gcs", "committed_after_in_global_decommit", "INTEGER" },
  { "gcs", "committed_after_in_free", "INTEGER" },
  { "gcs", "committed_after_in_global_free", "INTEGER" },
  { "gcs", "committed_after_bookkeeping", "INTEGER" },
  { "gcs", "committed_after_mb", "REAL" },
  { "gcs", "mark_heaps", "INTEGER" },
  { "gcs", "mark_unbalanced_kind", "INTEGER" },
  { "gcs", "mark_slow_heap", "INTEGER" },
  { "gcs", "mark_slow_msec", "REAL" },
  { "gcs", "mark_fast_msec", "REAL" },
  { "processes", "gc_hard_limit", "INTEGER" },
  /* issue 26: pinning, background GC revisits */
  { "gcs", "user_pinned_plug_bytes", "INTEGER" },
  { "gcs", "bgc_revisit_pages", "INTEGER" },
  { "gcs", "bgc_revisit_objects", "INTEGER" },
  { "gcs", "bgc_revisit_loh_pages", "INTEGER" },
  { "gcs", "bgc_revisit_loh_objects", "INTEGER" },
  { "gc_process_summary", "pin_object_events", "INTEGER" },
  { "processes", "startup_flags", "INTEGER" },
  { "processes", "gc_settings_bits", "INTEGER" },
  { "processes", "gc_loh_threshold", "INTEGER" },
  { "processes", "gc_physical_memory_config", "INTEGER" },
  { "processes", "gc_gen0_min_budget_config", "INTEGER" },
  { "processes", "gc_gen0_max_budget_config", "INTEGER" },
  { "processes", "gc_high_mem_percent_config", "INTEGER" },
  { "gc_process_summary", "pin_plug_events", "INTEGER" },
  { "gc_process_summary", "fit_bucket_events", "INTEGER" },
  { "gc_process_summary", "array_events_left_out", "INTEGER" },
  /* DATAS (issue 26) */
  { "gc_process_summary", "dynamic_events", "INTEGER" },
  { "gc_process_summary", "dynamic_events_undecoded", "INTEGER" },
  { "gc_process_summary", "dynamic_events_unattached", "INTEGER" },
};
/* Tables added after the first release (made by the schema's CREATE TABLE
 * IF NOT EXISTS), in the order they were added: a new table is appended
 * (its count is the schema version, GCS_DB_VERSION below). */
static const struct { const char *table, *column; } added_tables[] = {
  { "trigger_firings", "rule" },
  { "event_blocks", "data" },
  { "stacks", "frames" },
  { "frames", "resolved" },
  { "stack_symbols", "unresolved" },
  { "gc_mark_times", "mark_ns" },
  { "gc_loh_compact", "time_plan_usec" },
  { "gc_fit_buckets", "bucket_kind" },
  /* DATAS (issue 26) */
  { "gc_datas_samples", "gen0_budget_per_heap" },
  { "gc_datas_tunings", "adj_metric" },
  { "gc_datas_gen2_tunings", "sample2_pct" },
  /* DATAS of .NET 8 */
  { "gc_datas_hc_samples", "msl_wait_usec" },
  { "gc_datas_hc_tunings", "scp_decrease_per_step_down" },
};

/* The schema version a database is written with (PRAGMA user_version): the
 * number of added_tables' entries (which is appended to, never reordered),
 * so a database of version V has every table of the schema but
 * added_tables[V..]. 0: written before versions (which tables it had is not
 * known: any missing is made, empty). */
#define GCS_DB_VERSION ((int)(sizeof added_tables / sizeof added_tables[0]))
/* Every table of today's schema (the legacy_* and the compact tables apart:
 * a database of the older GC layout has no gcs_base, and a view reads it). */
#define GCS_DB_TABLE_NAME(Name, ...) #Name,
static const char *const schema_tables[] = {
  GCS_TABLES_RAW(GCS_DB_TABLE_NAME) GCS_TABLES_GC(GCS_DB_TABLE_NAME) GCS_TABLES_STACKS(GCS_DB_TABLE_NAME)
};
#undef GCS_DB_TABLE_NAME

/* Tables that became views: a database made before holds the rows in a
 * table of the view's name; it is renamed to its legacy name (the view shows
 * its rows beside the packed ones). */
static const struct { const char *table, *legacy, *view_sql; } became_views[] = {
  { "events", "legacy_events", GCS_EVENTS_LEGACY_SQL " UNION ALL " GCS_EVENTS_SQL },
  { "alloc_ticks", "legacy_alloc_ticks", GCS_ALLOC_TICKS_LEGACY_SQL " UNION ALL " GCS_ALLOC_TICKS_SQL },
  { "gc_lifecycle", "legacy_gc_lifecycle", GCS_GC_LIFECYCLE_LEGACY_SQL " UNION ALL " GCS_GC_LIFECYCLE_SQL },
};

#define GCS_VIEW_NAME(Name, Doc, SelectSql) #Name,
static const char *const raw_views[] = { GCS_VIEWS(GCS_VIEW_NAME) };
#undef GCS_VIEW_NAME

static int is_table(sqlite3 *db, const char *name) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &st, NULL) !=
      SQLITE_OK)
    return 0;
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  int yes = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return yes;
}

/* Before the schema script: the raw views are dropped (the script makes
 * them again), the tables renamed, and their views made to show the
 * renamed tables' rows too. */
static int rename_old_tables(sqlite3 *db, char **msg) {
  int old = 0;
  for (size_t i = 0; i < sizeof became_views / sizeof became_views[0]; i++)
    old |= is_table(db, became_views[i].table);
  if (!old) return SQLITE_OK;
  char sql[256];
  for (size_t i = 0; i < sizeof raw_views / sizeof raw_views[0]; i++) {
    if (is_table(db, raw_views[i])) continue;
    snprintf(sql, sizeof sql, "DROP VIEW IF EXISTS %s", raw_views[i]);
    int rc = sqlite3_exec(db, sql, NULL, NULL, msg);
    if (rc != SQLITE_OK) return rc;
  }
  for (size_t i = 0; i < sizeof became_views / sizeof became_views[0]; i++) {
    if (!is_table(db, became_views[i].table)) continue;
    snprintf(sql, sizeof sql, "ALTER TABLE %s RENAME TO %s", became_views[i].table, became_views[i].legacy);
    int rc = sqlite3_exec(db, sql, NULL, NULL, msg);
    if (rc != SQLITE_OK) return rc;
  }
  /* (After every rename: ALTER TABLE checks the views, and these read
   * event_blocks, which the schema script makes next.) */
  for (size_t i = 0; i < sizeof became_views / sizeof became_views[0]; i++) {
    int rc;
    char *view = sqlite3_mprintf("CREATE VIEW %s AS %s", became_views[i].table, became_views[i].view_sql);
    if (!view) return SQLITE_NOMEM;
    rc = sqlite3_exec(db, view, NULL, NULL, msg);
    sqlite3_free(view);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

/* The GC views (tables_gc.def) of an older database whose definition has
 * changed since (gc_pauses: complete GCs only) are made again. */
#define GCS_GC_VIEW_ROW(Name, Doc, SelectSql) { #Name, SelectSql },
static const struct { const char *name, *select_sql; } gc_views[] = { GCS_VIEWS_GC(GCS_GC_VIEW_ROW) };
#undef GCS_GC_VIEW_ROW

/* 1 if the view exists with another definition than today's. */
static int view_is_stale(sqlite3 *db, size_t i) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?1", -1, &st, NULL) !=
      SQLITE_OK)
    return 0;
  sqlite3_bind_text(st, 1, gc_views[i].name, -1, SQLITE_STATIC);
  int stale = 0;
  if (sqlite3_step(st) == SQLITE_ROW) {
    const char *sql = (const char *)sqlite3_column_text(st, 0);
    stale = sql && !strstr(sql, gc_views[i].select_sql);
  }
  sqlite3_finalize(st);
  return stale;
}

static int drop_stale_views(sqlite3 *db, char **msg) {
  for (size_t i = 0; i < sizeof gc_views / sizeof gc_views[0]; i++) {
    if (!view_is_stale(db, i)) continue;
    char sql[128];
    snprintf(sql, sizeof sql, "DROP VIEW IF EXISTS %s", gc_views[i].name);
    int rc = sqlite3_exec(db, sql, NULL, NULL, msg);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

static int has_column(sqlite3 *db, const char *table, const char *column) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st, NULL) != SQLITE_OK)
    return 1;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
  int has = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return has;
}

int gcs_db_gc_layout_old(sqlite3 *db) {
  return is_table(db, "gcs") || is_table(db, "gc_gens") || is_table(db, "gc_heaps") || is_table(db, "gc_heap_gens");
}

/* The compact tables, their views and triggers (gcs_tables.h), unless the
 * database has gcs (or gc_gens, gc_heaps, gc_heap_gens) as a table: the
 * older layout, read as it is. */
static int create_compact(sqlite3 *db, char **msg) {
  if (gcs_db_gc_layout_old(db)) return SQLITE_OK;
  char *sql = gcs_compact_schema_sql();
  if (!sql) {
    *msg = sqlite3_mprintf("out of memory");
    return SQLITE_NOMEM;
  }
  int rc = sqlite3_exec(db, sql, NULL, NULL, msg);
  free(sql);
  return rc;
}

/* The views of the compact tables and their INSTEAD OF triggers made by an
 * older gcscope (their SQL is not today's: the triggers of a value written
 * by hand, gcs_compact.c) are dropped, so that create_compact makes them
 * again: a database gets them at its next import (writing by hand is
 * writing, and the reports read the same rows either way, so they do not
 * ask for it: gcs_db_is_current leaves them out). The rows stay. */
static int refresh_compact_views(sqlite3 *db, char **msg) {
  if (gcs_db_gc_layout_old(db)) return SQLITE_OK;
  static const char *const views[] = { "gcs", "gc_gens", "gc_heaps", "gc_heap_gens" };
  char *script = gcs_compact_schema_sql();
  if (!script) {
    *msg = sqlite3_mprintf("out of memory");
    return SQLITE_NOMEM;
  }
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master WHERE (type = 'view' AND name = ?1) OR "
                              "(type = 'trigger' AND tbl_name = ?1 AND name IN (?1 || '_insert', ?1 || '_delete', "
                              "?1 || '_update'))", -1, &st, NULL);
  for (size_t i = 0; i < sizeof views / sizeof views[0] && rc == SQLITE_OK; i++) {
    int stale = 0;
    sqlite3_bind_text(st, 1, views[i], -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
      /* "CREATE VIEW gcs AS ...", "CREATE TRIGGER gcs_insert INSTEAD OF
       * ...": from the name on, as the script has it */
      const char *sql = (const char *)sqlite3_column_text(st, 0);
      const char *from = sql ? strstr(sql, views[i]) : NULL;
      if (from && !strstr(script, from)) stale = 1;
    }
    sqlite3_reset(st);
    if (stale) {
      char drop[64];
      snprintf(drop, sizeof drop, "DROP VIEW IF EXISTS %s", views[i]);   /* its triggers with it */
      rc = sqlite3_exec(db, drop, NULL, NULL, msg);
    }
  }
  sqlite3_finalize(st);
  free(script);
  return rc;
}

int gcs_db_is_current(sqlite3 *db) {
  for (size_t i = 0; i < sizeof became_views / sizeof became_views[0]; i++)
    if (is_table(db, became_views[i].table)) return 0;
  for (size_t i = 0; i < sizeof added_columns / sizeof added_columns[0]; i++)
    if (!has_column(db, added_columns[i].table, added_columns[i].column)) return 0;
  for (size_t i = 0; i < sizeof added_tables / sizeof added_tables[0]; i++)
    if (!has_column(db, added_tables[i].table, added_tables[i].column)) return 0;
  for (size_t i = 0; i < sizeof gc_views / sizeof gc_views[0]; i++)
    if (view_is_stale(db, i)) return 0;
  return 1;
}

static int add_missing_columns(sqlite3 *db, char **msg) {
  for (size_t i = 0; i < sizeof added_columns / sizeof added_columns[0]; i++) {
    if (has_column(db, added_columns[i].table, added_columns[i].column)) continue;
    char sql[256];
    snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", added_columns[i].table, added_columns[i].column,
             added_columns[i].type);
    int rc = sqlite3_exec(db, sql, NULL, NULL, msg);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

/* Can files be created beside path? (Errors other than EACCES/EROFS: let
 * SQLite report them.) */
/* fts3_tokenizer() hands out (one argument) or takes (two) a raw C pointer:
 * a leak of the address space, and with the second form a jump anywhere. */
static int deny_unsafe(void *ud, int action, const char *a1, const char *a2, const char *a3, const char *a4) {
  (void)ud; (void)a1; (void)a3; (void)a4;
  if (action == SQLITE_FUNCTION && a2 && sqlite3_stricmp(a2, "fts3_tokenizer") == 0) return SQLITE_DENY;
  return SQLITE_OK;
}

int gcs_db_harden(sqlite3 *db) {
  int rc = 0, on = 0;
  rc |= sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, &on) != SQLITE_OK || on != 0;
  rc |= sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &on) != SQLITE_OK || on != 1;
  rc |= sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &on) != SQLITE_OK || on != 0;
  rc |= sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 1, &on) != SQLITE_OK;
  rc |= sqlite3_set_authorizer(db, deny_unsafe, NULL) != SQLITE_OK;
  return rc ? -1 : 0;
}

static int dir_writable(const char *path) {
  char *dir = strdup(path);
  if (!dir) return 1;
  char *sl = strrchr(dir, '/');
  if (sl) sl[sl == dir ? 1 : 0] = '\0'; else strcpy(dir, ".");
  int w = access(dir, W_OK | X_OK) == 0 || (errno != EACCES && errno != EROFS);
  free(dir);
  return w;
}

/* Nothing is written to a file that is not ours: the file must be empty (or
 * new) or hold the traces table, and be writable, before the schema and the
 * journal settings touch it. */
static int check_target(sqlite3 *db, const char *path, char *err, size_t errlen) {
  sqlite3_stmt *q = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT count(*), coalesce(sum(type = 'table' AND name = 'traces'), 0) "
                              "FROM sqlite_master", -1, &q, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(q);
  if (rc != SQLITE_ROW) {
    int code = sqlite3_errcode(db);
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
      snprintf(err, errlen, "%s: not a gcscope database (not an SQLite file)", path);
    else if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
      snprintf(err, errlen, "%s: database is locked by another process", path);
    else
      snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
    sqlite3_finalize(q);
    return -1;
  }
  int objects = sqlite3_column_int(q, 0), traces = sqlite3_column_int(q, 1);
  sqlite3_finalize(q);
  if (objects > 0 && !traces) {
    snprintf(err, errlen, "%s: not a gcscope database (an SQLite file with other tables; nothing written)", path);
    return -1;
  }
  if (sqlite3_db_readonly(db, "main") == 1) {
    snprintf(err, errlen, "%s: permission denied (read-only database)", path);
    return -1;
  }
  /* The rollback journal goes beside the file. */
  if (!dir_writable(path)) {
    snprintf(err, errlen, "%s: permission denied (its directory is not writable: no room for the rollback journal)", path);
    return -1;
  }
  return 0;
}

static int db_version(sqlite3 *db) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "PRAGMA main.user_version", -1, &st, NULL) != SQLITE_OK) return 0;
  int v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
  sqlite3_finalize(st);
  return v;
}

/* The first table a database of its version has that is not there, or NULL. */
static const char *dropped_table(sqlite3 *db) {
  int v = db_version(db);
  if (v <= 0) return NULL;
  for (size_t i = 0; i < sizeof schema_tables / sizeof schema_tables[0]; i++) {
    int added = -1;   /* its place in added_tables, -1: in the first release */
    for (int k = 0; k < GCS_DB_VERSION && added < 0; k++)
      if (strcmp(added_tables[k].table, schema_tables[i]) == 0) added = k;
    if (added >= v) continue;   /* made after the version that wrote it */
    if (!is_table(db, schema_tables[i])) return schema_tables[i];
  }
  return NULL;
}

int gcs_db_views_read(sqlite3 *db, char *what, size_t whatlen, char *why, size_t whylen) {
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(db, "SELECT name FROM main.sqlite_master WHERE type = 'view' ORDER BY name", -1, &q, NULL) !=
      SQLITE_OK)
    return 0;   /* (the caller read sqlite_master a moment ago) */
  int bad = 0;
  while (!bad && sqlite3_step(q) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(q, 0);
    if (!name) continue;
    char *sql = sqlite3_mprintf("SELECT * FROM main.\"%w\" LIMIT 0", name);
    sqlite3_stmt *v = NULL;
    /* (A view over a legacy_* table that is not there is the update's own:
     * a database whose events were a table, its alloc_ticks a view, gets
     * views over all three legacy tables. Not a dropped table.) */
    if (sql && sqlite3_prepare_v2(db, sql, -1, &v, NULL) != SQLITE_OK &&
        !strstr(sqlite3_errmsg(db), "no such table: main.legacy_")) {
      snprintf(what, whatlen, "view %s does not read", name);
      snprintf(why, whylen, "%s", sqlite3_errmsg(db));
      bad = 1;
    }
    sqlite3_finalize(v);
    sqlite3_free(sql);
  }
  sqlite3_finalize(q);
  const char *t = bad ? NULL : dropped_table(db);
  if (t) {
    snprintf(what, whatlen, "table %s is missing", t);
    snprintf(why, whylen, "dropped: schema version %d has it", db_version(db));
    bad = 1;
  }
  return bad ? -1 : 0;
}

/* What a file that is not a regular one is, for the refusal of -d. */
static const char *file_kind(mode_t m) {
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

sqlite3 *gcs_db_open(const char *path, char *err, size_t errlen) {
  sqlite3 *db = NULL;
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "%s: is a directory (the database is a file: -d %s%sgcscope.db?)", path, path,
             path[0] && path[strlen(path) - 1] == '/' ? "" : "/");
    return NULL;
  }
  /* A device, FIFO or socket (or a link to one) is no database: SQLite
   * would write to it (/dev/full: "database or disk is full", and a
   * /dev/full-journal left beside it). Refused before it is opened. A
   * link to a regular file is followed (stat). */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "%s: is %s, not a database file (nothing written)", path, file_kind(st.st_mode));
    return NULL;
  }
  int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc != SQLITE_OK) {
    int exists = access(path, F_OK) == 0;
    if (rc == SQLITE_CANTOPEN && (exists ? access(path, R_OK) != 0 && errno == EACCES : !dir_writable(path)))
      snprintf(err, errlen, "%s: permission denied (%s)", path, exists ? "cannot read it" : "cannot create it");
    else
      snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 5000);
  if (gcs_db_harden(db) != 0 || gcs_db_functions(db) != 0) {
    snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
    sqlite3_close(db);
    return NULL;
  }
  if (check_target(db, path, err, errlen) != 0) {
    sqlite3_close(db);
    return NULL;
  }
  /* A table of it dropped (by hand, or a tool that "cleaned it up"): the
   * schema script below would make it again, empty, and the import would
   * add a trace beside GCs that are gone. Refused as the reports refuse it
   * (gcs_input_open), before anything is written. */
  char what[160], why[256];
  if (gcs_db_views_read(db, what, sizeof what, why, sizeof why) != 0) {
    snprintf(err, errlen, "%s: damaged database: %s (%s)", path, what, why);
    sqlite3_close(db);
    return NULL;
  }
  char *msg = NULL;
  /* Bulk-load settings: the rollback journal keeps each trace's transaction
   * atomic (a crash or Ctrl-C leaves the database as it was); NORMAL sync
   * and a large page cache keep the load fast. 8 KB pages (a new file
   * only): with the events in deflated blocks, each block's last overflow
   * page is half empty on average and every empty table or index still
   * takes a page: 16 KB pages made the database 4-9 % larger than 8 KB
   * (0.351x -> 0.323x the trace on a 10 MB verbose recording, 0.299x ->
   * 0.287x on the alloc profile), for the same import and report CPU
   * (docs/import.md, "Round three"). */
  rc = sqlite3_exec(db,
                    "PRAGMA page_size=8192; PRAGMA journal_mode=DELETE; PRAGMA synchronous=NORMAL; "
                    "PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;",
                    NULL, NULL, &msg);
  /* The schema in one transaction: one journal sync for a new file, not
   * three per CREATE (about 60 fdatasync calls). Deferred: on a database
   * that has it all, nothing is written and no write lock is taken. */
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "BEGIN", NULL, NULL, &msg);
  if (rc == SQLITE_OK) rc = rename_old_tables(db, &msg);
  if (rc == SQLITE_OK) rc = drop_stale_views(db, &msg);
  if (rc == SQLITE_OK) rc = refresh_compact_views(db, &msg);
  if (rc == SQLITE_OK) rc = create_compact(db, &msg);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, schema_sql, NULL, NULL, &msg);
  if (rc == SQLITE_OK) rc = add_missing_columns(db, &msg);
  /* Every table is there now: the version says so (a database of a newer
   * gcscope keeps its own; an unchanged one is not written). */
  if (rc == SQLITE_OK && db_version(db) < GCS_DB_VERSION) {
    char v[64];
    snprintf(v, sizeof v, "PRAGMA main.user_version = %d", GCS_DB_VERSION);
    rc = sqlite3_exec(db, v, NULL, NULL, &msg);
  }
  /* The indexes exist before the first row: the import maintains them as it
   * inserts (events_by_time and the GC tables' indexes take rows in key
   * order, appended), instead of sorting the tables after the last event,
   * when nothing else runs (0.3 s of 4 on the alloc-heavy trace). */
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, index_sql, NULL, NULL, &msg);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, &msg);
  if (rc != SQLITE_OK && !sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  if (rc != SQLITE_OK) {
    /* A file that is not a database ends up here ("file is not a database"). */
    snprintf(err, errlen, "%s: %s", path, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

/* One transaction for all of them: one journal sync, not one per index. */
int gcs_db_create_indexes(sqlite3 *db, char *err, size_t errlen) {
  char *msg = NULL;
  int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &msg);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, index_sql, NULL, NULL, &msg);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, &msg);
  if (rc != SQLITE_OK) {
    snprintf(err, errlen, "creating indexes: %s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
  }
  return 0;
}
