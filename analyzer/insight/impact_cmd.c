/*
 * impact_cmd.c — `gcscope impact DB|TRACE`: GC pause impact on request
 * latency per process (ins_impact.h), requests taken from the requests table
 * (librgc RequestStart/RequestStop), a CSV of spans (--requests FILE), or any
 * pair of recorded events (--begin EVENT --end EVENT [--key FIELD]).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_cli.h"
#include "gcs_gcdb.h"
#include "gcs_insight.h"
#include "ins_db.h"
#include "ins_impact.h"
#include "gcs_html.h"
#include "gcs_output.h"

#define CMD "impact"
#define MAX_CUTS 16

struct csv_req {
  int32_t pid;       /* -1: not given */
  struct ins_request r;
};

struct impact_opts {
  const char *input, *requests_file, *begin, *end, *key, *db_path;
  int64_t offset_ns;
  long pid;          /* -1: all */
  long trace;        /* --trace: -1 every trace of the input */
  double cuts[MAX_CUTS];
  size_t n_cuts;
  long slowest;
  int wide;          /* -w: text shows whole paths */
  enum rpt_format fmt;
  struct csv_req *csv;
  size_t n_csv;
};

enum { O_REQUESTS, O_OFFSET, O_BEGIN, O_END, O_KEY, O_TRACE, O_PID, O_BANDS, O_SLOWEST, O_WIDE, O_FORMAT, O_DB };

static const struct gcs_cli_opt impact_opts_table[] = {
  [O_REQUESTS] = { "requests", 0, GCS_CLI_STRING, 0, 0, "FILE", "requests from a CSV file: id,start_ns,end_ns[,pid]" },
  [O_OFFSET] = { "offset", 0, GCS_CLI_INT, -9.2e18, 9.2e18, "NS", "added to the CSV's times (clock difference)" },
  [O_BEGIN] = { "begin", 0, GCS_CLI_STRING, 0, 0, "EVENT", "requests from the trace: the event that starts one" },
  [O_END] = { "end", 0, GCS_CLI_STRING, 0, 0, "EVENT", "... and the event that ends it" },
  [O_KEY] = { "key", 0, GCS_CLI_STRING, 0, 0, "FIELD", "the payload field pairing a begin with its end" },
  [O_TRACE] = GCS_OPT_TRACE,
  [O_PID] = GCS_OPT_PID,
  [O_BANDS] = { "bands", 0, GCS_CLI_STRING, 0, 0, "P,P,...", "latency percentiles that cut the bands (default 50,90,99)" },
  [O_SLOWEST] = { "slowest", 0, GCS_CLI_INT, 0, 1e9, "N", "list the N slowest requests (default 10)" },
  [O_WIDE] = { "wide", 'w', GCS_CLI_FLAG, 0, 0, NULL, "text: whole paths (a long one is cut to fit 80 columns: \"...\" and its end)" },
  [O_FORMAT] = GCS_OPT_FORMAT("text (default), csv, json or html"),
  [O_DB] = GCS_OPT_DB,
  { 0 },
};

static const struct gcs_cli_spec impact_spec = {
  .cmd = CMD,
  .usage = "DB|TRACE [--requests FILE [--offset NS]] [--begin EVENT --end EVENT [--key FIELD]] "
           "[--trace ID] [--pid PID] [--bands P,P,...] [--slowest N] [-w] [--format text|csv|json|html] [-d DB]",
  .opts = impact_opts_table,
};

/* CSV lines "id,start_ns,end_ns[,pid]"; blank lines, '#' comments and a
 * header line (first field not a number) are skipped. */
static int read_csv(struct impact_opts *o) {
  FILE *f = fopen(o->requests_file, "r");
  if (!f) {
    fprintf(stderr, "gcscope %s: %s: %s\n", CMD, o->requests_file, strerror(errno));
    return -1;
  }
  char line[512];
  size_t cap = 0;
  long lineno = 0;
  int rc = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    /* A line cut by the buffer, or a NUL byte in it (/dev/zero, a binary
     * file: read as blank lines it was an endless loop): not this CSV. */
    size_t len = strlen(line);
    if (len == 0 || (line[len - 1] != '\n' && !feof(f))) {
      fprintf(stderr, "gcscope %s: %s:%ld: not a CSV line (a NUL byte, or over %zu bytes)\n", CMD,
              o->requests_file, lineno, sizeof line - 2);
      rc = -1;
      break;
    }
    char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0') continue;
    if (lineno == 1 && !(*p >= '0' && *p <= '9')) continue; /* header */
    long long v[4];
    int nf = 0;
    char *s = p;
    for (; nf < 4;) {
      char *end;
      errno = 0;
      v[nf] = strtoll(s, &end, 10);
      if (end == s || errno) break;
      nf++;
      while (*end == ' ' || *end == '\t') end++;
      if (*end != ',') { s = end; break; }
      s = end + 1;
    }
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
    if (nf < 3 || *s != '\0') {
      fprintf(stderr, "gcscope %s: %s:%ld: expected id,start_ns,end_ns[,pid]\n", CMD, o->requests_file, lineno);
      rc = -1;
      break;
    }
    /* Each value as it is meant, or the line's error: never a wrapped pid,
     * a negative latency or an overflowed time. */
    long long start, end;
    const char *why = v[0] < 0                                     ? "a negative id"
                      : nf == 4 && (v[3] < 0 || v[3] > INT32_MAX)   ? "a pid out of range"
                      : v[2] < v[1]                                 ? "end_ns before start_ns"
                      : __builtin_add_overflow(v[1], o->offset_ns, &start) ||
                                __builtin_add_overflow(v[2], o->offset_ns, &end)
                          ? "a time beyond the 64-bit range with --offset"
                          : NULL;
    if (why) {
      fprintf(stderr, "gcscope %s: %s:%ld: %s\n", CMD, o->requests_file, lineno, why);
      rc = -1;
      break;
    }
    if (o->n_csv == cap) {
      size_t nc = cap ? cap * 2 : 256;
      struct csv_req *nr = realloc(o->csv, nc * sizeof *nr);
      if (!nr) { rc = -1; break; }
      o->csv = nr;
      cap = nc;
    }
    o->csv[o->n_csv++] = (struct csv_req){nf == 4 ? (int32_t)v[3] : -1, {(uint64_t)v[0], start, end}};
  }
  fclose(f);
  return rc;
}

/* Pairs begin/end events of one process by (key field value | thread id).
 * A begin overwrites an open one with the same key; an end without one is ignored. */
static int event_requests(sqlite3 *db, const struct impact_opts *o, const struct ins_proc_key *k,
                          struct ins_request **out, size_t *n) {
  *out = NULL;
  *n = 0;
  /* In event order (gcs_gcdb_events_prepare binds ?1, the trace). */
  char err[300];
  sqlite3_stmt *st = gcs_gcdb_events_prepare(db, k->trace_id, "e.ts_ns, e.name = ?3, e.tid, e.payload",
                                             "e.pid = ?2 AND e.name IN (?3, ?4)", NULL, err, sizeof err);
  if (!st) {
    fprintf(stderr, "gcscope %s: database: %s\n", CMD, err);
    return -1;
  }
  sqlite3_bind_int(st, 2, k->pid);
  sqlite3_bind_text(st, 3, o->begin, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 4, o->end, -1, SQLITE_STATIC);
  struct open { char key[64]; int64_t ts; } *open = NULL;
  size_t n_open = 0, cap_open = 0, cap = 0;
  int rc = 0;
  uint64_t seq = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    char key[64];
    if (o->key) {
      if (ins_payload_field((const char *)sqlite3_column_text(st, 3), o->key, key, sizeof key) != 0) continue;
    } else {
      snprintf(key, sizeof key, "%d", sqlite3_column_int(st, 2));
    }
    int64_t ts = sqlite3_column_int64(st, 0);
    size_t i = 0;
    while (i < n_open && strcmp(open[i].key, key) != 0) i++;
    if (sqlite3_column_int(st, 1)) {            /* begin */
      if (i == n_open) {
        if (n_open == cap_open) {
          size_t nc = cap_open ? cap_open * 2 : 16;
          struct open *no = realloc(open, nc * sizeof *no);
          if (!no) { rc = -1; break; }
          open = no;
          cap_open = nc;
        }
        n_open++;
        snprintf(open[i].key, sizeof open[i].key, "%s", key);
      }
      open[i].ts = ts;
    } else if (i < n_open) {                   /* end with an open begin */
      if (*n == cap) {
        size_t nc = cap ? cap * 2 : 256;
        struct ins_request *nr = realloc(*out, nc * sizeof *nr);
        if (!nr) { rc = -1; break; }
        *out = nr;
        cap = nc;
      }
      char *end;
      uint64_t id = strtoull(key, &end, 10);
      (*out)[(*n)++] = (struct ins_request){*end ? ++seq : id, open[i].ts, ts};
      open[i] = open[--n_open];
    }
  }
  sqlite3_finalize(st);
  free(open);
  return rc;
}

static int requests_for(sqlite3 *db, const struct impact_opts *o, const struct ins_proc_key *k, int32_t csv_pid,
                        struct ins_request **out, size_t *n) {
  if (o->requests_file) {
    *n = 0;
    *out = malloc((o->n_csv ? o->n_csv : 1) * sizeof **out);
    if (!*out) return -1;
    for (size_t i = 0; i < o->n_csv; i++) {
      int32_t pid = o->csv[i].pid >= 0 ? o->csv[i].pid : csv_pid;
      if (pid == k->pid) (*out)[(*n)++] = o->csv[i].r;
    }
    return 0;
  }
  if (o->begin) return event_requests(db, o, k, out, n);
  char e[300];
  if (ins_db_requests(db, k, out, n, e, sizeof e) == 0) return 0;
  fprintf(stderr, "gcscope %s: %s\n", CMD, e);
  return -1;
}

/* ---- what the requests table adds: unpaired events, paths ------------------ */

#define MAX_PATHS 20
struct path_row { char *path; struct ins_impact r; };
struct extras {
  int have;                    /* requests from the requests table */
  int64_t unpaired_start, unpaired_stop;
  struct path_row paths[MAX_PATHS];
  size_t npaths;
};

static void extras_free(struct extras *x) {
  for (size_t i = 0; i < x->npaths; i++) { free(x->paths[i].path); ins_impact_free(&x->paths[i].r); }
  x->npaths = 0;
}

/* Unpaired starts and stops, and per path (the MAX_PATHS with most requests)
 * the same analysis on that path's requests. */
static int load_extras(sqlite3 *db, const struct impact_opts *o, const struct ins_proc_key *k,
                       const struct ins_pause *pauses, size_t npz, struct extras *x) {
  memset(x, 0, sizeof *x);
  if (o->requests_file || o->begin) return 0;
  x->have = 1;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT coalesce(sum(end_ns IS NULL), 0), coalesce(sum(start_ns IS NULL), 0) FROM requests "
                         "WHERE trace_id = ?1 AND pid = ?2", -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, k->trace_id);
  sqlite3_bind_int(st, 2, k->pid);
  if (sqlite3_step(st) == SQLITE_ROW) {
    x->unpaired_start = sqlite3_column_int64(st, 0);
    x->unpaired_stop = sqlite3_column_int64(st, 1);
  }
  sqlite3_finalize(st);
  if (sqlite3_prepare_v2(db, "SELECT path, count(*) AS n FROM requests WHERE trace_id = ?1 AND pid = ?2 AND path IS "
                         "NOT NULL AND start_ns IS NOT NULL AND end_ns IS NOT NULL GROUP BY path ORDER BY n DESC, path",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, k->trace_id);
  sqlite3_bind_int(st, 2, k->pid);
  while (x->npaths < MAX_PATHS && sqlite3_step(st) == SQLITE_ROW) {
    const char *p = (const char *)sqlite3_column_text(st, 0);
    if (!p || !(x->paths[x->npaths].path = strdup(p))) break;
    x->npaths++;
  }
  sqlite3_finalize(st);
  if (sqlite3_prepare_v2(db, "SELECT request_id, start_ns, end_ns FROM requests WHERE trace_id = ?1 AND pid = ?2 "
                         "AND path = ?3 AND start_ns IS NOT NULL AND end_ns IS NOT NULL ORDER BY start_ns",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  int rc = 0;
  for (size_t i = 0; i < x->npaths && rc == 0; i++) {
    struct ins_request *v = NULL;
    size_t n = 0, cap = 0;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, k->trace_id);
    sqlite3_bind_int(st, 2, k->pid);
    sqlite3_bind_text(st, 3, x->paths[i].path, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
      if (n == cap) {
        cap = cap ? cap * 2 : 256;
        struct ins_request *nv = realloc(v, cap * sizeof *nv);
        if (!nv) { rc = -1; break; }
        v = nv;
      }
      v[n++] = (struct ins_request){ (uint64_t)sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                     sqlite3_column_int64(st, 2) };
    }
    if (rc == 0 && ins_impact_compute(v, n, pauses, npz, ins_default_cuts, 0, 0, &x->paths[i].r) != 0) rc = -1;
    free(v);
    if (rc) { free(x->paths[i].path); x->npaths = i; }
  }
  sqlite3_finalize(st);
  return rc;
}

static void print_pcts_text(const char *label, const double *v) {
  printf("  %s", label);
  if (isnan(v[INS_N_PCTS - 1])) {   /* no request in the group */
    printf(" none\n");
    return;
  }
  for (int i = 0; i < INS_N_PCTS; i++) {
    if (i == 2 || i == 4) continue;   /* p95 and p99.9: in the line above; this one fits 80 columns */
    printf(" %s ", i == INS_N_PCTS - 1 ? "Max" : ins_impact_pct_names[i]);
    rpt_num3(stdout, RPT_TEXT, v[i]);
  }
  printf("\n");
}

static void print_extras_text(const struct ins_impact *r, const struct extras *x, int wide) {
  char lbl[64];
  snprintf(lbl, sizeof lbl, "Without GC (%zu):", r->requests - r->affected);
  print_pcts_text(lbl, r->pct_clean_ms);
  snprintf(lbl, sizeof lbl, "With GC (%zu):", r->affected);
  print_pcts_text(lbl, r->pct_hit_ms);
  if (x->have && (x->unpaired_start || x->unpaired_stop))
    printf("  Unpaired: %" PRId64 " started and not ended, %" PRId64 " ended and not started (left out)\n",
           x->unpaired_start, x->unpaired_stop);
  if (r->n_worst) printf("  GCs that cost requests most (request time inside their pauses):\n");
  for (size_t i = 0; i < r->n_worst; i++)
    printf("    GC #%-6u %10.3f ms in %zu request%s\n", r->worst[i].gc_index, r->worst[i].lost_ms,
           r->worst[i].requests, r->worst[i].requests == 1 ? "" : "s");
  if (x->npaths) {
    /* Path: the room 80 columns leave (-w: every path whole) */
    int pw = 4;
    for (size_t i = 0; i < x->npaths; i++) {
      int l = (int)rpt_text_cols(x->paths[i].path);
      if (l > pw) pw = l;
    }
    const int room = GCS_TEXT_WIDTH - 2 - (1 + 8) - 4 * (1 + 9);
    if (!wide && pw > room) pw = room;
    printf("  %-*s %8s %9s %9s %9s %9s\n", pw, "Path", "Requests", "p50 ms", "p99 ms", "Affected%", "GC share%");
    for (size_t i = 0; i < x->npaths; i++) {
      const struct ins_impact *p = &x->paths[i].r;
      char fit[1024];
      const char *path = wide ? rpt_printable(fit, sizeof fit, x->paths[i].path)
                              : rpt_fit_name(fit, sizeof fit, x->paths[i].path, (size_t)pw);
      printf("  %s%*s %8zu", path, pw - (int)rpt_text_cols(path), "", p->requests);
      double v[4] = { p->pct_ms[0], p->pct_ms[3], p->affected_pct,
                      p->total_latency_ms > 0 ? p->total_gc_ms * 100.0 / p->total_latency_ms : NAN };
      for (int j = 0; j < 4; j++) {
        if (isnan(v[j])) printf(" %9s", RPT_UNKNOWN);
        else printf(" %9.3f", v[j]);
      }
      printf("\n");
    }
  }
}

static void json_kv(const char *k, double v, int comma);

static void json_pcts(const char *name, const double *v) {
  printf(", \"%s\": {", name);
  for (int i = 0; i < INS_N_PCTS; i++) json_kv(ins_impact_pct_names[i], v[i], i > 0);
  printf("}");
}

static void print_extras_json(const struct ins_impact *r, const struct extras *x) {
  printf(", \"without_gc_requests\": %zu", r->requests - r->affected);
  json_pcts("percentiles_without_gc", r->pct_clean_ms);
  json_pcts("percentiles_with_gc", r->pct_hit_ms);
  if (x->have) printf(", \"unpaired_starts\": %" PRId64 ", \"unpaired_stops\": %" PRId64, x->unpaired_start,
                      x->unpaired_stop);
  else printf(", \"unpaired_starts\": null, \"unpaired_stops\": null");
  printf(", \"worst_gcs\": [");
  for (size_t i = 0; i < r->n_worst; i++) {
    printf("%s{\"gc_index\": %u, \"requests\": %zu", i ? ", " : "", r->worst[i].gc_index, r->worst[i].requests);
    json_kv("lost_ms", r->worst[i].lost_ms, 1);
    printf("}");
  }
  printf("], \"paths\": [");
  for (size_t i = 0; i < x->npaths; i++) {
    const struct ins_impact *p = &x->paths[i].r;
    printf("%s{\"path\": ", i ? ", " : "");
    rpt_json_str(stdout, x->paths[i].path);
    printf(", \"requests\": %zu, \"affected\": %zu", p->requests, p->affected);
    json_kv("affected_pct", p->affected_pct, 1);
    json_kv("latency_ms", p->total_latency_ms, 1);
    json_kv("gc_ms", p->total_gc_ms, 1);
    json_pcts("percentiles", p->pct_ms);
    printf("}");
  }
  printf("]");
}

/* ---- HTML: the same figures, and the latency-vs-pause picture ------------ */

static void band_label(char *buf, size_t cap, const struct ins_band *b, int csv);

static void html_num(double v) {
  if (isnan(v)) printf("<td>%s</td>", RPT_UNKNOWN);
  else printf("<td>%.3f</td>", v);
}

static void html_head(void) {
  printf("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gcscope impact</title>\n"
         "<style>body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse;margin:6px 0}"
         "td,th{border:1px solid #bbb;padding:2px 5px;text-align:right}th{background:#eee}td.l{text-align:left}"
         ".note{color:#555}.grid{stroke:#e4e4e4}</style></head><body>\n<h2>GC pause impact on request latency</h2>\n");
}

static void html_pct_row(const char *label, size_t n, const double *v) {
  printf("<tr><td class=\"l\">%s</td><td>%zu</td>", label, n);
  for (int i = 0; i < INS_N_PCTS; i++) html_num(v[i]);
  printf("</tr>\n");
}

static void print_html(const struct ins_proc_key *k, const struct ins_impact *r, const struct extras *x,
                       const struct ins_pause *pauses, size_t npz, long slowest) {
  printf("<h3>Process %d", k->pid);
  if (k->name[0]) { printf(" ("); rpt_html_str(stdout, k->name); printf(")"); }
  printf(" (trace %" PRId64 ")</h3>\n<ul><li>Requests: %zu", k->trace_id, r->requests);
  if (r->invalid) printf(" (%zu with end before start left out)", r->invalid);
  if (x->have && (x->unpaired_start || x->unpaired_stop))
    printf("</li><li>Unpaired: %" PRId64 " started and not ended, %" PRId64 " ended and not started (left out)",
           x->unpaired_start, x->unpaired_stop);
  printf("</li><li>Affected by GC: %zu (%.3f %%); GC impact in them: %.3f %% (%.3f ms of %.3f ms); hit by more than "
         "one GC: %zu</li></ul>\n", r->affected, r->affected_pct, r->gc_impact_pct, r->affected_gc_ms,
         r->affected_latency_ms, r->multi_gc);
  printf("<table><tr><th>Latency ms</th><th>Requests</th>");
  for (int i = 0; i < INS_N_PCTS; i++) printf("<th>%s</th>", i == INS_N_PCTS - 1 ? "Max" : ins_impact_pct_names[i]);
  printf("</tr>\n");
  html_pct_row("All", r->requests, r->pct_ms);
  html_pct_row("Without GC", r->requests - r->affected, r->pct_clean_ms);
  html_pct_row("With GC", r->affected, r->pct_hit_ms);
  printf("</table>\n<h4>Request latency vs GC pauses</h4>\n");
  struct rpt_req_point *pt = malloc((r->n_slowest ? r->n_slowest : 1) * sizeof *pt);
  struct rpt_span *sp = malloc((npz ? npz : 1) * sizeof *sp);
  if (pt && sp) {
    for (size_t i = 0; i < r->n_slowest; i++)
      pt[i] = (struct rpt_req_point){ (double)(r->slowest[i].start_ns - k->trace_start_ns) / 1e6,
                                      r->slowest[i].latency_ms, r->slowest[i].n_gcs > 0 };
    for (size_t i = 0; i < npz; i++)
      sp[i] = (struct rpt_span){ (double)(pauses[i].start_ns - k->trace_start_ns) / 1e6,
                                 (double)(pauses[i].end_ns - k->trace_start_ns) / 1e6 };
    rpt_svg_requests(stdout, pt, r->n_slowest, sp, npz);
  }
  free(pt);
  free(sp);
  if (r->n_worst) {
    printf("<h4>GCs that cost requests most</h4>\n<table><tr><th>GC</th><th>Request time inside its pauses "
           "(ms)</th><th>Requests</th></tr>\n");
    for (size_t i = 0; i < r->n_worst; i++)
      printf("<tr><td>#%u</td><td>%.3f</td><td>%zu</td></tr>\n", r->worst[i].gc_index, r->worst[i].lost_ms,
             r->worst[i].requests);
    printf("</table>\n");
  }
  if (x->npaths) {
    printf("<h4>Per path</h4>\n<table><tr><th>Path</th><th>Requests</th><th>p50 ms</th><th>p99 ms</th>"
           "<th>Affected %%</th><th>GC share %%</th></tr>\n");
    for (size_t i = 0; i < x->npaths; i++) {
      const struct ins_impact *p = &x->paths[i].r;
      printf("<tr><td class=\"l\">");
      rpt_html_str(stdout, x->paths[i].path);
      printf("</td><td>%zu</td>", p->requests);
      html_num(p->pct_ms[0]);
      html_num(p->pct_ms[3]);
      html_num(p->affected_pct);
      html_num(p->total_latency_ms > 0 ? p->total_gc_ms * 100.0 / p->total_latency_ms : NAN);
      printf("</tr>\n");
    }
    printf("</table>\n");
  }
  printf("<h4>Bands</h4>\n<table><tr><th>Band</th><th>Requests</th><th>Latency ms</th><th>GC ms</th>"
         "<th>GC share %%</th></tr>\n");
  for (size_t b = 0; b < r->n_bands; b++) {
    char lbl[48];
    band_label(lbl, sizeof lbl, &r->bands[b], 0);
    printf("<tr><td class=\"l\">");
    rpt_html_str(stdout, lbl);
    printf("</td><td>%zu</td>", r->bands[b].requests);
    html_num(r->bands[b].latency_ms);
    html_num(r->bands[b].gc_ms);
    html_num(r->bands[b].gc_share_pct);
    printf("</tr>\n");
  }
  printf("</table>\n<h4>Slowest requests</h4>\n<table><tr><th>Id</th><th>Start ms</th><th>Latency ms</th>"
         "<th>GC ms</th><th>GCs</th></tr>\n");
  for (size_t i = 0; i < r->n_slowest && (long)i < slowest; i++) {
    const struct ins_slow_request *s = &r->slowest[i];
    printf("<tr><td>%" PRIu64 "</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td class=\"l\">", s->id,
           (double)(s->start_ns - k->trace_start_ns) / 1e6, s->latency_ms, s->gc_ms);
    for (size_t j = 0; j < s->n_gcs; j++) printf("%s#%u", j ? " " : "", s->gcs[j]);
    printf("</td></tr>\n");
  }
  printf("</table>\n");
}

static void band_label(char *buf, size_t cap, const struct ins_band *b, int csv) {
  if (b->lo_pct < 0) snprintf(buf, cap, csv ? "le_p%g" : "<= P%g", b->hi_pct);
  else if (b->hi_pct > 100) snprintf(buf, cap, csv ? "gt_p%g" : "> P%g", b->lo_pct);
  else snprintf(buf, cap, csv ? "p%g_p%g" : "P%g-P%g", b->lo_pct, b->hi_pct);
}

/* The process's GC pause time split into suspension and GC work (complete
 * GCs: PerfView's Pause MSec and Suspend Msec), and what the GC ms columns
 * add up. */
static void print_split(sqlite3 *db, const struct ins_proc_key *k) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT count(*), sum(pause_msec), sum(suspend_msec) FROM gcs WHERE trace_id = ?1 "
                             "AND pid = ?2 AND complete = 1", -1, &st, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_int64(st, 1, k->trace_id);
  sqlite3_bind_int(st, 2, k->pid);
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0) {
    double pause = sqlite3_column_double(st, 1), susp = sqlite3_column_double(st, 2);
    printf("  GC pauses: %.3f ms in %d complete GCs\n    = suspending threads %.3f ms (", pause,
           sqlite3_column_int(st, 0), susp);
    rpt_num3(stdout, RPT_TEXT, pause > 0 ? susp * 100.0 / pause : NAN);
    printf(" %%)\n    + GC work %.3f ms (", pause - susp);
    rpt_num3(stdout, RPT_TEXT, pause > 0 ? (pause - susp) * 100.0 / pause : NAN);
    printf(" %%)\n");
    char note[256];
    snprintf(note, sizeof note, "each request's paused time, summed over requests; requests running at once each "
             "count the same pause, so the sum can exceed the total pause of %.3f ms", pause);
    gcs_cli_paragraph(stdout, "  GC ms below: ", note, 2);
  }
  sqlite3_finalize(st);
}

static void print_text(sqlite3 *db, const struct ins_proc_key *k, const struct ins_impact *r,
                       const struct extras *x, int wide) {
  char name[sizeof k->name];
  printf("Process %d%s%s%s (trace %" PRId64 ")\n", k->pid, k->name[0] ? " (" : "",
         rpt_printable(name, sizeof name, k->name), k->name[0] ? ")" : "", k->trace_id);
  printf("  Requests: %zu", r->requests);
  if (r->invalid) printf(" (%zu with end before start left out)", r->invalid);
  /* one figure group a line; the six percentiles on two */
  printf("\n  Latency ms:");
  for (int i = 0; i < INS_N_PCTS; i++) {
    if (i == INS_N_PCTS / 2) printf("\n             ");
    printf(" %s ", i == INS_N_PCTS - 1 ? "Max" : ins_impact_pct_names[i]);
    rpt_num3(stdout, RPT_TEXT, r->pct_ms[i]);
  }
  printf("\n  Affected by GC: %zu (", r->affected);
  rpt_num3(stdout, RPT_TEXT, r->affected_pct);
  printf(" %%)\n  GC impact in them: ");
  rpt_num3(stdout, RPT_TEXT, r->gc_impact_pct);
  printf(" %% (");
  rpt_num3(stdout, RPT_TEXT, r->affected_gc_ms);
  printf(" ms of ");
  rpt_num3(stdout, RPT_TEXT, r->affected_latency_ms);
  printf(" ms)\n  Hit by more than one GC: %zu\n", r->multi_gc);
  print_extras_text(r, x, wide);
  print_split(db, k);
  /* the bands: each column as wide as its header or widest value */
  char bl[MAX_CUTS + 1][48], br[MAX_CUTS + 1][48], bn[MAX_CUTS + 1][24], blat[MAX_CUTS + 1][40],
      bgc[MAX_CUTS + 1][40], bsh[MAX_CUTS + 1][40];
  static const char *const bh[6] = { "Band", "Latency range ms", "Requests", "Latency ms", "GC ms", "GC share %" };
  int bw[6];
  for (int c = 0; c < 6; c++) bw[c] = (int)strlen(bh[c]);
  size_t nb = r->n_bands < MAX_CUTS + 1 ? r->n_bands : MAX_CUTS + 1;
  for (size_t b = 0; b < nb; b++) {
    const struct ins_band *bd = &r->bands[b];
    band_label(bl[b], sizeof bl[b], bd, 0);
    if (bd->lo_pct < 0) snprintf(br[b], sizeof br[b], "<= %.3f", bd->hi_ms);
    else if (bd->hi_pct > 100) snprintf(br[b], sizeof br[b], "> %.3f", bd->lo_ms);
    else snprintf(br[b], sizeof br[b], "%.3f-%.3f", bd->lo_ms, bd->hi_ms);
    snprintf(bn[b], sizeof bn[b], "%zu", bd->requests);
    snprintf(blat[b], sizeof blat[b], "%.3f", bd->latency_ms);
    snprintf(bgc[b], sizeof bgc[b], "%.3f", bd->gc_ms);
    if (isnan(bd->gc_share_pct)) snprintf(bsh[b], sizeof bsh[b], "%s", RPT_UNKNOWN);   /* 0 ms of latency */
    else snprintf(bsh[b], sizeof bsh[b], "%.3f", bd->gc_share_pct);
    const char *cells[6] = { bl[b], br[b], bn[b], blat[b], bgc[b], bsh[b] };
    for (int c = 0; c < 6; c++)
      if ((int)strlen(cells[c]) > bw[c]) bw[c] = (int)strlen(cells[c]);
  }
  printf("  %-*s %*s %*s %*s %*s %*s\n", bw[0], bh[0], bw[1], bh[1], bw[2], bh[2], bw[3], bh[3], bw[4], bh[4], bw[5],
         bh[5]);
  for (size_t b = 0; b < nb; b++)
    printf("  %-*s %*s %*s %*s %*s %*s\n", bw[0], bl[b], bw[1], br[b], bw[2], bn[b], bw[3], blat[b], bw[4], bgc[b],
           bw[5], bsh[b]);
  if (r->n_slowest) {
    /* the slowest requests; their GCs wrap under the GCs column */
    int sw[4] = { 2, 8, 10, 5 };
    char cell[4][48];
    for (size_t i = 0; i < r->n_slowest; i++) {
      const struct ins_slow_request *q = &r->slowest[i];
      int w[4] = { snprintf(cell[0], sizeof cell[0], "%" PRIu64, q->id),
                   snprintf(cell[1], sizeof cell[1], "%.3f", (double)(q->start_ns - k->trace_start_ns) / 1e6),
                   snprintf(cell[2], sizeof cell[2], "%.3f", q->latency_ms),
                   snprintf(cell[3], sizeof cell[3], "%.3f", q->gc_ms) };
      for (int c = 0; c < 4; c++)
        if (w[c] > sw[c]) sw[c] = w[c];
    }
    int gcs_col = 2 + sw[0] + 1 + sw[1] + 1 + sw[2] + 1 + sw[3] + 2;
    printf("  Slowest %zu requests:\n  %*s %*s %*s %*s  %s\n", r->n_slowest, sw[0], "Id", sw[1], "Start ms", sw[2],
           "Latency ms", sw[3], "GC ms", "GCs");
    for (size_t i = 0; i < r->n_slowest; i++) {
      const struct ins_slow_request *q = &r->slowest[i];
      printf("  %*" PRIu64 " %*.3f %*.3f %*.3f  ", sw[0], q->id, sw[1], (double)(q->start_ns - k->trace_start_ns) / 1e6,
             sw[2], q->latency_ms, sw[3], q->gc_ms);
      if (!q->n_gcs) printf("-");
      int col = gcs_col;
      for (size_t j = 0; j < q->n_gcs; j++) {
        char g[16];
        int gl = snprintf(g, sizeof g, "#%u", q->gcs[j]);
        if (j && col + 1 + gl > GCS_TEXT_WIDTH) {
          printf("\n%*s", gcs_col, "");
          col = gcs_col;
        } else if (j) {
          putchar(' ');
          col++;
        }
        fputs(g, stdout);
        col += gl;
      }
      printf("\n");
    }
  }
  printf("\n");
}

static void print_csv_header(const struct ins_impact *r) {
  printf("trace_id,pid,process,requests,affected,affected_pct,gc_impact_pct,multi_gc_requests");
  for (int i = 0; i < INS_N_PCTS; i++) {
    char nm[16];
    snprintf(nm, sizeof nm, "%s", ins_impact_pct_names[i]);
    for (char *c = nm; *c; c++) if (*c == '.') *c = '_';
    printf(",%s_ms", nm);
  }
  for (size_t b = 0; b < r->n_bands; b++) {
    char lbl[48];
    band_label(lbl, sizeof lbl, &r->bands[b], 1);
    for (char *c = lbl; *c; c++) if (*c == '.') *c = '_';
    printf(",%s_requests,%s_gc_share_pct", lbl, lbl);
  }
  printf("\n");
}

static void print_csv(const struct ins_proc_key *k, const struct ins_impact *r) {
  printf("%" PRId64 ",%d,", k->trace_id, k->pid);
  rpt_csv_str(stdout, k->name);
  printf(",%zu,%zu,", r->requests, r->affected);
  rpt_num3(stdout, RPT_CSV, r->affected_pct);
  putchar(',');
  rpt_num3(stdout, RPT_CSV, r->gc_impact_pct);
  printf(",%zu", r->multi_gc);
  for (int i = 0; i < INS_N_PCTS; i++) {
    putchar(',');
    rpt_num3(stdout, RPT_CSV, r->pct_ms[i]);
  }
  for (size_t b = 0; b < r->n_bands; b++) {
    printf(",%zu,", r->bands[b].requests);
    rpt_num3(stdout, RPT_CSV, r->bands[b].gc_share_pct);
  }
  printf("\n");
}

static void json_kv(const char *k, double v, int comma) {
  printf("%s\"%s\": ", comma ? ", " : "", k);
  rpt_num3(stdout, RPT_JSON, v);
}

static void print_json(const struct ins_proc_key *k, const struct ins_impact *r, int first, const struct extras *x) {
  printf("%s\n    {\"trace_id\": %" PRId64 ", \"pid\": %d, \"process\": ", first ? "" : ",", k->trace_id, k->pid);
  rpt_json_str(stdout, k->name);
  printf(", \"requests\": %zu, \"invalid_requests\": %zu, \"affected\": %zu", r->requests, r->invalid, r->affected);
  json_kv("affected_pct", r->affected_pct, 1);
  json_kv("gc_impact_pct", r->gc_impact_pct, 1);
  json_kv("affected_latency_ms", r->affected_latency_ms, 1);
  json_kv("affected_gc_ms", r->affected_gc_ms, 1);
  printf(", \"multi_gc_requests\": %zu, \"percentiles\": {", r->multi_gc);
  for (int i = 0; i < INS_N_PCTS; i++) json_kv(ins_impact_pct_names[i], r->pct_ms[i], i > 0);
  printf("}, \"bands\": [");
  for (size_t b = 0; b < r->n_bands; b++) {
    const struct ins_band *bd = &r->bands[b];
    char lbl[48];
    band_label(lbl, sizeof lbl, bd, 0);
    printf("%s{\"band\": ", b ? ", " : "");
    rpt_json_str(stdout, lbl);
    json_kv("lo_pct", bd->lo_pct < 0 ? NAN : bd->lo_pct, 1);
    json_kv("hi_pct", bd->hi_pct > 100 ? NAN : bd->hi_pct, 1);
    json_kv("lo_ms", bd->lo_ms, 1);
    json_kv("hi_ms", bd->hi_ms, 1);
    printf(", \"requests\": %zu", bd->requests);
    json_kv("latency_ms", bd->latency_ms, 1);
    json_kv("gc_ms", bd->gc_ms, 1);
    json_kv("gc_share_pct", bd->gc_share_pct, 1);
    printf("}");
  }
  printf("], \"slowest\": [");
  for (size_t i = 0; i < r->n_slowest; i++) {
    const struct ins_slow_request *s = &r->slowest[i];
    printf("%s{\"id\": %" PRIu64, i ? ", " : "", s->id);
    json_kv("start_ms", (double)(s->start_ns - k->trace_start_ns) / 1e6, 1);
    json_kv("latency_ms", s->latency_ms, 1);
    json_kv("gc_ms", s->gc_ms, 1);
    printf(", \"gcs\": [");
    for (size_t j = 0; j < s->n_gcs; j++) printf("%s%u", j ? ", " : "", s->gcs[j]);
    printf("]}");
  }
  printf("]");
  print_extras_json(r, x);
  printf("}");
}

static int parse_args(int argc, char **argv, struct impact_opts *o) {
  *o = (struct impact_opts){.pid = -1, .trace = -1, .slowest = 10, .fmt = RPT_TEXT};
  memcpy(o->cuts, ins_default_cuts, sizeof ins_default_cuts);
  o->n_cuts = 3;
  struct gcs_cli p;
  gcs_cli_init(&p, &impact_spec, argc, argv);
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&impact_spec, stdout); return 1; }
    if (k == GCS_CLI_BAD) { gcs_cli_fail("%s", p.err); return -1; }
    switch (k) {
    case O_REQUESTS: o->requests_file = p.value; break;
    case O_OFFSET: o->offset_ns = p.ival; break;
    case O_BEGIN: o->begin = p.value; break;
    case O_END: o->end = p.value; break;
    case O_KEY: o->key = p.value; break;
    case O_TRACE: o->trace = (long)p.ival; break;
    case O_PID: o->pid = (long)p.ival; break;
    case O_SLOWEST: o->slowest = (long)p.ival; break;
    case O_WIDE: o->wide = 1; break;
    case O_DB: o->db_path = p.value; break;
    case O_BANDS: {
      int n = ins_parse_cuts(p.value, o->cuts, MAX_CUTS);
      if (n < 0) {
        gcs_cli_fail("--bands: '%s' is not increasing percentiles in (0,100)", p.value);
        return -1;
      }
      o->n_cuts = (size_t)n;
      break;
    }
    case O_FORMAT: {
      char ferr[160];
      int f = rpt_format_parse(p.value, RPT_F(RPT_TEXT) | RPT_F(RPT_CSV) | RPT_F(RPT_JSON) | RPT_F(RPT_HTML), ferr, sizeof ferr);
      if (f < 0) { gcs_cli_fail("%s", ferr); return -1; }
      o->fmt = (enum rpt_format)f;
      break;
    }
    }
  }
  if (p.optind < argc) o->input = argv[p.optind];
  if (p.optind + 1 < argc) { gcs_cli_fail("one DB or TRACE only ('%s')", argv[p.optind + 1]); return -1; }
  if (!o->input) { gcs_cli_usage(&impact_spec, stderr); return -1; }
  if ((o->begin != NULL) != (o->end != NULL)) {
    fprintf(stderr, "gcscope %s: --begin and --end go together\n", CMD);
    return -1;
  }
  if (o->key && !o->begin) { fprintf(stderr, "gcscope %s: --key needs --begin and --end\n", CMD); return -1; }
  if (o->begin && o->requests_file) {
    fprintf(stderr, "gcscope %s: --requests and --begin/--end are exclusive\n", CMD);
    return -1;
  }
  return 0;
}

int gcs_cmd_impact(int argc, char **argv) {
  struct impact_opts o;
  int pr = parse_args(argc, argv, &o);
  if (pr) return pr > 0 ? 0 : 2;
  if (o.requests_file && read_csv(&o) != 0) { free(o.csv); return 1; }
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = o.trace, .db_path = o.db_path};
  if (gcs_input_open_report(CMD, o.input, &io, &in)) {
    free(o.csv);
    return 1;
  }

  sqlite3 *db = in.db;

  int rc = 1;
  struct ins_proc_key *procs = NULL;
  size_t np = 0;
  char dberr[300];
  if (ins_db_processes(db, 1, &procs, &np, dberr, sizeof dberr) != 0) {
    fprintf(stderr, "gcscope %s: %s\n", CMD, dberr);
    goto out;
  }
  /* CSV rows without a pid belong to --pid, or to the only process. */
  int32_t csv_pid = (int32_t)o.pid;
  if (o.requests_file && o.pid < 0) {
    int need = 0;
    for (size_t i = 0; i < o.n_csv; i++) need |= o.csv[i].pid < 0;
    if (need && np != 1) {
      fprintf(stderr, "gcscope %s: %s has no pid column, the database %zu processes: give --pid\n", CMD,
              o.requests_file, np);
      goto out;
    }
    if (need) csv_pid = procs[0].pid;
  }

  size_t shown = 0;
  int header = 0;
  if (o.fmt == RPT_JSON) printf("{\"processes\": [");
  if (o.fmt == RPT_HTML) html_head();
  for (size_t i = 0; i < np; i++) {
    if (o.pid >= 0 && procs[i].pid != o.pid) continue;
    struct ins_request *req = NULL;
    struct ins_pause *pauses = NULL;
    size_t nr = 0, npz = 0;
    int bad = requests_for(db, &o, &procs[i], csv_pid, &req, &nr) != 0;
    if (!bad && ins_db_pauses(db, &procs[i], &pauses, &npz, dberr, sizeof dberr) != 0) {
      fprintf(stderr, "gcscope %s: %s\n", CMD, dberr);
      bad = 1;
    }
    if (bad) {
      free(req);
      free(pauses);
      goto out_json;
    }
    if (nr > 0) {
      struct ins_impact r;
      /* HTML draws every request: all of them come back, slowest first. */
      size_t want = o.fmt == RPT_HTML ? nr : (size_t)o.slowest;
      if (ins_impact_compute(req, nr, pauses, npz, o.cuts, o.n_cuts, want, &r) != 0) {
        fprintf(stderr, "gcscope %s: out of memory\n", CMD);
        free(req);
        free(pauses);
        goto out_json;
      }
      struct extras x;
      if (load_extras(db, &o, &procs[i], pauses, npz, &x) != 0) {
        fprintf(stderr, "gcscope %s: reading the requests' paths: %s\n", CMD, sqlite3_errmsg(db));
        extras_free(&x);
        ins_impact_free(&r);
        free(req);
        free(pauses);
        goto out_json;
      }
      if (o.fmt == RPT_TEXT) print_text(db, &procs[i], &r, &x, o.wide);
      else if (o.fmt == RPT_HTML) print_html(&procs[i], &r, &x, pauses, npz, o.slowest);
      else if (o.fmt == RPT_CSV) {
        if (!header++) print_csv_header(&r);
        print_csv(&procs[i], &r);
      } else print_json(&procs[i], &r, shown == 0, &x);
      shown++;
      extras_free(&x);
      ins_impact_free(&r);
    }
    free(req);
    free(pauses);
  }
  rc = 0;
out_json:
  if (o.fmt == RPT_JSON) printf("\n]}\n");
  if (o.fmt == RPT_HTML) printf("</body></html>\n");
  if (rc == 0 && shown == 0) {
    if (o.requests_file)
      fprintf(stderr, "gcscope %s: no requests found (no CSV row matches a process of the trace)\n", CMD);
    else if (o.begin) fprintf(stderr, "gcscope %s: no requests found (no begin/end event pairs)\n", CMD);
    else fprintf(stderr, "gcscope %s: no requests in %s (record --requests aspnet; or --begin/--end)\n", CMD, o.input);
    rc = 1;
  }
out:
  free(procs);
  free(o.csv);
  gcs_input_close(&in);
  return rc;
}
