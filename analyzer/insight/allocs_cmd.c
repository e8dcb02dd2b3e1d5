/*
 * allocs_cmd.c — `gcscope allocs DB|TRACE`: top types by sampled allocation
 * bytes per process, split Small / Large (LOH) / Pinned (POH), from
 * GCAllocationTick (alloc_ticks). The ticks are samples: one about every
 * 100 KB per heap and kind, naming the type whose allocation crossed the
 * threshold, so small-object figures are estimates (LOH ones are close).
 */
#include <sqlite3.h>
#include <stdio.h>

#include "gcs_enums.h"
#include "gcs_gcdb.h"
#include "gcs_insight.h"
#include "ins_db.h"
#include "ins_sqlview.h"

#define CMD "allocs"

static const char SYNOPSIS[] = "DB|TRACE [--trace ID] [--pid PID] [--top N] [--format text|csv] [-d DB]";

/* Ranked per process; ?1 pid filter, ?2 top N. The "%d" are the schema's
 * GCS_ALLOC_KIND_SMALL, _LARGE and _PINNED, filled in at run time. */
static const char SQL_FMT[] =
    "WITH t AS (SELECT a.trace_id, a.pid, coalesce(ty.name, '(unknown type)') AS type, count(*) AS ticks, "
    " sum(a.amount) AS bytes, "
    " sum(CASE WHEN a.kind = %d THEN a.amount ELSE 0 END) AS small_bytes, "
    " sum(CASE WHEN a.kind = %d THEN a.amount ELSE 0 END) AS large_bytes, "
    " sum(CASE WHEN a.kind = %d THEN a.amount ELSE 0 END) AS pinned_bytes "
    " FROM alloc_ticks a LEFT JOIN types ty ON ty.id = a.type_id WHERE " GCS_IN_INPUT("a.trace_id") " AND (?1 < 0 OR a.pid = ?1) "
    " GROUP BY a.trace_id, a.pid, a.type_id), "
    "r AS (SELECT *, row_number() OVER (PARTITION BY trace_id, pid ORDER BY bytes DESC, type) AS rank, "
    " sum(bytes) OVER (PARTITION BY trace_id, pid) AS proc_bytes FROM t) "
    "SELECT trace_id, pid, rank, type, ticks, round(bytes / 1e6, 3) AS sampled_mb, "
    " round(bytes * 100.0 / proc_bytes, 3) AS pct, round(small_bytes / 1e6, 3) AS small_mb, "
    " round(large_bytes / 1e6, 3) AS large_mb, round(pinned_bytes / 1e6, 3) AS pinned_mb "
    "FROM r WHERE rank <= ?2 ORDER BY trace_id, pid, rank";

int gcs_cmd_allocs(int argc, char **argv) {
  struct ins_view_opts o;
  int a = ins_view_args(CMD, SYNOPSIS, INS_VIEW_TOP, argc, argv, &o);
  if (a) return a == 1 ? 0 : 2;
  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = o.trace, .db_path = o.db_path};
  if (gcs_input_open(o.input, &io, &in, err, sizeof err)) {
    fprintf(stderr, "gcscope %s: %s\n", CMD, err);
    return 1;
  }

  sqlite3 *db = in.db;
  int any = ins_view_any(CMD, db, "SELECT EXISTS (SELECT 1 FROM alloc_ticks a WHERE " GCS_IN_INPUT("a.trace_id")
                         " AND (?1 < 0 OR a.pid = ?1))", &o);
  if (any <= 0) {
    if (any == 0)
      fprintf(stderr, "gcscope %s: no AllocationTick events in %s: record them with `gcscope record --profile alloc` "
                      "(the GC keyword at Verbose level)\n", CMD, o.input);
    gcs_input_close(&in);
    return 1;
  }
  gcs_input_warn_discarded(&in, stderr, "gcscope " CMD ": ");
  static char sql[sizeof SQL_FMT + 32];
  snprintf(sql, sizeof sql, SQL_FMT, (int)GCS_ALLOC_KIND_SMALL, (int)GCS_ALLOC_KIND_LARGE, (int)GCS_ALLOC_KIND_PINNED);
  long rows = ins_view_print(CMD, db,
                             "Top allocated types per process (AllocationTick samples: about one per 100 KB per "
                             "heap and kind; small-object figures are estimates, LOH ones close)",
                             sql, &o);
  gcs_input_close(&in);
  return rows > 0 ? 0 : 1;
}
