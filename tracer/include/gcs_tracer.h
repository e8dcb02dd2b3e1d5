/*
 * gcs_tracer.h — the tracer's commands: `gcscope record` and `gcscope ps`.
 *
 * `record` runs one capture controller (trc_capture.h) over the LTTng or
 * the EventPipe transport (lttng/, eventpipe/); the sessions themselves are
 * gcs_session's (tracer/session/include/gcs_session.h), which `gcscope top`
 * uses without linking this library. Everything else in tracer/ is internal.
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
