/*
 * triggers_cmd.c — `gcscope triggers DB|TRACE --gc-over MS --suspend-over MS
 * --bgc-final-pause-over MS`: which GCs would have fired the tracer's stop
 * triggers (ins_triggers.h), from the events table, plus the distribution of
 * each measured duration to choose thresholds from history.
 */
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_gcdb.h"
#include "gcs_insight.h"
#include "gcs_events.h"
#include "ins_db.h"
#include "ins_out.h"
#include "ins_stats.h"
#include "ins_triggers.h"

#define CMD "triggers"

/* An enum field printed by name (or as a number when unknown). */
static uint32_t enum_value(const char *map, const char *tok) {
  char *end;
  unsigned long v = strtoul(tok, &end, 10);
  if (end != tok && *end == '\0') return (uint32_t)v;
  for (uint32_t i = 0; i < 256; i++) {
    const char *nm = gcs_map_name(map, i);
    if (nm && strcmp(nm, tok) == 0) return i;
  }
  return UINT32_MAX;
}

static uint32_t field_u32(const char *payload, const char *name, const char *map) {
  char buf[64];
  if (ins_payload_field(payload, name, buf, sizeof buf) != 0) return 0;
  if (map) return enum_value(map, buf);
  return (uint32_t)strtoul(buf, NULL, 10);
}

static void usage(void) {
  fprintf(stderr, "usage: gcscope triggers DB|TRACE [--gc-over MS] [--suspend-over MS] [--bgc-final-pause-over MS]\n"
                  "                        [--trace ID] [--pid PID] [--format text|csv|json]\n");
}

struct trace_trig {
  int64_t trace_id, start_ns;
  struct ins_trig *t;
};

static int load(sqlite3 *db, long pid, struct trace_trig **out, size_t *n) {
  sqlite3_stmt *st;
  *out = NULL;
  *n = 0;
  if (sqlite3_prepare_v2(db,
                         "SELECT e.trace_id, coalesce(t.start_ns, 0), e.name, e.ts_ns, e.pid, e.tid, e.payload "
                         "FROM events e LEFT JOIN traces t ON t.id = e.trace_id WHERE e.name IN ('GCSuspendEEBegin', "
                         "'GCSuspendEEEnd', 'GCStart', 'GCEnd', 'GCRestartEEEnd') AND (?1 < 0 OR e.pid = ?1) "
                         "AND " GCS_IN_INPUT("e.trace_id") " "
                         "ORDER BY e.trace_id, e.ts_ns, e.id",
                         -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "gcscope %s: database: %s\n", CMD, sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_int64(st, 1, pid);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t tr = sqlite3_column_int64(st, 0);
    if (*n == 0 || (*out)[*n - 1].trace_id != tr) {
      struct trace_trig *nt = realloc(*out, (*n + 1) * sizeof *nt);
      if (!nt) break;
      *out = nt;
      nt[*n] = (struct trace_trig){tr, sqlite3_column_int64(st, 1), ins_trig_new()};
      if (!nt[(*n)++].t) break;
    }
    const char *name = (const char *)sqlite3_column_text(st, 2);
    const char *payload = (const char *)sqlite3_column_text(st, 6);
    struct ins_tev ev = {.ts_ns = sqlite3_column_int64(st, 3), .pid = sqlite3_column_int(st, 4),
                         .tid = sqlite3_column_int(st, 5)};
    if (strcmp(name, "GCSuspendEEBegin") == 0) {
      ev.kind = INS_TEV_SUSPEND_BEGIN;
      ev.count = field_u32(payload, "Count", NULL);
      ev.arg = field_u32(payload, "Reason", "suspend_reason");
    } else if (strcmp(name, "GCSuspendEEEnd") == 0) {
      ev.kind = INS_TEV_SUSPEND_END;
    } else if (strcmp(name, "GCStart") == 0) {
      ev.kind = INS_TEV_GC_START;
      ev.count = field_u32(payload, "Count", NULL);
      ev.arg = field_u32(payload, "Type", "gc_type");
    } else if (strcmp(name, "GCEnd") == 0) {
      ev.kind = INS_TEV_GC_END;
      ev.count = field_u32(payload, "Count", NULL);
    } else {
      ev.kind = INS_TEV_RESTART_END;
    }
    if (ins_trig_feed((*out)[*n - 1].t, &ev) != 0) break;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    fprintf(stderr, "gcscope %s: %s\n", CMD, rc == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

int gcs_cmd_triggers(int argc, char **argv) {
  const char *input = NULL;
  double thr[INS_TRIG_N] = {NAN, NAN, NAN};
  static const char *const opt[INS_TRIG_N] = {"--gc-over", "--suspend-over", "--bgc-final-pause-over"};
  long pid = -1, trace = -1;
  enum ins_format fmt = INS_TEXT;
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    int r = 0, matched = 0;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) { usage(); return 0; }
    for (int k = 0; k < INS_TRIG_N && !matched; k++)
      if ((r = ins_opt(CMD, argc, argv, &i, opt[k], &v))) {
        matched = 1;
        if (r < 0 || ins_opt_double(CMD, opt[k], v, &thr[k])) return 2;
      }
    if (matched) continue;
    if ((r = ins_opt(CMD, argc, argv, &i, "--pid", &v))) {
      if (r < 0 || ins_opt_long(CMD, "--pid", v, &pid)) return 2;
    } else if ((r = ins_opt(CMD, argc, argv, &i, "--trace", &v))) {
      if (r < 0 || ins_opt_long(CMD, "--trace", v, &trace)) return 2;
    } else if ((r = ins_opt(CMD, argc, argv, &i, "--format", &v))) {
      int f = r < 0 ? -1 : ins_parse_format(v);
      if (f < 0) { fprintf(stderr, "gcscope %s: --format: text, csv or json\n", CMD); return 2; }
      fmt = (enum ins_format)f;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "gcscope %s: unknown option '%s'\n", CMD, argv[i]);
      return 2;
    } else if (!input) input = argv[i];
    else { fprintf(stderr, "gcscope %s: one DB or TRACE only ('%s')\n", CMD, argv[i]); return 2; }
  }
  if (!input) { usage(); return 2; }
  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = trace};
  if (gcs_input_open(input, &io, &in, err, sizeof err)) {
    fprintf(stderr, "gcscope %s: %s\n", CMD, err);
    return 1;
  }
  sqlite3 *db = in.db;
  struct trace_trig *tt = NULL;
  size_t nt = 0;
  int rc = load(db, pid, &tt, &nt) == 0 ? 0 : 1;
  gcs_input_close(&in);
  if (rc == 0 && nt == 0) {
    fprintf(stderr, "gcscope %s: no GC suspension/start/end events in %s\n", CMD, input);
    rc = 1;
  }
  if (rc == 0) {
    if (fmt == INS_CSV) printf("trace_id,trigger,threshold_ms,pid,tid,gc_index,start_ms,duration_ms\n");
    if (fmt == INS_JSON) printf("{\"traces\": [");
    for (size_t t = 0; t < nt; t++) {
      if (fmt == INS_TEXT) printf("Trace %" PRId64 "\n", tt[t].trace_id);
      if (fmt == INS_JSON) printf("%s\n  {\"trace_id\": %" PRId64 ", \"triggers\": [", t ? "," : "", tt[t].trace_id);
      for (int k = 0; k < INS_TRIG_N; k++) {
        size_t n;
        const struct ins_trig_pair *p = ins_trig_pairs(tt[t].t, (enum ins_trigger)k, &n);
        double *d = malloc((n ? n : 1) * sizeof *d);
        if (!d) { rc = 1; break; }
        size_t fired = 0;
        for (size_t i = 0; i < n; i++) {
          d[i] = p[i].ms;
          fired += !isnan(thr[k]) && ins_trig_fires(p[i].ms, thr[k]);
        }
        qsort(d, n, sizeof *d, ins_cmp_double);
        double q[4] = {ins_percentile_sorted(d, n, 50), ins_percentile_sorted(d, n, 90),
                       ins_percentile_sorted(d, n, 99), ins_percentile_sorted(d, n, 100)};
        free(d);
        if (fmt == INS_TEXT) {
          printf("  %-21s %6zu pairs   P50 ", ins_trigger_names[k], n);
          ins_num(stdout, fmt, q[0]);
          printf("  P90 ");
          ins_num(stdout, fmt, q[1]);
          printf("  P99 ");
          ins_num(stdout, fmt, q[2]);
          printf("  Max ");
          ins_num(stdout, fmt, q[3]);
          printf(" ms");
          if (!isnan(thr[k])) printf("   over %.3f ms: %zu", thr[k], fired);
          printf("\n");
        } else if (fmt == INS_JSON) {
          printf("%s\n    {\"trigger\": \"%s\", \"pairs\": %zu, \"p50_ms\": ", k ? "," : "", ins_trigger_names[k], n);
          ins_num(stdout, fmt, q[0]);
          printf(", \"p90_ms\": ");
          ins_num(stdout, fmt, q[1]);
          printf(", \"p99_ms\": ");
          ins_num(stdout, fmt, q[2]);
          printf(", \"max_ms\": ");
          ins_num(stdout, fmt, q[3]);
          printf(", \"threshold_ms\": ");
          ins_num(stdout, fmt, thr[k]);
          printf(", \"fired\": [");
        }
        size_t shown = 0;
        for (size_t i = 0; i < n && !isnan(thr[k]); i++) {
          if (!ins_trig_fires(p[i].ms, thr[k])) continue;
          double start = (double)(p[i].start_ns - tt[t].start_ns) / 1e6;
          if (fmt == INS_TEXT)
            printf("    pid %d tid %d GC #%u at %.3f ms: %.3f ms\n", p[i].pid, p[i].tid, p[i].gc_index, start, p[i].ms);
          else if (fmt == INS_CSV)
            printf("%" PRId64 ",%s,%.3f,%d,%d,%u,%.3f,%.3f\n", tt[t].trace_id, ins_trigger_names[k], thr[k], p[i].pid,
                   p[i].tid, p[i].gc_index, start, p[i].ms);
          else
            printf("%s{\"pid\": %d, \"tid\": %d, \"gc_index\": %u, \"start_ms\": %.3f, \"duration_ms\": %.3f}",
                   shown ? ", " : "", p[i].pid, p[i].tid, p[i].gc_index, start, p[i].ms);
          shown++;
        }
        if (fmt == INS_JSON) printf("]}");
      }
      if (fmt == INS_JSON) printf("]}");
    }
    if (fmt == INS_JSON) printf("\n]}\n");
  }
  for (size_t t = 0; t < nt; t++) ins_trig_free(tt[t].t);
  free(tt);
  return rc;
}
