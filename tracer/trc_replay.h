/*
 * trc_replay.h — a recorded trace (CTF, or an EventPipe .nettrace file) replayed through the stop-trigger rules
 * (gcs_triggers.h), timed by the events' own timestamps.
 *
 * `record` times its live triggers by when LTTng's trigger notifications
 * arrive, which lags the events under load. After recording, the trace
 * itself says what happened: trc_replay gives the exact summary (the GC count
 * and the longest pause, as `gcscope stats` computes them) and, for a
 * capture, whether the pause that fired live really was over the threshold.
 *
 * Ownership: struct trc_replay is the caller's; it holds no pointers.
 * Threading: reentrant. Errors: -1 with a one-line message in err (no trace
 * under path, or babeltrace2 could not read it).
 */
#ifndef TRC_REPLAY_H
#define TRC_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_triggers.h"

struct trc_replay {
  struct gcs_trigger_summary sum;   /* every process replayed */
  uint64_t events;                  /* events read */
  uint64_t first_ns, last_ns;       /* the first and last event's timestamps (0 if none) */
  uint64_t lost;                    /* events the tracer discarded */
  int truncated;                    /* a .nettrace cut short: its intact part was replayed */
  uint64_t fired;                   /* pairs over their threshold */
  int matched;                      /* a pair matching `want` was found: match */
  struct gcs_trigger_pair match;
  uint64_t req_start[4], req_stop[4]; /* .nettrace: request events by source (gcs_nettrace_req_source) */
};

/* Replay the CTF trace(s) under path (a session directory or a capture), or
 * the .nettrace file path.
 * th: PerfView's three triggers and their thresholds (NULL: none on). pid > 0: that process only. want, if
 * not NULL, is a pair seen live: the replay looks for the same pause in the
 * trace: the same kind and process, and the same GC (gc-over,
 * bgc-final-pause-over, a resolved suspend-over) or, for a suspension not
 * resolved to a GC, the one whose begin is nearest want's. */
int trc_replay(const char *path, const struct gcs_trigger_thresholds *th, int pid,
               const struct gcs_trigger_pair *want, struct trc_replay *out, char *err, size_t errlen);
/* The same through one rule (gcs_rules.h) instead of the thresholds; its
 * limits are not applied (a capture starts inside the recording). */
struct gcs_rule;
int trc_replay_rule(const char *path, const struct gcs_rule *rule, int pid, const struct gcs_trigger_pair *want,
                    struct trc_replay *out, char *err, size_t errlen);

#endif
