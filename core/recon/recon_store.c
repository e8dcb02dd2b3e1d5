/*
 * recon_store.c — gcs_recon_store(): writes the reconstructed GCs into the
 * tables of schemas/tables_gc.def with prepared statements. Parameter numbers
 * come from the same X-macro lists as the tables (parameter 1 is the key
 * column, then the columns in order), so the binding cannot drift from the
 * schema. NaN / infinite figures and unseen timestamps are written as NULL.
 * The caller owns the transaction (and creates the tables).
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_tables.h"
#include "recon_internal.h"

#define P_gcs(N, T, U, D) P_gcs_##N,
#define P_gens(N, T, U, D) P_gens_##N,
#define P_heaps(N, T, U, D) P_heaps_##N,
#define P_hgens(N, T, U, D) P_hgens_##N,
#define P_waits(N, T, U, D) P_waits_##N,
#define P_sum(N, T, U, D) P_sum_##N,
enum { P_gcs_key = 1, GCS_COLS_gcs(P_gcs) P_gcs_end };
enum { P_gens_key = 1, GCS_COLS_gc_gens(P_gens) P_gens_end };
enum { P_heaps_key = 1, GCS_COLS_gc_heaps(P_heaps) P_heaps_end };
enum { P_hgens_key = 1, GCS_COLS_gc_heap_gens(P_hgens) P_hgens_end };
enum { P_waits_key = 1, GCS_COLS_gc_loh_waits(P_waits) P_waits_end };
enum { P_sum_key = 1, GCS_COLS_gc_process_summary(P_sum) P_sum_end };

#define COLNAME(N, T, U, D) ", " #N
static const char *const sql_names[] = {
  "gcs (id" GCS_COLS_gcs(COLNAME) ")",
  "gc_gens (gc_id" GCS_COLS_gc_gens(COLNAME) ")",
  "gc_heaps (gc_id" GCS_COLS_gc_heaps(COLNAME) ")",
  "gc_heap_gens (gc_id" GCS_COLS_gc_heap_gens(COLNAME) ")",
  "gc_loh_waits (gc_id" GCS_COLS_gc_loh_waits(COLNAME) ")",
  "gc_process_summary (trace_id" GCS_COLS_gc_process_summary(COLNAME) ")",
};
static const int sql_nparams[] = { P_gcs_end - 1, P_gens_end - 1, P_heaps_end - 1,
                                   P_hgens_end - 1, P_waits_end - 1, P_sum_end - 1 };
enum { ST_GCS, ST_GENS, ST_HEAPS, ST_HGENS, ST_WAITS, ST_SUM, ST_COUNT };

static int prepare(sqlite3 *db, int which, sqlite3_stmt **st) {
  char sql[8192];
  int n = snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (?", sql_names[which]);
  for (int i = 1; i < sql_nparams[which] && n < (int)sizeof sql - 8; i++) n += snprintf(sql + n, sizeof sql - (size_t)n, ",?");
  snprintf(sql + n, sizeof sql - (size_t)n, ")");
  return sqlite3_prepare_v2(db, sql, -1, st, NULL);
}

/* A figure: NULL when PerfView would print NaN or Infinity. */
static void bind_figure(sqlite3_stmt *st, int i, double v) {
  if (isfinite(v)) sqlite3_bind_double(st, i, v);
  else sqlite3_bind_null(st, i);
}
static void bind_int(sqlite3_stmt *st, int i, int64_t v) { sqlite3_bind_int64(st, i, v); }
/* An absolute event time: NULL when the event was not seen (0). */
static void bind_event_time(sqlite3_stmt *st, int i, uint64_t v) {
  if (v) sqlite3_bind_int64(st, i, (int64_t)v);
  else sqlite3_bind_null(st, i);
}

static int step_and_reset(sqlite3_stmt *st) {
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* For the statements whose every parameter is bound for every row (gc_gens,
 * gc_heaps, gc_heap_gens: 9 rows of 10): no sqlite3_clear_bindings, 1.5 %
 * of the writing thread's instructions on the alloc-heavy trace. */
static int step_and_reset_all_bound(sqlite3_stmt *st) {
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int store_gc(sqlite3 *db, sqlite3_stmt **st, int64_t trace_id, const struct gcs_gc *g) {
  sqlite3_stmt *s = st[ST_GCS];
  char why[160];
  sqlite3_bind_null(s, P_gcs_key);
  bind_int(s, P_gcs_trace_id, trace_id);
  bind_int(s, P_gcs_pid, g->pid);
  bind_int(s, P_gcs_clr_instance, g->clr_instance);
  bind_int(s, P_gcs_gc_index, g->number);
  bind_int(s, P_gcs_list_index, g->list_index);
  bind_int(s, P_gcs_gen, g->gen);
  bind_int(s, P_gcs_type, g->type);
  sqlite3_bind_text(s, P_gcs_gen_name, g->gen_name, -1, SQLITE_TRANSIENT);
  bind_int(s, P_gcs_reason, g->reason);
  const char *rn = gcs_map_name("gc_reason", g->reason);
  char rbuf[16];
  if (!rn) {
    snprintf(rbuf, sizeof rbuf, "%u", g->reason);
    rn = rbuf;
  }
  sqlite3_bind_text(s, P_gcs_reason_name, rn, -1, SQLITE_TRANSIENT);
  bind_int(s, P_gcs_complete, g->complete);
  if (!g->complete)
    sqlite3_bind_text(s, P_gcs_incomplete_why, gcs_gc_incomplete_text(g->incomplete, why, sizeof why), -1,
                      SQLITE_TRANSIENT);
  bind_event_time(s, P_gcs_suspend_begin_ns, g->suspend_begin_ns);
  bind_event_time(s, P_gcs_suspend_end_ns, g->suspend_end_ns);
  bind_event_time(s, P_gcs_start_ns, g->start_ns);
  bind_event_time(s, P_gcs_end_ns, g->end_ns);
  bind_event_time(s, P_gcs_restart_begin_ns, g->restart_begin_ns);
  bind_event_time(s, P_gcs_restart_end_ns, g->restart_end_ns);
  bind_event_time(s, P_gcs_heap_stats_ns, g->heap_stats_ns);
  bind_event_time(s, P_gcs_bgc_prep_suspend_begin_ns, g->bgc_prep_suspend_begin_ns);
  bind_event_time(s, P_gcs_bgc_prep_restart_end_ns, g->bgc_prep_restart_end_ns);
  bind_figure(s, P_gcs_pause_start_msec, g->pause_start_msec);
  bind_figure(s, P_gcs_start_msec, g->start_msec);
  bind_figure(s, P_gcs_suspend_msec, g->suspend_msec);
  bind_figure(s, P_gcs_pause_msec, g->pause_msec);
  bind_figure(s, P_gcs_runtime_pause_msec, g->runtime_pause_msec);
  bind_figure(s, P_gcs_bgc_pause1_msec, g->bgc_pause1_msec);
  bind_figure(s, P_gcs_bgc_pause2_msec, g->bgc_pause2_msec);
  bind_figure(s, P_gcs_duration_msec, g->duration_msec);
  if (g->has_heap_stats) {
    bind_figure(s, P_gcs_since_last_restart_msec, g->since_last_restart_msec);
    bind_figure(s, P_gcs_pct_pause_time, g->pct_pause_time);
    bind_figure(s, P_gcs_pct_gc, g->pct_gc);
    bind_figure(s, P_gcs_gen0_alloc_mb, g->user_alloc_mb[GCS_GEN0]);
    bind_figure(s, P_gcs_gen0_alloc_rate_mb_sec, g->gen0_alloc_rate_mb_sec);
    bind_figure(s, P_gcs_loh_alloc_mb, g->user_alloc_mb[GCS_GEN_LOH]);
    bind_figure(s, P_gcs_poh_alloc_mb, g->user_alloc_mb[GCS_GEN_POH]);
    bind_figure(s, P_gcs_total_alloc_mb, g->total_alloc_mb);
    bind_figure(s, P_gcs_alloc_rate_mb_sec, g->alloc_rate_mb_sec);
    bind_figure(s, P_gcs_soh_alloc_measured_mb, g->alloc_measured_mb[0]);
    bind_figure(s, P_gcs_loh_alloc_measured_mb, g->alloc_measured_mb[1]);
    bind_figure(s, P_gcs_poh_alloc_measured_mb, g->alloc_measured_mb[2]);
    bind_figure(s, P_gcs_alloc_measured_mb, g->total_alloc_measured_mb);
    bind_figure(s, P_gcs_alloc_tick_small_mb, g->alloc_tick_mb[GCS_ALLOC_KIND_SMALL]);
    bind_figure(s, P_gcs_alloc_tick_large_mb, g->alloc_tick_mb[GCS_ALLOC_KIND_LARGE]);
    bind_figure(s, P_gcs_alloc_tick_pinned_mb, g->alloc_tick_mb[GCS_ALLOC_KIND_PINNED]);
    bind_figure(s, P_gcs_before_mb, g->before_mb);
    bind_figure(s, P_gcs_peak_mb, g->peak_mb);
    bind_figure(s, P_gcs_after_mb, g->after_mb);
    bind_figure(s, P_gcs_ratio_peak_after, g->ratio_peak_after);
    bind_figure(s, P_gcs_promoted_mb, g->promoted_mb);
    static const int cols[GCS_GENS][3] = {
      { P_gcs_gen0_mb, P_gcs_gen0_survival_pct, P_gcs_gen0_frag_pct },
      { P_gcs_gen1_mb, P_gcs_gen1_survival_pct, P_gcs_gen1_frag_pct },
      { P_gcs_gen2_mb, P_gcs_gen2_survival_pct, P_gcs_gen2_frag_pct },
      { P_gcs_loh_mb, P_gcs_loh_survival_pct, P_gcs_loh_frag_pct },
      { P_gcs_poh_mb, P_gcs_poh_survival_pct, P_gcs_poh_frag_pct },
    };
    for (int k = 0; k < GCS_GENS; k++) {
      bind_figure(s, cols[k][0], g->gen_after_mb[k]);
      bind_figure(s, cols[k][1], g->gen_survival_pct[k]);
      bind_figure(s, cols[k][2], g->gen_frag_pct[k]);
    }
    bind_figure(s, P_gcs_finalizable_surv_mb, g->finalizable_surv_mb);
    bind_int(s, P_gcs_pinned_obj, g->heap_stats.PinnedObjectCount);
    bind_int(s, P_gcs_sink_blocks, g->heap_stats.SinkBlockCount);
    bind_int(s, P_gcs_gc_handles, g->heap_stats.GCHandleCount);
  }
  bind_figure(s, P_gcs_gc_cpu_msec, g->gc_cpu_msec);
  bind_int(s, P_gcs_pinned_obj_events, g->pinned_obj_events);
  bind_int(s, P_gcs_pinned_obj_bytes, (int64_t)g->pinned_obj_bytes);
  bind_int(s, P_gcs_pinned_plug_bytes, (int64_t)g->pinned_plug_bytes);
  if (g->heap_count >= 0) bind_int(s, P_gcs_heap_count, g->heap_count);
  bind_int(s, P_gcs_phh_count, g->nheaps);
  if (g->has_global_history) {
    bind_int(s, P_gcs_global_mechanisms, g->global.GlobalMechanisms);
    if (g->global_version >= 2) {
      bind_int(s, P_gcs_pause_mode, g->global.PauseMode);
      bind_int(s, P_gcs_memory_pressure, g->global.MemoryPressure);
    }
  }
  bind_int(s, P_gcs_loh_wait_count, g->nloh_waits);
  for (int i = 0; i < GCS_CONDEMN_GROUP_COUNT; i++)
    bind_int(s, P_gcs_cr_initial_generation + i, g->condemned[i]);
  int rc = step_and_reset(s);
  if (rc) return rc;
  int64_t gc_id = sqlite3_last_insert_rowid(db);

  if (g->has_heap_stats) {
    s = st[ST_GENS];
    for (int k = 0; k < GCS_GENS; k++) {
      bind_int(s, P_gens_key, gc_id);
      bind_int(s, P_gens_trace_id, trace_id);
      bind_int(s, P_gens_pid, g->pid);
      bind_int(s, P_gens_gc_index, g->number);
      bind_int(s, P_gens_gen, k);
      bind_figure(s, P_gens_size_before_mb, g->gen_before_mb[k]);
      bind_figure(s, P_gens_size_after_mb, g->gen_after_mb[k]);
      bind_figure(s, P_gens_promoted_mb, g->gen_promoted_mb[k]);
      bind_figure(s, P_gens_survival_pct, g->gen_survival_pct[k]);
      bind_figure(s, P_gens_frag_mb, g->gen_frag_mb[k]);
      bind_figure(s, P_gens_frag_pct, g->gen_frag_pct[k]);
      bind_figure(s, P_gens_in_mb, g->gen_in_mb[k]);
      bind_figure(s, P_gens_out_mb, g->gen_out_mb[k]);
      bind_figure(s, P_gens_budget_mb, g->gen_budget_mb[k]);
      bind_figure(s, P_gens_obj_size_after_mb, g->gen_obj_size_after_mb[k]);
      if (k == GCS_GEN0 || k >= GCS_GEN_LOH) bind_figure(s, P_gens_user_alloc_mb, g->user_alloc_mb[k]);
      else sqlite3_bind_null(s, P_gens_user_alloc_mb);
      if ((rc = step_and_reset_all_bound(s))) return rc;
    }
  }
  for (int h = 0; h < g->nheaps; h++) {
    const struct gcs_gc_heap *hh = &g->heaps[h];
    s = st[ST_HEAPS];
    bind_int(s, P_heaps_key, gc_id);
    bind_int(s, P_heaps_trace_id, trace_id);
    bind_int(s, P_heaps_pid, g->pid);
    bind_int(s, P_heaps_gc_index, g->number);
    bind_int(s, P_heaps_heap_slot, h);
    bind_int(s, P_heaps_heap_index, hh->heap_index);
    bind_int(s, P_heaps_condemn_reasons0, hh->condemn_reasons0);
    bind_int(s, P_heaps_condemn_reasons1, hh->condemn_reasons1);
    bind_int(s, P_heaps_compact_mechanisms, hh->compact_mechanisms);
    bind_int(s, P_heaps_expand_mechanisms, hh->expand_mechanisms);
    bind_int(s, P_heaps_free_list_allocated, (int64_t)hh->free_list_allocated);
    bind_int(s, P_heaps_free_list_rejected, (int64_t)hh->free_list_rejected);
    bind_int(s, P_heaps_end_of_seg_allocated, (int64_t)hh->end_of_seg_allocated);
    bind_int(s, P_heaps_condemned_allocated, (int64_t)hh->condemned_allocated);
    bind_int(s, P_heaps_pinned_allocated, (int64_t)hh->pinned_allocated);
    bind_int(s, P_heaps_pinned_allocated_advance, (int64_t)hh->pinned_allocated_advance);
    bind_int(s, P_heaps_running_free_list_efficiency, hh->running_free_list_efficiency);
    bind_int(s, P_heaps_extra_gen0_commit, (int64_t)hh->extra_gen0_commit);
    bind_int(s, P_heaps_gen_count, hh->gen_count);
    if ((rc = step_and_reset_all_bound(s))) return rc;
    s = st[ST_HGENS];
    for (uint32_t k = 0; k < hh->gen_count; k++) {
      bind_int(s, P_hgens_key, gc_id);
      bind_int(s, P_hgens_trace_id, trace_id);
      bind_int(s, P_hgens_pid, g->pid);
      bind_int(s, P_hgens_gc_index, g->number);
      bind_int(s, P_hgens_heap_slot, h);
      bind_int(s, P_hgens_gen, k);
      bind_int(s, P_hgens_size_before, (int64_t)hh->gen[k].size_before);
      bind_int(s, P_hgens_free_list_before, (int64_t)hh->gen[k].free_list_before);
      bind_int(s, P_hgens_free_obj_before, (int64_t)hh->gen[k].free_obj_before);
      bind_int(s, P_hgens_size_after, (int64_t)hh->gen[k].size_after);
      bind_int(s, P_hgens_free_list_after, (int64_t)hh->gen[k].free_list_after);
      bind_int(s, P_hgens_free_obj_after, (int64_t)hh->gen[k].free_obj_after);
      bind_int(s, P_hgens_in_bytes, (int64_t)hh->gen[k].in);
      bind_int(s, P_hgens_pinned_surv, (int64_t)hh->gen[k].pinned_surv);
      bind_int(s, P_hgens_non_pinned_surv, (int64_t)hh->gen[k].non_pinned_surv);
      bind_int(s, P_hgens_new_allocation, (int64_t)hh->gen[k].new_allocation);
      int64_t osb = (int64_t)hh->gen[k].size_before - (int64_t)hh->gen[k].free_list_before -
                    (int64_t)hh->gen[k].free_obj_before;
      double out = (double)hh->gen[k].pinned_surv + (double)hh->gen[k].non_pinned_surv;
      bind_int(s, P_hgens_survival_pct, osb == 0 ? 0 : (int64_t)(out * 100.0 / (double)osb));
      if ((rc = step_and_reset_all_bound(s))) return rc;
    }
  }
  s = st[ST_WAITS];
  for (int w = 0; w < g->nloh_waits; w++) {
    const struct gcs_loh_wait *lw = &g->loh_waits[w];
    bind_int(s, P_waits_key, gc_id);
    bind_int(s, P_waits_trace_id, trace_id);
    bind_int(s, P_waits_pid, g->pid);
    bind_int(s, P_waits_bgc_index, g->number);
    bind_int(s, P_waits_tid, lw->tid);
    if (lw->start_msec != 0) bind_figure(s, P_waits_start_msec, lw->start_msec);
    if (lw->stop_msec != 0) bind_figure(s, P_waits_stop_msec, lw->stop_msec);
    if (lw->start_msec != 0 && lw->stop_msec != 0)
      bind_figure(s, P_waits_pause_msec, lw->stop_msec - lw->start_msec);
    bind_int(s, P_waits_reason, lw->reason);
    if ((rc = step_and_reset(s))) return rc;
  }
  return SQLITE_OK;
}

static int store_summary(sqlite3_stmt *s, int64_t trace_id, const struct gcs_proc_summary *p) {
  bind_int(s, P_sum_key, trace_id);
  bind_int(s, P_sum_pid, p->pid);
  bind_int(s, P_sum_clr_instance, p->clr_instance);
  bind_int(s, P_sum_gc_count, p->gc_count);
  bind_int(s, P_sum_incomplete_count, p->incomplete_count);
  bind_int(s, P_sum_induced_count, p->induced_count);
  bind_figure(s, P_sum_total_pause_msec, p->total_pause_msec);
  bind_figure(s, P_sum_max_pause_msec, p->max_pause_msec);
  bind_figure(s, P_sum_mean_pause_msec, p->mean_pause_msec);
  bind_figure(s, P_sum_max_suspend_msec, p->max_suspend_msec);
  bind_figure(s, P_sum_total_alloc_mb, p->total_alloc_mb);
  bind_figure(s, P_sum_total_alloc_measured_mb, p->total_alloc_measured_mb);
  bind_figure(s, P_sum_max_alloc_rate_mb_sec, p->max_alloc_rate_mb_sec);
  bind_figure(s, P_sum_max_heap_mb, p->max_heap_mb);
  bind_figure(s, P_sum_total_promoted_mb, p->total_promoted_mb);
  bind_figure(s, P_sum_process_duration_msec, p->process_duration_msec);
  bind_figure(s, P_sum_pct_pause_time, p->pct_pause_time);
  if (p->heap_count >= 0) bind_int(s, P_sum_heap_count, p->heap_count);
  if (p->heap_count_min >= 0) bind_int(s, P_sum_heap_count_min, p->heap_count_min);
  if (p->heap_count_max >= 0) bind_int(s, P_sum_heap_count_max, p->heap_count_max);
  bind_int(s, P_sum_heap_count_changes, p->heap_count_changes);
  bind_figure(s, P_sum_total_runtime_pause_msec, p->total_runtime_pause_msec);
  bind_figure(s, P_sum_total_gc_cpu_msec, p->total_gc_cpu_msec);
  bind_figure(s, P_sum_first_event_msec, p->first_event_msec);
  bind_figure(s, P_sum_last_event_msec, p->last_event_msec);
  bind_int(s, P_sum_lost_events, (int64_t)p->lost_events);
  return step_and_reset(s);
}

/* The statements, prepared at the first store and kept until the last. */
struct recon_store {
  sqlite3_stmt *st[ST_COUNT];
};

static int store_open(struct gcs_recon *r, sqlite3 *db) {
  if (r->store) return SQLITE_OK;
  r->store = calloc(1, sizeof *r->store);
  if (!r->store) return SQLITE_NOMEM;
  int rc = SQLITE_OK;
  for (int i = 0; i < ST_COUNT && rc == SQLITE_OK; i++) rc = prepare(db, i, &r->store->st[i]);
  if (rc != SQLITE_OK) recon_store_free(r);
  return rc;
}

void recon_store_free(struct gcs_recon *r) {
  if (!r->store) return;
  for (int i = 0; i < ST_COUNT; i++) sqlite3_finalize(r->store->st[i]);
  free(r->store);
  r->store = NULL;
}

/* How far behind the last GC a GC must be before no event can reach it:
 * events find the last GC, the running background GC, the last completed
 * one and, by number, the last 8 (the same bound as gcs_recon_forget_old). */
#define FINAL_LAG 16

/* Store the first process's GCs from stored0 on while each is final: no
 * later event, nor gcs_recon_finish's marking and recon_calc_all's
 * recomputation, can change its row. Stops at the first that may still
 * change, so the GCs go in in list order and get the ids gcs_recon_store
 * would give them. */
int gcs_recon_store_final(struct gcs_recon *r, sqlite3 *db, int64_t trace_id) {
  if (r->finished || r->nprocs == 0) return SQLITE_OK;
  struct recon_proc *p = r->procs[0];
  int limit = p->ngcs - FINAL_LAG;
  if (p->current_bgc >= 0 && p->current_bgc < limit) limit = p->current_bgc;
  if (p->last_completed < limit) limit = p->last_completed;
  if (p->alloc.next < limit) limit = p->alloc.next; /* measured allocations still to come */
  if (limit <= r->stored0) return SQLITE_OK;
  int rc = store_open(r, db);
  if (rc != SQLITE_OK) return rc;
  /* recon_calc_gc reads this GC and the ones before it only: below limit, the
   * figures are those recon_calc_all will compute. */
  for (; r->calc0 < limit; r->calc0++) recon_calc_gc(r, p, p->gcs[r->calc0]);
  for (; r->stored0 < limit; r->stored0++) {
    const struct recon_gc *gc = p->gcs[r->stored0];
    struct gcs_gc g = gc->g; /* the row as gcs_recon_finish will leave it */
    if (!g.complete) {
      if (!gc->reported) break; /* gcs_recon_lost may still mark it */
      if ((g.incomplete & GCS_INC_BEGAN_BEFORE_TRACE) && !p->seen_suspend) break;
      if (!g.incomplete) g.incomplete = GCS_INC_TRACE_ENDED;
    }
    int pending = 0;
    for (int i = 0; i < p->alloc.npending; i++) pending |= p->alloc.pending[i] == gc;
    if (pending) break; /* a background GC's end may still credit it */
    if (gcs_type_is_background(g.type)) {
      /* An allocation wait's end goes to the last completed background GC. */
      int later = 0;
      for (int k = r->stored0 + 1; k < p->ngcs && !later; k++)
        later = gcs_type_is_background(p->gcs[k]->g.type) && p->gcs[k]->g.complete;
      if (!later) break;
      if (g.complete && !recon_calc_bgc_peak(p, r->stored0, limit, &g.peak_mb, &g.ratio_peak_after)) break;
    }
    if ((rc = store_gc(db, r->store->st, trace_id, &g)) != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

int gcs_recon_store(struct gcs_recon *r, sqlite3 *db, int64_t trace_id) {
  if (!r->finished) gcs_recon_finish(r);
  int rc = store_open(r, db);
  if (rc != SQLITE_OK) return rc;
  sqlite3_stmt **st = r->store->st;
  for (int i = 0; i < r->nprocs && rc == SQLITE_OK; i++) {
    struct recon_proc *p = r->procs[i];
    rc = store_summary(st[ST_SUM], trace_id, &p->sum);
    for (int j = i == 0 ? r->stored0 : 0; j < p->ngcs && rc == SQLITE_OK; j++)
      rc = store_gc(db, st, trace_id, &p->gcs[j]->g);
  }
  recon_store_free(r);
  return rc;
}
