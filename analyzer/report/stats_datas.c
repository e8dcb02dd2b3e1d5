/*
 * stats_datas.c — DATAS (the server GC's dynamic heap count, .NET 9+) in the
 * GCStats report: the decoded SizeAdaptation* events of a process
 * (gc_datas_samples, gc_datas_tunings, gc_datas_gen2_tunings; .NET 8's
 * HeapCountSample/Tuning in gc_datas_hc_samples/_tunings) and its heap
 * count per GC (gcs.heap_count, GCGlobalHeapHistory NumHeaps), read by
 * st_datas_load; written as each GC's "dynamic_events" and the summary's
 * "datas" in JSON, the "DATAS heap count" text section and the HTML section
 * with its heap-count chart.
 *
 * A heap count change is a GC whose heap count differs from the previous
 * GC's (that has one). The decision behind it is the last SizeAdaptationTuning
 * before that GC (at or after the previous GC) whose NewHeapCount is the new
 * count; failing that, the last decision of any kind in that span
 * (SizeAdaptationTuning, FullGCTuning, or .NET 8's HeapCountTuning, whose
 * NewHeapCount is the count the GC ran with, never the decided one: see
 * schemas/gc_events.def); failing that, none ("not in trace").
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_events.h"
#include "gcs_html.h"
#include "gcs_output.h"
#include "stats_model.h"

/* DK_HC_*: .NET 8's HeapCountSample / HeapCountTuning (gc_datas_hc_*). */
enum { DK_SAMPLE, DK_TUNING, DK_FULL, DK_HC_SAMPLE, DK_HC_TUNING, DK_KINDS };
#define DCOL(N, T, U, D, B) #N,
#define DUNIT(N, T, U, D, B) U,
static const char *const sample_cols[] = { GCS_COLS_gc_datas_samples(DCOL) };
static const char *const tuning_cols[] = { GCS_COLS_gc_datas_tunings(DCOL) };
static const char *const full_cols[] = { GCS_COLS_gc_datas_gen2_tunings(DCOL) };
static const char *const hc_sample_cols[] = { GCS_COLS_gc_datas_hc_samples(DCOL) };
static const char *const hc_tuning_cols[] = { GCS_COLS_gc_datas_hc_tunings(DCOL) };
static const char *const sample_units[] = { GCS_COLS_gc_datas_samples(DUNIT) };
static const char *const tuning_units[] = { GCS_COLS_gc_datas_tunings(DUNIT) };
static const char *const full_units[] = { GCS_COLS_gc_datas_gen2_tunings(DUNIT) };
static const char *const hc_sample_units[] = { GCS_COLS_gc_datas_hc_samples(DUNIT) };
static const char *const hc_tuning_units[] = { GCS_COLS_gc_datas_hc_tunings(DUNIT) };
#undef DCOL
#undef DUNIT
#define NKEY 4 /* trace_id, pid, gc_index, time_msec: GCS_DATAS_KEY_COLS */
#define NCOLS(a) ((int)(sizeof a / sizeof a[0]))
static const struct {
  const char *table, *event;
  const char *const *cols, *const *units;   /* units: the schema's ("enum:<map>" for the runtime's codes) */
  int ncols;
} kinds[DK_KINDS] = {
  { "gc_datas_samples", "SizeAdaptationSample", sample_cols, sample_units, NCOLS(sample_cols) },
  { "gc_datas_tunings", "SizeAdaptationTuning", tuning_cols, tuning_units, NCOLS(tuning_cols) },
  { "gc_datas_gen2_tunings", "SizeAdaptationFullGCTuning", full_cols, full_units, NCOLS(full_cols) },
  { "gc_datas_hc_samples", "HeapCountSample", hc_sample_cols, hc_sample_units, NCOLS(hc_sample_cols) },
  { "gc_datas_hc_tunings", "HeapCountTuning", hc_tuning_cols, hc_tuning_units, NCOLS(hc_tuning_cols) },
};
#define MAXV 24
_Static_assert(NCOLS(tuning_cols) - NKEY <= MAXV && NCOLS(sample_cols) - NKEY <= MAXV &&
               NCOLS(full_cols) - NKEY <= MAXV && NCOLS(hc_sample_cols) - NKEY <= MAXV &&
               NCOLS(hc_tuning_cols) - NKEY <= MAXV, "MAXV");
/* A decision: a tuning of either runtime, or a look at the full GCs. */
static int is_decision(int kind) { return kind == DK_TUNING || kind == DK_HC_TUNING || kind == DK_FULL; }

struct dyn_row {
  uint32_t gc_index;
  int kind;
  double time_msec;
  double v[MAXV];   /* the kind's columns after the key ones, NaN = NULL */
};
struct hc_point { uint32_t gc_index; double t_msec; int heaps; };
struct hc_change { uint32_t gc_index; double t_msec; int from, to, row; /* row: the decision, -1 none */ };

struct st_datas {
  int64_t decoded, undecoded, unattached;   /* gc_process_summary; -1: NULL (an older import) */
  struct dyn_row *rows;
  int nrows, count[DK_KINDS];
  struct hc_point *pts;
  int npts;
  struct hc_change *chg;
  int nchg;
  int hc_min, hc_max;                       /* over pts; 0 if none */
};

/* A code's name by the map of its column's unit ("enum:<map>"), in buf:
 * returns buf, or NULL when the value has no name (or is NULL). */
static const char *code_name(const char *unit, double v, char *buf, size_t n) {
  if (strncmp(unit, "enum:", 5) != 0 || !(v >= 0 && v <= 4294967295.0) || v != floor(v)) return NULL;
  return gcs_map_text(gcs_map_find(unit + 5), (uint64_t)v, buf, n) ? buf : NULL;
}

/* The value of column name of a row of its kind, NaN if absent. */
static double colv(const struct dyn_row *r, const char *name) {
  for (int c = NKEY; c < kinds[r->kind].ncols; c++)
    if (strcmp(kinds[r->kind].cols[c], name) == 0) return r->v[c - NKEY];
  return NAN;
}

static int by_index_time(const void *a, const void *b) {
  const struct dyn_row *x = a, *y = b;
  if (x->gc_index != y->gc_index) return x->gc_index < y->gc_index ? -1 : 1;
  if (x->time_msec != y->time_msec) return x->time_msec < y->time_msec ? -1 : 1;
  return x->kind - y->kind;
}

static int grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return 0;
  int nc = *cap ? *cap * 2 : 16;
  while (nc < need) nc *= 2;
  void *q = realloc(*p, (size_t)nc * elem);
  if (!q) return -1;
  *p = q;
  *cap = nc;
  return 0;
}

static int load_kind(sqlite3 *db, const struct st_proc *p, struct st_datas *d, int k, int *cap) {
  char sql[1024];
  int n = snprintf(sql, sizeof sql, "SELECT ");
  for (int c = 0; c < kinds[k].ncols && n < (int)sizeof sql - 200; c++)
    n += snprintf(sql + n, sizeof sql - (size_t)n, "%s%s", c ? ", " : "", kinds[k].cols[c]);
  snprintf(sql + n, sizeof sql - (size_t)n, " FROM %s WHERE trace_id = ?1 AND pid = ?2", kinds[k].table);
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) return 0; /* an older database: none */
  sqlite3_bind_int64(s, 1, p->trace_id);
  sqlite3_bind_int(s, 2, p->pid);
  int rc = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (grow((void **)&d->rows, cap, d->nrows + 1, sizeof *d->rows)) { rc = -1; break; }
    struct dyn_row *r = &d->rows[d->nrows++];
    r->kind = k;
    r->gc_index = (uint32_t)sqlite3_column_int64(s, 2);
    r->time_msec = sqlite3_column_type(s, 3) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 3);
    for (int c = NKEY; c < kinds[k].ncols; c++)
      r->v[c - NKEY] = sqlite3_column_type(s, c) == SQLITE_NULL ? NAN : sqlite3_column_double(s, c);
    d->count[k]++;
  }
  sqlite3_finalize(s);
  return rc;
}

/* The decision behind a change to `to` heaps at GC `at`, the previous GC
 * with a heap count being `prev` (file comment). */
static int decision_of(const struct st_datas *d, uint32_t prev, uint32_t at, int to) {
  int any = -1, lo = 0, hi = d->nrows;
  while (lo < hi) {   /* the first row naming GC `at` or later (rows sorted by GC index) */
    int mid = (lo + hi) / 2;
    if (d->rows[mid].gc_index < at) lo = mid + 1;
    else hi = mid;
  }
  for (int i = lo - 1; i >= 0 && d->rows[i].gc_index >= prev; i--) {
    const struct dyn_row *r = &d->rows[i];
    if (!is_decision(r->kind)) continue;
    if (r->kind == DK_TUNING && colv(r, "new_heap_count") == to) return i;
    if (any < 0) any = i;
  }
  return any;
}

static int load_heaps(sqlite3 *db, const struct st_proc *p, struct st_datas *d) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db,
                         "SELECT gc_index, coalesce(pause_start_msec, start_msec), heap_count FROM gcs "
                         "WHERE trace_id = ?1 AND pid = ?2 AND heap_count IS NOT NULL ORDER BY list_index",
                         -1, &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(s, 1, p->trace_id);
  sqlite3_bind_int(s, 2, p->pid);
  int cap = 0, ccap = 0, rc = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (grow((void **)&d->pts, &cap, d->npts + 1, sizeof *d->pts)) { rc = -1; break; }
    struct hc_point *pt = &d->pts[d->npts++];
    pt->gc_index = (uint32_t)sqlite3_column_int64(s, 0);
    pt->t_msec = sqlite3_column_type(s, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 1);
    pt->heaps = sqlite3_column_int(s, 2);
    if (d->hc_min == 0 || pt->heaps < d->hc_min) d->hc_min = pt->heaps;
    if (pt->heaps > d->hc_max) d->hc_max = pt->heaps;
    if (d->npts < 2 || pt->heaps == pt[-1].heaps) continue;
    if (grow((void **)&d->chg, &ccap, d->nchg + 1, sizeof *d->chg)) { rc = -1; break; }
    d->chg[d->nchg++] = (struct hc_change){pt->gc_index, pt->t_msec, pt[-1].heaps, pt->heaps,
                                           decision_of(d, pt[-1].gc_index, pt->gc_index, pt->heaps)};
  }
  sqlite3_finalize(s);
  return rc;
}

int st_datas_load(sqlite3 *db, struct st_proc *p) {
  struct st_datas *d = calloc(1, sizeof *d);
  if (!d) return -1;
  p->datas = d;
  d->decoded = d->undecoded = d->unattached = -1;
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db,
                         "SELECT dynamic_events, dynamic_events_undecoded, dynamic_events_unattached "
                         "FROM gc_process_summary WHERE trace_id = ?1 AND pid = ?2",
                         -1, &s, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(s, 1, p->trace_id);
    sqlite3_bind_int(s, 2, p->pid);
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
      d->decoded = sqlite3_column_int64(s, 0);
      d->undecoded = sqlite3_column_int64(s, 1);
      d->unattached = sqlite3_column_int64(s, 2);
    }
    sqlite3_finalize(s);
  }
  int cap = 0;
  for (int k = 0; k < DK_KINDS; k++)
    if (load_kind(db, p, d, k, &cap)) return -1;
  if (d->nrows > 1) qsort(d->rows, (size_t)d->nrows, sizeof *d->rows, by_index_time);
  /* Without DATAS events and with one heap count over the complete GCs
   * (workstation GC, a fixed server GC), there is no change to list: the
   * GCs are not read again. */
  if (d->nrows == 0 && p->heap_count_min == p->heap_count_max) return 0;
  return load_heaps(db, p, d);
}

void st_datas_free(struct st_datas *d) {
  if (!d) return;
  free(d->rows);
  free(d->pts);
  free(d->chg);
  free(d);
}

/* ---- JSON ---------------------------------------------------------------- */

/* {"name", ["gc_index",] "time_msec", the columns...} */
static void json_row(struct rpt_wbuf *w, const struct dyn_row *r, int with_index) {
  rpt_wbuf_str(w, "{\"name\": ");
  rpt_wbuf_json_str(w, kinds[r->kind].event);
  if (with_index) {
    rpt_wbuf_str(w, ", \"gc_index\": ");
    rpt_wbuf_i64(w, r->gc_index);
  }
  rpt_wbuf_str(w, ", \"time_msec\": ");
  rpt_wbuf_json_num(w, r->time_msec);
  for (int c = NKEY; c < kinds[r->kind].ncols; c++) {
    rpt_wbuf_str(w, ", \"");
    rpt_wbuf_str(w, kinds[r->kind].cols[c]);
    rpt_wbuf_str(w, "\": ");
    rpt_wbuf_json_num(w, r->v[c - NKEY]);
    if (strncmp(kinds[r->kind].units[c], "enum:", 5) == 0) {   /* the runtime's code: its name beside it */
      char name[160];
      rpt_wbuf_str(w, ", \"");
      rpt_wbuf_str(w, kinds[r->kind].cols[c]);
      rpt_wbuf_str(w, "_name\": ");
      if (code_name(kinds[r->kind].units[c], r->v[c - NKEY], name, sizeof name)) rpt_wbuf_json_str(w, name);
      else rpt_wbuf_str(w, "null");
    }
  }
  rpt_wbuf_char(w, '}');
}

void st_datas_json_gc(struct rpt_wbuf *w, const struct st_proc *p, double gc_index) {
  const struct st_datas *d = p->datas;
  rpt_wbuf_str(w, ", \"dynamic_events\": ");
  if (!d || d->nrows == 0) {   /* none in the process: not recorded, or no DATAS */
    rpt_wbuf_str(w, "null");
    return;
  }
  /* rows sorted by GC index: the first of this GC by bisection */
  int lo = 0, hi = d->nrows;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if ((double)d->rows[mid].gc_index < gc_index) lo = mid + 1;
    else hi = mid;
  }
  rpt_wbuf_char(w, '[');
  for (int i = lo, n = 0; i < d->nrows && (double)d->rows[i].gc_index == gc_index; i++, n++) {
    if (n) rpt_wbuf_str(w, ", ");
    json_row(w, &d->rows[i], 0);
  }
  rpt_wbuf_char(w, ']');
}

static void json_count(FILE *o, const char *k, int64_t v) {
  if (v < 0) fprintf(o, ", \"%s\": null", k);
  else fprintf(o, ", \"%s\": %lld", k, (long long)v);
}

void st_datas_json_summary(FILE *o, const struct st_proc *p) {
  const struct st_datas *d = p->datas;
  fprintf(o, ", \"datas\": ");
  if (!d) {
    fputs("null", o);
    return;
  }
  fprintf(o, "{\"in_trace\": %s", d->nrows ? "true" : "false");
  json_count(o, "dynamic_events", d->decoded);
  json_count(o, "undecoded", d->undecoded);
  json_count(o, "unattached", d->unattached);
  fprintf(o, ", \"samples\": %d, \"tunings\": %d, \"full_gc_tunings\": %d", d->count[DK_SAMPLE] + d->count[DK_HC_SAMPLE],
          d->count[DK_TUNING] + d->count[DK_HC_TUNING], d->count[DK_FULL]);
  fprintf(o, ", \"heap_count_changes\": [");
  struct rpt_wbuf wb = {.f = o, .n = 0};
  for (int i = 0; i < d->nchg; i++) {
    const struct hc_change *c = &d->chg[i];
    fprintf(o, "%s{\"gc_index\": %u, \"time_msec\": ", i ? ", " : "", c->gc_index);
    rpt_json_num(o, c->t_msec);
    fprintf(o, ", \"from\": %d, \"to\": %d, \"decision\": ", c->from, c->to);
    if (c->row < 0) {
      fputs("null", o);
    } else {
      json_row(&wb, &d->rows[c->row], 1);
      rpt_wbuf_flush(&wb);
    }
    fputc('}', o);
  }
  fputs("]}", o);
}

/* ---- text ------------------------------------------------------------------ */

/* "not in trace ..." and the like, or NULL when there is something to show. */
static const char *why_nothing(const struct st_datas *d) {
  if (!d) return "unknown";
  if (d->nrows || d->nchg) return NULL;
  if (d->decoded < 0) return "unknown (imported before DATAS was decoded: import again)";
  return "not in trace (needs .NET 9+ server GC with DATAS)";
}

/* A code column of a row as text: its name, or "unknown (N)" (never a
 * guessed name), "unknown" when NULL. */
static const char *code_text(const struct dyn_row *r, const char *col, char *buf, size_t n) {
  double v = colv(r, col);
  for (int c = NKEY; c < kinds[r->kind].ncols; c++)
    if (strcmp(kinds[r->kind].cols[c], col) == 0 && code_name(kinds[r->kind].units[c], v, buf, n)) return buf;
  if (isnan(v)) snprintf(buf, n, "%s", RPT_UNKNOWN);
  else snprintf(buf, n, "unknown (%.0f)", v);
  return buf;
}

/* What a decision adjusted: its adj_metric's name, "full GCs" for a
 * FullGCTuning, "(.NET 8)" for a HeapCountTuning (no such code). */
static void decision_text(char *buf, size_t n, const struct dyn_row *r) {
  if (r->kind == DK_TUNING) code_text(r, "adj_metric", buf, n);
  else if (r->kind == DK_HC_TUNING) snprintf(buf, n, "(.NET 8)");
  else snprintf(buf, n, "full GCs");
}

/* "decision X; adj_reason Y; hc_freq_reason Z" of a SizeAdaptationTuning. */
static void why_text(char *buf, size_t n, const struct dyn_row *r) {
  char a[160], b[160], c[160];
  snprintf(buf, n, "decision %s; adj_reason %s; hc_freq_reason %s", code_text(r, "change_decision", a, sizeof a),
           code_text(r, "adj_reason", b, sizeof b), code_text(r, "hc_freq_reason", c, sizeof c));
}

/* The length of the chunk of text at p: up to a space, or up to and with a
 * '|' (a flags value's names break there). */
static size_t chunk_len(const char *p) {
  size_t n = strcspn(p, " |");
  return p[n] == '|' ? n + 1 : n;
}

/* text after a prefix, wrapped at 80 columns at its spaces and after a '|'
 * (continuations indented under the text). */
static void print_wrapped(FILE *o, const char *prefix, const char *text) {
  int indent = (int)strlen(prefix), col = indent;
  fputs(prefix, o);
  const char *p = text;
  while (*p) {
    size_t len = chunk_len(p);
    fwrite(p, 1, len, o);
    col += (int)len;
    p += len;
    int space = *p == ' ';
    if (space) p++;
    if (!*p) break;
    if (col + space + (int)chunk_len(p) > 80) {
      fprintf(o, "\n%*s", indent, "");
      col = indent;
    } else if (space) {
      fputc(' ', o);
      col++;
    }
  }
  fputc('\n', o);
}

void st_datas_text(FILE *o, const struct st_proc *p) {
  const struct st_datas *d = p->datas;
  const char *why = why_nothing(d);
  if (why) {
    fprintf(o, "\nDATAS heap count: %s\n", why);
    return;
  }
  fprintf(o, "\nDATAS heap count over time (server GC's dynamic adaptation)\n");
  int ntun = d->count[DK_TUNING] + d->count[DK_HC_TUNING], nsam = d->count[DK_SAMPLE] + d->count[DK_HC_SAMPLE];
  if (d->hc_max > 0)
    fprintf(o, "  Heaps %d-%d, changed %d time%s; %d decision%s, %d sample%s, %d full-GC look%s\n", d->hc_min,
            d->hc_max, d->nchg, d->nchg == 1 ? "" : "s", ntun, ntun == 1 ? "" : "s", nsam, nsam == 1 ? "" : "s",
            d->count[DK_FULL], d->count[DK_FULL] == 1 ? "" : "s");
  else
    fprintf(o, "  Heaps unknown (no GCGlobalHeapHistory); %d decision%s, %d sample%s\n", ntun, ntun == 1 ? "" : "s",
            nsam, nsam == 1 ? "" : "s");
  if (d->count[DK_HC_TUNING] + d->count[DK_HC_SAMPLE])
    fprintf(o, "  From .NET 8's events (HeapCountTuning, HeapCountSample): no reason codes\n");
  if (d->undecoded > 0)
    fprintf(o, "  %lld DATAS event%s of a version or size gcscope does not know: not decoded\n",
            (long long)d->undecoded, d->undecoded == 1 ? "" : "s");
  if (d->unattached > 0)
    fprintf(o, "  %lld DATAS event%s naming a GC not in the trace: left out\n", (long long)d->unattached,
            d->unattached == 1 ? "" : "s");
  if (!d->nchg) return;
  fprintf(o, "  Each change, with the decision (%s) that made it:\n",
          d->count[DK_TUNING] || !d->count[DK_HC_TUNING] ? "SizeAdaptationTuning" : "HeapCountTuning");
  const char *h[] = { "Decided ms", "At GC#", "Heaps", "Median cost %", "From GC#", "Adjusted" };
  struct rpt_table t;
  rpt_table_init(&t, 6, h);
  for (int i = 0; i < 5; i++) t.right[i] = 1;
  for (int i = 0; i < d->nchg; i++) {
    const struct hc_change *c = &d->chg[i];
    char cell[6][64];
    const struct dyn_row *r = c->row >= 0 ? &d->rows[c->row] : NULL;
    if (r) {
      rpt_num(cell[0], sizeof cell[0], r->time_msec, 3);
      snprintf(cell[1], sizeof cell[1], "%u", r->gc_index);
      if (r->kind != DK_FULL) rpt_num_unknown(cell[3], sizeof cell[3], colv(r, "median_tcp_pct"), 1);
      else rpt_num_unknown(cell[3], sizeof cell[3], colv(r, "median_gen2_tcp_pct"), 1);
      decision_text(cell[5], sizeof cell[5], r);
    } else {
      snprintf(cell[0], sizeof cell[0], "not in trace");
      snprintf(cell[1], sizeof cell[1], "%s", RPT_UNKNOWN);
      snprintf(cell[3], sizeof cell[3], "%s", RPT_UNKNOWN);
      snprintf(cell[5], sizeof cell[5], "%s", RPT_UNKNOWN);
    }
    snprintf(cell[2], sizeof cell[2], "%d -> %d", c->from, c->to);
    snprintf(cell[4], sizeof cell[4], "%u", c->gc_index);
    const char *row[] = { cell[0], cell[1], cell[2], cell[3], cell[4], cell[5] };
    rpt_table_add(&t, row);
  }
  rpt_table_print(&t, o, 0);
  rpt_table_free(&t);
  fprintf(o, "  Median cost: (lock wait / heaps + pause) * 100 / time between GCs, 3 GCs.\n");
  if (!d->count[DK_TUNING]) return;
  fprintf(o, "  Adjusted: the runtime's adj_metric; why, in its codes (docs/stats.md):\n");
  for (int i = 0; i < d->nchg; i++) {
    const struct dyn_row *r = d->chg[i].row >= 0 ? &d->rows[d->chg[i].row] : NULL;
    if (!r || r->kind != DK_TUNING) continue;
    char prefix[32], why[600];
    snprintf(prefix, sizeof prefix, "    GC#%u: ", r->gc_index);
    why_text(why, sizeof why, r);
    print_wrapped(o, prefix, why);
  }
}

/* ---- HTML ------------------------------------------------------------------ */

#define HC_W 900.0
#define HC_H 200.0
#define HC_L 60.0
#define HC_B 30.0
#define HC_T 20.0

void st_datas_html(FILE *o, const struct st_proc *p) {
  const struct st_datas *d = p->datas;
  fprintf(o, "<h4>DATAS heap count over time</h4>\n");
  const char *why = why_nothing(d);
  if (why) {
    fprintf(o, "<p>");
    rpt_html_str(o, why);
    fprintf(o, "</p>\n");
    return;
  }
  int ntun = d->count[DK_TUNING] + d->count[DK_HC_TUNING], nsam = d->count[DK_SAMPLE] + d->count[DK_HC_SAMPLE];
  fprintf(o, "<p>%d decision%s (%s), %d sample%s, %d full-GC look%s; ", ntun, ntun == 1 ? "" : "s",
          d->count[DK_HC_TUNING] ? "HeapCountTuning of .NET 8" : "SizeAdaptationTuning", nsam, nsam == 1 ? "" : "s",
          d->count[DK_FULL], d->count[DK_FULL] == 1 ? "" : "s");
  if (d->hc_max > 0)
    fprintf(o, "heaps %d-%d, changed %d time%s.</p>\n", d->hc_min, d->hc_max, d->nchg, d->nchg == 1 ? "" : "s");
  else
    fprintf(o, "heaps unknown (no GCGlobalHeapHistory).</p>\n");
  /* the heap count of each GC as a step line */
  double xmin = INFINITY, xmax = -INFINITY;
  for (int i = 0; i < d->npts; i++)
    if (isfinite(d->pts[i].t_msec)) {
      if (d->pts[i].t_msec < xmin) xmin = d->pts[i].t_msec;
      if (d->pts[i].t_msec > xmax) xmax = d->pts[i].t_msec;
    }
  if (isfinite(xmin) && d->hc_max > 0) {
    if (xmax <= xmin) xmax = xmin + 1;
    fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
               "style=\"background:#fff;border:1px solid #ccc\">\n", HC_W, HC_H);
    double ymax = rpt_svg_axes(o, HC_L, HC_T, HC_W - 20, HC_H - HC_B, xmin, xmax, d->hc_max + 1, "heaps");
    fprintf(o, "<polyline fill=\"none\" stroke=\"#2a6fdb\" stroke-width=\"2\" points=\"");
    double lasty = NAN;
    int n = 0;
    for (int i = 0; i < d->npts && n < 20000; i++) {
      if (!isfinite(d->pts[i].t_msec)) continue;
      double x = HC_L + (d->pts[i].t_msec - xmin) / (xmax - xmin) * (HC_W - HC_L - 20);
      double y = (HC_H - HC_B) - d->pts[i].heaps / ymax * (HC_H - HC_B - HC_T);
      if (isfinite(lasty) && y != lasty) fprintf(o, "%.1f,%.1f ", x, lasty), n++;
      if (!isfinite(lasty) || y != lasty || i + 1 == d->npts) fprintf(o, "%.1f,%.1f ", x, y), n++;
      lasty = y;
    }
    fprintf(o, "\"/>\n");
    for (int i = 0; i < d->nchg; i++) {
      const struct hc_change *c = &d->chg[i];
      if (!isfinite(c->t_msec)) continue;
      double x = HC_L + (c->t_msec - xmin) / (xmax - xmin) * (HC_W - HC_L - 20);
      double y = (HC_H - HC_B) - c->to / ymax * (HC_H - HC_B - HC_T);
      fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#d05a00\"><title>GC %u: %d -&gt; %d heaps</title>"
                 "</circle>\n", x, y, c->gc_index, c->from, c->to);
    }
    fprintf(o, "</svg>\n");
  }
  if (!d->nchg) return;
  fprintf(o, "<table><tr><th>Decided (ms)</th><th>At GC</th><th>Heaps</th><th>Median throughput cost %%</th>"
             "<th>First GC with them</th><th>Adjusted (adj_metric)</th><th>Why (the runtime's codes)</th></tr>\n");
  for (int i = 0; i < d->nchg && i < 1000; i++) {
    const struct hc_change *c = &d->chg[i];
    const struct dyn_row *r = c->row >= 0 ? &d->rows[c->row] : NULL;
    char a[40], b[40], codes[64], why[600];
    if (r) {
      decision_text(codes, sizeof codes, r);
      if (r->kind == DK_TUNING) why_text(why, sizeof why, r);
      else why[0] = '\0';
      fprintf(o, "<tr><td>%s</td><td>%u</td>", rpt_num(a, sizeof a, r->time_msec, 3), r->gc_index);
      fprintf(o, "<td>%d &rarr; %d</td><td>%s</td><td>%u</td><td>", c->from, c->to,
              rpt_num_unknown(b, sizeof b, colv(r, r->kind != DK_FULL ? "median_tcp_pct" : "median_gen2_tcp_pct"), 1),
              c->gc_index);
      rpt_html_str(o, codes);
      fprintf(o, "</td><td>");
      rpt_html_str(o, why);
      fprintf(o, "</td></tr>\n");
    } else {
      fprintf(o, "<tr><td>not in trace</td><td>%s</td><td>%d &rarr; %d</td><td>%s</td><td>%u</td><td>%s</td>"
                 "<td>%s</td></tr>\n", RPT_UNKNOWN, c->from, c->to, RPT_UNKNOWN, c->gc_index, RPT_UNKNOWN, RPT_UNKNOWN);
    }
  }
  fprintf(o, "</table>\n");
}
