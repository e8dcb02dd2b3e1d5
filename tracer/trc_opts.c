/* trc_opts.c — parsing and validation of `gcscope record`'s options. */
#include "trc_opts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
  "usage: gcscope record [-o DIR] [--profile gc|alloc|handles|verbose]\n"
  "         [--buffer-size SIZE] [--num-subbuf N] [--duration SEC] [--pid PID]\n"
  "         [--dotnet] [--import [-d DB]] [--relayd URL]\n"
  "         [--stop-on-gc-over MS] [--stop-on-suspend-over MS]\n"
  "         [--stop-on-bgc-final-pause-over MS] [--delay-after-trigger SEC]\n"
  "         [--collect-multiple N] [--circular-mb MB] [-- COMMAND [ARGS]]\n";

static int bad(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "gcscope record: ");
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  return 2;
}

/* A finite, non-negative number; a trailing unit is not accepted. */
static int parse_nonneg(const char *opt, const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno || !isfinite(v))
    return bad("%s: '%s' is not a number", opt, s);
  if (v < 0) return bad("%s: '%s' is negative; a non-negative value is required", opt, s);
  *out = v;
  return 0;
}

/* SIZE with an optional k/K, m/M, g/G suffix (powers of 1024, as lttng). */
static int parse_size(const char *opt, const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  if (*s == '-') return bad("%s: '%s' is negative", opt, s);
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || errno) return bad("%s: '%s' is not a size", opt, s);
  unsigned long long mul = 1;
  if (*end == 'k' || *end == 'K') mul = 1ull << 10, end++;
  else if (*end == 'm' || *end == 'M') mul = 1ull << 20, end++;
  else if (*end == 'g' || *end == 'G') mul = 1ull << 30, end++;
  if (*end) return bad("%s: '%s' is not a size", opt, s);
  v *= mul;
  if (v == 0 || (v & (v - 1))) return bad("%s: '%s' must be a power of two", opt, s);
  *out = v;
  return 0;
}

const char *trc_trigger_name(enum trc_trigger_kind k) {
  switch (k) {
  case TRC_GC_OVER: return "gc-over";
  case TRC_SUSPEND_OVER: return "suspend-over";
  case TRC_BGC_FINAL_OVER: return "bgc-final-pause-over";
  default: return "?";
  }
}

int trc_opts_any_trigger(const struct trc_opts *o) {
  for (int k = 0; k < TRC_NKINDS; k++)
    if (o->trigger_on[k]) return 1;
  return 0;
}

enum { O_PROFILE = 256, O_BUFSZ, O_NSUB, O_DURATION, O_PID, O_DOTNET, O_IMPORT, O_RELAYD,
       O_GC_OVER, O_SUSP_OVER, O_BGC_OVER, O_DELAY, O_MULTI, O_CIRC };

int trc_opts_parse(int argc, char **argv, struct trc_opts *o) {
  static const struct option longs[] = {
    { "output", required_argument, 0, 'o' },
    { "db", required_argument, 0, 'd' },
    { "help", no_argument, 0, 'h' },
    { "profile", required_argument, 0, O_PROFILE },
    { "buffer-size", required_argument, 0, O_BUFSZ },
    { "num-subbuf", required_argument, 0, O_NSUB },
    { "duration", required_argument, 0, O_DURATION },
    { "pid", required_argument, 0, O_PID },
    { "dotnet", no_argument, 0, O_DOTNET },
    { "import", no_argument, 0, O_IMPORT },
    { "relayd", required_argument, 0, O_RELAYD },
    { "stop-on-gc-over", required_argument, 0, O_GC_OVER },
    { "stop-on-suspend-over", required_argument, 0, O_SUSP_OVER },
    { "stop-on-bgc-final-pause-over", required_argument, 0, O_BGC_OVER },
    { "delay-after-trigger", required_argument, 0, O_DELAY },
    { "collect-multiple", required_argument, 0, O_MULTI },
    { "circular-mb", required_argument, 0, O_CIRC },
    { 0, 0, 0, 0 },
  };
  memset(o, 0, sizeof *o);
  o->delay_after_sec = 5;
  o->collect_multiple = 1;
  optind = 0;     /* GNU: full re-initialisation, the parser may run twice */
  opterr = 0;
  int c, r, li;
  double d;
  char opt[64];
  while ((li = -1, c = getopt_long(argc, argv, "+:o:d:h", longs, &li)) != -1) {
    if (li >= 0) snprintf(opt, sizeof opt, "--%s", longs[li].name);
    else if ((c == '?' || c == ':') && optopt > 0 && optopt < 128) snprintf(opt, sizeof opt, "-%c", optopt);
    else if (c == '?' || c == ':') snprintf(opt, sizeof opt, "%s", argv[optind - 1]);
    else snprintf(opt, sizeof opt, "-%c", c);
    switch (c) {
    case 'o': o->output = optarg; break;
    case 'd': o->db = optarg; break;
    case 'h': fputs(usage_text, stdout); return 1;
    case O_PROFILE:
      if (!strcmp(optarg, "gc")) o->profile = TRC_PROFILE_GC;
      else if (!strcmp(optarg, "alloc")) o->profile = TRC_PROFILE_ALLOC;
      else if (!strcmp(optarg, "handles")) o->profile = TRC_PROFILE_HANDLES;
      else if (!strcmp(optarg, "verbose")) o->profile = TRC_PROFILE_VERBOSE;
      else return bad("unknown profile '%s' (expected gc, alloc, handles or verbose)%s", optarg, "");
      break;
    case O_BUFSZ: if ((r = parse_size("--buffer-size", optarg, &o->subbuf_size))) return r; break;
    case O_NSUB: if ((r = parse_size("--num-subbuf", optarg, &o->num_subbuf))) return r; break;
    case O_DURATION:
      if ((r = parse_nonneg("--duration", optarg, &o->duration_sec))) return r;
      if (o->duration_sec == 0) return bad("--duration: must be more than 0 seconds%s%s", "", "");
      break;
    case O_PID: {
      char *end;
      errno = 0;
      long v = strtol(optarg, &end, 10);
      if (end == optarg || *end || errno || v <= 0 || v > 0x7fffffffL)
        return bad("--pid: '%s' is not a process id%s", optarg, "");
      if (kill((pid_t)v, 0) != 0 && errno == ESRCH)
        return bad("--pid: no process with PID %s%s", optarg, "");
      o->pid = (pid_t)v;
      break;
    }
    case O_DOTNET: o->dotnet = 1; break;
    case O_IMPORT: o->import = 1; break;
    case O_RELAYD: o->relayd = optarg; break;
    case O_GC_OVER: case O_SUSP_OVER: case O_BGC_OVER: {
      int k = c == O_GC_OVER ? TRC_GC_OVER : c == O_SUSP_OVER ? TRC_SUSPEND_OVER : TRC_BGC_FINAL_OVER;
      if ((r = parse_nonneg(opt, optarg, &o->trigger_ms[k]))) return r;
      o->trigger_on[k] = 1;
      break;
    }
    case O_DELAY: if ((r = parse_nonneg("--delay-after-trigger", optarg, &o->delay_after_sec))) return r; break;
    case O_MULTI:
      if ((r = parse_nonneg("--collect-multiple", optarg, &d))) return r;
      if (d < 1 || d != floor(d) || d > 10000) return bad("--collect-multiple: '%s' must be a whole number from 1 to 10000%s", optarg, "");
      o->collect_multiple = (int)d;
      break;
    case O_CIRC:
      if ((r = parse_nonneg("--circular-mb", optarg, &o->circular_mb))) return r;
      if (o->circular_mb < 1) return bad("--circular-mb: '%s' must be at least 1 MB%s", optarg, "");
      break;
    case ':': return bad("%s needs a value%s", opt, "");
    default:
      return bad("unknown option '%s' (see gcscope record --help)%s", opt, "");
    }
  }
  if (o->db && !o->import) return bad("-d DB is only used with --import%s%s", "", "");
  if (o->output && o->relayd)
    return bad("-o and --relayd exclude each other: with --relayd the trace is written by the relayd%s%s", "", "");
  if (o->import && o->relayd) return bad("--import needs a local trace; it cannot be used with --relayd%s%s", "", "");
  if (optind < argc) {
    if (o->pid) return bad("give either --pid or a COMMAND, not both%s%s", "", "");
    o->command = argv + optind;
  }
  return 0;
}
