/*
 * gcs_session.h — gcs_session: one live tracing session and the command it
 * traces, as `gcscope record` (tracer/) and `gcscope top` (tui/) start them.
 * It starts, reads and stops sessions; what is done with the events
 * (captures, stop triggers, the model of `top`) is the caller's.
 *
 *   trc_lttng.h       an LTTng session through liblttng-ctl (local, relayd,
 *                     live, snapshot), the session daemon and an
 *                     lttng-relayd started on demand;
 *   trc_ep_session.h  an EventPipe session on a .NET process (launch or
 *                     attach) and its nettrace stream;
 *   trc_child.h       the traced COMMAND, held until tracing runs;
 *   trc_profile.h     which events a profile enables;
 *   trc_sig.h         SIGINT/SIGTERM, pidfds and the sleeps they end;
 *   trc_outdir.h      the output directory a recording (record -o, top -o,
 *                     serve's per-process directories) is written to: made,
 *                     refused when it already holds a recording, and what a
 *                     failed recording made removed again.
 *
 * Ownership: every struct is the caller's; each header's stop/close/destroy
 * releases what its start acquired, and processes it started (sessiond,
 * relayd, COMMAND) are stopped by their PID.
 * Threading: one thread per session; trc_sig is one per process.
 * Errors: functions return -1 (or NULL) with one line in err, without a
 * "gcscope CMD:" prefix; nothing is printed.
 */
#ifndef GCS_SESSION_H
#define GCS_SESSION_H

#include "trc_child.h"
#include "trc_ep_session.h"
#include "trc_lttng.h"
#include "trc_outdir.h"
#include "trc_profile.h"
#include "trc_sig.h"

#endif
