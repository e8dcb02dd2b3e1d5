/*
 * gcs_stacks.h — call stacks of events: deduplicated storage at import, the
 * resolution of their frames, and loading them back for reports.
 *
 * Import side (struct gcs_stacks_build, one per trace being imported):
 * every stack an event carries is interned per process (the same
 * instruction pointers, the same id), method events (MethodLoadVerbose
 * during the recording, the rundown's MethodDCEndVerbose at its end) are
 * collected, and at the end of the trace every distinct address is
 * resolved to the method whose native code contains it. The stacks, frames
 * and stack_symbols tables (schemas/tables_stacks.def) are then written:
 * a frame once per trace by name, a stack once per trace and process.
 * The ids handed out during the import are the final stacks.id values, so
 * the events written meanwhile can refer to them.
 *
 * Report side (struct gcs_stacks_db): the stacks and frames of the traces a
 * report reads, by stacks.id.
 *
 * Ownership: each object is owned by its creator and freed with its _free.
 * Strings returned point into the object and live as long as it.
 * Threading: one thread per object. Errors: -1 with a one-line message in
 * err (out of memory, a database error); nothing is printed.
 */
#ifndef GCS_STACKS_H
#define GCS_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_events.h"

typedef struct sqlite3 sqlite3;

/* ---- import ---------------------------------------------------------------- */

struct gcs_stacks_build;

/* For trace trace_id of db (the ids continue after the largest stacks.id in
 * db). NULL when out of memory or the query fails (err says which). */
struct gcs_stacks_build *gcs_stacks_build_new(sqlite3 *db, int64_t trace_id, char *err, size_t errlen);
void gcs_stacks_build_free(struct gcs_stacks_build *b);

/* The stacks.id of the stack of process pid; 0 past the import's bound
 * (16 M distinct stacks or 1 GB of their addresses: the event is then stored
 * without a stack); -1 when out of memory. */
int64_t gcs_stacks_intern(struct gcs_stacks_build *b, int32_t pid, const struct gcs_stack *st);

/* A method event (gcs_kind_is_symbols). 0, or -1 when out of memory. */
int gcs_stacks_add_method(struct gcs_stacks_build *b, const struct gcs_event *ev);

/* A module of process pid from LTTng-UST's statedump
 * (lttng_ust_statedump:bin_info: its path, where it was mapped, its size):
 * librgc's native frames are resolved from the symbols of these files
 * (elfutils libdwfl) when no method event names them. 0, or -1 when out of
 * memory. */
int gcs_stacks_add_module(struct gcs_stacks_build *b, int32_t pid, uint64_t base, uint64_t memsz, const char *path,
                          int is_pic);

/* Resolve and write the tables (inside the caller's transaction). */
int gcs_stacks_store(struct gcs_stacks_build *b, char *err, size_t errlen);

/* ---- reports --------------------------------------------------------------- */

struct gcs_stacks_db;

struct gcs_stack_row {
  int64_t id;
  int64_t trace_id;
  int32_t pid;
  uint32_t depth;
  int truncated;
  const uint32_t *frame;  /* indexes into the frame table (gcs_stacks_frame), leaf first */
};

struct gcs_stacks_symbols {  /* one stack_symbols row */
  int64_t trace_id;
  int32_t pid;
  uint64_t jit_methods, rundown_methods, addresses, unresolved;
  uint64_t native_modules;   /* statedump modules (librgc); 0: none */
  const char *native_note;   /* why native frames did not resolve, NULL */
};

/* The stacks, frames and stack_symbols rows of the traces in
 * temp.input_traces when that table exists (gcs_input_open), else of every
 * trace. A database without the tables loads as empty. */
struct gcs_stacks_db *gcs_stacks_load(sqlite3 *db, char *err, size_t errlen);
void gcs_stacks_db_free(struct gcs_stacks_db *s);
/* The stack with this stacks.id, NULL if unknown. */
const struct gcs_stack_row *gcs_stacks_get(const struct gcs_stacks_db *s, int64_t id);
/* Frame i: its name and whether it resolved. */
const char *gcs_stacks_frame(const struct gcs_stacks_db *s, uint32_t i, int *resolved);
/* The stack_symbols rows. */
const struct gcs_stacks_symbols *gcs_stacks_symbols(const struct gcs_stacks_db *s, size_t *n);
size_t gcs_stacks_count(const struct gcs_stacks_db *s);

#endif /* GCS_STACKS_H */

/* ---- the events with their stacks ------------------------------------------ */

struct gcs_stacks_query {
  enum gcs_kind kind;        /* the event (GCAllocationTick, GCTriggered, SetGCHandle, any) */
  int64_t trace_id;          /* one trace of the input; -1: every one */
  int32_t pid;               /* -1: every process */
  int64_t from_ns, to_ns;    /* since the trace start (traces.start_ns); -1: open */
};

struct gcs_stacks_sample {
  int64_t trace_id;
  int32_t pid;
  int64_t stack_id;          /* stacks.id; -1: recorded without a stack */
  const char *type_name;     /* GCAllocationTick: the type ("unknown" when the tick has none); else NULL */
  int64_t value;             /* GCAllocationTick: AllocationKind; GCTriggered: Reason; SetGCHandle: Kind; else -1 */
  uint64_t bytes;            /* GCAllocationTick: AllocationAmount(64); else 0 */
};

/* Calls cb for every event of q in the traces of temp.input_traces
 * (gcs_input_open), in storage order; a non-zero return stops. Returns the
 * number of events, or -1 with a message (a database error). */
typedef int (*gcs_stacks_sample_cb)(const struct gcs_stacks_sample *s, void *ud);
long long gcs_stacks_samples(sqlite3 *db, const struct gcs_stacks_query *q, gcs_stacks_sample_cb cb, void *ud,
                             char *err, size_t errlen);

/* ---- the advisor's sentence --------------------------------------------------- */

enum gcs_stacks_hint_kind { GCS_STACKS_HINT_INDUCED, GCS_STACKS_HINT_ALLOC, GCS_STACKS_HINT_PINS };

/* One sentence naming the code behind an advisor finding, from the stacks of
 * process pid of trace trace_id: the callers of GC.Collect (the first frame
 * past System.GC's own) for the requested GCs (gcs_reason_is_requested), the
 * top allocating code by estimated bytes (the first frame outside System.*,
 * Microsoft.*, Internal.*), or where pinned handles are made; with counts
 * and how many had no stack. 1 with the sentence in out, 0 when there are no
 * such stacks (out ""), -1 on a database error. */
int gcs_stacks_hint(sqlite3 *db, int64_t trace_id, int32_t pid, enum gcs_stacks_hint_kind what, char *out,
                    size_t outlen);
