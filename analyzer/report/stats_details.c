/* stats_details.c — issue 26's figures of `gcscope stats`: the GC settings of
 * a process (processes, gc_process_summary) and, for the JSON and HTML
 * reports, each GC's per-generation table (gc_gens), pinning and background
 * GC revisits (gcs), per-heap mark times (gc_mark_times), LOH compaction
 * (gc_loh_compact) and fit buckets (gc_fit_buckets). A database made before
 * these columns and tables (opened read-only, not upgraded) lacks them: the
 * figures stay unknown (NaN, no rows), never an error. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_gcdb.h"
#include "stats_details.h"

const char *const st_genf_names[ST_GENF_N] = { "size_before", "budget", "in", "out", "obj_size_after", "frag",
                                               "promoted" };
const char *const st_gen_keys[GCS_GEN_POH + 1] = { "gen0", "gen1", "gen2", "loh", "poh" };

static double dcol(sqlite3_stmt *s, int i) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}
static int64_t icol(sqlite3_stmt *s, int i) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, i);
}

static sqlite3_stmt *prep(sqlite3 *db, const char *sql, const struct st_proc *p) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) return NULL;
  sqlite3_bind_int64(s, 1, p->trace_id);
  sqlite3_bind_int(s, 2, p->pid);
  return s;
}

void st_load_settings(sqlite3 *db, struct st_proc *p) {
  struct st_settings *t = &p->set;
  int64_t *f[] = { &t->startup_flags, &t->bits, &t->loh_threshold, &t->physical_memory_config,
                   &t->gen0_min_budget_config, &t->gen0_max_budget_config, &t->high_mem_percent_config,
                   &t->pin_object_events, &t->pin_plug_events, &t->fit_bucket_events };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) *f[i] = -1;
  sqlite3_stmt *s = prep(db,
                         "SELECT startup_flags, gc_settings_bits, gc_loh_threshold, gc_physical_memory_config, "
                         "gc_gen0_min_budget_config, gc_gen0_max_budget_config, gc_high_mem_percent_config "
                         "FROM processes WHERE trace_id = ?1 AND pid = ?2 LIMIT 1",
                         p);
  if (s && sqlite3_step(s) == SQLITE_ROW)
    for (int i = 0; i < 7; i++) *f[i] = icol(s, i);
  sqlite3_finalize(s);
  s = prep(db,
           "SELECT pin_object_events, pin_plug_events, fit_bucket_events FROM gc_process_summary "
           "WHERE trace_id = ?1 AND pid = ?2 LIMIT 1",
           p);
  if (s && sqlite3_step(s) == SQLITE_ROW)
    for (int i = 0; i < 3; i++) *f[7 + i] = icol(s, i);
  sqlite3_finalize(s);
  t->array_events_left_out = -1;  /* (its own query: a database imported before it lacks the column) */
  s = prep(db, "SELECT array_events_left_out FROM gc_process_summary WHERE trace_id = ?1 AND pid = ?2 LIMIT 1", p);
  if (s && sqlite3_step(s) == SQLITE_ROW) t->array_events_left_out = icol(s, 0);
  sqlite3_finalize(s);
  /* The summary's lines: LOH compactions, pinning, revisits (complete GCs) */
  t->loh_compactions = t->pin_gcs = t->revisit_bgcs = 0;
  t->loh_first_gc = -1;
  t->loh_max_compact_us = t->pin_max_obj_bytes = t->pin_plug_bytes = t->pin_user_plug_bytes = NAN;
  t->revisit_pages = t->revisit_objects = NAN;
  s = prep(db,
           "SELECT count(DISTINCT l.gc_id), min(c.gc_index), max(l.time_compact_usec) FROM gcs c "
           "JOIN gc_loh_compact l ON l.gc_id = c.id WHERE c.trace_id = ?1 AND c.pid = ?2 AND c.complete = 1",
           p);
  if (s && sqlite3_step(s) == SQLITE_ROW) {
    t->loh_compactions = sqlite3_column_int64(s, 0);
    t->loh_first_gc = icol(s, 1);
    t->loh_max_compact_us = dcol(s, 2);
  }
  sqlite3_finalize(s);
  s = prep(db,
           "SELECT count(*), max(pinned_obj_bytes), sum(pinned_plug_bytes), sum(user_pinned_plug_bytes) FROM gcs "
           "WHERE trace_id = ?1 AND pid = ?2 AND complete = 1 AND pinned_obj_bytes > 0",
           p);
  if (s && sqlite3_step(s) == SQLITE_ROW) {
    t->pin_gcs = sqlite3_column_int64(s, 0);
    t->pin_max_obj_bytes = dcol(s, 1);
    t->pin_plug_bytes = dcol(s, 2);
    t->pin_user_plug_bytes = dcol(s, 3);
  }
  sqlite3_finalize(s);
  s = prep(db,
           "SELECT count(*), sum(bgc_revisit_pages + bgc_revisit_loh_pages), "
           "sum(bgc_revisit_objects + bgc_revisit_loh_objects) FROM gcs "
           "WHERE trace_id = ?1 AND pid = ?2 AND complete = 1 AND bgc_revisit_pages IS NOT NULL",
           p);
  if (s && sqlite3_step(s) == SQLITE_ROW) {
    t->revisit_bgcs = sqlite3_column_int64(s, 0);
    t->revisit_pages = dcol(s, 1);
    t->revisit_objects = dcol(s, 2);
  }
  sqlite3_finalize(s);
}

/* gcs.id -> index into p->gcs */
struct id_ix { int64_t id; int i; };
static int by_id(const void *a, const void *b) {
  int64_t x = ((const struct id_ix *)a)->id, y = ((const struct id_ix *)b)->id;
  return x < y ? -1 : x > y;
}
static struct st_gc *gc_of(const struct id_ix *ix, int n, struct st_gc *gcs, int64_t id) {
  struct id_ix key = { id, 0 };
  const struct id_ix *h = bsearch(&key, ix, (size_t)n, sizeof *ix, by_id);
  return h ? &gcs[h->i] : NULL;
}

/* Grows *arr (elem bytes each) to hold n + 1; -1 when out of memory. */
static int grow(void **arr, int *cap, int n, size_t elem) {
  if (n < *cap) return 0;
  int nc = *cap ? *cap * 2 : 64;
  void *q = realloc(*arr, (size_t)nc * elem);
  if (!q) return -1;
  *arr = q;
  *cap = nc;
  return 0;
}

void st_load_details(sqlite3 *db, struct st_proc *p) {
  for (int i = 0; i < p->ngcs; i++) {
    struct st_gc *g = &p->gcs[i];
    for (int k = GCS_GEN0; k <= GCS_GEN_POH; k++)
      for (int f = 0; f < ST_GENF_N; f++) g->genf[k][f] = NAN;
    g->pin_obj_bytes = g->pin_plug_bytes = g->user_pin_plug_bytes = NAN;
    for (int k = 0; k < 4; k++) g->revisit[k] = NAN;
    g->mark0 = g->nmark = g->loh0 = g->nloh = g->fit0 = g->nfit = 0;
  }
  if (p->ngcs <= 0) return;
  struct id_ix *ix = malloc(sizeof *ix * (size_t)(unsigned)p->ngcs);
  if (!ix) return;
  for (int i = 0; i < p->ngcs; i++) ix[i] = (struct id_ix){ p->gcs[i].id, i };
  qsort(ix, (size_t)p->ngcs, sizeof *ix, by_id);

  /* The compact layout (schemas/gcs_tables.h): gc_gens_base, the five
   * generations of a GC in a row, figures E6; read here rather than through
   * the view, whose CASE per value made the whole report 15 % slower. */
  static const char *const genf_cols[ST_GENF_N] = { "size_before_mb", "budget_mb", "in_mb", "out_mb",
                                                    "obj_size_after_mb", "frag_mb", "promoted_mb" };
  if (gcs_gcdb_compact(db)) {
    char sql[1024];
    int n = snprintf(sql, sizeof sql, "SELECT g.gc_id, g.gens");
    for (int k = GCS_GEN0; k <= GCS_GEN_POH; k++)
      for (int f = 0; f < ST_GENF_N && n < (int)sizeof sql; f++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", g.g%d_%s", k, genf_cols[f]);
    if (n < (int)sizeof sql)
      snprintf(sql + n, sizeof sql - (size_t)n, " FROM gcs_base c JOIN gc_gens_base g ON g.gc_id = c.id "
                                                "WHERE c.trace_id = ?1 AND c.pid = ?2");
    sqlite3_stmt *s = prep(db, sql, p);
    while (s && sqlite3_step(s) == SQLITE_ROW) {
      struct st_gc *g = gc_of(ix, p->ngcs, p->gcs, sqlite3_column_int64(s, 0));
      int gens = sqlite3_column_int(s, 1);
      for (int k = GCS_GEN0; g && k <= GCS_GEN_POH; k++)
        if (gens >> k & 1)
          for (int f = 0; f < ST_GENF_N; f++) g->genf[k][f] = gcs_gcdb_e6(s, 2 + k * ST_GENF_N + f);
    }
    sqlite3_finalize(s);
  }
  sqlite3_stmt *s = gcs_gcdb_compact(db) ? NULL : prep(db,
                         "SELECT g.gc_id, g.gen, g.size_before_mb, g.budget_mb, g.in_mb, g.out_mb, "
                         "g.obj_size_after_mb, g.frag_mb, g.promoted_mb FROM gcs c JOIN gc_gens g ON g.gc_id = c.id "
                         "WHERE c.trace_id = ?1 AND c.pid = ?2",
                         p);
  while (s && sqlite3_step(s) == SQLITE_ROW) {
    struct st_gc *g = gc_of(ix, p->ngcs, p->gcs, sqlite3_column_int64(s, 0));
    int k = sqlite3_column_int(s, 1);
    if (!g || k < GCS_GEN0 || k > GCS_GEN_POH) continue;
    for (int f = 0; f < ST_GENF_N; f++) g->genf[k][f] = dcol(s, 2 + f);
  }
  sqlite3_finalize(s);

  /* Pinning is known where the process has the events at all (the alloc,
   * handles, verbose profiles record PinObjectAtGCTime; verbose alone
   * PinPlugAtGCTime); a GC without any then pinned nothing. */
  int objs = p->set.pin_object_events > 0, plugs = p->set.pin_plug_events > 0;
  s = prep(db,
           "SELECT id, pinned_obj_bytes, pinned_plug_bytes, user_pinned_plug_bytes, bgc_revisit_pages, "
           "bgc_revisit_objects, bgc_revisit_loh_pages, bgc_revisit_loh_objects FROM gcs "
           "WHERE trace_id = ?1 AND pid = ?2",
           p);
  while (s && sqlite3_step(s) == SQLITE_ROW) {
    struct st_gc *g = gc_of(ix, p->ngcs, p->gcs, sqlite3_column_int64(s, 0));
    if (!g) continue;
    if (objs) g->pin_obj_bytes = dcol(s, 1);
    if (plugs) g->pin_plug_bytes = dcol(s, 2);
    if (plugs && objs) g->user_pin_plug_bytes = dcol(s, 3);
    for (int k = 0; k < 4; k++) g->revisit[k] = dcol(s, 4 + k);
  }
  sqlite3_finalize(s);

  int cap = 0;
  s = prep(db,
           "SELECT m.gc_id, m.heap, m.root_kind, m.mark_ns / 1e6, m.promoted_bytes FROM gcs c "
           "JOIN gc_mark_times m ON m.gc_id = c.id WHERE c.trace_id = ?1 AND c.pid = ?2 "
           "ORDER BY m.gc_id, m.heap, m.root_kind",
           p);
  while (s && sqlite3_step(s) == SQLITE_ROW) {
    struct st_gc *g = gc_of(ix, p->ngcs, p->gcs, sqlite3_column_int64(s, 0));
    if (!g || grow((void **)&p->marks, &cap, p->nmarks, sizeof *p->marks)) continue;
    if (!g->nmark) g->mark0 = p->nmarks;
    g->nmark++;
    p->marks[p->nmarks++] = (struct st_mark){ sqlite3_column_int(s, 1), sqlite3_column_int(s, 2), dcol(s, 3),
                                              dcol(s, 4) };
  }
  sqlite3_finalize(s);

  cap = 0;
  s = prep(db,
           "SELECT l.gc_id, l.heap, l.time_plan_usec, l.time_compact_usec, l.time_relocate_usec, l.total_refs, "
           "l.zero_refs FROM gcs c JOIN gc_loh_compact l ON l.gc_id = c.id WHERE c.trace_id = ?1 AND c.pid = ?2 "
           "ORDER BY l.gc_id, l.rowid",
           p);
  while (s && sqlite3_step(s) == SQLITE_ROW) {
    struct st_gc *g = gc_of(ix, p->ngcs, p->gcs, sqlite3_column_int64(s, 0));
    if (!g || grow((void **)&p->lohc, &cap, p->nlohc, sizeof *p->lohc)) continue;
    if (!g->nloh) g->loh0 = p->nlohc;
    g->nloh++;
    p->lohc[p->nlohc++] = (struct st_lohc){ sqlite3_column_int(s, 1), dcol(s, 2), dcol(s, 3), dcol(s, 4),
                                            dcol(s, 5), dcol(s, 6) };
  }
  sqlite3_finalize(s);

  cap = 0;
  s = prep(db,
           "SELECT f.gc_id, f.seq, f.bucket_kind, f.bucket, f.total_size, f.item_count, f.size FROM gcs c "
           "JOIN gc_fit_buckets f ON f.gc_id = c.id WHERE c.trace_id = ?1 AND c.pid = ?2 "
           "ORDER BY f.gc_id, f.seq, f.rowid",
           p);
  while (s && sqlite3_step(s) == SQLITE_ROW) {
    struct st_gc *g = gc_of(ix, p->ngcs, p->gcs, sqlite3_column_int64(s, 0));
    if (!g || grow((void **)&p->fits, &cap, p->nfits, sizeof *p->fits)) continue;
    if (!g->nfit) g->fit0 = p->nfits;
    g->nfit++;
    p->fits[p->nfits++] = (struct st_fit){ sqlite3_column_int(s, 1), sqlite3_column_int(s, 2),
                                           sqlite3_column_int(s, 3), dcol(s, 4), dcol(s, 5), dcol(s, 6) };
  }
  sqlite3_finalize(s);
  free(ix);
}

void st_free_details(struct st_proc *p) {
  free(p->marks);
  free(p->lohc);
  free(p->fits);
  p->marks = NULL;
  p->lohc = NULL;
  p->fits = NULL;
  p->nmarks = p->nlohc = p->nfits = 0;
}

/* The JSON key stem of a root kind: mark_<stem>_msec. */
const char *st_mark_stem(int kind) {
  switch (kind) {
  case GCS_ROOT_KIND_STACK: return "stack";
  case GCS_ROOT_KIND_FINALIZER: return "fq";
  case GCS_ROOT_KIND_HANDLE: return "handles";
  case GCS_ROOT_KIND_OLDER: return "older";
  case GCS_ROOT_KIND_SIZED_REF: return "sized_ref";
  case GCS_ROOT_KIND_OVERFLOW: return "overflow";
  case GCS_ROOT_KIND_DEPENDENT_HANDLE: return "dependent_handles";
  case GCS_ROOT_KIND_NEW_FQ: return "new_fq";
  case GCS_ROOT_KIND_STEAL: return "steal";
  default: return NULL;
  }
}
