/*
 * gcs_diff.h — `gcscope diff BASE CANDIDATE`: two runs' GC figures side by
 * side, with a significance test on the pause distributions and --fail-on
 * rules for CI (docs/diff.md).
 * Errors: prints one line "gcscope diff: ..." and returns 2 (usage), 1
 * (failure, or a --fail-on rule held), 0. Threading: main thread.
 */
#ifndef GCS_DIFF_H
#define GCS_DIFF_H

int gcs_cmd_diff(int argc, char **argv);

#endif
