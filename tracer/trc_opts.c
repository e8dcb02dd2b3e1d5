/* trc_opts.c — parsing and validation of `gcscope record`'s options. */
#include "trc_opts.h"

#include "gcs_rules.h"

#include "gcs_cli.h"
#include "trc_child.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SIZE with an optional k/K, m/M, g/G suffix (powers of 1024, as lttng). */
static int parse_size(const char *opt, const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  if (*s == '-') return gcs_cli_fail("%s: '%s' is negative", opt, s);
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || errno) return gcs_cli_fail("%s: '%s' is not a size", opt, s);
  unsigned long long mul = 1;
  if (*end == 'k' || *end == 'K') mul = 1ull << 10, end++;
  else if (*end == 'm' || *end == 'M') mul = 1ull << 20, end++;
  else if (*end == 'g' || *end == 'G') mul = 1ull << 30, end++;
  if (*end || v > UINT64_MAX / mul) return gcs_cli_fail("%s: '%s' is not a size", opt, s);
  v *= mul;
  if (v == 0 || (v & (v - 1))) return gcs_cli_fail("%s: '%s' must be a power of two", opt, s);
  *out = v;
  return 0;
}

int trc_opts_any_trigger(const struct trc_opts *o) {
  return o->nrules > 0 || gcs_trigger_thresholds_any(&o->stop_on);
}

enum { O_OUTPUT, O_DB, O_PROFILE, O_BUFSZ, O_NSUB, O_DURATION, O_PID, O_DOTNET, O_IMPORT, O_RELAYD,
       O_GC_OVER, O_SUSP_OVER, O_BGC_OVER, O_DELAY, O_MULTI, O_CIRC, O_TRANSPORT, O_QUIET, O_RULES, O_MAXCAP, O_REQUESTS,
       O_MAXSIZE, O_STACKS };

static const struct gcs_cli_opt record_opts[] = {
  [O_OUTPUT] = { "output", 'o', GCS_CLI_STRING, 0, 0, "DIR", "trace directory (default ./gcscope-record-DATE-TIME)" },
  [O_DB] = { "db", 'd', GCS_CLI_STRING, 0, 0, "DB", "database of --import" },
  [O_PROFILE] = { "profile", 0, GCS_CLI_STRING, 0, 0, "NAME", "gc (default), alloc, handles or verbose" },
  [O_BUFSZ] = { "buffer-size", 0, GCS_CLI_STRING, 0, 0, "SIZE", "sub-buffer size, a power of two (k, M, G suffixes)" },
  [O_NSUB] = { "num-subbuf", 0, GCS_CLI_STRING, 0, 0, "N", "sub-buffers per channel, a power of two" },
  [O_DURATION] = { "duration", 0, GCS_CLI_DOUBLE, 0, INFINITY, "SEC", "stop after SEC seconds" },
  [O_PID] = { "pid", 'p', GCS_CLI_INT, 1, 2147483647.0, "PID", "record a running process instead of a COMMAND" },
  [O_DOTNET] = { "dotnet", 0, GCS_CLI_FLAG, 0, 0, NULL, "record a .NET program's GC events (EventPipe; see --transport)" },
  [O_IMPORT] = { "import", 0, GCS_CLI_FLAG, 0, 0, NULL, "import the trace when the recording ends" },
  [O_RELAYD] = { "relayd", 0, GCS_CLI_STRING, 0, 0, "URL", "stream the trace to an lttng-relayd" },
  [O_GC_OVER] = { "stop-on-gc-over", 0, GCS_CLI_DOUBLE, 0, INFINITY, "MS", "capture when a GC lasts more than MS" },
  [O_SUSP_OVER] = { "stop-on-suspend-over", 0, GCS_CLI_DOUBLE, 0, INFINITY, "MS", "capture when a suspension lasts more than MS" },
  [O_BGC_OVER] = { "stop-on-bgc-final-pause-over", 0, GCS_CLI_DOUBLE, 0, INFINITY, "MS",
                   "capture when a background GC's final pause lasts more than MS" },
  [O_DELAY] = { "delay-after-trigger", 0, GCS_CLI_DOUBLE, 0, INFINITY, "SEC", "keep recording SEC after a trigger (default 5)" },
  [O_MULTI] = { "collect-multiple", 0, GCS_CLI_INT, 1, 10000, "N", "captures before stopping (default 1)" },
  [O_CIRC] = { "circular-mb", 0, GCS_CLI_DOUBLE, 1, INFINITY, "MB", "flight-recorder ring of MB per channel" },
  [O_TRANSPORT] = { "transport", 0, GCS_CLI_STRING, 0, 0, "T",
                    "eventpipe (default for .NET) or lttng (CoreCLR's LTTng provider, DOTNET_EnableEventLog=1)" },
  [O_QUIET] = { "quiet", 'q', GCS_CLI_FLAG, 0, 0, NULL, "no progress line while --import runs" },
  [O_RULES] = { "rules", 0, GCS_CLI_STRING, 0, 0, "FILE", "stop rules, one a line (docs/tracer.md, Stop rules)" },
  [O_MAXCAP] = { "max-captures", 0, GCS_CLI_INT, 1, 10000, "N", "captures before stopping (--collect-multiple)" },
  [O_REQUESTS] = { "requests", 0, GCS_CLI_STRING, 0, 0, "R",
                   "also requests: aspnet, http, PROVIDER:START:STOP" },
  [O_MAXSIZE] = { "max-size", 0, GCS_CLI_DOUBLE, 0, INFINITY, "MB",
                  "EventPipe: stop when the trace reaches MB (default 1000; 0: no limit)" },
  [O_STACKS] = { "stacks", 0, GCS_CLI_FLAG, 0, 0, NULL, "call stacks (gcscope stacks; off by default): with --dotnet every event's and the rundown that names the methods; for librgc AllocationTick, GCTriggered and pins, and the statedump" },
  { 0 },
};

static const struct gcs_cli_spec record_spec = {
  .cmd = "record",
  .usage = "[-o DIR] [--profile gc|alloc|handles|verbose]\n"
           "  [--buffer-size SIZE] [--num-subbuf N] [--duration SEC] [--pid PID]\n"
           "  [--stacks] [--dotnet [--transport eventpipe|lttng]] [--import [-d DB] [-q]] [--relayd URL]\n"
           "  [--stop-on-gc-over MS] [--stop-on-suspend-over MS]\n"
           "  [--stop-on-bgc-final-pause-over MS] [--delay-after-trigger SEC]\n"
           "  [--collect-multiple N] [--circular-mb MB] [--rules FILE] [--max-captures N]\n"
           "  [--max-size MB] [--requests aspnet|http|PROVIDER:START:STOP[:KEY]]\n"
           "  [-- COMMAND [ARGS]]",
  .about = "Runs COMMAND (or watches --pid) and records its GC events with LTTng, or over EventPipe for .NET\n"
           "(--dotnet; --pid of a process with a diagnostic socket).",
  .opts = record_opts,
  .stop_at_operand = 1,
};

static int set_profile(const char *name, struct trc_opts *o) {
  if (trc_profile_parse(name, &o->profile) != 0) return gcs_cli_fail("unknown profile '%s' (expected gc, alloc, handles or verbose)", name);
  return 0;
}

/* One option the table has already checked the value of. */
static int apply(int k, const struct gcs_cli *p, struct trc_opts *o) {
  switch (k) {
  case O_OUTPUT: o->output = p->value; return 0;
  case O_DB: o->db = p->value; return 0;
  case O_PROFILE: return set_profile(p->value, o);
  case O_BUFSZ: return parse_size("--buffer-size", p->value, &o->subbuf_size);
  case O_NSUB: return parse_size("--num-subbuf", p->value, &o->num_subbuf);
  case O_DURATION:
    if (p->dval == 0) return gcs_cli_fail("--duration: must be more than 0 seconds");
    o->duration_sec = p->dval;
    return 0;
  case O_PID:
    if (kill((pid_t)p->ival, 0) != 0 && errno == ESRCH) return gcs_cli_fail("--pid: no process with PID %s", p->value);
    o->pid = (pid_t)p->ival;
    return 0;
  case O_DOTNET: o->dotnet = 1; return 0;
  case O_STACKS: o->stacks = 1; return 0;
  case O_TRANSPORT:
    if (!strcmp(p->value, "eventpipe")) o->transport = TRC_TRANSPORT_EVENTPIPE, o->dotnet = 1;
    else if (!strcmp(p->value, "lttng")) o->transport = TRC_TRANSPORT_LTTNG;
    else return gcs_cli_fail("--transport: '%s': expected eventpipe or lttng", p->value);
    return 0;
  case O_IMPORT: o->import = 1; return 0;
  case O_QUIET: o->quiet = 1; return 0;
  case O_RELAYD: o->relayd = p->value; return 0;
  case O_GC_OVER: case O_SUSP_OVER: case O_BGC_OVER: {
    enum gcs_trigger_kind t = k == O_GC_OVER     ? GCS_TRIGGER_GC_OVER
                              : k == O_SUSP_OVER ? GCS_TRIGGER_SUSPEND_OVER
                                                 : GCS_TRIGGER_BGC_FINAL_OVER;
    o->stop_on.ms[t] = p->dval;
    o->stop_on.on[t] = true;
    return 0;
  }
  case O_DELAY: o->delay_after_sec = p->dval; return 0;
  case O_MULTI: case O_MAXCAP: o->collect_multiple = (int)p->ival; return 0;
  case O_RULES: {
    char err[600];
    free(o->rules);
    if (gcs_rules_load(p->value, &o->rules, &o->nrules, err, sizeof err)) return gcs_cli_fail("--rules %s", err);
    return 0;
  }
  case O_CIRC: o->circular_mb = p->dval; return 0;
  case O_REQUESTS: {
    char err[300];
    if (o->nrequests >= GCS_NETTRACE_MAX_REQSPECS)
      return gcs_cli_fail("--requests: at most %d pairs", GCS_NETTRACE_MAX_REQSPECS);
    if (gcs_nettrace_reqspec_parse(p->value, &o->requests[o->nrequests], err, sizeof err))
      return gcs_cli_fail("--requests %s", err);
    o->nrequests++;
    return 0;
  }
  case O_MAXSIZE: o->max_size_mb = p->dval; return 0;
  default: return 0;
  }
}

int trc_opts_parse(int argc, char **argv, struct trc_opts *o) {
  memset(o, 0, sizeof *o);
  o->delay_after_sec = 5;
  o->collect_multiple = 1;
  o->max_size_mb = TRC_DEFAULT_MAX_SIZE_MB;
  struct gcs_cli p;
  gcs_cli_init(&p, &record_spec, argc, argv);
  for (int k, r; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&record_spec, stdout); return 1; }
    if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
    if ((r = apply(k, &p, o))) return r;
  }
  if (p.optind < argc) {
    if (o->pid) return gcs_cli_fail("give either --pid or a COMMAND, not both");
    o->command = argv + p.optind;
    /* `record -- dotnet app.dll` records over EventPipe, as --pid of a .NET
     * process does: CoreCLR's LTTng provider is off unless asked for */
    if (!o->dotnet && o->transport == TRC_TRANSPORT_AUTO && trc_child_is_dotnet(o->command[0]))
      o->dotnet = o->dotnet_auto = 1;
  }
  if (o->stacks && o->transport == TRC_TRANSPORT_LTTNG)
    return gcs_cli_fail("--stacks: CoreCLR's LTTng events carry no stacks (use --transport eventpipe)");
  if (o->db && !o->import) return gcs_cli_fail("-d DB is only used with --import");
  if (o->output && o->relayd)
    return gcs_cli_fail("-o and --relayd exclude each other (the relayd writes the trace)");
  if (o->import && o->relayd) return gcs_cli_fail("--import needs a local trace; it cannot be used with --relayd");
  if (o->nrequests && (!o->dotnet || o->transport == TRC_TRANSPORT_LTTNG))
    return gcs_cli_fail("--requests needs --dotnet over EventPipe (not --transport lttng)");
  return 0;
}

void trc_opts_free(struct trc_opts *o) {
  free(o->rules);
  o->rules = NULL;
  o->nrules = 0;
}
