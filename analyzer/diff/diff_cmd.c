/*
 * diff_cmd.c — `gcscope diff BASE CANDIDATE` (gcs_diff.h, docs/diff.md).
 * Each side is one process of one trace: a trace (imported like every
 * report's input), a database, or DB:PID. Its figures come from the gcs table
 * and gc_process_summary (PerfView's GCStats rules, complete GCs only) and
 * its pauses from gc_pauses (MMU); the comparison is diff_stats.c's.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diff.h"
#include "gcs_output.h"
#include "gcs_cli.h"
#include "gcs_diff.h"
#include "gcs_enums.h"
#include "gcs_gcdb.h"
#include "ins_overhead.h"
#include "ins_timeline.h"

#define CMD "diff"
#define MAX_RULES 16
#define DEFAULT_ALPHA 0.01
#define NOISE_FLOOR_PCT 5.0      /* a median or P99 change smaller than this is noise */

enum { O_FORMAT, O_FAIL_ON, O_ALPHA, O_DB };
static const struct gcs_cli_opt diff_opts[] = {
  [O_FORMAT] = GCS_OPT_FORMAT("text (default), json or html"),
  [O_FAIL_ON] = { "fail-on", 0, GCS_CLI_STRING, 0, 0, "RULES",
                  "exit 1 when a rule holds, e.g. 'p99_pause>+10%,pct_pause>+1pt'" },
  [O_ALPHA] = { "alpha", 0, GCS_CLI_DOUBLE, 1e-9, 0.5, "P", "significance level of the pause test (default 0.01)" },
  [O_DB] = GCS_OPT_DB,
  { 0 },
};

static const struct gcs_cli_spec diff_spec = {
  .cmd = CMD,
  .usage = "[options] BASE CANDIDATE\nBASE CANDIDATE --stacks [gcscope stacks' options]: stack by stack",
  .about = "Two runs' GC figures side by side, as changes and ratios, with a Mann-Whitney\n"
           "test on the pause distributions so that noise is not called a regression.\n"
           "BASE and CANDIDATE are each a trace, a database holding one process, or\n"
           "DB:PID.\n"
           "\n"
           "Metrics (for --fail-on): gcs gen0 gen1 gen2 bgc induced pct_pause\n"
           "p50_pause p95_pause p99_pause max_pause mmu_1ms mmu_10ms mmu_100ms\n"
           "alloc_rate promoted_per_gc max_heap. Rule units: % (relative change),\n"
           "pt (points of a percentage), ms, MB, MB/s or none (absolute change). A rule\n"
           "on a pause percentile holds only if the pause test is significant too.",
  .opts = diff_opts,
  .epilog = "Exit status: 0, 1 when a --fail-on rule holds (or on an error), 2 on a usage error.\n",
};

/* ---- one side ------------------------------------------------------------ */

struct side {
  const char *arg;
  char label[600];
  struct gcs_input in;
  int64_t trace_id;
  int pid;
  double *pauses;               /* complete GCs' PauseDurationMSec, sorted */
  size_t npauses;
  double m[32];                 /* by metric index */
};

enum metric {
  M_GCS, M_GEN0, M_GEN1, M_GEN2, M_BGC, M_INDUCED, M_PCT_PAUSE, M_P50, M_P95, M_P99, M_MAX,
  M_MMU1, M_MMU10, M_MMU100, M_ALLOC_RATE, M_PROMOTED_PER_GC, M_MAX_HEAP, M_COUNT
};
static const struct { const char *name, *title, *unit; int prec, pause_dist; } metrics[M_COUNT] = {
  [M_GCS] = { "gcs", "GCs (complete)", "", 0, 0 },
  [M_GEN0] = { "gen0", "  gen0", "", 0, 0 },
  [M_GEN1] = { "gen1", "  gen1", "", 0, 0 },
  [M_GEN2] = { "gen2", "  gen2 blocking", "", 0, 0 },
  [M_BGC] = { "bgc", "  background", "", 0, 0 },
  [M_INDUCED] = { "induced", "induced", "", 0, 0 },
  [M_PCT_PAUSE] = { "pct_pause", "% time paused", "%", 2, 0 },
  [M_P50] = { "p50_pause", "pause P50", "ms", 3, 1 },
  [M_P95] = { "p95_pause", "pause P95", "ms", 3, 1 },
  [M_P99] = { "p99_pause", "pause P99", "ms", 3, 1 },
  [M_MAX] = { "max_pause", "pause max", "ms", 3, 1 },
  [M_MMU1] = { "mmu_1ms", "MMU 1 ms", "", 3, 0 },
  [M_MMU10] = { "mmu_10ms", "MMU 10 ms", "", 3, 0 },
  [M_MMU100] = { "mmu_100ms", "MMU 100 ms", "", 3, 0 },
  [M_ALLOC_RATE] = { "alloc_rate", "allocation rate", "MB/s", 1, 0 },
  [M_PROMOTED_PER_GC] = { "promoted_per_gc", "promoted per GC", "MB", 3, 0 },
  [M_MAX_HEAP] = { "max_heap", "max heap", "MB", 3, 0 },
};

static int metric_index(const char *name) {
  for (int i = 0; i < M_COUNT; i++) if (!strcmp(metrics[i].name, name)) return i;
  return -1;
}
static int metric_known(const char *name) { return metric_index(name) >= 0; }

/* "DB:PID" when DB exists and PID is a number. */
static void split_pid(const char *arg, char *path, size_t n, int *pid) {
  *pid = -1;
  snprintf(path, n, "%s", arg);
  char *c = strrchr(path, ':');
  if (!c || !c[1]) return;
  char *end;
  long v = strtol(c + 1, &end, 10);
  if (*end || v < 0 || v > 0x7fffffff) return;
  *c = '\0';
  struct stat st;
  if (stat(path, &st) != 0) { *c = ':'; return; }
  *pid = (int)v;
}

/* The one (trace, pid) in scope with complete GCs. */
static int pick_process(struct side *s, int want_pid, char *err, size_t errlen) {
  sqlite3_stmt *st;
  const char *sql = "SELECT trace_id, pid, gc_count FROM gc_process_summary WHERE " GCS_IN_INPUT("trace_id")
                    " AND (?1 < 0 OR pid = ?1) AND gc_count > 0 ORDER BY trace_id, pid";
  if (sqlite3_prepare_v2(s->in.db, sql, -1, &st, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "%s: not a gcscope database (%s)", s->arg, sqlite3_errmsg(s->in.db));
    return -1;
  }
  sqlite3_bind_int(st, 1, want_pid);
  int n = 0;
  char list[400] = "";
  size_t used = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (n++ == 0) { s->trace_id = sqlite3_column_int64(st, 0); s->pid = sqlite3_column_int(st, 1); }
    /* the pids, as many as keep the line within 80 columns with a short path
     * (the message around them takes 50; "gcscope diff: " 14) */
    if (used < sizeof list - 60 && used != (size_t)-1) {
      char one[32];
      int l = snprintf(one, sizeof one, "%s%d", n > 1 ? ", " : "pid ", sqlite3_column_int(st, 1));
      if (used + (size_t)l <= 26) used += (size_t)snprintf(list + used, sizeof list - used, "%s", one);
      else {
        snprintf(list + used, sizeof list - used, ", ...");
        used = (size_t)-1;
      }
    }
  }
  sqlite3_finalize(st);
  if (n == 0) {
    if (want_pid >= 0) snprintf(err, errlen, "%s: no process %d with complete GCs", s->arg, want_pid);
    else snprintf(err, errlen, "%s: no process with complete GCs", s->arg);
    return -1;
  }
  if (n > 1) {
    snprintf(err, errlen, "%s holds %d processes with GCs (%s): give DB:PID", s->arg, n, list);
    return -1;
  }
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int load_gcs(struct side *s, char *err, size_t errlen) {
  sqlite3_stmt *st;
  const char *sql =
      "SELECT gen, type, reason, pause_msec, gc_index FROM gcs WHERE trace_id = ?1 AND pid = ?2 AND complete = 1";
  if (sqlite3_prepare_v2(s->in.db, sql, -1, &st, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "%s: %s", s->arg, sqlite3_errmsg(s->in.db));
    return -1;
  }
  sqlite3_bind_int64(st, 1, s->trace_id);
  sqlite3_bind_int(st, 2, s->pid);
  size_t cap = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    /* Text where a number belongs (a database edited by hand) reads as 0:
     * a silently wrong pause. The GC loader's error, word for word. */
    for (int c = 0; c < 4; c++) {
      int t = sqlite3_column_type(st, c);
      if (t != SQLITE_TEXT && t != SQLITE_BLOB) continue;
      snprintf(err, errlen, "%s: damaged database: GC #%lld of pid %d: %s holds %s, not a number", s->arg,
               (long long)sqlite3_column_int64(st, 4), s->pid, sqlite3_column_name(st, c),
               t == SQLITE_TEXT ? "text" : "a blob");
      sqlite3_finalize(st);
      return -1;
    }
    uint32_t gen = (uint32_t)sqlite3_column_int(st, 0), type = (uint32_t)sqlite3_column_int(st, 1);
    uint32_t reason = (uint32_t)sqlite3_column_int(st, 2);
    s->m[M_GCS]++;
    static const int kind_metric[GCS_PAUSE_KIND_COUNT] = {
      [GCS_PAUSE_KIND_GEN0] = M_GEN0, [GCS_PAUSE_KIND_GEN1] = M_GEN1,
      [GCS_PAUSE_KIND_BACKGROUND] = M_BGC, [GCS_PAUSE_KIND_GEN2_BLOCKING] = M_GEN2 };
    s->m[kind_metric[gcs_gc_pause_kind(gen, type)]]++;
    if (gcs_reason_is_induced(reason)) s->m[M_INDUCED]++;
    if (sqlite3_column_type(st, 3) == SQLITE_NULL) continue;
    if (s->npauses == cap) {
      cap = cap ? 2 * cap : 256;
      double *v = realloc(s->pauses, cap * sizeof *v);
      if (!v) { sqlite3_finalize(st); snprintf(err, errlen, "out of memory"); return -1; }
      s->pauses = v;
    }
    s->pauses[s->npauses++] = sqlite3_column_double(st, 3);
  }
  if (rc != SQLITE_DONE) {   /* not a silent half: the rows read so far are not the run */
    snprintf(err, errlen, "%s: %s", s->arg, sqlite3_errmsg(s->in.db));
    sqlite3_finalize(st);
    return -1;
  }
  sqlite3_finalize(st);
  qsort(s->pauses, s->npauses, sizeof *s->pauses, cmp_double);
  s->m[M_P50] = diff_percentile(s->pauses, s->npauses, 50);
  s->m[M_P95] = diff_percentile(s->pauses, s->npauses, 95);
  s->m[M_P99] = diff_percentile(s->pauses, s->npauses, 99);
  s->m[M_MAX] = s->npauses ? s->pauses[s->npauses - 1] : NAN;
  return 0;
}

static double col_or_nan(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* gc_process_summary's figures, and the MMU over the same run: from the first
 * complete GC's pause start, process_duration_msec long. */
static int load_summary(struct side *s, char *err, size_t errlen) {
  sqlite3_stmt *st;
  const char *sql =
      "SELECT pct_pause_time, total_alloc_mb, process_duration_msec, total_promoted_mb, gc_count, max_heap_mb, "
      "(SELECT min(coalesce(suspend_begin_ns, start_ns)) FROM gcs g WHERE g.trace_id = s.trace_id AND g.pid = s.pid "
      " AND g.complete = 1) FROM gc_process_summary s WHERE trace_id = ?1 AND pid = ?2";
  if (sqlite3_prepare_v2(s->in.db, sql, -1, &st, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "%s: %s", s->arg, sqlite3_errmsg(s->in.db));
    return -1;
  }
  sqlite3_bind_int64(st, 1, s->trace_id);
  sqlite3_bind_int(st, 2, s->pid);
  double dur_ms = NAN;
  int64_t t0 = 0;
  if (sqlite3_step(st) == SQLITE_ROW) {
    s->m[M_PCT_PAUSE] = col_or_nan(st, 0);
    double alloc = col_or_nan(st, 1);
    dur_ms = col_or_nan(st, 2);
    s->m[M_ALLOC_RATE] = dur_ms > 0 ? alloc / (dur_ms / 1000.0) : NAN;
    double gcs = col_or_nan(st, 4);
    s->m[M_PROMOTED_PER_GC] = gcs > 0 ? col_or_nan(st, 3) / gcs : NAN;
    s->m[M_MAX_HEAP] = col_or_nan(st, 5);
    t0 = sqlite3_column_int64(st, 6);
  }
  sqlite3_finalize(st);
  s->m[M_MMU1] = s->m[M_MMU10] = s->m[M_MMU100] = NAN;
  if (!(dur_ms > 0)) return 0;
  struct gcs_gcdb_pause *pv;
  size_t np;
  if (gcs_gcdb_pauses(s->in.db, s->trace_id, s->pid, &pv, &np, err, errlen)) return -1;
  struct ins_pause *ip = malloc((np ? np : 1) * sizeof *ip);
  struct ins_timeline tl;
  memset(&tl, 0, sizeof tl);
  int rc = 0;
  if (!ip) rc = -1;
  for (size_t i = 0; ip && i < np; i++) ip[i] = (struct ins_pause){ pv[i].gc_index, pv[i].start_ns, pv[i].end_ns };
  if (!rc && ins_timeline_build(&tl, ip, np) != 0) rc = -1;
  if (!rc) {
    int64_t t1 = t0 + (int64_t)(dur_ms * 1e6);
    s->m[M_MMU1] = ins_mmu(&tl, t0, t1, 1000000);
    s->m[M_MMU10] = ins_mmu(&tl, t0, t1, 10000000);
    s->m[M_MMU100] = ins_mmu(&tl, t0, t1, 100000000);
  } else {
    snprintf(err, errlen, "out of memory");
  }
  ins_timeline_free(&tl);
  free(ip);
  free(pv);
  return rc;
}

static int open_side(struct side *s, const char *arg, const char *db_path, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  s->arg = arg;
  char path[4096];
  int pid;
  split_pid(arg, path, sizeof path, &pid);
  struct gcs_input_opts io = { .db_path = db_path, .trace_id = -1 };
  if (gcs_input_open(path, &io, &s->in, err, errlen)) return -1;
  if (pick_process(s, pid, err, errlen) || load_gcs(s, err, errlen) || load_summary(s, err, errlen)) return -1;
  snprintf(s->label, sizeof s->label, "%s (trace %lld, pid %d)", arg, (long long)s->trace_id, s->pid);
  return 0;
}

static void close_side(struct side *s) {
  gcs_input_close(&s->in);
  free(s->pauses);
}

/* ---- output -------------------------------------------------------------- */

struct verdict {
  struct diff_mw mw;
  double median_change_pct, p99_change_pct;
  const char *word;             /* "regression", "improvement", "no significant change", "not tested" */
};

static double rel(double b, double c) { return b != 0 && !isnan(b) && !isnan(c) ? (c - b) / fabs(b) * 100.0 : NAN; }

static void judge(const struct side *a, const struct side *b, double alpha, struct verdict *v) {
  memset(v, 0, sizeof *v);
  if (diff_mann_whitney(a->pauses, a->npauses, b->pauses, b->npauses, &v->mw)) v->mw.p = NAN;
  v->median_change_pct = rel(a->m[M_P50], b->m[M_P50]);
  v->p99_change_pct = rel(a->m[M_P99], b->m[M_P99]);
  if (isnan(v->mw.p)) { v->word = "not tested"; return; }
  int big = fabs(v->median_change_pct) >= NOISE_FLOOR_PCT || fabs(v->p99_change_pct) >= NOISE_FLOOR_PCT;
  if (v->mw.p >= alpha || !big) v->word = "no significant change";
  else v->word = v->mw.z > 0 ? "regression" : "improvement";
}

/* A value the input cannot give (a NULL column, no pause to take a
 * percentile of) is "unknown"; "-" is only the ratio over a base of 0. */
static void num(char *buf, size_t n, double v, int prec) {
  if (isnan(v) || isinf(v)) snprintf(buf, n, "%s", RPT_UNKNOWN);
  else snprintf(buf, n, "%.*f", prec, v);
}

/* One metric's cells, as both the text and the HTML tables show them. */
struct row { char title[40], base[32], cand[32], change[40], ratio[32]; };
static void format_row(const struct side *a, const struct side *b, int i, struct row *r) {
  double x = a->m[i], y = b->m[i];
  num(r->base, sizeof r->base, x, metrics[i].prec);
  num(r->cand, sizeof r->cand, y, metrics[i].prec);
  if (isnan(x) || isnan(y)) snprintf(r->change, sizeof r->change, "%s", RPT_UNKNOWN);
  else if (!strcmp(metrics[i].unit, "%")) snprintf(r->change, sizeof r->change, "%+.2f pt", y - x);
  else {
    char t[32];
    num(t, sizeof t, y - x, metrics[i].prec);
    snprintf(r->change, sizeof r->change, "%s%s", y - x >= 0 ? "+" : "", t);
  }
  if (isnan(x) || isnan(y)) snprintf(r->ratio, sizeof r->ratio, "%s", RPT_UNKNOWN);
  else if (x != 0) snprintf(r->ratio, sizeof r->ratio, "%.3f", y / x);
  else snprintf(r->ratio, sizeof r->ratio, "%s", RPT_NO_VALUE);   /* over a base of 0 */
  int unit = metrics[i].unit[0] && strcmp(metrics[i].unit, "%");
  snprintf(r->title, sizeof r->title, "%s%s%s%s", metrics[i].title, unit ? " (" : "", unit ? metrics[i].unit : "",
           unit ? ")" : "");
}

static void print_text(const struct side *a, const struct side *b, const struct verdict *v, double alpha) {
  printf("base:      %s\ncandidate: %s\n\n", a->label, b->label);
  printf("%-24s %12s %12s %12s %8s\n", "metric", "base", "candidate", "change", "ratio");
  for (int i = 0; i < M_COUNT; i++) {
    struct row r;
    format_row(a, b, i, &r);
    printf("%-24s %12s %12s %12s %8s\n", r.title, r.base, r.cand, r.change, r.ratio);
  }
  char verdict[512];
  if (!isnan(v->mw.p))
    snprintf(verdict, sizeof verdict,
             "%s (Mann-Whitney U = %.1f, z = %.2f, p = %.3g, alpha %g; %zu vs %zu pauses; median %+.1f %%, P99 %+.1f %%)",
             v->word, v->mw.u, v->mw.z, v->mw.p, alpha, a->npauses, b->npauses, v->median_change_pct,
             v->p99_change_pct);
  else
    snprintf(verdict, sizeof verdict, "%s (a side has no complete GC with a pause)", v->word);
  printf("\n");
  gcs_cli_paragraph(stdout, "pauses: ", verdict, 2);
}


static void print_json(const struct side *a, const struct side *b, const struct verdict *v, double alpha,
                       const struct diff_rule *rules, int nrules, const int *held) {
  printf("{\"base\": {\"input\": ");
  rpt_json_str(stdout, a->arg);
  printf(", \"trace_id\": %lld, \"pid\": %d}, \"candidate\": {\"input\": ", (long long)a->trace_id, a->pid);
  rpt_json_str(stdout, b->arg);
  printf(", \"trace_id\": %lld, \"pid\": %d},\n \"metrics\": [", (long long)b->trace_id, b->pid);
  for (int i = 0; i < M_COUNT; i++) {
    double x = a->m[i], y = b->m[i];
    printf("%s\n  {\"name\": \"%s\", \"unit\": \"%s\", \"base\": ", i ? "," : "", metrics[i].name, metrics[i].unit);
    rpt_json_num(stdout, x);
    printf(", \"candidate\": ");
    rpt_json_num(stdout, y);
    printf(", \"change\": ");
    rpt_json_num(stdout, y - x);
    printf(", \"ratio\": ");
    rpt_json_num(stdout, x != 0 ? y / x : NAN);
    printf("}");
  }
  printf("],\n \"pauses\": {\"test\": \"mann-whitney\", \"alpha\": %g, \"u\": ", alpha);
  rpt_json_num(stdout, v->mw.u);
  printf(", \"z\": ");
  rpt_json_num(stdout, v->mw.z);
  printf(", \"p\": ");
  rpt_json_num(stdout, v->mw.p);
  printf(", \"verdict\": \"%s\"},\n \"fail_on\": [", v->word);
  for (int i = 0; i < nrules; i++) {
    printf("%s{\"rule\": ", i ? ", " : "");
    rpt_json_str(stdout, rules[i].text);
    printf(", \"holds\": %s}", held[i] ? "true" : "false");
  }
  printf("]}\n");
}

/* The two pause distributions as percentile curves (x: percentile 0..100,
 * y: pause ms up to the larger P99.5; the last 0.5 % is above the chart). */
static void html_pause_chart(const struct side *a, const struct side *b) {
  const double W = 900, H = 260, L = 60, B = 30, T = 24, x1 = W - 20;
  printf("<h3>Pause distributions</h3>\n");
  if (!a->npauses || !b->npauses) {
    printf("<p>A side has no complete GC with a pause.</p>\n");
    return;
  }
  double ymax = diff_percentile(a->pauses, a->npauses, 99.5), yb = diff_percentile(b->pauses, b->npauses, 99.5);
  if (yb > ymax) ymax = yb;
  if (!(ymax > 0)) ymax = 1;
  printf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
         "style=\"background:#fff;border:1px solid #ccc\">\n", W, H);
  double ytop = rpt_svg_axes_x(stdout, L, T, x1, H - B, 0, 100, ymax, "%", "ms");
  const struct side *sides[2] = { a, b };
  static const char *const colour[2] = { "#2a6fdb", "#d05a00" }, *const name[2] = { "base", "candidate" };
  for (int k = 0; k < 2; k++) {
    printf("<text x=\"%g\" y=\"14\" font-size=\"11\" fill=\"%s\">%s (%zu pauses)</text>\n", L + 10 + k * 200,
           colour[k], name[k], sides[k]->npauses);
    printf("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", colour[k]);
    for (int q = 0; q <= 1000; q++) {
      double v = diff_percentile(sides[k]->pauses, sides[k]->npauses, q / 10.0);
      if (v > ytop) v = ytop;
      printf("%.1f,%.1f ", L + q / 1000.0 * (x1 - L), (H - B) - v / ytop * (H - B - T));
    }
    printf("\"/>\n");
    static const double qs[] = { 50, 95, 99 };
    for (size_t j = 0; j < sizeof qs / sizeof qs[0]; j++) {
      double v = diff_percentile(sides[k]->pauses, sides[k]->npauses, qs[j]);
      printf("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s P%g: %.3f ms</title></circle>\n",
             L + qs[j] / 100 * (x1 - L), (H - B) - (v > ytop ? ytop : v) / ytop * (H - B - T), colour[k], name[k], qs[j], v);
    }
  }
  printf("</svg>\n<p class=\"note\">x: percentile of the complete GCs' pauses; y: pause (ms), up to the larger "
         "P99.5.</p>\n");
}

static void print_html(const struct side *a, const struct side *b, const struct verdict *v, double alpha,
                       const struct diff_rule *rules, int nrules, const int *held) {
  printf("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gcscope diff</title>\n"
         "<style>body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse;margin:6px 0}"
         "td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}th{background:#eee}td.l{text-align:left}"
         ".regression{color:#c00;font-weight:bold}.improvement{color:#2a9d3a;font-weight:bold}.note{color:#555}"
         ".holds{color:#c00;font-weight:bold}</style></head><body>\n<h2>gcscope diff</h2>\n<p>base: <code>");
  rpt_html_str(stdout, a->label);
  printf("</code><br>candidate: <code>");
  rpt_html_str(stdout, b->label);
  printf("</code></p>\n<p>pauses: <span class=\"%s\">%s</span>",
         !strcmp(v->word, "regression") ? "regression" : !strcmp(v->word, "improvement") ? "improvement" : "note",
         v->word);
  if (!isnan(v->mw.p))
    printf(" (Mann-Whitney U = %.1f, z = %.2f, p = %.3g, alpha %g; %zu vs %zu pauses; median %+.1f %%, P99 %+.1f %%)",
           v->mw.u, v->mw.z, v->mw.p, alpha, a->npauses, b->npauses, v->median_change_pct, v->p99_change_pct);
  printf("</p>\n<table><tr><th>metric</th><th>base</th><th>candidate</th><th>change</th><th>ratio</th></tr>\n");
  for (int i = 0; i < M_COUNT; i++) {
    struct row r;
    format_row(a, b, i, &r);
    const char *t = r.title;
    while (*t == ' ') t++;   /* the text's indent of the per-kind counts */
    printf("<tr><td class=\"l\">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", t, r.base, r.cand,
           r.change, r.ratio);
  }
  printf("</table>\n");
  if (nrules) {
    printf("<h3>--fail-on</h3>\n<ul>\n");
    for (int i = 0; i < nrules; i++) {
      printf("<li><code>");
      rpt_html_str(stdout, rules[i].text);
      printf("</code>: %s</li>\n", held[i] ? "<span class=\"holds\">HOLDS</span>" : "does not hold");
    }
    printf("</ul>\n");
  }
  html_pause_chart(a, b);
  printf("</body></html>\n");
}

/* ---- the command ---------------------------------------------------------- */

int gcs_cmd_diff(int argc, char **argv) {
  const char *fail_on = NULL, *db_path = NULL;
  int fmt = RPT_TEXT;
  double alpha = DEFAULT_ALPHA;
  struct gcs_cli p;
  gcs_cli_init(&p, &diff_spec, argc, argv);
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&diff_spec, stdout); return 0; }
    if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
    if (k == O_FORMAT) {
      char e[160];
      if ((fmt = rpt_format_parse(p.value, RPT_F(RPT_TEXT) | RPT_F(RPT_JSON) | RPT_F(RPT_HTML), e, sizeof e)) < 0)
        return gcs_cli_fail("%s", e);
    }
    else if (k == O_FAIL_ON) fail_on = p.value;
    else if (k == O_ALPHA) alpha = p.dval;
    else if (k == O_DB) db_path = p.value;
  }
  if (argc - p.optind != 2) return gcs_cli_fail("expected BASE and CANDIDATE (got %d input%s)", argc - p.optind, argc - p.optind == 1 ? "" : "s");
  struct diff_rule rules[MAX_RULES];
  int nrules = 0;
  char err[1200];
  if (fail_on && (nrules = diff_rules_parse(fail_on, rules, MAX_RULES, metric_known, err, sizeof err)) < 0)
    return gcs_cli_fail("%s", err);
  static struct side a, b;
  int rc = 1;
  if (open_side(&a, argv[p.optind], db_path, err, sizeof err) ||
      open_side(&b, argv[p.optind + 1], db_path, err, sizeof err)) {
    fprintf(stderr, "gcscope %s: %s\n", CMD, err);
    goto out;
  }
  gcs_input_warn_discarded(&a.in, stderr, "gcscope " CMD ": base: ");
  gcs_input_warn_discarded(&b.in, stderr, "gcscope " CMD ": candidate: ");
  struct verdict v;
  judge(&a, &b, alpha, &v);
  int held[MAX_RULES] = { 0 }, any = 0;
  for (int i = 0; i < nrules; i++) {
    int m = metric_index(rules[i].metric);
    double change = diff_rule_change(&rules[i], a.m[m], b.m[m]);
    held[i] = diff_rule_holds(&rules[i], change);
    /* A pause percentile's change counts only when the distributions differ. */
    if (held[i] && metrics[m].pause_dist && !(v.mw.p < alpha)) held[i] = 0;
    any |= held[i];
  }
  if (fmt == RPT_JSON) print_json(&a, &b, &v, alpha, rules, nrules, held);
  else if (fmt == RPT_HTML) print_html(&a, &b, &v, alpha, rules, nrules, held);
  else print_text(&a, &b, &v, alpha);
  fflush(stdout);
  for (int i = 0; i < nrules; i++) {
    int m = metric_index(rules[i].metric);
    double change = diff_rule_change(&rules[i], a.m[m], b.m[m]);
    char ch[48];
    if (isnan(change)) snprintf(ch, sizeof ch, "cannot be computed");
    else snprintf(ch, sizeof ch, "change %+.*f%s", metrics[m].prec > 2 ? metrics[m].prec : 2, change,
                  rules[i].unit == DIFF_UNIT_PCT ? " %" : rules[i].unit == DIFF_UNIT_PT ? " pt"
                  : metrics[m].unit[0] && strcmp(metrics[m].unit, "%") ? " " : "");
    fprintf(stderr, "gcscope %s: --fail-on %s: %s (%s%s%s)%s\n", CMD, rules[i].text, held[i] ? "HOLDS" : "does not hold",
            ch, rules[i].unit == DIFF_UNIT_ABS && metrics[m].unit[0] && strcmp(metrics[m].unit, "%") ? metrics[m].unit : "",
            "", metrics[m].pause_dist && !held[i] && diff_rule_holds(&rules[i], change) ? "; the pause test is not significant" : "");
  }
  rc = any ? 1 : 0;
out:
  close_side(&a);
  close_side(&b);
  return rc;
}
