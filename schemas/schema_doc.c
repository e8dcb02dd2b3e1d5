/* schema_doc.c — prints docs/schema.md from the schema X-macros, so the
 * reference documentation of every event and table is derived from the one
 * definition. `gcs-schema-doc > docs/schema.md`; the test schemas.doc_current
 * fails when the committed file is stale. */
#include <stdio.h>
#include <string.h>

#include "gcs_events.h"
#include "gcs_tables.h"

static const char *type_name(enum gcs_type t) {
  static const char *const names[] = { "u8", "u16", "u32", "i32", "u64", "ptr", "bool32", "string", "guid", "f32" };
  return names[t];
}

static const char *provider_name(const struct gcs_event_desc *d) {
  switch (d->provider) {
  case GCS_PROV_RUNTIME: return GCS_CLR_RUNTIME_PROVIDER;
  case GCS_PROV_PRIVATE: return GCS_CLR_PRIVATE_PROVIDER;
  case GCS_PROV_RUNDOWN: return GCS_CLR_RUNDOWN_PROVIDER;
  default: return "—";
  }
}

static void print_events(void) {
  printf("## Events (schemas/gc_events.def)\n\n");
  printf("Names and fields are CoreCLR's manifest symbols. librgc emits `rgc:<Symbol>` with one CTF\n"
         "field per field below (arrays as CTF sequences); the analyzer decodes the same structs from\n"
         "`rgc:*`, CoreCLR's LTTng events (per-field or packed `__data__`) and .nettrace payloads.\n"
         "\"since\" is the first event version with the field (ETW payload layout). An array\n"
         "`Name[Count ≤ N]` holds at most N elements (its capacity: 16; 12 for GCFitBucketInfo's\n"
         "buckets, the runtime's NUM_GEN2_ALIST; 1024 for one element per heap); an event whose\n"
         "Count is larger is flagged truncated, and no figure is drawn from its arrays (it is\n"
         "counted in gc_process_summary.array_events_left_out).\n\n");
  printf("| event | rgc symbol | CoreCLR provider | ID | version | emitted by librgc | meaning |\n");
  printf("|---|---|---|---|---|---|---|\n");
  for (int k = 0; k < GCS_KIND_COUNT; k++) {
    const struct gcs_event_desc *d = &gcs_event_descs[k];
    printf("| %s | %s | %s | %u | %u | %s | %s |\n", d->name,
           d->where == GCS_CLR_ONLY ? "—" : d->symbol, provider_name(d), d->etw_id, d->version,
           d->where == GCS_CLR_ONLY ? "no" : "yes", d->doc);
  }
  printf("\n");
  for (int k = 0; k < GCS_KIND_COUNT; k++) {
    const struct gcs_event_desc *d = &gcs_event_descs[k];
    printf("### %s\n\n%s.\n\n| field | type | since | unit | meaning |\n|---|---|---|---|---|\n",
           d->name, d->doc);
    for (int i = 0; i < d->nfields; i++) {
      const struct gcs_field_desc *f = &d->fields[i];
      if (f->is_array)
        printf("| %s[%s ≤ %u] | %s | %u | %s | %s |\n", f->name, d->fields[f->count_field].name,
               (unsigned)f->capacity, type_name(f->type), f->since, f->unit, f->doc);
      else
        printf("| %s | %s | %u | %s | %s |\n", f->name, type_name(f->type), f->since, f->unit, f->doc);
    }
    printf("\n");
  }
}

static void print_maps(void) {
  static const char *const maps[] = {
#define MAP_NAME(Map, Prefix, IsFlags, Doc) #Map,
    GCS_MAP_LIST(MAP_NAME)
#undef MAP_NAME
  };
  printf("## Value maps (schemas/gc_enums.def)\n\n| map | used by | values |\n|---|---|---|\n");
  for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
    const struct gcs_map_desc *m = gcs_map_find(maps[i]);
    printf("| %s | %s | ", m->name, m->doc);
    for (int e = 0; e < m->nentries; e++)
      printf(m->is_flags ? "%s0x%x %s" : "%s%u %s", e ? ", " : "", m->entries[e].value, m->entries[e].name);
    printf(" |\n");
  }
  printf("\n");
}

/* A WITHOUT ROWID table's key, said in its heading; "" for a rowid table. */
static const char *doc_storage(const char *storage) {
  static char buf[160];
  const char *k = strstr(storage, "PRIMARY KEY (");
  if (!k) return "";
  k += strlen("PRIMARY KEY (");
  int n = (int)strcspn(k, ")");
  snprintf(buf, sizeof buf, " One row per (%.*s): the primary key of a WITHOUT ROWID table (rows stored in key order).", n, k);
  return buf;
}

#define DOC_COL(Name, SqlType, Unit, ...) DOC_COL_(Name, SqlType, Unit, __VA_ARGS__, )
#define DOC_COL_(Name, SqlType, Unit, Doc, ...) printf("| %s | %s | %s | %s |\n", #Name, SqlType, Unit, Doc);
#define DOC_TABLE(Name, Doc, KeyColumn, COLUMNS, Storage)                               \
  printf("### %s\n\n%s.%s\n\n| column | type | unit | meaning |\n|---|---|---|---|\n", #Name, Doc,   \
         doc_storage(Storage));                                                          \
  printf("| %s | | | key |\n", KeyColumn);                                              \
  COLUMNS(DOC_COL)                                                                       \
  printf("\n");
/* gcs, gc_gens: views over compact tables (gcs_tables.h); the columns users
 * query are the view's, documented as before, each with how it is stored. */
static const char *doc_store(const char *table, const char *name, const char *type, const char *unit) {
  switch (gcs_compact_store(table, name, type, unit)) {
  case GCS_STORE_E6: return " Stored as the integer count of 10^-6 (ns, bytes) when that / 1e6 is the exact figure.";
  case GCS_STORE_DELTA_NS: return " Stored as its offset from start_ns.";
  case GCS_STORE_JOINED: return " Not stored: from gcs_base.";
  default: return "";
  }
}
#define DOC_CCOL(Name, SqlType, Unit, ...) DOC_CCOL_(Name, SqlType, Unit, __VA_ARGS__, )
#define DOC_CCOL_(Name, SqlType, Unit, Doc, ...) \
  printf("| %s | %s | %s | %s%s |\n", #Name, SqlType, Unit, Doc, doc_store(table_, #Name, SqlType, Unit));
#define DOC_COMPACT(Name, Doc, KeyColumn, COLUMNS, Storage)                                                \
  {                                                                                                      \
    const char *table_ = #Name;                                                                          \
    printf("### %s\n\n%s.%s A view over the table %s_base (see \"Compact tables\" below), writable "      \
           "through its triggers.\n\n| column | type | unit | meaning |\n|---|---|---|---|\n",             \
           #Name, Doc, doc_storage(Storage), #Name);                                                     \
    printf("| %s | | | key |\n", KeyColumn);                                                              \
    COLUMNS(DOC_CCOL)                                                                                    \
    printf("\n");                                                                                        \
  }
#define DOC_LEGACY(Name, Doc, KeyColumn, COLUMNS, Storage)                                      \
  printf("#### legacy_%s\n\n%s.\n\n| column | type | unit | meaning |\n|---|---|---|---|\n", #Name, Doc); \
  printf("| %s | | | key |\n", KeyColumn);                                              \
  COLUMNS(DOC_COL)                                                                       \
  printf("\n");
#define DOC_VIEW(Name, Doc, SelectSql) printf("| %s | %s |\n", #Name, Doc);

static void print_tables(void) {
  printf("## Database tables (schemas/tables_raw.def, schemas/tables_gc.def, schemas/tables_stacks.def)\n\n"
         "Units: ns = ns since the Unix epoch (or a duration in ns), ms = milliseconds (points in time\n"
         "relative to the trace start), mb = 10^6 bytes, pct = percent. NULL where PerfView prints NaN.\n\n"
         "Schema version: PRAGMA user_version, the number of tables added since the first release\n"
         "(core/import/gcs_db.c, added_tables), set by every import. A database of version V has every\n"
         "table below but those added after V; one that lacks such a table had it dropped, and is\n"
         "refused (\"damaged database: table frames is missing\"). Version 0: written before versions\n"
         "(an older database); a table it lacks is made, empty.\n\n");
  GCS_TABLES_RAW(DOC_TABLE)
  GCS_TABLES_GC_COMPACT(DOC_COMPACT)
  GCS_TABLES_GC(DOC_TABLE)
  GCS_TABLES_STACKS(DOC_TABLE)
  printf("### Views\n\n| view | meaning |\n|---|---|\n");
  GCS_VIEWS(DOC_VIEW)
  GCS_VIEWS_GC(DOC_VIEW)
  GCS_VIEWS_STACKS(DOC_VIEW)
  printf("\n### Tables of older databases\n\n"
         "A database made before event_blocks held one row per event in the tables events and alloc_ticks.\n"
         "Opened for writing (an import, or the first report), it keeps them renamed, and its views\n"
         "events and alloc_ticks show their rows before the packed ones (fields NULL).\n\n");
  GCS_TABLES_LEGACY(DOC_LEGACY)
  printf("\n### Compact tables\n\n"
         "gcs and gc_gens are views over gcs_base and gc_gens_base, which store the same rows in fewer\n"
         "bytes: a figure in ms or MB as the integer count of ns or bytes when that integer / 1e6 is\n"
         "exactly the figure (else the REAL itself: the columns have no type affinity, and the view\n"
         "divides the integers), gcs' event times but start_ns as offsets from start_ns, and gc_gens_base\n"
         "without trace_id, pid and gc_index (the view joins gcs_base). Query the views; INSERT, UPDATE\n"
         "and DELETE on them go to the base tables through INSTEAD OF triggers. A value written through\n"
         "a view reads back as a column of its declared type gives it back (typeof() and value: 5 in a\n"
         "REAL column reads 5.0, 7.5 in an INTEGER column 7.5, a text that is no number stays one), and\n"
         "is stored as the import stores it: a figure as the integer count when one is exact (an UPDATE\n"
         "leaves the other columns' storage as it was); a time that is no integer, or whose offset from\n"
         "start_ns would not fit in 64 bits, makes the row's times absolute (bit 60 of\n"
         "gcs_base.condemned; bit 61: every cr_ column NULL). DELETE on gcs also deletes the GC's rows\n"
         "in every table keyed by gc_id (gc_gens, gc_heaps, gc_heap_gens, gc_loh_waits, gc_mark_times,\n"
         "gc_loh_compact, gc_fit_buckets, the gc_datas_ tables), so no report counts a row of a GC that\n"
         "is gone; gc_process_summary, the process's figures as imported, is left as it was (import the\n"
         "trace into a new database for figures without the GC). A database gets today's triggers at\n"
         "its next import. A database made before\n"
         "has gcs and gc_gens as tables: every report reads it; an import into it is refused (import\n"
         "into a new database).\n");
}

int main(void) {
  printf("# gcscope schema reference\n\n"
         "Generated by `gcs-schema-doc` from `schemas/` (do not edit by hand; rebuild and run\n"
         "`build/bin/gcs-schema-doc > docs/schema.md`).\n\n");
  print_events();
  print_maps();
  print_tables();
  return 0;
}
