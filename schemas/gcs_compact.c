/*
 * gcs_compact.c — the SQL of the compact tables (gcs_tables.h, "Compact
 * tables"): for gcs, gc_gens, gc_heaps and gc_heap_gens the base table, the
 * view of the public name and columns, its INSTEAD OF triggers, and the
 * writer's INSERT, all from the column lists of tables_gc.def and
 * gcs_compact_store().
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_tables.h"

#define NGENS 5   /* gen0, gen1, gen2, LOH, POH: a folded table's generations */

struct col { const char *name, *type, *unit; };
struct ctable {
  const char *name;
  const char *key;     /* the view's first column: "id INTEGER PRIMARY KEY" / "gc_id INTEGER NOT NULL" */
  const char *ident;   /* the base row's key columns, as in ON CONFLICT (...) */
  const struct col *cols;
  int ncols;
};

#define COL_ROW(N, T, U, ...) { #N, T, U },
static const struct col cols_gcs[] = { GCS_COLS_gcs(COL_ROW) };
static const struct col cols_gens[] = { GCS_COLS_gc_gens(COL_ROW) };
static const struct col cols_heaps[] = { GCS_COLS_gc_heaps(COL_ROW) };
static const struct col cols_hgens[] = { GCS_COLS_gc_heap_gens(COL_ROW) };
#undef COL_ROW
#define NCOLS(a) (int)(sizeof a / sizeof a[0])
static const struct ctable tables[GCS_COMPACT_COUNT] = {
  { "gcs", "id INTEGER PRIMARY KEY", "id", cols_gcs, NCOLS(cols_gcs) },
  { "gc_gens", "gc_id INTEGER NOT NULL", "gc_id", cols_gens, NCOLS(cols_gens) },
  { "gc_heaps", "gc_id INTEGER NOT NULL", "gc_id, heap_slot", cols_heaps, NCOLS(cols_heaps) },
  { "gc_heap_gens", "gc_id INTEGER NOT NULL", "gc_id, heap_slot", cols_hgens, NCOLS(cols_hgens) },
};

/* The other tables of GCS_TABLES_GC: those keyed by gc_id (gcs.id) hold a
 * GC's rows (gc_loh_waits, gc_mark_times, the DATAS tables ...). */
#define GC_TABLE_ROW(Name, Doc, KeyColumn, COLUMNS, Storage) { #Name, KeyColumn },
static const struct { const char *name, *key; } gc_tables[] = { GCS_TABLES_GC(GC_TABLE_ROW) };
#undef GC_TABLE_ROW

struct buf { char *p; size_t n, cap; int oom; };
static void put(struct buf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (n < 0) { b->oom = 1; return; }
    if (b->p && b->n + (size_t)n < b->cap) { b->n += (size_t)n; return; }
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->n + (size_t)n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) { b->oom = 1; return; }
    b->p = p;
    b->cap = cap;
  }
}
static char *done(struct buf *b) {
  if (b->oom) { free(b->p); return NULL; }
  return b->p;
}

static enum gcs_store store_of(const struct ctable *t, int i) {
  return gcs_compact_store(t->name, t->cols[i].name, t->cols[i].type, t->cols[i].unit);
}
static int per_gen(const struct ctable *t, int i) { return gcs_compact_per_gen(t->name, t->cols[i].name, store_of(t, i)); }
static int folds(const struct ctable *t) { return gcs_compact_folds(t->name); }
/* Stored in the base table once (its key columns among them). */
static int once(const struct ctable *t, int i) {
  enum gcs_store s = store_of(t, i);
  return s != GCS_STORE_JOINED && s != GCS_STORE_GEN && s != GCS_STORE_CR && !per_gen(t, i);
}
/* The key column's name: the key declaration's first word. */
static int has_cr(const struct ctable *t) { return strcmp(t->name, "gcs") == 0; }
/* Column i's place among the CR columns: its group. */
static int cr_index(const struct ctable *t, int i) {
  int n = 0;
  for (int j = 0; j < i; j++) n += store_of(t, j) == GCS_STORE_CR;
  return n;
}
static int key_len(const struct ctable *t) { return (int)strcspn(t->key, " "); }
/* A stored column's name in the base table: NAME, or gK_NAME (k >= 0). */
static void put_name(struct buf *b, const char *n, int k) {
  if (k >= 0) put(b, "g%d_%s", k, n);
  else put(b, "%s", n);
}

/* A value written by hand through a view (its triggers) reads back as the
 * table of the older layout, a column of the declared type, gives it back
 * (typeof() and value), and is stored as the writer stores it:
 *   E6: the REAL column's affinity applied (an integer, or a text that is a
 *     well-formed number, becomes the REAL; another text or a blob stays
 *     itself), then the writer's encoding (gcs_e6_encode): the integer count
 *     of 10^-6 when one reads back as the very REAL, else the REAL. So the
 *     columns an UPDATE leaves alone keep their integers, and a figure
 *     written by hand costs what the writer's does. (Before, every E6 value
 *     a trigger stored was NEW * 1.0: each UPDATE turned the row's integers
 *     into REALs, and a text became 0.0.)
 *   DELTA_NS: the offset from start_ns when it is an exact integer (both
 *     integers, no overflow: NEW - start_ns is an integer); else the row's
 *     times are stored as written (bit GCS_COMPACT_ABS_TIMES of condemned,
 *     as the writer does when an offset would not fit), the base column's
 *     INTEGER affinity the table's own. (Before, a REAL or a text was
 *     stored as NEW - start_ns: 7.5 read back as 9, 'x' as 0.) */
static void put_e6_encoded(struct buf *b, const char *n) {
  put(b, "(SELECT CASE WHEN typeof(r) <> 'real' OR NOT (r > -9e9 AND r < 9e9) THEN r "
         "WHEN (n - 1) / 1e6 = r THEN n - 1 WHEN n / 1e6 = r THEN n WHEN (n + 1) / 1e6 = r THEN n + 1 ELSE r END "
         "FROM (SELECT r, CAST(r * 1e6 + CASE WHEN r * 1e6 < 0 THEN -0.5 ELSE 0.5 END AS INTEGER) AS n "
         "FROM (SELECT CASE WHEN typeof(NEW.%s) IN ('integer', 'real') OR (typeof(NEW.%s) = 'text' AND "
         "NEW.%s = CAST(NEW.%s AS REAL)) THEN CAST(NEW.%s AS REAL) ELSE NEW.%s END AS r)))",
      n, n, n, n, n, n);
}
/* 1 when NEW's DELTA_NS times are stored as written (above). */
static void put_abs_times(struct buf *b, const struct ctable *t) {
  put(b, "(typeof(NEW.start_ns) NOT IN ('integer', 'null')");
  for (int i = 0; i < t->ncols; i++)
    if (store_of(t, i) == GCS_STORE_DELTA_NS)
      put(b, " OR typeof(NEW.%s) NOT IN ('integer', 'null') OR typeof(NEW.%s - coalesce(NEW.start_ns, 0)) = 'real'",
          t->cols[i].name, t->cols[i].name);
  put(b, ")");
}
static void put_encoded(struct buf *b, const struct ctable *t, int i) {
  const char *n = t->cols[i].name;
  switch (store_of(t, i)) {
  case GCS_STORE_E6: put_e6_encoded(b, n); break;
  case GCS_STORE_DELTA_NS:
    put(b, "CASE WHEN ");
    put_abs_times(b, t);
    put(b, " THEN NEW.%s ELSE NEW.%s - coalesce(NEW.start_ns, 0) END", n, n);
    break;
  default: put(b, "NEW.%s", n); break;
  }
}

/* A stored column's declaration: an E6 column has no type affinity (its
 * NOT NULL kept); a generation's copy (k >= 0) may be NULL (the generation
 * absent). */
static void put_decl(struct buf *b, const struct ctable *t, int i, int k) {
  const char *type = t->cols[i].type;
  if (store_of(t, i) == GCS_STORE_E6) type += 4;   /* "REAL" */
  int len = (int)strlen(type);
  const char *nn = strstr(type, " NOT NULL");
  if (k >= 0 && nn) len = (int)(nn - type);
  put(b, ",\n  ");
  put_name(b, t->cols[i].name, k);
  put(b, "%s%.*s", len > 0 && type[0] != ' ' ? " " : "", len, type);
}

/* The packed CR groups of NEW, and the bit of its times stored as written
 * (put_abs_times): with every group NULL, NULL, or that bit and
 * GCS_COMPACT_CR_NULL. */
static void put_cr_packed(struct buf *b, const struct ctable *t) {
  put(b, "CASE WHEN coalesce(NULL");
  for (int i = 0; i < t->ncols; i++)
    if (store_of(t, i) == GCS_STORE_CR) put(b, ", NEW.%s", t->cols[i].name);
  put(b, ") IS NULL THEN CASE WHEN ");
  put_abs_times(b, t);
  put(b, " THEN %lld END ELSE 0", (1LL << GCS_COMPACT_ABS_TIMES) | (1LL << GCS_COMPACT_CR_NULL));
  for (int i = 0; i < t->ncols; i++)
    if (store_of(t, i) == GCS_STORE_CR) put(b, " | ((coalesce(NEW.%s, 0) & 3) << %d)", t->cols[i].name, 2 * cr_index(t, i));
  put(b, " | CASE WHEN ");
  put_abs_times(b, t);
  put(b, " THEN %lld ELSE 0 END END", 1LL << GCS_COMPACT_ABS_TIMES);
}

static void put_table(struct buf *b, const struct ctable *t) {
  put(b, "CREATE TABLE IF NOT EXISTS %s_base (\n  ", t->name);
  if (strcmp(t->name, "gc_gens") == 0) put(b, "gc_id INTEGER PRIMARY KEY");   /* one row per GC: its rowid */
  else put(b, "%s", t->key);
  for (int i = 0; i < t->ncols; i++)
    if (once(t, i)) put_decl(b, t, i, -1);
  if (folds(t)) put(b, ",\n  gens INTEGER NOT NULL");
  if (has_cr(t)) put(b, ",\n  condemned INTEGER");
  for (int k = 0; k < (folds(t) ? NGENS : 0); k++)
    for (int i = 0; i < t->ncols; i++)
      if (per_gen(t, i)) put_decl(b, t, i, k);
  if (strcmp(t->name, "gcs") == 0 || strcmp(t->name, "gc_gens") == 0) put(b, "\n);\n");
  else put(b, ",\n  PRIMARY KEY (%s)\n) WITHOUT ROWID;\n", t->ident);
}

/* The view's expression of stored column i (generation k, or -1). */
static void put_value(struct buf *b, const struct ctable *t, int i, int k) {
  const char *n = t->cols[i].name;
  if (store_of(t, i) == GCS_STORE_E6) {
    put(b, "CASE typeof(b.");
    put_name(b, n, k);
    put(b, ") WHEN 'integer' THEN b.");
    put_name(b, n, k);
    put(b, " / 1e6 ELSE b.");
    put_name(b, n, k);
    put(b, " END");
  } else if (store_of(t, i) == GCS_STORE_DELTA_NS) {   /* as stored when absolute: a text stays one */
    put(b, "CASE WHEN (b.condemned >> %d) & 1 THEN b.%s ELSE b.%s + coalesce(b.start_ns, 0) END",
        GCS_COMPACT_ABS_TIMES, n, n);
  } else {
    put(b, "b.");
    put_name(b, n, k);
  }
}

static void put_view(struct buf *b, const struct ctable *t) {
  int kl = key_len(t);
  put(b, "CREATE VIEW IF NOT EXISTS %s AS SELECT b.%.*s AS %.*s", t->name, kl, t->key, kl, t->key);
  for (int i = 0; i < t->ncols; i++) {
    const char *n = t->cols[i].name;
    put(b, ", ");
    if (store_of(t, i) == GCS_STORE_JOINED) put(b, "c.%s", n);
    else if (store_of(t, i) == GCS_STORE_GEN) put(b, "k.gen");
    else if (store_of(t, i) == GCS_STORE_CR)
      put(b, "CASE WHEN (b.condemned >> %d) & 1 THEN NULL ELSE (b.condemned >> %d) & 3 END", GCS_COMPACT_CR_NULL,
          2 * cr_index(t, i));
    else if (!per_gen(t, i)) put_value(b, t, i, -1);
    else {
      put(b, "CASE k.gen");
      for (int g = 0; g < NGENS; g++) {
        put(b, " WHEN %d THEN ", g);
        put_value(b, t, i, g);
      }
      put(b, " END");
    }
    put(b, " AS %s", n);
  }
  put(b, " FROM %s_base b", t->name);
  if (folds(t)) put(b, " CROSS JOIN (SELECT column1 AS gen FROM (VALUES (0), (1), (2), (3), (4))) k");
  if (strcmp(t->name, "gcs") != 0) put(b, " LEFT JOIN gcs_base c ON c.id = b.gc_id");
  if (folds(t)) put(b, " WHERE (b.gens >> k.gen) & 1");
  put(b, ";\n");
}

/* The base row of OLD (or NEW): its key columns equal. */
static void put_ident(struct buf *b, const struct ctable *t, const char *which) {
  char idents[64];
  snprintf(idents, sizeof idents, "%s", t->ident);
  const char *sep = " WHERE ";
  for (char *c = strtok(idents, ", "); c; c = strtok(NULL, ", ")) {
    put(b, "%s%s = %s.%s", sep, c, which, c);
    sep = " AND ";
  }
}

/* INSERT of NEW into the base table: a folded table's generation k (the
 * statement of NEW.gen) goes into the row of its key, made or updated. */
static void put_insert(struct buf *b, const struct ctable *t) {
  int kl = key_len(t);
  if (!folds(t)) {
    put(b, "INSERT INTO %s_base (%.*s", t->name, kl, t->key);
    for (int i = 0; i < t->ncols; i++)
      if (once(t, i)) put(b, ", %s", t->cols[i].name);
    if (has_cr(t)) put(b, ", condemned");
    put(b, ") VALUES (NEW.%.*s", kl, t->key);
    for (int i = 0; i < t->ncols; i++)
      if (once(t, i)) { put(b, ", "); put_encoded(b, t, i); }
    if (has_cr(t)) { put(b, ", "); put_cr_packed(b, t); }
    put(b, "); ");
    return;
  }
  for (int k = 0; k < NGENS; k++) {
    put(b, "INSERT INTO %s_base (%.*s", t->name, kl, t->key);
    for (int i = 0; i < t->ncols; i++)
      if (once(t, i)) put(b, ", %s", t->cols[i].name);
    put(b, ", gens");
    for (int i = 0; i < t->ncols; i++)
      if (per_gen(t, i)) { put(b, ", "); put_name(b, t->cols[i].name, k); }
    put(b, ") SELECT NEW.%.*s", kl, t->key);
    for (int i = 0; i < t->ncols; i++)
      if (once(t, i)) put(b, ", NEW.%s", t->cols[i].name);
    put(b, ", %d", 1 << k);
    for (int i = 0; i < t->ncols; i++)
      if (per_gen(t, i)) { put(b, ", "); put_encoded(b, t, i); }
    put(b, " WHERE NEW.gen = %d ON CONFLICT (%s) DO UPDATE SET gens = gens | %d", k, t->ident, 1 << k);
    for (int i = 0; i < t->ncols; i++)
      if (per_gen(t, i)) {
        put(b, ", ");
        put_name(b, t->cols[i].name, k);
        put(b, " = excluded.");
        put_name(b, t->cols[i].name, k);
      }
    put(b, "; ");
  }
}

/* DELETE of OLD from the base table: a folded table's generation leaves the
 * mask (its copies stay, unseen, until written again), the row goes with the
 * last one. */
static void put_delete(struct buf *b, const struct ctable *t) {
  if (!folds(t)) {
    put(b, "DELETE FROM %s_base", t->name);
    put_ident(b, t, "OLD");
    put(b, "; ");
    return;
  }
  for (int k = 0; k < NGENS; k++) {
    put(b, "UPDATE %s_base SET gens = gens & %d", t->name, ~(1 << k) & ((1 << NGENS) - 1));
    put_ident(b, t, "OLD");
    put(b, " AND OLD.gen = %d; ", k);
  }
  put(b, "DELETE FROM %s_base", t->name);
  put_ident(b, t, "OLD");
  put(b, " AND gens = 0; ");
}

/* A GC deleted through the view gcs takes its rows in every table keyed
 * by gc_id with it (the other compact tables' and GCS_TABLES_GC's), so that
 * no report counts a row of a GC that is gone (before, they stayed). */
static void put_gc_rows_delete(struct buf *b) {
  for (int t = 0; t < GCS_COMPACT_COUNT; t++)
    if (strcmp(tables[t].name, "gcs") != 0) put(b, "DELETE FROM %s_base WHERE gc_id = OLD.id; ", tables[t].name);
  for (size_t t = 0; t < sizeof gc_tables / sizeof gc_tables[0]; t++)
    if (strncmp(gc_tables[t].key, "gc_id ", 6) == 0) put(b, "DELETE FROM %s WHERE gc_id = OLD.id; ", gc_tables[t].name);
}

/* A condemned-reasons group holds 0..3 (two bits of gcs_base.condemned): a
 * value written by hand outside that is refused, as a CHECK constraint
 * refuses it (before, 5 read back as 1). */
static void put_cr_check(struct buf *b, const struct ctable *t) {
  put(b, "SELECT RAISE(ABORT, 'gcs: a cr_ column holds 0, 1, 2, 3 or NULL') WHERE 0");
  for (int i = 0; i < t->ncols; i++)
    if (store_of(t, i) == GCS_STORE_CR)
      put(b, " OR NOT (NEW.%s IS NULL OR NEW.%s IN (0, 1, 2, 3))", t->cols[i].name, t->cols[i].name);
  put(b, "; ");
}

static void put_triggers(struct buf *b, const struct ctable *t) {
  int kl = key_len(t);
  put(b, "CREATE TRIGGER IF NOT EXISTS %s_insert INSTEAD OF INSERT ON %s BEGIN ", t->name, t->name);
  if (has_cr(t)) put_cr_check(b, t);
  put_insert(b, t);
  put(b, "END;\n");
  put(b, "CREATE TRIGGER IF NOT EXISTS %s_delete INSTEAD OF DELETE ON %s BEGIN ", t->name, t->name);
  put_delete(b, t);
  if (has_cr(t)) put_gc_rows_delete(b);
  put(b, "END;\n");
  put(b, "CREATE TRIGGER IF NOT EXISTS %s_update INSTEAD OF UPDATE ON %s BEGIN ", t->name, t->name);
  if (has_cr(t)) put_cr_check(b, t);
  if (folds(t)) {   /* out with OLD, in with NEW */
    put_delete(b, t);
    put_insert(b, t);
  } else {
    put(b, "UPDATE %s_base SET %.*s = NEW.%.*s", t->name, kl, t->key, kl, t->key);
    for (int i = 0; i < t->ncols; i++)
      if (once(t, i)) { put(b, ", %s = ", t->cols[i].name); put_encoded(b, t, i); }
    if (has_cr(t)) { put(b, ", condemned = "); put_cr_packed(b, t); }
    put_ident(b, t, "OLD");
    put(b, "; ");
  }
  put(b, "END;\n");
}

char *gcs_compact_schema_sql(void) {
  struct buf b = {0};
  for (int t = 0; t < GCS_COMPACT_COUNT; t++)
    if (folds(&tables[t]) && tables[t].ncols + 1 >= GCS_COMPACT_STRIDE) return NULL;   /* parameters would overlap */
  for (int t = 0; t < GCS_COMPACT_COUNT; t++) put_table(&b, &tables[t]);
  for (int t = 0; t < GCS_COMPACT_COUNT; t++) put_view(&b, &tables[t]);
  for (int t = 0; t < GCS_COMPACT_COUNT; t++) put_triggers(&b, &tables[t]);
  put(&b, "%s", GCS_INDEXES_GC_COMPACT(GCS_SQL_INDEX));
  return done(&b);
}

char *gcs_compact_insert_sql(enum gcs_compact_table which) {
  const struct ctable *t = &tables[which];
  int kl = key_len(t);
  struct buf b = {0};
  put(&b, "INSERT INTO %s_base (%.*s", t->name, kl, t->key);
  for (int i = 0; i < t->ncols; i++)
    if (once(t, i)) put(&b, ", %s", t->cols[i].name);
  if (folds(t)) put(&b, ", gens");
  if (has_cr(t)) put(&b, ", condemned");
  for (int k = 0; k < (folds(t) ? NGENS : 1); k++)
    for (int i = 0; i < t->ncols; i++)
      if (per_gen(t, i)) { put(&b, ", "); put_name(&b, t->cols[i].name, folds(t) ? k : -1); }
  put(&b, ") VALUES (?1");
  for (int i = 0; i < t->ncols; i++)
    if (once(t, i)) put(&b, ", ?%d", i + 2);
  if (folds(t)) put(&b, ", ?%d", GCS_COMPACT_GENS_PARAM);
  if (has_cr(t)) put(&b, ", ?%d", GCS_COMPACT_CR_PARAM);
  for (int k = 0; k < (folds(t) ? NGENS : 1); k++)
    for (int i = 0; i < t->ncols; i++)
      if (per_gen(t, i)) put(&b, ", ?%d", i + 2 + k * GCS_COMPACT_STRIDE);
  put(&b, ")");
  return done(&b);
}

char *gcs_schema_sql(void) {
  char *c = gcs_compact_schema_sql();
  if (!c) return NULL;
  struct buf b = {0};
  put(&b, "%s%s", c, GCS_SCHEMA_SQL);
  free(c);
  return done(&b);
}

const char *gcs_schema_sql_kept(void) {
  static char *kept;
  if (!kept) kept = gcs_schema_sql();
  return kept ? kept : "";
}
