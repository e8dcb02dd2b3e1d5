/*
 * fuzz_stacks.c — libFuzzer target: the stacks path of a .nettrace file.
 * The reader decodes StackBlocks (nt_stacks.c) and the method events
 * (MethodLoadVerbose, the rundown's MethodDCEndVerbose); every delivered
 * event's stack is interned and every method event collected by core/stacks
 * as the import does (import_writer.c), then the stacks, frames and
 * stack_symbols rows are resolved and written to an in-memory database and
 * loaded back as a report would (every stack's frames read by name). The
 * database is created once; each input runs inside a transaction rolled
 * back at its end. The sort buffer's limits are lowered as in
 * fuzz_nettrace.c. An error must be one line naming the input.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_stacks.h"
#include "gcs_tables.h"
#include "nt_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sink { struct gcs_stacks_build *b; size_t sum; int oom; };

static int on_event(const struct gcs_event *ev, void *ud) {
  struct sink *k = ud;
  char text[4096];
  k->sum += gcs_event_format(ev, text, sizeof text);
  if (ev->stack) {
    for (uint32_t i = 0; i < ev->stack->depth; i++) k->sum += (size_t)ev->stack->ip[i];
    if (gcs_stacks_intern(k->b, ev->pid, ev->stack) < 0) k->oom = 1;
  }
  if (gcs_kind_is_symbols(ev->kind) && gcs_stacks_add_method(k->b, ev) != 0) k->oom = 1;
  return k->oom;
}

static sqlite3 *open_db(void) {
  sqlite3 *db;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) abort();
  if (sqlite3_exec(db, gcs_schema_sql_kept(), NULL, NULL, NULL) != SQLITE_OK) abort();
  if (sqlite3_exec(db, GCS_INDEX_SQL, NULL, NULL, NULL) != SQLITE_OK) abort();
  if (sqlite3_exec(db, "INSERT INTO traces(id, path, identity, event_count, gc_event_count, discarded, source, imported_ns) "
                       "VALUES (1, 'fuzz', 'fuzz', 0, 0, 0, 'nettrace', 0)", NULL, NULL, NULL) != SQLITE_OK) abort();
  return db;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sqlite3 *db;
  if (!db) db = open_db();
  char err[1024] = "";
  if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) abort();
  struct sink k = { gcs_stacks_build_new(db, 1, err, sizeof err), 0, 0 };
  if (!k.b) abort();
  struct gcs_nettrace_stream *s = gcs_nettrace_stream_new("fuzz-input", on_event, NULL, &k);
  if (!s) abort();
  nt_stream_set_limits(s, 4096, 64u << 10);
  nt_stream_set_sorted_flush_min(s, 64);
  int rc = gcs_nettrace_stream_feed(s, data, size, err, sizeof err);
  if (rc == 0) rc = gcs_nettrace_stream_finish(s, err, sizeof err);
  if (rc != 0 && !k.oom && (strncmp(err, "fuzz-input: ", 12) != 0 || strchr(err, '\n'))) __builtin_trap();
  gcs_nettrace_stream_free(s);
  /* Whatever was delivered before an error is stored, as an import keeps it. */
  if (gcs_stacks_store(k.b, err, sizeof err) != 0) __builtin_trap();
  gcs_stacks_build_free(k.b);
  struct gcs_stacks_db *sd = gcs_stacks_load(db, err, sizeof err);
  if (!sd) __builtin_trap();
  size_t n = gcs_stacks_count(sd);
  for (int64_t id = 1; id <= (int64_t)n; id++) {
    const struct gcs_stack_row *r = gcs_stacks_get(sd, id);
    if (!r) __builtin_trap();  /* ids are 1..n in a fresh database */
    for (uint32_t i = 0; i < r->depth; i++) {
      int resolved;
      const char *name = gcs_stacks_frame(sd, r->frame[i], &resolved);
      if (!name) __builtin_trap();
      k.sum += strlen(name) + (size_t)resolved;
    }
  }
  size_t nsym;
  const struct gcs_stacks_symbols *sym = gcs_stacks_symbols(sd, &nsym);
  for (size_t i = 0; i < nsym; i++) k.sum += sym[i].addresses + sym[i].unresolved;
  gcs_stacks_db_free(sd);
  if (sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK) abort();
  return k.sum == 1 ? 1 : 0;  /* keeps sum live; libFuzzer ignores the value */
}
