/* tui_db.c — `gcscope top DB`: read the gcs table of a gcscope database
 * (schemas/tables_gc.def) into the model, and follow it: every poll reads the
 * rows whose rowid is above the last one seen, so GCs an import adds later
 * appear on screen. The database is opened read-only. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gcs_gcdb.h"
#include "tui_source.h"

struct tui_db {
  struct tui_source base;
  struct gcs_input in;
  sqlite3 *db;                 /* in.db */
  sqlite3_int64 last_rowid;
  int have_gcs;                /* the gcs table exists (an import may create it later) */
  long long nread;             /* GC rows read so far */
  sqlite3_stmt *fired;         /* does a stop rule name this GC (trigger_firings)? NULL: no such table */
  int fired_tried;
};

/* Rows read per poll (the rest comes on the next polls): the first poll
 * reads a few, so that the first frame is on the screen at once (marked
 * LOADING, its figures partial); the next ones read many, so that a large
 * database is complete after a frame or two (69,500 GCs: the second frame),
 * while a key still waits at most one poll (200,000 rows: about 0.3 s). */
#define TUI_DB_FIRST_ROWS 5000
#define TUI_DB_ROWS_PER_POLL 200000

/* The figures the model shows, read by the shared GC loader (gcs_gcdb.h). */
static const uint64_t tui_reals =
    GCS_GCDB_BIT(pause_start_msec) | GCS_GCDB_BIT(start_msec) | GCS_GCDB_BIT(duration_msec) |
    GCS_GCDB_BIT(suspend_msec) | GCS_GCDB_BIT(pause_msec) | GCS_GCDB_BIT(bgc_pause1_msec) |
    GCS_GCDB_BIT(bgc_pause2_msec) | GCS_GCDB_BIT(pct_pause_time) | GCS_GCDB_BIT(gen0_alloc_mb) |
    GCS_GCDB_BIT(total_alloc_mb) | GCS_GCDB_BIT(alloc_measured_mb) | GCS_GCDB_BIT(alloc_rate_mb_sec) | GCS_GCDB_BIT(peak_mb) |
    GCS_GCDB_BIT(after_mb) | GCS_GCDB_BIT(promoted_mb) | GCS_GCDB_BIT(gen0_mb) | GCS_GCDB_BIT(gen1_mb) |
    GCS_GCDB_BIT(gen2_mb) | GCS_GCDB_BIT(loh_mb) | GCS_GCDB_BIT(poh_mb) | GCS_GCDB_BIT(heap_count) |
    GCS_GCDB_BIT(committed_after_mb);

/* The model's view of one stored GC. */
static void model_gc(const struct gcs_gcdb_gc *r, struct tui_gc *gc) {
  tui_gc_init(gc);
  gc->db_id = r->id;
  gc->trace_id = r->trace_id;
  gc->pid = r->pid;
  gc->number = r->gc_index;
  gc->gen = (int)r->gen;
  gc->type = (int)r->type;
  gc->reason = (int)r->reason;
  gc->complete = r->complete;
  gc->start_ns = r->start_ns;
  /* The GC's last event: its end, its (final) restart or its heap stats. */
  const uint64_t ends[] = {r->end_ns, r->restart_end_ns, r->bgc_prep_restart_end_ns, r->heap_stats_ns};
  for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++)
    if (ends[k] > gc->end_ns) gc->end_ns = ends[k];
  gc->pause_start_ns = r->suspend_begin_ns ? r->suspend_begin_ns : r->start_ns;
  const double *v = r->real;
  gc->pause_start_ms = v[GCS_GCDB_R_pause_start_msec];
  gc->start_ms = v[GCS_GCDB_R_start_msec];
  gc->duration_ms = v[GCS_GCDB_R_duration_msec];
  gc->suspend_ms = v[GCS_GCDB_R_suspend_msec];
  gc->pause_ms = v[GCS_GCDB_R_pause_msec];
  gc->bgc_pause1_ms = v[GCS_GCDB_R_bgc_pause1_msec];
  gc->bgc_pause2_ms = v[GCS_GCDB_R_bgc_pause2_msec];
  gc->pct_pause = v[GCS_GCDB_R_pct_pause_time];
  gc->heap_count = v[GCS_GCDB_R_heap_count] > 0 ? (int)v[GCS_GCDB_R_heap_count] : 0;
  gc->gen0_alloc_mb = v[GCS_GCDB_R_gen0_alloc_mb];
  gc->alloc_perfview_mb = v[GCS_GCDB_R_total_alloc_mb];
  gc->alloc_mb = isnan(v[GCS_GCDB_R_alloc_measured_mb]) ? gc->alloc_perfview_mb : v[GCS_GCDB_R_alloc_measured_mb];
  gc->alloc_rate_mbs = v[GCS_GCDB_R_alloc_rate_mb_sec];
  gc->peak_mb = v[GCS_GCDB_R_peak_mb];
  gc->after_mb = v[GCS_GCDB_R_after_mb];
  gc->promoted_mb = v[GCS_GCDB_R_promoted_mb];
  gc->committed_mb = v[GCS_GCDB_R_committed_after_mb];
  static const int gen_cols[TUI_NGENS] = {GCS_GCDB_R_gen0_mb, GCS_GCDB_R_gen1_mb, GCS_GCDB_R_gen2_mb,
                                          GCS_GCDB_R_loh_mb, GCS_GCDB_R_poh_mb};
  for (int g = 0; g < TUI_NGENS; g++) gc->gen_after_mb[g] = v[gen_cols[g]];
}

struct poll_sink { struct tui_db *d; struct tui_model *m; int changed; long rows; };

/* 1 when a stop rule fired on the GC while record ran. */
static int was_fired(struct tui_db *d, const struct gcs_gcdb_gc *r) {
  if (!d->fired_tried) {
    d->fired_tried = 1;
    if (sqlite3_prepare_v2(d->db, "SELECT 1 FROM trigger_firings WHERE trace_id = ? AND pid = ? AND gc_index = ?",
                           -1, &d->fired, NULL) != SQLITE_OK)
      d->fired = NULL;
  }
  if (!d->fired) return 0;
  sqlite3_bind_int64(d->fired, 1, r->trace_id);
  sqlite3_bind_int64(d->fired, 2, r->pid);
  sqlite3_bind_int64(d->fired, 3, r->gc_index);
  int yes = sqlite3_step(d->fired) == SQLITE_ROW;
  sqlite3_reset(d->fired);
  return yes;
}

static int add_row(const struct gcs_gcdb_gc *r, void *ctx) {
  struct poll_sink *k = ctx;
  struct tui_gc gc;
  model_gc(r, &gc);
  gc.fired = was_fired(k->d, r);
  k->d->last_rowid = gc.db_id;
  if (tui_model_add_gc(k->m, &gc) < 0) return 1;
  k->changed = 1;
  k->rows++;
  return 0;
}

static double col_real(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int table_exists(sqlite3 *db, const char *name) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Does table have column? (PRAGMA table_info: the raw tables are owned by the
 * importer; the TUI uses what is there.) */
static int has_column(sqlite3 *db, const char *table, const char *col) {
  char sql[128];
  snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return 0;
  int found = 0;
  while (!found && sqlite3_step(st) == SQLITE_ROW)
    found = !strcmp((const char *)sqlite3_column_text(st, 1), col);
  sqlite3_finalize(st);
  return found;
}

static const char *first_column(sqlite3 *db, const char *table, const char *const *cands) {
  for (; *cands; cands++)
    if (has_column(db, table, *cands)) return *cands;
  return NULL;
}

/* Name and flavour of a process, from whatever the processes table holds. */
static void load_process_info(struct tui_db *d, struct tui_proc *p) {
  if (table_exists(d->db, "processes") != 1) return;
  static const char *const name_cols[] = { "procname", "name", "process_name", "command", NULL };
  const char *name = first_column(d->db, "processes", name_cols);
  int by_trace = has_column(d->db, "processes", "trace_id");
  char sql[256];
  if (name) {
    snprintf(sql, sizeof sql, "SELECT %s FROM processes WHERE pid = ?%s LIMIT 1", name,
             by_trace ? " AND trace_id = ?" : "");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) == SQLITE_OK) {
      sqlite3_bind_int(st, 1, p->pid);
      if (by_trace) sqlite3_bind_int64(st, 2, p->trace_id);
      if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        tui_copy_name(p->name, sizeof p->name, (const char *)sqlite3_column_text(st, 0));
      sqlite3_finalize(st);
    }
  }
  /* Flavour: workstation/server (heaps) and concurrent, if the importer knew them. */
  int srv = has_column(d->db, "processes", "server_gc");
  int conc = has_column(d->db, "processes", "concurrent_gc");
  int heaps = has_column(d->db, "processes", "heap_count");
  if (srv || conc) {
    snprintf(sql, sizeof sql, "SELECT %s, %s, %s FROM processes WHERE pid = ?%s LIMIT 1",
             srv ? "server_gc" : "NULL", conc ? "concurrent_gc" : "NULL", heaps ? "heap_count" : "NULL",
             by_trace ? " AND trace_id = ?" : "");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) == SQLITE_OK) {
      sqlite3_bind_int(st, 1, p->pid);
      if (by_trace) sqlite3_bind_int64(st, 2, p->trace_id);
      if (sqlite3_step(st) == SQLITE_ROW) {
        int known_srv = sqlite3_column_type(st, 0) != SQLITE_NULL;
        int is_srv = known_srv && sqlite3_column_int(st, 0);
        int known_conc = sqlite3_column_type(st, 1) != SQLITE_NULL;
        int nheaps = sqlite3_column_type(st, 2) == SQLITE_NULL ? 0 : sqlite3_column_int(st, 2);
        char h[32] = "";
        if (is_srv && nheaps > 0) snprintf(h, sizeof h, " %d heaps", nheaps);
        snprintf(p->flavour, sizeof p->flavour, "%s%s%s%s", known_srv ? (is_srv ? "Server" : "Workstation") : "",
                 h, known_srv && known_conc ? " " : "",
                 known_conc ? (sqlite3_column_int(st, 1) ? "concurrent" : "non-concurrent") : "");
      }
      sqlite3_finalize(st);
    }
  }
}

/* Process extent (first/last event) from gc_process_summary, when present. */
static void load_process_extent(struct tui_db *d, struct tui_model *m, struct tui_proc *p) {
  if (table_exists(d->db, "gc_process_summary") != 1) return;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(d->db,
                         "SELECT first_event_msec, last_event_msec, heap_count FROM gc_process_summary"
                         " WHERE trace_id = ? AND pid = ? LIMIT 1", -1, &st, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_int64(st, 1, p->trace_id);
  sqlite3_bind_int(st, 2, p->pid);
  if (sqlite3_step(st) == SQLITE_ROW) {
    tui_model_touch(m, p->trace_id, p->pid, col_real(st, 0));
    tui_model_touch(m, p->trace_id, p->pid, col_real(st, 1));
    if (!p->flavour[0] && sqlite3_column_type(st, 2) != SQLITE_NULL)
      snprintf(p->flavour, sizeof p->flavour, "%d heap%s", sqlite3_column_int(st, 2),
               sqlite3_column_int(st, 2) == 1 ? "" : "s");
  }
  sqlite3_finalize(st);
}

/* The process's complete requests (requests table), on the GCs' ms scale
 * (its origin from a GC's pause start in ns and in ms). */
static void load_requests(struct tui_db *d, struct tui_model *m, struct tui_proc *p) {
  if (table_exists(d->db, "requests") != 1) return;
  double origin_ns = NAN;
  for (size_t i = 0; i < p->ngcs && isnan(origin_ns); i++)
    if (p->gcs[i].pause_start_ns && !isnan(p->gcs[i].pause_start_ms))
      origin_ns = (double)p->gcs[i].pause_start_ns - p->gcs[i].pause_start_ms * 1e6;
  if (isnan(origin_ns)) return;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(d->db, "SELECT start_ns, end_ns FROM requests WHERE trace_id = ? AND pid = ? AND start_ns "
                                "IS NOT NULL AND end_ns IS NOT NULL AND end_ns >= start_ns ORDER BY end_ns", -1, &st,
                         NULL) != SQLITE_OK)
    return;
  sqlite3_bind_int64(st, 1, p->trace_id);
  sqlite3_bind_int(st, 2, p->pid);
  int64_t tid = p->trace_id;
  int32_t pid = p->pid;   /* p may move as the model grows */
  while (sqlite3_step(st) == SQLITE_ROW) {
    int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
    if (tui_model_add_request(m, tid, pid, ((double)b - origin_ns) / 1e6, (double)(b - a) / 1e6) != 0) break;
  }
  sqlite3_finalize(st);
}

static int db_poll(struct tui_source *src, struct tui_model *m) {
  struct tui_db *d = (struct tui_db *)src;
  src->note[0] = '\0';
  if (!d->have_gcs) {
    int e = table_exists(d->db, "gcs");
    if (e < 0) { src->note[0] = '\0'; snprintf(src->note, sizeof src->note, "database busy"); return 0; }
    if (e == 0) { snprintf(src->note, sizeof src->note, "no GCs yet: waiting for an import"); return 0; }
    d->have_gcs = 1;
  }
  size_t nprocs_before = tui_model_nprocs(m);
  const int limit = d->nread ? TUI_DB_ROWS_PER_POLL : TUI_DB_FIRST_ROWS;
  const struct gcs_gcdb_query q = {.trace_id = -1, .pid = -1, .after_id = d->last_rowid,
                                   .limit = limit, .reals = tui_reals};
  struct poll_sink k = {d, m, 0, 0};
  char err[256];
  int rc = gcs_gcdb_each(d->db, &q, add_row, &k, err, sizeof err);
  if (rc > 0) {
    snprintf(src->err, sizeof src->err, "out of memory");
    return -1;
  }
  if (rc < 0) {
    int code = sqlite3_errcode(d->db);
    if (code != SQLITE_BUSY && code != SQLITE_LOCKED) {  /* an import holds it: next time */
      snprintf(src->err, sizeof src->err, "%.100s: %.100s", src->desc, err);
      return -1;
    }
  }
  int changed = k.changed;
  d->nread += k.rows;
  /* A full batch: more rows wait. Until they are in, the figures are
   * partial: the source says so (title and status line) and the loop polls
   * again at once. */
  src->loading = rc == 0 && k.rows == limit;
  if (src->loading) {
    sqlite3_stmt *st;
    long long total = -1;
    if (sqlite3_prepare_v2(d->db, "SELECT count(*) FROM gcs", -1, &st, NULL) == SQLITE_OK) {
      if (sqlite3_step(st) == SQLITE_ROW) total = sqlite3_column_int64(st, 0);
      sqlite3_finalize(st);
    }
    if (total > 0) snprintf(src->note, sizeof src->note, "loading: %lld of %lld GCs read, figures partial", d->nread, total);
    else snprintf(src->note, sizeof src->note, "loading: %lld GCs read, figures partial", d->nread);
  }
  if (changed) {
    /* New processes: their names/flavour; every touched process: its extent. */
    for (size_t i = 0; i < tui_model_nprocs(m); i++) {
      struct tui_proc *p = tui_model_proc_at(m, i);
      if (i >= nprocs_before) load_process_info(d, p);
      load_process_extent(d, m, p);
      if (i >= nprocs_before) load_requests(d, m, tui_model_proc_at(m, i));
    }
  }
  return changed;
}

/* Per-generation sizes before/after from gc_gens (summed over heaps). */
static void load_gens(struct tui_db *d, struct tui_gc *gc) {
  if (table_exists(d->db, "gc_gens") != 1) return;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(d->db, "SELECT gen, size_before_mb, size_after_mb FROM gc_gens WHERE gc_id = ?",
                         -1, &st, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_int64(st, 1, gc->db_id);
  while (sqlite3_step(st) == SQLITE_ROW) {
    int g = sqlite3_column_int(st, 0);
    if (g < 0 || g >= TUI_NGENS) continue;
    gc->gen_before_mb[g] = col_real(st, 1);
    double after = col_real(st, 2);
    if (!isnan(after)) gc->gen_after_mb[g] = after;
  }
  sqlite3_finalize(st);
}

/* The GC's events from the events table: from its pause start to its last
 * restart. Column names are looked up (the raw tables belong to the importer). */
static long db_gc_events(struct tui_source *src, struct tui_gc *gc, struct tui_evline **out) {
  struct tui_db *d = (struct tui_db *)src;
  *out = NULL;
  load_gens(d, gc);
  if (!gc->pause_start_ns || !gc->end_ns || table_exists(d->db, "events") != 1) return 0;
  static const char *const ts_cols[] = { "ts_ns", "ts", "time_ns", "timestamp", NULL };
  static const char *const name_cols[] = { "name", "event", "event_name", NULL };
  static const char *const text_cols[] = { "payload", "fields", "text", "args", NULL };
  const char *ts = first_column(d->db, "events", ts_cols);
  const char *name = first_column(d->db, "events", name_cols);
  const char *text = first_column(d->db, "events", text_cols);
  if (!ts || !name) return 0;
  int by_trace = has_column(d->db, "events", "trace_id");
  char sql[640];
  snprintf(sql, sizeof sql,
           "SELECT %s, %s, %s FROM events WHERE pid = ? AND %s BETWEEN ? AND ?%s ORDER BY %s LIMIT 500",
           ts, name, text ? text : "''", ts, by_trace ? " AND trace_id = ?" : "", ts);
  /* Packed events (event_blocks, no older rows): only the blocks that
   * overlap the GC are inflated, not the whole trace's. */
  if (by_trace && table_exists(d->db, "event_blocks") == 1 && table_exists(d->db, "legacy_events") == 0)
    snprintf(sql, sizeof sql,
             "SELECT u.ts_ns, u.name, u.payload FROM event_blocks b, gcs_unpack(b.data) u WHERE b.ticks = 0 "
             "AND b.trace_id = ?4 AND b.last_ns >= ?2 AND b.first_ns <= ?3 AND u.pid = ?1 "
             "AND u.ts_ns BETWEEN ?2 AND ?3 ORDER BY u.ts_ns, b.id, u.seq LIMIT 500");
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) return 0;
  sqlite3_bind_int(st, 1, gc->pid);
  sqlite3_bind_int64(st, 2, (sqlite3_int64)gc->pause_start_ns);
  sqlite3_bind_int64(st, 3, (sqlite3_int64)gc->end_ns);
  if (by_trace) sqlite3_bind_int64(st, 4, gc->trace_id);
  /* Trace origin from this GC's own absolute and relative start. */
  double origin_ms = (double)gc->start_ns / 1e6 - gc->start_ms;
  size_t n = 0, cap = 0;
  struct tui_evline *v = NULL;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (n == cap) {
      cap = cap ? cap * 2 : 32;
      struct tui_evline *nv = realloc(v, cap * sizeof *nv);
      if (!nv) { free(v); sqlite3_finalize(st); return -1; }
      v = nv;
    }
    struct tui_evline *e = &v[n++];
    e->ms = (double)sqlite3_column_int64(st, 0) / 1e6 - origin_ms;
    const unsigned char *nm = sqlite3_column_text(st, 1), *tx = sqlite3_column_text(st, 2);
    tui_copy_name(e->name, sizeof e->name, nm ? (const char *)nm : "?");
    snprintf(e->text, sizeof e->text, "%s", tx ? (const char *)tx : "");
  }
  sqlite3_finalize(st);
  *out = v;
  return (long)n;
}

static void db_close(struct tui_source *src) {
  struct tui_db *d = (struct tui_db *)src;
  sqlite3_finalize(d->fired);
  gcs_input_close(&d->in);
  free(d);
}

static const struct tui_source_ops db_ops = { db_poll, db_gc_events, db_close };

struct tui_source *tui_db_open(const char *path, char *err, size_t errlen) {
  struct stat sb;
  if (stat(path, &sb) != 0) { snprintf(err, errlen, "%s: no such database", path); return NULL; }
  if (!S_ISREG(sb.st_mode)) { snprintf(err, errlen, "%s: not a database file", path); return NULL; }
  struct tui_db *d = calloc(1, sizeof *d);
  if (!d) { snprintf(err, errlen, "out of memory"); return NULL; }
  /* A database only, maybe still empty: an import may create the tables later. */
  const struct gcs_input_opts io = {.trace_id = -1, .db_only = 1, .allow_empty = 1};
  if (gcs_input_open(path, &io, &d->in, err, errlen)) {
    free(d);
    return NULL;
  }
  d->db = d->in.db;
  /* The screen polls every half second: wait briefly for an import's lock and
   * try again on the next poll rather than freeze the screen. */
  sqlite3_busy_timeout(d->db, 50);
  d->base.ops = &db_ops;
  d->base.poll_ms = 500;
  const char *base = strrchr(path, '/');
  snprintf(d->base.desc, sizeof d->base.desc, "DB %s", base && base[1] ? base + 1 : path);
  return &d->base;
}
