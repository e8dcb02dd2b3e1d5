/*
 * gcs_compact.c — the SQL of the compact tables (gcs_tables.h, "Compact
 * tables"): for gcs and gc_gens, the base table, the view of the public name
 * and columns, its INSTEAD OF triggers, and the writer's INSERT, all from the
 * column lists of tables_gc.def and gcs_compact_store().
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_tables.h"

struct col { const char *name, *type, *unit; };
struct ctable {
  const char *name, *key;   /* key: "id INTEGER PRIMARY KEY" / "gc_id INTEGER NOT NULL" */
  const char *storage;      /* GCS_ROWID or GCS_KEYED(...) */
  const struct col *cols;
  int ncols;
};

#define COL_ROW(N, T, U, ...) { #N, T, U },
static const struct col cols_gcs[] = { GCS_COLS_gcs(COL_ROW) };
static const struct col cols_gens[] = { GCS_COLS_gc_gens(COL_ROW) };
#undef COL_ROW
static const struct ctable tables[GCS_COMPACT_COUNT] = {
  { "gcs", "id INTEGER PRIMARY KEY", GCS_ROWID, cols_gcs, (int)(sizeof cols_gcs / sizeof cols_gcs[0]) },
  { "gc_gens", "gc_id INTEGER NOT NULL", GCS_KEYED("gc_id, gen"), cols_gens,
    (int)(sizeof cols_gens / sizeof cols_gens[0]) },
};

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
/* The key column's name: the key declaration's first word. */
static int key_len(const struct ctable *t) { return (int)strcspn(t->key, " "); }

/* The value a trigger stores for NEW.name. */
static void put_encoded(struct buf *b, const struct ctable *t, int i) {
  const char *n = t->cols[i].name;
  switch (store_of(t, i)) {
  case GCS_STORE_E6:
    put(b, "CASE WHEN typeof(NEW.%s) IN ('integer', 'real') AND abs(NEW.%s) < 9e9 AND "
           "CAST(round(NEW.%s * 1e6) AS INTEGER) / 1e6 = NEW.%s THEN CAST(round(NEW.%s * 1e6) AS INTEGER) "
           "ELSE NEW.%s END", n, n, n, n, n, n);
    break;
  case GCS_STORE_DELTA_NS: put(b, "NEW.%s - coalesce(NEW.start_ns, 0)", n); break;
  default: put(b, "NEW.%s", n); break;
  }
}

static void put_table(struct buf *b, const struct ctable *t) {
  put(b, "CREATE TABLE IF NOT EXISTS %s_base (\n  %s", t->name, t->key);
  for (int i = 0; i < t->ncols; i++) {
    const struct col *c = &t->cols[i];
    switch (store_of(t, i)) {
    case GCS_STORE_JOINED: break;
    case GCS_STORE_E6: put(b, ",\n  %s%s", c->name, c->type + 4); break;   /* no affinity; NOT NULL kept */
    default: put(b, ",\n  %s %s", c->name, c->type); break;
    }
  }
  put(b, "%s;\n", t->storage);
}

static void put_view(struct buf *b, const struct ctable *t) {
  int kl = key_len(t);
  put(b, "CREATE VIEW IF NOT EXISTS %s AS SELECT b.%.*s AS %.*s", t->name, kl, t->key, kl, t->key);
  for (int i = 0; i < t->ncols; i++) {
    const char *n = t->cols[i].name;
    switch (store_of(t, i)) {
    case GCS_STORE_E6: put(b, ", CASE typeof(b.%s) WHEN 'integer' THEN b.%s / 1e6 ELSE b.%s END AS %s", n, n, n, n); break;
    case GCS_STORE_DELTA_NS: put(b, ", b.%s + coalesce(b.start_ns, 0) AS %s", n, n); break;
    case GCS_STORE_JOINED: put(b, ", c.%s AS %s", n, n); break;
    default: put(b, ", b.%s AS %s", n, n); break;
    }
  }
  put(b, " FROM %s_base b", t->name);
  if (strcmp(t->name, "gc_gens") == 0) put(b, " LEFT JOIN gcs_base c ON c.id = b.gc_id");
  put(b, ";\n");
}

/* The key's WHERE of a base row: the rowid, or the primary key's columns. */
static void put_where_old(struct buf *b, const struct ctable *t) {
  int kl = key_len(t);
  put(b, " WHERE %.*s = OLD.%.*s", kl, t->key, kl, t->key);
  if (strcmp(t->name, "gc_gens") == 0) put(b, " AND gen = OLD.gen");
}

static void put_triggers(struct buf *b, const struct ctable *t) {
  int kl = key_len(t);
  put(b, "CREATE TRIGGER IF NOT EXISTS %s_insert INSTEAD OF INSERT ON %s BEGIN INSERT INTO %s_base (%.*s", t->name,
      t->name, t->name, kl, t->key);
  for (int i = 0; i < t->ncols; i++)
    if (store_of(t, i) != GCS_STORE_JOINED) put(b, ", %s", t->cols[i].name);
  put(b, ") VALUES (NEW.%.*s", kl, t->key);
  for (int i = 0; i < t->ncols; i++)
    if (store_of(t, i) != GCS_STORE_JOINED) { put(b, ", "); put_encoded(b, t, i); }
  put(b, "); END;\n");
  put(b, "CREATE TRIGGER IF NOT EXISTS %s_update INSTEAD OF UPDATE ON %s BEGIN UPDATE %s_base SET %.*s = NEW.%.*s",
      t->name, t->name, t->name, kl, t->key, kl, t->key);
  for (int i = 0; i < t->ncols; i++)
    if (store_of(t, i) != GCS_STORE_JOINED) { put(b, ", %s = ", t->cols[i].name); put_encoded(b, t, i); }
  put_where_old(b, t);
  put(b, "; END;\n");
  put(b, "CREATE TRIGGER IF NOT EXISTS %s_delete INSTEAD OF DELETE ON %s BEGIN DELETE FROM %s_base", t->name, t->name,
      t->name);
  put_where_old(b, t);
  put(b, "; END;\n");
}

char *gcs_compact_schema_sql(void) {
  struct buf b = {0};
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
    if (store_of(t, i) != GCS_STORE_JOINED) put(&b, ", %s", t->cols[i].name);
  put(&b, ") VALUES (?1");
  for (int i = 0; i < t->ncols; i++)
    if (store_of(t, i) != GCS_STORE_JOINED) put(&b, ", ?%d", i + 2);
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
