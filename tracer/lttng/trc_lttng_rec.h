/*
 * trc_lttng_rec.h — `gcscope record` over LTTng: the session (local, to an
 * lttng-relayd, or a flight recorder), the command or --pid it is limited
 * to, and the stop triggers timed by LTTng trigger notifications
 * (trc_watch.h), a capture being a snapshot (trc_capture.h drives it).
 *
 * Errors: prints "gcscope record: ..." lines and returns the exit status.
 * Threading: main thread; SIGINT/SIGTERM/SIGCHLD handlers while recording.
 */
#ifndef TRC_LTTNG_REC_H
#define TRC_LTTNG_REC_H

#include "trc_opts.h"

/* Record into -o DIR (made by the controller), or to the --relayd URL; --import afterwards. */
int trc_lttng_record(const struct trc_opts *o);

#endif
