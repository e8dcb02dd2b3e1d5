/*
 * trc_eventpipe.c — `gcscope record` over EventPipe (trc_eventpipe.h).
 *
 * One thread, one loop, blocked in poll() on what it waits for: the
 * session's connection, the process's exit (a pidfd), a signal (a self-pipe
 * the handler writes to), with a timeout only for a deadline (--duration, a
 * capture that is due). Nothing wakes it while the program runs quietly. Without a trigger, what arrives is
 * appended to trace.nettrace (a killed gcscope leaves the prefix received so
 * far) and the summary replays the file through the stop-trigger rules
 * (trc_replay, core/triggers), as the LTTng path's summary does. With
 * triggers, the stream is decoded as it arrives (gcs_nettrace_stream, live
 * mode) into the same rules, timed by the events' own timestamps, and kept
 * in a flight recorder (trc_ep_flight.h) written out as capture-K.nettrace.
 */
#include "trc_eventpipe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gcs_db.h"
#include "gcs_dsipc.h"
#include "gcs_enums.h"
#include "gcs_nettrace.h"
#include "gcs_triggers.h"
#include "trc_ep_flight.h"
#include "trc_ep_session.h"
#include "trc_fire.h"
#include "gcs_rules.h"
#include "trc_replay.h"
#include "trc_sig.h"

#define POLL_MS 100
#define DRAIN_AFTER_STOP_MS 10000  /* StopTracing: the runtime flushes, then closes */
#define DRAIN_AFTER_EXIT_MS 3000   /* the process is gone: its socket closes at once */
#define SUMMARY_KEEP_GCS 256
#define LIVE_KEEP_GCS 256          /* GCs the live rules keep per process (a watch may run for days) */
#define LIVE_LAG_NS 500000000ull   /* events are ordered across threads this long after they arrive */
#define GEN_WAIT_MS 250            /* wait this long for the GCStart of a suspend-over GC */
#define MAX_CAPTURES_KEPT 16

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct eprec {
  const struct trc_opts *o;
  char outdir[PATH_MAX];
  char path[PATH_MAX + 32];          /* trace.nettrace (no trigger) */
  struct trc_ep_session s;
  int out_fd;                        /* trace.nettrace, -1 with triggers */
  uint64_t bytes;
  int exited, eof;
  char err[PATH_MAX + 512];
  /* triggers: the stream decoded live, the rules, the flight recorder */
  int triggers;
  struct gcs_nettrace_stream *ns;
  struct gcs_triggers *m;
  struct trc_epf *fr;
  uint64_t last_ts;                  /* the newest event's timestamp */
  int pending;
  struct gcs_trigger_pair fire;
  int64_t due_ms;
  int captures, verified, logged, stop_now;
  char capture_paths[MAX_CAPTURES_KEPT][PATH_MAX + 48];
};

int trc_eventpipe_wanted(const struct trc_opts *o) {
  if (o->transport == TRC_TRANSPORT_EVENTPIPE) return 1;
  if (o->transport == TRC_TRANSPORT_LTTNG) return 0;
  if (o->dotnet) return 1;
  return o->pid > 0 && gcs_dsipc_has_socket(o->pid);
}

static int usage_error(const char *what, const char *why) {
  fprintf(stderr, "gcscope record: %s is not available over EventPipe (%s)\n", what, why);
  return 2;
}

static int check_options(const struct trc_opts *o) {
  if (o->relayd) return usage_error("--relayd", "it streams LTTng traces; use --transport lttng");
  if (o->subbuf_size || o->num_subbuf)
    return usage_error("--buffer-size/--num-subbuf", "they size LTTng's buffers; the runtime's are its own");
  if (o->circular_mb > 0 && !trc_opts_any_trigger(o))
    return usage_error("--circular-mb without a --stop-on-... trigger", "the whole stream is written to disk");
  if (!o->command && !o->pid) {
    fprintf(stderr, "gcscope record: --dotnet needs a COMMAND (launch) or --pid PID (attach)\n");
    return 2;
  }
  return 0;
}

/* ---- triggers on the live stream ----------------------------------------- */

static void on_fire(struct eprec *r, struct gcs_trigger_pair f) {
  const struct gcs_rule *rule = gcs_triggers_rule(r->m, f.rule);
  if (rule && rule->action == GCS_RULE_LOG) {
    /* timed by the events: exact; said, noted and run, no capture */
    trc_fire_announce(r->m, &f, 0);
    trc_fire_note(r->outdir, r->m, &f, NULL, "logged");
    trc_fire_run(rule, &f, NULL);
    r->logged++;
    return;
  }
  if (r->pending || r->captures >= r->o->collect_multiple || r->stop_now) {
    gcs_triggers_discard(r->m, f.rule);
    return;
  }
  r->pending = 1;
  r->fire = f;
  r->due_ms = mono_ms() + (int64_t)(r->o->delay_after_sec * 1000);
  if (r->o->delay_after_sec > 0) trc_fire_announce(r->m, &f, r->o->delay_after_sec);
}

static int on_live_event(const struct gcs_event *ev, void *ud) {
  struct eprec *r = ud;
  if (ev->ts_ns > r->last_ts) r->last_ts = ev->ts_ns;
  if (!gcs_triggers_event_needed(ev->kind)) return 0;
  struct gcs_trigger_pair f;
  for (int got = gcs_triggers_feed(r->m, ev, &f); got; got = gcs_triggers_next(r->m, &f)) on_fire(r, f);
  return 0;
}

static int on_live_object(const struct gcs_nettrace_object *o, void *ud) {
  return trc_epf_add(o, ((struct eprec *)ud)->fr);
}

/* The capture holds the events with the timestamps the rules used: reading
 * it back through the same rules finds the same pause (verified), unless the
 * ring no longer held its start. */
static void verify_capture(struct eprec *r, const char *name, const char *path) {
  static struct trc_replay rp;
  char err[512];
  const struct gcs_rule *rule = gcs_triggers_rule(r->m, r->fire.rule);
  if (trc_replay_rule(path, rule, r->fire.pid, &r->fire, &rp, err, sizeof err)) {
    printf("gcscope record: %s not verified: %s\n", name, err);
    trc_fire_note(r->outdir, r->m, &r->fire, name, "not verified");
  } else if (!rp.matched) {
    printf("gcscope record: %s holds the events after the pause only (a larger --circular-mb keeps more)\n", name);
    trc_fire_note(r->outdir, r->m, &r->fire, name, "not verified");
  } else {
    if (rp.match.kind == GCS_TRIGGER_WINDOW)
      printf("gcscope record: %s verified: the trace says %.1f %% paused\n", name, rp.match.value);
    else
      printf("gcscope record: %s verified: the trace says %.3f ms\n", name, rp.match.ms);
    r->verified++;
    trc_fire_note(r->outdir, r->m, &r->fire, name, "verified");
  }
}

static void take_capture(struct eprec *r) {
  int k = r->captures + 1;
  char name[48], path[PATH_MAX + 48], what[96], desc[320];
  snprintf(name, sizeof name, "capture-%d.nettrace", k);
  snprintf(path, sizeof path, "%s/%s", r->outdir, name);
  gcs_triggers_resolve(r->m, &r->fire);
  trc_fire_describe(&r->fire, what, sizeof what);
  const struct gcs_rule *rule = gcs_triggers_rule(r->m, r->fire.rule);
  trc_fire_label(r->m, &r->fire, desc, sizeof desc);
  r->pending = 0;
  char err[PATH_MAX + 256];
  if (trc_epf_write(r->fr, path, err, sizeof err)) {
    fprintf(stderr, "gcscope record: %s\n", err);
    return;
  }
  printf("gcscope record: %s: pid %d %s: %.3f ms -> %s\n", desc, r->fire.pid, what, r->fire.ms, path);
  fflush(stdout);
  verify_capture(r, name, path);
  if (r->captures < MAX_CAPTURES_KEPT) snprintf(r->capture_paths[r->captures], sizeof r->capture_paths[0], "%s", path);
  r->captures++;
  trc_fire_run(rule, &r->fire, path);
  if (rule && rule->action == GCS_RULE_STOP) {
    printf("gcscope record: rule %s stops the recording (action=stop)\n", rule->name);
    r->stop_now = 1;
  }
  gcs_triggers_rearm(r->m, r->last_ts + 1);   /* PerfView re-creates its triggers */
  fflush(stdout);
}

/* ---- the stream ---------------------------------------------------------- */

static int write_all(struct eprec *r, const uint8_t *buf, size_t n) {
  for (size_t off = 0; off < n;) {
    ssize_t w = write(r->out_fd, buf + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) { snprintf(r->err, sizeof r->err, "writing %s: %s", r->path, strerror(errno)); return -1; }
    off += (size_t)w;
  }
  return 0;
}

/* Take what the connection has: 1 at the end of the stream, 0 otherwise,
 * -1 on an error (in r->err). */
static int pump(struct eprec *r, int timeout_ms) {
  static uint8_t buf[1 << 16];
  long got = trc_ep_read(&r->s, buf, sizeof buf, timeout_ms, r->err, sizeof r->err);
  if (got == TRC_EP_EOF) return 1;
  if (got <= 0) return (int)got;
  r->bytes += (uint64_t)got;
  if (r->out_fd >= 0 && write_all(r, buf, (size_t)got)) return -1;
  if (r->ns) {
    char err[512];
    if (gcs_nettrace_stream_feed(r->ns, buf, (size_t)got, err, sizeof err)) {
      snprintf(r->err, sizeof r->err, "cannot decode the stream, the triggers cannot work: %s", err);
      return -1;
    }
  }
  return 0;
}

/* Read until the end of the stream or the deadline. */
static int drain(struct eprec *r, int ms) {
  int64_t end = mono_ms() + ms;
  for (;;) {
    int p = pump(r, POLL_MS);
    if (p == 1) { r->eof = 1; return 0; }
    if (p < 0) return -1;
    if (mono_ms() > end) return 0;
  }
}

static void stop_session(struct eprec *r) {
  char err[512];
  if (trc_ep_stop(&r->s, err, sizeof err)) fprintf(stderr, "gcscope record: %s\n", err);
}

/* A capture is due: take it once its suspension's GC is known (or after a short wait). */
static void maybe_capture(struct eprec *r) {
  if (!r->pending) return;
  int64_t t = mono_ms();
  if (t < r->due_ms) return;
  if (gcs_triggers_resolve(r->m, &r->fire) || t >= r->due_ms + GEN_WAIT_MS) take_capture(r);
}

/* How long the loop may block: until the next deadline, or -1 (none). */
static int wait_ms(const struct eprec *r, int64_t end) {
  int64_t next = end;
  if (r->pending) {
    int64_t due = mono_ms() < r->due_ms ? r->due_ms : r->due_ms + GEN_WAIT_MS;
    if (!next || due < next) next = due;
  }
  if (!next) return -1;
  int64_t left = next - mono_ms();
  return left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

static int record_loop(struct eprec *r) {
  const struct trc_opts *o = r->o;
  int64_t end = o->duration_sec > 0 ? mono_ms() + (int64_t)(o->duration_sec * 1000) : 0;
  for (;;) {
    int p = trc_sig ? 0 : pump(r, wait_ms(r, end));
    trc_ep_serve(&r->s);   /* processes the command starts go on untraced */
    if (p == 1) { r->eof = 1; break; }
    if (p < 0) return -1;
    if (r->triggers) {
      maybe_capture(r);
      if (r->captures >= o->collect_multiple || r->stop_now) {
        printf("gcscope record: all %d capture%s taken%s\n", r->captures, r->captures == 1 ? "" : "s",
               r->s.launch ? "; waiting for the command to exit" : "");
        fflush(stdout);
        stop_session(r);
        return drain(r, DRAIN_AFTER_STOP_MS);
      }
    }
    if (trc_ep_target_gone(&r->s)) {
      r->exited = 1;
      return drain(r, DRAIN_AFTER_EXIT_MS);
    }
    if (trc_sig || (end && mono_ms() >= end)) {
      stop_session(r);
      if (drain(r, DRAIN_AFTER_STOP_MS)) return -1;
      /* --duration: like timeout(1), the command is asked to stop too. */
      if (r->s.launch && !trc_sig) {
        trc_ep_serve(&r->s);
        if (!r->s.child_done) kill(r->s.child.pid, SIGTERM);
      }
      return 0;
    }
  }
  r->exited = trc_ep_target_gone(&r->s);
  if (!r->exited && !r->s.launch) {
    /* the runtime closes the stream as its process exits: give it a moment */
    if (r->s.pidfd >= 0)   /* up to 1 s for its exit; a signal ends the wait */
      r->exited = trc_sig_sleep(r->s.pidfd, 1000) || trc_ep_target_gone(&r->s);
    else
      for (int i = 0; i < 20 && !(r->exited = trc_ep_target_gone(&r->s)); i++) usleep(50000);
  }
  return 0;
}

/* A runtime that dies mid-session closes the stream without the
 * end-of-stream tag (FastSerialization's NullReference, one byte 0x01). When
 * the stream was cut between two blocks, that byte makes the file whole; if
 * the file still does not read whole, it is put back as received. Returns 1
 * if the tag was added. */
static int stream_whole(const char *path) {
  char err[512];
  struct gcs_nettrace_info info;
  memset(&info, 0, sizeof info);
  return gcs_nettrace_read(path, NULL, NULL, &info, err, sizeof err) == 0 && !info.truncated;
}

static int close_cut_stream(struct eprec *r) {
  if (!r->eof || stream_whole(r->path)) return 0;
  int fd = open(r->path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return 0;
  int added = write(fd, "\x01", 1) == 1;
  if (added && !stream_whole(r->path)) {
    added = 0;
    if (ftruncate(fd, (off_t)r->bytes) != 0) {}
  }
  close(fd);
  return added;
}

static void print_counts(const struct gcs_trigger_summary *t, int exact) {
  printf("gcscope record: %llu GCs in %d process%s", (unsigned long long)t->gcs, t->nprocs, t->nprocs == 1 ? "" : "es");
  if (t->max_pause_ms > 0)
    printf(", max pause %.3f ms (pid %d GC #%u%s)", t->max_pause_ms, (int)t->max_pid, t->max_gc,
           exact ? "" : "; the part of the stream that was decoded");
}

/* The whole stream on disk: summarised from the file, as `gcscope stats` reads it. */
static void print_trace_summary(struct eprec *r) {
  int closed = close_cut_stream(r);
  static struct trc_replay rp;
  double off[GCS_TRIGGER_NKINDS];
  for (int k = 0; k < GCS_TRIGGER_NKINDS; k++) off[k] = -1;
  char err[512] = "";
  int rc = trc_replay(r->path, off, 0, NULL, &rp, err, sizeof err);
  printf("gcscope record: trace in %s (%llu bytes)\n", r->path, (unsigned long long)r->bytes);
  print_counts(&rp.sum, rc == 0 && !rp.truncated);
  if (rp.lost) printf(" (%llu events lost)", (unsigned long long)rp.lost);
  printf("\n");
  if (closed)
    printf("gcscope record: the stream ended without its end-of-stream tag (the runtime did not close the session); "
           "gcscope added it after the last whole block\n");
  if (rc != 0) printf("gcscope record: the trace is incomplete: %s\n", err);
  else if (rp.truncated)
    printf("gcscope record: the stream was cut inside a block; its whole blocks are the trace (import keeps them)\n");
  if ((rc != 0 || rp.truncated) && !r->eof)
    printf("gcscope record: the stream did not end (the runtime did not close it in time)\n");
}

/* Triggers: the stream was decoded live, by the events' own timestamps. */
static void print_watch_summary(struct eprec *r) {
  char err[512];
  int cut = gcs_nettrace_stream_finish(r->ns, err, sizeof err);
  struct gcs_trigger_summary t;
  gcs_triggers_finish(r->m, &t);
  if (r->pending) {
    /* due after the stream ended (the process exited): the kept blocks hold it */
    gcs_triggers_resolve(r->m, &r->fire);
    take_capture(r);
  }
  if (r->captures)
    printf("gcscope record: %d capture%s in %s (%d verified by the trace's timestamps)\n", r->captures,
           r->captures == 1 ? "" : "s", r->outdir, r->verified);
  else if (!r->logged)
    printf("gcscope record: no trigger fired; nothing written\n");
  if (r->logged)
    printf("gcscope record: %d firing%s of action=log rules, in %s/firings.tsv\n", r->logged, r->logged == 1 ? "" : "s",
           r->outdir);
  print_counts(&t, 1);
  const struct gcs_nettrace_info *info = gcs_nettrace_stream_info(r->ns);
  if (info && info->events_lost) printf(" (%llu events lost)", (unsigned long long)info->events_lost);
  printf(" (%llu bytes of stream)\n", (unsigned long long)r->bytes);
  if (cut > 0 && r->eof) printf("gcscope record: the stream ended inside a block: %s\n", err);
}

static void finish_child(struct eprec *r) {
  if (!r->s.launch || r->s.child.pid <= 0) return;
  if (trc_sig && trc_sig_forward) {
    trc_ep_serve(&r->s);
    if (!r->s.child_done) kill(r->s.child.pid, trc_sig);
  }
  /* The session is closed: a runtime the command starts now finds no port
   * and goes on. Block until the command exits; a second signal gives up. */
  int nsig = trc_nsig;
  while (!r->s.child_done) {
    trc_ep_wait_child(&r->s);
    if (r->s.child_done || (trc_nsig != nsig && trc_nsig > 1)) break;
  }
}

static void print_child_status(const struct eprec *r) {
  if (!r->s.launch || !r->s.child_done) return;
  if (WIFEXITED(r->s.child_status) && WEXITSTATUS(r->s.child_status))
    printf("gcscope record: the command exited with status %d\n", WEXITSTATUS(r->s.child_status));
  else if (WIFSIGNALED(r->s.child_status))
    printf("gcscope record: the command was killed by signal %d\n", WTERMSIG(r->s.child_status));
}

static int start_watch(struct eprec *r) {
  const struct trc_opts *o = r->o;
  double mb = o->circular_mb > 0 ? o->circular_mb : TRC_DEFAULT_TRIGGER_CIRCULAR_MB;
  r->m = trc_rules_new(o, LIVE_KEEP_GCS);
  r->fr = r->m ? trc_epf_new((uint64_t)(mb * 1e6)) : NULL;
  r->ns = r->fr ? gcs_nettrace_stream_new("the EventPipe stream", on_live_event, on_live_object, r) : NULL;
  if (!r->ns) { snprintf(r->err, sizeof r->err, "out of memory"); return -1; }
  gcs_nettrace_stream_set_live(r->ns, LIVE_LAG_NS);
  return 0;
}

static int run(struct eprec *r) {
  const struct trc_opts *o = r->o;
  r->triggers = trc_opts_any_trigger(o);
  if (r->triggers) {
    if (start_watch(r)) return -1;
  } else {
    snprintf(r->path, sizeof r->path, "%s/%s", r->outdir, TRC_EP_TRACE_NAME);
    r->out_fd = open(r->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (r->out_fd < 0) { snprintf(r->err, sizeof r->err, "cannot write %s: %s", r->path, strerror(errno)); return -1; }
  }
  struct trc_ep_start_cfg cfg = { .command = o->command, .pid = o->pid, .profile = o->profile, .stacks = o->stacks,
                                  .child_out_fd = -1, .child_in_fd = -1, .interrupted = &trc_sig,
                                  .wake_fd = trc_sig_fd() };
  if (trc_ep_start(&r->s, &cfg, r->err, sizeof r->err)) return -1;
  if (r->triggers)
    printf("gcscope record: watching pid %d over EventPipe for long pauses (flight recorder %g MB in memory, "
           "captures in %s)\n", (int)r->s.pid, o->circular_mb > 0 ? o->circular_mb : TRC_DEFAULT_TRIGGER_CIRCULAR_MB,
           r->outdir);
  else
    printf("gcscope record: recording pid %d over EventPipe to %s\n", (int)r->s.pid, r->path);
  fflush(stdout);
  int rc = record_loop(r);
  trc_ep_close(&r->s);
  if (r->out_fd >= 0) close(r->out_fd);
  r->out_fd = -1;
  if (rc) return -1;
  finish_child(r);
  if (r->triggers) print_watch_summary(r);
  else print_trace_summary(r);
  if (r->exited && !r->s.stopped && !r->s.launch) printf("gcscope record: process %d exited during the session\n", (int)r->s.pid);
  print_child_status(r);
  fflush(stdout);
  return 0;
}

static int do_import(const struct eprec *r) {
  const char *paths[MAX_CAPTURES_KEPT];
  int n = 0;
  if (r->triggers)
    for (int i = 0; i < r->captures && i < MAX_CAPTURES_KEPT; i++) paths[n++] = r->capture_paths[i];
  else
    paths[n++] = r->path;
  if (!n) return 0;
  char err[512];
  struct gcs_import_opts io = { .out = stdout };
  if (isatty(STDERR_FILENO) && !r->o->quiet) io.progress = gcs_import_progress_line;
  if (gcs_import_paths(r->o->db ? r->o->db : GCS_DB_DEFAULT_PATH, paths, n, &io, err, sizeof err)) {
    fprintf(stderr, "gcscope record: import failed: %s\n", err);
    return 1;
  }
  return 0;
}

int trc_eventpipe_record(const struct trc_opts *o, const char *outdir) {
  int rc = check_options(o);
  if (rc) return rc;
  static struct eprec rec;
  struct eprec *r = &rec;
  memset(r, 0, sizeof *r);
  r->o = o;
  snprintf(r->outdir, sizeof r->outdir, "%s", outdir);
  r->out_fd = -1;
  r->s.stream_fd = r->s.ep.listen_fd = r->s.ep.spare_fd = r->s.pidfd = -1;
  trc_sig_begin(0);   /* the command's exit wakes the waits through its pidfd */
  rc = run(r) ? 1 : 0;
  if (rc) {
    fprintf(stderr, "gcscope record: %s\n", r->err);
    if (r->s.launch) trc_ep_kill_child(&r->s, 0);
    trc_ep_close(&r->s);
  }
  if (r->out_fd >= 0) close(r->out_fd);
  trc_sig_end();
  if (rc == 0 && o->import) rc = do_import(r);
  gcs_nettrace_stream_free(r->ns);
  gcs_triggers_free(r->m);
  trc_epf_free(r->fr);
  r->ns = NULL; r->m = NULL; r->fr = NULL;
  return rc;
}
