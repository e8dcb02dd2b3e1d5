/*
 * advise_cmd.c — `gcscope advise DB|TRACE`: per process, the advisor's
 * findings (ins_advise.h), then GC overhead over time: the worst window's
 * % paused and the MMU curve (ins_overhead.h).
 */
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_cli.h"
#include "gcs_text.h"
#include "gcs_gcdb.h"
#include "gcs_insight.h"
#include "gcs_stacks.h"
#include "ins_advise.h"
#include "ins_db.h"
#include "gcs_output.h"
#include "ins_overhead.h"

#define CMD "advise"

enum { O_TRACE, O_PID, O_WINDOW, O_PAUSE_PCT, O_SUSPEND_MS, O_GEN2_FRAG, O_FORMAT, O_FAIL_ON, O_DB };

static const struct gcs_cli_opt advise_opts_table[] = {
  [O_TRACE] = GCS_OPT_TRACE,
  [O_PID] = GCS_OPT_PID,
  [O_WINDOW] = { "window", 0, GCS_CLI_DOUBLE, 0.001, 1e9, "SEC", "the window of the worst-window % paused (default 60)" },
  [O_PAUSE_PCT] = { "pause-pct", 0, GCS_CLI_DOUBLE, 0, 100, "P", "pause-time finding above P % (see docs/insight.md)" },
  [O_SUSPEND_MS] = { "suspend-ms", 0, GCS_CLI_DOUBLE, 0, 1e9, "MS", "long-suspension finding above MS" },
  [O_GEN2_FRAG] = { "gen2-frag-pct", 0, GCS_CLI_DOUBLE, 0, 100, "P", "gen2 fragmentation finding above P %" },
  [O_FORMAT] = GCS_OPT_FORMAT("text (default) or json"),
  [O_FAIL_ON] = { "fail-on", 0, GCS_CLI_STRING, 0, 0, "SEV", "exit 1 if a finding is SEV (warning or critical) or worse" },
  [O_DB] = GCS_OPT_DB,
  { 0 },
};

static const struct gcs_cli_spec advise_spec = {
  .cmd = CMD,
  .usage = "DB|TRACE [--trace ID] [--pid PID] [--window SEC] [--pause-pct P] [--suspend-ms MS] "
           "[--gen2-frag-pct P] [--format text|json] [--fail-on warning|critical] [-d DB]",
  .opts = advise_opts_table,
};

struct overhead {
  int have;
  struct ins_window worst;
  double mmu[INS_MMU_N];
};

/* Run span: the process's first..last event, widened to cover every pause.
 * with_mmu 0: the worst window only (o->mmu left 0). */
static int overhead_for(const struct ins_proc_key *k, const struct ins_pause *p, size_t n, int64_t window_ns,
                        int with_mmu, struct overhead *o) {
  memset(o, 0, sizeof *o);
  if (n == 0) return 0;
  int64_t t0 = k->first_ns, t1 = k->last_ns;
  for (size_t i = 0; i < n; i++) {
    if (t0 == 0 || p[i].start_ns < t0) t0 = p[i].start_ns;
    if (p[i].end_ns > t1) t1 = p[i].end_ns;
  }
  struct ins_timeline tl;
  if (ins_timeline_build(&tl, p, n) != 0) return -1;
  struct ins_window *w = NULL;
  size_t nw = 0;
  int rc = ins_overhead_windows(&tl, t0, t1, window_ns, &w, &nw, &o->worst);
  free(w);
  if (rc == 0) {
    o->have = 1;
    o->worst.start_ns -= k->trace_start_ns;
    o->worst.end_ns -= k->trace_start_ns;
    for (int i = 0; with_mmu && i < INS_MMU_N; i++) o->mmu[i] = ins_mmu(&tl, t0, t1, ins_mmu_windows_ns[i]);
  }
  ins_timeline_free(&tl);
  return 0;
}

static const char *win_name(int i) {
  static const char *const n[INS_MMU_N] = {"1ms", "2ms", "5ms", "10ms", "20ms", "50ms", "100ms",
                                           "200ms", "500ms", "1s", "2s", "5s", "10s"};
  return n[i];
}

/* Incomplete GCs are left out of the rules: how many, and the commonest reason
 * they give. all = 1 when no GC of the process is complete (it cannot be judged). */
struct unjudged {
  long incomplete, complete;
  int all;
  char why[200];
};

/* complete / incomplete: the process's GC counts (ins_db_gcs_pauses); the
 * commonest reason is read only when some GC is incomplete. */
static int unjudged(sqlite3 *db, const struct ins_proc_key *k, long complete, long incomplete, struct unjudged *u) {
  u->incomplete = incomplete;
  u->complete = complete;
  u->all = incomplete > 0 && complete == 0;
  snprintf(u->why, sizeof u->why, "reason unknown");
  if (incomplete == 0) return 0;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT incomplete_why FROM gcs WHERE trace_id = ?1 AND pid = ?2 AND complete = 0 "
                         "GROUP BY incomplete_why ORDER BY count(*) DESC, incomplete_why LIMIT 1",
                         -1, &st, NULL) != SQLITE_OK) {
    u->incomplete = u->complete = u->all = 0;
    u->why[0] = 0;
    return -1;
  }
  sqlite3_bind_int64(st, 1, k->trace_id);
  sqlite3_bind_int(st, 2, k->pid);
  if (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char *w = sqlite3_column_text(st, 0);
    if (w) snprintf(u->why, sizeof u->why, "%s", (const char *)w);
  }
  sqlite3_finalize(st);
  return 0;
}

static void print_text(const struct ins_proc_key *k, const struct ins_proc_summary *ps, const struct ins_advice *a,
                       const struct overhead *ov, double window_s, const struct unjudged *u) {
  /* "Process P (name) (trace T), Server GC, N heaps: counts", the counts on
   * a line of their own when the whole passes 80 columns */
  char head[256], counts[128], name[sizeof k->name];
  int hl = snprintf(head, sizeof head, "Process %d%s%s%s (trace %" PRId64 ")", k->pid, k->name[0] ? " (" : "",
                    rpt_printable(name, sizeof name, k->name), k->name[0] ? ")" : "", k->trace_id);
  if (hl > 0 && (size_t)hl < sizeof head && ps->server_gc == 1)
    hl += snprintf(head + hl, sizeof head - (size_t)hl, ", Server GC");
  if (hl > 0 && (size_t)hl < sizeof head && ps->heap_count > 0)
    snprintf(head + hl, sizeof head - (size_t)hl, ", %d heap%s", ps->heap_count, ps->heap_count == 1 ? "" : "s");
  size_t by[3] = {0, 0, 0}, cl = 0;
  for (size_t i = 0; i < a->n; i++) by[a->f[i].severity]++;
  counts[0] = 0;
  for (int s = INS_SEV_CRITICAL; s >= INS_SEV_INFO; s--)
    if (by[s] && cl < sizeof counts)
      cl += (size_t)snprintf(counts + cl, sizeof counts - cl, "%s%zu %s%s", cl ? ", " : "", by[s],
                             ins_severity_name((enum ins_severity)s), s == INS_SEV_WARNING && by[s] > 1 ? "s" : "");
  if (!counts[0]) printf("%s\n", head);
  else if (strlen(head) + 2 + strlen(counts) <= GCS_TEXT_WIDTH) printf("%s: %s\n", head, counts);
  else printf("%s:\n  %s\n", head, counts);
  char msg[512];
  if (u->all) {
    snprintf(msg, sizeof msg, "%ld GC%s, all incomplete because %s", u->incomplete, u->incomplete == 1 ? "" : "s",
             u->why);
    gcs_cli_paragraph(stdout, "  Cannot judge: ", msg, 4);
  }
  if (!u->all && u->incomplete) {
    snprintf(msg, sizeof msg, "%ld of %ld GCs incomplete and left out (commonest reason: %s)", u->incomplete,
             u->incomplete + u->complete, u->why);
    gcs_cli_paragraph(stdout, "  Note: ", msg, 4);
  }
  if (!u->all && a->n == 0) printf("  No findings: none of the rules applies.\n");
  for (size_t i = 0; i < a->n; i++) {
    const struct ins_finding *f = &a->f[i];
    char head[64];
    snprintf(head, sizeof head, "  %-8s [%s] ", ins_severity_name(f->severity), f->rule);
    gcs_cli_paragraph(stdout, head, f->title, 4);
    gcs_cli_paragraph(stdout, "    Evidence: ", f->evidence, 6);
    gcs_cli_paragraph(stdout, "    Next: ", f->next, 6);
  }
  if (ov->have) {
    char line[256];
    double len_ms = (double)(ov->worst.end_ns - ov->worst.start_ns) / 1e6;
    if (len_ms < window_s * 1000)   /* traced for less than the window: all of it */
      snprintf(line, sizeof line, "worst %.0f s window %.3f %% paused (%.3f ms of all %.3f ms traced)", window_s,
               ov->worst.paused_pct, (double)ov->worst.paused_ns / 1e6, len_ms);
    else
      snprintf(line, sizeof line, "worst %.0f s window %.3f %% paused (%.3f ms, from %.3f ms)", window_s,
               ov->worst.paused_pct, (double)ov->worst.paused_ns / 1e6, (double)ov->worst.start_ns / 1e6);
    gcs_cli_paragraph(stdout, "  GC overhead over time: ", line, 4);
    /* MMU pairs ("1ms 0.000") never split across lines */
    int col = printf("  MMU:");
    for (int i = 0; i < INS_MMU_N; i++) {
      if (isnan(ov->mmu[i])) continue;
      char pair[48];
      int k = snprintf(pair, sizeof pair, " %s %.3f", win_name(i), ov->mmu[i]);
      if (col + k > GCS_TEXT_WIDTH) col = printf("\n      ");
      col += printf("%s", pair);
    }
    printf("\n");
  }
  printf("\n");
}

static void print_json(const struct ins_proc_key *k, const struct ins_proc_summary *ps, const struct ins_advice *a,
                       const struct overhead *ov, double window_s, int first, const struct unjudged *u) {
  printf("%s\n  {\"trace_id\": %" PRId64 ", \"pid\": %d, \"process\": ", first ? "" : ",", k->trace_id, k->pid);
  rpt_json_str(stdout, k->name);
  printf(", \"server_gc\": %s, \"heap_count\": ", ps->server_gc == 1 ? "true" : ps->server_gc == 0 ? "false" : "null");
  if (ps->heap_count > 0) printf("%d", ps->heap_count);
  else printf("null");
  printf(", \"worst_severity\": ");
  if (ins_advice_worst(a) >= 0) printf("\"%s\"", ins_severity_name((enum ins_severity)ins_advice_worst(a)));
  else printf("null");
  if (u->all) {
    printf(", \"cannot_judge\": {\"incomplete_gcs\": %ld, \"why\": ", u->incomplete);
    rpt_json_str(stdout, u->why);
    printf("}");
  }
  printf(", \"complete_gcs\": %ld, \"incomplete_gcs\": %ld", u->complete, u->incomplete);
  printf(", \"findings\": [");
  for (size_t i = 0; i < a->n; i++) {
    const struct ins_finding *f = &a->f[i];
    printf("%s\n    {\"rule\": \"%s\", \"severity\": \"%s\", \"title\": ", i ? "," : "", f->rule,
           ins_severity_name(f->severity));
    rpt_json_str(stdout, f->title);
    printf(", \"metrics\": {");
    for (size_t j = 0; j < f->n_metrics; j++) {
      printf("%s\"%s\": ", j ? ", " : "", f->metrics[j].name);
      rpt_num3(stdout, RPT_JSON, f->metrics[j].value);
    }
    printf("}, \"evidence\": ");
    rpt_json_str(stdout, f->evidence);
    printf(", \"next\": ");
    rpt_json_str(stdout, f->next);
    printf(", \"gc_count\": %zu, \"gcs\": [", f->n_gcs_total);
    for (size_t j = 0; j < f->n_gcs; j++) printf("%s%u", j ? ", " : "", f->gcs[j]);
    printf("]}");
  }
  printf("]");
  if (ov->have) {
    printf(", \"overhead\": {\"window_s\": %.3f, \"worst_window_pct\": ", window_s);
    rpt_num3(stdout, RPT_JSON, ov->worst.paused_pct);
    printf(", \"worst_window_start_ms\": ");
    rpt_num3(stdout, RPT_JSON, (double)ov->worst.start_ns / 1e6);
    printf(", \"mmu\": [");
    for (int i = 0; i < INS_MMU_N; i++) {
      printf("%s{\"window_ms\": %.3f, \"mmu\": ", i ? ", " : "", (double)ins_mmu_windows_ns[i] / 1e6);
      rpt_num3(stdout, RPT_JSON, ov->mmu[i]);
      printf("}");
    }
    printf("]}");
  }
  printf("}");
}

/* With stacks in the trace, the findings about allocations, induced GCs and
 * pins name the code behind them (gcscope stacks). */
static void name_stacks(sqlite3 *db, const struct ins_proc_key *pk, struct ins_advice *a) {
  for (size_t j = 0; j < a->n; j++) {
    struct ins_finding *f = &a->f[j];
    int kind = !strcmp(f->rule, "induced") ? GCS_STACKS_HINT_INDUCED
               : !strcmp(f->rule, "gen0-frag-pinning") ? GCS_STACKS_HINT_PINS
               : !strcmp(f->rule, "gen0-churn") || !strcmp(f->rule, "loh-churn") ? GCS_STACKS_HINT_ALLOC : -1;
    char hint[sizeof f->next], raw[sizeof f->next];
    if (kind < 0 || gcs_stacks_hint(db, pk->trace_id, pk->pid, (enum gcs_stacks_hint_kind)kind, raw, sizeof raw) != 1)
      continue;
    /* The sentence names frames from the trace: bytes the traced program
     * chose (an escape sequence in a method name reached the terminal). */
    gcs_text_printable(raw, strlen(raw), hint, sizeof hint);
    if (kind == GCS_STACKS_HINT_INDUCED) {  /* the stacks answer "find who calls GC.Collect" */
      static const char tail[] = " Remove the call unless it is measured to help.";
      size_t h = strlen(hint);
      if (h + sizeof tail > sizeof f->next) h = sizeof f->next - sizeof tail;
      memcpy(f->next, hint, h);
      memcpy(f->next + h, tail, sizeof tail);
      continue;
    }
    /* The sentence goes whole after what to look at next, else after the evidence. */
    size_t len = strlen(f->next), hl = strlen(hint), el = strlen(f->evidence);
    if (len + 1 + hl < sizeof f->next) snprintf(f->next + len, sizeof f->next - len, "%s%s", len ? " " : "", hint);
    else if (el + 2 + hl < sizeof f->evidence) snprintf(f->evidence + el, sizeof f->evidence - el, "; %s", hint);
  }
}

int gcs_cmd_advise(int argc, char **argv) {
  const char *input = NULL;
  long pid = -1, trace = -1;
  double window_s = 60;
  enum rpt_format fmt = RPT_TEXT;
  int fail_on = -1, worst = -1;
  size_t failing = 0;
  struct ins_advise_opts ao;
  ins_advise_default_opts(&ao);
  const char *db_path = NULL;
  struct gcs_cli p;
  gcs_cli_init(&p, &advise_spec, argc, argv);
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&advise_spec, stdout); return 0; }
    if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
    switch (k) {
    case O_TRACE: trace = (long)p.ival; break;
    case O_PID: pid = (long)p.ival; break;
    case O_WINDOW: window_s = p.dval; break;
    case O_PAUSE_PCT: ao.pause_pct = p.dval; break;
    case O_SUSPEND_MS: ao.suspend_ms = p.dval; break;
    case O_GEN2_FRAG: ao.gen2_frag_pct = p.dval; break;
    case O_DB: db_path = p.value; break;
    case O_FAIL_ON:
      fail_on = ins_parse_severity(p.value);
      if (fail_on != INS_SEV_WARNING && fail_on != INS_SEV_CRITICAL)
        return gcs_cli_fail("--fail-on: warning or critical, not '%s'", p.value);
      break;
    case O_FORMAT: {
      char ferr[160];
      int f = rpt_format_parse(p.value, RPT_F(RPT_TEXT) | RPT_F(RPT_JSON), ferr, sizeof ferr);
      if (f < 0) return gcs_cli_fail("%s", ferr);
      fmt = (enum rpt_format)f;
      break;
    }
    }
  }
  if (p.optind < argc) input = argv[p.optind];
  if (p.optind + 1 < argc) return gcs_cli_fail("one DB or TRACE only ('%s')", argv[p.optind + 1]);
  if (!input) {
    gcs_cli_usage(&advise_spec, stderr);
    return GCS_CLI_USAGE_STATUS;
  }
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = trace, .db_path = db_path};
  if (gcs_input_open_report(CMD, input, &io, &in)) return 1;

  sqlite3 *db = in.db;
  struct ins_proc_key *procs = NULL;
  size_t np = 0, shown = 0;
  int rc = 1;
  char dberr[300];
  if (ins_db_processes(db, 0, &procs, &np, dberr, sizeof dberr) != 0) {
    fprintf(stderr, "gcscope %s: %s\n", CMD, dberr);
    goto out;
  }
  if (fmt == RPT_JSON) printf("{\"processes\": [");
  for (size_t i = 0; i < np; i++) {
    if (pid >= 0 && procs[i].pid != pid) continue;
    struct ins_gc *g = NULL;
    struct ins_pause *p = NULL;
    size_t ng = 0, npz = 0;
    struct ins_proc_summary ps;
    struct overhead ov;
    long complete = 0, incomplete = 0;
    if (ins_db_gcs_pauses(db, &procs[i], &g, &ng, &p, &npz, &complete, &incomplete, dberr, sizeof dberr) != 0 ||
        (overhead_for(&procs[i], p, npz, (int64_t)(window_s * 1e9), 1, &ov) != 0 &&
         snprintf(dberr, sizeof dberr, "out of memory") > 0)) {
      fprintf(stderr, "gcscope %s: %s\n", CMD, dberr);
      free(g);
      free(p);
      goto out;
    }
    int have_ps = ins_db_summary(db, &procs[i], &ps) == 0;   /* without: duration 0, no pause-time rule */
    if (have_ps && ov.have) {
      ps.worst_window_pct = ov.worst.paused_pct;
      ps.worst_window_start_ms = (double)ov.worst.start_ns / 1e6;
      ps.worst_window_len_ms = (double)(ov.worst.end_ns - ov.worst.start_ns) / 1e6;
      ps.window_s = window_s;
    }
    struct ins_advice a;
    ins_advise(g, ng, &ps, &ao, &a);
    name_stacks(db, &procs[i], &a);
    if (ins_advice_worst(&a) > worst) worst = ins_advice_worst(&a);
    for (size_t j = 0; fail_on >= 0 && j < a.n; j++) failing += (int)a.f[j].severity >= fail_on;
    struct unjudged u;
    unjudged(db, &procs[i], complete, incomplete, &u);
    if (fmt == RPT_TEXT) print_text(&procs[i], &ps, &a, &ov, window_s, &u);
    else print_json(&procs[i], &ps, &a, &ov, window_s, shown == 0, &u);
    shown++;
    free(g);
    free(p);
  }
  rc = 0;
out:
  if (fmt == RPT_JSON) printf("\n]}\n");
  if (rc == 0 && shown == 0) {
    fprintf(stderr, "gcscope %s: no GCs in %s\n", CMD, input);
    rc = 1;
  }
  if (rc == 0 && fail_on >= 0 && worst >= fail_on) {
    fprintf(stderr, "gcscope %s: --fail-on %s: %zu finding%s at %s or worse\n", CMD,
            ins_severity_name((enum ins_severity)fail_on), failing, failing == 1 ? "" : "s",
            ins_severity_name((enum ins_severity)fail_on));
    rc = 1;
  }
  free(procs);
  gcs_input_close(&in);
  return rc;
}

int gcs_insight_findings_html(sqlite3 *db, long long trace_id, int pid, FILE *out) {
  struct ins_proc_key *procs = NULL;
  size_t np = 0;
  char dberr[300];
  if (ins_db_processes(db, 0, &procs, &np, dberr, sizeof dberr) != 0) return -1;
  struct ins_advise_opts ao;
  ins_advise_default_opts(&ao);
  int rc = -1;
  for (size_t i = 0; i < np; i++) {
    if (procs[i].trace_id != trace_id || procs[i].pid != pid) continue;
    struct ins_gc *g = NULL;
    struct ins_pause *p = NULL;
    size_t ng = 0, npz = 0;
    struct ins_proc_summary ps;
    struct overhead ov;
    const double window_s = 60;
    long complete = 0, incomplete = 0;
    if (ins_db_gcs_pauses(db, &procs[i], &g, &ng, &p, &npz, &complete, &incomplete, dberr, sizeof dberr) != 0 ||
        overhead_for(&procs[i], p, npz, (int64_t)(window_s * 1e9), 0, &ov) != 0) {   /* the findings print no MMU */
      free(g);
      free(p);
      break;
    }
    if (ins_db_summary(db, &procs[i], &ps) == 0 && ov.have) {
      ps.worst_window_pct = ov.worst.paused_pct;
      ps.worst_window_start_ms = (double)ov.worst.start_ns / 1e6;
      ps.worst_window_len_ms = (double)(ov.worst.end_ns - ov.worst.start_ns) / 1e6;
      ps.window_s = window_s;
    }
    struct ins_advice a;
    ins_advise(g, ng, &ps, &ao, &a);
    name_stacks(db, &procs[i], &a);
    struct unjudged u;
    unjudged(db, &procs[i], complete, incomplete, &u);
    fprintf(out, "<div class=\"findings\"><h4>Advisor findings (gcscope advise)</h4>\n");
    if (u.all) {
      fprintf(out, "<p>Cannot judge: %ld GC%s, all incomplete because ", u.incomplete, u.incomplete == 1 ? "" : "s");
      rpt_html_str(out, u.why);
      fprintf(out, "</p>\n");
    } else if (a.n == 0) {
      fprintf(out, "<p>No findings: none of the rules applies.</p>\n");
    }
    if (a.n) fprintf(out, "<ul>\n");
    for (size_t j = 0; j < a.n; j++) {
      const struct ins_finding *f = &a.f[j];
      fprintf(out, "<li class=\"sev-%s\"><b>%s</b> [", ins_severity_name(f->severity), ins_severity_name(f->severity));
      rpt_html_str(out, f->rule);
      fprintf(out, "] ");
      rpt_html_str(out, f->title);
      fprintf(out, "<br><span class=\"note\">Evidence: ");
      rpt_html_str(out, f->evidence);
      fprintf(out, "<br>Next: ");
      rpt_html_str(out, f->next);
      fprintf(out, "</span></li>\n");
    }
    if (a.n) fprintf(out, "</ul>\n");
    fprintf(out, "</div>\n");
    free(g);
    free(p);
    rc = 0;
    break;
  }
  free(procs);
  return rc;
}
