/*
 * gcs_tables.h — C view of the database schema defined in schemas/tables_*.def.
 *
 * Table definition format (X-macro):
 *   TABLE(Name, Doc, KeyColumn, COLUMNS, Storage)
 *     KeyColumn  a string literal with the first column and its constraint,
 *                e.g. "id INTEGER PRIMARY KEY"
 *     Storage    GCS_ROWID (an ordinary rowid table) or GCS_KEYED("a, b"): a
 *                WITHOUT ROWID table whose primary key is (a, b) — rows
 *                stored in key order, no separate index by that key
 *     COLUMNS    a macro taking (C): C(Name, SqlType, Unit, Doc), SqlType a string
 *                literal ("INTEGER", "REAL NOT NULL", "TEXT" ...), Unit as in
 *                gc_events.def plus "ms" (milliseconds since the trace start,
 *                PerfView's time base), "mb" (10^6 bytes), "pct".
 *                The tables core/recon writes (tables_gc.def) add a fifth,
 *                C(Name, SqlType, Unit, Doc, Bind): where the value comes from,
 *                as core/recon/recon_store.c binds it (see tables_gc.def).
 *   VIEW(Name, Doc, SelectSql)
 *   INDEX(Name, Table, ColumnsSql)  created after a bulk load
 *
 * The lists: GCS_TABLES_RAW (tables_raw.def: traces, processes, event_blocks
 * and the other raw histories import writes), GCS_TABLES_LEGACY (the tables
 * an older database has where a newer one has views) and GCS_TABLES_GC (tables_gc.def: the
 * reconstructed GCs and their per-generation / per-heap figures), and
 * GCS_VIEWS, GCS_INDEXES.
 *
 * Threading/ownership: the strings are static constants.
 */
#ifndef GCS_TABLES_H
#define GCS_TABLES_H

#include <string.h>

#include "gc_enums.def"
#include "tables_raw.def"
#include "tables_gc.def"
#include "tables_stacks.def"

/* A value of a gc_enums.def map in SQL, by its constant: GCS_SQL_ENUM(gc_type,
 * BACKGROUND) is a constant subquery over the map's rows that SQLite
 * evaluates once, so `type = GCS_SQL_ENUM(...)` still uses an index. The
 * views use it instead of bare numbers (a misspelt constant selects nothing:
 * schemas' tests read the views). */
#define GCS_SQL_ENUM_ROW(Value, Name, C) "SELECT " #Value " AS v, '" #C "' AS c UNION ALL "
#define GCS_SQL_ENUM(Map, Const) \
  "(SELECT v FROM (" GCS_MAP_##Map(GCS_SQL_ENUM_ROW) "SELECT NULL, NULL) WHERE c = '" #Const "')"

/* Index of each condemned-reasons group (PerfView's CondemnedReasonGroup) in
 * struct gcs_gc's condemned[] row and among the gcs table's cr_* columns,
 * named after its column: GCS_cr_induced, GCS_cr_final_generation... */
#define GCS_CONDEMN_GROUP_INDEX(Index, Column, Header) GCS_##Column = Index,
enum gcs_condemn_group { GCS_CONDEMN_GROUPS(GCS_CONDEMN_GROUP_INDEX) };
#undef GCS_CONDEMN_GROUP_INDEX

/* The values of the cr_induced group: how an induced GC was requested. */
enum gcs_condemn_induced { GCS_CR_INDUCED_BLOCKING = 1, GCS_CR_INDUCED_NOT_FORCED = 2 };

#define GCS_SQL_COL(Name, SqlType, ...) ",\n  " #Name " " SqlType
/* The end of a CREATE TABLE after its columns (Storage above). */
#define GCS_ROWID "\n)"
#define GCS_KEYED(KeyColumns) ",\n  PRIMARY KEY (" KeyColumns ")\n) WITHOUT ROWID"
#define GCS_SQL_TABLE(Name, Doc, KeyColumn, COLUMNS, Storage) \
  "CREATE TABLE IF NOT EXISTS " #Name " (\n  " KeyColumn COLUMNS(GCS_SQL_COL) Storage ";\n"
#define GCS_SQL_VIEW(Name, Doc, SelectSql) "CREATE VIEW IF NOT EXISTS " #Name " AS " SelectSql ";\n"
#define GCS_SQL_INDEX(Name, Table, ColumnsSql) \
  "CREATE INDEX IF NOT EXISTS " #Name " ON " #Table "(" ColumnsSql ");\n"

/* Whole schema as one SQL script (tables and views; indexes separately). */
#define GCS_SCHEMA_SQL \
  GCS_TABLES_RAW(GCS_SQL_TABLE) GCS_TABLES_GC(GCS_SQL_TABLE) GCS_TABLES_STACKS(GCS_SQL_TABLE) \
  GCS_VIEWS(GCS_SQL_VIEW) GCS_VIEWS_GC(GCS_SQL_VIEW) GCS_VIEWS_STACKS(GCS_SQL_VIEW)
#define GCS_INDEX_SQL GCS_INDEXES(GCS_SQL_INDEX) GCS_INDEXES_GC(GCS_SQL_INDEX) GCS_INDEXES_STACKS(GCS_SQL_INDEX)
/* The tables of an older database that are views now (tests build such databases). */
#define GCS_LEGACY_SQL GCS_TABLES_LEGACY(GCS_SQL_TABLE)


/* ---- Compact tables (GCS_TABLES_GC_COMPACT) ---------------------------
 * Each is a view of today's name and columns over a table NAME_base that
 * stores each column as gcs_compact_store() says (the one rule, which the
 * writer core/recon, the SQL below and docs/schema.md all follow):
 *   PLAIN     as declared
 *   E6        a figure in ms or MB (REAL, unit ms/mb): the integer count of
 *             ns or bytes n when (double)n / 1e6 is exactly the figure (the
 *             view divides: SQLite's double division is C's), else the REAL
 *             itself; the column has no type affinity, so the view tells them
 *             apart by typeof()
 *   DELTA_NS  a gcs event time but start_ns: its offset from start_ns (the
 *             time itself when start_ns is NULL, or when an offset would not
 *             fit in 64 bits: a crafted trace's times, or a time written by
 *             hand through the view that is no integer; then bit
 *             GCS_COMPACT_ABS_TIMES of condemned is set)
 *   JOINED    trace_id, pid and gc_index of the per-GC tables: not stored,
 *             the view takes them from gcs_base (a LEFT JOIN: a row whose GC
 *             is not in gcs_base, written by hand, stays visible, and
 *             deletable, as in a table; a GC deleted through the view gcs
 *             takes its rows in every table keyed by gc_id with it)
 *   CR        gcs' condemned-reasons groups cr_* (each 0..3 by construction:
 *             recon_calc.c's decode): packed, group i in bits 2i..2i+1 of the
 *             column condemned (NULL when every group is NULL)
 *   GEN       gen of a folded table (gc_gens, gc_heap_gens): one base row
 *             holds the five generations (per GC; per GC and heap), each
 *             other column five times (g0_NAME ... g4_NAME), and `gens`, the
 *             bit mask of the generations present; the view has a row per
 *             generation present
 * INSTEAD OF triggers make the views writable (INSERT, UPDATE, DELETE), as
 * the tables of the older layout were: a value written reads back as such a
 * table gives it back, and is stored by the rules above (gcs_compact.c);
 * DELETE on gcs also deletes the GC's rows of gc_gens, gc_heaps,
 * gc_heap_gens and every GCS_TABLES_GC table keyed by gc_id. A database made before has gcs as a
 * table: it is read as it is, and an import into it is refused
 * (gcs_db_gc_layout_old, core/import). */
enum gcs_store { GCS_STORE_PLAIN, GCS_STORE_E6, GCS_STORE_DELTA_NS, GCS_STORE_JOINED, GCS_STORE_GEN, GCS_STORE_CR };
/* The writer (core/recon/recon_store.c) calls these per column with string
 * literals, per GC: always inlined, their strcmp calls fold to constants
 * (left to the inliner's judgement they did not, and cost 5 % of an import). */
#define GCS_COMPACT_INLINE static inline __attribute__((always_inline))
GCS_COMPACT_INLINE int gcs_compact_folds(const char *table) {
  return strcmp(table, "gc_gens") == 0 || strcmp(table, "gc_heap_gens") == 0;
}
GCS_COMPACT_INLINE enum gcs_store gcs_compact_store(const char *table, const char *name, const char *type,
                                               const char *unit) {
  int gcs = strcmp(table, "gcs") == 0;
  if (!gcs && !gcs_compact_folds(table) && strcmp(table, "gc_heaps") != 0) return GCS_STORE_PLAIN;
  if (!gcs && (strcmp(name, "trace_id") == 0 || strcmp(name, "pid") == 0 || strcmp(name, "gc_index") == 0))
    return GCS_STORE_JOINED;
  if (gcs_compact_folds(table) && strcmp(name, "gen") == 0) return GCS_STORE_GEN;
  if (gcs && strncmp(name, "cr_", 3) == 0) return GCS_STORE_CR;
  if (strncmp(type, "REAL", 4) == 0 && (strcmp(unit, "ms") == 0 || strcmp(unit, "mb") == 0)) return GCS_STORE_E6;
  if (gcs && strcmp(unit, "ns") == 0 && strcmp(name, "start_ns") != 0) return GCS_STORE_DELTA_NS;
  return GCS_STORE_PLAIN;
}
/* A column stored once per generation (a folded table's, but its key
 * columns, gen and the JOINED). */
GCS_COMPACT_INLINE int gcs_compact_per_gen(const char *table, const char *name, enum gcs_store store) {
  return gcs_compact_folds(table) && store != GCS_STORE_JOINED && store != GCS_STORE_GEN && store != GCS_STORE_CR &&
         strcmp(name, "heap_slot") != 0;
}
/* The integer an E6 column stores for figure v (finite), or 0 with *exact = 0
 * when none reads back as v. */
static inline long long gcs_e6_encode(double v, int *exact) {
  *exact = 0;
  if (!(v > -9e9 && v < 9e9)) return 0;   /* |n| < 2^53: the conversion back is exact */
  double w = v * 1e6;
  long long n = (long long)(w < 0 ? w - 0.5 : w + 0.5);
  for (long long c = n - 1; c <= n + 1; c++)
    if ((double)c / 1e6 == v) { *exact = 1; return c; }
  return 0;
}

enum gcs_compact_table { GCS_COMPACT_GCS, GCS_COMPACT_GC_GENS, GCS_COMPACT_GC_HEAPS, GCS_COMPACT_GC_HEAP_GENS,
                         GCS_COMPACT_COUNT };
/* The writer's parameters: ?N for the column at place N of the view (1 the
 * key; a JOINED or GEN column's number is left unused); in a folded table
 * generation k's copy is ?(N + k * GCS_COMPACT_STRIDE), the mask `gens`
 * ?GCS_COMPACT_GENS_PARAM; gcs' packed CR groups ?GCS_COMPACT_CR_PARAM (a CR
 * column's own number left unused). */
#define GCS_COMPACT_STRIDE 32
#define GCS_COMPACT_GENS_PARAM 160
#define GCS_COMPACT_CR_PARAM 200   /* gcs_base.condemned */
/* Bit of gcs_base.condemned (above the 30 groups' 60 bits): this row's
 * DELTA_NS times are absolute (the writer: an offset would not fit; a
 * trigger: also a time written by hand that is no integer). */
#define GCS_COMPACT_ABS_TIMES 60
/* Bit of gcs_base.condemned: every CR group is NULL (a row written by hand
 * through the view, its times absolute: condemned is NULL otherwise). */
#define GCS_COMPACT_CR_NULL 61
/* What a DELTA_NS column of gcs_base row T adds to its value. */
#define GCS_COMPACT_TIME_BASE(T) "CASE WHEN (" T ".condemned >> 60) & 1 THEN 0 ELSE coalesce(" T ".start_ns, 0) END"
/* The compact tables' SQL (schemas/gcs_compact.c), malloc'ed (NULL: out of
 * memory): the tables, views, triggers and gcs_base's indexes (CREATE ...
 * IF NOT EXISTS), and the writer's INSERT into a base table. */
char *gcs_compact_schema_sql(void);
char *gcs_compact_insert_sql(enum gcs_compact_table t);
/* The whole schema of a new database: the compact tables' SQL, then
 * GCS_SCHEMA_SQL (malloc'ed; NULL: out of memory). */
char *gcs_schema_sql(void);
/* The same, made once and kept (never freed) for tests and benches that
 * build databases by hand; not thread-safe on its first call. "" when out of
 * memory. */
const char *gcs_schema_sql_kept(void);

#endif /* GCS_TABLES_H */
