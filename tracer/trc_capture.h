/*
 * trc_capture.h — the one capture controller of `gcscope record` (private to
 * tracer/), and the transport interface that drives it.
 *
 * The controller owns what does not depend on how events arrive: the
 * stop-trigger rules (core/triggers, gcs_triggers.h), a pair that fired and
 * the capture it makes due (--delay-after-trigger, then up to 250 ms for
 * its GC), the capture's verification against its own timestamps
 * (trc_replay.h), action=log/stop/run=, firings.tsv, the closing lines,
 * --import, and the output directory: made before the transport runs, and
 * after a failed recording left with only what holds a recorded byte
 * (trc_outdir.h). A transport (lttng/trc_lttng_rec.c, eventpipe/trc_eventpipe.c)
 * owns its session: it starts it, waits in its own way (1 ms turns on LTTng
 * trigger notifications, a blocking poll() on the EventPipe stream), feeds
 * what arrives to trc_capture_event, calls trc_capture_due each turn and
 * writes a capture when asked.
 *
 * Ownership: struct trc_capture is the caller's (static: it is large);
 * trc_capture_record frees what it allocated. Threading: one recording per
 * process, one thread. Errors: lines "gcscope record: ..." on stderr; the
 * exit status is returned.
 */
#ifndef TRC_CAPTURE_H
#define TRC_CAPTURE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "gcs_triggers.h"
#include "trc_opts.h"
#include "trc_outdir.h"

#define TRC_CAPTURES_KEPT 16   /* capture paths kept for --import */
#define TRC_KEEP_GCS 256       /* GCs the live rules keep per process (a watch may run for days) */

struct trc_capture;

struct trc_transport_ops {
  /* printf format of capture K's name: "capture-%d", "capture-%d.nettrace" */
  const char *capture_name;
  /* The live rules are timed by the events' own timestamps (EventPipe): a
   * capture holds the same pause (verified, never discarded), figures are
   * exact (3 decimals). Otherwise (LTTng) by when the notifications
   * arrived: approximate (1 decimal), and the trace may contradict them. */
  int exact;
  /* SIGCHLD ends the waits too (trc_sig_begin): the command's exit. */
  int wake_on_child;
  /* The transport's recording: session, loop, its summary. 0 or 1 (the
   * exit status; the error already printed). */
  int (*run)(struct trc_capture *c);
  /* Take what arrived within timeout_ms, fed to trc_capture_event: 1 at the
   * end of the stream, 0, -1 on an error (in c->err). */
  int (*poll)(struct trc_capture *c, int timeout_ms);
  /* Write the flight recorder as capture name, at path (NULL: --relayd):
   * 0, or -1 with one line in err. */
  int (*write_capture)(struct trc_capture *c, const char *name, const char *path, char *err, size_t errlen);
  /* The rules' clock now: pairs begun before it no longer fire (re-arm). */
  uint64_t (*rearm_ns)(struct trc_capture *c);
  /* How long ago (ms) a pair that fired ended, by the controller's clock;
   * NULL: just now. */
  int64_t (*age_ms)(struct trc_capture *c, const struct gcs_trigger_pair *f);
  /* May a pair that fired be trusted? NULL: yes (LTTng: no when
   * notifications were discarded meanwhile). */
  int (*trusted)(struct trc_capture *c);
};

struct trc_capture {
  const struct trc_opts *o;
  const struct trc_transport_ops *tp;
  void *tx;                          /* the transport's state */
  struct trc_outdir dir;             /* the output directory, made by the controller (not with --relayd) */
  char outdir[PATH_MAX];             /* absolute (or the --relayd URL) */
  char trace_path[PATH_MAX + 32];    /* no trigger: what --import reads */
  int triggers;                      /* a --stop-on-... flag or --rules */
  int live;                          /* the session can still take a capture */
  struct gcs_triggers *m;            /* the rules */
  int pending;                       /* a capture is due */
  struct gcs_trigger_pair fire;
  int64_t due_ms;                    /* monotonic */
  int captures, verified, unverified, logged, stop_now, eof;
  int untrusted;                     /* firings not taken: notifications were lost around them */
  int64_t untrusted_said_ms;         /* when the last of their lines was printed (monotonic) */
  char capture_paths[TRC_CAPTURES_KEPT][PATH_MAX + 48];
  char err[PATH_MAX + 512];
  int command_status;                /* COMMAND's exit status (128 + signal), 0 if none or not run */
  int command_stopped;               /* --duration ended and record sent COMMAND SIGTERM itself */
  int still_writing;                 /* the transport: a failed recording's output may still grow (said) */
};

/* CLOCK_MONOTONIC in ms: the controller's deadlines. */
int64_t trc_capture_now_ms(void);
/* Record through tp: the rules, the output directory (-o DIR or the dated
 * default, made; with --relayd the URL instead), tp->run, --import. A
 * failed run leaves only what holds a recorded byte (trc_outdir_undo).
 * Returns the exit status. */
int trc_capture_record(struct trc_capture *c, const struct trc_transport_ops *tp, void *tx, const struct trc_opts *o);
/* One event into the rules; what fires is logged or made due. */
void trc_capture_event(struct trc_capture *c, const struct gcs_event *ev);
/* Take the due capture once its GC is known (or after a short wait);
 * returns 1 when --collect-multiple captures are taken or a rule said stop. */
int trc_capture_due(struct trc_capture *c);
/* The capture still due when the stream ended (the kept data holds it). */
void trc_capture_last(struct trc_capture *c);
/* How long a transport may wait (ms) before the due capture or end_ms
 * (monotonic, 0: none); -1: no deadline. */
int trc_capture_wait_ms(const struct trc_capture *c, int64_t end_ms);
/* tp->poll until the end of the stream (c->eof) or ms pass; -1 on an error. */
int trc_capture_drain(struct trc_capture *c, int ms);
/* The closing lines of a watch: captures, log firings, or nothing fired. */
void trc_capture_report(const struct trc_capture *c);
/* "gcscope record: N GCs in P processes[, max pause ...]" (no newline);
 * exact: the longest pause to 3 decimals with note after "GC #N", else
 * approximate, timed by notification arrival. */
void trc_capture_print_counts(const struct gcs_trigger_summary *s, int exact, const char *note);
/* The command's exit status, when it was not 0; record then exits with it
 * (as `time` and dotnet-trace do: 128 + N after signal N). */
void trc_capture_child_status(struct trc_capture *c, int status);

#endif
