/*
 * allocs_cmd.c — `gcscope allocs DB|TRACE`: top types by sampled allocation
 * bytes per process, split Small / Large (LOH) / Pinned (POH), from
 * GCAllocationTick (alloc_ticks). The ticks are samples: one about every
 * 100 KB per heap and kind, naming the type whose allocation crossed the
 * threshold, so small-object figures are estimates (LOH ones are close).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_enums.h"
#include "gcs_gcdb.h"
#include "gcs_insight.h"
#include "ins_db.h"
#include "ins_sqlview.h"

#define CMD "allocs"

static const char SYNOPSIS[] = "DB|TRACE [--trace ID] [--pid PID] [--top N] [-w] [--format text|csv] [-d DB]\n"
                               "DB|TRACE --stacks [gcscope stacks' options]: the types with their allocating stacks\n"
                               "  (gcscope stacks --event AllocationTick)";

/* The sums per trace, process and type are made here, in a hash table, not
 * by SQLite's GROUP BY, which sorted every tick first (1.7 M ticks of a
 * synthetic 3 M-event trace: 1.1 of the command's 1.6 s CPU); the ranking
 * then runs on the sums (temp.alloc_sums), with the same figures. ?1 pid
 * filter. */
static const char TICKS_SQL[] =
    "SELECT a.trace_id, a.pid, a.type_id, a.kind, a.amount FROM alloc_ticks a WHERE " GCS_IN_INPUT("a.trace_id")
    " AND (?1 < 0 OR a.pid = ?1)";

/* Ranked per process; ?2 top N. */
static const char RANK_SQL[] =
    "WITH t AS (SELECT s.trace_id, s.pid, coalesce(ty.name, '(unknown type)') AS type, s.ticks, s.bytes, "
    " s.small_bytes, s.large_bytes, s.pinned_bytes FROM temp.alloc_sums s LEFT JOIN types ty ON ty.id = s.type_id), "
    "r AS (SELECT *, row_number() OVER (PARTITION BY trace_id, pid ORDER BY bytes DESC, type) AS rank, "
    " sum(bytes) OVER (PARTITION BY trace_id, pid) AS proc_bytes FROM t) "
    "SELECT trace_id, pid, rank, type, ticks, round(bytes / 1e6, 3) AS sampled_mb, "
    " round(bytes * 100.0 / proc_bytes, 3) AS pct, round(small_bytes / 1e6, 3) AS small_mb, "
    " round(large_bytes / 1e6, 3) AS large_mb, round(pinned_bytes / 1e6, 3) AS pinned_mb "
    "FROM r WHERE rank <= ?2 ORDER BY trace_id, pid, rank";

/* One (trace, pid, type) group; type_id -1 with no_type: NULL. */
struct group {
  int used, no_type;
  int64_t trace, pid, type_id;
  int64_t ticks, bytes, kind_bytes[3];  /* small, large, pinned */
};
struct groups { struct group *v; size_t n, cap; };

static uint64_t group_hash(int64_t trace, int64_t pid, int64_t type_id, int no_type) {
  uint64_t h = (uint64_t)trace * 0x9e3779b97f4a7c15ull ^ (uint64_t)pid * 0xc2b2ae3d27d4eb4full ^
               ((uint64_t)type_id + (uint64_t)no_type) * 0x165667b19e3779f9ull;
  return h ^ (h >> 29);
}

static struct group *group_find(struct groups *g, int64_t trace, int64_t pid, int64_t type_id, int no_type) {
  if (2 * (g->n + 1) > g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 1024;
    struct group *v = calloc(cap, sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < g->cap; i++) {
      if (!g->v[i].used) continue;
      const struct group *o = &g->v[i];
      size_t k = group_hash(o->trace, o->pid, o->type_id, o->no_type) & (cap - 1);
      while (v[k].used) k = (k + 1) & (cap - 1);
      v[k] = *o;
    }
    free(g->v);
    g->v = v;
    g->cap = cap;
  }
  size_t k = group_hash(trace, pid, type_id, no_type) & (g->cap - 1);
  for (;; k = (k + 1) & (g->cap - 1)) {
    struct group *e = &g->v[k];
    if (!e->used) {
      *e = (struct group){ .used = 1, .no_type = no_type, .trace = trace, .pid = pid, .type_id = type_id };
      g->n++;
      return e;
    }
    if (e->trace == trace && e->pid == pid && e->type_id == type_id && e->no_type == no_type) return e;
  }
}

/* temp.alloc_sums := the ticks' sums per trace, pid and type. -1 after a message. */
static int sum_ticks(sqlite3 *db, long pid) {
  struct groups g = {0};
  sqlite3_stmt *q = NULL, *ins = NULL;
  int rc = sqlite3_exec(db, "DROP TABLE IF EXISTS temp.alloc_sums; CREATE TEMP TABLE alloc_sums(trace_id INTEGER, "
                        "pid INTEGER, type_id INTEGER, ticks INTEGER, bytes INTEGER, small_bytes INTEGER, "
                        "large_bytes INTEGER, pinned_bytes INTEGER)", NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, TICKS_SQL, -1, &q, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(q, 1, pid);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
      int no_type = sqlite3_column_type(q, 2) == SQLITE_NULL;
      struct group *e = group_find(&g, sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 1),
                                   no_type ? -1 : sqlite3_column_int64(q, 2), no_type);
      if (!e) { rc = SQLITE_NOMEM; break; }
      int64_t kind = sqlite3_column_int64(q, 3), amount = sqlite3_column_int64(q, 4);
      e->ticks++;
      e->bytes += amount;
      if (kind == GCS_ALLOC_KIND_SMALL) e->kind_bytes[0] += amount;
      else if (kind == GCS_ALLOC_KIND_LARGE) e->kind_bytes[1] += amount;
      else if (kind == GCS_ALLOC_KIND_PINNED) e->kind_bytes[2] += amount;
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "INSERT INTO temp.alloc_sums VALUES(?,?,?,?,?,?,?,?)", -1, &ins, NULL);
  for (size_t i = 0; rc == SQLITE_OK && i < g.cap; i++) {
    const struct group *e = &g.v[i];
    if (!e->used) continue;
    sqlite3_bind_int64(ins, 1, e->trace);
    sqlite3_bind_int64(ins, 2, e->pid);
    if (e->no_type) sqlite3_bind_null(ins, 3); else sqlite3_bind_int64(ins, 3, e->type_id);
    sqlite3_bind_int64(ins, 4, e->ticks);
    sqlite3_bind_int64(ins, 5, e->bytes);
    for (int k = 0; k < 3; k++) sqlite3_bind_int64(ins, 6 + k, e->kind_bytes[k]);
    rc = sqlite3_step(ins);
    sqlite3_reset(ins);
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  if (rc != SQLITE_OK) {
    fprintf(stderr, "gcscope %s: %s\n", CMD, rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  }
  sqlite3_finalize(q);
  sqlite3_finalize(ins);
  free(g.v);
  return rc == SQLITE_OK ? 0 : -1;
}

int gcs_cmd_allocs(int argc, char **argv) {
  struct ins_view_opts o;
  int a = ins_view_args(CMD, SYNOPSIS, INS_VIEW_TOP | INS_VIEW_WIDE, argc, argv, &o);
  if (a) return a == 1 ? 0 : 2;
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = o.trace, .db_path = o.db_path};
  if (gcs_input_open_report(CMD, o.input, &io, &in)) return 1;

  sqlite3 *db = in.db;
  int any = ins_view_any(CMD, db, "SELECT EXISTS (SELECT 1 FROM alloc_ticks a WHERE " GCS_IN_INPUT("a.trace_id")
                         " AND (?1 < 0 OR a.pid = ?1))", &o);
  if (any <= 0) {
    if (any == 0)
      fprintf(stderr, "gcscope %s: no AllocationTick events in %s (record with --profile alloc)\n", CMD, o.input);
    gcs_input_close(&in);
    return 1;
  }
  if (sum_ticks(db, o.pid) != 0) {
    gcs_input_close(&in);
    return 1;
  }
  long rows = ins_view_print(CMD, db,
                             "Top allocated types per process (AllocationTick samples: about one per 100 KB per "
                             "heap and kind; small-object figures are estimates, LOH ones close)",
                             RANK_SQL, &o);
  gcs_input_close(&in);
  return rows > 0 ? 0 : 1;
}
