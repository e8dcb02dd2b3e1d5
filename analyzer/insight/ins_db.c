/* ins_db.c — reading the insight inputs from the gcscope database (see ins_db.h). */
#include "ins_db.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_gcdb.h"

static int prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, char *err, size_t errlen) {
  if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

static int step_done(sqlite3 *db, int rc, char *err, size_t errlen) {
  if (rc != SQLITE_DONE) {
    snprintf(err, errlen, "database: %s", sqlite3_errmsg(db));
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

/* Runs sql with ?1 = trace id and ?2 = pid of p and turns each row into one
 * element of size sz with fill(). *out is malloc'ed (the caller frees it). */
static int load_proc_rows(sqlite3 *db, const char *sql, const struct ins_proc_key *p, size_t sz,
                          void (*fill)(sqlite3_stmt *st, void *elem), void **out, size_t *n, char *err,
                          size_t errlen) {
  sqlite3_stmt *st;
  *out = NULL;
  *n = 0;
  if (prep(db, sql, &st, err, errlen)) return -1;
  sqlite3_bind_int64(st, 1, p->trace_id);
  sqlite3_bind_int(st, 2, p->pid);
  size_t cap = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (grow(out, &cap, *n, sz)) break;
    fill(st, (char *)*out + (*n)++ * sz);
  }
  sqlite3_finalize(st);
  return step_done(db, rc, err, errlen);
}

int ins_db_processes(sqlite3 *db, int with_requests, struct ins_proc_key **out, size_t *n, char *err, size_t errlen) {
  const char *sql =
      "SELECT k.trace_id, k.pid, coalesce(p.name, ''), coalesce(p.first_ns, 0), coalesce(p.last_ns, 0), "
      "coalesce(t.start_ns, 0) FROM (SELECT DISTINCT trace_id, pid FROM gcs UNION "
      "SELECT DISTINCT trace_id, pid FROM requests WHERE ?1) k "
      "LEFT JOIN processes p ON p.trace_id = k.trace_id AND p.pid = k.pid "
      "LEFT JOIN traces t ON t.id = k.trace_id WHERE " GCS_IN_INPUT("k.trace_id") " "
      "GROUP BY k.trace_id, k.pid ORDER BY k.trace_id, k.pid";
  sqlite3_stmt *st;
  *out = NULL;
  *n = 0;
  if (prep(db, sql, &st, err, errlen)) return -1;
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
  return step_done(db, rc, err, errlen);
}

int ins_db_pauses(sqlite3 *db, const struct ins_proc_key *p, struct ins_pause **out, size_t *n, char *err,
                  size_t errlen) {
  struct gcs_gcdb_pause *v;
  size_t nv;
  char e[256];
  *out = NULL;
  *n = 0;
  if (gcs_gcdb_pauses(db, p->trace_id, p->pid, &v, &nv, e, sizeof e)) {
    snprintf(err, errlen, "%s", e);
    return -1;
  }
  *out = malloc(sizeof **out * (nv ? nv : 1));
  if (!*out) {
    free(v);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < nv; i++) (*out)[i] = (struct ins_pause){v[i].gc_index, v[i].start_ns, v[i].end_ns};
  *n = nv;
  free(v);
  return 0;
}

static void fill_request(sqlite3_stmt *st, void *elem) {
  *(struct ins_request *)elem = (struct ins_request){(uint64_t)sqlite3_column_int64(st, 0),
                                                     sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)};
}

int ins_db_requests(sqlite3 *db, const struct ins_proc_key *p, struct ins_request **out, size_t *n, char *err,
                    size_t errlen) {
  const char *sql = "SELECT request_id, start_ns, end_ns FROM requests WHERE trace_id = ?1 AND pid = ?2 "
                    "AND start_ns IS NOT NULL AND end_ns IS NOT NULL ORDER BY start_ns";
  return load_proc_rows(db, sql, p, sizeof **out, fill_request, (void **)out, n, err, errlen);
}

/* The advisor's view of one stored GC. */
static struct ins_gc advisor_gc(const struct gcs_gcdb_gc *g) {
  double pinned = g->real[GCS_GCDB_R_pinned_obj];
  return (struct ins_gc){
      .index = g->gc_index, .gen = (int)g->gen, .type = (int)g->type, .reason = (int)g->reason,
      .start_ms = g->real[GCS_GCDB_R_pause_start_msec], .pause_ms = g->real[GCS_GCDB_R_pause_msec],
      .suspend_ms = g->real[GCS_GCDB_R_suspend_msec], .promoted_mb = g->real[GCS_GCDB_R_promoted_mb],
      .peak_mb = g->real[GCS_GCDB_R_peak_mb], .after_mb = g->real[GCS_GCDB_R_after_mb],
      .gen0_frag_pct = g->real[GCS_GCDB_R_gen0_frag_pct], .gen2_frag_before_pct = g->gen2_frag_before_pct,
      .pinned_objects = isnan(pinned) ? 0 : (uint32_t)pinned, .condemn_conditions = g->condemn_conditions,
      .gen0_survival_pct = g->real[GCS_GCDB_R_gen0_survival_pct],
      .gen1_survival_pct = g->real[GCS_GCDB_R_gen1_survival_pct],
      .gen2_survival_pct = g->real[GCS_GCDB_R_gen2_survival_pct],
      .finalizable_surv_mb = g->real[GCS_GCDB_R_finalizable_surv_mb],
      .committed_after_mb = isnan(g->real[GCS_GCDB_R_committed_after_mb]) ? 0 : g->real[GCS_GCDB_R_committed_after_mb],
      .mark_heaps = isnan(g->real[GCS_GCDB_R_mark_heaps]) ? 0 : (int)g->real[GCS_GCDB_R_mark_heaps],
      .mark_slow_ms = isnan(g->real[GCS_GCDB_R_mark_slow_msec]) ? 0 : g->real[GCS_GCDB_R_mark_slow_msec],
      .mark_fast_ms = isnan(g->real[GCS_GCDB_R_mark_fast_msec]) ? 0 : g->real[GCS_GCDB_R_mark_fast_msec],
      .compacted = !isnan(g->real[GCS_GCDB_R_global_mechanisms]) &&
                   ((uint32_t)g->real[GCS_GCDB_R_global_mechanisms] & GCS_GLOBAL_MECHANISMS_COMPACTION) != 0,
      .pinned_surv_pct = isnan(g->pinned_surv_pct) ? 0 : g->pinned_surv_pct,
      .pinned_plug_mb = isnan(g->pinned_plug_bytes) ? 0 : g->pinned_plug_bytes / 1e6,
      .heap_count = isnan(g->real[GCS_GCDB_R_heap_count]) ? 0 : (int)g->real[GCS_GCDB_R_heap_count]};
}

/* DATAS (issue 26): each GC's decision into the advisor's GCs, matched by
 * GC index (gcs in GC order mostly: a bisection over the GCs sorted by
 * index): .NET 9+'s SizeAdaptationTuning (gc_datas_tunings) and .NET 8's
 * HeapCountTuning (gc_datas_hc_tunings, flagged datas_net8: its
 * new_heap_count is not the decided count, see ins_advise.h). A database
 * without the tables: none. */
static int gc_by_index(const void *a, const void *b) {
  const struct ins_gc *x = *(const struct ins_gc *const *)a, *y = *(const struct ins_gc *const *)b;
  return x->index < y->index ? -1 : x->index > y->index;
}
static void add_datas_table(sqlite3 *db, const struct ins_proc_key *p, struct ins_gc **by, size_t n, const char *table,
                            int net8) {
  char sql[160];
  snprintf(sql, sizeof sql, "SELECT gc_index, new_heap_count, median_tcp_pct FROM %s WHERE trace_id = ?1 AND pid = ?2",
           table);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return;
  sqlite3_bind_int64(st, 1, p->trace_id);
  sqlite3_bind_int(st, 2, p->pid);
  while (sqlite3_step(st) == SQLITE_ROW) {
    struct ins_gc key = {.index = (uint32_t)sqlite3_column_int64(st, 0)}, *kp = &key;
    struct ins_gc **hit = bsearch(&kp, by, n, sizeof *by, gc_by_index);
    if (!hit) continue;   /* an incomplete GC: not judged */
    (*hit)->datas_decided = 1;
    (*hit)->datas_net8 = net8;
    (*hit)->datas_new_heaps = sqlite3_column_int(st, 1);
    (*hit)->datas_cost_pct = sqlite3_column_type(st, 2) == SQLITE_NULL ? 0 : sqlite3_column_double(st, 2);
  }
  sqlite3_finalize(st);
}
static void add_datas(sqlite3 *db, const struct ins_proc_key *p, struct ins_gc *g, size_t n) {
  if (n == 0) return;
  struct ins_gc **by = malloc(n * sizeof *by);
  if (!by) return;
  for (size_t i = 0; i < n; i++) by[i] = &g[i];
  qsort(by, n, sizeof *by, gc_by_index);
  add_datas_table(db, p, by, n, "gc_datas_tunings", 0);
  add_datas_table(db, p, by, n, "gc_datas_hc_tunings", 1);
  free(by);
}

/* The advisor's figures of a GC row (ins_db_gcs and ins_db_gcs_pauses). */
#define ADVISOR_REALS                                                                                          \
  (GCS_GCDB_BIT(pause_start_msec) | GCS_GCDB_BIT(pause_msec) | GCS_GCDB_BIT(suspend_msec) |                    \
   GCS_GCDB_BIT(promoted_mb) | GCS_GCDB_BIT(peak_mb) | GCS_GCDB_BIT(after_mb) | GCS_GCDB_BIT(gen0_frag_pct) |   \
   GCS_GCDB_BIT(pinned_obj) | GCS_GCDB_BIT(gen0_survival_pct) | GCS_GCDB_BIT(gen1_survival_pct) |              \
   GCS_GCDB_BIT(gen2_survival_pct) | GCS_GCDB_BIT(finalizable_surv_mb) | GCS_GCDB_BIT(committed_after_mb) |     \
   GCS_GCDB_BIT(mark_heaps) | GCS_GCDB_BIT(mark_slow_msec) | GCS_GCDB_BIT(mark_fast_msec) |                  \
   GCS_GCDB_BIT(global_mechanisms) | GCS_GCDB_BIT(heap_count))

struct gcs_pauses_acc {
  struct ins_gc *g;
  size_t ng, gcap;
  struct ins_pause *p;
  size_t np, pcap;
  long complete, incomplete;
};

static int gcs_pauses_row(const struct gcs_gcdb_gc *r, void *ctx) {
  struct gcs_pauses_acc *a = ctx;
  if (grow((void **)&a->p, &a->pcap, a->np + 1, sizeof *a->p)) return 1;   /* room for 2 */
  struct gcs_gcdb_pause v[2];
  size_t nv = 0;
  gcs_gcdb_pauses_of(r, v, &nv);
  for (size_t i = 0; i < nv; i++) a->p[a->np++] = (struct ins_pause){v[i].gc_index, v[i].start_ns, v[i].end_ns};
  if (r->complete == 0) a->incomplete++;
  if (r->complete != 1) return 0;
  a->complete++;
  if (grow((void **)&a->g, &a->gcap, a->ng, sizeof *a->g)) return 1;
  a->g[a->ng++] = advisor_gc(r);
  return 0;
}

int ins_db_gcs_pauses(sqlite3 *db, const struct ins_proc_key *p, struct ins_gc **gcs, size_t *ng,
                      struct ins_pause **pauses, size_t *npz, long *complete, long *incomplete, char *err,
                      size_t errlen) {
  const struct gcs_gcdb_query q = {.trace_id = p->trace_id, .pid = p->pid, .complete_only = 0, .after_id = -1,
                                   .reals = ADVISOR_REALS, .parts = GCS_GCDB_HEAP_HISTORY};
  struct gcs_pauses_acc a = {0};
  char e[256];
  *gcs = NULL;
  *pauses = NULL;
  *ng = *npz = 0;
  int rc = gcs_gcdb_each(db, &q, gcs_pauses_row, &a, e, sizeof e);
  if (rc != 0) {
    free(a.g);
    free(a.p);
    snprintf(err, errlen, "%s", rc == -1 ? e : "out of memory");
    return -1;
  }
  *gcs = a.g ? a.g : malloc(sizeof **gcs);
  *pauses = a.p ? a.p : malloc(sizeof **pauses);
  if (!*gcs || !*pauses) {
    free(*gcs);
    free(*pauses);
    *gcs = NULL;
    *pauses = NULL;
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  add_datas(db, p, *gcs, a.ng);
  *ng = a.ng;
  *npz = a.np;
  *complete = a.complete;
  *incomplete = a.incomplete;
  return 0;
}

int ins_db_gcs(sqlite3 *db, const struct ins_proc_key *p, struct ins_gc **out, size_t *n, char *err, size_t errlen) {
  const struct gcs_gcdb_query q = {
      .trace_id = p->trace_id, .pid = p->pid, .complete_only = 1, .after_id = -1,
      .reals = ADVISOR_REALS,
      .parts = GCS_GCDB_HEAP_HISTORY};
  struct gcs_gcdb_gc *v;
  size_t nv;
  char e[256];
  *out = NULL;
  *n = 0;
  if (gcs_gcdb_load(db, &q, &v, &nv, e, sizeof e)) {
    snprintf(err, errlen, "%s", e);
    return -1;
  }
  *out = malloc(sizeof **out * (nv ? nv : 1));
  if (!*out) {
    free(v);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < nv; i++) (*out)[i] = advisor_gc(&v[i]);
  add_datas(db, p, *out, nv);
  *n = nv;
  free(v);
  return 0;
}

int ins_db_summary(sqlite3 *db, const struct ins_proc_key *p, struct ins_proc_summary *s) {
  sqlite3_stmt *st;
  *s = (struct ins_proc_summary){0, 0, NAN, NAN, 0, 60, 0, 0};
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
  /* Server GC and heap count (processes); unknown server_gc is -1 (workstation
   * advice only), unknown heap count 0. */
  s->server_gc = -1;
  if (sqlite3_prepare_v2(db, "SELECT server_gc, heap_count FROM processes WHERE trace_id = ?1 AND pid = ?2", -1, &st,
                         NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, p->trace_id);
    sqlite3_bind_int(st, 2, p->pid);
    if (sqlite3_step(st) == SQLITE_ROW) {
      s->server_gc = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 0) == 1;
      s->heap_count = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
  }
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
