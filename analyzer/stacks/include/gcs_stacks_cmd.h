/*
 * gcs_stacks_cmd.h — `gcscope stacks`: the call stacks of events
 * (AllocationTick, GCTriggered, GCHandle or any event by name), grouped by
 * type, reason or handle kind, as PerfView's stack views: text trees
 * (top-down and bottom-up), JSON, folded stacks, pprof.
 *
 * Errors: one line "gcscope stacks: ..." on stderr; returns the exit status
 * (0 ok, 1 runtime error, 2 usage error). Threading: the main thread.
 */
#ifndef GCS_STACKS_CMD_H
#define GCS_STACKS_CMD_H

int gcs_cmd_stacks(int argc, char **argv);
/* `gcscope diff BASE CANDIDATE --stacks [...]`: argv as diff got it. */
int gcs_stacks_diff(int argc, char **argv);

/* For the advisor (`gcscope advise`): one sentence naming the code behind a
 * finding, from the stacks of process pid of trace trace_id: the callers of
 * GC.Collect (induced), the top allocating code by estimated bytes (alloc),
 * where pinned handles are made (pins), with the counts and how many had no
 * stack. Returns 1 with the sentence in out, 0 when the process has no such
 * stacks (out ""), -1 on a database error. db must have the input's
 * temp.input_traces (gcs_input_open). */
typedef struct sqlite3 sqlite3;
#include <stdint.h>
#include <stddef.h>
enum gcs_stacks_hint_kind { GCS_STACKS_HINT_INDUCED, GCS_STACKS_HINT_ALLOC, GCS_STACKS_HINT_PINS };
int gcs_stacks_hint(sqlite3 *db, int64_t trace_id, int32_t pid, enum gcs_stacks_hint_kind what, char *out,
                    size_t outlen);

#endif /* GCS_STACKS_CMD_H */
