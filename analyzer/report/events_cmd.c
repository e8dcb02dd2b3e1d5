/* events_cmd.c — `gcscope events DB|TRACE [--trace ID] [--filter REGEX] [--from MS] [--to MS] [--pid PID]`:
 * GC events in time order, like PerfView's Events view (times in ms since
 * the start of each trace). --filter is an extended regular expression
 * matched against the event name, case-insensitively ('GCStart|GCEnd'). */
#include <regex.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_report.h"
#include "gcs_gcdb.h"
#include "rpt_util.h"

static int parse_ms(const char *s, double *out) {
  char *end;
  *out = strtod(s, &end);
  return *s && !*end ? 0 : -1;
}

int gcs_cmd_events(int argc, char **argv) {
  const char *path = NULL, *filter = NULL;
  double from = -1e300, to = 1e300;
  int pid = -1;
  long long trace = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has = i + 1 < argc;
    if (strcmp(a, "--filter") == 0 && has) filter = argv[++i];
    else if (strcmp(a, "--from") == 0 && has) {
      if (parse_ms(argv[++i], &from)) { fprintf(stderr, "gcscope events: bad --from '%s'\n", argv[i]); return 2; }
    } else if (strcmp(a, "--to") == 0 && has) {
      if (parse_ms(argv[++i], &to)) { fprintf(stderr, "gcscope events: bad --to '%s'\n", argv[i]); return 2; }
    } else if (strcmp(a, "--trace") == 0 && has) {
      char *end;
      trace = strtoll(argv[++i], &end, 10);
      if (*end || trace < 0) { fprintf(stderr, "gcscope events: bad --trace '%s'\n", argv[i]); return 2; }
    } else if (strcmp(a, "--pid") == 0 && has) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 0) { fprintf(stderr, "gcscope events: bad --pid '%s'\n", argv[i]); return 2; }
      pid = (int)v;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "gcscope events: unknown option '%s'\n", a);
      return 2;
    } else if (!path) path = a;
    else { fprintf(stderr, "gcscope events: more than one database given ('%s')\n", a); return 2; }
  }
  if (!path) {
    fprintf(stderr, "usage: gcscope events DB|TRACE [--trace ID] [--filter 'GCStart|GCEnd'] [--from MS] [--to MS] [--pid PID]\n");
    return 2;
  }
  regex_t re;
  if (filter && regcomp(&re, filter, REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0) {
    fprintf(stderr, "gcscope events: bad --filter regular expression '%s'\n", filter);
    return 2;
  }
  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = trace};
  sqlite3 *db = gcs_input_open(path, &io, &in, err, sizeof err) == 0 ? in.db : NULL;
  if (!db) {
    fprintf(stderr, "gcscope events: %s\n", err);
    if (filter) regfree(&re);
    return 1;
  }
  sqlite3_stmt *s;
  int rc = 0;
  const char *sql =
      "SELECT e.name, (e.ts_ns - t.start_ns) / 1e6 AS ms, e.pid, e.tid, e.payload, e.trace_id "
      "FROM events e JOIN traces t ON t.id = e.trace_id "
      "WHERE " GCS_IN_INPUT("e.trace_id") " AND (?1 < 0 OR e.pid = ?1) AND (e.ts_ns - t.start_ns) >= ?2 * 1e6 AND (e.ts_ns - t.start_ns) <= ?3 * 1e6 "
      "ORDER BY e.trace_id, e.ts_ns, e.id";
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    fprintf(stderr, "gcscope events: %s\n", sqlite3_errmsg(db));
    rc = 1;
  } else {
    sqlite3_bind_int(s, 1, pid);
    sqlite3_bind_double(s, 2, from);
    sqlite3_bind_double(s, 3, to);
    printf("%-24s %16s %8s %8s  %s\n", "Event Name", "Time MSec", "PID", "TID", "Payload");
    int64_t trace = -1;
    char num[48];
    while (sqlite3_step(s) == SQLITE_ROW) {
      const char *name = (const char *)sqlite3_column_text(s, 0);
      if (filter && regexec(&re, name ? name : "", 0, NULL, 0) != 0) continue;
      int64_t tr = sqlite3_column_int64(s, 5);
      if (tr != trace) {
        if (trace >= 0) printf("-- trace %lld\n", (long long)tr);
        trace = tr;
      }
      printf("%-24s %16s %8d %8d  %s\n", name ? name : "", rpt_num(num, sizeof num, sqlite3_column_double(s, 1), 3),
             sqlite3_column_int(s, 2), sqlite3_column_int(s, 3), (const char *)sqlite3_column_text(s, 4));
    }
    sqlite3_finalize(s);
  }
  if (filter) regfree(&re);
  gcs_input_close(&in);
  return rc;
}
