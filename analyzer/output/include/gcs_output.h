/*
 * gcs_output.h — the output library (gcs_output) every command prints with:
 * number text in PerfView's style, an aligned text table, a pager, the one
 * CSV/JSON/HTML escaping, the one JSON number form, a buffered writer for
 * large CSV/JSON outputs, and the one `--format` parser.
 * Opening the input (a database, or a trace imported first) is
 * gcs_input_open (core/gcdb, gcs_gcdb.h); options are gcs_cli (core/cli).
 *
 * Prefix: rpt_ (report output). Internals: out_*.c.
 * Errors: functions that can fail print nothing and return NULL / -1 with a
 * one-line message in err; the commands print it as "gcscope <cmd>: ...".
 * Output errors show on the FILE (ferror), as with stdio.
 * Ownership: rpt_table owns copies of every cell; free with rpt_table_free.
 * Nothing else keeps a pointer it was given.
 * Threading: reentrant; a table, a write buffer or a pager belongs to one
 * thread (rpt_pager_open changes SIGPIPE's disposition: call it from the
 * main thread).
 */
#ifndef GCS_OUTPUT_H
#define GCS_OUTPUT_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Values that are not numbers, in text and HTML (CSV writes an empty field,
 * as sqlite3 -csv prints NULL; JSON writes null; never nan, inf or -1):
 * RPT_NO_VALUE, "-": none, a known absence where PerfView shows NaN or
 * Infinity: the mean of an empty kind, a ratio whose divisor is 0 in
 * GCStats' tables, a request no GC hit. RPT_UNKNOWN, "unknown": the value
 * exists but the trace cannot say it (a NULL column, an event not in the
 * trace, a share of a 0 ms total). A table uses "-" for one meaning only. */
#define RPT_NO_VALUE "-"
#define RPT_UNKNOWN "unknown"

/* Long text on a terminal goes through a pager, as git does: $GCSCOPE_PAGER,
 * else $PAGER, else "less -FRX" (exits at once when the text fits the
 * screen, keeps colours). An empty value or "cat" means no pager. Returns the
 * pager's stdin, or NULL (then write to stdout). SIGPIPE is ignored while the
 * pager runs (quitting it early is not an error). */
FILE *rpt_pager_open(void);
void rpt_pager_close(FILE *pager);

/* A name cut to fit `width` columns (a column is a UTF-8 character): the
 * name itself when it fits, else "..." and the name's last width-3
 * characters (the end of a .NET type name, a frame or a path says most).
 * Text tables use it for a name column unless the user asks for --wide;
 * CSV and JSON always write the whole name. width < 4 is taken as 4.
 * Writes at most cap-1 bytes (cut at a character boundary). Returns buf. */
char *rpt_fit_name(char *buf, size_t cap, const char *name, size_t width);
/* A name from a trace (a process, a type, a frame) as text prints it: name
 * itself when it is plain ASCII without control characters, else a copy in
 * buf (cap > 0; cut at cap-1 bytes) with every control character, invalid
 * byte and bidirectional override replaced by '?' (gcs_text_printable): an
 * escape sequence in a crafted trace must not drive the user's terminal.
 * rpt_fit_name applies it too. CSV and JSON write names as they are. */
const char *rpt_printable(char *buf, size_t cap, const char *name);
/* The columns a UTF-8 text takes (its characters; a byte that is not a
 * continuation byte starts one). */
size_t rpt_text_cols(const char *s);

/* PerfView's numeric text: thousands separators, fixed decimals; NaN and
 * infinities as RPT_NO_VALUE. Returns buf. */
char *rpt_num(char *buf, size_t n, double v, int decimals);
/* rpt_num, with NaN and infinities as RPT_UNKNOWN (a value not known). */
char *rpt_num_unknown(char *buf, size_t n, double v, int decimals);

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
  /* Callers may set: a table wider than max_width (0: no limit) is printed
   * as several tables, each with the first `keys` columns and as many of
   * the others, in order, as fit (a blank line between them). */
  int max_width, keys;
};
void rpt_table_init(struct rpt_table *t, int ncols, const char *const *headers);
/* Appends a copy of a row; cells[i] may be NULL (printed empty). Returns the
 * row index, or -1 when out of memory. */
int rpt_table_add(struct rpt_table *t, const char *const *cells);
const char *rpt_table_cell(const struct rpt_table *t, int row, int col);
void rpt_table_print(const struct rpt_table *t, FILE *out, int color);
void rpt_table_free(struct rpt_table *t);

#include "gcs_html.h"   /* rpt_html_str, rpt_nice_step, rpt_svg_axes */

/* The one CSV field writer (RFC 4180): a field holding a comma, a double
 * quote, a CR or a LF is enclosed in double quotes, each double quote in it
 * doubled; any other as it is; NULL is an empty field (nothing written).
 * Every CSV of every command writes its text fields (process and type
 * names, frames, command lines, reasons, rule names) through it, to a sink:
 * put(ctx, bytes, n) is called with the field's bytes in order. */
void rpt_csv_field(const char *s, void (*put)(void *ctx, const char *p, size_t n), void *ctx);
/* rpt_csv_field to a FILE. */
void rpt_csv_str(FILE *out, const char *s);
/* rpt_csv_field to memory: dst holds 2 * strlen(s) + 2 bytes at least (not
 * NUL-terminated); returns the length written. */
size_t rpt_csv_mem(char *dst, const char *s);
/* The one JSON string writer: s quoted, '"' and '\' escaped, control
 * characters as \u00XX; NULL as null. */
void rpt_json_str(FILE *out, const char *s);
/* The one JSON number form: null for NaN and infinities, an integer below
 * 1e17 in full ("%.0f"), else the shortest of "%.15g", "%.16g", "%.17g"
 * that reads back as the same double (28.362894, not 28.362894000000001). */
void rpt_json_num(FILE *out, double v);

/* Number text without printf (out_fmt.c), byte for byte what printf writes.
 * rpt_fmt_g: snprintf(buf, RPT_FMT_MAX, "%.*g", prec, v); rpt_fmt_json:
 * rpt_json_num's text (above).
 * buf holds RPT_FMT_MAX bytes; both return the length. */
#define RPT_FMT_MAX 40
size_t rpt_fmt_g(char *buf, double v, int prec);
size_t rpt_fmt_json(char *buf, double v);
size_t rpt_fmt_i64(char *buf, long long v);                   /* "%lld" */

/* A write buffer in front of a FILE (the csv and json writers: one fwrite
 * per 64 KB instead of a call per field). Flush before using f directly. */
struct rpt_wbuf {
  FILE *f;
  size_t n;
  char b[65536];
};
void rpt_wbuf_flush(struct rpt_wbuf *w);
void rpt_wbuf_mem(struct rpt_wbuf *w, const char *s, size_t len);
void rpt_wbuf_i64(struct rpt_wbuf *w, long long v);
void rpt_wbuf_g(struct rpt_wbuf *w, double v, int prec);      /* "%.*g" */
void rpt_wbuf_json_num(struct rpt_wbuf *w, double v);         /* rpt_json_num */
void rpt_wbuf_json_str(struct rpt_wbuf *w, const char *s);    /* rpt_json_str */
void rpt_wbuf_csv_str(struct rpt_wbuf *w, const char *s);     /* rpt_csv_str */
/* At least len free bytes at the end of the buffer (len <= its size). */
static inline char *rpt_wbuf_room(struct rpt_wbuf *w, size_t len) {
  if (w->n + len > sizeof w->b) rpt_wbuf_flush(w);
  return w->b + w->n;
}
static inline void rpt_wbuf_char(struct rpt_wbuf *w, char c) {
  if (w->n == sizeof w->b) rpt_wbuf_flush(w);
  w->b[w->n++] = c;
}
static inline void rpt_wbuf_str(struct rpt_wbuf *w, const char *s) { rpt_wbuf_mem(w, s, strlen(s)); }

/* ---- the output formats ------------------------------------------------ */

/* Every format a command may print; each command accepts a subset. */
enum rpt_format { RPT_TEXT, RPT_CSV, RPT_JSON, RPT_HTML, RPT_PERFETTO, RPT_CHROME_JSON };
#define RPT_F(f) (1u << (f))   /* a set of formats: RPT_F(RPT_TEXT) | RPT_F(RPT_JSON) */

/* The one `--format` parser: s names one of the formats in `allowed`
 * ("text", "csv", "json", "html", "perfetto", "chrome-json"). Returns the
 * format, or -1 with err = "--format: expected text, csv or json, not 'xml'"
 * (the allowed names in enum order). */
int rpt_format_parse(const char *s, unsigned allowed, char *err, size_t errlen);

/* One number with 3 decimals; NaN and infinities (not known) in each
 * format's convention: text RPT_UNKNOWN, CSV empty, JSON null. */
void rpt_num3(FILE *f, enum rpt_format fmt, double v);

#endif /* GCS_OUTPUT_H */
