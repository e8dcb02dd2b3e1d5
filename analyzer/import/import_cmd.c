/* import_cmd.c — `gcscope import TRACE... [-d DB]`. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_import_cmd.h"
#include "gcs_db.h"

static volatile sig_atomic_t interrupted;
static volatile int cancel_flag;

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
  cancel_flag = 1;
  signal(SIGINT, SIG_DFL);  /* a second Ctrl-C kills; the journal still protects the database */
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: gcscope import TRACE... [-d DB] [-q] [-v]\n"
          "\n"
          "Import GC traces into an SQLite database (default ./" GCS_DB_DEFAULT_PATH ").\n"
          "TRACE is an LTTng trace directory (session directory, perfcollect lttngTrace/,\n"
          "ust/uid/...; every CTF trace under it is found), a perfcollect .trace.zip, or a\n"
          ".nettrace file. Each trace is imported in one transaction: an error or Ctrl-C\n"
          "leaves the database as it was; a trace already imported adds nothing.\n"
          "\n"
          "  -d, --db DB    database file (created if missing)\n"
          "  -q, --quiet    no per-trace summary lines\n"
          "  -v, --verbose  also the CPU time of the decoding and writing threads\n"
          "  -h, --help     this help\n");
}

int gcs_cmd_import(int argc, char **argv) {
  const char *db = GCS_DB_DEFAULT_PATH;
  int quiet = 0, verbose = 0;
  const char **paths = calloc((size_t)argc + 1, sizeof *paths);
  int npaths = 0, only_paths = 0;
  if (!paths) { fprintf(stderr, "gcscope import: out of memory\n"); return 1; }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (only_paths || a[0] != '-' || strcmp(a, "-") == 0) { paths[npaths++] = a; continue; }
    if (strcmp(a, "--") == 0) { only_paths = 1; continue; }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) { usage(stdout); free(paths); return 0; }
    if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) { quiet = 1; continue; }
    if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) { verbose = 1; continue; }
    if (strcmp(a, "-d") == 0 || strcmp(a, "--db") == 0) {
      if (i + 1 >= argc) { fprintf(stderr, "gcscope import: %s needs a database path\n", a); free(paths); return 2; }
      db = argv[++i];
      continue;
    }
    if (strncmp(a, "--db=", 5) == 0) { db = a + 5; continue; }
    fprintf(stderr, "gcscope import: unknown option %s (see gcscope import --help)\n", a);
    free(paths);
    return 2;
  }
  if (npaths == 0) {
    fprintf(stderr, "gcscope import: no trace given (see gcscope import --help)\n");
    free(paths);
    return 2;
  }
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old);

  struct gcs_import_opts opts = { .out = stdout, .quiet = quiet, .cancel = &cancel_flag, .verbose = verbose };
  char err[2048];
  int rc = gcs_import_paths(db, paths, npaths, &opts, err, sizeof err);
  sigaction(SIGINT, &old, NULL);
  free(paths);
  if (rc != 0) {
    if (interrupted) fprintf(stderr, "gcscope import: interrupted; the trace being imported was rolled back\n");
    else fprintf(stderr, "gcscope import: %s\n", err);
    return interrupted ? 130 : 1;
  }
  return 0;
}
