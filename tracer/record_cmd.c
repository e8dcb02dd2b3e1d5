/*
 * record_cmd.c — `gcscope record`: record GC events with LTTng, and
 * PerfView's stop-on-long-pause triggers (docs/tracer.md).
 *
 * One thread, one loop ticking every millisecond: drain the trigger watcher's
 * notifications into the stop-trigger rules (core/triggers, gcs_triggers.h:
 * the same code `gcscope triggers` replays recorded events through), take
 * due captures, and watch the command, the --pid process, --duration and
 * signals.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gcs_tracer.h"
#include "gcs_db.h"
#include "gcs_enums.h"
#include "gcs_triggers.h"
#include "trc_child.h"
#include "trc_clr_lttng.h"
#include "trc_eventpipe.h"
#include "trc_fire.h"
#include "gcs_rules.h"
#include "trc_lttng.h"
#include "trc_opts.h"
#include "trc_profile.h"
#include "trc_replay.h"
#include "trc_sig.h"
#include "trc_watch.h"

#define GEN_WAIT_NS 250000000ull   /* wait this long for the GCStart of a suspend-over GC */
#define DROP_REPORT_NS 1000000000ull /* at most one "notifications lost" line a second */
#define DISCARD_CHECK_NS 100000000ull /* read the tracer-side discard counters this often */
#define KEEP_GCS 256                 /* GCs the rules keep per process (a watch may run for days) */

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void tick(void) {
  struct timespec ts = { 0, 1000000L };
  nanosleep(&ts, NULL);
}

struct rec {
  struct trc_opts o;
  char outdir[PATH_MAX];
  char session[64];
  int snapshot, triggers, session_live;
  struct trc_daemon d;
  struct trc_child child;
  int child_status, child_done;
  struct trc_watch *w;
  struct gcs_triggers *m;
  uint64_t dropped_seen;       /* trc_watch_dropped already passed to m */
  uint64_t discarded_seen;     /* trc_watch_discarded already passed to m */
  uint64_t discard_check_ns;   /* when the discard counters were last read */
  uint64_t drop_reported_ns;
  int pidfd, target_exited;     /* --pid: readable when the process exits (-1: none) */
  int captures, verified, unverified, logged, stop_now;
  char capture_paths[16][PATH_MAX + 32];
  int pending;
  struct gcs_trigger_pair fire;
  uint64_t due_ns;
  char err[512];
};

/* count notifications were lost (dropped by the daemon or discarded by a
 * traced program): the reconstruction re-arms, and the user is told. */
static void lost(struct rec *r, uint64_t count) {
  uint64_t t = now_ns();
  gcs_triggers_lost(r->m, t, count);
  if (r->triggers && t >= r->drop_reported_ns + DROP_REPORT_NS) {
    fprintf(stderr, "gcscope record: trigger notifications were lost (the session daemon is too slow); "
                    "re-armed (pauses in progress are not measured)\n");
    r->drop_reported_ns = t;
  }
}

/* Read the tracer-side discard counters; returns 1 if they grew (reported
 * as lost), 0 otherwise. */
static int check_discards(struct rec *r) {
  uint64_t d;
  r->discard_check_ns = now_ns();
  if (!r->w || trc_watch_discarded(r->w, &d) != 0 || d <= r->discarded_seen) return 0;
  lost(r, d - r->discarded_seen);
  r->discarded_seen = d;
  return 1;
}

static void on_fire(struct rec *r, struct gcs_trigger_pair f) {
  /* A pair spanning discarded notifications may join a begin and an end of
   * different pauses: such a fire is not trusted. */
  if (check_discards(r)) {
    gcs_triggers_discard(r->m, f.rule);
    return;
  }
  const struct gcs_rule *rule = gcs_triggers_rule(r->m, f.rule);
  if (r->triggers && rule && rule->action == GCS_RULE_LOG) {
    /* no capture: said, noted and run (its figures are the live ones) */
    trc_fire_announce(r->m, &f, 0);
    if (!r->o.relayd) trc_fire_note(r->outdir, r->m, &f, NULL, "logged (timed live)");
    trc_fire_run(rule, &f, NULL);
    r->logged++;
    return;
  }
  if (!r->triggers || r->pending || !r->session_live || r->captures >= r->o.collect_multiple) {
    gcs_triggers_discard(r->m, f.rule);
    return;
  }
  r->pending = 1;
  r->fire = f;
  r->due_ns = f.end_ns + (uint64_t)(r->o.delay_after_sec * 1e9);
  if (r->o.delay_after_sec > 0) trc_fire_announce(r->m, &f, r->o.delay_after_sec);
  fflush(stdout);
}

static void on_event(const struct gcs_event *ev, void *ud) {
  struct rec *r = ud;
  struct gcs_trigger_pair f;
  for (int got = gcs_triggers_feed(r->m, ev, &f); got; got = gcs_triggers_next(r->m, &f)) on_fire(r, f);
}

static int mkdir_p(const char *path) {
  char buf[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0775) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(buf, 0775) != 0 && errno != EEXIST) return -1;
  struct stat st;
  if (stat(buf, &st) != 0) return -1;
  if (!S_ISDIR(st.st_mode)) { errno = ENOTDIR; return -1; }
  return access(buf, W_OK | X_OK);
}

static int prepare_outdir(struct rec *r) {
  char def[64];
  const char *out = r->o.output;
  if (!out) {
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(def, sizeof def, "gcscope-record-%Y%m%d-%H%M%S", &tm);
    out = def;
  }
  if (mkdir_p(out) != 0 || !realpath(out, r->outdir)) {
    fprintf(stderr, "gcscope record: cannot write to output directory '%s': %s\n", out, strerror(errno));
    return -1;
  }
  return 0;
}

/* The live rules time pairs by notification arrival; the capture holds the
 * events with their own timestamps. Returns 1 to keep the capture (the trace
 * confirms the pause, or cannot say), 0 when the trace contradicts it: the
 * capture is renamed NAME-unverified and does not count. */
static int verify_capture(struct rec *r, const char *name, const char *path) {
  static struct trc_replay rp;
  char err[512];
  const struct gcs_rule *rule = gcs_triggers_rule(r->m, r->fire.rule);
  if (trc_replay_rule(path, rule, r->fire.pid, &r->fire, &rp, err, sizeof err)) {
    printf("gcscope record: %s not verified: %s\n", name, err);
    trc_fire_note(r->outdir, r->m, &r->fire, name, "not verified");
    return 1;
  }
  if (!rp.matched) {
    printf("gcscope record: %s not verified: the pause is not in the capture (a larger --circular-mb keeps more)\n",
           name);
    trc_fire_note(r->outdir, r->m, &r->fire, name, "not verified");
    return 1;
  }
  if (rp.match.fires) {
    if (rp.match.kind == GCS_TRIGGER_WINDOW)
      printf("gcscope record: %s verified: the trace says %.1f %% paused\n", name, rp.match.value);
    else
      printf("gcscope record: %s verified: the trace says %.3f ms\n", name, rp.match.ms);
    r->verified++;
    struct gcs_trigger_pair exact = r->fire;
    exact.ms = rp.match.ms;
    exact.value = rp.match.value;
    exact.begin_ns = rp.match.begin_ns;
    exact.end_ns = rp.match.end_ns;
    trc_fire_note(r->outdir, r->m, &exact, name, "verified");
    return 1;
  }
  char moved[PATH_MAX + 64];
  snprintf(moved, sizeof moved, "%s/unverified-%d", r->outdir, r->unverified + 1);
  if (rename(path, moved) != 0) {
    printf("gcscope record: %s not confirmed (the trace says %.3f ms) but kept: cannot rename it to %s: %s\n", name,
           rp.match.ms, moved, strerror(errno));
    trc_fire_note(r->outdir, r->m, &r->fire, name, "not verified");
    return 1;
  }
  r->unverified++;
  char desc[300];
  if (rule) gcs_rule_describe(rule, desc, sizeof desc);
  else snprintf(desc, sizeof desc, "?");
  printf("gcscope record: %s discarded: the trace says %.3f ms, not over rule %s (the notification arrived late); "
         "moved to %s, re-armed\n", name, rp.match.ms, desc, moved);
  trc_fire_note(r->outdir, r->m, &r->fire, moved + strlen(r->outdir) + 1, "discarded");
  gcs_triggers_discard(r->m, r->fire.rule);
  return 0;
}

static void take_capture(struct rec *r) {
  int k = r->captures + 1;
  char name[32], path[PATH_MAX + 32];
  snprintf(name, sizeof name, "capture-%d", k);
  snprintf(path, sizeof path, "%s/%s", r->outdir, name);
  gcs_triggers_resolve(r->m, &r->fire);
  if (trc_snapshot_record(r->session, name, r->o.relayd ? NULL : path, r->o.relayd, r->err, sizeof r->err)) {
    fprintf(stderr, "gcscope record: %s\n", r->err);
    r->pending = 0;
    return;
  }
  char what[96], desc[320];
  const struct gcs_rule *rule = gcs_triggers_rule(r->m, r->fire.rule);
  trc_fire_describe(&r->fire, what, sizeof what);
  trc_fire_label(r->m, &r->fire, desc, sizeof desc);
  printf("gcscope record: %s: pid %d %s: %.1f ms -> ", desc, r->fire.pid, what, r->fire.ms);
  if (r->o.relayd) printf("%s-* on lttng-relayd at %s\n", name, r->o.relayd);
  else printf("%s\n", path);
  fflush(stdout);
  if (!r->o.relayd && !verify_capture(r, name, path)) {
    r->pending = 0;
    gcs_triggers_rearm(r->m, now_ns());
    return;
  }
  if (r->captures < 16) snprintf(r->capture_paths[r->captures], sizeof r->capture_paths[0], "%s", path);
  r->captures++;
  r->pending = 0;
  trc_fire_run(rule, &r->fire, r->o.relayd ? name : path);
  if (rule && rule->action == GCS_RULE_STOP) {
    printf("gcscope record: rule %s stops the recording (action=stop)\n", rule->name);
    r->stop_now = 1;
  }
  gcs_triggers_rearm(r->m, now_ns());   /* PerfView re-creates its triggers */
}

/* --pid: its pidfd, polled by every wait_turn, says when it exits; without
 * one, the process table does (trc_pid_exited). */
static int target_alive(const struct rec *r) {
  if (!r->o.pid) return 1;
  return r->pidfd >= 0 ? !r->target_exited : !trc_pid_exited(r->o.pid);
}

static void end_session(struct rec *r) {
  if (!r->session_live) return;
  if (trc_session_stop(r->session, r->err, sizeof r->err) ||
      trc_session_destroy(r->session, r->err, sizeof r->err))
    fprintf(stderr, "gcscope record: %s\n", r->err);
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
static void wait_turn(struct rec *r, uint64_t end) {
  int ms = r->w || r->pending ? 1 : IDLE_MS;
  if (end) {
    uint64_t t = now_ns();
    if (t >= end) return;
    if ((end - t) / 1000000u < (uint64_t)ms) ms = (int)((end - t + 999999u) / 1000000u);
  }
  if (trc_sig_sleep(r->target_exited ? -1 : r->pidfd, ms)) r->target_exited = 1;
}

/* Deliver pending notifications; tell the reconstruction about drops.
 * Returns -1 when the daemon went away. */
static int poll_watch(struct rec *r) {
  if (!r->w) return 0;
  int n = trc_watch_poll(r->w, on_event, r);
  uint64_t d = trc_watch_dropped(r->w);
  if (d > r->dropped_seen) {
    lost(r, d - r->dropped_seen);
    r->dropped_seen = d;
  }
  if (now_ns() >= r->discard_check_ns + DISCARD_CHECK_NS) check_discards(r);
  return n;
}

static void drain(struct rec *r, int ms) {
  for (int i = 0; i < ms; i++) {
    if (poll_watch(r) < 0) break;
    tick();
  }
}

/* Events the tracer discarded, with the rate that overran the buffers and
 * what avoids it. */
static void print_lost(const struct rec *r, const struct trc_replay *rp) {
  double secs = rp->last_ns > rp->first_ns ? (double)(rp->last_ns - rp->first_ns) / 1e9 : 0;
  uint64_t kept = rp->events, all = rp->events + rp->lost;
  printf("; the tracer discarded %llu of %llu events (%.1f %%)", (unsigned long long)rp->lost,
         (unsigned long long)all, 100.0 * (double)rp->lost / (double)all);
  uint64_t subbuf = 0, num = 0;
  trc_channel_geometry(r->o.subbuf_size, r->o.num_subbuf, &subbuf, &num);
  if (secs > 0 && kept) {
    double rate = (double)all / secs;
    printf(": --profile %s made %.0f events/s", trc_profile_name(r->o.profile), rate);
    if (subbuf && num)
      printf(" into buffers of %llu x %llu KiB per CPU", (unsigned long long)num, (unsigned long long)(subbuf / 1024));
  }
  printf("; a larger --buffer-size/--num-subbuf, or a lighter --profile, avoids it");
}

static void print_counts(const struct gcs_trigger_summary *s) {
  int n = s->nprocs;
  printf("gcscope record: %llu GCs in %d process%s", (unsigned long long)s->gcs, n, n == 1 ? "" : "es");
}

/* A local recording is summarised from the trace, timed by the events' own
 * timestamps (the figures `gcscope stats` gives); otherwise (relayd, or only
 * captures written) from the live notifications, and said so. */
static void print_summary(struct rec *r) {
  if (r->w) check_discards(r);
  struct gcs_trigger_summary s;
  gcs_triggers_finish(r->m, &s);
  if (!r->o.relayd && !r->triggers) {
    static struct trc_replay rp;
    char err[512];
    if (trc_replay(r->outdir, NULL, 0, NULL, &rp, err, sizeof err) == 0) {
      print_counts(&rp.sum);
      if (rp.sum.max_pause_ms > 0)
        printf(", max pause %.3f ms (pid %d GC #%u)", rp.sum.max_pause_ms, (int)rp.sum.max_pid, rp.sum.max_gc);
      if (rp.lost) print_lost(r, &rp);
      printf("\n");
      return;
    }
    printf("gcscope record: cannot summarise the trace: %s\n", err);
    return;
  }
  print_counts(&s);
  if (s.max_pause_ms > 0)
    printf(", max pause ~%.1f ms (pid %d GC #%u; timed by notification arrival)", s.max_pause_ms, (int)s.max_pid,
           s.max_gc);
  uint64_t lost_n = r->dropped_seen + r->discarded_seen;
  if (lost_n) printf(" (approximate: %llu notifications dropped)", (unsigned long long)lost_n);
  printf("\n");
}

/* Where a streamed trace lands: the relayd names it after the tracing host
 * (this one: the session daemon is local) and the session, plus the session's
 * creation date and time, under its output directory. */
static void print_relayd_where(const struct rec *r, const char *what) {
  char host[256] = "HOST";
  if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "HOST");
  host[sizeof host - 1] = '\0';
  printf("gcscope record: %s sent to lttng-relayd at %s: %s/%s-* in its output directory\n", what,
         r->o.relayd, host, r->session);
}

static int run(struct rec *r) {
  struct trc_opts *o = &r->o;
  const char *events[TRC_MAX_EVENTS];
  int nevents = trc_profile_events(o->profile, o->dotnet, events);
  r->triggers = trc_opts_any_trigger(o);
  r->snapshot = r->triggers || o->circular_mb > 0;
  uint64_t subbuf = o->subbuf_size, num = o->num_subbuf;
  if (r->snapshot) {
    uint64_t s, n;
    trc_circular_geometry(o->circular_mb > 0 ? o->circular_mb : TRC_DEFAULT_TRIGGER_CIRCULAR_MB,
                          sysconf(_SC_NPROCESSORS_CONF), &s, &n);
    if (!subbuf) subbuf = s;
    if (!num) num = n;
  }
  snprintf(r->session, sizeof r->session, "gcscope-record-%d", (int)getpid());
  /* The command is forked first (it waits before exec) so that the session
   * and the watcher can be restricted to its PID, like --pid. */
  if (o->command && trc_child_spawn(&r->child, o->command, o->dotnet, r->err, sizeof r->err)) goto fail;
  pid_t only = o->command ? r->child.pid : o->pid;
  if (o->pid) r->pidfd = trc_pidfd_open(o->pid);
  struct trc_session_cfg cfg = {
    .name = r->session, .path = r->outdir, .relayd = o->relayd, .snapshot = r->snapshot,
    .subbuf_size = subbuf, .num_subbuf = num, .events = events, .nevents = nevents, .pid = only,
  };
  if (trc_session_create(&cfg, r->err, sizeof r->err)) goto fail;
  r->session_live = 1;
  /* The live notifications serve the triggers, and the summary of a trace
   * that is not kept here (relayd); a local trace is summarised from itself. */
  if (r->triggers || o->relayd) {
    r->w = trc_watch_start(o->dotnet, only, r->err, sizeof r->err);
    if (!r->w) goto fail;
  }
  if (trc_session_start(r->session, r->err, sizeof r->err)) goto fail;
  if (o->command && trc_child_release(&r->child, r->err, sizeof r->err)) goto fail;

  if (r->triggers)
    printf("gcscope record: watching for long pauses (flight recorder %s, captures in %s)\n",
           r->o.relayd ? "to relayd" : "in memory", r->o.relayd ? r->o.relayd : r->outdir);
  else
    printf("gcscope record: recording to %s%s\n", r->o.relayd ? r->o.relayd : r->outdir,
           r->snapshot ? " (flight recorder: written at the end)" : "");
  fflush(stdout);

  uint64_t start = now_ns();
  uint64_t end = o->duration_sec > 0 ? start + (uint64_t)(o->duration_sec * 1e9) : 0;
  int stop = 0;
  while (!stop) {
    if (poll_watch(r) < 0) {
      fprintf(stderr, "gcscope record: lost the connection to the session daemon\n");
      break;
    }
    uint64_t t = now_ns();
    if (r->pending && t >= r->due_ns) {
      if (gcs_triggers_resolve(r->m, &r->fire) || t >= r->due_ns + GEN_WAIT_NS) {
        take_capture(r);
        if (r->captures >= o->collect_multiple || r->stop_now) {
          end_session(r);
          if (!o->command) stop = 1;
          else if (!r->child_done)
            printf("gcscope record: all %d capture%s taken; waiting for the command to exit\n",
                   r->captures, r->captures == 1 ? "" : "s");
          fflush(stdout);
        }
      }
    }
    if (o->command && !r->child_done && waitpid(r->child.pid, &r->child_status, WNOHANG) == r->child.pid)
      r->child_done = 1, stop = 1;
    if (!target_alive(r)) {
      printf("gcscope record: process %d exited\n", (int)o->pid);
      stop = 1;
    }
    if (end && t >= end) {
      /* --duration: like timeout(1), the command is asked to stop too. */
      if (o->command && !r->child_done) kill(r->child.pid, SIGTERM);
      stop = 1;
    }
    if (trc_sig) {
      if (trc_sig_forward && o->command && !r->child_done) kill(r->child.pid, trc_sig);
      stop = 1;
    }
    if (!stop) wait_turn(r, end);
  }
  /* The last notifications trail the events by a fraction of a millisecond. */
  if (r->w) drain(r, 50);
  if (r->session_live && r->pending) take_capture(r);
  if (r->session_live && r->snapshot && !r->triggers) {
    if (trc_snapshot_record(r->session, "flight", r->o.relayd ? NULL : r->outdir, r->o.relayd,
                            r->err, sizeof r->err))
      fprintf(stderr, "gcscope record: %s\n", r->err);
  }
  end_session(r);
  /* After a signal the command got it too: wait for it (a second signal stops waiting). */
  if (o->command && !r->child_done) {
    int nsig = trc_nsig;
    while (!r->child_done) {
      if (waitpid(r->child.pid, &r->child_status, WNOHANG) == r->child.pid) r->child_done = 1;
      else if (trc_nsig != nsig && trc_nsig > 1) break;
      else trc_sig_sleep(-1, IDLE_MS);   /* SIGCHLD, or the second signal, wakes it */
    }
  }
  if (r->triggers) {
    if (r->captures && r->o.relayd)
    {
      char what[48];
      snprintf(what, sizeof what, "%d capture%s", r->captures, r->captures == 1 ? "" : "s");
      print_relayd_where(r, what);
    }
    else if (r->captures)
      printf("gcscope record: %d capture%s in %s (%d verified by the trace's timestamps)\n", r->captures,
             r->captures == 1 ? "" : "s", r->outdir, r->verified);
    else if (r->unverified)
      printf("gcscope record: no capture confirmed by the trace (%d discarded, in %s/unverified-*)\n", r->unverified,
             r->outdir);
    else if (!r->logged)
      printf("gcscope record: no trigger fired; nothing written\n");
    if (r->logged)
      printf("gcscope record: %d firing%s of action=log rules, in %s/firings.tsv\n", r->logged,
             r->logged == 1 ? "" : "s", r->o.relayd ? "(not kept: --relayd)" : r->outdir);
  } else {
    if (r->o.relayd) print_relayd_where(r, "trace");
    else printf("gcscope record: trace in %s\n", r->outdir);
  }
  print_summary(r);
  if (o->command && r->child_done && WIFEXITED(r->child_status) && WEXITSTATUS(r->child_status))
    printf("gcscope record: the command exited with status %d\n", WEXITSTATUS(r->child_status));
  else if (o->command && r->child_done && WIFSIGNALED(r->child_status))
    printf("gcscope record: the command was killed by signal %d\n", WTERMSIG(r->child_status));
  fflush(stdout);
  return 0;
fail:
  fprintf(stderr, "gcscope record: %s\n", r->err);
  return 1;
}

static int do_import(struct rec *r) {
  const char *paths[16];
  int n = 0;
  if (r->triggers) {
    for (int i = 0; i < r->captures && i < 16; i++) paths[n++] = r->capture_paths[i];
  } else {
    paths[n++] = r->outdir;
  }
  if (!n) return 0;
  char err[512];
  struct gcs_import_opts io = { .out = stdout };
  if (isatty(STDERR_FILENO) && !r->o.quiet) io.progress = gcs_import_progress_line;
  if (gcs_import_paths(r->o.db ? r->o.db : GCS_DB_DEFAULT_PATH, paths, n, &io, err, sizeof err)) {
    fprintf(stderr, "gcscope record: import failed: %s\n", err);
    return 1;
  }
  return 0;
}

int gcs_cmd_record(int argc, char **argv) {
  static struct rec rec;      /* large; one recording per process */
  struct rec *r = &rec;
  memset(r, 0, sizeof *r);
  r->child.pid = -1;
  int rc = trc_opts_parse(argc, argv, &r->o);
  if (rc) {
    trc_opts_free(&r->o);
    return rc == 1 ? 0 : rc;
  }
  if (trc_eventpipe_wanted(&r->o)) {
    rc = prepare_outdir(r) ? 1 : trc_eventpipe_record(&r->o, r->outdir);
    trc_opts_free(&r->o);
    return rc;
  }
  if (r->o.dotnet && trc_clr_lttng_check(r->o.pid, r->o.command, r->err, sizeof r->err)) {
    fprintf(stderr, "gcscope record: %s; record over EventPipe instead (--dotnet without --transport lttng)\n", r->err);
    trc_opts_free(&r->o);
    return 1;
  }
  if (!r->o.relayd && prepare_outdir(r)) {
    trc_opts_free(&r->o);
    return 1;
  }
  if (r->o.relayd) snprintf(r->outdir, sizeof r->outdir, "%s", r->o.relayd);

  trc_sig_begin(1);   /* SIGCHLD ends the waits too: the command exited */
  r->pidfd = -1;

  if (trc_daemon_ensure(&r->d, r->err, sizeof r->err)) {
    fprintf(stderr, "gcscope record: %s\n", r->err);
    rc = 1;
    goto out;
  }
  r->m = trc_rules_new(&r->o, KEEP_GCS);
  if (!r->m) {
    fprintf(stderr, "gcscope record: out of memory\n");
    rc = 1;
  } else {
    rc = run(r);
  }
  if (rc) {
    /* setup failed part-way: undo what exists */
    trc_child_abort(&r->child);
    if (r->session_live) {
      trc_session_destroy(r->session, r->err, sizeof r->err);
      r->session_live = 0;
    }
  }
  trc_watch_stop(r->w);
  r->w = NULL;
  trc_daemon_stop(&r->d);
  if (rc == 0 && r->o.import) rc = do_import(r);
  gcs_triggers_free(r->m);
  r->m = NULL;
out:
  if (r->pidfd >= 0) close(r->pidfd);
  r->pidfd = -1;
  trc_sig_end();
  trc_opts_free(&r->o);
  return rc;
}
