/* stats_cmd.c — `gcscope stats DB|TRACE [--trace ID] [--pid PID] [--format text|html|csv|json] [--wide]`:
 * PerfView's GCStats from a gcscope database; a trace is imported into
 * ./gcscope.db first and the report covers that trace only (gcs_gcdb.h). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcs_cli.h"
#include "gcs_gcdb.h"
#include "gcs_report.h"
#include "gcs_output.h"
#include "stats_model.h"

enum { O_TRACE, O_PID, O_FORMAT, O_WIDE, O_GCS, O_SECTION, O_NO_PAGER, O_DB };

static const struct gcs_cli_opt stats_opts[] = {
  [O_TRACE] = GCS_OPT_TRACE,
  [O_PID] = GCS_OPT_PID,
  [O_FORMAT] = GCS_OPT_FORMAT("text (default), html, csv or json"),
  [O_WIDE] = { "wide", 'w', GCS_CLI_FLAG, 0, 0, NULL, "text: every column of the GC tables" },
  [O_GCS] = { "gcs", 0, GCS_CLI_STRING, 0, 0, "all|N|longest",
              "text: which GCs to list: the 20 (or N) with the longest pauses (default), or all of them" },
  [O_SECTION] = { "section", 0, GCS_CLI_STRING, 0, 0, "NAME[,NAME]",
                  "text: only these sections: summary, pauses, phases, balance, datas, histogram, rollup,\n"
                  "long, loh, gen2, bgc, gcs, condemned, firings (default all)" },
  [O_NO_PAGER] = { "no-pager", 0, GCS_CLI_FLAG, 0, 0, NULL, "text on a terminal: do not page through $PAGER" },
  [O_DB] = GCS_OPT_DB,
  { 0 },
};

static const struct gcs_cli_spec stats_spec = {
  .cmd = "stats",
  .usage = "DB|TRACE [--trace ID] [--pid PID] [--format text|html|csv|json] [--wide] [--gcs all|N|longest] [--section NAME[,NAME]] [--no-pager] [-d DB]",
  .about = "PerfView's GCStats per process. A TRACE is imported into the database first (once) and the\n"
           "report covers that trace's processes; a DB argument reports every trace in it.",
  .opts = stats_opts,
};

static gcs_report_findings_fn findings_fn;
void gcs_report_set_findings(gcs_report_findings_fn fn) { findings_fn = fn; }
gcs_report_findings_fn st_findings_fn(void) { return findings_fn; }

int gcs_cmd_stats(int argc, char **argv) {
  const char *path = NULL, *format = "text", *dbpath = NULL;
  int pid = -1, wide = 0, no_pager = 0, gcs = ST_GCS_DEFAULT, fmt = RPT_TEXT;
  unsigned sections = 0;
  long long trace = -1;
  struct gcs_cli p;
  gcs_cli_init(&p, &stats_spec, argc, argv);
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&stats_spec, stdout); return 0; }
    if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
    if (k == O_TRACE) trace = p.ival;
    else if (k == O_PID) pid = (int)p.ival;
    else if (k == O_FORMAT) {
      char e[160];
      format = p.value;
      fmt = rpt_format_parse(p.value, RPT_F(RPT_TEXT) | RPT_F(RPT_HTML) | RPT_F(RPT_CSV) | RPT_F(RPT_JSON), e, sizeof e);
      if (fmt < 0) return gcs_cli_fail("%s", e);
    }
    else if (k == O_WIDE) wide = 1;
    else if (k == O_DB) dbpath = p.value;
    else if (k == O_NO_PAGER) no_pager = 1;
    else if (k == O_SECTION) {
      char e[400];
      if (st_sections_parse(p.value, &sections, e, sizeof e)) return gcs_cli_fail("%s", e);
    }
    else if (k == O_GCS) {
      double n;
      char e[200];
      if (strcmp(p.value, "all") == 0) gcs = ST_GCS_ALL;
      else if (strcmp(p.value, "longest") == 0) gcs = ST_GCS_DEFAULT;
      else if (gcs_cli_number("--gcs", p.value, 1, 1, 1e9, &n, e, sizeof e) == 0) gcs = (int)n;
      else return gcs_cli_fail("--gcs: all, longest or a number of GCs, not '%s'", p.value);
    }
  }
  if (sections && fmt != RPT_TEXT)
    return gcs_cli_fail("--section selects sections of the text report, not of %s", format);
  if (p.optind < argc) path = argv[p.optind];
  if (p.optind + 1 < argc) return gcs_cli_fail("more than one input given ('%s')", argv[p.optind + 1]);
  if (!path) {
    gcs_cli_usage(&stats_spec, stderr);
    return GCS_CLI_USAGE_STATUS;
  }
  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = trace, .db_path = dbpath};
  if (gcs_input_open(path, &io, &in, err, sizeof err)) {
    fprintf(stderr, "gcscope stats: %s\n", err);
    return 1;
  }
  sqlite3 *db = in.db;
  int rc = 0;
  if (fmt == RPT_CSV) {
    struct st_model m;
    if (st_load(db, pid, ST_LOAD_PROCS, &m, err, sizeof err) == 0) {
      st_warnings(stderr, &m, "gcscope stats: ");
      st_free(&m);
    }
    if (st_write_csv(stdout, db, pid)) {
      fprintf(stderr, "gcscope stats: %s\n", sqlite3_errmsg(db));
      rc = 1;
    }
  } else {
    struct st_model m;
    int what = fmt == RPT_TEXT && !wide ? ST_LOAD_TEXT : ST_LOAD_ALL;
    /* html: the advisor's findings on a second connection and thread while this one loads. */
    struct st_findings_early *early = fmt == RPT_HTML ? st_findings_start(db, pid) : NULL;
    if (st_load(db, pid, what, &m, err, sizeof err)) {
      fprintf(stderr, "gcscope stats: %s\n", err);
      rc = 1;
    } else {
      if (pid >= 0 && m.nprocs == 0) {
        fprintf(stderr, "gcscope stats: no process %d with GC events in %s\n", pid, path);
        rc = 1;
      } else if (fmt == RPT_TEXT) {
        int tty = isatty(STDOUT_FILENO);
        FILE *pager = tty && !no_pager ? rpt_pager_open() : NULL;
        const struct st_text_opts to = {.wide = wide, .color = tty, .gcs = gcs, .sections = sections};
        st_write_text(pager ? pager : stdout, &m, &to);
        if (pager) rpt_pager_close(pager);
      } else if (fmt == RPT_HTML) {
        st_write_html(stdout, &m, db, early);
      } else {
        st_warnings(stderr, &m, "gcscope stats: ");
        st_write_json(stdout, &m);
      }
      st_free(&m);
    }
    st_findings_free(early);
  }
  gcs_input_close(&in);
  if (fflush(stdout) != 0) rc = 1;
  return rc;
}
