/*
 * gcs_tracer.h — the tracer's command: `gcscope record`.
 *
 * The tracer owns LTTng sessions (trc_lttng.h), the child command it records
 * (trc_child.h) and the event lists of each profile (trc_profile.h); those
 * three headers are public because `gcscope top` records live with them.
 * Everything else in tracer/ is internal.
 *
 * Errors: the command prints one line "gcscope record: ..." on stderr and
 * returns the exit status (0 ok, 1 runtime error, 2 usage error).
 * Threading: call from the main thread; it installs SIGINT/SIGTERM handlers.
 */
#ifndef GCS_TRACER_H
#define GCS_TRACER_H

int gcs_cmd_record(int argc, char **argv);
/* `gcscope ps`: the .NET processes with a diagnostic socket (pid, name,
 * runtime version, command line); sockets that cannot be queried are
 * listed with the reason. */
int gcs_cmd_ps(int argc, char **argv);

#endif
