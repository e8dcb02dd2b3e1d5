/*
 * gcs_export.h — `gcscope export`: the GC timeline of a trace or database as
 * a Perfetto protobuf trace or a Chrome JSON (Trace Event Format) file, to
 * open in ui.perfetto.dev or chrome://tracing.
 *
 * Everything else in analyzer/export/ (the timeline model, the slice nesting,
 * the protobuf encoder and the two writers) is internal.
 *
 * Errors: the command prints one line "gcscope export: ..." on stderr and
 * returns the exit status (0 ok, 1 runtime error, 2 usage error).
 * Threading: call from the main thread.
 */
#ifndef GCS_EXPORT_H
#define GCS_EXPORT_H

int gcs_cmd_export(int argc, char **argv);

#endif
