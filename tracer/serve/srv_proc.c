/*
 * srv_proc.c — one watcher thread per .NET process (srv.h): ProcessInfo2
 * for its name and runtime version, an EventPipe session in attach mode with
 * the gc profile (trc_ep_session.h, trc_ep_profile), the stream decoded as it
 * arrives (gcs_nettrace_stream, live mode) into the one reconstruction
 * (gcs_recon) whose callbacks feed the process's srv_pm; with --rules the
 * same events go to the stop rules (gcs_triggers), and with -o the stream's
 * blocks to a flight recorder (trc_ep_flight.h) written as a capture when a
 * rule fires.
 *
 * The session never slows the process: EventPipe drops events when its
 * buffers are full (counted in gcscope_events_lost_total); nothing here
 * writes to the runtime but the commands. Memory is bounded: the stream
 * buffers one object, the reconstruction keeps its last KEEP_GCS GCs, the
 * flight recorder its budget.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gcs_dsipc.h"
#include "gcs_enums.h"
#include "gcs_nettrace.h"
#include "gcs_recon.h"
#include "gcs_text.h"
#include "gcs_triggers.h"
#include "srv.h"
#include "trc_ep_flight.h"
#include "trc_ep_session.h"
#include "trc_fire.h"
#include "trc_outdir.h"
#include "trc_sig.h"

#define LIVE_LAG_NS 500000000ull   /* events are ordered across threads this long after they arrive */
#define KEEP_GCS 256               /* GCs the reconstruction keeps per process */
#define WAIT_MS 1000               /* the longest wait: a stop request also wakes it */
#define DRAIN_MS 3000              /* after StopTracing or the process's exit */
#define INFO_TIMEOUT_MS 3000
#define GEN_WAIT_MS 250

int64_t srv_mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t srv_real_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct watch {
  struct srv_sink sink;            /* the reconstruction's callbacks' state */
  struct srv_proc *p;
  struct srv *srv;
  struct trc_ep_session s;
  struct gcs_nettrace_stream *ns;
  struct gcs_recon *recon;
  struct gcs_triggers *m;
  struct trc_epf *fr;
  uint64_t starts, last_ts, lost;
  int pending, captures;
  struct gcs_trigger_pair fire;
  int64_t due_ms;
  char name[128], runtime[64];
  char dir[PATH_MAX];
  int keep_fd;                     /* --keep-stream: the stream as received; -1 */
  uint8_t buf[1 << 16];
};

/* ---- the reconstruction's callbacks (watcher thread; srv_lttng.c's too) -- */

static void update_mode(struct srv_sink *k, const struct gcs_gc *g) {
  if (gcs_type_is_background(g->type)) k->saw_bgc = 1;
  int server = -1, conc = -1, heaps = -1;
  if (gcs_recon_process_count(k->recon) > 0) {
    const struct gcs_proc_summary *s = gcs_recon_process(k->recon, 0);
    server = s->server_gc;
    heaps = s->heap_count;
    if (server >= 0) conc = gcs_startup_is_concurrent_gc(s->startup_flags);
  }
  if (k->saw_bgc) conc = 1;   /* a background GC ran: concurrent GC is on */
  srv_pm_set_mode(k->p->pm, server, conc, heaps);
}

static void on_gc_done(const struct gcs_gc *g, void *ud) {
  struct srv_sink *k = ud;
  pthread_mutex_lock(&k->srv->lock);
  update_mode(k, g);
  srv_pm_gc_done(k->p->pm, g);
  pthread_mutex_unlock(&k->srv->lock);
}

static void on_gc_alloc_known(const struct gcs_gc *g, void *ud) {
  struct srv_sink *k = ud;
  pthread_mutex_lock(&k->srv->lock);
  srv_pm_gc_alloc_known(k->p->pm, g);
  pthread_mutex_unlock(&k->srv->lock);
}

static void on_suspend_done(int32_t pid, uint32_t gc_index, uint32_t reason, uint64_t suspend_ns, uint64_t ts_ns,
                            void *ud) {
  (void)pid, (void)gc_index, (void)ts_ns;
  struct srv_sink *k = ud;
  if (!gcs_suspend_is_for_gc(reason)) return;
  pthread_mutex_lock(&k->srv->lock);
  srv_pm_suspension(k->p->pm, suspend_ns);
  pthread_mutex_unlock(&k->srv->lock);
}

static void on_bgc_final(int32_t pid, uint32_t gc_index, uint64_t pause_ns, uint64_t ts_ns, void *ud) {
  (void)pid, (void)gc_index;
  struct srv_sink *k = ud;
  pthread_mutex_lock(&k->srv->lock);
  srv_pm_bgc_final_pause(k->p->pm, pause_ns, ts_ns);
  pthread_mutex_unlock(&k->srv->lock);
}

const struct gcs_recon_callbacks srv_sink_callbacks = { .gc_done = on_gc_done,
                                                        .gc_alloc_known = on_gc_alloc_known,
                                                        .suspend_done = on_suspend_done,
                                                        .bgc_final_pause = on_bgc_final };

/* ---- stop rules and captures ------------------------------------------- */

static int ensure_dir(struct watch *w) {
  if (w->dir[0]) return 0;
  char d[PATH_MAX], name[32];
  snprintf(name, sizeof name, "pid-%d", (int)w->p->pid);
  /* new for each watch: an earlier one's captures (this pid's, or a reused pid's) stay whole */
  if (trc_outdir_make_new(w->srv->outdir, name, d, sizeof d) != 0) {
    fprintf(stderr, "gcscope serve: pid %d: cannot create %s/%s: %s\n", (int)w->p->pid, w->srv->outdir, name,
            strerror(errno));
    return -1;
  }
  snprintf(w->dir, sizeof w->dir, "%s", d);
  return 0;
}

static void on_fire(struct watch *w, struct gcs_trigger_pair f) {
  const struct gcs_rule *rule = gcs_triggers_rule(w->m, f.rule);
  pthread_mutex_lock(&w->srv->lock);
  srv_pm_rule_fired(w->p->pm, f.rule);
  pthread_mutex_unlock(&w->srv->lock);
  char what[96];
  trc_fire_describe(&f, what, sizeof what);
  fprintf(stderr, "gcscope serve: pid %d: rule %s fired (%s, %.3f ms)\n", (int)w->p->pid, rule ? rule->name : "?",
          what, f.kind == GCS_TRIGGER_WINDOW ? f.value : f.ms);
  int log_only = !rule || rule->action == GCS_RULE_LOG || !w->srv->outdir;
  if (log_only) {
    if (w->srv->outdir && !ensure_dir(w)) trc_fire_note(w->dir, w->m, &f, NULL, "logged");
    trc_fire_run(rule, &f, NULL);
    return;
  }
  if (w->pending || w->captures >= w->srv->max_captures) {
    gcs_triggers_discard(w->m, f.rule);
    return;
  }
  w->pending = 1;
  w->fire = f;
  w->due_ms = srv_mono_ms() + (int64_t)(w->srv->capture_delay_s * 1000);
}

static void take_capture(struct watch *w) {
  w->pending = 0;
  if (ensure_dir(w)) return;
  gcs_triggers_resolve(w->m, &w->fire);
  char name[48], path[PATH_MAX + 48], err[PATH_MAX + 256];
  snprintf(name, sizeof name, "capture-%d.nettrace", w->captures + 1);
  snprintf(path, sizeof path, "%s/%s", w->dir, name);
  if (trc_epf_write(w->fr, path, err, sizeof err)) {
    fprintf(stderr, "gcscope serve: pid %d: %s\n", (int)w->p->pid, err);
    return;
  }
  w->captures++;
  fprintf(stderr, "gcscope serve: pid %d: capture %s\n", (int)w->p->pid, path);
  trc_fire_note(w->dir, w->m, &w->fire, name, "captured");
  trc_fire_run(gcs_triggers_rule(w->m, w->fire.rule), &w->fire, path);
  gcs_triggers_rearm(w->m, w->last_ts + 1);
}

static void maybe_capture(struct watch *w) {
  if (!w->pending) return;
  int64_t t = srv_mono_ms();
  if (t < w->due_ms) return;
  if (gcs_triggers_resolve(w->m, &w->fire) || t >= w->due_ms + GEN_WAIT_MS) take_capture(w);
}

/* ---- the stream ---------------------------------------------------------- */

static int on_event(const struct gcs_event *ev, void *ud) {
  struct watch *w = ud;
  if (ev->ts_ns > w->last_ts) w->last_ts = ev->ts_ns;
  gcs_recon_feed(w->recon, ev);
  if (ev->kind == gcs_kind_GCStart && ++w->starts % KEEP_GCS == 0) gcs_recon_forget_old(w->recon, KEEP_GCS);
  if (w->m && gcs_triggers_event_needed(ev->kind)) {
    struct gcs_trigger_pair f;
    for (int got = gcs_triggers_feed(w->m, ev, &f); got; got = gcs_triggers_next(w->m, &f)) on_fire(w, f);
  }
  return 0;
}

static int on_object(const struct gcs_nettrace_object *o, void *ud) {
  struct watch *w = ud;
  return w->fr ? trc_epf_add(o, w->fr) : 0;
}

/* A capture thread's sequence gap, with its window (gcs_nettrace_lost),
 * where it begins among the events: the GCs whose events span it are
 * incomplete. */
static int on_lost(const struct gcs_nettrace_lost *l, void *ud) {
  struct watch *w = ud;
  gcs_recon_lost(w->recon, w->p->pid, l->begin_ns, l->end_ns, l->count);
  if (w->m) gcs_triggers_lost(w->m, l->begin_ns, l->end_ns, l->count);
  return 0;
}

static void note_lost(struct watch *w) {
  const struct gcs_nettrace_info *info = gcs_nettrace_stream_info(w->ns);
  if (!info || info->events_lost <= w->lost) return;
  w->lost = info->events_lost;
  pthread_mutex_lock(&w->srv->lock);
  srv_pm_set_lost(w->p->pm, w->lost);
  pthread_mutex_unlock(&w->srv->lock);
}

/* --keep-stream: append what came; a write error stops keeping (said once). */
static void keep(struct watch *w, size_t n) {
  for (size_t off = 0; off < n;) {
    ssize_t k = write(w->keep_fd, w->buf + off, n - off);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      fprintf(stderr, "gcscope serve: pid %d: writing %s/trace.nettrace: %s; no longer kept\n", (int)w->p->pid, w->dir,
              strerror(errno));
      close(w->keep_fd);
      w->keep_fd = -1;
      return;
    }
    off += (size_t)k;
  }
}

static void open_keep(struct watch *w) {
  if (!w->srv->keep_stream || !w->srv->outdir || ensure_dir(w)) return;
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/trace.nettrace", w->dir);
  w->keep_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (w->keep_fd < 0)
    fprintf(stderr, "gcscope serve: pid %d: cannot write %s: %s\n", (int)w->p->pid, path, strerror(errno));
}

/* 1 at the end of the stream, 0 otherwise, -1 on an error (said). */
static int pump(struct watch *w, int timeout_ms) {
  char err[512];
  long got = trc_ep_read(&w->s, w->buf, sizeof w->buf, timeout_ms, err, sizeof err);
  if (got == TRC_EP_EOF) return 1;
  if (got < 0) {
    fprintf(stderr, "gcscope serve: pid %d: %s\n", (int)w->p->pid, err);
    return -1;
  }
  if (got > 0 && w->keep_fd >= 0) keep(w, (size_t)got);
  if (got > 0 && gcs_nettrace_stream_feed(w->ns, w->buf, (size_t)got, err, sizeof err)) {
    fprintf(stderr, "gcscope serve: pid %d: the stream cannot be decoded, detaching: %s\n", (int)w->p->pid, err);
    return -1;
  }
  note_lost(w);
  return 0;
}

static int drain(struct watch *w, int ms) {
  int64_t end = srv_mono_ms() + ms;
  for (;;) {
    int r = pump(w, 100);
    if (r) return r;
    if (srv_mono_ms() > end) return 0;
  }
}

static int wait_ms(const struct watch *w) {
  if (!w->pending) return WAIT_MS;
  int64_t left = w->due_ms - srv_mono_ms();
  if (left < 0) left = GEN_WAIT_MS;
  return left > WAIT_MS ? WAIT_MS : (int)left;
}

/* ---- the thread ---------------------------------------------------------- */

static void comm_of(pid_t pid, char *name, size_t len) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
  FILE *f = fopen(path, "r");
  name[0] = '\0';
  if (!f) return;
  if (fgets(name, (int)len, f)) name[strcspn(name, "\n")] = '\0';
  fclose(f);
}

/* ProcessInfo2: the entry assembly names the program (`dotnet app.dll` is
 * "dotnet" to /proc), the runtime its version. */
static int identify(struct watch *w, char *err, size_t errlen) {
  struct gcs_dsipc_endpoint ep;
  struct gcs_dsipc_process_info *info = calloc(1, sizeof *info);
  if (!info) { snprintf(err, errlen, "out of memory"); return -1; }
  int rc = gcs_dsipc_attach_pid(&ep, w->p->pid, err, errlen);
  if (!rc) {
    ep.timeout_ms = INFO_TIMEOUT_MS;
    rc = gcs_dsipc_process_info(&ep, info, err, errlen);
    gcs_dsipc_close(&ep);
  }
  if (!rc) {
    /* a peer's bytes, printed and labelled: printable UTF-8, cut at a
     * character boundary (gcs_text.h) */
    gcs_text_printable(info->runtime_version, strcspn(info->runtime_version, "+"), w->runtime, sizeof w->runtime);
    gcs_text_printable(info->entry_assembly, (size_t)-1, w->name, sizeof w->name);
  }
  if (!w->name[0]) {
    char comm[sizeof w->name];
    comm_of(w->p->pid, comm, sizeof comm);
    gcs_text_printable(comm, (size_t)-1, w->name, sizeof w->name);
  }
  free(info);
  return rc;
}

static int setup(struct watch *w, char *err, size_t errlen) {
  w->recon = gcs_recon_new(&srv_sink_callbacks, &w->sink);
  w->sink = (struct srv_sink){ .srv = w->srv, .p = w->p, .recon = w->recon };
  if (w->recon && w->srv->nrules) {
    w->m = gcs_triggers_new(KEEP_GCS, NULL, NULL);
    for (int i = 0; w->m && i < w->srv->nrules; i++)
      if (gcs_triggers_add_rule(w->m, &w->srv->rules[i])) { gcs_triggers_free(w->m); w->m = NULL; }
    if (w->m && w->srv->outdir) w->fr = trc_epf_new(w->srv->circular_bytes);
    if (!w->m || (w->srv->outdir && !w->fr)) { snprintf(err, errlen, "out of memory"); return -1; }
  }
  if (w->recon) w->ns = gcs_nettrace_stream_new("the EventPipe stream", on_event, on_object, w);
  if (!w->recon || !w->ns) { snprintf(err, errlen, "out of memory"); return -1; }
  gcs_nettrace_stream_set_live(w->ns, LIVE_LAG_NS);
  gcs_nettrace_stream_set_lost(w->ns, on_lost, NULL);
  return 0;
}

static void set_ended(struct watch *w, int gone) {
  pthread_mutex_lock(&w->srv->lock);
  w->p->state = SRV_ENDED;
  w->p->gone = gone;
  w->p->ended_ms = srv_mono_ms();
  pthread_mutex_unlock(&w->srv->lock);
}

static void run(struct watch *w) {
  struct srv_proc *p = w->p;
  char err[600];
  w->s.stream_fd = w->s.ep.listen_fd = w->s.ep.spare_fd = w->s.pidfd = -1;
  struct trc_ep_start_cfg cfg = { .pid = p->pid, .profile = TRC_PROFILE_GC, .child_out_fd = -1, .child_in_fd = -1,
                                  .wake_fd = p->wake[0] };
  if (setup(w, err, sizeof err) || identify(w, err, sizeof err) || trc_ep_start(&w->s, &cfg, err, sizeof err)) {
    /* a short-lived process (the dotnet CLI, a build node) that is gone already is not worth a line */
    int gone = trc_pid_exited(p->pid);
    if (!gone && !p->retry) fprintf(stderr, "gcscope serve: pid %d: cannot attach: %s\n", (int)p->pid, err);
    set_ended(w, gone);
    return;
  }
  struct srv_pm *pm = srv_pm_new(p->pid, w->name, w->runtime, srv_real_ns());
  if (!pm) {
    fprintf(stderr, "gcscope serve: pid %d: out of memory\n", (int)p->pid);
    trc_ep_stop(&w->s, err, sizeof err);
    trc_ep_close(&w->s);
    set_ended(w, 0);
    return;
  }
  open_keep(w);
  pthread_mutex_lock(&w->srv->lock);
  p->pm = pm;
  p->state = SRV_RUNNING;
  p->attached = 1;
  pthread_mutex_unlock(&w->srv->lock);
  fprintf(stderr, "gcscope serve: attached to pid %d (%s, .NET %s)\n", (int)p->pid, w->name,
          w->runtime[0] ? w->runtime : "unknown");
  int r = 0, gone = 0;
  while (!atomic_load(&p->stop)) {
    r = pump(w, wait_ms(w));
    if (r) break;
    if (w->m) maybe_capture(w);
    if (trc_ep_target_gone(&w->s)) {
      gone = 1;
      r = drain(w, DRAIN_MS);
      break;
    }
  }
  if (r > 0 && !gone && w->s.pidfd >= 0) {
    /* the runtime closes the stream as its process exits: give it a moment */
    struct pollfd pf = { .fd = w->s.pidfd, .events = POLLIN };
    gone = poll(&pf, 1, 1000) > 0;
  }
  if (!gone && r == 0) {   /* asked to stop: StopTracing, then the rest of the stream */
    if (trc_ep_stop(&w->s, err, sizeof err) == 0) drain(w, DRAIN_MS);
  } else if (r < 0 && !trc_ep_target_gone(&w->s)) {
    trc_ep_stop(&w->s, err, sizeof err);   /* a stream we cannot read: end the runtime's session */
  }
  gcs_nettrace_stream_finish(w->ns, err, sizeof err);
  note_lost(w);
  gcs_recon_finish(w->recon);
  if (w->m && w->pending) take_capture(w);
  gone = gone || trc_ep_target_gone(&w->s);
  trc_ep_close(&w->s);
  if (w->keep_fd >= 0) close(w->keep_fd);
  w->keep_fd = -1;
  set_ended(w, gone);
  fprintf(stderr, "gcscope serve: pid %d %s\n", (int)p->pid,
          gone ? "exited" : r > 0 ? "ended its session" : atomic_load(&p->stop) ? "detached" : "detached after an error");
}

static void *thread_main(void *arg) {
  struct srv_proc *p = arg;
  struct watch *w = calloc(1, sizeof *w);
  if (!w) {
    fprintf(stderr, "gcscope serve: pid %d: out of memory\n", (int)p->pid);
    set_ended(&(struct watch){ .p = p, .srv = p->srv }, 0);
    return NULL;
  }
  w->p = p;
  w->srv = p->srv;
  w->keep_fd = -1;
  run(w);
  gcs_nettrace_stream_free(w->ns);
  gcs_recon_free(w->recon);
  gcs_triggers_free(w->m);
  trc_epf_free(w->fr);
  free(w);
  return NULL;
}

int srv_proc_start(struct srv_proc *p, char *err, size_t errlen) {
  p->state = SRV_ATTACHING;
  p->wake[0] = p->wake[1] = -1;
  if (pipe2(p->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    p->wake[0] = p->wake[1] = -1;
    snprintf(err, errlen, "pipe: %s", strerror(errno));
    return -1;
  }
  atomic_init(&p->stop, 0);
  int rc = pthread_create(&p->thread, NULL, thread_main, p);
  if (rc) {
    snprintf(err, errlen, "cannot start a thread: %s", strerror(rc));
    close(p->wake[0]);
    close(p->wake[1]);
    p->wake[0] = p->wake[1] = -1;
    return -1;
  }
  p->thread_live = 1;
  return 0;
}

void srv_proc_request_stop(struct srv_proc *p) {
  if (!p->thread_live) return;   /* never started, or joined: its pipe is closed */
  atomic_store(&p->stop, 1);
  if (write(p->wake[1], "x", 1) < 0) {}
}

void srv_proc_join(struct srv_proc *p) {
  if (!p->thread_live) return;
  pthread_join(p->thread, NULL);
  p->thread_live = 0;
  close(p->wake[0]);
  close(p->wake[1]);
  p->wake[0] = p->wake[1] = -1;
}
