/*
 * trc_watch.h — live GC lifecycle events through LTTng triggers.
 *
 * For each of GCSuspendEEBegin, GCSuspendEEEnd, GCStart, GCEnd, GCHeapStats
 * and GCRestartEEEnd (rgc, and with dotnet CoreCLR's DotNETRuntime versions)
 * it registers a trigger "event-rule-matches -> notify" capturing $ctx.vpid,
 * $ctx.vtid and the fields the stop-trigger rules read (gcs_triggers.h:
 * gcs_triggers_event_fields; other payload fields stay 0), subscribes to them on a
 * notification channel, and turns each notification into a struct gcs_event
 * (ts_ns = the time the notification was received, CLOCK_REALTIME; measured
 * here ~0.2 ms after the tracepoint). Independent of recording sessions: the
 * triggers see the events whether or not a session records them.
 *
 * Ownership: trc_watch_start returns an object released by trc_watch_stop,
 * which also unregisters the triggers. Threading: one thread.
 * Errors: trc_watch_start returns NULL with a one-line reason in err;
 * trc_watch_poll returns -1 when the session daemon went away or sent what
 * is not a notification (trc_watch_error says which, in one line).
 */
#ifndef TRC_WATCH_H
#define TRC_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gcs_events.h"

struct trc_watch;
typedef void (*trc_watch_fn)(const struct gcs_event *ev, void *ud);

struct trc_watch *trc_watch_start(int dotnet, pid_t pid_filter, char *err, size_t errlen);
/* Deliver the notifications already received (at most 1,024 messages a call:
 * the rest wait for the next), without blocking: a message is read only once
 * all of it has arrived, and its header is checked first (a notification or
 * "dropped", no file descriptor, at most 64 KiB). Returns the number of
 * events delivered, or -1: the daemon stopped answering (trc_ctl_hung),
 * closed the channel, sent a malformed message, or sent part of one and
 * nothing more for $GCSCOPE_SESSIOND_TIMEOUT seconds. After -1 every call
 * returns -1 at once. */
int trc_watch_poll(struct trc_watch *w, trc_watch_fn fn, void *ud);
/* After trc_watch_poll returned -1: why, in one line (no "gcscope ..:"
 * prefix). */
const char *trc_watch_error(const struct trc_watch *w);
/* Notifications the daemon dropped because we read too slowly. */
uint64_t trc_watch_dropped(const struct trc_watch *w);
/* Notifications the traced programs discarded because their notification
 * pipe to the daemon was full (the daemon read too slowly): the sum of the
 * triggers' "discarded tracer messages" error counters, for every process
 * (the triggers have no vpid filter). Nothing else reports these losses.
 * One daemon round trip per trigger. Returns 0, or -1 if not readable. */
int trc_watch_discarded(struct trc_watch *w, uint64_t *count);
void trc_watch_stop(struct trc_watch *w);

#endif
