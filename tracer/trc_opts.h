/*
 * trc_opts.h — the command line of `gcscope record`, parsed and validated.
 *
 * Ownership: strings in struct trc_opts point into argv (not copied).
 * Errors: trc_opts_parse (gcs_cli's table and error line) prints one line
 * "gcscope record: ..." on stderr and returns 2 for a usage error, 1 for
 * --help (usage printed on stdout), 0 ok.
 */
#ifndef TRC_OPTS_H
#define TRC_OPTS_H

#include <stdint.h>
#include <sys/types.h>

#include "gcs_nettrace.h"
#include "gcs_triggers.h"
#include "trc_profile.h"

/* --transport: how --dotnet reaches the runtime (trc_eventpipe.h). */
enum trc_transport { TRC_TRANSPORT_AUTO, TRC_TRANSPORT_EVENTPIPE, TRC_TRANSPORT_LTTNG };

struct trc_opts {
  const char *output;            /* -o DIR; NULL = ./gcscope-record-YYYYMMDD-HHMMSS */
  enum trc_profile profile;
  uint64_t subbuf_size;          /* --buffer-size, bytes; 0 = default */
  uint64_t num_subbuf;           /* --num-subbuf; 0 = default */
  double duration_sec;           /* --duration; 0 = until the command ends / Ctrl-C */
  pid_t pid;                     /* --pid; 0 = none */
  int dotnet;                    /* --dotnet, or dotnet_auto */
  int dotnet_auto;               /* COMMAND is a .NET program (trc_opts_parse): --dotnet implied */
  int stacks;                    /* --stacks (EventPipe only) */
  enum trc_transport transport;  /* --transport; AUTO = EventPipe for .NET */
  int import;                    /* --import */
  int quiet;                     /* -q: no progress line */
  const char *db;                /* -d DB (with --import) */
  const char *relayd;            /* --relayd URL */
  struct gcs_trigger_thresholds stop_on;  /* --stop-on-... (PerfView's three stop triggers, ms >= 0) */
  double delay_after_sec;        /* --delay-after-trigger, PerfView's default 5 */
  int collect_multiple;          /* --collect-multiple, >= 1 */
  double circular_mb;            /* --circular-mb; 0 = not given */
  double max_size_mb;            /* --max-size: the most an EventPipe recording writes (10^6 bytes);
                                    0 = no limit; TRC_DEFAULT_MAX_SIZE_MB unless given */
  char **command;                /* COMMAND [ARGS], NULL-terminated; NULL = none */
  struct gcs_rule *rules;        /* --rules FILE (malloc'ed, freed by trc_opts_free) */
  int nrules;
  struct gcs_nettrace_reqspec requests[GCS_NETTRACE_MAX_REQSPECS];  /* --requests (repeatable) */
  int nrequests;
};

/* What a peer on the diagnostics socket can make `record` write unless
 * --max-size says otherwise (MB = 10^6 bytes). */
#define TRC_DEFAULT_MAX_SIZE_MB 1000.0

int trc_opts_parse(int argc, char **argv, struct trc_opts *o);
void trc_opts_free(struct trc_opts *o);
struct gcs_rule;
int trc_opts_any_trigger(const struct trc_opts *o);

#endif
