/*
 * ins_sqlview.h — shared plumbing of the SQL-backed views (allocs, handles):
 * parse "DB|TRACE [--trace ID] [--pid PID] [--format text|csv] [--top N]" and print a query's
 * rows as an aligned text table or CSV. Errors: one line on stderr.
 */
#ifndef INS_SQLVIEW_H
#define INS_SQLVIEW_H

#include "gcs_output.h"

typedef struct sqlite3 sqlite3;

struct ins_view_opts {
  const char *input;
  const char *db_path;  /* -d: where a TRACE is imported; NULL: ./gcscope.db */
  long pid;            /* -1: all */
  long trace;          /* --trace: -1 all traces of the input */
  long top;
  double bucket_s;
  int all;             /* --all */
  int wide;            /* -w, --wide: text shows whole names */
  enum rpt_format fmt;
};

/* Options beyond --trace, --pid, --format and -d that a view takes. */
#define INS_VIEW_TOP 1u      /* --top N */
#define INS_VIEW_BUCKET 2u   /* --bucket SEC */
#define INS_VIEW_ALL 4u      /* --all */
#define INS_VIEW_WIDE 8u     /* -w, --wide: whole names in text (the last column) */
/* Parses with gcs_cli (synopsis: the usage after "gcscope CMD "). Returns 0
 * ok, 1 help shown (stdout), 2 usage error (one line printed). */
int ins_view_args(const char *cmd, const char *synopsis, unsigned extra, int argc, char **argv,
                  struct ins_view_opts *o);
/* Prints the rows of sql (parameters: ?1 pid or -1, ?2 top, ?3 bucket ns) under
 * a title line (text only). Returns the row count, or -1 after a message. */
/* Does the one-column query sql (same parameters) return a non-zero value?
 * 1 yes, 0 no, -1 after a message. */
int ins_view_any(const char *cmd, sqlite3 *db, const char *sql, const struct ins_view_opts *o);
long ins_view_print(const char *cmd, sqlite3 *db, const char *title, const char *sql, const struct ins_view_opts *o);

#endif /* INS_SQLVIEW_H */
