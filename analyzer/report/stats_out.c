/* stats_out.c — `gcscope stats --format json|csv|html`. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <string.h>

#include "gcs_db.h"
#include "gcs_enums.h"
#include "gcs_events.h"
#include "gcs_gcdb.h"
#include "gcs_html.h"
#include "gcs_output.h"
#include "ins_impact.h"
#include "stats_model.h"
#include "stats_details.h"

static const char *const cr_cols[GCS_CONDEMN_GROUP_COUNT] = {
#define CRC(Idx, Col, Hdr) #Col,
  GCS_CONDEMN_GROUPS(CRC)
};
static const char *const roll_names[4] = { "ALL", "0", "1", "2" };

/* ---- JSON ------------------------------------------------------------------ */

static void jkv(FILE *o, const char *k, double v, int comma) {
  fprintf(o, "%s\"%s\": ", comma ? ", " : "", k);
  rpt_json_num(o, v);
}

/* "%.0f" of an integral value (the GC index) */
static void wbuf_f0(struct rpt_wbuf *w, double v) {
  if (isfinite(v) && v == floor(v) && fabs(v) < 1e15) {
    rpt_wbuf_json_num(w, v);
  } else {
    char b[400];
    int n = snprintf(b, sizeof b, "%.0f", v);
    rpt_wbuf_mem(w, b, n < 0 ? 0 : (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
  }
}


static int has_any_phase(const struct st_gc *g) {
  for (int ph = 0; ph < GCS_GC_PHASE_COUNT; ph++)
    if (!isnan(g->phase_usec[ph])) return 1;
  return 0;
}

/* GlobalMechanisms as TraceEvent's flags enum prints it ("Compaction,
 * Promotion"; "None" for 0; an unnamed bit as 0x..). */
static const char *mechanisms_text(char *buf, size_t n, uint32_t v) {
  if (!st_flags_text(buf, n, "global_mechanisms", v)) snprintf(buf, n, "None");
  return buf;
}

/* The per-GC objects: most of the json's bytes, written through one buffer. */
static void json_gcs(FILE *o, const struct st_proc *p) {
  struct rpt_wbuf wb, *w = &wb;       /* fwrite()s to o after what o holds */
  char keys[STC_COUNT][64];          /* ", \"column\": " */
  size_t klen[STC_COUNT];
  w->f = o;
  w->n = 0;
  for (int c = 0; c < STC_COUNT; c++) {
    int n = snprintf(keys[c], sizeof keys[c], ", \"%s\": ", st_cols[c].name);
    klen[c] = n < 0 ? 0 : (size_t)n < sizeof keys[c] ? (size_t)n : sizeof keys[c] - 1;
  }
  for (int i2 = 0; i2 < p->ngcs; i2++) {
    const struct st_gc *g = &p->gcs[i2];
    rpt_wbuf_str(w, i2 ? ",\n    {\"index\": " : "\n    {\"index\": ");
    wbuf_f0(w, g->v[STC_gc_index]);
    rpt_wbuf_str(w, ", \"gen\": ");
    rpt_wbuf_i64(w, g->gen);
    rpt_wbuf_str(w, ", \"type\": \"");
    rpt_wbuf_str(w, gcs_type_letter((uint32_t)g->type));
    rpt_wbuf_str(w, "\", \"reason\": ");
    rpt_wbuf_json_str(w, g->reason);
    rpt_wbuf_str(w, ", \"gen_name\": ");
    rpt_wbuf_json_str(w, g->gen_name);
    rpt_wbuf_str(w, g->complete ? ", \"complete\": true" : ", \"complete\": false");
    for (int c = 0; c < STC_COUNT; c++) {
      if (st_cols[c].decimals < 0 || c == STC_gc_index) continue;
      char *at = rpt_wbuf_room(w, sizeof keys[c] + RPT_FMT_MAX);
      memcpy(at, keys[c], klen[c]);
      w->n += klen[c] + rpt_fmt_json(at + klen[c], g->v[c]);
    }
    rpt_wbuf_str(w, ", \"duration_msec\": ");
    rpt_wbuf_json_num(w, g->duration_msec);
    rpt_wbuf_str(w, ", \"phh_count\": ");
    rpt_wbuf_i64(w, g->phh_count);
    rpt_wbuf_str(w, ", \"phases_usec\": ");
    if (!has_any_phase(g)) {
      rpt_wbuf_str(w, "null");
    } else {
      for (int ph = 0; ph < GCS_GC_PHASE_COUNT; ph++) {
        rpt_wbuf_str(w, ph ? ", \"" : "{\"");
        rpt_wbuf_str(w, st_phase_names[ph]);
        rpt_wbuf_str(w, "\": ");
        rpt_wbuf_json_num(w, g->phase_usec[ph]);
      }
      rpt_wbuf_str(w, "}");
    }
    char mech[128];
    rpt_wbuf_str(w, ", \"global_mechanisms\": ");
    if (isnan(g->global_mechanisms)) rpt_wbuf_str(w, "null");
    else rpt_wbuf_json_str(w, mechanisms_text(mech, sizeof mech, (uint32_t)g->global_mechanisms));
    rpt_wbuf_str(w, ", \"pause_mode\": ");
    const char *pm = isnan(g->pause_mode) ? NULL : gcs_map_name("pause_mode", (uint32_t)g->pause_mode);
    if (isnan(g->pause_mode)) {
      rpt_wbuf_str(w, "null");
    } else if (pm) {
      rpt_wbuf_json_str(w, pm);
    } else {
      snprintf(mech, sizeof mech, "%.0f", g->pause_mode);
      rpt_wbuf_json_str(w, mech);
    }
    rpt_wbuf_str(w, ", \"memory_pressure\": ");
    rpt_wbuf_json_num(w, g->memory_pressure);
    rpt_wbuf_str(w, ", \"mark_balance\": ");
    if (isnan(g->mark_kind)) {
      rpt_wbuf_str(w, "null");
    } else {
      const char *kn = gcs_map_name("root_kind", (uint32_t)g->mark_kind);
      rpt_wbuf_str(w, "{\"heaps\": ");
      rpt_wbuf_json_num(w, g->mark_heaps);
      rpt_wbuf_str(w, ", \"root_kind\": ");
      rpt_wbuf_json_str(w, kn ? kn : "?");
      rpt_wbuf_str(w, ", \"slow_heap\": ");
      rpt_wbuf_json_num(w, g->mark_slow_heap);
      rpt_wbuf_str(w, ", \"slow_msec\": ");
      rpt_wbuf_json_num(w, g->mark_slow_msec);
      rpt_wbuf_str(w, ", \"fast_msec\": ");
      rpt_wbuf_json_num(w, g->mark_fast_msec);
      rpt_wbuf_str(w, st_mark_flagged(g) ? ", \"flagged\": true}" : ", \"flagged\": false}");
    }
    static const char *const parts[5] = { "in_use", "in_global_decommit", "in_free", "in_global_free", "bookkeeping" };
    for (int wh = 0; wh < 2; wh++) {
      rpt_wbuf_str(w, wh ? ", \"committed_after\": " : ", \"committed_before\": ");
      if (isnan(g->committed[wh][0])) {
        rpt_wbuf_str(w, "null");
        continue;
      }
      for (int f = 0; f < 5; f++) {
        rpt_wbuf_str(w, f ? ", \"" : "{\"");
        rpt_wbuf_str(w, parts[f]);
        rpt_wbuf_str(w, "\": ");
        rpt_wbuf_json_num(w, g->committed[wh][f]);
      }
      rpt_wbuf_str(w, "}");
    }
    st_json_gc_details(w, p, g);   /* issue 26 */
    st_datas_json_gc(w, p, g->v[STC_gc_index]);
    rpt_wbuf_str(w, ", \"condemned\": {");
    int n = 0;
    for (int k = 0; k < GCS_CONDEMN_GROUP_COUNT; k++)
      if (g->cr[k]) {
        rpt_wbuf_str(w, n++ ? ", \"" : "\"");
        rpt_wbuf_str(w, cr_cols[k] + 3);
        rpt_wbuf_str(w, "\": ");
        rpt_wbuf_i64(w, g->cr[k]);
      }
    rpt_wbuf_str(w, "}}");
  }
  rpt_wbuf_flush(w);
}

void st_write_json(FILE *o, const struct st_model *m) {
  fprintf(o, "{\"warnings\": [");
  int nw = 0;
  for (int i = 0; i < m->nprocs; i++) {
    const struct st_proc *p = &m->procs[i];
    int seen = 0;
    for (int j = 0; j < i; j++) seen |= m->procs[j].trace_id == p->trace_id;
    if (p->trace_discarded > 0 && !seen) {
      char msg[800], lost[256];
      snprintf(msg, sizeof msg, "trace %lld (%s): %s", (long long)p->trace_id, p->trace_path ? p->trace_path : "?",
               gcs_lost_text(p->trace_discarded, p->trace_packet_gaps, lost, sizeof lost));
      fprintf(o, "%s", nw++ ? ", " : "");
      rpt_json_str(o, msg);
    }
    if (p->trace_truncated_at >= 0 && !seen) {
      char msg[1200];
      snprintf(msg, sizeof msg, "trace %lld: %s was cut short: imported up to byte %lld", (long long)p->trace_id,
               p->trace_truncated_file ? p->trace_truncated_file : "?", (long long)p->trace_truncated_at);
      fprintf(o, "%s", nw++ ? ", " : "");
      rpt_json_str(o, msg);
    }
  }
  fprintf(o, "],\n \"processes\": [");
  for (int i = 0; i < m->nprocs; i++) {
    const struct st_proc *p = &m->procs[i];
    fprintf(o, "%s\n  {\"pid\": %d, \"trace_id\": %lld, \"name\": ", i ? "," : "", p->pid, (long long)p->trace_id);
    rpt_json_str(o, p->name);
    fprintf(o, ", \"command_line\": ");
    rpt_json_str(o, p->cmdline);
    fprintf(o, ", \"runtime_version\": ");
    rpt_json_str(o, p->runtime_version);
    fprintf(o, ", \"server_gc\": %s, \"concurrent_gc\": %s",
            p->server_gc < 0 ? "null" : p->server_gc ? "true" : "false",
            p->concurrent_gc < 0 ? "null" : p->concurrent_gc ? "true" : "false");
    if (p->hard_limit >= 0) fprintf(o, ", \"gc_hard_limit_bytes\": %lld", (long long)p->hard_limit);
    else fprintf(o, ", \"gc_hard_limit_bytes\": null");
    st_json_settings(o, p);   /* issue 26: gc_settings, startup_flags */
    fprintf(o, ",\n   \"summary\": {\"gc_count\": %d, \"incomplete_count\": %d, \"induced_count\": %d", p->gc_count,
            p->incomplete_count, p->induced_count);
    jkv(o, "total_pause_msec", p->total_pause, 1);
    jkv(o, "max_pause_msec", p->max_pause, 1);
    jkv(o, "pct_pause_time", p->pct_pause, 1);
    jkv(o, "max_heap_mb", p->max_heap, 1);
    jkv(o, "total_alloc_mb", p->total_alloc, 1);
    jkv(o, "total_alloc_measured_mb", p->total_alloc_measured, 1);
    jkv(o, "total_promoted_mb", p->total_promoted, 1);
    jkv(o, "max_suspend_msec", p->max_suspend, 1);
    jkv(o, "process_duration_msec", p->process_duration, 1);
    jkv(o, "total_gc_cpu_msec", p->total_gc_cpu, 1);
    jkv(o, "max_committed_mb", p->max_committed, 1);
    fprintf(o, ", \"mark_unbalanced_count\": ");
    if (p->mark_multi) fprintf(o, "%d", p->mark_flagged);
    else fputs("null", o);
    if (p->heap_count >= 0) fprintf(o, ", \"heap_count\": %d", p->heap_count);
    else fprintf(o, ", \"heap_count\": null");
    if (p->heap_count_min > 0)
      fprintf(o, ", \"heap_count_min\": %d, \"heap_count_max\": %d, \"heap_count_changes\": %d", p->heap_count_min,
              p->heap_count_max, p->heap_count_changes);
    else
      fprintf(o, ", \"heap_count_min\": null, \"heap_count_max\": null, \"heap_count_changes\": null");
    jkv(o, "total_runtime_pause_msec", p->total_runtime_pause, 1);
    fprintf(o, ", \"runtime_pause_differs_count\": %d", p->rt_pause_differs);
    fprintf(o, ", \"lost_events\": %lld", (long long)p->lost_events);
    /* its trace's losses apart (gcs_lost_text): events discarded, an exact
     * count, and gaps of missing packets, their events unknown; null when
     * an older import did not store the split */
    if (p->trace_packet_gaps >= 0)
      fprintf(o, ", \"trace_discarded_events\": %lld, \"trace_packet_gaps\": %lld",
              (long long)(p->trace_discarded > p->trace_packet_gaps ? p->trace_discarded - p->trace_packet_gaps : 0),
              (long long)p->trace_packet_gaps);
    else
      fprintf(o, ", \"trace_discarded_events\": null, \"trace_packet_gaps\": null");
    st_datas_json_summary(o, p);
    st_json_overhead(o, &p->ov);
    fprintf(o, ", \"pause_percentiles\": {");
    for (int k = 0; k < ST_KINDS; k++) {
      const struct st_pausestat *s = &p->kinds[k];
      fprintf(o, "%s\"%s\": {\"count\": %d", k ? ", " : "", st_kind_names[k], s->count);
      jkv(o, "total_msec", s->total, 1);
      jkv(o, "mean_msec", s->mean, 1);
      jkv(o, "max_msec", s->max, 1);
      jkv(o, "p50_msec", s->p50, 1);
      jkv(o, "p95_msec", s->p95, 1);
      jkv(o, "p99_msec", s->p99, 1);
      fputc('}', o);
    }
    fprintf(o, "}, \"phases\": ");
    if (!p->has_phases) fputs("null", o);
    for (int k = 0; p->has_phases && k < ST_KINDS; k++) {
      fprintf(o, "%s\"%s\": {", k ? ", " : "{", st_kind_names[k]);
      for (int ph = 0; ph <= GCS_GC_PHASE_COUNT; ph++) {
        const struct st_phasestat *c = &p->phases[k][ph];
        fprintf(o, "%s\"%s\": {\"count\": %d", ph ? ", " : "", ph < GCS_GC_PHASE_COUNT ? st_phase_names[ph] : "all",
                c->count);
        jkv(o, "mean_usec", c->mean, 1);
        jkv(o, "p95_usec", c->p95, 1);
        fputc('}', o);
      }
      fputs(k + 1 == ST_KINDS ? "}}" : "}", o);
    }
    fprintf(o, ", \"pause_histogram\": [");
    for (int b = 0; b < ST_HIST_BUCKETS; b++) {
      fprintf(o, "%s{\"from_msec\": %g, \"to_msec\": ", b ? ", " : "", st_hist_edges[b]);
      if (b + 1 < ST_HIST_BUCKETS) fprintf(o, "%g", st_hist_edges[b + 1]);
      else fputs("null", o);
      fprintf(o, ", \"count\": %d}", p->hist[b]);
    }
    fprintf(o, "]},\n   \"generations\": [");
    for (int r = 0; r < 4; r++) {
      const struct st_rollup *ro = &p->roll[r];
      fprintf(o, "%s{\"gen\": \"%s\", \"count\": %d, \"induced\": %d", r ? ", " : "", roll_names[r], ro->count,
              ro->induced);
      jkv(o, "max_pause_msec", ro->max_pause, 1);
      jkv(o, "max_peak_mb", ro->max_peak, 1);
      jkv(o, "max_alloc_rate_mb_sec", ro->max_alloc_rate, 1);
      jkv(o, "total_pause_msec", ro->total_pause, 1);
      jkv(o, "total_alloc_mb", ro->total_alloc, 1);
      jkv(o, "mean_pause_msec", ro->mean_pause, 1);
      jkv(o, "total_promoted_mb", ro->total_promoted, 1);
      fputc('}', o);
    }
    fprintf(o, "],\n   \"loh_waits\": [");
    for (int w = 0; w < p->nwaits; w++) {
      fprintf(o, "%s{\"bgc_index\": %u, \"tid\": %d, \"reason\": %d", w ? ", " : "", p->waits[w].bgc_index,
              p->waits[w].tid, p->waits[w].reason);
      jkv(o, "start_msec", p->waits[w].start, 1);
      jkv(o, "pause_msec", p->waits[w].pause, 1);
      fputc('}', o);
    }
    fprintf(o, "],\n   \"firings\": [");
    for (int f = 0; f < p->nfirings; f++) {
      const struct st_firing *fi = &p->firings[f];
      fprintf(o, "%s{\"gc_index\": %u, \"rule\": ", f ? ", " : "", fi->gc_index);
      rpt_json_str(o, fi->rule);
      fprintf(o, ", \"kind\": ");
      rpt_json_str(o, fi->kind);
      jkv(o, "value", fi->value, 1);
      fprintf(o, ", \"capture\": ");
      rpt_json_str(o, fi->capture);
      fprintf(o, ", \"verdict\": ");
      rpt_json_str(o, fi->verdict);
      fputc('}', o);
    }
    fprintf(o, "],\n   \"gcs\": [");
    json_gcs(o, p);
    fprintf(o, "]}");
  }
  fprintf(o, "]}\n");
}

/* ---- CSV: every column of the gcs table, complete or not --------------------- */

/* ",cell", as the csv has always written a cell: NULL empty, integers "%lld",
 * reals "%.15g", anything else as text; numbers written in place. */
static void csv_next_cell(struct rpt_wbuf *w, sqlite3_value *v) {
  char *p = rpt_wbuf_room(w, RPT_FMT_MAX + 1);
  *p++ = ',';
  switch (sqlite3_value_type(v)) {
  case SQLITE_NULL: w->n++; break;
  case SQLITE_INTEGER: {
    long long x = (long long)sqlite3_value_int64(v);
    if ((unsigned long long)x < 10) {
      *p = (char)('0' + x);
      w->n += 2;
    } else {
      w->n += 1 + rpt_fmt_i64(p, x);
    }
    break;
  }
  case SQLITE_FLOAT: {
    double d = sqlite3_value_double(v);
    if (d == 0 && !signbit(d)) {
      *p = '0';
      w->n += 2;
    } else {
      w->n += 1 + rpt_fmt_g(p, d, 15);
    }
    break;
  }
  default:
    w->n++;
    rpt_wbuf_csv_str(w, (const char *)sqlite3_value_text(v));
  }
}

/* process_name: the first processes row of (trace_id, pid), looked up once
 * per process (rows come ordered by trace_id, pid) rather than per GC; the
 * cell's text (as csv_next_cell writes it) into *cell. */
static int csv_process_name(sqlite3_stmt *name, int64_t trace_id, int pid, char **cell, size_t *cell_len) {
  sqlite3_reset(name);
  sqlite3_bind_int64(name, 1, trace_id);
  sqlite3_bind_int(name, 2, pid);
  sqlite3_value *v = sqlite3_step(name) == SQLITE_ROW ? sqlite3_column_value(name, 0) : NULL;
  int ty = v ? sqlite3_value_type(v) : SQLITE_NULL;
  const char *text = ty == SQLITE_TEXT || ty == SQLITE_BLOB ? (const char *)sqlite3_value_text(v) : NULL;
  size_t cap = (text ? 2 * strlen(text) : 0) + 3 + RPT_FMT_MAX, n = 0;
  char *b = malloc(cap);
  if (!b) return -1;
  if (ty == SQLITE_INTEGER) {
    n = (size_t)snprintf(b, cap, "%lld", (long long)sqlite3_value_int64(v));
  } else if (ty == SQLITE_FLOAT) {
    n = rpt_fmt_g(b, sqlite3_value_double(v), 15);
  } else if (text) {
    n = rpt_csv_mem(b, text);
  }
  free(*cell);
  *cell = b;
  *cell_len = n;
  return 0;
}

/* The csv's state while SQLite steps through the rows. */
struct csv_run {
  struct rpt_wbuf *w;
  sqlite3_stmt *name;           /* the process_name lookup */
  int c_trace, c_pid;           /* argument index of trace_id and pid */
  char *pname;                  /* the current process's cell */
  size_t pname_len;
  int64_t cur_trace;
  int cur_pid, have, failed;
};

/* One row: process_name, then every cell. */
static int csv_row(struct csv_run *r, sqlite3_value **v, int n) {
  int64_t t = r->c_trace >= 0 ? sqlite3_value_int64(v[r->c_trace]) : 0;
  int p = r->c_pid >= 0 ? sqlite3_value_int(v[r->c_pid]) : 0;
  if (!r->have || t != r->cur_trace || p != r->cur_pid) {
    if (csv_process_name(r->name, t, p, &r->pname, &r->pname_len)) return -1;
    r->cur_trace = t;
    r->cur_pid = p;
    r->have = 1;
  }
  rpt_wbuf_mem(r->w, r->pname, r->pname_len);
  for (int c = 0; c < n; c++) csv_next_cell(r->w, v[c]);
  rpt_wbuf_char(r->w, '\n');
  return 0;
}

/* The row as an SQL function of every column: SQLite hands the function its
 * registers, which costs far less per cell than sqlite3_column_value. */
static void csv_row_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  struct csv_run *r = sqlite3_user_data(ctx);
  if (csv_row(r, argv, argc)) {
    r->failed = 1;
    sqlite3_result_error_nomem(ctx);
  }
}

#define CSV_ROW_FN "gcscope_csv_row"
/* Rows in the order of the gcs_by_proc index (trace_id, pid, list_index, then
 * rowid), so (trace_id, pid, list_index, id) ranges cut it into parts. */
#define CSV_FROM " FROM gcs g WHERE " GCS_IN_INPUT("g.trace_id") " AND (?1 < 0 OR g.pid = ?1)"
#define CSV_ORDER " ORDER BY g.trace_id, g.pid, g.list_index"
#define CSV_KEY "(g.trace_id, g.pid, g.list_index, g.id)"
/* From this many rows the csv is written in two halves at once (two threads,
 * two connections): reading every column is most of its time. */
#define CSV_SPLIT_ROWS 20000

/* What a part of the csv needs: the gcs columns, and its key range. */
struct csv_part {
  sqlite3 *db;
  FILE *out;
  int pid, ncols, c_trace, c_pid;
  const char *select;           /* "SELECT gcscope_csv_row(g."c1", ...)" or "SELECT g.*" */
  int fn;                       /* select calls CSV_ROW_FN */
  int64_t lo[4], hi[4];         /* rows with key >= lo (has_lo) and < hi (has_hi) */
  int has_lo, has_hi;
  int rc;
};

/* Writes the part's rows (no header) to part->out. 0, or -1 (db error or no memory). */
static int csv_write_part(struct csv_part *pt) {
  struct csv_run r = {.c_trace = pt->c_trace, .c_pid = pt->c_pid};
  sqlite3_stmt *s = NULL;
  sqlite3_value **v = NULL;
  char *sql = NULL;
  int rc = -1, fn = 0;
  if (sqlite3_prepare_v2(pt->db, "SELECT name FROM processes p WHERE p.trace_id = ?1 AND p.pid = ?2 LIMIT 1", -1,
                         &r.name, NULL) != SQLITE_OK)
    goto out;
  r.w = malloc(sizeof *r.w);
  size_t len = strlen(pt->select) + sizeof "SELECT g.*" + sizeof CSV_FROM + sizeof CSV_ORDER + 2 * (sizeof CSV_KEY + 40);
  sql = malloc(len);
  if (!r.w || !sql) goto out;
  r.w->f = pt->out;
  r.w->n = 0;
  /* Without the function (it cannot be registered): g.* read cell by cell. */
  fn = pt->fn && sqlite3_create_function(pt->db, CSV_ROW_FN, -1, SQLITE_UTF8, &r, csv_row_fn, NULL, NULL) == SQLITE_OK;
  snprintf(sql, len, "%s%s%s%s%s", fn ? pt->select : "SELECT g.*", CSV_FROM,
           pt->has_lo ? " AND " CSV_KEY " >= (?2, ?3, ?4, ?5)" : "", pt->has_hi ? " AND " CSV_KEY " < (?6, ?7, ?8, ?9)" : "",
           CSV_ORDER);
  if (!fn) {
    v = malloc(sizeof *v * (size_t)(pt->ncols ? pt->ncols : 1));
    if (!v) goto out;
  }
  if (sqlite3_prepare_v2(pt->db, sql, -1, &s, NULL) != SQLITE_OK) goto out;
  sqlite3_bind_int(s, 1, pt->pid);
  for (int i = 0; i < 4; i++) {
    if (pt->has_lo) sqlite3_bind_int64(s, 2 + i, pt->lo[i]);
    if (pt->has_hi) sqlite3_bind_int64(s, 6 + i, pt->hi[i]);
  }
  int step;
  while ((step = sqlite3_step(s)) == SQLITE_ROW) {
    if (fn) continue;   /* the function wrote the row */
    for (int c = 0; c < pt->ncols; c++) v[c] = sqlite3_column_value(s, c);
    if (csv_row(&r, v, pt->ncols)) {
      r.failed = 1;
      break;
    }
  }
  rc = (step == SQLITE_DONE || step == SQLITE_ROW) && !r.failed ? 0 : -1;
out:
  if (r.w) rpt_wbuf_flush(r.w);
  free(r.w);
  free(r.pname);
  free(sql);
  free(v);
  sqlite3_finalize(s);
  sqlite3_finalize(r.name);
  if (fn) sqlite3_create_function(pt->db, CSV_ROW_FN, -1, SQLITE_UTF8, NULL, NULL, NULL, NULL);
  return rc;
}

static void *csv_part_thread(void *arg) {
  struct csv_part *pt = arg;
  pt->rc = csv_write_part(pt);
  return NULL;
}

/* The key of the row in the middle of the csv, when there are enough rows
 * to split; 0 when found. */
static int csv_middle(sqlite3 *db, int pid, int64_t key[4]) {
  sqlite3_stmt *s;
  int64_t n = 0;
  int rc = -1;
  if (sqlite3_prepare_v2(db, "SELECT count(*)" CSV_FROM, -1, &s, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int(s, 1, pid);
  if (sqlite3_step(s) == SQLITE_ROW) n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  if (n < CSV_SPLIT_ROWS) return -1;
  if (sqlite3_prepare_v2(db, "SELECT g.trace_id, g.pid, g.list_index, g.id" CSV_FROM CSV_ORDER " LIMIT 1 OFFSET ?2", -1,
                         &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int(s, 1, pid);
  sqlite3_bind_int64(s, 2, n / 2);
  if (sqlite3_step(s) == SQLITE_ROW) {
    for (int i = 0; i < 4; i++) key[i] = sqlite3_column_int64(s, i);
    rc = 0;
  }
  sqlite3_finalize(s);
  return rc;
}

/* A second read-only connection to db's file with the same traces in scope
 * (temp.input_traces); NULL if that cannot be had. */
static sqlite3 *second_connection(sqlite3 *db) {
  const char *file = sqlite3_db_filename(db, "main");
  sqlite3 *d2 = NULL;
  sqlite3_stmt *ids = NULL, *ins = NULL;
  int ok = 0;
  if (!file || !*file || sqlite3_open_v2(file, &d2, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
    goto out;
  sqlite3_busy_timeout(d2, GCS_INPUT_BUSY_MS);
  if (gcs_db_harden(d2) != 0) goto out;
  if (sqlite3_exec(d2, "CREATE TEMP TABLE input_traces(id INTEGER PRIMARY KEY)", NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "SELECT id FROM temp.input_traces", -1, &ids, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(d2, "INSERT INTO temp.input_traces VALUES (?)", -1, &ins, NULL) != SQLITE_OK)
    goto out;
  int rc;
  while ((rc = sqlite3_step(ids)) == SQLITE_ROW) {
    sqlite3_bind_int64(ins, 1, sqlite3_column_int64(ids, 0));
    if (sqlite3_step(ins) != SQLITE_DONE) goto out;
    sqlite3_reset(ins);
  }
  ok = rc == SQLITE_DONE;
out:
  sqlite3_finalize(ids);
  sqlite3_finalize(ins);
  if (!ok) {
    sqlite3_close(d2);
    d2 = NULL;
  }
  return d2;
}

int st_write_csv(FILE *o, sqlite3 *db, int pid) {
  sqlite3_stmt *cols = NULL;
  char *select = NULL;
  int rc = -1;
  if (sqlite3_prepare_v2(db, "SELECT g.* FROM gcs g LIMIT 0", -1, &cols, NULL) != SQLITE_OK) return -1;
  struct csv_part a = {.db = db, .out = o, .pid = pid, .c_trace = -1, .c_pid = -1};
  /* The header: process_name, then the gcs columns. */
  int n = sqlite3_column_count(cols);
  size_t sql_len = sizeof "SELECT " + strlen(CSV_ROW_FN) + 2;
  fputs("process_name", o);
  for (int c = 0; c < n; c++) {
    const char *cn = sqlite3_column_name(cols, c);
    if (strcmp(cn, "trace_id") == 0) a.c_trace = c;
    if (strcmp(cn, "pid") == 0) a.c_pid = c;
    fputc(',', o);
    fputs(cn, o);
    sql_len += 2 * strlen(cn) + 8;
  }
  fputc('\n', o);
  a.ncols = n;
  /* SELECT gcscope_csv_row(g."c1", ...) when the function may take every
   * column (SQLITE_LIMIT_FUNCTION_ARG, 127 by default); else g.* read cell by cell. */
  a.fn = n > 0 && n <= sqlite3_limit(db, SQLITE_LIMIT_FUNCTION_ARG, -1);
  select = malloc(sql_len);
  if (!select) goto out;
  size_t at = 0;
  if (a.fn) {
    at += (size_t)sprintf(select, "SELECT %s(", CSV_ROW_FN);
    for (int c = 0; c < n; c++) {
      select[at++] = c ? ',' : ' ';
      at += (size_t)sprintf(select + at, "g.\"");
      for (const char *p = sqlite3_column_name(cols, c); *p; p++) {
        if (*p == '"') select[at++] = '"';
        select[at++] = *p;
      }
      select[at++] = '"';
    }
    select[at++] = ')';
    select[at] = 0;
  } else {
    strcpy(select, "SELECT g.*");
  }
  a.select = select;
  /* Many rows: the second half on a second connection and thread, into
   * memory, written after the first half. */
  struct csv_part b = a;
  int64_t mid[4];
  char *mem = NULL;
  size_t mem_len = 0;
  pthread_t th;
  int split = 0;
  if (a.fn && csv_middle(db, pid, mid) == 0 && (b.db = second_connection(db)) != NULL) {
    b.out = open_memstream(&mem, &mem_len);
    memcpy(b.lo, mid, sizeof mid);
    b.has_lo = 1;
    memcpy(a.hi, mid, sizeof mid);
    a.has_hi = 1;
    split = b.out && pthread_create(&th, NULL, csv_part_thread, &b) == 0;
    if (!split) {
      if (b.out) fclose(b.out);
      free(mem);
      mem = NULL;
      sqlite3_close(b.db);
      a.has_hi = 0;
    }
  }
  rc = csv_write_part(&a);
  if (split) {
    pthread_join(th, NULL);
    fclose(b.out);
    sqlite3_close(b.db);
    if (rc == 0 && b.rc == 0) fwrite(mem, 1, mem_len, o);
    else rc = -1;
    free(mem);
  }
out:
  free(select);
  sqlite3_finalize(cols);
  return rc;
}

/* ---- HTML: self-contained, inline SVG ---------------------------------------- */

#define HTML_CHART_EXACT 2000   /* GCs drawn one by one; more: the largest per pixel column */
#define HTML_MAX_ROWS 2000      /* rows of a per-GC table; more: a note points at csv */
#define CHART_W 900.0
#define CHART_H 220.0
#define CHART_L 60.0
#define CHART_B 30.0
#define CHART_T 20.0

/* Pause bars coloured by generation (long pauses red), hover text with the
 * GC's number, kind, reason and pause. */
static const char *gen_colour(int gen) { return gen == GCS_GEN0 ? "#2a6fdb" : gen == GCS_GEN1 ? "#2a9d3a" : "#8e44ad"; }

static void chart_mark(FILE *o, const struct st_gc *g, int col, const char *colour, int bars, double xmin, double xmax,
                       double ymax) {
  double v = g->v[col];
  double x = CHART_L + (g->v[STC_pause_start_msec] - xmin) / (xmax - xmin) * (CHART_W - CHART_L - 20);
  double y = (CHART_H - CHART_B) - v / ymax * (CHART_H - CHART_B - CHART_T);
  if (bars) {
    fprintf(o, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"><title>GC %.0f %s %s: "
               "%.3f ms</title></line>\n", x, CHART_H - CHART_B, x, y,
            g->v[STC_pause_msec] > 200 ? "#d00" : gen_colour(g->gen), g->v[STC_gc_index], g->gen_name, g->reason, v);
  } else {
    (void)colour;
    fprintf(o, "%.1f,%.1f ", x, y);
  }
}

static void svg_chart(FILE *o, const struct st_proc *p, const char *title, int series, const char *const *names,
                      const int *cols, const char *const *colors, int bars) {
  const double W = CHART_W, H = CHART_H, L = CHART_L, B = CHART_B, T = CHART_T;
  double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
  for (int i = 0; i < p->ngcs; i++) {
    const struct st_gc *g = &p->gcs[i];
    if (!g->complete) continue;
    double x = g->v[STC_pause_start_msec];
    if (x < xmin) xmin = x;
    if (x > xmax) xmax = x;
    for (int s = 0; s < series; s++)
      if (isfinite(g->v[cols[s]]) && g->v[cols[s]] > ymax) ymax = g->v[cols[s]];
  }
  fprintf(o, "<h4>%s</h4>\n", title);
  if (!isfinite(xmin)) {
    fprintf(o, "<p>No complete GC.</p>\n");
    return;
  }
  if (xmax <= xmin) xmax = xmin + 1;
  if (ymax <= 0) ymax = 1;
  fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" style=\"background:#fff;border:1px solid #ccc\">\n", W, H);
  ymax = rpt_svg_axes(o, L, T, W - 20, H - B, xmin, xmax, ymax, bars ? "ms" : "MB");
  /* One mark per pixel column at most: past HTML_CHART_EXACT GCs each column
   * shows its largest value (a 100,000-GC report stays a few MB). */
  int ncomplete = 0;
  for (int i = 0; i < p->ngcs; i++) ncomplete += p->gcs[i].complete;
  int per_column = ncomplete > HTML_CHART_EXACT;
  int ncol = (int)(W - L - 20) + 1;
  int *best = per_column ? malloc((size_t)ncol * sizeof *best) : NULL;
  if (per_column && !best) per_column = 0;
  for (int s = 0; s < series; s++) {
    fprintf(o, "<text x=\"%g\" y=\"12\" font-size=\"11\" fill=\"%s\">%s</text>\n", L + 10 + s * 120, colors[s], names[s]);
    if (!bars) fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" points=\"", colors[s]);
    if (per_column)
      for (int c = 0; c < ncol; c++) best[c] = -1;
    for (int i = 0; i < p->ngcs; i++) {
      const struct st_gc *g = &p->gcs[i];
      if (!g->complete || !isfinite(g->v[cols[s]])) continue;
      if (per_column) {
        int c = (int)((g->v[STC_pause_start_msec] - xmin) / (xmax - xmin) * (W - L - 20));
        if (c >= 0 && c < ncol && (best[c] < 0 || g->v[cols[s]] > p->gcs[best[c]].v[cols[s]])) best[c] = i;
        continue;
      }
      chart_mark(o, g, cols[s], colors[s], bars, xmin, xmax, ymax);
    }
    for (int c = 0; per_column && c < ncol; c++)
      if (best[c] >= 0) chart_mark(o, &p->gcs[best[c]], cols[s], colors[s], bars, xmin, xmax, ymax);
    if (!bars) fprintf(o, "\"/>\n");
  }
  free(best);
  fprintf(o, "</svg>\n");
  if (per_column) fprintf(o, "<p class=\"note\">%d GCs: each pixel column shows its largest value.</p>\n", ncomplete);
}

static void html_gc_table(FILE *o, const struct st_proc *p, double min_pause, int min_gen) {
  fprintf(o, "<div class=\"scroll\"><table><tr>");
  for (int c = 0; c < STC_COUNT; c++) fprintf(o, "<th>%s</th>", st_cols[c].header);
  fprintf(o, "</tr>\n");
  int rows = 0, more = 0;
  for (int i = 0; i < p->ngcs; i++) {
    const struct st_gc *g = &p->gcs[i];
    if (!g->complete || g->gen < min_gen || !(g->v[STC_pause_msec] > min_pause)) continue;
    if (rows >= HTML_MAX_ROWS) { more++; continue; }
    rows++;
    fprintf(o, "<tr class=\"g%d%s\">", g->gen, g->v[STC_pause_msec] > 200 ? " long" : "");
    for (int c = 0; c < STC_COUNT; c++) {
      char b[48];
      const char *s = c == STC_reason_name ? g->reason
                      : c == STC_gen_name ? g->gen_name
                      : ((c == STC_bgc_pause1_msec || c == STC_bgc_pause2_msec) && isnan(g->v[c]))
                          ? ""
                          : st_gc_cell(b, sizeof b, g, c);
      fprintf(o, "<td>");
      rpt_html_str(o, s);
      fprintf(o, "</td>");
    }
    fprintf(o, "</tr>\n");
  }
  if (!rows) fprintf(o, "<tr><td colspan=\"%d\">(none)</td></tr>\n", STC_COUNT);
  fprintf(o, "</table></div>\n");
  if (more) fprintf(o, "<p class=\"note\">... %d more GCs: <code>gcscope stats --format csv</code> lists every one.</p>\n", more);
}

/* ---- the advisor's findings, early ---- */
struct early_proc { long long trace_id; int pid; char *html; size_t len; int rc; };
struct st_findings_early {
  sqlite3 *db;                 /* the second connection */
  gcs_report_findings_fn fn;
  struct early_proc *p;
  size_t n;
  pthread_t th;
  int running;
};

static void *findings_thread(void *arg) {
  struct st_findings_early *e = arg;
  for (size_t i = 0; i < e->n; i++) {
    FILE *f = open_memstream(&e->p[i].html, &e->p[i].len);
    if (!f) { e->p[i].rc = -1; continue; }
    e->p[i].rc = e->fn(e->db, e->p[i].trace_id, e->p[i].pid, f);
    if (fclose(f) != 0) e->p[i].rc = -1;
  }
  return NULL;
}

struct st_findings_early *st_findings_start(sqlite3 *db, int pid) {
  gcs_report_findings_fn fn = st_findings_fn();
  if (!fn || !db) return NULL;
  struct st_findings_early *e = calloc(1, sizeof *e);
  sqlite3_stmt *s = NULL;
  if (!e) return NULL;
  e->fn = fn;
  /* The processes with GCs in scope, as the report and the advisor list them. */
  if (sqlite3_prepare_v2(db, "SELECT DISTINCT trace_id, pid FROM gcs WHERE " GCS_IN_INPUT("trace_id")
                         " AND (?1 < 0 OR pid = ?1) ORDER BY trace_id, pid",
                         -1, &s, NULL) != SQLITE_OK)
    goto fail;
  sqlite3_bind_int(s, 1, pid);
  while (sqlite3_step(s) == SQLITE_ROW) {
    struct early_proc *np = realloc(e->p, (e->n + 1) * sizeof *np);
    if (!np) goto fail;
    e->p = np;
    e->p[e->n++] = (struct early_proc){.trace_id = sqlite3_column_int64(s, 0), .pid = sqlite3_column_int(s, 1)};
  }
  sqlite3_finalize(s);
  s = NULL;
  if (!e->n || !(e->db = second_connection(db)) || gcs_db_functions(e->db) != 0) goto fail;
  if (pthread_create(&e->th, NULL, findings_thread, e) != 0) goto fail;
  e->running = 1;
  return e;
fail:
  sqlite3_finalize(s);
  st_findings_free(e);
  return NULL;
}

static void findings_join(struct st_findings_early *e) {
  if (e && e->running) {
    pthread_join(e->th, NULL);
    e->running = 0;
  }
}

void st_findings_free(struct st_findings_early *e) {
  if (!e) return;
  findings_join(e);
  for (size_t i = 0; i < e->n; i++) free(e->p[i].html);
  free(e->p);
  if (e->db) sqlite3_close(e->db);
  free(e);
}

/* Process (trace_id, pid)'s findings into o: computed early if they were, else now on db. */
static void write_findings(FILE *o, sqlite3 *db, gcs_report_findings_fn fn, struct st_findings_early *e,
                           long long trace_id, int pid) {
  findings_join(e);
  for (size_t i = 0; e && i < e->n; i++)
    if (e->p[i].trace_id == trace_id && e->p[i].pid == pid && e->p[i].rc == 0) {
      fwrite(e->p[i].html, 1, e->p[i].len, o);
      return;
    }
  fn(db, trace_id, pid, o);
}

/* "Where the GC time went": as in text (msec per GC, mean and P95 per kind). */
static void html_phases(FILE *o, const struct st_proc *p) {
  if (!p->has_phases) {
    fprintf(o, "<h4>Where the GC time went</h4><p>not in trace (needs .NET 6+: GCGlobalHeapHistory v4)</p>\n");
    return;
  }
  fprintf(o, "<h4>Where the GC time went (msec per GC: mean / P95)</h4><table><tr><th>Phase</th>");
  for (int k = 0; k < ST_KINDS; k++)
    if (p->phases[k][GCS_GC_PHASE_COUNT].count) fprintf(o, "<th>%s mean</th><th>%s P95</th>", st_kind_names[k], st_kind_names[k]);
  fprintf(o, "</tr>\n");
  for (int ph = 0; ph <= GCS_GC_PHASE_COUNT; ph++) {
    fprintf(o, "<tr><td>%s</td>", ph < GCS_GC_PHASE_COUNT ? st_phase_labels[ph] : "All phases");
    for (int k = 0; k < ST_KINDS; k++) {
      if (!p->phases[k][GCS_GC_PHASE_COUNT].count) continue;
      const struct st_phasestat *c = &p->phases[k][ph];
      char a[32], b[32];
      if (!c->count) fprintf(o, "<td>-</td><td>-</td>");
      else fprintf(o, "<td>%s</td><td>%s</td>", rpt_num(a, sizeof a, c->mean / 1000.0, 3), rpt_num(b, sizeof b, c->p95 / 1000.0, 3));
    }
    fprintf(o, "</tr>\n");
  }
  fprintf(o, "</table>\n");
}

/* When the process has requests (librgc's, or a .NET service's recorded with
 * --requests): their latency against the GC pauses, as `impact --format
 * html` draws it (ins_impact's figures; times from the first request or
 * pause). */
static void html_requests(FILE *o, sqlite3 *db, const struct st_proc *p) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT request_id, start_ns, end_ns FROM requests WHERE trace_id = ?1 AND pid = ?2 AND "
                         "start_ns IS NOT NULL AND end_ns IS NOT NULL ORDER BY start_ns", -1, &st, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_int64(st, 1, p->trace_id);
  sqlite3_bind_int(st, 2, p->pid);
  struct ins_request *rq = NULL;
  size_t n = 0, cap = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (n == cap) {
      cap = cap ? cap * 2 : 1024;
      struct ins_request *nr = realloc(rq, cap * sizeof *nr);
      if (!nr) break;
      rq = nr;
    }
    rq[n++] = (struct ins_request){ (uint64_t)sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                    sqlite3_column_int64(st, 2) };
  }
  sqlite3_finalize(st);
  struct gcs_gcdb_pause *gp = NULL;
  size_t ngp = 0;
  char err[200];
  struct ins_pause *ip = NULL;
  struct rpt_req_point *pt = NULL;
  struct rpt_span *sp = NULL;
  struct ins_impact r;
  memset(&r, 0, sizeof r);
  if (n == 0 || gcs_gcdb_pauses(db, p->trace_id, p->pid, &gp, &ngp, err, sizeof err) != 0) goto out;
  ip = malloc((ngp ? ngp : 1) * sizeof *ip);
  sp = malloc((ngp ? ngp : 1) * sizeof *sp);
  pt = malloc(n * sizeof *pt);
  if (!ip || !sp || !pt) goto out;
  int64_t t0 = rq[0].start_ns;
  for (size_t i = 0; i < ngp; i++) {
    ip[i] = (struct ins_pause){ gp[i].gc_index, gp[i].start_ns, gp[i].end_ns };
    if (gp[i].start_ns < t0) t0 = gp[i].start_ns;
  }
  if (ins_impact_compute(rq, n, ip, ngp, ins_default_cuts, 3, n, &r) != 0) goto out;
  for (size_t i = 0; i < r.n_slowest; i++)
    pt[i] = (struct rpt_req_point){ (double)(r.slowest[i].start_ns - t0) / 1e6, r.slowest[i].latency_ms,
                                    r.slowest[i].n_gcs > 0 };
  for (size_t i = 0; i < ngp; i++)
    sp[i] = (struct rpt_span){ (double)(gp[i].start_ns - t0) / 1e6, (double)(gp[i].end_ns - t0) / 1e6 };
  fprintf(o, "<h4>Request latency vs GC pauses</h4>\n<p>%zu requests, %zu (%.3f %%) hit by a GC pause; latency p99 "
             "%.3f ms", r.requests, r.affected, r.affected_pct, r.pct_ms[3]);
  if (!isnan(r.pct_clean_ms[3])) fprintf(o, ", %.3f ms without GC", r.pct_clean_ms[3]);
  if (!isnan(r.pct_hit_ms[3])) fprintf(o, ", %.3f ms with GC", r.pct_hit_ms[3]);
  fprintf(o, " (<code>gcscope impact</code> has the rest). Time in ms from the first request or pause.</p>\n");
  rpt_svg_requests(o, pt, r.n_slowest, sp, ngp);
out:
  ins_impact_free(&r);
  free(rq);
  free(gp);
  free(ip);
  free(sp);
  free(pt);
}

void st_write_html(FILE *o, const struct st_model *m, sqlite3 *db, struct st_findings_early *early) {
  gcs_report_findings_fn findings = db ? st_findings_fn() : NULL;
  fprintf(o, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gcscope GCStats</title>\n"
             "<style>body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse;margin:6px 0}"
             "td,th{border:1px solid #bbb;padding:2px 5px;text-align:right}th{background:#eee}"
             "tr.g2{background:#fde2c8}tr.g1{background:#fff3d6}tr.long td{color:#c00;font-weight:bold}"
             ".warn{color:#a00;font-weight:bold}.scroll{overflow:auto;max-height:40em}.note{color:#555}"
             ".findings{border:1px solid #ccc;background:#fafafa;padding:2px 10px;margin:6px 0}"
             ".sev-critical b{color:#c00}.sev-warning b{color:#b60}.sev-info b{color:#2a6fdb}"
             ".grid{stroke:#e4e4e4}</style></head><body>\n<h2>GCStats</h2>\n");
  fprintf(o, "<pre class=\"warn\">");
  FILE *tmp = o;
  st_warnings(tmp, m, "");
  fprintf(o, "</pre>\n");
  int several = 0;   /* several traces: each heading names its trace */
  for (int i = 1; i < m->nprocs; i++) several |= m->procs[i].trace_id != m->procs[0].trace_id;
  for (int i = 0; i < m->nprocs; i++) {
    const struct st_proc *p = &m->procs[i];
    char a[48], b[48];
    fprintf(o, "<h3>GC Stats for Process %d: ", p->pid);
    rpt_html_str(o, p->name ? p->name : "?");
    if (several) {
      fprintf(o, " [trace %lld: ", (long long)p->trace_id);
      rpt_html_str(o, p->trace_path ? p->trace_path : "?");
      fprintf(o, "]");
    }
    fprintf(o, "</h3>\n");
    if (findings) write_findings(o, db, findings, early, (long long)p->trace_id, p->pid);
    fprintf(o, "<ul>");
    if (p->cmdline) {
      fprintf(o, "<li>CommandLine: ");
      rpt_html_str(o, p->cmdline);
      fprintf(o, "</li>");
    }
    fprintf(o, "<li>Runtime: %s GC, concurrent GC %s</li>",
            p->server_gc == 1 ? "server" : p->server_gc == 0 ? "workstation" : "unknown",
            p->concurrent_gc == 1 ? "on" : p->concurrent_gc == 0 ? "off" : "unknown");
    fprintf(o, "<li>Total Allocs: %s MB</li>", rpt_num(a, sizeof a, p->total_alloc, 3));
    if (!isnan(p->total_alloc_measured))
      fprintf(o, "<li>Total Allocs measured: %s MB (gcscope: from the heap's sizes around each GC; PerfView's figure "
              "above takes a background GC's gen0 from AllocationTick alone)</li>",
              rpt_num(a, sizeof a, p->total_alloc_measured, 3));
    if (p->heap_count_min > 0 && p->heap_count_max > p->heap_count_min)
      fprintf(o, "<li>Number of Heaps: %d–%d, changed %d time%s (each GC's: the Heaps column)</li>",
              p->heap_count_min, p->heap_count_max, p->heap_count_changes, p->heap_count_changes == 1 ? "" : "s");
    else if (p->heap_count_min > 0) fprintf(o, "<li>Number of Heaps: %d</li>", p->heap_count_min);
    else if (p->heap_count >= 0) fprintf(o, "<li>Number of Heaps: %d</li>", p->heap_count);
    else fprintf(o, "<li>Number of Heaps: unknown (no GCGlobalHeapHistory)</li>");
    fprintf(o, "<li>GCs: %d complete, %d incomplete</li>", p->gc_count, p->incomplete_count);
    fprintf(o, "<li>Total GC Pause: %s msec</li>", rpt_num(a, sizeof a, p->total_pause, 1));
    if (!isnan(p->total_runtime_pause))
      fprintf(o, "<li>Runtime's own total pause: %s msec (GC.GetTotalPauseDuration; gcscope's figure, the Runtime "
              "Pause MSec column; %d GC%s differ%s from PerfView's Pause MSec by over 5 %%: PerfView adds the "
              "restart, gives the ephemeral GC of a background GC's start that whole suspension, and a GC "
              "announced as background that ran in one suspension only that suspension)</li>",
              rpt_num(a, sizeof a, p->total_runtime_pause, 1), p->rt_pause_differs,
              p->rt_pause_differs == 1 ? "" : "s", p->rt_pause_differs == 1 ? "s" : "");
    if (isnan(p->pct_pause)) fprintf(o, "<li>%% Time paused for Garbage Collection: unknown (no complete GC)</li>");
    else fprintf(o, "<li>%% Time paused for Garbage Collection: %s%%</li>", rpt_num(b, sizeof b, p->pct_pause, 1));
    st_html_overhead_item(o, &p->ov);
    fprintf(o, "<li>Max GC Heap Size: %s MB</li>", rpt_num(a, sizeof a, p->max_heap, 3));
    if (p->has_committed) fprintf(o, "<li>Max Committed: %s MB (GCCommittedUsage)</li>\n", rpt_num(a, sizeof a, p->max_committed, 3));
    else fprintf(o, "<li>Max Committed: not in trace (needs .NET 8+: GCCommittedUsage)</li>\n");
    {   /* issue 26: LOH compaction, pinning, background GC revisits */
      char lines[4][ST_SUMMARY_LINE];
      int nl = st_summary_lines(p, lines, 4);
      for (int i = 0; i < nl; i++) {
        fputs("<li>", o);
        rpt_html_str(o, lines[i]);
        fputs("</li>", o);
      }
      fputs("</ul>\n", o);
    }
    fprintf(o, "<table><tr><th>Kind</th><th>Count</th><th>Mean</th><th>Max</th><th>P50</th><th>P95</th><th>P99</th></tr>\n");
    for (int k = 0; k < ST_KINDS; k++) {
      const struct st_pausestat *s = &p->kinds[k];
      char c[5][32];
      fprintf(o, "<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
              st_kind_names[k], s->count, rpt_num(c[0], 32, s->mean, 3), rpt_num(c[1], 32, s->max, 3),
              rpt_num(c[2], 32, s->p50, 3), rpt_num(c[3], 32, s->p95, 3), rpt_num(c[4], 32, s->p99, 3));
    }
    fprintf(o, "</table>\n");
    html_phases(o, p);
    fprintf(o, "<table><tr><th>Pause (ms)</th><th>GCs</th></tr>\n");
    for (int h = 0; h < ST_HIST_BUCKETS; h++)
      fprintf(o, "<tr><td>%g%s</td><td>%d</td></tr>\n", st_hist_edges[h], h + 1 < ST_HIST_BUCKETS ? "+" : "+", p->hist[h]);
    fprintf(o, "</table>\n<h4>GC Rollup By Generation</h4><table><tr><th>Gen</th><th>Count</th><th>Max Pause</th>"
               "<th>Max Peak MB</th><th>Total Pause</th><th>Total Alloc MB</th><th>Mean Pause</th><th>Induced</th></tr>\n");
    for (int r = 0; r < 4; r++) {
      const struct st_rollup *ro = &p->roll[r];
      char c[5][32];
      fprintf(o, "<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td></tr>\n",
              roll_names[r], ro->count, rpt_num(c[0], 32, ro->max_pause, 1), rpt_num(c[1], 32, ro->max_peak, 1),
              rpt_num(c[2], 32, ro->total_pause, 1), rpt_num(c[3], 32, ro->total_alloc, 1),
              rpt_num(c[4], 32, ro->mean_pause, 1), ro->induced);
    }
    fprintf(o, "</table>\n");
    static const int pc[] = { STC_pause_msec };
    static const char *const pn[] = { "Pause MSec" }, *const pcol[] = { "#2a6fdb" };
    svg_chart(o, p, "Pause per GC over time", 1, pn, pc, pcol, 1);
    static const int hc[] = { STC_peak_mb, STC_after_mb, STC_committed_after_mb };
    static const char *const hn[] = { "Peak MB", "After MB", "Committed MB" },
                             *const hcol[] = { "#d05a00", "#2a9d3a", "#7f7f7f" };
    svg_chart(o, p, "Heap size (MB) over time", p->has_committed ? 3 : 2, hn, hc, hcol, 0);
    st_html_mmu_chart(o, &p->ov);
    st_datas_html(o, p);
    if (db) html_requests(o, db, p);
    fprintf(o, "<h4>Pause &gt; 200 Msec GC Events</h4>\n");
    html_gc_table(o, p, 200, 0);
    fprintf(o, "<h4>LOH Allocation Pause (due to background GC) &gt; 200 Msec</h4>\n<table><tr><th>BGC Index</th>"
               "<th>Thread ID</th><th>Pause Start</th><th>Pause MSec</th><th>Pause Reason</th></tr>\n");
    if (!p->nwaits) fprintf(o, "<tr><td colspan=\"5\">(none)</td></tr>\n");
    for (int w = 0; w < p->nwaits && w < HTML_MAX_ROWS; w++)
      fprintf(o, "<tr><td>%u</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", p->waits[w].bgc_index,
              p->waits[w].tid, rpt_num(a, sizeof a, p->waits[w].start, 3), rpt_num(b, sizeof b, p->waits[w].pause, 3),
              gcs_bgc_wait_reason_text((uint32_t)p->waits[w].reason));
    fprintf(o, "</table>\n<h4>Gen 2</h4>\n");
    html_gc_table(o, p, -INFINITY, 2);
    fprintf(o, "<h4>All GC Events</h4>\n");
    html_gc_table(o, p, -INFINITY, 0);
    if (p->has_phh) {
      fprintf(o, "<h4>Condemned reasons for GCs</h4>\n<table><tr><th>GC Index</th>");
      for (int k = 0; k < GCS_CONDEMN_GROUP_COUNT; k++) fprintf(o, "<th>%s</th>", cr_cols[k] + 3);
      fprintf(o, "</tr>\n");
      int crows = 0;
      for (int i2 = 0; i2 < p->ngcs; i2++) {
        if (!p->gcs[i2].complete) continue;
        int any = 0;
        for (int k = 0; k < GCS_CONDEMN_GROUP_COUNT; k++) any |= p->gcs[i2].cr[k] != 0;
        if (!any || crows >= HTML_MAX_ROWS) continue;   /* as in text: only GCs that have a reason */
        crows++;
        fprintf(o, "<tr><td>%.0f</td>", p->gcs[i2].v[STC_gc_index]);
        for (int k = 0; k < GCS_CONDEMN_GROUP_COUNT; k++) {
          int v = p->gcs[i2].cr[k];
          if (!v) fprintf(o, "<td></td>");
          else if (k == 4) fprintf(o, "<td>%s</td>", v == 1 ? "Blocking" : "NotForced");
          else fprintf(o, "<td>%d</td>", v);
        }
        fprintf(o, "</tr>\n");
      }
      fprintf(o, "</table>\n");
    }
  }
  fprintf(o, "</body></html>\n");
}
