/* export_cmd.c — `gcscope export DB|TRACE [--trace ID] [--pid PID]
 * [--format perfetto|chrome-json] [-o FILE] [-d DB]`: the GC timeline of
 * each process with GCs, as a Perfetto protobuf trace (default) or Chrome
 * JSON. The input follows the reports' one policy (gcs_input_open). Output
 * goes to FILE (written beside it and renamed when complete) or stdout; the
 * binary form is refused on a terminal. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "gcs_cli.h"
#include "gcs_export.h"
#include "gcs_gcdb.h"
#include "gcs_output.h"

#define CMD "export"

enum { O_TRACE, O_PID, O_FORMAT, O_OUTPUT, O_DB };

static const struct gcs_cli_opt export_opts[] = {
  [O_TRACE] = GCS_OPT_TRACE,
  [O_PID] = GCS_OPT_PID,
  [O_FORMAT] = GCS_OPT_FORMAT("perfetto (protobuf, the default) or chrome-json (Trace Event Format)"),
  [O_OUTPUT] = { "output", 'o', GCS_CLI_STRING, 0, 0, "FILE", "write to FILE (default: stdout; perfetto is refused on a terminal)" },
  [O_DB] = GCS_OPT_DB,
  { 0 },
};

static const struct gcs_cli_spec export_spec = {
  .cmd = CMD,
  .usage = "DB|TRACE [--trace ID] [--pid PID] [--format perfetto|chrome-json] [-o FILE] [-d DB]",
  .about = "The GC timeline per process: a \"GC pauses\" track (one slice per GC, its suspension and a blocking GC's phases inside),\n"
           "background GCs with both pauses, LOH allocation waits, requests on their threads, and\n"
           "counters (heap after/peak, per generation before/after, promoted, allocation rate,\n"
           "committed memory, heap count).\n"
           "Times in ns since the trace start.\n"
           "Open it in ui.perfetto.dev (either format) or chrome://tracing (chrome-json).",
  .opts = export_opts,
};

struct proc_ref {
  int64_t trace_id, start_ns;
  int32_t pid;
};

/* The processes in scope that have GCs, in trace then pid order. */
static int list_procs(sqlite3 *db, int pid, struct proc_ref **out, size_t *n, char *err, size_t errlen) {
  sqlite3_stmt *s;
  const char *sql = "SELECT DISTINCT g.trace_id, g.pid, coalesce(t.start_ns, 0) FROM gcs g JOIN traces t ON t.id = g.trace_id "
                    "WHERE " GCS_IN_INPUT("g.trace_id") " AND (?1 < 0 OR g.pid = ?1) ORDER BY g.trace_id, g.pid";
  *out = NULL;
  *n = 0;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "%s", sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_int(s, 1, pid);
  size_t cap = 0;
  int rc = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (*n == cap) {
      cap = cap ? cap * 2 : 8;
      struct proc_ref *q = realloc(*out, cap * sizeof *q);
      if (!q) { snprintf(err, errlen, "out of memory"); rc = -1; break; }
      *out = q;
    }
    (*out)[(*n)++] = (struct proc_ref){ sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 2),
                                        (int32_t)sqlite3_column_int(s, 1) };
  }
  sqlite3_finalize(s);
  return rc;
}

static int write_all(sqlite3 *db, const struct proc_ref *procs, size_t n, struct exp_writer *w, size_t *clamped,
                     char *err, size_t errlen) {
  for (size_t i = 0; i < n; i++) {
    struct exp_proc p;
    if (exp_proc_load(db, procs[i].trace_id, procs[i].pid, procs[i].start_ns, &p, err, errlen)) return -1;
    int rc = exp_write_proc(w, &p);
    *clamped += p.clamped;
    exp_proc_free(&p);
    if (rc) {
      snprintf(err, errlen, "write error");
      return -2;
    }
  }
  return 0;
}

int gcs_cmd_export(int argc, char **argv) {
  const char *path = NULL, *output = NULL, *db_path = NULL;
  int pid = -1, fmt = RPT_PERFETTO;
  long long trace = -1;
  struct gcs_cli p;
  gcs_cli_init(&p, &export_spec, argc, argv);
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&export_spec, stdout); return 0; }
    if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
    if (k == O_TRACE) trace = p.ival;
    else if (k == O_PID) pid = (int)p.ival;
    else if (k == O_FORMAT) {
      char e[160];
      if ((fmt = rpt_format_parse(p.value, RPT_F(RPT_PERFETTO) | RPT_F(RPT_CHROME_JSON), e, sizeof e)) < 0)
        return gcs_cli_fail("%s", e);
    }
    else if (k == O_OUTPUT) output = p.value;
    else if (k == O_DB) db_path = p.value;
  }
  if (p.optind < argc) path = argv[p.optind];
  if (p.optind + 1 < argc) return gcs_cli_fail("one input at a time ('%s')", argv[p.optind + 1]);
  if (!path) {
    gcs_cli_usage(&export_spec, stderr);
    return GCS_CLI_USAGE_STATUS;
  }
  int json = fmt == RPT_CHROME_JSON;
  if (!output && !json && isatty(STDOUT_FILENO))
    return gcs_cli_fail("the perfetto format is binary: name a file with -o FILE");

  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = { .trace_id = trace, .db_path = db_path };
  if (gcs_input_open_report(CMD, path, &io, &in)) return 1;
  struct proc_ref *procs = NULL;
  size_t n = 0, clamped = 0;
  int rc = 1, write_failed = 0;
  char tmp[4200] = "";
  FILE *out = stdout;
  struct exp_writer *w = NULL;
  if (list_procs(in.db, pid, &procs, &n, err, sizeof err)) goto fail;
  if (n == 0) {
    if (pid >= 0) snprintf(err, sizeof err, "no GCs of process %d in %s", pid, path);
    else snprintf(err, sizeof err, "no GCs in %s", path);
    goto fail;
  }
  /* A new or regular file is written beside it and renamed over it (an
   * error leaves the old one whole); anything else (a device such as
   * /dev/null or /dev/stdout, a FIFO, a symbolic link) is written to as it
   * is: a rename would replace the device node or the link itself. */
  struct stat ost;
  int direct = output && lstat(output, &ost) == 0 && !S_ISREG(ost.st_mode);
  if (output && direct) {
    if (stat(output, &ost) == 0 && S_ISDIR(ost.st_mode)) {
      snprintf(err, sizeof err, "cannot write %s: Is a directory", output);
      goto fail;
    }
    if (!(out = fopen(output, "wb"))) {
      snprintf(err, sizeof err, "cannot write %s: %m", output);
      out = stdout;
      goto fail;
    }
  } else if (output) {
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", output, (long)getpid());
    if (!(out = fopen(tmp, "wb"))) {
      snprintf(err, sizeof err, "cannot write %s: %m", output);
      out = stdout;
      tmp[0] = 0;
      goto fail;
    }
  }
  if (!(w = json ? exp_json_open(out) : exp_pb_open(out))) {
    snprintf(err, sizeof err, "out of memory");
    goto fail;
  }
  int wrc = write_all(in.db, procs, n, w, &clamped, err, sizeof err);
  int crc = exp_writer_close(w);
  w = NULL;
  if (wrc == -2) {
    write_failed = 1;
    snprintf(err, sizeof err, "write error on %s: %s", output ? output : "stdout", strerror(errno));
  }
  if (wrc) goto fail;
  if (crc || fflush(out) != 0) {
    write_failed = 1;
    snprintf(err, sizeof err, "write error on %s: %s", output ? output : "stdout", strerror(errno));
    goto fail;
  }
  if (output) {
    int bad = fclose(out) != 0;
    out = stdout;
    if (bad || (!direct && rename(tmp, output) != 0)) {
      snprintf(err, sizeof err, "cannot write %s: %m", output);
      goto fail;
    }
    tmp[0] = 0;
  }
  if (clamped)
    fprintf(stderr, "gcscope " CMD ": %zu slice%s clamped to its parent (arg clamped_from_end_ns)\n",
            clamped, clamped == 1 ? "" : "s");
  rc = 0;
fail:
  /* (A write error on stdout: the umbrella's line, with its cause.) */
  if (rc && !(write_failed && out == stdout)) fprintf(stderr, "gcscope " CMD ": %s\n", err);
  if (out != stdout) fclose(out);
  if (tmp[0]) unlink(tmp);
  free(procs);
  gcs_input_close(&in);
  return rc;
}
