/*
 * triggers_cmd.c — `gcscope triggers DB|TRACE --gc-over MS --suspend-over MS
 * --bgc-final-pause-over MS`: which GCs would have fired the tracer's stop
 * triggers, plus the distribution of each measured duration to choose
 * thresholds from history. The gc_lifecycle rows (the triggers' events,
 * typed) are replayed through the rules `gcscope record` uses live
 * (ins_triggers.h, gcs_triggers.h).
 */
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gcs_cli.h"
#include "gcs_gcdb.h"
#include "gcs_insight.h"
#include "gcs_events.h"
#include "gcs_rules.h"
#include "ins_db.h"
#include "gcs_output.h"
#include "ins_stats.h"
#include "ins_triggers.h"

#define CMD "triggers"

enum { O_GC_OVER, O_SUSPEND_OVER, O_BGC_FINAL_OVER, O_TRACE, O_PID, O_FORMAT, O_DB, O_RULES };
_Static_assert(O_GC_OVER == (int)GCS_TRIGGER_GC_OVER && O_SUSPEND_OVER == (int)GCS_TRIGGER_SUSPEND_OVER &&
                   O_BGC_FINAL_OVER == (int)GCS_TRIGGER_BGC_FINAL_OVER,
               "the threshold options are indexed by enum gcs_trigger_kind");

static const struct gcs_cli_opt triggers_opts_table[] = {
  [O_GC_OVER] = { "gc-over", 0, GCS_CLI_DOUBLE, 0, 1e12, "MS", "PerfView's /StopOnGCOverMSec" },
  [O_SUSPEND_OVER] = { "suspend-over", 0, GCS_CLI_DOUBLE, 0, 1e12, "MS", "PerfView's /StopOnGCSuspendOverMSec" },
  [O_BGC_FINAL_OVER] = { "bgc-final-pause-over", 0, GCS_CLI_DOUBLE, 0, 1e12, "MS", "PerfView's /StopOnBGCFinalPauseOverMsec" },
  [O_TRACE] = GCS_OPT_TRACE,
  [O_PID] = GCS_OPT_PID,
  [O_FORMAT] = GCS_OPT_FORMAT("text (default), csv or json"),
  [O_DB] = GCS_OPT_DB,
  [O_RULES] = { "rules", 0, GCS_CLI_STRING, 0, 0, "FILE", "stop rules as record --rules reads them: when each would fire" },
  { 0 },
};

static const struct gcs_cli_spec triggers_spec = {
  .cmd = CMD,
  .usage = "DB|TRACE [--gc-over MS] [--suspend-over MS] [--bgc-final-pause-over MS] [--trace ID] [--pid PID] "
           "[--rules FILE] [--format text|csv|json] [-d DB]",
  .opts = triggers_opts_table,
};

/* The option tables below index by enum gcs_trigger_kind. */
#define INS_TRIG_N GCS_TRIGGER_NKINDS

struct trace_trig {
  int64_t trace_id, start_ns;
  struct ins_trig *t;
};

/* One gc_lifecycle row as the decoded event it was stored from: the fields
 * the rules read come back from their typed columns (named after them, lower
 * case), the others stay 0 as in the live watcher's events. */
static int row_event(sqlite3_stmt *st, struct gcs_event *ev) {
  const char *name = (const char *)sqlite3_column_text(st, 2);
  int kind = -1;
  for (int k = 0; name && k < GCS_KIND_COUNT && kind < 0; k++)
    if (strcmp(gcs_event_descs[k].name, name) == 0) kind = k;
  if (kind < 0 || !gcs_triggers_event_needed((enum gcs_kind)kind)) return -1;
  memset(ev, 0, offsetof(struct gcs_event, u) + gcs_event_descs[kind].struct_size);
  ev->kind = (enum gcs_kind)kind;
  ev->ts_ns = (uint64_t)sqlite3_column_int64(st, 3);
  ev->pid = sqlite3_column_int(st, 4);
  ev->tid = sqlite3_column_int(st, 5);
  ev->cpu = -1;
  ev->version = (uint8_t)sqlite3_column_int(st, 6);
  for (const char *const *f = gcs_triggers_event_fields(ev->kind); *f; f++) {
    const struct gcs_field_desc *fd = gcs_field_find(ev->kind, *f);
    for (int c = 7; fd && c < sqlite3_column_count(st); c++)
      if (strcasecmp(sqlite3_column_name(st, c), *f) == 0 && sqlite3_column_type(st, c) != SQLITE_NULL)
        gcs_field_set_int(ev, fd, (uint64_t)sqlite3_column_int64(st, c));
  }
  return 0;
}

/* Replay each trace's gc_lifecycle rows through the stop-trigger rules. */
static int load(sqlite3 *db, long pid, const struct gcs_trigger_thresholds *thr, const struct gcs_rule *rules, int nrules,
                struct trace_trig **out, size_t *n) {
  sqlite3_stmt *st;
  *out = NULL;
  *n = 0;
  if (sqlite3_prepare_v2(db,
                         "SELECT e.trace_id, coalesce(t.start_ns, 0), e.name, e.ts_ns, e.pid, e.tid, e.version, "
                         "e.count, e.depth, e.type, e.reason "
                         "FROM gc_lifecycle e LEFT JOIN traces t ON t.id = e.trace_id WHERE (?1 < 0 OR e.pid = ?1) "
                         "AND " GCS_IN_INPUT("e.trace_id") " "
                         "ORDER BY e.trace_id, e.ts_ns, e.id",
                         -1, &st, NULL) != SQLITE_OK) {
    if (strstr(sqlite3_errmsg(db), "no such table"))
      fprintf(stderr, "gcscope %s: no gc_lifecycle table (an older gcscope's database): import again\n", CMD);
    else
      fprintf(stderr, "gcscope %s: database: %s\n", CMD, sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_int64(st, 1, pid);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t tr = sqlite3_column_int64(st, 0);
    if (*n == 0 || (*out)[*n - 1].trace_id != tr) {
      struct trace_trig *nt = realloc(*out, (*n + 1) * sizeof *nt);
      if (!nt) break;
      *out = nt;
      nt[*n] = (struct trace_trig){tr, sqlite3_column_int64(st, 1), ins_trig_new(thr, rules, nrules)};
      if (!nt[(*n)++].t) break;
    }
    struct gcs_event ev;
    if (row_event(st, &ev) == 0 && ins_trig_feed((*out)[*n - 1].t, &ev) != 0) break;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    fprintf(stderr, "gcscope %s: %s\n", CMD, rc == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(db));
    return -1;
  }
  for (size_t i = 0; i < *n; i++) ins_trig_finish((*out)[i].t);
  return 0;
}

/* The bit of the rule a --KIND-over flag made (0: none). */
static uint64_t flag_rule_bit(const struct ins_trig *it, enum gcs_trigger_kind k) {
  const struct gcs_triggers *m = ins_trig_rules(it);
  for (int i = 0; i < gcs_triggers_nrules(m); i++) {
    const struct gcs_rule *r = gcs_triggers_rule(m, i);
    if (r->form == GCS_RULE_BUILTIN && r->kind == k && !strcmp(r->name, gcs_trigger_name(k))) return UINT64_C(1) << i;
  }
  return 0;
}

/* The firings of the --rules rules (with their limits, offline: nothing
 * re-arms), rule by rule in file order. */
static void print_rules(const struct ins_trig *it, int64_t start_ns, int64_t trace_id, enum rpt_format fmt) {
  const struct gcs_triggers *m = ins_trig_rules(it);
  if (fmt == RPT_TEXT) printf("  Rules\n");
  if (fmt == RPT_JSON) printf(", \"rules\": [");
  int shown_rule = 0;
  for (int i = 0; i < gcs_triggers_nrules(m); i++) {
    const struct gcs_rule *r = gcs_triggers_rule(m, i);
    if (r->form == GCS_RULE_BUILTIN && !strcmp(r->name, gcs_trigger_name(r->kind))) continue; /* a flag's */
    char desc[300];
    gcs_rule_describe(r, desc, sizeof desc);
    size_t fired = 0;
    for (int k = 0; k <= GCS_TRIGGER_WINDOW; k++) {
      size_t n;
      const struct gcs_trigger_pair *p = ins_trig_pairs(it, (enum gcs_trigger_kind)k, &n);
      for (size_t j = 0; j < n; j++) fired += (p[j].rules_fired >> i) & 1;
    }
    if (fmt == RPT_TEXT) {   /* a description too long for 80 columns wraps, the count under it */
      char line[400];
      int n = snprintf(line, sizeof line, "%s: %zu firing%s", desc, fired, fired == 1 ? "" : "s");
      if (n >= 0 && 4 + n <= GCS_TEXT_WIDTH) printf("    %s\n", line);
      else {
        snprintf(line, sizeof line, "%s:", desc);
        gcs_cli_paragraph(stdout, "    ", line, 6);
        printf("      %zu firing%s\n", fired, fired == 1 ? "" : "s");
      }
    }
    if (fmt == RPT_JSON) {
      printf("%s\n    {\"rule\": ", shown_rule++ ? "," : "");
      rpt_json_str(stdout, r->name);
      printf(", \"description\": ");
      rpt_json_str(stdout, desc);
      printf(", \"fired\": [");
    }
    size_t shown = 0;
    for (int k = 0; k <= GCS_TRIGGER_WINDOW; k++) {
      size_t n;
      const struct gcs_trigger_pair *p = ins_trig_pairs(it, (enum gcs_trigger_kind)k, &n);
      for (size_t j = 0; j < n; j++) {
        if (!((p[j].rules_fired >> i) & 1)) continue;
        double at = (double)((int64_t)p[j].begin_ns - start_ns) / 1e6;
        int window = p[j].kind == GCS_TRIGGER_WINDOW;
        if (fmt == RPT_TEXT) {
          if (window)
            printf("      pid %d GC #%u at %.3f ms: %.1f %% paused over the window\n", p[j].pid, p[j].gc_index,
                   (double)((int64_t)p[j].end_ns - start_ns) / 1e6, p[j].value);
          else
            printf("      pid %d tid %d GC #%u at %.3f ms: %.3f ms\n", p[j].pid, p[j].tid, p[j].gc_index, at, p[j].ms);
        } else if (fmt == RPT_CSV) {
          printf("%" PRId64 ",", trace_id);
          rpt_csv_str(stdout, r->name);
          printf(",%.3f,%d,%d,%u,%.3f,%.3f\n", window ? r->above_pct : r->over_ms,
                 p[j].pid, p[j].tid, p[j].gc_index, at, window ? p[j].value : p[j].ms);
        } else {
          printf("%s{\"pid\": %d, \"tid\": %d, \"gc_index\": %u, \"start_ms\": %.3f, \"%s\": %.3f}",
                 shown ? ", " : "", p[j].pid, p[j].tid, p[j].gc_index, at, window ? "pct_paused" : "duration_ms",
                 window ? p[j].value : p[j].ms);
        }
        shown++;
      }
    }
    if (fmt == RPT_JSON) printf("]}");
  }
  if (fmt == RPT_JSON) printf("]");
}

int gcs_cmd_triggers(int argc, char **argv) {
  const char *input = NULL;
  struct gcs_trigger_thresholds thr = {0};   /* none on */
  long pid = -1, trace = -1;
  enum rpt_format fmt = RPT_TEXT;
  const char *db_path = NULL;
  struct gcs_rule *rules = NULL;
  int nrules = 0;
  struct gcs_cli p;
  gcs_cli_init(&p, &triggers_spec, argc, argv);
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&triggers_spec, stdout); return 0; }
    if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
    switch (k) {
    case O_GC_OVER: case O_SUSPEND_OVER: case O_BGC_FINAL_OVER: thr.on[k] = true; thr.ms[k] = p.dval; break;
    case O_TRACE: trace = (long)p.ival; break;
    case O_PID: pid = (long)p.ival; break;
    case O_DB: db_path = p.value; break;
    case O_RULES: {
      char rerr[600];
      free(rules);
      if (gcs_rules_load(p.value, &rules, &nrules, rerr, sizeof rerr)) return gcs_cli_fail("--rules %s", rerr);
      break;
    }
    case O_FORMAT: {
      char ferr[160];
      int f = rpt_format_parse(p.value, RPT_F(RPT_TEXT) | RPT_F(RPT_CSV) | RPT_F(RPT_JSON), ferr, sizeof ferr);
      if (f < 0) {
        free(rules);
        return gcs_cli_fail("%s", ferr);
      }
      fmt = (enum rpt_format)f;
      break;
    }
    }
  }
  if (p.optind < argc) input = argv[p.optind];
  if (p.optind + 1 < argc) {
    free(rules);
    return gcs_cli_fail("one DB or TRACE only ('%s')", argv[p.optind + 1]);
  }
  if (!input) {
    free(rules);
    gcs_cli_usage(&triggers_spec, stderr);
    return GCS_CLI_USAGE_STATUS;
  }
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = trace, .db_path = db_path};
  if (gcs_input_open_report(CMD, input, &io, &in)) {
    free(rules);
    return 1;
  }

  sqlite3 *db = in.db;
  struct trace_trig *tt = NULL;
  size_t nt = 0;
  int rc = load(db, pid, &thr, rules, nrules, &tt, &nt) == 0 ? 0 : 1;
  gcs_input_close(&in);
  if (rc == 0 && nt == 0) {
    fprintf(stderr, "gcscope %s: no GC suspension/start/end events in %s\n", CMD, input);
    rc = 1;
  }
  if (rc == 0) {
    if (fmt == RPT_CSV) printf("trace_id,trigger,threshold_ms,pid,tid,gc_index,start_ms,duration_ms\n");
    if (fmt == RPT_JSON) printf("{\"traces\": [");
    for (size_t t = 0; t < nt; t++) {
      if (fmt == RPT_TEXT) {
        char head[40];
        snprintf(head, sizeof head, "Trace %" PRId64, tt[t].trace_id);
        printf("%-24s %6s %9s %9s %9s %9s\n", head, "pairs", "P50 ms", "P90 ms", "P99 ms", "Max ms");
      }
      if (fmt == RPT_JSON) printf("%s\n  {\"trace_id\": %" PRId64 ", \"triggers\": [", t ? "," : "", tt[t].trace_id);
      for (int k = 0; k < INS_TRIG_N; k++) {
        size_t n;
        const struct gcs_trigger_pair *p = ins_trig_pairs(tt[t].t, (enum gcs_trigger_kind)k, &n);
        uint64_t flag_bit = flag_rule_bit(tt[t].t, (enum gcs_trigger_kind)k);
        double *d = malloc((n ? n : 1) * sizeof *d);
        if (!d) { rc = 1; break; }
        size_t fired = 0;
        for (size_t i = 0; i < n; i++) {
          d[i] = p[i].ms;
          fired += (p[i].rules_fired & flag_bit) != 0;
        }
        ins_sort_doubles(d, n);
        double q[4] = {ins_percentile_sorted(d, n, 50), ins_percentile_sorted(d, n, 90),
                       ins_percentile_sorted(d, n, 99), ins_percentile_sorted(d, n, 100)};
        free(d);
        if (fmt == RPT_TEXT) {
          /* within 80 columns: the name, pairs, 4 percentiles (10 wide),
           * then the threshold's count on a line of its own */
          printf("  %-22s %6zu", gcs_trigger_name((enum gcs_trigger_kind)k), n);
          for (int j = 0; j < 4; j++) {
            char v[RPT_FMT_MAX + 8];
            if (isnan(q[j]) || isinf(q[j])) snprintf(v, sizeof v, "%s", RPT_NO_VALUE);
            else snprintf(v, sizeof v, "%.3f", q[j]);
            printf(" %9s", v);
          }
          printf("\n");
          if (thr.on[k]) printf("    over %.3f ms: %zu\n", thr.ms[k], fired);
        } else if (fmt == RPT_JSON) {
          printf("%s\n    {\"trigger\": \"%s\", \"pairs\": %zu, \"p50_ms\": ", k ? "," : "",
                 gcs_trigger_name((enum gcs_trigger_kind)k), n);
          rpt_num3(stdout, fmt, q[0]);
          printf(", \"p90_ms\": ");
          rpt_num3(stdout, fmt, q[1]);
          printf(", \"p99_ms\": ");
          rpt_num3(stdout, fmt, q[2]);
          printf(", \"max_ms\": ");
          rpt_num3(stdout, fmt, q[3]);
          printf(", \"threshold_ms\": ");
          rpt_num3(stdout, fmt, thr.on[k] ? thr.ms[k] : NAN);   /* off: null */
          printf(", \"fired\": [");
        }
        size_t shown = 0;
        for (size_t i = 0; i < n && thr.on[k]; i++) {
          if (!(p[i].rules_fired & flag_bit)) continue;
          double start = (double)((int64_t)p[i].begin_ns - tt[t].start_ns) / 1e6;
          if (fmt == RPT_TEXT)
            printf("    pid %d tid %d GC #%u at %.3f ms: %.3f ms\n", p[i].pid, p[i].tid, p[i].gc_index, start, p[i].ms);
          else if (fmt == RPT_CSV)
            printf("%" PRId64 ",%s,%.3f,%d,%d,%u,%.3f,%.3f\n", tt[t].trace_id, gcs_trigger_name((enum gcs_trigger_kind)k),
                   thr.ms[k], p[i].pid,
                   p[i].tid, p[i].gc_index, start, p[i].ms);
          else
            printf("%s{\"pid\": %d, \"tid\": %d, \"gc_index\": %u, \"start_ms\": %.3f, \"duration_ms\": %.3f}",
                   shown ? ", " : "", p[i].pid, p[i].tid, p[i].gc_index, start, p[i].ms);
          shown++;
        }
        if (fmt == RPT_JSON) printf("]}");
      }
      if (fmt == RPT_JSON) printf("]");
      if (nrules) print_rules(tt[t].t, tt[t].start_ns, tt[t].trace_id, fmt);
      if (fmt == RPT_JSON) printf("}");
    }
    if (fmt == RPT_JSON) printf("\n]}\n");
  }
  for (size_t t = 0; t < nt; t++) ins_trig_free(tt[t].t);
  free(tt);
  free(rules);
  return rc;
}
