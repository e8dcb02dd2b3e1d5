/* stats_cmd.c — `gcscope stats DB|TRACE [--trace ID] [--pid PID] [--format text|html|csv|json] [--wide]`:
 * PerfView's GCStats from a gcscope database; a trace is imported into
 * ./gcscope.db first and the report covers that trace only (gcs_gcdb.h). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcs_gcdb.h"
#include "gcs_report.h"
#include "rpt_util.h"
#include "stats_model.h"

static int usage(void) {
  fprintf(stderr, "usage: gcscope stats DB|TRACE [--trace ID] [--pid PID] [--format text|html|csv|json] [--wide]\n");
  return 2;
}

int gcs_cmd_stats(int argc, char **argv) {
  const char *path = NULL, *format = "text";
  int pid = -1, wide = 0;
  long long trace = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--pid") == 0 && i + 1 < argc) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 0) {
        fprintf(stderr, "gcscope stats: bad --pid '%s'\n", argv[i]);
        return 2;
      }
      pid = (int)v;
    } else if (strcmp(a, "--trace") == 0 && i + 1 < argc) {
      char *end;
      trace = strtoll(argv[++i], &end, 10);
      if (*end || trace < 0) {
        fprintf(stderr, "gcscope stats: bad --trace '%s'\n", argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--format") == 0 && i + 1 < argc) {
      format = argv[++i];
    } else if (strncmp(a, "--format=", 9) == 0) {
      format = a + 9;
    } else if (strcmp(a, "--wide") == 0) {
      wide = 1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage();
      return 0;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "gcscope stats: unknown option '%s'\n", a);
      return 2;
    } else if (!path) {
      path = a;
    } else {
      fprintf(stderr, "gcscope stats: more than one input given ('%s')\n", a);
      return 2;
    }
  }
  if (!path) return usage();
  if (strcmp(format, "text") && strcmp(format, "html") && strcmp(format, "csv") && strcmp(format, "json")) {
    fprintf(stderr, "gcscope stats: bad --format '%s' (text, html, csv or json)\n", format);
    return 2;
  }
  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = trace};
  if (gcs_input_open(path, &io, &in, err, sizeof err)) {
    fprintf(stderr, "gcscope stats: %s\n", err);
    return 1;
  }
  sqlite3 *db = in.db;
  int rc = 0;
  if (strcmp(format, "csv") == 0) {
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
    int what = strcmp(format, "text") == 0 && !wide ? ST_LOAD_TEXT : ST_LOAD_ALL;
    if (st_load(db, pid, what, &m, err, sizeof err)) {
      fprintf(stderr, "gcscope stats: %s\n", err);
      rc = 1;
    } else {
      if (pid >= 0 && m.nprocs == 0) {
        fprintf(stderr, "gcscope stats: no process %d with GC events in %s\n", pid, path);
        rc = 1;
      } else if (strcmp(format, "text") == 0) {
        st_write_text(stdout, &m, wide, isatty(STDOUT_FILENO));
      } else if (strcmp(format, "html") == 0) {
        st_write_html(stdout, &m);
      } else {
        st_warnings(stderr, &m, "gcscope stats: ");
        st_write_json(stdout, &m);
      }
      st_free(&m);
    }
  }
  gcs_input_close(&in);
  if (fflush(stdout) != 0) rc = 1;
  return rc;
}
