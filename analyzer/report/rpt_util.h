/*
 * rpt_util.h — helpers shared by the report commands (stats, events, sql):
 * number text in PerfView's style, an aligned text table, and CSV/JSON
 * escaping. Opening the input (a database, or a trace imported first) is
 * gcs_input_open (core/gcdb, gcs_gcdb.h).
 *
 * Errors: functions that can fail print nothing and return NULL / -1 with a
 * one-line message in err; the commands print it as "gcscope <cmd>: ...".
 * Ownership: rpt_table owns copies of every cell; free with rpt_table_free.
 * Threading: none of this is shared between threads.
 */
#ifndef RPT_UTIL_H
#define RPT_UTIL_H

#include <stddef.h>
#include <stdio.h>

/* What text and HTML print for a value PerfView shows as NaN or Infinity
 * (an empty kind, a ratio whose divisor is 0); CSV and JSON write null. */
#define RPT_NO_VALUE "-"

/* Long text on a terminal goes through a pager, as git does: $GCSCOPE_PAGER,
 * else $PAGER, else "less -FRX" (exits at once when the text fits the
 * screen, keeps colours). An empty value or "cat" means no pager. Returns the
 * pager's stdin, or NULL (then write to stdout). SIGPIPE is ignored while the
 * pager runs (quitting it early is not an error). */
FILE *rpt_pager_open(void);
void rpt_pager_close(FILE *pager);

/* PerfView's numeric text: thousands separators, fixed decimals; NaN and
 * infinities as RPT_NO_VALUE. Returns buf. */
char *rpt_num(char *buf, size_t n, double v, int decimals);

/* Aligned text table: columns separated by two spaces, right- or left-aligned
 * to the widest cell (the last column, if left-aligned, is not padded), a dash
 * line under the header row. Callers set right[] and mark[]; the rest is private. */
struct rpt_table {
  int ncols, nrows, cap;
  unsigned char *right;          /* per column: 1 = right aligned */
  unsigned char *mark;           /* per row: 1 = highlight (tty only) */
  char *text;                    /* every cell, NUL-terminated, back to back */
  size_t text_len, text_cap;
  size_t *off;                   /* (nrows+1) rows (row 0 = header) x ncols offsets into text */
  int *width;                    /* per column: widest cell so far */
};
void rpt_table_init(struct rpt_table *t, int ncols, const char *const *headers);
/* Appends a copy of a row; cells[i] may be NULL (printed empty). Returns the
 * row index, or -1 when out of memory. */
int rpt_table_add(struct rpt_table *t, const char *const *cells);
const char *rpt_table_cell(const struct rpt_table *t, int row, int col);
void rpt_table_print(const struct rpt_table *t, FILE *out, int color);
void rpt_table_free(struct rpt_table *t);

#include "gcs_html.h"   /* rpt_html_str, rpt_nice_step, rpt_svg_axes */

void rpt_csv_str(FILE *out, const char *s);
void rpt_json_str(FILE *out, const char *s);
void rpt_json_num(FILE *out, double v); /* NaN/inf -> null */

#endif /* RPT_UTIL_H */
