/* gcs_cli.c — table-driven option parsing over getopt_long (see gcs_cli.h). */
#include "gcs_cli.h"
#include "gcs_text.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define VAL_BASE 256   /* getopt_long's val of table entry i: VAL_BASE + i */
#define VAL_HELP (VAL_BASE + GCS_CLI_MAX_OPTS)

static const char *prog_of(const struct gcs_cli_spec *s) { return s->prog ? s->prog : "gcscope"; }

/* A bound as people write it: whole numbers in full, others with %g. */
static void bound_text(double v, char *buf, size_t n) {
  /* (2^63, the double of INT64_MAX, is said as INT64_MAX: the largest value
   * an integer option takes) */
  if (v >= 9223372036854775807.0) snprintf(buf, n, "9223372036854775807");
  else if (v == floor(v) && fabs(v) < 1e19) snprintf(buf, n, "%.0f", v);
  else snprintf(buf, n, "%g", v);
}

int gcs_cli_number(const char *opt, const char *s, int integer, double min, double max, double *out,
                   char *err, size_t errlen) {
  char lo[40], hi[40];
  bound_text(min, lo, sizeof lo);
  bound_text(max, hi, sizeof hi);
  char *end = NULL;
  errno = 0;
  double v = s && *s ? strtod(s, &end) : NAN;
  int parsed = s && *s && !errno && !*end && isfinite(v);
  if (parsed && integer) {
    /* Beyond a long long (9223372036854775808 reads as the double 2^63,
     * which equals the bound INT64_MAX becomes): out of range, not wrapped. */
    char *iend;
    errno = 0;
    (void)strtoll(s, &iend, 10);
    if (errno == ERANGE) parsed = 0;
  }
  if (parsed && integer && v == floor(v) && fabs(v) < 9007199254740992.0) {
    /* Exact for every integer a double cannot hold: strtoll on the text. */
    errno = 0;
    long long w = strtoll(s, &end, 10);
    if (!errno && !*end) v = (double)w;
  }
  if (!parsed || v < min || v > max) {
    if (isinf(max)) snprintf(err, errlen, "%s: expected a number of at least %s, got '%s'", opt, lo, s ? s : "");
    else snprintf(err, errlen, "%s: expected a number from %s to %s, got '%s'", opt, lo, hi, s ? s : "");
    return -1;
  }
  if (integer && v != floor(v)) {
    snprintf(err, errlen, "%s: expected an integer, got '%s'", opt, s);
    return -1;
  }
  *out = v;
  return 0;
}

/* The command gcs_cli_init parsed last, named by gcs_cli_fail (the names,
 * not the spec: a spec may live on its command's stack). */
static const char *current_prog = "gcscope", *current_cmd;

void gcs_cli_init(struct gcs_cli *p, const struct gcs_cli_spec *spec, int argc, char **argv) {
  memset(p, 0, sizeof *p);
  p->spec = spec;
  p->argc = argc;
  p->argv = argv;
  p->optind = 1;
  while (spec->opts[p->nopts].name && p->nopts < GCS_CLI_MAX_OPTS) p->nopts++;
  optind = 0;   /* GNU: full re-initialisation, a parser may run more than once */
  current_prog = prog_of(spec);
  current_cmd = spec->cmd;
  opterr = 0;
}

__attribute__((format(printf, 2, 3))) static int usage_error(struct gcs_cli *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->err, sizeof p->err, fmt, ap);
  va_end(ap);
  return GCS_CLI_BAD;
}

/* "unknown option 'X' (see gcscope CMD --help)"; X without its "=VALUE". */
static int unknown(struct gcs_cli *p, const char *token) {
  const struct gcs_cli_spec *s = p->spec;
  char help[96] = "--help";
  if (s->cmd) snprintf(help, sizeof help, "%s %s --help", prog_of(s), s->cmd);
  snprintf(p->err, sizeof p->err, "unknown option '%.*s' (see %s)", (int)strcspn(token, "="), token, help);
  return GCS_CLI_BAD;
}

/* The table entry getopt_long's VAL or short option C names, or -1. */
static int index_of(const struct gcs_cli *p, int c) {
  if (c >= VAL_BASE && c < VAL_BASE + p->nopts) return c - VAL_BASE;
  for (int i = 0; i < p->nopts; i++)
    if (c > 0 && p->spec->opts[i].short_name == c) return i;
  return -1;
}

static void name_option(struct gcs_cli *p, int i) {
  snprintf(p->opt, sizeof p->opt, "--%s", p->spec->opts[i].name);
}

/* getopt_long accepts any unambiguous prefix of a long option; the commands
 * accept only the full name. TOKEN is the argv element that named it. */
static int spelled_in_full(const char *token, const char *name) {
  if (strncmp(token, "--", 2) != 0) return 1;   /* the short form */
  size_t n = strlen(name);
  return strncmp(token + 2, name, n) == 0 && (token[2 + n] == '\0' || token[2 + n] == '=');
}

int gcs_cli_next(struct gcs_cli *p) {
  struct option longs[GCS_CLI_MAX_OPTS + 2];
  char shorts[3 + 2 * GCS_CLI_MAX_OPTS + 2];
  size_t ns = 0;
  if (p->spec->stop_at_operand) shorts[ns++] = '+';
  shorts[ns++] = ':';
  for (int i = 0; i < p->nopts; i++) {
    const struct gcs_cli_opt *o = &p->spec->opts[i];
    longs[i] = (struct option){ o->name, o->arg == GCS_CLI_FLAG ? no_argument : required_argument, 0, VAL_BASE + i };
    if (o->short_name) {
      shorts[ns++] = o->short_name;
      if (o->arg != GCS_CLI_FLAG) shorts[ns++] = ':';
    }
  }
  longs[p->nopts] = (struct option){ "help", no_argument, 0, VAL_HELP };
  longs[p->nopts + 1] = (struct option){ 0, 0, 0, 0 };
  shorts[ns++] = 'h';
  shorts[ns] = '\0';

  p->value = NULL;
  p->err[0] = p->opt[0] = '\0';
  int c = getopt_long(p->argc, p->argv, shorts, longs, NULL);
  p->optind = optind;
  if (c == -1) return GCS_CLI_DONE;
  const char *last = p->argv[optind - 1];
  if (c == '?') {
    int i = index_of(p, optopt);
    if (i >= 0) { name_option(p, i); return usage_error(p, "%s takes no value", p->opt); }
    if (optopt > 0 && optopt < VAL_BASE) {
      char s[3] = { '-', (char)optopt, 0 };
      return unknown(p, s);
    }
    return unknown(p, last);
  }
  if (c == ':') {
    int i = index_of(p, optopt);
    snprintf(p->opt, sizeof p->opt, "%s", last);   /* as given: "-o" or "--output" */
    if (i < 0) return usage_error(p, "%s needs a value", last);
    const struct gcs_cli_opt *o = &p->spec->opts[i];
    if (o->arg == GCS_CLI_INT || o->arg == GCS_CLI_DOUBLE) {   /* the range, as for a bad value */
      gcs_cli_number(p->opt, "", o->arg == GCS_CLI_INT, o->min, o->max, &p->dval, p->err, sizeof p->err);
      return GCS_CLI_BAD;
    }
    snprintf(p->err, sizeof p->err, "%s: missing %s", p->opt, p->spec->opts[i].metavar ? p->spec->opts[i].metavar : "value");
    return GCS_CLI_BAD;
  }
  const char *token = optarg && optarg == last && optind >= 2 ? p->argv[optind - 2] : last;
  if (c == VAL_HELP || c == 'h') {
    if (!spelled_in_full(token, "help")) return unknown(p, token);
    return GCS_CLI_HELP;
  }
  int i = index_of(p, c);
  if (i < 0) return unknown(p, token);
  const struct gcs_cli_opt *o = &p->spec->opts[i];
  if (!spelled_in_full(token, o->name)) return unknown(p, token);
  name_option(p, i);
  p->value = optarg;
  if (o->arg == GCS_CLI_INT || o->arg == GCS_CLI_DOUBLE) {
    if (gcs_cli_number(p->opt, optarg, o->arg == GCS_CLI_INT, o->min, o->max, &p->dval, p->err, sizeof p->err))
      return GCS_CLI_BAD;
    /* (the cast of 2^63 or more is undefined: the exact text below decides) */
    p->ival = p->dval >= 9223372036854775807.0 ? LLONG_MAX : p->dval <= -9223372036854775807.0 ? LLONG_MIN
                                                                                              : (long long)p->dval;
    if (o->arg == GCS_CLI_INT) {
      char *end;
      errno = 0;
      long long w = strtoll(optarg, &end, 10);
      if (!errno && !*end) p->ival = w;   /* exact beyond 2^53 */
    }
  }
  return i;
}

/* The width help wraps at: $COLUMNS, else the terminal's, else 80. */
static int help_width(FILE *out) {
  const char *c = getenv("COLUMNS");
  int w = c ? atoi(c) : 0;
  if (w >= 40) return w;
  struct winsize ws;
  if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
  return 80;
}

/* Writes s[0..n) from column col (what is before it is printed), breaking
 * at spaces so that no line passes width; continuation lines start with
 * indent spaces. Brackets keep an option group ("[--trace ID]") on one line
 * where they can. A word longer than a line goes whole. Ends the line. */
static void wrap_at(FILE *out, const char *s, size_t n, size_t col, size_t indent, int width, int prose) {
  size_t w = width > 0 ? (size_t)width : 80, start = 0;
  while (start < n) {
    while (start < n && s[start] == ' ') start++;
    if (start >= n) break;
    size_t room = w > col ? w - col : 0, end = n, brk = 0, brk_any = 0;
    if (n - start > room) {
      int depth = 0;
      for (size_t i = start; i < n && i - start <= room; i++) {
        /* usage lines keep [...] and (...) whole where they can; prose breaks at any space */
        if (!prose && (s[i] == '[' || s[i] == '(')) depth++;
        else if (!prose && (s[i] == ']' || s[i] == ')') && depth > 0) depth--;
        else if (s[i] == ' ') {
          if (!brk_any || i > brk_any) brk_any = i;
          if (depth == 0) brk = i;
        }
      }
      if (!brk) brk = brk_any;
      if (!brk) { /* one long word: up to the next space */
        brk = start;
        while (brk < n && s[brk] != ' ') brk++;
      }
      end = brk;
    }
    fprintf(out, "%.*s\n", (int)(end - start), s + start);
    start = end;
    if (start < n) {
      while (start < n && s[start] == ' ') start++;
      if (start < n) fprintf(out, "%*s", (int)indent, "");
      col = indent;
    }
  }
  if (start == 0 && n == 0) fputc('\n', out);
}

static void wrap(FILE *out, const char *s, size_t n, size_t col, size_t indent, int width) {
  wrap_at(out, s, n, col, indent, width, 0);
}

/* Each line of a paragraph wrapped at width, continuation lines indented as
 * the line (plus 2). */
static void wrap_text(FILE *out, const char *t, int width) {
  while (*t) {
    size_t n = strcspn(t, "\n"), lead = strspn(t, " ");
    if (lead > n) lead = n;
    if (n == lead) { /* a blank line */
      fputc('\n', out);
      t += n + (t[n] == '\n');
      continue;
    }
    /* A paragraph: this line and the unindented, non-blank lines after it
     * (an indented line starts a row of its own), reflowed as one. */
    char buf[2048];
    size_t len = 0;
    const char *p = t;
    for (;;) {
      size_t m = strcspn(p, "\n");
      if (len + m + 1 >= sizeof buf) break;
      if (len) buf[len++] = ' ';
      memcpy(buf + len, p + (p == t ? lead : 0), m - (p == t ? lead : 0));
      len += m - (p == t ? lead : 0);
      p += m + (p[m] == '\n');
      if (lead || !*p || *p == ' ' || *p == '\n') break;
    }
    fprintf(out, "%*s", (int)lead, "");
    wrap_at(out, buf, len, lead, lead, width, 1);
    t = p;
  }
}

void gcs_cli_paragraph(FILE *out, const char *prefix, const char *text, size_t indent) {
  fputs(prefix, out);
  wrap_at(out, text, strlen(text), strlen(prefix), indent, GCS_TEXT_WIDTH, 1);
}

void gcs_cli_usage(const struct gcs_cli_spec *s, FILE *out) {
  int width = help_width(out);
  char name[80];
  snprintf(name, sizeof name, "%s%s%s", prog_of(s), s->cmd ? " " : "", s->cmd ? s->cmd : "");
  const char *u = s->usage ? s->usage : "[options]";
  size_t ind = strlen(name) + 8;
  /* '\n' starts another form; a line starting with a space continues one */
  for (int first = 1; *u; first = 0) {
    size_t n = strcspn(u, "\n");
    if (!first && *u == ' ') {
      size_t sp = strspn(u, " ");
      fprintf(out, "%*s", (int)ind, "");
      wrap(out, u + sp, n - sp, ind, ind, width);
    } else {
      fprintf(out, "%s %s ", first ? "usage:" : "      ", name);
      wrap(out, u, n, ind, ind, width);
    }
    u += n + (u[n] == '\n');
  }
  if (s->about) {
    fputc('\n', out);
    wrap_text(out, s->about, width);
  }
  fprintf(out, "\noptions:\n");
  for (const struct gcs_cli_opt *o = s->opts; o->name; o++) {
    char left[96];
    int n = o->short_name ? snprintf(left, sizeof left, "  -%c, --%s", o->short_name, o->name)
                          : snprintf(left, sizeof left, "      --%s", o->name);
    if (o->arg != GCS_CLI_FLAG && n > 0 && (size_t)n < sizeof left)
      snprintf(left + n, sizeof left - (size_t)n, " %s", o->metavar ? o->metavar : "VALUE");
    /* the help text, continuation lines aligned under its first line */
    const char *h = o->help ? o->help : "";
    size_t len = strcspn(h, "\n");
    if (strlen(left) >= 28) fprintf(out, "%s\n%-28s", left, "");
    else fprintf(out, "%-28s", left);
    wrap(out, h, len, 28, 28, width);
    for (h += len; *h == '\n';) {
      h++;
      len = strcspn(h, "\n");
      fprintf(out, "%-28s", "");
      wrap(out, h, len, 28, 28, width);
      h += len;
    }
  }
  fprintf(out, "%-28s%s\n", "  -h, --help", "this help");
  if (s->epilog) {
    fputc('\n', out);
    wrap_text(out, s->epilog, width);
  }
}


/* The one error line: "PREFIX: MESSAGE", the message through
 * gcs_text_printable (an argument's escape sequence does not reach the
 * terminal) and cut at GCS_CLI_LINE_MAX bytes with "..." (a 100 KB argument
 * is not echoed whole). */
#define GCS_CLI_LINE_MAX 1024
static void error_line(const char *prog, const char *cmd, const char *fmt, va_list ap) {
  char msg[GCS_CLI_LINE_MAX + 1], safe[GCS_CLI_LINE_MAX + 4];
  int n = vsnprintf(msg, sizeof msg, fmt, ap);
  /* (never longer than msg: a replaced byte or character is one '?') */
  gcs_text_printable(msg, strlen(msg), safe, GCS_CLI_LINE_MAX + 1);
  if (n > GCS_CLI_LINE_MAX) strcat(safe, "...");
  fprintf(stderr, "%s%s%s: %s\n", prog, cmd ? " " : "", cmd ? cmd : "", safe);
}

int gcs_cli_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_line(current_prog, current_cmd, fmt, ap);
  va_end(ap);
  return GCS_CLI_USAGE_STATUS;
}

int gcs_cli_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_line("gcscope", cmd, fmt, ap);
  va_end(ap);
  return GCS_CLI_USAGE_STATUS;
}
