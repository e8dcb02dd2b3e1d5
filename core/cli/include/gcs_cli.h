/*
 * gcs_cli.h — the one option parser of every command, over getopt_long.
 *
 * A command describes its options in a table (long name, short name, argument
 * kind with its range, metavar, help) and asks for them one at a time:
 *
 *   struct gcs_cli p;
 *   gcs_cli_init(&p, &spec, argc, argv);
 *   for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
 *     if (k == GCS_CLI_HELP) { gcs_cli_usage(&spec, stdout); return 0; }
 *     if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
 *     switch (k) { case OPT_PID: pid = p.ival; break; ... }
 *   }
 *   operands: argv[p.optind .. argc-1]
 *
 * Numbers are range-checked as parsed: an integer option given 4294967295 or
 * -1 for a range 1..2147483647 is an error, never a wrapped value. Long
 * options must be spelled in full (no getopt abbreviations). -h/--help is
 * built in. The parser prints nothing: it fills p.err; the command prints one
 * line with gcs_cli_fail and exits with its status (GCS_CLI_USAGE_STATUS).
 */
#ifndef GCS_CLI_H
#define GCS_CLI_H

#include <stdio.h>

#define GCS_CLI_USAGE_STATUS 2  /* exit status of every usage error */

enum gcs_cli_arg {
  GCS_CLI_FLAG,    /* no value */
  GCS_CLI_STRING,  /* any text: p.value */
  GCS_CLI_INT,     /* a whole number within [min, max]: p.ival (and p.dval) */
  GCS_CLI_DOUBLE,  /* a finite number within [min, max]: p.dval */
};

struct gcs_cli_opt {
  const char *name;     /* long name without "--"; NULL ends the table */
  char short_name;      /* 0: none */
  enum gcs_cli_arg arg;
  double min, max;      /* GCS_CLI_INT, GCS_CLI_DOUBLE: inclusive; max may be INFINITY */
  const char *metavar;  /* the value in help: "PID" */
  const char *help;     /* one line (may hold '\n' for more) */
};

struct gcs_cli_spec {
  const char *prog;      /* messages and usage name it "PROG CMD"; NULL: "gcscope" */
  const char *cmd;       /* "record"; NULL for a program without commands */
  const char *usage;     /* the synopsis after "usage: PROG CMD "; '\n' starts another form */
  const char *about;     /* a paragraph after the synopsis, or NULL */
  const struct gcs_cli_opt *opts;
  const char *epilog;    /* text after the options, or NULL */
  int stop_at_operand;   /* 1: options end at the first operand (COMMAND ARGS follow) */
};

enum {
  GCS_CLI_DONE = -1,  /* no more options; operands start at p.optind */
  GCS_CLI_HELP = -2,  /* -h or --help was given */
  GCS_CLI_BAD = -3,   /* unknown option, missing or bad value: p.err says which */
};

/* Shared option rows, one definition each (in the spirit of git's OPT__*
 * rows): every report spells its input options the same way, with the same
 * range and help. In a table: [O_PID] = GCS_OPT_PID, ... */
#define GCS_OPT_TRACE \
  { "trace", 0, GCS_CLI_INT, 0, 9223372036854775807.0, "ID", "only the trace with this id (a database holds several)" }
#define GCS_OPT_PID { "pid", 'p', GCS_CLI_INT, 0, 2147483647.0, "PID", "one process" }
#define GCS_OPT_DB_HELP(help) { "db", 'd', GCS_CLI_STRING, 0, 0, "DB", help }
#define GCS_OPT_DB GCS_OPT_DB_HELP("the database a TRACE is imported into (default ./gcscope.db)")
/* --format FMT; the value is parsed by rpt_format_parse (gcs_output.h). */
#define GCS_OPT_FORMAT(help) { "format", 0, GCS_CLI_STRING, 0, 0, "FMT", help }

#define GCS_CLI_MAX_OPTS 64

struct gcs_cli {
  const struct gcs_cli_spec *spec;
  int argc;
  char **argv;
  int optind;          /* after GCS_CLI_DONE: the first operand */
  const char *value;   /* the option's value as given (NULL for a flag) */
  long long ival;      /* GCS_CLI_INT */
  double dval;         /* GCS_CLI_INT, GCS_CLI_DOUBLE */
  char opt[80];        /* the option as named in messages: "--pid" */
  char err[512];       /* after GCS_CLI_BAD: "--pid: expected ..." */
  int nopts;
};

void gcs_cli_init(struct gcs_cli *p, const struct gcs_cli_spec *spec, int argc, char **argv);

/* The index in spec->opts of the next option given, or GCS_CLI_DONE,
 * GCS_CLI_HELP, GCS_CLI_BAD. */
int gcs_cli_next(struct gcs_cli *p);

/* Prints the usage generated from the table. */
void gcs_cli_usage(const struct gcs_cli_spec *spec, FILE *out);

/* Report text within 80 columns: writes PREFIX then TEXT (a paragraph),
 * breaking TEXT at spaces so that no line passes 80 columns; continuation
 * lines start with INDENT spaces. A word longer than a line goes whole.
 * Ends the line. */
#define GCS_TEXT_WIDTH 80
void gcs_cli_paragraph(FILE *out, const char *prefix, const char *text, size_t indent);

/* Parses S as option OPT's number (the table's rules); for commands that
 * read a number from an operand or an option of their own. 0, or -1 with err. */
int gcs_cli_number(const char *opt, const char *s, int integer, double min, double max, double *out,
                   char *err, size_t errlen);

/* The one error style of a command: one line "PROG CMD: MESSAGE" on stderr,
 * printf-style, where PROG CMD is the command whose options gcs_cli_init
 * parsed last ("gcscope stats"); returns GCS_CLI_USAGE_STATUS so that a
 * command can `return gcs_cli_fail("--top: %s", why);`. A command that fails
 * at run time returns 1 after it instead. Before gcs_cli_init it says
 * "gcscope: MESSAGE". The message is printed through gcs_text_printable
 * (control characters and escape sequences of an argument become '?') and
 * cut after 1024 bytes with "...". Threading: the command's thread (a process runs one
 * command). Libraries never print: they fill err (CONTRIBUTING.md). */
int gcs_cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* gcs_cli_fail for a command named explicitly (before or without a parser):
 * "gcscope CMD: MESSAGE". */
int gcs_cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* GCS_CLI_H */
