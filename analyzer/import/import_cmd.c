/* import_cmd.c — `gcscope import TRACE... [-d DB]`. */
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_cli.h"
#include "gcs_import_cmd.h"
#include "gcs_db.h"

/* Set by the first SIGINT/SIGTERM/SIGHUP, on whichever thread takes it, and
 * read by the import's threads: an atomic (lock-free, so signal-safe). The
 * handler is reset to the default as it runs (SA_RESETHAND): a second signal
 * kills; the journal still protects the database. */
static atomic_int cancel_flag;

static void on_sigint(int sig) {
  (void)sig;
  atomic_store(&cancel_flag, 1);
}

enum { O_DB, O_QUIET, O_VERBOSE };

static const struct gcs_cli_opt import_opts[] = {
  [O_DB] = GCS_OPT_DB_HELP("database file (created if missing)"),
  [O_QUIET] = { "quiet", 'q', GCS_CLI_FLAG, 0, 0, NULL, "no per-trace summary lines" },
  [O_VERBOSE] = { "verbose", 'v', GCS_CLI_FLAG, 0, 0, NULL, "also the CPU time of the decoding and writing threads" },
  { 0 },
};

static const struct gcs_cli_spec import_spec = {
  .cmd = "import",
  .usage = "TRACE... [-d DB] [-q] [-v]",
  .about = "Import GC traces into an SQLite database (default ./" GCS_DB_DEFAULT_PATH ").\n"
           "TRACE is an LTTng trace directory (session directory, perfcollect lttngTrace/,\n"
           "ust/uid/...; every CTF trace under it is found), a perfcollect .trace.zip, or a\n"
           ".nettrace file. Each trace is imported in one transaction: an error or Ctrl-C\n"
           "leaves the database as it was; a trace already imported adds nothing.",
  .opts = import_opts,
};

int gcs_cmd_import(int argc, char **argv) {
  const char *db = GCS_DB_DEFAULT_PATH;
  int quiet = 0, verbose = 0;
  struct gcs_cli p;
  gcs_cli_init(&p, &import_spec, argc, argv);
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&import_spec, stdout); return 0; }
    if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
    if (k == O_DB) db = p.value;
    else if (k == O_QUIET) quiet = 1;
    else if (k == O_VERBOSE) verbose = 1;
  }
  /* the operands (getopt_long moved them after the options) */
  const char **paths = (const char **)(argv + p.optind);
  int npaths = argc - p.optind;
  if (npaths == 0) return gcs_cli_fail("no trace given (see gcscope import --help)");
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  /* SIGTERM and SIGHUP too: the import stops at its next check, rolls back and
   * removes its temporary files (an extracted zip). */
  struct sigaction old_term, old_hup;
  sigaction(SIGINT, &sa, &old);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);

  struct gcs_import_opts opts = { .out = stdout, .quiet = quiet, .cancel = &cancel_flag, .verbose = verbose };
  if (!quiet && isatty(STDERR_FILENO)) opts.progress = gcs_import_progress_line;
  char err[2048];
  int rc = gcs_import_paths(db, paths, npaths, &opts, err, sizeof err);
  int interrupted = atomic_load(&cancel_flag);
  sigaction(SIGINT, &old, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  if (rc != 0) {
    if (interrupted) fprintf(stderr, "gcscope import: interrupted; the trace being imported was rolled back\n");
    else fprintf(stderr, "gcscope import: %s\n", err);
    return interrupted ? 130 : 1;
  }
  return 0;
}
