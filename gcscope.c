/* gcscope.c — the umbrella command: `gcscope <command> [args]`. It only
 * dispatches; every command lives in the library that owns its feature. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gcs_cli.h"
#include "gcs_diff.h"
#include "gcs_export.h"
#include "gcs_import_cmd.h"
#include "gcs_insight.h"
#include "gcs_report.h"
#include "gcs_serve.h"
#include "gcs_stacks_cmd.h"
#include "gcs_tracer.h"
#include "gcs_tui.h"

struct gcs_command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
};

static const struct gcs_command commands[] = {
  { "record",   gcs_cmd_record,   "Record a program's GC events (LTTng, or EventPipe for .NET)" },
  { "ps",       gcs_cmd_ps,       "List the .NET processes gcscope can attach to (EventPipe)" },
  { "import",   gcs_cmd_import,   "Load LTTng traces, .trace.zip or .nettrace files into SQLite" },
  { "stats",    gcs_cmd_stats,    "PerfView's GCStats: summary, generation rollup, every GC" },
  { "events",   gcs_cmd_events,   "GC events in time order, like PerfView's Events view" },
  { "sql",      gcs_cmd_sql,      "Query the database (read-only unless --write)" },
  { "impact",   gcs_cmd_impact,   "How GC pauses explain request tail latency" },
  { "triggers", gcs_cmd_triggers, "Which GCs would have fired the recorder's stop triggers" },
  { "allocs",   gcs_cmd_allocs,   "Top allocating types from AllocationTick samples" },
  { "handles",  gcs_cmd_handles,  "GC handles and pinning over time" },
  { "stacks",   gcs_cmd_stacks,   "Call stacks of allocations, induced GCs, pins or any event" },
  { "heaps",    gcs_cmd_heaps,    "Per-heap detail: promoted bytes by root kind, balance" },
  { "advise",   gcs_cmd_advise,   "Findings from the memory-analysis decision tree" },
  { "diff",     gcs_cmd_diff,     "Two runs compared: GC figures, a pause test, --fail-on for CI" },
  { "export",   gcs_cmd_export,   "The GC timeline as a Perfetto trace or Chrome JSON" },
  { "top",      gcs_cmd_top,      "Live terminal view of GC behaviour" },
  { "serve",    gcs_cmd_serve,    "Export every .NET process's GC figures to Prometheus (/metrics)" },
};

static void usage(FILE *out) {
  fprintf(out, "usage: gcscope <command> [options]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\n'gcscope <command> --help' describes a command.\n");
}

/* `allocs ... --stacks` and `diff ... --stacks` are views of `stacks`
 * (docs/stacks.md): the option picks the command. */
static int has_stacks_flag(int argc, char **argv) {
  for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (!strcmp(argv[i], "--stacks")) return 1;
  return 0;
}

static const struct gcs_command *find_command(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(commands[i].name, name)) return &commands[i];
  return NULL;
}

/* `gcscope help [CMD]`: the command list, or CMD's own --help. */
static int help(int argc, char **argv) {
  if (argc < 3) { usage(stdout); return 0; }
  if (argc > 3) return gcs_cli_error("help", "one command at a time ('%s %s')", argv[2], argv[3]);
  const struct gcs_command *c = find_command(argv[2]);
  if (!c) return gcs_cli_error("help", "'%s' is not a gcscope command (see gcscope help)", argv[2]);
  char *a[] = { argv[2], "--help", NULL };
  return c->run(2, a);
}

/* The report went out: a write error on stdout (a full disk, /dev/full, a
 * closed pipe's EPIPE aside) is the command's one error line and exit 1,
 * never a silent exit 0 or an exit 1 with no line. */
static int stdout_flushed(const char *cmd, int rc) {
  errno = 0;
  int bad = fflush(stdout) != 0 || ferror(stdout);
  int e = errno;
  if (!bad || e == EPIPE) return rc;
  gcs_cli_error(cmd, "write error on stdout%s%s", e ? ": " : "", e ? strerror(e) : "");
  return rc ? rc : 1;
}

int main(int argc, char **argv) {
  gcs_report_set_findings(gcs_insight_findings_html);   /* the HTML report's advisor block */
  if (argc < 2) { usage(stderr); return GCS_CLI_USAGE_STATUS; }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) return help(argc, argv);
  if (!strcmp(cmd, "--version")) { printf("gcscope %s\n", GCSCOPE_VERSION); return 0; }
  if (!strcmp(cmd, "allocs") && has_stacks_flag(argc, argv))
    return stdout_flushed("allocs", gcs_cmd_allocs_stacks(argc - 1, argv + 1));
  if (!strcmp(cmd, "diff") && has_stacks_flag(argc, argv))
    return stdout_flushed("diff", gcs_stacks_diff(argc - 1, argv + 1));
  const struct gcs_command *c = find_command(cmd);
  if (!c) return gcs_cli_error(NULL, "'%.100s' is not a gcscope command (see gcscope help)", cmd);
  int rc = c->run(argc - 1, argv + 1);
  return stdout_flushed(c->name, rc);
}
