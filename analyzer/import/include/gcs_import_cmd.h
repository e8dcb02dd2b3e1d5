/*
 * gcs_import_cmd.h — `gcscope import`: the command line over the shared
 * import engine (core/import, gcs_db.h).
 *
 * Errors: prints one line "gcscope import: ..." on stderr and returns the exit
 * status (0 ok, 1 runtime error, 2 usage error). Threading: main thread.
 */
#ifndef GCS_IMPORT_CMD_H
#define GCS_IMPORT_CMD_H

int gcs_cmd_import(int argc, char **argv);

#endif
