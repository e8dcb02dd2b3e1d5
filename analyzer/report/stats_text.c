/* stats_text.c — `gcscope stats --format text`: PerfView's GCStats sections as
 * aligned tables that fit 80 columns, wide ones in column groups (--wide:
 * every column, one table each, no limit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gcs_cli.h"
#include "gcs_db.h"
#include "gcs_text.h"
#include "gcs_enums.h"
#include "gcs_events.h"
#include "gcs_output.h"
#include "stats_model.h"
#include "stats_details.h"

#define NUM(buf, v, d) rpt_num(buf, sizeof buf, v, d)

/* The text fits 80 columns, or the terminal's width when wider (issue 29):
 * wide tables are printed in column groups, long lines wrapped; --wide
 * lifts the limit (0). */
#define ST_TEXT_WIDTH 80
static int text_width = ST_TEXT_WIDTH;

/* At least 80; wider when the terminal ($COLUMNS, or stdout's) is. */
static int terminal_width(void) {
  const char *c = getenv("COLUMNS");
  int w = c ? atoi(c) : 0;
  struct winsize ws;
  if (w <= 0 && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) w = ws.ws_col;
  return w > ST_TEXT_WIDTH ? w : ST_TEXT_WIDTH;
}

static void fit(struct rpt_table *t, int keys) {
  t->max_width = text_width;
  t->keys = keys;
}

/* prefix then text, wrapped at spaces to text_width, continuation lines
 * indented by indent; ends the line. */
static void para(FILE *out, const char *prefix, int indent, const char *text) {
  fputs(prefix, out);
  size_t col = strlen(prefix), n = strlen(text), start = 0;
  while (start < n) {
    size_t room = text_width > 0 && (size_t)text_width > col ? (size_t)text_width - col : 0;
    size_t end = n;
    if (text_width > 0 && n - start > room) {
      size_t brk = 0;
      for (size_t i = start; i < n && i - start <= room; i++)
        if (text[i] == ' ') brk = i;
      if (!brk || brk == start) { /* a word longer than the line: whole */
        brk = start;
        while (brk < n && text[brk] != ' ') brk++;
      }
      end = brk;
    }
    fprintf(out, "%.*s\n", (int)(end - start), text + start);
    start = end;
    while (start < n && text[start] == ' ') start++;
    if (start < n) fprintf(out, "%*s", indent, "");
    col = (size_t)indent;
  }
  if (n == 0) fputc('\n', out);
}

static const char *const cr_headers[GCS_CONDEMN_GROUP_COUNT] = {
#define CRH(Idx, Col, Hdr) Hdr,
  GCS_CONDEMN_GROUPS(CRH)
};

/* The rows gc_table prints: complete GCs of gen >= min_gen with a pause over
 * min_pause, in GC order, or the `longest` ones by pause (ties: GC order). */
static int by_pause_desc(const void *a, const void *b) {
  const struct st_gc *x = *(const struct st_gc *const *)a, *y = *(const struct st_gc *const *)b;
  double px = x->v[STC_pause_msec], py = y->v[STC_pause_msec];
  if (px != py) return px > py ? -1 : 1;
  return x->v[STC_gc_index] < y->v[STC_gc_index] ? -1 : x->v[STC_gc_index] > y->v[STC_gc_index];
}

/* limit < 0: every row; otherwise at most limit rows and a line saying how
 * many more there are. */
static void gc_table(FILE *out, const struct st_proc *p, int wide, int color, double min_pause, int min_gen,
                     int limit, int longest) {
  int idx[STC_COUNT], n = 0;
  const char *hdr[STC_COUNT];
  for (int c = 0; c < STC_COUNT; c++)
    if ((wide || !st_cols[c].wide) && (c != STC_committed_after_mb || p->has_committed)) {
      idx[n] = c;
      hdr[n++] = wide ? st_cols[c].header : st_cols[c].short_header;
    }
  struct rpt_table t;
  rpt_table_init(&t, n, hdr);
  fit(&t, 1);
  for (int i = 0; i < n; i++) t.right[i] = st_cols[idx[i]].decimals >= 0;
  char cells[STC_COUNT][48];
  const char *row[STC_COUNT];
  int rows = 0, total = 0;
  const struct st_gc **sel = malloc(sizeof *sel * (size_t)(p->ngcs ? p->ngcs : 1));
  if (!sel) {
    rpt_table_free(&t);
    fprintf(out, "(out of memory)\n");
    return;
  }
  for (int i = 0; i < p->ngcs; i++) {
    const struct st_gc *g = &p->gcs[i];
    if (!g->complete || g->gen < min_gen || !(g->v[STC_pause_msec] > min_pause)) continue;
    sel[total++] = g;
  }
  if (longest) qsort(sel, (size_t)total, sizeof *sel, by_pause_desc);
  for (int i = 0; i < total && (limit < 0 || i < limit); i++) {
    const struct st_gc *g = sel[i];
    for (int k = 0; k < n; k++) {
      int c = idx[k];
      if (c == STC_reason_name) row[k] = g->reason;
      else if (c == STC_gen_name) row[k] = g->gen_name;
      else if ((c == STC_bgc_pause1_msec || c == STC_bgc_pause2_msec) && isnan(g->v[c])) row[k] = "";
      else row[k] = st_gc_cell(cells[k], sizeof cells[k], g, c);
      if (c == STC_pause_msec && st_pause_differs(g) && strlen(cells[k]) + 2 < sizeof cells[k])
        strcat(cells[k], "*"); /* the summary says why */
    }
    int r = rpt_table_add(&t, row);
    if (r > 0 && g->v[STC_pause_msec] > 200) t.mark[r] = 1;
    rows++;
  }
  if (rows) rpt_table_print(&t, out, color);
  else fprintf(out, "(none)\n");
  if (rows < total) fprintf(out, "... %d more: --gcs all\n", total - rows);
  rpt_table_free(&t);
  free(sel);
}

static void summary(FILE *out, const struct st_proc *p) {
  char a[48], b[48];
  /* The trace's own text (a crafted trace can carry escape sequences): printable. */
  static char cmd[4096], ver[256];
  if (p->cmdline && *p->cmdline)
    para(out, "  CommandLine: ", 4, gcs_text_printable(p->cmdline, strlen(p->cmdline), cmd, sizeof cmd));
  if (p->runtime_version) gcs_text_printable(p->runtime_version, strlen(p->runtime_version), ver, sizeof ver);
  {   /* on two lines when one passes the width: after the version */
    char v[300], g[64];
    snprintf(v, sizeof v, "  Runtime: %s%s,", p->runtime_version ? "version " : "version unknown",
             p->runtime_version ? ver : "");
    snprintf(g, sizeof g, "%s GC, concurrent GC %s", p->server_gc == 1 ? "server" : p->server_gc == 0 ? "workstation"
             : "unknown", p->concurrent_gc == 1 ? "on" : p->concurrent_gc == 0 ? "off" : "unknown");
    if (text_width > 0 && strlen(v) + 1 + strlen(g) > (size_t)text_width) fprintf(out, "%s\n    %s\n", v, g);
    else fprintf(out, "%s %s\n", v, g);
  }
  /* Known from the rundown of a .NET recording (GCSettingsRundown) only. */
  if (p->hard_limit > 0) fprintf(out, "  GC heap hard limit: %s MB\n", NUM(b, (double)p->hard_limit / 1e6, 3));
  else if (p->hard_limit == 0) fprintf(out, "  GC heap hard limit: none\n");
  {   /* issue 26: start-up flags, GC settings */
    char lines[3][ST_SUMMARY_LINE];
    int nl = st_settings_lines(p, lines, 3);
    for (int i = 0; i < nl; i++) para(out, "  ", 4, lines[i]);
  }
  fprintf(out, "  Total Allocs  : %s MB\n", NUM(a, p->total_alloc, 3));
  if (!isnan(p->total_alloc_measured))
    fprintf(out, "  Total Allocs measured: %s MB (gcscope's: heap sizes around each GC)\n",
            NUM(b, p->total_alloc_measured, 3));
  if (p->heap_count_min > 0 && p->heap_count_max > p->heap_count_min)
    fprintf(out, "  Number of Heaps: %d-%d, changed %d time%s (each GC's: --wide's Heaps)\n", p->heap_count_min,
            p->heap_count_max, p->heap_count_changes, p->heap_count_changes == 1 ? "" : "s");
  else if (p->heap_count_min > 0) fprintf(out, "  Number of Heaps: %d\n", p->heap_count_min);
  else if (p->heap_count >= 0) fprintf(out, "  Number of Heaps: %d\n", p->heap_count);
  else fprintf(out, "  Number of Heaps: unknown (no GCGlobalHeapHistory)\n");
  fprintf(out, "  GCs: %d complete, %d incomplete (left out of every figure)\n", p->gc_count, p->incomplete_count);
  fprintf(out, "  Total GC Pause: %s msec\n", NUM(a, p->total_pause, 1));
  if (!isnan(p->total_runtime_pause))
    fprintf(out, "  Runtime's own total pause: %s msec (GC.GetTotalPauseDuration; gcscope's)\n",
            NUM(a, p->total_runtime_pause, 1));
  if (p->rt_pause_differs > 0)
    fprintf(out, "  * %d GC%s whose Pause differs from the runtime's own (--wide: RT Pause):\n"
                 "    PerfView adds the restart, gives the ephemeral GC of a background GC's\n"
                 "    start that whole suspension, and a GC announced as background that ran\n"
                 "    in one suspension only that suspension (docs/stats.md)\n",
            p->rt_pause_differs, p->rt_pause_differs == 1 ? "" : "s");
  if (isnan(p->pct_pause))
    fprintf(out, "  %% Time paused for Garbage Collection: unknown (no complete GC with GCHeapStats)\n");
  else
    fprintf(out, "  %% Time paused for Garbage Collection: %s%%\n"
                 "    (of %s msec: first GC's pause start to last GCHeapStats)\n",
            NUM(a, p->pct_pause, 1), NUM(b, p->process_duration, 1));
  st_text_overhead(out, &p->ov);
  if (!isnan(p->total_gc_cpu)) fprintf(out, "  Total GC CPU Time: %s msec\n", NUM(a, p->total_gc_cpu, 1));
  fprintf(out, "  Max GC Heap Size: %s MB\n", NUM(a, p->max_heap, 3));
  if (p->has_committed)
    fprintf(out, "  Max Committed: %s MB (GCCommittedUsage: TotalCommittedBytes)\n",
            NUM(a, p->max_committed, 3));
  else
    fprintf(out, "  Max Committed: not in trace (needs .NET 8+: GCCommittedUsage)\n");
  {   /* issue 26: LOH compaction, pinning, background GC revisits */
    char lines[4][ST_SUMMARY_LINE];
    int nl = st_summary_lines(p, lines, 4);
    for (int i = 0; i < nl; i++) para(out, "  ", 4, lines[i]);
  }
  if (p->lost_events > 0) {
    /* the process's losses are its trace's (an import's are all the
     * trace's): the same words as the warning, 80 columns */
    char lost[256];
    gcs_lost_text(p->lost_events, p->lost_events == p->trace_discarded ? p->trace_packet_gaps : -1, lost, sizeof lost);
    char line[300];
    snprintf(line, sizeof line, "Lost in this process: %s", lost);
    para(out, "  ", 4, line);
  }
}

static void pause_stats(FILE *out, const struct st_proc *p) {
  char a[48];
  (void)a;
  fprintf(out, "\nPause statistics (msec, complete GCs; linear-interpolation percentiles)\n");
  const char *h[] = { "Kind", "Count", "Total", "Mean", "Max", "P50", "P95", "P99" };
  struct rpt_table t;
  rpt_table_init(&t, 8, h);
  fit(&t, 1);
  for (int i = 1; i < 8; i++) t.right[i] = 1;
  for (int k = 0; k < ST_KINDS; k++) {
    const struct st_pausestat *s = &p->kinds[k];
    char c[7][32];
    snprintf(c[0], sizeof c[0], "%d", s->count);
    NUM(c[1], s->total, 3);
    NUM(c[2], s->mean, 3);
    NUM(c[3], s->max, 3);
    NUM(c[4], s->p50, 3);
    NUM(c[5], s->p95, 3);
    NUM(c[6], s->p99, 3);
    const char *row[] = { st_kind_names[k], c[0], c[1], c[2], c[3], c[4], c[5], c[6] };
    rpt_table_add(&t, row);
  }
  rpt_table_print(&t, out, 0);
  rpt_table_free(&t);
}

/* "Where the GC time went": the phases GCGlobalHeapHistory times, mean and
 * P95 per kind of GC (msec), for the kinds that have them; fits 80 columns. */
static void phase_stats(FILE *out, const struct st_proc *p) {
  static const char *const short_kind[ST_KINDS] = { "Gen0", "Gen1", "BGC", "Gen2" };
  if (!p->has_phases) {
    fprintf(out, "\nWhere the GC time went: not in trace (needs .NET 6+: GCGlobalHeapHistory v4)\n");
    return;
  }
  fprintf(out, "\nWhere the GC time went (msec per GC: mean and P95 by kind, complete GCs;\n"
               "GCGlobalHeapHistory phase times)\n");
  /* Decimals so every cell fits 6 characters: 8 cells + 12-character labels = 76. */
  double top = 0;
  for (int k = 0; k < ST_KINDS; k++)
    for (int ph = 0; ph <= GCS_GC_PHASE_COUNT; ph++)
      if (p->phases[k][ph].count && p->phases[k][ph].p95 > top) top = p->phases[k][ph].p95;
  int dec = top < 99999.0 ? 3 : top < 9999999.0 ? 1 : 0;
  const char *h[1 + 2 * ST_KINDS];
  char hb[ST_KINDS][24];
  int kinds[ST_KINDS], nk = 0;
  h[0] = "Phase";
  for (int k = 0; k < ST_KINDS; k++) {
    if (!p->phases[k][GCS_GC_PHASE_COUNT].count) continue;
    snprintf(hb[nk], sizeof hb[nk], "%s", short_kind[k]);
    h[1 + 2 * nk] = hb[nk];
    h[2 + 2 * nk] = "P95";
    kinds[nk++] = k;
  }
  struct rpt_table t;
  rpt_table_init(&t, 1 + 2 * nk, h);
  for (int i = 1; i < 1 + 2 * nk; i++) t.right[i] = 1;
  for (int ph = 0; ph <= GCS_GC_PHASE_COUNT; ph++) {
    char c[2 * ST_KINDS][32];
    const char *row[1 + 2 * ST_KINDS];
    row[0] = ph < GCS_GC_PHASE_COUNT ? st_phase_labels[ph] : "All phases";
    for (int j = 0; j < nk; j++) {
      const struct st_phasestat *s = &p->phases[kinds[j]][ph];
      if (!s->count) {
        snprintf(c[2 * j], sizeof c[0], "-");
        snprintf(c[2 * j + 1], sizeof c[0], "-");
      } else {
        NUM(c[2 * j], s->mean / 1000.0, dec);
        NUM(c[2 * j + 1], s->p95 / 1000.0, dec);
      }
      row[1 + 2 * j] = c[2 * j];
      row[2 + 2 * j] = c[2 * j + 1];
    }
    rpt_table_add(&t, row);
  }
  rpt_table_print(&t, out, 0);
  rpt_table_free(&t);
  fprintf(out, "  BGC: a background GC's marking, mostly concurrent (not paused). -: not timed\n"
               "  (compacting GCs relocate and compact, sweeping GCs sweep).\n");
}

/* The server GC mark-balance check (the mem-doc's "if you see this number
 * very unbalanced"): per GC, the root kind where the heaps' mark times
 * differ most; the 10 GCs where they differ most, flagged ones marked. */
static int by_mark_gap(const void *a, const void *b) {
  const struct st_gc *x = *(const struct st_gc *const *)a, *y = *(const struct st_gc *const *)b;
  double dx = x->mark_slow_msec - x->mark_fast_msec, dy = y->mark_slow_msec - y->mark_fast_msec;
  if (dx != dy) return dx > dy ? -1 : 1;
  return x->v[STC_gc_index] < y->v[STC_gc_index] ? -1 : x->v[STC_gc_index] > y->v[STC_gc_index];
}
static void mark_balance(FILE *out, const struct st_proc *p) {
  if (!p->mark_multi) {
    int any = 0;
    for (int i = 0; i < p->ngcs && !any; i++) any = !isnan(p->gcs[i].mark_heaps);
    fprintf(out, "\nServer GC mark balance: %s\n",
            any ? "one heap marked, nothing to balance" : "not in trace (needs GCMarkWithType: the gc profile)");
    return;
  }
  int n = 0;
  const struct st_gc **rows = malloc(sizeof *rows * (size_t)(p->ngcs ? p->ngcs : 1));
  if (!rows) return;
  for (int i = 0; i < p->ngcs; i++)
    if (p->gcs[i].complete && !isnan(p->gcs[i].mark_kind)) rows[n++] = &p->gcs[i];
  qsort(rows, (size_t)n, sizeof *rows, by_mark_gap);
  fprintf(out, "\nServer GC mark balance (GCMarkWithType: each heap's time per root kind)\n"
               "  %d of %d GCs flagged (*)\n"
               "  *: on one root kind the slowest heap took >= %gx the fastest and >= %g ms more\n",
          p->mark_flagged, n, ST_MARK_RATIO, ST_MARK_MIN_MSEC);
  const char *h[] = { "GC#", "Gen", "Root kind", "Heaps", "Slow heap", "Slow ms", "Fast ms" };
  struct rpt_table t;
  rpt_table_init(&t, 7, h);
  for (int i = 0; i < 7; i++) t.right[i] = i != 1 && i != 2;
  for (int i = 0; i < n && i < 10; i++) {
    const struct st_gc *g = rows[i];
    char c[6][32];
    snprintf(c[0], sizeof c[0], "%s%.0f", st_mark_flagged(g) ? "*" : "", g->v[STC_gc_index]);
    const char *kn = gcs_map_name("root_kind", (uint32_t)g->mark_kind);
    snprintf(c[1], sizeof c[1], "%s", kn ? kn : "?");
    snprintf(c[2], sizeof c[2], "%.0f", g->mark_heaps);
    snprintf(c[3], sizeof c[3], "%.0f", g->mark_slow_heap);
    NUM(c[4], g->mark_slow_msec, 3);
    NUM(c[5], g->mark_fast_msec, 3);
    const char *row[] = { c[0], g->gen_name, c[1], c[2], c[3], c[4], c[5] };
    rpt_table_add(&t, row);
  }
  rpt_table_print(&t, out, 0);
  rpt_table_free(&t);
  free(rows);
}

static void histogram(FILE *out, const struct st_proc *p) {
  fprintf(out, "\nPause histogram (complete GCs)\n");
  int maxc = 0;
  for (int b2 = 0; b2 < ST_HIST_BUCKETS; b2++) if (p->hist[b2] > maxc) maxc = p->hist[b2];
  for (int b2 = 0; b2 < ST_HIST_BUCKETS; b2++) {
    char range[32];
    if (b2 + 1 < ST_HIST_BUCKETS) snprintf(range, sizeof range, "%g - %g ms", st_hist_edges[b2], st_hist_edges[b2 + 1]);
    else snprintf(range, sizeof range, ">= %g ms", st_hist_edges[b2]);
    int bar = maxc ? (p->hist[b2] * 50 + maxc - 1) / maxc : 0;
    fprintf(out, "  %-14s %7d  ", range, p->hist[b2]);
    for (int i = 0; i < bar; i++) fputc('#', out);
    fputc('\n', out);
  }
}

static void rollup(FILE *out, const struct st_proc *p) {
  fprintf(out, "\nGC Rollup By Generation (all times in msec)\n");
  /* PerfView's columns: Max Pause, Max Peak MB, Max Alloc MB/sec, Total Pause, Total Alloc MB,
   * Alloc MB/MSec GC, Survived MB/MSec GC, Mean Pause, Induced (short headers to fit 120 columns). */
  const char *h[] = { "Gen", "Count", "MaxPause", "MaxPeakMB", "MaxMB/s", "TotPause",
                      "TotAllocMB", "AllocMB/msGC", "SurvMB/msGC", "MeanPause", "Induced" };
  struct rpt_table t;
  rpt_table_init(&t, 11, h);
  fit(&t, 1);
  for (int i = 1; i < 11; i++) t.right[i] = 1;
  static const char *const names[4] = { "ALL", "0", "1", "2" };
  for (int r = 0; r < 4; r++) {
    const struct st_rollup *ro = &p->roll[r];
    char c[10][32];
    snprintf(c[0], sizeof c[0], "%d", ro->count);
    NUM(c[1], ro->max_pause, 1);
    NUM(c[2], ro->max_peak, 1);
    NUM(c[3], ro->max_alloc_rate, 3);
    NUM(c[4], ro->total_pause, 1);
    NUM(c[5], ro->total_alloc, 1);
    /* QUIRK (PerfView): every row divides the process-wide allocations. */
    NUM(c[6], p->roll[0].total_alloc / ro->total_pause, 3);
    /* PerfView's Infinity over 0 ms of GC CPU is "-"; GC CPU not in the
     * trace (CoreCLR sends none) makes the ratio unknown, not "-" */
    if (ro->count && isnan(ro->gc_cpu)) snprintf(c[7], sizeof c[7], "%s", RPT_UNKNOWN);
    else NUM(c[7], ro->total_promoted / (isnan(ro->gc_cpu) ? 0 : ro->gc_cpu), 3);
    NUM(c[8], ro->mean_pause, 1);
    snprintf(c[9], sizeof c[9], "%d", ro->induced);
    const char *row[] = { names[r], c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9] };
    rpt_table_add(&t, row);
  }
  rpt_table_print(&t, out, 0);
  rpt_table_free(&t);
}

static void bgc_table(FILE *out, const struct st_proc *p, int limit) {
  const char *h[] = { "GC#", "Pause Start", "Initial Pause", "Final Pause", "PerfView Pause", "Duration" };
  struct rpt_table t;
  rpt_table_init(&t, 6, h);
  fit(&t, 1);
  for (int i = 0; i < 6; i++) t.right[i] = 1;
  int n = 0, more = 0;
  for (int i = 0; i < p->ngcs; i++) {
    const struct st_gc *g = &p->gcs[i];
    if (!g->complete || !gcs_type_is_background((uint32_t)g->type)) continue;
    if (limit >= 0 && n >= limit) {
      more++;
      continue;
    }
    char c[6][32];
    const char *row[] = { NUM(c[0], g->v[STC_gc_index], 0), NUM(c[1], g->v[STC_pause_start_msec], 3),
                          NUM(c[2], g->v[STC_bgc_pause1_msec], 3), NUM(c[3], g->v[STC_bgc_pause2_msec], 3),
                          NUM(c[4], g->v[STC_pause_msec], 3), NUM(c[5], g->duration_msec, 3) };
    rpt_table_add(&t, row);
    n++;
  }
  if (n) {
    fputc('\n', out);
    para(out, "", 0,
         "Background GC pauses (msec): initial = SuspendEEBegin -> first RestartEEEnd; final = "
         "SuspendEEBegin(SuspendForGCPrep) -> RestartEEEnd; PerfView's Pause MSec combines them");
    rpt_table_print(&t, out, 0);
    if (more) fprintf(out, "... %d more: --gcs all\n", more);
  }
  rpt_table_free(&t);
}

static void condemned(FILE *out, const struct st_proc *p, int limit) {
  if (!p->has_phh) return;
  int used[GCS_CONDEMN_GROUP_COUNT] = { 0 }, any = 0;
  for (int i = 0; i < p->ngcs; i++)
    if (p->gcs[i].complete)
      for (int k = 0; k < GCS_CONDEMN_GROUP_COUNT; k++)
        if (p->gcs[i].cr[k]) used[k] = any = 1;
  fprintf(out, "\nCondemned reasons for GCs\n");
  if (!any) {
    fprintf(out, "The trace contains events for the condemned reason but there is none.\n");
    return;
  }
  const char *hdr[GCS_CONDEMN_GROUP_COUNT + 1];
  int map[GCS_CONDEMN_GROUP_COUNT], n = 0;
  hdr[n] = "GC#";
  for (int k = 0; k < GCS_CONDEMN_GROUP_COUNT; k++)
    if (used[k]) {
      map[n] = k;
      hdr[++n] = cr_headers[k];
    }
  struct rpt_table t;
  rpt_table_init(&t, n + 1, hdr);
  fit(&t, 1);
  for (int i = 0; i <= n; i++) t.right[i] = 1;
  int rows = 0, more = 0;
  for (int i = 0; i < p->ngcs; i++) {
    const struct st_gc *g = &p->gcs[i];
    if (!g->complete) continue;
    int has = 0;
    for (int k = 0; k < GCS_CONDEMN_GROUP_COUNT; k++) has |= g->cr[k] != 0;
    if (!has) continue;                     /* only GCs with a condemned reason */
    if (limit >= 0 && rows >= limit) {
      more++;
      continue;
    }
    rows++;
    char c[GCS_CONDEMN_GROUP_COUNT + 1][24];
    const char *row[GCS_CONDEMN_GROUP_COUNT + 1];
    row[0] = NUM(c[0], g->v[STC_gc_index], 0);
    for (int j = 0; j < n; j++) {
      int k = map[j], v = g->cr[k];
      if (!v) c[j + 1][0] = 0;
      else if (k == GCS_cr_induced)
        snprintf(c[j + 1], sizeof c[j + 1], "%s", v == GCS_CR_INDUCED_BLOCKING ? "Blocking" : "NotForced");
      else snprintf(c[j + 1], sizeof c[j + 1], "%d", v);
      row[j + 1] = c[j + 1];
    }
    rpt_table_add(&t, row);
  }
  rpt_table_print(&t, out, 0);
  if (more) fprintf(out, "... %d more: --gcs all\n", more);
  rpt_table_free(&t);
}

/* Which stop rules fired on which GC while record ran (trigger_firings). */
static void firings(FILE *out, const struct st_proc *p, int limit) {
  fprintf(out, "\nStop-rule firings (gcscope record)\n");
  struct rpt_table t;
  const char *h[] = { "GC#", "Rule", "Kind", "Value", "Capture", "Verdict" };
  rpt_table_init(&t, 6, h);
  fit(&t, 1);
  int rows = 0;
  for (int i = 0; i < p->nfirings && (limit < 0 || rows < limit); i++, rows++) {
    const struct st_firing *f = &p->firings[i];
    char gc[16], v[48];
    snprintf(gc, sizeof gc, "%u", f->gc_index);
    char n[40];
    /* a column left NULL is unknown; "-" is only "no capture" */
    if (!isfinite(f->value)) snprintf(v, sizeof v, "%s", RPT_UNKNOWN);
    else if (f->kind && !strcmp(f->kind, "pct-pause")) snprintf(v, sizeof v, "%s %% paused", NUM(n, f->value, 1));
    else snprintf(v, sizeof v, "%s ms", NUM(n, f->value, 3));
    const char *row[] = { gc, f->rule ? f->rule : RPT_UNKNOWN, f->kind ? f->kind : RPT_UNKNOWN, v,
                          f->capture ? f->capture : RPT_NO_VALUE, f->verdict ? f->verdict : RPT_UNKNOWN };
    rpt_table_add(&t, row);
  }
  rpt_table_print(&t, out, 0);
  if (rows < p->nfirings) fprintf(out, "... %d more: --gcs all\n", p->nfirings - rows);
  rpt_table_free(&t);
}

const struct st_section st_sections[] = {
  { "summary", ST_SEC_SUMMARY, "the process summary (allocations, heaps, pause totals, overhead, max heap)" },
  { "pauses", ST_SEC_PAUSES, "pause statistics per kind (count, total, mean, max, P50/P95/P99)" },
  { "phases", ST_SEC_PHASES, "where the GC time went: phase times (mark, plan, relocate, compact, sweep) per kind" },
  { "balance", ST_SEC_BALANCE, "server GC mark balance: the root kind where heaps' mark times differ most" },
  { "datas", ST_SEC_DATAS, "DATAS: the server GC's heap count over time, each change with the decision that made it" },
  { "histogram", ST_SEC_HISTOGRAM, "the pause histogram" },
  { "rollup", ST_SEC_ROLLUP, "GC rollup by generation" },
  { "long", ST_SEC_LONG, "pauses > 200 msec" },
  { "loh", ST_SEC_LOH, "LOH allocation pauses due to background GC" },
  { "gen2", ST_SEC_GEN2, "gen2 GCs" },
  { "bgc", ST_SEC_BGC, "background GC pauses" },
  { "gcs", ST_SEC_GCS, "the GC list (longest pauses, or every GC with --gcs all)" },
  { "condemned", ST_SEC_CONDEMNED, "condemned reasons of the GCs that have any" },
  { "firings", ST_SEC_FIRINGS, "the stop rules that fired while `gcscope record` ran (when there are any)" },
  { NULL, 0, NULL },
};

int st_sections_parse(const char *spec, unsigned *mask, char *err, size_t errlen) {
  *mask = 0;
  const char *q = spec;
  while (*q) {
    size_t n = strcspn(q, ",");
    int found = 0;
    if (n == 3 && !strncmp(q, "all", 3)) { *mask |= ST_SECTIONS_DEFAULT; found = 1; }
    for (const struct st_section *s = st_sections; !found && s->name; s++)
      if (strlen(s->name) == n && !strncmp(q, s->name, n)) { *mask |= s->bit; found = 1; }
    if (!found) {
      snprintf(err, errlen, "--section: unknown section '%.*s' (--help lists them)", (int)n, q);
      return -1;
    }
    q += n;
    if (*q == ',') q++;
  }
  if (!*mask) { snprintf(err, errlen, "--section: no section given"); return -1; }
  return 0;
}

void st_write_text(FILE *out, const struct st_model *m, const struct st_text_opts *o) {
  int wide = o->wide, color = o->color, limit = o->gcs == ST_GCS_ALL ? -1 : o->gcs;
  text_width = wide ? 0 : terminal_width();
  st_warnings(out, m, "");
  if (m->nprocs == 0) fprintf(out, "No process with GC events.\n");
  int shown = 0, idle = 0;
  /* Several traces in scope (captures of one process, or recordings of
   * several): each heading names its trace, so two of one pid differ. */
  int several = 0;
  for (int i = 1; i < m->nprocs; i++) several |= m->procs[i].trace_id != m->procs[0].trace_id;
  for (int i = 0; i < m->nprocs; i++) {
    const struct st_proc *p = &m->procs[i];
    char a[48];
    if (p->gc_count == 0 && p->incomplete_count == 0) {
      idle++;   /* listed in one line at the end */
      continue;
    }
    char nm[128];
    fprintf(out, "%sGC Stats for Process %5d: %s", shown++ ? "\n\n" : "", p->pid,
            p->name ? gcs_text_printable(p->name, strlen(p->name), nm, sizeof nm) : "unknown");
    if (several) {
      /* the trace on the same line if it fits in 80 columns, else under it */
      int col = 21 + 5 + 2 + (int)strlen(p->name ? nm : "unknown");
      char tr[40];
      int tl = snprintf(tr, sizeof tr, "[trace %lld: ", (long long)p->trace_id);
      const char *path = p->trace_path ? p->trace_path : "?";
      if (col + 2 + tl + (int)strlen(path) + 1 <= 80) fprintf(out, "  %s%s]", tr, path);
      else fprintf(out, "\n  %s%s]", tr, path);
    }
    fprintf(out, "\n");
    if (p->gc_count == 0) {
      /* Nothing to tabulate: say why in one line instead of empty tables. */
      char msg[512];
      snprintf(msg, sizeof msg, "%d GC%s seen, all incomplete: %s", p->incomplete_count,
               p->incomplete_count == 1 ? "" : "s", p->incomplete_why ? p->incomplete_why : "reason unknown");
      gcs_cli_paragraph(out, "  No complete GC: ", msg, 4);
      continue;
    }
    unsigned sec = o->sections ? o->sections : ST_SECTIONS_DEFAULT;
    if (sec & ST_SEC_SUMMARY) summary(out, p);
    if (sec & ST_SEC_PAUSES) pause_stats(out, p);
    if (sec & ST_SEC_PHASES) phase_stats(out, p);
    if (sec & ST_SEC_BALANCE) mark_balance(out, p);
    if (sec & ST_SEC_DATAS) st_datas_text(out, p);
    if (sec & ST_SEC_HISTOGRAM) histogram(out, p);
    if (sec & ST_SEC_ROLLUP) rollup(out, p);
    if (sec & ST_SEC_LONG) {
      fprintf(out, "\nPause > 200 Msec GC Events\n");
      gc_table(out, p, wide, color, 200, 0, limit, 0);
    }
    if (sec & ST_SEC_LOH) fprintf(out, "\nLOH Allocation Pause (due to background GC) > 200 Msec\n");
    if ((sec & ST_SEC_LOH) && !p->nwaits) fprintf(out, "(none)\n");
    for (int w = 0; (sec & ST_SEC_LOH) && w < p->nwaits && (limit < 0 || w < limit); w++) {
      const struct st_wait *lw = &p->waits[w];
      fprintf(out, "  BGC %u  thread %d  start %s", lw->bgc_index, lw->tid, NUM(a, lw->start, 3));
      fprintf(out, "  pause %s msec  %s\n", NUM(a, lw->pause, 3),
              gcs_bgc_wait_reason_text((uint32_t)lw->reason));
    }
    if ((sec & ST_SEC_LOH) && limit >= 0 && p->nwaits > limit) fprintf(out, "... %d more: --gcs all\n", p->nwaits - limit);
    if (sec & ST_SEC_GEN2) {
      fprintf(out, "\nGen 2 GCs\n");
      gc_table(out, p, wide, color, -INFINITY, 2, limit, 0);
    }
    if (sec & ST_SEC_BGC) bgc_table(out, p, limit);
    if (!(sec & ST_SEC_GCS)) {
      /* the GC list not asked for */
    } else if (limit < 0) {
      fprintf(out, "\nAll GC Events (msec; MB = 10^6 bytes)%s\n", wide ? "" : " -- --wide shows every column");
      gc_table(out, p, wide, color, -INFINITY, 0, -1, 0);
    } else {
      fprintf(out, "\nThe %d GCs with the longest pauses (msec, MB = 10^6 bytes; --gcs all%s)\n", limit,
              wide ? "" : ", --wide");
      gc_table(out, p, wide, color, -INFINITY, 0, limit, 1);
    }
    if (sec & ST_SEC_CONDEMNED) condemned(out, p, limit);
    if ((sec & ST_SEC_FIRINGS) && p->nfirings) firings(out, p, limit);
  }
  if (idle) {
    /* "pid (name)" items, wrapped within 80 columns, never split */
    int col = fprintf(out, "%sProcesses without GCs:", shown ? "\n\n" : "") - (shown ? 2 : 0);
    for (int i = 0; i < m->nprocs; i++) {
      const struct st_proc *p = &m->procs[i];
      char nm[128], item[160];
      if (p->gc_count != 0 || p->incomplete_count != 0) continue;
      int k = snprintf(item, sizeof item, " %d (%s)", p->pid,
                       p->name ? gcs_text_printable(p->name, strlen(p->name), nm, sizeof nm) : "unknown");
      if (col + k > 80 && col > 2) col = fprintf(out, "\n ");
      col += fprintf(out, "%s", item);
    }
    fprintf(out, "\n");
  }
}
