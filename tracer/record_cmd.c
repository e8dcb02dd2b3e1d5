/*
 * record_cmd.c — `gcscope record`: record GC events with LTTng or EventPipe,
 * and PerfView's stop-on-long-pause triggers (docs/tracer.md).
 *
 * The options (trc_opts.h) choose the transport: EventPipe for .NET
 * (eventpipe/trc_eventpipe.h), LTTng otherwise (lttng/trc_lttng_rec.h). Both
 * run the one capture controller (trc_capture.h), which makes the output
 * directory and decides what a failed recording leaves (trc_outdir.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_tracer.h"
#include "trc_clr_lttng.h"
#include "trc_eventpipe.h"
#include "trc_lttng_rec.h"
#include "trc_opts.h"

/* --pid over LTTng: can the process emit anything? Its memory maps must hold
 * LTTng-UST (librgc, or CoreCLR's provider). 1 yes or cannot tell (maps not
 * readable), 0 no, with why. */
static int pid_has_lttng_ust(pid_t pid, char *why, size_t whylen) {
  char path[64], line[4096];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 1;
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, "liblttng-ust") != NULL;
  fclose(f);
  if (!found) {
    char comm[64] = "?";
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *c = fopen(path, "r");
    if (c) {
      if (fgets(comm, sizeof comm, c)) comm[strcspn(comm, "\n")] = '\0';
      fclose(c);
    }
    snprintf(why, whylen, "process %d (%s) has no .NET diagnostic socket and no LTTng-UST provider loaded: "
             "it emits no GC events to record", (int)pid, comm);
  }
  return found;
}

static int record(const struct trc_opts *o) {
  char err[512];
  if (o->dotnet_auto)
    fprintf(stderr, "gcscope record: %s is a .NET program: recording over EventPipe, as --dotnet\n", o->command[0]);
  if (trc_eventpipe_wanted(o)) return trc_eventpipe_record(o);
  if (o->dotnet && trc_clr_lttng_check(o->pid, o->command, err, sizeof err)) {
    fprintf(stderr, "gcscope record: %s; record over EventPipe instead (--dotnet without --transport lttng)\n", err);
    return 1;
  }
  if (o->pid > 0 && !o->dotnet && !pid_has_lttng_ust(o->pid, err, sizeof err)) {
    fprintf(stderr, "gcscope record: %s\n", err);
    return 1;
  }
  return trc_lttng_record(o);
}

int gcs_cmd_record(int argc, char **argv) {
  static struct trc_opts o;
  memset(&o, 0, sizeof o);
  int rc = trc_opts_parse(argc, argv, &o);
  if (rc == 0) rc = record(&o);
  else if (rc == 1) rc = 0;   /* --help */
  trc_opts_free(&o);
  return rc;
}
