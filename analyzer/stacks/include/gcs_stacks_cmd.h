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
/* `gcscope diff BASE CANDIDATE --stacks [...]` and `gcscope allocs ...
 * --stacks` (gcscope.c routes them here): argv as the command got it. */
int gcs_stacks_diff(int argc, char **argv);
int gcs_cmd_allocs_stacks(int argc, char **argv);

#endif /* GCS_STACKS_CMD_H */
