/* events_cmd.c — `gcscope events DB|TRACE [--trace ID] [--filter REGEX] [--from MS] [--to MS] [--pid PID] [-d DB]`:
 * GC events in time order, like PerfView's Events view (times in ms since
 * the start of each trace). --filter is an extended regular expression
 * matched against the event name, case-insensitively ('GCStart|GCEnd'). */
#include <regex.h>
#include <sqlite3.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_cli.h"
#include "gcs_text.h"
#include "gcs_report.h"
#include "gcs_gcdb.h"
#include "gcs_output.h"

/* A finite number of ms ("nan", "inf" and "1e400", which overflows, are not). */
static int parse_ms(const char *s, double *out) {
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  return *s && !*end && !errno && isfinite(*out) ? 0 : -1;
}

enum { O_TRACE, O_FILTER, O_FROM, O_TO, O_PID, O_DB };

static const struct gcs_cli_opt events_opts[] = {
  [O_TRACE] = GCS_OPT_TRACE,
  [O_FILTER] = { "filter", 0, GCS_CLI_STRING, 0, 0, "REGEX", "event names matching REGEX ('GCStart|GCEnd'; case-insensitive)" },
  [O_FROM] = { "from", 0, GCS_CLI_STRING, 0, 0, "MS", "events at or after MS (ms from the trace start)" },
  [O_TO] = { "to", 0, GCS_CLI_STRING, 0, 0, "MS", "events at or before MS" },
  [O_PID] = GCS_OPT_PID,
  [O_DB] = GCS_OPT_DB,
  { 0 },
};

static const struct gcs_cli_spec events_spec = {
  .cmd = "events",
  .usage = "DB|TRACE [--trace ID] [--filter 'GCStart|GCEnd'] [--from MS] [--to MS] [--pid PID] [-d DB]",
  .about = "The GC events in time order, like PerfView's Events view: name, time (ms from the trace start), "
           "pid, tid and the decoded payload. A dump, one event a line as `perf script` prints: a line is as "
           "long as its payload (not cut to the terminal's width; pipe it through `less -S` or `cut`).",
  .opts = events_opts,
};

/* Appends s left-justified (spaces after it) or right-justified (before) in
 * a field of width w, as printf's %-Ns / %Ns. */
static void put_field(struct rpt_wbuf *w, const char *s, size_t len, int width, int left) {
  size_t pad = (size_t)width > len ? (size_t)width - len : 0;
  if (len + pad > sizeof w->b / 2) {   /* a text longer than any event name: the slow way */
    for (size_t i = 0; !left && i < pad; i++) rpt_wbuf_char(w, ' ');
    rpt_wbuf_mem(w, s, len);
    for (size_t i = 0; left && i < pad; i++) rpt_wbuf_char(w, ' ');
    return;
  }
  char *p = rpt_wbuf_room(w, len + pad);
  if (!left) { memset(p, ' ', pad); p += pad; }
  memcpy(p, s, len);
  p += len;
  if (left) memset(p, ' ', pad);
  w->n += len + pad;
}

/* One line, "%-24s %16s %8d %8d  %s\n" (printf's "(null)" for a NULL
 * payload; a payload ends at its first NUL, as with %s); a pid or tid of -1
 * (not in the trace) reads "unknown". */
static void events_line(struct rpt_wbuf *w, const char *name, const char *ms, int pid, int tid, const char *payload,
                        size_t payload_len) {
  char n[24];
  put_field(w, name, strlen(name), 24, 1);
  rpt_wbuf_char(w, ' ');
  put_field(w, ms, strlen(ms), 16, 0);
  rpt_wbuf_char(w, ' ');
  /* the schema stores a pid or tid the trace does not give as -1 */
  if (pid < 0) put_field(w, RPT_UNKNOWN, strlen(RPT_UNKNOWN), 8, 0);
  else put_field(w, n, rpt_fmt_i64(n, pid), 8, 0);
  rpt_wbuf_char(w, ' ');
  if (tid < 0) put_field(w, RPT_UNKNOWN, strlen(RPT_UNKNOWN), 8, 0);
  else put_field(w, n, rpt_fmt_i64(n, tid), 8, 0);
  rpt_wbuf_mem(w, "  ", 2);
  if (payload) {
    const char *nul = memchr(payload, 0, payload_len);
    size_t len = nul ? (size_t)(nul - payload) : payload_len, i = 0;
    /* A payload's strings are the traced program's (a type name, a DLL
     * path): a control character or escape sequence in them would drive the
     * terminal. Plain ASCII, the usual payload, goes out as it is; anything
     * else through gcs_text_printable. */
    while (i < len && (unsigned char)payload[i] >= 0x20 && (unsigned char)payload[i] < 0x7f) i++;
    char *safe = i < len ? malloc(len + 1) : NULL;
    if (safe) {
      gcs_text_printable(payload, len, safe, len + 1);
      rpt_wbuf_mem(w, safe, strlen(safe));
      free(safe);
    } else if (i == len) {
      rpt_wbuf_mem(w, payload, len);
    } else {   /* out of memory: the printable part */
      rpt_wbuf_mem(w, payload, i);
    }
  }
  else rpt_wbuf_mem(w, "(null)", 6);
  rpt_wbuf_char(w, '\n');
}

int gcs_cmd_events(int argc, char **argv) {
  const char *path = NULL, *filter = NULL, *dbpath = NULL;
  double from = -1e300, to = 1e300;
  int pid = -1;
  long long trace = -1;
  struct gcs_cli p;
  gcs_cli_init(&p, &events_spec, argc, argv);
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&events_spec, stdout); return 0; }
    if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
    if (k == O_FILTER) filter = p.value;
    else if (k == O_FROM && parse_ms(p.value, &from)) return gcs_cli_fail("bad --from '%s' (expected a finite number of ms)", p.value);
    else if (k == O_TO && parse_ms(p.value, &to)) return gcs_cli_fail("bad --to '%s' (expected a finite number of ms)", p.value);
    else if (k == O_PID) pid = (int)p.ival;
    else if (k == O_TRACE) trace = p.ival;
    else if (k == O_DB) dbpath = p.value;
  }
  if (to < from) return gcs_cli_fail("--to %g is before --from %g", to, from);   /* as stacks says it */
  if (p.optind < argc) path = argv[p.optind];
  if (p.optind + 1 < argc) return gcs_cli_fail("more than one database given ('%s')", argv[p.optind + 1]);
  if (!path) {
    gcs_cli_usage(&events_spec, stderr);
    return GCS_CLI_USAGE_STATUS;
  }
  regex_t re;
  if (filter && regcomp(&re, filter, REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0) {
    fprintf(stderr, "gcscope events: bad --filter regular expression '%s'\n", filter);
    return 2;
  }
  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = trace, .db_path = dbpath};
  if (gcs_input_open_report("events", path, &io, &in)) {
    if (filter) regfree(&re);
    return 1;
  }
  sqlite3 *db = in.db;

  /* Trace by trace in id order; each trace's events in event order
   * (gcs_gcdb_events_prepare: as stored when that is time order). */
  sqlite3_stmt *q;
  int rc = 0;
  if (sqlite3_prepare_v2(db, "SELECT t.id, t.start_ns FROM traces t WHERE " GCS_IN_INPUT("t.id") " ORDER BY t.id", -1,
                         &q, NULL) != SQLITE_OK) {
    fprintf(stderr, "gcscope events: %s\n", sqlite3_errmsg(db));
    if (filter) regfree(&re);
    gcs_input_close(&in);
    return 1;
  }
  /* Every line goes through one 64 KB buffer (a pipe into `tail` reads
   * the whole print: printf per line cost more than the rows). */
  static struct rpt_wbuf out;
  out.f = stdout;
  out.n = 0;
  char head[128];
  int hn = snprintf(head, sizeof head, "%-24s %16s %8s %8s  %s\n", "Event Name", "Time MSec", "PID", "TID", "Payload");
  rpt_wbuf_mem(&out, head, (size_t)hn);
  /* No --pid, --from nor --to: no condition to test on each row. */
  int ranged = pid >= 0 || from > -1e300 || to < 1e300;
  int64_t shown = -1;
  char num[48];
  while (!rc && sqlite3_step(q) == SQLITE_ROW) {
    int64_t tr = sqlite3_column_int64(q, 0);
    /* A trace without a start has no event in range (as with the join on
     * traces before). */
    int null_start = sqlite3_column_type(q, 1) == SQLITE_NULL;
    if (null_start && !ranged) continue;
    int64_t start = sqlite3_column_int64(q, 1);
    /* ?2 the trace's start, ?3 the pid, ?4 and ?5 the range in ms. */
    sqlite3_stmt *s = gcs_gcdb_events_prepare(
        db, tr, "e.name, e.ts_ns, e.pid, e.tid, e.payload",
        ranged ? "(?3 < 0 OR e.pid = ?3) AND (e.ts_ns - ?2) >= ?4 * 1e6 AND (e.ts_ns - ?2) <= ?5 * 1e6" : NULL, NULL,
        err, sizeof err);
    if (!s) {
      rpt_wbuf_flush(&out);
      fprintf(stderr, "gcscope events: %s\n", err);
      rc = 1;
      break;
    }
    if (ranged) {
      if (null_start) sqlite3_bind_null(s, 2);
      else sqlite3_bind_int64(s, 2, start);
      sqlite3_bind_int(s, 3, pid);
      sqlite3_bind_double(s, 4, from);
      sqlite3_bind_double(s, 5, to);
    }
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
      const char *name = (const char *)sqlite3_column_text(s, 0);
      if (filter && regexec(&re, name ? name : "", 0, NULL, 0) != 0) continue;
      if (tr != shown) {
        if (shown >= 0) {
          int n = snprintf(head, sizeof head, "-- trace %lld\n", (long long)tr);
          rpt_wbuf_mem(&out, head, (size_t)n);
        }
        shown = tr;
      }
      /* "%-24s %16s %8d %8d  %s\n"; ms is (ts_ns - start) / 1e6 as SQL
       * computed it before (an integer difference, then a double). */
      double ms = (double)(sqlite3_column_int64(s, 1) - start) / 1e6;
      /* The payload's bytes as they are (column_blob: column_text would first
       * copy a text the virtual table gave without its NUL, 10 % of the
       * instructions). */
      const char *payload = NULL;
      size_t plen = 0;
      if (sqlite3_column_type(s, 4) != SQLITE_NULL) {
        payload = sqlite3_column_blob(s, 4);
        plen = (size_t)sqlite3_column_bytes(s, 4);
        if (!payload) payload = "", plen = 0;
      }
      events_line(&out, name ? name : "", rpt_num(num, sizeof num, ms, 3), sqlite3_column_int(s, 2),
                  sqlite3_column_int(s, 3), payload, plen);
    }
    if (step != SQLITE_DONE) {
      rpt_wbuf_flush(&out);
      fprintf(stderr, "gcscope events: %s\n", sqlite3_errmsg(db));
      rc = 1;
    }
    sqlite3_finalize(s);
  }
  rpt_wbuf_flush(&out);
  /* A full disk, say: not a silent half; the umbrella prints the line. */
  if (fflush(stdout) != 0 || ferror(stdout)) rc = 1;
  sqlite3_finalize(q);
  /* AllocationTick samples are kept in blocks of their own (the alloc_ticks
   * view) and not listed: say so when the listing would have had them. */
  if (!rc && (!filter || regexec(&re, "GCAllocationTick", 0, NULL, 0) == 0) &&
      sqlite3_prepare_v2(db, "SELECT EXISTS (SELECT 1 FROM event_blocks WHERE ticks != 0 AND "
                         GCS_IN_INPUT("trace_id") ")", -1, &q, NULL) == SQLITE_OK) {
    if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0))
      fprintf(stderr, "gcscope events: GCAllocationTick is left out (gcscope allocs; view alloc_ticks)\n");
    sqlite3_finalize(q);
  }
  if (filter) regfree(&re);
  gcs_input_close(&in);
  return rc;
}
