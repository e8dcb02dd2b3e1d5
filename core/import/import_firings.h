/*
 * import_firings.h — record's firings.tsv into trigger_firings (private to
 * core/import). Ownership: nothing kept. Threading: the import's writer
 * connection. Errors: -1 when the database refuses a row (no file, or lines
 * that are not record's, are not errors).
 */
#ifndef IMPORT_FIRINGS_H
#define IMPORT_FIRINGS_H

#include <sqlite3.h>
#include <stdint.h>

/* label: the trace as named (a capture directory or .nettrace file); the
 * firings file is beside it. *stored: rows written. */
int import_firings(sqlite3 *db, int64_t trace_id, const char *label, uint64_t start_ns, uint64_t end_ns,
                   int *stored);

#endif
