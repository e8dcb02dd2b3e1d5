/*
 * trc_lttng_rec.c — the LTTng transport of `gcscope record` (trc_lttng_rec.h):
 * an LTTng session (a flight recorder with triggers or --circular-mb), the
 * trigger watcher's notifications into the capture controller
 * (trc_capture.h), snapshots as captures.
 *
 * One thread, one loop turning every millisecond while notifications flow:
 * drain the watcher into the controller, take due captures, and watch the
 * command, the --pid process, --duration and signals.
 */
#include "trc_lttng_rec.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gcs_ctf_find.h"
#include "gcs_events.h"
#include "gcs_triggers.h"
#include "trc_capture.h"
#include "trc_child.h"
#include "trc_fire.h"
#include "trc_lttng.h"
#include "trc_profile.h"
#include "trc_replay.h"
#include "trc_sig.h"
#include "trc_watch.h"

#define DROP_REPORT_NS 1000000000ull /* at most one "notifications lost" line a second */
#define DISCARD_CHECK_NS 100000000ull /* read the tracer-side discard counters this often */

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct lrec {
  char session[64];
  int snapshot, session_live;
  struct trc_daemon d;
  struct trc_child child;
  int child_status, child_done;
  struct trc_watch *w;
  uint64_t dropped_seen;       /* trc_watch_dropped already passed to the rules */
  uint64_t discarded_seen;     /* trc_watch_discarded already passed to the rules */
  uint64_t discard_check_ns;   /* when the discard counters were last read */
  uint64_t drop_reported_ns;
  int pidfd, target_exited;     /* --pid: readable when the process exits (-1: none) */
  uint64_t subbuf, num;         /* the channel's geometry as asked (0: LTTng's default) */
  int hung_said;                /* the line saying the session daemon does not answer is out */
  int flush_late;               /* the stop's flush outlived GCSCOPE_FLUSH_TIMEOUT (said) */
  int watch_failed;             /* the notification channel failed (said) */
  char err[512];
};

/* One line for a failed request; when the session daemon stopped answering
 * (trc_ctl_hung), that is said once, whichever request found it. */
static void say(struct lrec *r, const char *err) {
  if (r->watch_failed) return;   /* its line is out; what follows comes of it */
  if (trc_ctl_hung()) {
    if (r->hung_said) return;
    r->hung_said = 1;
  }
  fprintf(stderr, "gcscope record: %s\n", err);
}

/* count notifications were lost (dropped by the daemon or discarded by a
 * traced program): the reconstruction re-arms, and the user is told. */
static void lost(struct trc_capture *c, uint64_t count) {
  struct lrec *r = c->tx;
  uint64_t t = now_ns();
  gcs_triggers_lost(c->m, t, t, count);
  if (c->triggers && t >= r->drop_reported_ns + DROP_REPORT_NS) {
    fprintf(stderr, "gcscope record: trigger notifications were lost (the session daemon is too slow); "
                    "re-armed (pauses in progress are not measured)\n");
    r->drop_reported_ns = t;
  }
}

/* Read the tracer-side discard counters; returns 1 if they grew (reported
 * as lost), 0 otherwise. */
static int check_discards(struct trc_capture *c) {
  struct lrec *r = c->tx;
  uint64_t d;
  r->discard_check_ns = now_ns();
  if (!r->w || trc_watch_discarded(r->w, &d) != 0 || d <= r->discarded_seen) return 0;
  lost(c, d - r->discarded_seen);
  r->discarded_seen = d;
  return 1;
}

static int trusted(struct trc_capture *c) { return !check_discards(c); }

static void on_event(const struct gcs_event *ev, void *ud) { trc_capture_event(ud, ev); }

/* The pair's end is the notification's arrival (CLOCK_REALTIME). */
static int64_t age_ms(struct trc_capture *c, const struct gcs_trigger_pair *f) {
  (void)c;
  uint64_t t = now_ns();
  return t > f->end_ns ? (int64_t)((t - f->end_ns) / 1000000u) : -(int64_t)((f->end_ns - t) / 1000000u);
}

static uint64_t rearm_ns(struct trc_capture *c) {
  (void)c;
  return now_ns();
}

static int write_capture(struct trc_capture *c, const char *name, const char *path, char *err, size_t errlen) {
  struct lrec *r = c->tx;
  int rc = trc_snapshot_record(r->session, name, path, c->o->relayd, err, errlen);
  if (rc && trc_ctl_hung()) r->hung_said = 1;   /* the controller prints err */
  return rc;
}

/* --pid: its pidfd, polled by every wait_turn, says when it exits; without
 * one, the process table does (trc_pid_exited). */
static int target_alive(const struct trc_capture *c) {
  const struct lrec *r = c->tx;
  if (!c->o->pid) return 1;
  return r->pidfd >= 0 ? !r->target_exited : !trc_pid_exited(c->o->pid);
}

static void end_session(struct trc_capture *c) {
  struct lrec *r = c->tx;
  c->live = 0;
  if (!r->session_live) return;
  int rc = trc_session_stop(r->session, r->err, sizeof r->err);
  if (rc == TRC_STOP_FLUSH_LATE) {
    /* The consumer is still writing (or stuck): say so, keep what it wrote
     * (nothing here deletes a file), and destroy the session without
     * waiting for the daemon to finish it: the recording fails. */
    char late[sizeof r->err];
    snprintf(late, sizeof late, "%s", r->err);
    if (trc_session_destroy_wait(r->session, 1, r->err, sizeof r->err) && trc_ctl_hung())
      r->hung_said = 1;   /* one line: this one */
    if (c->o->relayd)
      fprintf(stderr, "gcscope record: %s; what it sent is kept by lttng-relayd at %s\n", late, c->o->relayd);
    else
      fprintf(stderr, "gcscope record: %s; what it wrote is kept in %s\n", late, c->outdir);
    r->flush_late = 1;
    c->still_writing = 1;   /* the failed recording's files are left as they are */
  } else if (rc || trc_session_destroy(r->session, r->err, sizeof r->err)) {
    say(r, r->err);
  }
  r->session_live = 0;
}

/* Wait for the loop's next turn. While live notifications flow (triggers,
 * relayd), every millisecond: the watcher must keep up with them and captures
 * are timed to the millisecond. Otherwise up to IDLE_MS, or until --duration
 * ends: the command's exit (SIGCHLD), the --pid process's exit (its pidfd) and
 * SIGINT/SIGTERM end the sleep at once (trc_sig_sleep). A 1 ms tick woke
 * gcscope ~1,000 times a second beside the recorded program: 10-20 ms of CPU
 * per second of a GCBench run on 2 cores, and 5x its involuntary context
 * switches. */
#define IDLE_MS 100
static void wait_turn(struct trc_capture *c, uint64_t end) {
  struct lrec *r = c->tx;
  int ms = r->w || c->pending ? 1 : IDLE_MS;
  if (end) {
    uint64_t t = now_ns();
    if (t >= end) return;
    if ((end - t) / 1000000u < (uint64_t)ms) ms = (int)((end - t + 999999u) / 1000000u);
  }
  if (trc_sig_sleep(r->target_exited ? -1 : r->pidfd, ms)) r->target_exited = 1;
}

/* Deliver pending notifications; tell the reconstruction about drops.
 * Returns -1 when the daemon went away. */
static int poll_watch(struct trc_capture *c) {
  struct lrec *r = c->tx;
  if (trc_ctl_hung()) {
    say(r, trc_ctl_hung());
    return -1;
  }
  if (!r->w) return 0;
  int n = trc_watch_poll(r->w, on_event, c);
  if (n < 0) {
    if (!r->watch_failed) fprintf(stderr, "gcscope record: %s\n", trc_watch_error(r->w));
    r->watch_failed = 1;
    return -1;
  }
  uint64_t d = trc_watch_dropped(r->w);
  if (d > r->dropped_seen) {
    lost(c, d - r->dropped_seen);
    r->dropped_seen = d;
  }
  if (now_ns() >= r->discard_check_ns + DISCARD_CHECK_NS) check_discards(c);
  return n;
}

/* The controller's drain: the notifications, timeout_ms turns a millisecond
 * apart (a loaded machine stretches the turns, not their number). */
static int poll_turn(struct trc_capture *c, int timeout_ms) {
  int turns = timeout_ms > 0 ? timeout_ms : 1;
  for (int i = 0; i < turns; i++) {
    if (poll_watch(c) < 0) return -1;
    if (timeout_ms > 0) {
      struct timespec ts = { 0, 1000000L };
      nanosleep(&ts, NULL);
    }
  }
  return 0;
}

/* Events the tracer discarded, with the rate that overran the buffers and
 * what avoids it. */
static void print_lost(const struct trc_opts *o, const struct lrec *r, const struct trc_replay *rp) {
  double secs = rp->last_ns > rp->first_ns ? (double)(rp->last_ns - rp->first_ns) / 1e9 : 0;
  uint64_t kept = rp->events, all = rp->events + rp->lost;
  printf("; the tracer discarded %llu of %llu events (%.1f %%)", (unsigned long long)rp->lost,
         (unsigned long long)all, 100.0 * (double)rp->lost / (double)all);
  uint64_t subbuf = 0, num = 0;
  trc_channel_geometry(r->subbuf, r->num, &subbuf, &num);
  if (secs > 0 && kept) {
    double rate = (double)all / secs;
    printf(": --profile %s made %.0f events/s", trc_profile_name(o->profile), rate);
    if (subbuf && num)
      printf(" into buffers of %llu x %llu KiB per CPU", (unsigned long long)num, (unsigned long long)(subbuf / 1024));
  }
  printf("; a larger --buffer-size/--num-subbuf, or a lighter --profile, avoids it");
}

/* A local recording is summarised from the trace, timed by the events' own
 * timestamps (the figures `gcscope stats` gives); otherwise (relayd, or only
 * captures written) from the live notifications, and said so. */
static void print_summary(struct trc_capture *c) {
  struct lrec *r = c->tx;
  if (r->w) check_discards(c);
  struct gcs_trigger_summary s;
  gcs_triggers_finish(c->m, &s);
  if (!c->o->relayd && !c->triggers) {
    static struct trc_replay rp;
    char err[512];
    if (trc_replay(c->outdir, NULL, 0, NULL, &rp, err, sizeof err) == 0) {
      trc_capture_print_counts(&rp.sum, 1, "");
      if (rp.lost) print_lost(c->o, c->tx, &rp);
      printf("\n");
      return;
    }
    struct gcs_ctf_session *found = NULL;
    int nfound = 0;
    char ferr[256];
    if (gcs_ctf_find(c->outdir, &found, &nfound, ferr, sizeof ferr) == 0 && nfound == 0) {
      /* no stream was ever created: no traced process registered a provider */
      printf("gcscope record: no GC events recorded: no process loaded an LTTng GC\n"
             "  provider (librgc; for .NET: --dotnet, or --transport lttng for CoreCLR's)\n");
      gcs_ctf_sessions_free(found, nfound);
      return;
    }
    gcs_ctf_sessions_free(found, nfound);
    printf("gcscope record: cannot summarise the trace: %s\n", err);
    return;
  }
  trc_capture_print_counts(&s, 0, NULL);
  uint64_t lost_n = r->dropped_seen + r->discarded_seen;
  if (lost_n) printf(" (approximate: %llu notifications dropped)", (unsigned long long)lost_n);
  printf("\n");
}

/* Where a streamed trace lands: the relayd names it after the tracing host
 * (this one: the session daemon is local) and the session, plus the session's
 * creation date and time, under its output directory. */
static void print_relayd_where(const struct trc_capture *c, const char *what) {
  const struct lrec *r = c->tx;
  char host[256] = "HOST";
  if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "HOST");
  host[sizeof host - 1] = '\0';
  printf("gcscope record: %s sent to lttng-relayd at %s: %s/%s-* in its output directory\n", what,
         c->o->relayd, host, r->session);
}

static int record(struct trc_capture *c) {
  struct lrec *r = c->tx;
  const struct trc_opts *o = c->o;
  const char *events[TRC_MAX_EVENTS];
  int nevents = trc_profile_events(o->profile, o->dotnet, events);
  if (o->stacks && !o->dotnet) {
    /* librgc's stacks: the runtime walks them when started with RGC_Stacks=1
     * (set here for the command, inherited by it); LTTng-UST's statedump
     * (bin_info: each module's path and load address) resolves them at import. */
    if (nevents < TRC_MAX_EVENTS) events[nevents++] = GCS_STATEDUMP_EVENTS;
    if (o->command) setenv("RGC_Stacks", "1", 1);
    else
      fprintf(stderr, "gcscope record: note: --stacks with --pid: librgc walks stacks only in a process started with "
              "RGC_Stacks=1, and its modules are named only if it started after the session (or run lttng "
              "regenerate statedump)\n");
  }
  r->snapshot = c->triggers || o->circular_mb > 0;
  uint64_t subbuf = o->subbuf_size, num = o->num_subbuf;
  if (!r->snapshot && !subbuf && !num) {   /* sized by profile and CPU count (trc_profile.h) */
    unsigned long long s, n;
    trc_profile_geometry(o->profile, sysconf(_SC_NPROCESSORS_CONF), &s, &n);
    subbuf = s;
    num = n;
  }
  if (r->snapshot) {
    uint64_t s, n;
    trc_circular_geometry(o->circular_mb > 0 ? o->circular_mb : TRC_DEFAULT_TRIGGER_CIRCULAR_MB,
                          sysconf(_SC_NPROCESSORS_CONF), &s, &n);
    if (!subbuf) subbuf = s;
    if (!num) num = n;
  }
  r->subbuf = subbuf;
  r->num = num;
  snprintf(r->session, sizeof r->session, "gcscope-record-%d", (int)getpid());
  /* The command is forked first (it waits before exec) so that the session
   * and the watcher can be restricted to its PID, like --pid. */
  if (o->command && trc_child_spawn(&r->child, o->command, o->dotnet, r->err, sizeof r->err)) goto fail;
  pid_t only = o->command ? r->child.pid : o->pid;
  if (o->pid) r->pidfd = trc_pidfd_open(o->pid);
  struct trc_session_cfg cfg = {
    .name = r->session, .path = c->outdir, .relayd = o->relayd, .snapshot = r->snapshot,
    .subbuf_size = subbuf, .num_subbuf = num, .events = events, .nevents = nevents, .pid = only,
  };
  if (trc_session_create(&cfg, r->err, sizeof r->err)) goto fail;
  r->session_live = 1;
  /* The live notifications serve the triggers, and the summary of a trace
   * that is not kept here (relayd); a local trace is summarised from itself. */
  if (c->triggers || o->relayd) {
    r->w = trc_watch_start(o->dotnet, only, r->err, sizeof r->err);
    if (!r->w) goto fail;
  }
  if (trc_session_start(r->session, r->err, sizeof r->err)) goto fail;
  if (o->command && trc_child_release(&r->child, r->err, sizeof r->err)) goto fail;

  if (c->triggers)
    printf("gcscope record: watching for long pauses (flight recorder %s, captures in %s)\n",
           o->relayd ? "to relayd" : "in memory", o->relayd ? o->relayd : c->outdir);
  else
    printf("gcscope record: recording to %s%s\n", o->relayd ? o->relayd : c->outdir,
           r->snapshot ? " (flight recorder: written at the end)" : "");
  fflush(stdout);

  uint64_t start = now_ns();
  uint64_t end = o->duration_sec > 0 ? start + (uint64_t)(o->duration_sec * 1e9) : 0;
  int stop = 0;
  while (!stop) {
    if (poll_watch(c) < 0) {
      if (trc_ctl_hung()) goto hung;
      break;   /* the notification channel failed: said; the recording ends, failed */
    }
    uint64_t t = now_ns();
    if (r->session_live && trc_capture_due(c)) {
      end_session(c);
      if (!o->command) stop = 1;
      else if (!r->child_done)
        printf("gcscope record: all %d capture%s taken; waiting for the command to exit\n",
               c->captures, c->captures == 1 ? "" : "s");
      fflush(stdout);
    }
    if (o->command && !r->child_done && waitpid(r->child.pid, &r->child_status, WNOHANG) == r->child.pid)
      r->child_done = 1, stop = 1;
    if (!target_alive(c)) {
      printf("gcscope record: process %d exited\n", (int)o->pid);
      stop = 1;
    }
    if (end && t >= end) {
      /* --duration: like timeout(1), the command is asked to stop too. */
      if (o->command && !r->child_done && kill(r->child.pid, SIGTERM) == 0) c->command_stopped = 1;
      stop = 1;
    }
    if (trc_sig) {
      if (trc_sig_forward && o->command && !r->child_done) kill(r->child.pid, trc_sig);
      stop = 1;
    }
    if (!stop) wait_turn(c, end);
  }
  /* The last notifications trail the events by a fraction of a millisecond. */
  if (r->w) trc_capture_drain(c, 50);
  if (r->session_live) trc_capture_last(c);
  if (r->session_live && r->snapshot && !c->triggers) {
    if (trc_snapshot_record(r->session, "flight", o->relayd ? NULL : c->outdir, o->relayd, r->err, sizeof r->err))
      say(r, r->err);
  }
  end_session(c);
  if (trc_ctl_hung()) goto hung;
  /* no summary of a trace still being written, nor after the notification
   * channel failed (the triggers saw nothing since); run() stops the command */
  if (r->flush_late || r->watch_failed) return 1;
  /* After a signal the command got it too: wait for it (a second signal stops waiting). */
  if (o->command && !r->child_done) {
    int nsig = trc_nsig;
    while (!r->child_done) {
      if (waitpid(r->child.pid, &r->child_status, WNOHANG) == r->child.pid) r->child_done = 1;
      else if (trc_nsig != nsig && trc_nsig > 1) break;
      else trc_sig_sleep(-1, IDLE_MS);   /* SIGCHLD, or the second signal, wakes it */
    }
  }
  if (c->triggers) {
    if (c->captures && o->relayd) {
      char what[48];
      snprintf(what, sizeof what, "%d capture%s", c->captures, c->captures == 1 ? "" : "s");
      print_relayd_where(c, what);
    }
    trc_capture_report(c);
  } else {
    if (o->relayd) print_relayd_where(c, "trace");
    else printf("gcscope record: trace in %s\n", c->outdir);
  }
  print_summary(c);
  if (o->command && r->child_done) trc_capture_child_status(c, r->child_status);
  fflush(stdout);
  return 0;
fail:
  say(r, r->err);
  return 1;
hung:
  /* The session daemon stopped answering: the line is out (say), the command
   * is stopped by run(), and nothing more is asked of the daemon. */
  say(r, trc_ctl_hung());
  r->session_live = 0;
  return 1;
}

/* The session daemon (started if none runs), the recording, and what it leaves to undo. */
static int run(struct trc_capture *c) {
  struct lrec *r = c->tx;
  int rc;
  if (trc_daemon_ensure(&r->d, r->err, sizeof r->err)) {
    fprintf(stderr, "gcscope record: %s\n", r->err);
    return 1;
  }
  rc = record(c);
  if (rc) {
    /* setup failed part-way, or the session daemon stopped answering: undo
     * what exists (a hung daemon is asked nothing more: trc_ctl_hung) */
    if (!r->child_done) trc_child_stop(&r->child);
    if (r->session_live) {
      trc_session_destroy(r->session, r->err, sizeof r->err);
      r->session_live = 0;
    }
  }
  trc_watch_stop(r->w);
  r->w = NULL;
  trc_daemon_stop(&r->d);
  return rc;
}

static const struct trc_transport_ops lttng_transport = {
  .capture_name = "capture-%d", .exact = 0, .wake_on_child = 1, .run = run, .poll = poll_turn,
  .write_capture = write_capture, .rearm_ns = rearm_ns, .age_ms = age_ms, .trusted = trusted,
};

int trc_lttng_record(const struct trc_opts *o) {
  static struct lrec rec;        /* one recording per process */
  static struct trc_capture cap; /* large */
  struct lrec *r = &rec;
  memset(r, 0, sizeof *r);
  r->child.pid = -1;
  r->pidfd = -1;
  int rc = trc_capture_record(&cap, &lttng_transport, r, o);
  if (r->pidfd >= 0) close(r->pidfd);
  r->pidfd = -1;
  return rc;
}
