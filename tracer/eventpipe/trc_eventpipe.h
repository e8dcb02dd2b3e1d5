/*
 * trc_eventpipe.h — `gcscope record` over EventPipe: a .NET process's GC
 * events through its diagnostics IPC channel (gcs_dsipc.h), written to
 * <outdir>/trace.nettrace as they arrive.
 *
 * Launch mode (a COMMAND): the command starts with
 * DOTNET_DiagnosticPorts=<our socket>,suspend, its runtime connects back and
 * waits, the session starts, then ResumeRuntime: the first GC is recorded.
 * Attach mode (--pid): the process's own diagnostic socket.
 * The recording ends when the process exits (the runtime closes the
 * stream), on SIGINT/SIGTERM or --duration (StopTracing, then the rest of
 * the stream is read to its end), or once --collect-multiple captures are
 * taken. With --stop-on-... triggers nothing but the captures is written:
 * <outdir>/capture-K.nettrace, each the flight recorder's last
 * --circular-mb MB of stream blocks with every metadata block, taken
 * --delay-after-trigger seconds after the pause that fired.
 *
 * Errors: prints one line "gcscope record: ..." and returns the exit status
 * (0 ok, 1 failure, 2 usage). Threading: main thread; installs SIGINT and
 * SIGTERM handlers for the recording and restores the previous ones.
 */
#ifndef TRC_EVENTPIPE_H
#define TRC_EVENTPIPE_H

#include "trc_opts.h"

#define TRC_EP_TRACE_NAME "trace.nettrace"

/* Does this recording go over EventPipe? --transport eventpipe; --dotnet
 * without --transport; --pid of a process with a diagnostic socket. */
int trc_eventpipe_wanted(const struct trc_opts *o);
/* Record into -o DIR (made by the controller; nothing is made for a usage
 * error); --import afterwards. */
int trc_eventpipe_record(const struct trc_opts *o);

#endif
