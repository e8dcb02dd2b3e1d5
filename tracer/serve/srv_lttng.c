/*
 * srv_lttng.c — `gcscope serve --lttng` (srv.h): librgc processes, and
 * CoreCLR processes tracing through LTTng, followed through one LTTng live
 * session.
 *
 * The session is gcs_session's (trc_lttng.h), as `top` and `record --relayd`
 * make theirs: a session daemon and an lttng-relayd, each started only when
 * none answers (and then stopped by its PID); a live session with the "gc"
 * profile's events of librgc and CoreCLR, per-user buffers and the vpid and
 * procname contexts, and no tracker: LTTng-UST registers every traced
 * process of the user with the daemon, those running and those that start
 * later, so every one of them streams into it.
 *
 * One reader thread reads the session through core/ctf's live reader
 * (gcs_ctf_live.h) and feeds each process's events to its own
 * reconstruction (gcs_recon), whose callbacks fill the process's srv_pm
 * (srv_sink_callbacks, as the EventPipe watchers do); with --rules the same
 * events go to each process's stop rules (firings are counted and logged;
 * captures are EventPipe's). A process is a row of the table (srv_proc with
 * lttng set) from its first GC event; once its pid is gone (or reused) and
 * DRAIN_MS have passed for its last events to arrive, its open GCs are
 * closed as incomplete and it ends: the main thread drops it after
 * --keep-exited. A pid an EventPipe watcher follows is left to it.
 *
 * Bounded: each reconstruction keeps its last KEEP_GCS GCs; the trace the
 * relayd writes rotates (TRACEFILE_SIZE x TRACEFILE_COUNT per stream) unless
 * it is kept (-o DIR --keep-stream).
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gcs_ctf_live.h"
#include "gcs_enums.h"
#include "gcs_text.h"
#include "gcs_triggers.h"
#include "srv.h"
#include "trc_fire.h"
#include "trc_lttng.h"
#include "trc_outdir.h"
#include "trc_profile.h"
#include "trc_sig.h"

#define LIVE_TIMER_US 200000                 /* data reaches the reader within ~0.2 s */
#define TRACEFILE_SIZE (16ull * 1000 * 1000) /* per stream file, when the trace is not kept */
#define TRACEFILE_COUNT 4
#define KEEP_GCS 256
#define POLL_BUDGET_MS 100
#define IDLE_MS 100          /* sleep when the relayd has nothing yet */
#define CHECK_MS 1000        /* how often the processes' pids are checked */
#define DRAIN_MS 3000        /* a gone process's last events: live timer + relayd */
#define MAX_LPROCS 1024
#define RETRY_MS 1000        /* a new reader after a failed read */      /* pids known at once (followed, or left to EventPipe) */

struct lproc {
  pid_t pid;
  unsigned long long start_time;
  struct srv_sink sink;           /* sink.p NULL: not ours (EventPipe follows it) */
  struct gcs_recon *recon;
  struct gcs_triggers *m;
  uint64_t starts, last_ts;
  int64_t gone_ms;                /* when its pid was first seen gone; 0 while it runs */
  char dir[PATH_MAX];             /* -o DIR/pid-PID, for firings.tsv */
};

struct srv_lttng {
  struct srv *srv;
  char session[64], host[256], url[600];
  struct trc_daemon daemon;
  struct trc_relayd relayd;
  char trace_dir[PATH_MAX];
  int trace_is_temp, session_created;
  pthread_t thread;
  int thread_live;
  atomic_int stop;
  struct gcs_ctf_live *rd;
  struct lproc *procs[MAX_LPROCS];
  int nprocs;
  int said_full;
  int64_t said_ms;                /* when a failed read was last said (once a minute at most) */
};

static struct srv_lttng *the;   /* one per serve */

static void sleep_ms(long ms) {
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

/* ---- the processes (reader thread) ----------------------------------------- */

/* The runtime version a process's start-up event tells: librgc's
 * RuntimeInformation.Version ("librgc-0.1.0"), CoreCLR's
 * RuntimeInformationStart (the shared framework directory in its
 * RuntimeDllPath, .../Microsoft.NETCore.App/10.0.0/libcoreclr.so); "" if
 * this event tells none. */
static void runtime_of(const struct gcs_event *ev, char *out, size_t len) {
  out[0] = '\0';
  if (ev->kind == gcs_kind_RuntimeInformation && ev->u.RuntimeInformation.Version &&
      ev->u.RuntimeInformation.Version[0]) {
    snprintf(out, len, "librgc-%.40s", ev->u.RuntimeInformation.Version);
  } else if (ev->kind == gcs_kind_RuntimeInformationStart && ev->u.RuntimeInformationStart.RuntimeDllPath) {
    const char *path = ev->u.RuntimeInformationStart.RuntimeDllPath;
    const char *app = strstr(path, ".App/");
    if (!app) return;
    app += 5;
    size_t n = strcspn(app, "/");
    if (n && n < len && app[n] == '/') snprintf(out, len, "%.*s", (int)n, app);
  }
}

static struct lproc *lookup(struct srv_lttng *L, pid_t pid) {
  for (int i = 0; i < L->nprocs; i++)
    if (L->procs[i]->pid == pid) return L->procs[i];   /* a gone one too: its last events drain */
  return NULL;
}

/* A process seen for the first time (its first decoded event ev). NULL when
 * it cannot be followed (said once). */
static struct lproc *add_proc(struct srv_lttng *L, const struct gcs_event *ev, const char *procname) {
  struct srv *s = L->srv;
  if (L->nprocs >= MAX_LPROCS) return NULL;
  struct lproc *lp = calloc(1, sizeof *lp);
  if (!lp) return NULL;
  lp->pid = ev->pid;
  lp->start_time = srv_start_time_of(ev->pid);
  L->procs[L->nprocs++] = lp;
  pthread_mutex_lock(&s->lock);
  int theirs = 0, full = s->nprocs + s->npending >= SRV_MAX_PROCS ||
                         srv_count_active_locked(s) + s->npending >= s->max_procs;
  for (int i = 0; i < s->nprocs; i++) {
    struct srv_proc *q = s->procs[i];
    if (q->pid == ev->pid && q->state != SRV_ENDED && !q->lttng) theirs = 1;   /* an EventPipe watcher has it */
  }
  pthread_mutex_unlock(&s->lock);
  if (theirs || full) {
    if (full && !L->said_full++)
      fprintf(stderr, "gcscope serve: watching %d processes already (--max-processes); pid %d and later "
                      "ones are not watched\n", s->max_procs, (int)ev->pid);
    return lp;   /* known, not followed */
  }
  char runtime[64], name[128];
  runtime_of(ev, runtime, sizeof runtime);
  gcs_text_printable(procname, (size_t)-1, name, sizeof name);   /* a trace's bytes, printed and labelled */
  procname = name;
  struct srv_proc *p = calloc(1, sizeof *p);
  struct srv_pm *pm = p ? srv_pm_new(ev->pid, procname, runtime, srv_real_ns()) : NULL;
  lp->recon = pm ? gcs_recon_new(&srv_sink_callbacks, &lp->sink) : NULL;
  if (lp->recon && s->nrules) {
    lp->m = gcs_triggers_new(KEEP_GCS, NULL, NULL);
    for (int i = 0; lp->m && i < s->nrules; i++)
      if (gcs_triggers_add_rule(lp->m, &s->rules[i])) { gcs_triggers_free(lp->m); lp->m = NULL; }
  }
  if (!lp->recon || (s->nrules && !lp->m)) {
    fprintf(stderr, "gcscope serve: pid %d: out of memory\n", (int)ev->pid);
    gcs_recon_free(lp->recon);
    lp->recon = NULL;
    srv_pm_free(pm);
    free(p);
    return lp;
  }
  p->srv = s;
  p->pid = ev->pid;
  p->start_time = lp->start_time;
  p->lttng = 1;
  p->state = SRV_RUNNING;
  p->attached = 1;
  p->pm = pm;
  p->wake[0] = p->wake[1] = -1;
  lp->sink = (struct srv_sink){ .srv = s, .p = p, .recon = lp->recon };
  pthread_mutex_lock(&s->lock);
  for (int i = 0; i < s->nprocs; i++)   /* the pid's earlier process: its series go now */
    if (s->procs[i]->pid == ev->pid && s->procs[i]->state == SRV_ENDED) s->procs[i]->superseded = 1;
  s->pending[s->npending++] = p;        /* the main thread puts it in the table (srv_merge_pending) */
  pthread_mutex_unlock(&s->lock);
  fprintf(stderr, "gcscope serve: following pid %d over LTTng (%s, %s)\n", (int)ev->pid,
          procname[0] ? procname : "unknown", runtime[0] ? runtime : "runtime unknown");
  return lp;
}

/* A process whose pid is gone: its last GCs reported, its row ended. */
static void end_proc(struct srv_lttng *L, struct lproc *lp, const char *how) {
  struct srv *s = L->srv;
  if (lp->recon) gcs_recon_finish(lp->recon);
  if (lp->sink.p) {
    pthread_mutex_lock(&s->lock);
    lp->sink.p->state = SRV_ENDED;
    lp->sink.p->gone = 1;
    lp->sink.p->ended_ms = srv_mono_ms();
    pthread_mutex_unlock(&s->lock);
    if (how) fprintf(stderr, "gcscope serve: pid %d %s\n", (int)lp->pid, how);
  }
  gcs_recon_free(lp->recon);
  gcs_triggers_free(lp->m);
  for (int i = 0; i < L->nprocs; i++)
    if (L->procs[i] == lp) {
      L->procs[i] = L->procs[--L->nprocs];
      break;
    }
  free(lp);
}

static void check_procs(struct srv_lttng *L) {
  int64_t now = srv_mono_ms();
  for (int i = 0; i < L->nprocs;) {
    struct lproc *lp = L->procs[i];
    if (!lp->gone_ms && (trc_pid_exited(lp->pid) || srv_start_time_of(lp->pid) != lp->start_time))
      lp->gone_ms = now;
    if (lp->gone_ms && now - lp->gone_ms >= DRAIN_MS) {
      end_proc(L, lp, "exited");
      continue;   /* the last row moved into i */
    }
    i++;
  }
}

/* ---- stop rules: counted and logged ---------------------------------------- */

static void on_fire(struct srv_lttng *L, struct lproc *lp, struct gcs_trigger_pair f) {
  struct srv *s = L->srv;
  const struct gcs_rule *rule = gcs_triggers_rule(lp->m, f.rule);
  pthread_mutex_lock(&s->lock);
  srv_pm_rule_fired(lp->sink.p->pm, f.rule);
  pthread_mutex_unlock(&s->lock);
  char what[96];
  trc_fire_describe(&f, what, sizeof what);
  fprintf(stderr, "gcscope serve: pid %d: rule %s fired (%s, %.3f ms)\n", (int)lp->pid, rule ? rule->name : "?",
          what, f.kind == GCS_TRIGGER_WINDOW ? f.value : f.ms);
  if (s->outdir && !lp->dir[0]) {
    char d[PATH_MAX], name[32];
    snprintf(name, sizeof name, "pid-%d", (int)lp->pid);
    if (trc_outdir_make_new(s->outdir, name, d, sizeof d) == 0) snprintf(lp->dir, sizeof lp->dir, "%s", d);
    else fprintf(stderr, "gcscope serve: pid %d: cannot create %s/%s: %s\n", (int)lp->pid, s->outdir, name,
                 strerror(errno));
  }
  if (lp->dir[0]) trc_fire_note(lp->dir, lp->m, &f, NULL, "logged");
  trc_fire_run(rule, &f, NULL);
}

/* ---- the live reader's callbacks (reader thread) --------------------------- */

static void on_event(const struct gcs_rd_event *rec, void *ud) {
  struct srv_lttng *L = ud;
  if (!rec->decoded || rec->payload_error || rec->ev.pid <= 0) return;
  const struct gcs_event *ev = &rec->ev;
  struct lproc *lp = lookup(L, ev->pid);
  if (!lp) lp = add_proc(L, ev, rec->procname ? rec->procname : "");
  if (!lp || !lp->recon) return;
  if (ev->ts_ns > lp->last_ts) lp->last_ts = ev->ts_ns;
  gcs_recon_feed(lp->recon, ev);
  if (ev->kind == gcs_kind_GCStart && ++lp->starts % KEEP_GCS == 0) gcs_recon_forget_old(lp->recon, KEEP_GCS);
  if (lp->m && gcs_triggers_event_needed(ev->kind)) {
    struct gcs_trigger_pair f;
    for (int got = gcs_triggers_feed(lp->m, ev, &f); got; got = gcs_triggers_next(lp->m, &f)) on_fire(L, lp, f);
  }
}

/* Events dropped from the per-user buffers belong to no one process: each
 * process followed counts them, and its open GCs become incomplete. */
static void on_lost(uint64_t n, uint64_t begin_ns, uint64_t end_ns, void *ud) {
  struct srv_lttng *L = ud;
  for (int i = 0; i < L->nprocs; i++) {
    struct lproc *lp = L->procs[i];
    if (!lp->recon) continue;
    gcs_recon_lost(lp->recon, lp->pid, begin_ns, end_ns ? end_ns : lp->last_ts, n);
    if (lp->m) gcs_triggers_lost(lp->m, begin_ns, end_ns ? end_ns : lp->last_ts, n);
    const struct gcs_proc_summary *ps = gcs_recon_process_count(lp->recon) ? gcs_recon_process(lp->recon, 0) : NULL;
    pthread_mutex_lock(&L->srv->lock);
    srv_pm_set_lost(lp->sink.p->pm, ps ? ps->lost_events : n);
    pthread_mutex_unlock(&L->srv->lock);
  }
}

/* The reader failed (a relayd restart, a stream babeltrace2 cannot read: a
 * process killed while writing to the shared buffers): what was in flight is
 * lost, so each process's open GCs become incomplete; a new reader attaches
 * to the session from its current position. */
static void reattach(struct srv_lttng *L) {
  for (int i = 0; i < L->nprocs; i++) {
    struct lproc *lp = L->procs[i];
    if (lp->recon) gcs_recon_lost(lp->recon, lp->pid, lp->last_ts, lp->last_ts, 0);
    if (lp->m) gcs_triggers_lost(lp->m, lp->last_ts, lp->last_ts, 0);
  }
  gcs_ctf_live_close(L->rd);
  static const struct gcs_ctf_live_callbacks cb = { on_event, on_lost };
  char err[600];
  L->rd = gcs_ctf_live_open(L->url, L->session, 1, &cb, L, err, sizeof err);
  if (!L->rd && srv_mono_ms() - L->said_ms >= 60000) {
    L->said_ms = srv_mono_ms();
    fprintf(stderr, "gcscope serve: LTTng live session: %s\n", err);
  }
}

static void *reader_main(void *arg) {
  struct srv_lttng *L = arg;
  int64_t next_check = 0, retry_at = 0;
  while (!atomic_load(&L->stop)) {
    int64_t now = srv_mono_ms();
    if (!L->rd && now >= retry_at) reattach(L);
    if (L->rd) {
      char err[600];
      int r = gcs_ctf_live_poll(L->rd, POLL_BUDGET_MS, err, sizeof err);
      if (r == GCS_CTF_LIVE_END) {
        fprintf(stderr, "gcscope serve: the LTTng live session ended (destroyed by someone else?); LTTng "
                        "processes are no longer followed\n");
        break;
      }
      if (r < 0) {
        /* said once a minute at most; tried again every RETRY_MS */
        if (!L->said_ms || now - L->said_ms >= 60000) {
          L->said_ms = now;
          fprintf(stderr, "gcscope serve: LTTng live session: %s; reading it again from now on\n", err);
        }
        gcs_ctf_live_close(L->rd);
        L->rd = NULL;
        retry_at = now + RETRY_MS;
      }
    }
    now = srv_mono_ms();
    if (now >= next_check) {
      check_procs(L);
      next_check = now + CHECK_MS;
    }
    sleep_ms(IDLE_MS);
  }
  while (L->nprocs) end_proc(L, L->procs[L->nprocs - 1], atomic_load(&L->stop) ? "detached" : "no longer followed");
  return NULL;
}

/* ---- the session (main thread) --------------------------------------------- */

static int remove_entry(const char *p, const struct stat *sb, int flag, struct FTW *f) {
  (void)sb, (void)flag, (void)f;
  return remove(p);
}

int srv_lttng_start(struct srv *s, const char *keep_dir, char *err, size_t errlen) {
  struct srv_lttng *L = calloc(1, sizeof *L);
  if (!L) { snprintf(err, errlen, "out of memory"); return -1; }
  the = L;
  L->srv = s;
  snprintf(L->session, sizeof L->session, "gcscope-serve-%d", (int)getpid());
  if (gethostname(L->host, sizeof L->host) != 0) snprintf(L->host, sizeof L->host, "localhost");
  L->host[sizeof L->host - 1] = '\0';
  if (trc_daemon_ensure(&L->daemon, err, errlen) < 0) return -1;
  /* where a relayd we start writes the live trace */
  if (keep_dir) {
    snprintf(L->trace_dir, sizeof L->trace_dir, "%.4000s/lttng", keep_dir);
    if (mkdir(L->trace_dir, 0775) != 0 && errno != EEXIST) {
      snprintf(err, errlen, "cannot create %s: %s", L->trace_dir, strerror(errno));
      return -1;
    }
  } else {
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(L->trace_dir, sizeof L->trace_dir, "%.4000s/gcscope-serve-%d-XXXXXX", tmp, (int)getpid());
    if (!mkdtemp(L->trace_dir)) {
      snprintf(err, errlen, "cannot create a temporary directory in %s: %s", tmp, strerror(errno));
      L->trace_dir[0] = '\0';
      return -1;
    }
    L->trace_is_temp = 1;
  }
  if (trc_relayd_ensure(&L->relayd, L->trace_dir, err, errlen) < 0) return -1;
  if (!L->relayd.pid) {   /* a relayd already listened: the trace goes to its output directory */
    if (L->trace_is_temp) rmdir(L->trace_dir);
    L->trace_is_temp = 0;
    L->trace_dir[0] = '\0';
  }
  const char *names[TRC_MAX_EVENTS];
  struct trc_session_cfg cfg = {
    .name = L->session, .relayd = "net://127.0.0.1", .live_timer_us = LIVE_TIMER_US,
    .events = names, .nevents = trc_profile_events(TRC_PROFILE_GC, 1, names),
    .tracefile_size = keep_dir ? 0 : TRACEFILE_SIZE, .tracefile_count = keep_dir ? 0 : TRACEFILE_COUNT,
  };
  if (trc_session_create(&cfg, err, errlen) < 0) return -1;
  L->session_created = 1;
  if (trc_session_start(L->session, err, errlen) < 0) return -1;
  char name[128];
  gcs_ctf_live_url("net://127.0.0.1", L->host, L->session, L->url, sizeof L->url, name, sizeof name);
  static const struct gcs_ctf_live_callbacks cb = { on_event, on_lost };
  L->rd = gcs_ctf_live_open(L->url, L->session, 1, &cb, L, err, errlen);
  if (!L->rd) return -1;
  atomic_init(&L->stop, 0);
  int rc = pthread_create(&L->thread, NULL, reader_main, L);
  if (rc) { snprintf(err, errlen, "cannot start a thread: %s", strerror(rc)); return -1; }
  L->thread_live = 1;
  fprintf(stderr, "gcscope serve: LTTng live session %s (librgc and CoreCLR processes tracing through LTTng)%s%s\n",
          L->session, L->trace_dir[0] ? "; trace in " : "; trace in the running lttng-relayd's output directory",
          L->trace_dir);
  return 0;
}

void srv_lttng_stop(struct srv *s) {
  (void)s;
  struct srv_lttng *L = the;
  if (!L) return;
  the = NULL;
  if (L->thread_live) {
    atomic_store(&L->stop, 1);
    pthread_join(L->thread, NULL);
  }
  while (L->nprocs) end_proc(L, L->procs[L->nprocs - 1], NULL);   /* the thread never ran */
  /* the reader first (it holds the relayd's viewer slot), then the session */
  gcs_ctf_live_close(L->rd);
  if (L->session_created) {
    char ignored[256];
    trc_session_stop(L->session, ignored, sizeof ignored);
    trc_session_destroy_wait(L->session, 5000, ignored, sizeof ignored);
  }
  trc_relayd_stop(&L->relayd);
  trc_daemon_stop(&L->daemon);
  if (L->trace_is_temp && L->trace_dir[0]) nftw(L->trace_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  free(L);
}
