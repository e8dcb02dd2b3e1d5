/* trc_lttng.c — liblttng-ctl wrappers for `gcscope record` (trc_lttng.h). */
#include "trc_lttng.h"
#include "trc_ctl.h"
#include "trc_relayd_url.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <lttng/lttng.h>
#include <netinet/in.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHANNEL "gcscope"
#define RELAYD_CONNECT_TIMEOUT_MS 3000
#define DATA_PENDING_POLL_MS 100

/* liblttng-ctl's quiet flag (trc_ctl.c): the probe's child sets it too. */
extern int lttng_opt_quiet;

static void sleep_ms(long ms) {
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

static int last_code;   /* the liblttng-ctl code lterr last reported (positive) */

static int lterr(char *err, size_t n, const char *what, int code) {
  last_code = code < 0 ? -code : code;
  snprintf(err, n, "%s: %s", what, lttng_strerror(code < 0 ? code : -code));
  return -1;
}

/* Find an executable in PATH (then the usual system dirs). */
static int find_exe(const char *name, char *out, size_t n) {
  const char *path = getenv("PATH");
  char buf[4096];
  snprintf(buf, sizeof buf, "%s:/usr/local/bin:/usr/bin:/bin:/usr/sbin", path ? path : "");
  for (char *save = NULL, *dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
    if (!*dir) continue;
    snprintf(out, n, "%s/%s", dir, name);
    if (access(out, X_OK) == 0) return 0;
  }
  return -1;
}

/* A daemon we start ourselves: which program, how to tell it is ready, how
 * long to wait, and what to say when it is missing or exits at once. */
struct daemon_spec {
  const char *exe;
  int (*ready)(void);
  int tries;
  long step_ms;
  const char *missing;     /* one line when exe is not in PATH */
  const char *exit_hint;   /* appended to "EXE could not start (exit status N)" */
  const char *timeout;     /* one line when it never gets ready */
};

/* Fork/exec spec->exe in its own process group (so a Ctrl-C meant for the
 * traced command does not reach it), stdio on /dev/null, and poll ready().
 * *pid is the child (0 when it exited); on timeout it is stopped. */
static int daemon_start(const struct daemon_spec *spec, char *const *args, pid_t *pid, char *err, size_t errlen) {
  *pid = 0;
  char exe[4096];
  if (find_exe(spec->exe, exe, sizeof exe) != 0) {
    snprintf(err, errlen, "%s", spec->missing);
    return -1;
  }
  pid_t child = fork();
  if (child < 0) {
    snprintf(err, errlen, "cannot start %s: %s", spec->exe, strerror(errno));
    return -1;
  }
  if (child == 0) {
    setpgid(0, 0);
    /* the caller's blocked signals (serve blocks SIGTERM in its threads) are
     * not the daemon's: trc_daemon_stop's SIGTERM must reach it */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int fd = open("/dev/null", O_RDWR);
    if (fd >= 0) { dup2(fd, 0); dup2(fd, 1); dup2(fd, 2); }
    if (args) execv(exe, args);
    else execl(exe, spec->exe, (char *)NULL);
    _exit(127);
  }
  *pid = child;
  for (int i = 0; i < spec->tries; i++) {
    if (spec->ready()) return 0;
    int st;
    if (waitpid(child, &st, WNOHANG) == child) {
      *pid = 0;
      snprintf(err, errlen, "%s could not start (exit status %d)%s", spec->exe,
               WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), spec->exit_hint);
      return -1;
    }
    sleep_ms(spec->step_ms);
  }
  struct trc_daemon d = { child };
  trc_daemon_stop(&d);
  *pid = 0;
  snprintf(err, errlen, "%s", spec->timeout);
  return -1;
}

/* Does the session daemon's client socket accept a connection? Not
 * lttng_session_daemon_alive(): its connect() blocks, without a limit, on a
 * daemon whose listen queue is full; this one does not block. */
static int sessiond_state(void) {
  char path[4200];
  trc_ctl_socket_path(path, sizeof path);
  return trc_ctl_socket_state(path);
}

static int sessiond_ready(void) { return sessiond_state() == TRC_SOCK_ACCEPTS; }

enum { PROBE_ANSWERS, PROBE_GONE, PROBE_FAILED };

/* Does the session daemon answer a harmless request? lttng_session_daemon_alive()
 * only connects to its socket, which the kernel accepts for a daemon that is
 * deadlocked, and liblttng-ctl then waits for the answer without a limit. A
 * child process asks for the list of sessions (read-only; the daemon changes
 * nothing) and this one waits for it at most secs seconds, then kills it by
 * its PID. PROBE_GONE: nothing listens any more (start one). */
static int sessiond_probe(int secs, char *err, size_t errlen) {
  pid_t parent = getpid();
  pid_t c = fork();
  if (c < 0) {
    snprintf(err, errlen, "cannot check lttng-sessiond: fork: %s", strerror(errno));
    return PROBE_FAILED;
  }
  if (c == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(4);
    /* the caller's handlers and mask are not the probe's: a Ctrl-C ends it */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int fd = open("/dev/null", O_RDWR);
    if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); }
    lttng_opt_quiet = 1;
    struct lttng_session *list = NULL;
    int r = lttng_list_sessions(&list);
    _exit(r == -LTTNG_ERR_NO_SESSIOND ? 3 : 0);
  }
  int st = 0;
  pid_t w = 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    if ((w = waitpid(c, &st, WNOHANG)) == c) break;
    /* reaped elsewhere (SIGCHLD ignored): it ended, so the daemon answered */
    if (w < 0 && errno == ECHILD) return PROBE_ANSWERS;
    clock_gettime(CLOCK_MONOTONIC, &t);
    if ((t.tv_sec - t0.tv_sec) * 1000L + (t.tv_nsec - t0.tv_nsec) / 1000000L >= secs * 1000L) break;
    sleep_ms(10);
  }
  if (w != c && (w = waitpid(c, &st, WNOHANG)) != c) {
    kill(c, SIGKILL);
    while (waitpid(c, NULL, 0) < 0 && errno == EINTR) {}
    char path[4200];
    trc_ctl_socket_path(path, sizeof path);
    pid_t owner = 0;
    if (trc_ctl_socket_state(path) == TRC_SOCK_FULL)
      /* the child waited in connect() the whole time; no pid without a connection */
      snprintf(err, errlen, "lttng-sessiond (%s) accepts no connection within %d s (its listen queue is full); "
               "restart it", path, secs);
    else if ((owner = trc_ctl_socket_owner(path)) > 0)
      snprintf(err, errlen, "lttng-sessiond (pid %d) does not answer within %d s; restart it", (int)owner, secs);
    else
      snprintf(err, errlen, "lttng-sessiond (%s) does not answer within %d s; restart it", path, secs);
    return PROBE_FAILED;
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return PROBE_ANSWERS;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 3) return PROBE_GONE;
  snprintf(err, errlen, "the check of lttng-sessiond was interrupted (%s %d)",
           WIFSIGNALED(st) ? "signal" : "exit status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
  return PROBE_FAILED;
}

int trc_daemon_ensure(struct trc_daemon *d, char *err, size_t errlen) {
  static const struct daemon_spec spec = {
    "lttng-sessiond", sessiond_ready, 500, 20,   /* up to 10 s */
    "LTTng is not installed (no lttng-sessiond in PATH); install lttng-tools",
    "; is this user allowed to trace?", "lttng-sessiond did not answer within 10 s",
  };
  d->pid = 0;
  int secs, flush_secs;
  /* both limits checked before anything starts (the flush's is used at the stop) */
  if (trc_ctl_timeout(&secs, err, errlen) || trc_ctl_flush_timeout(&flush_secs, err, errlen)) return -1;
  /* a full listen queue is a daemon too: the probe's wait is bounded */
  if (sessiond_state() != TRC_SOCK_NONE) {
    int p = sessiond_probe(secs, err, errlen);
    if (p == PROBE_ANSWERS) return 0;
    if (p == PROBE_FAILED) return -1;
  }
  return daemon_start(&spec, NULL, &d->pid, err, errlen);
}

void trc_daemon_stop(struct trc_daemon *d) {
  if (d->pid <= 0) return;
  kill(d->pid, SIGTERM);
  for (int i = 0; i < 250; i++) {
    if (waitpid(d->pid, NULL, WNOHANG) == d->pid) { d->pid = 0; return; }
    sleep_ms(20);
  }
  kill(d->pid, SIGKILL);
  waitpid(d->pid, NULL, 0);
  d->pid = 0;
}

int trc_port_listening(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
  close(fd);
  return ok;
}

static int relayd_ready(void) { return trc_port_listening(TRC_LIVE_PORT); }

int trc_relayd_ensure(struct trc_relayd *r, const char *output_dir, char *err, size_t errlen) {
  static const struct daemon_spec spec = {
    "lttng-relayd", relayd_ready, 100, 50,       /* up to 5 s */
    "no lttng-relayd in PATH; install lttng-tools", "",
    "lttng-relayd started but does not listen on port 5344",
  };
  r->pid = 0;
  if (relayd_ready()) return 0;
  char *args[] = { (char *)"lttng-relayd", (char *)"-o", (char *)output_dir, NULL };
  return daemon_start(&spec, output_dir ? args : NULL, &r->pid, err, errlen);
}

void trc_relayd_stop(struct trc_relayd *r) {
  struct trc_daemon d = { r->pid };   /* same stop sequence as the session daemon */
  trc_daemon_stop(&d);
  r->pid = 0;
}

static void fill_domain(struct lttng_domain *dom) {
  memset(dom, 0, sizeof *dom);
  dom->type = LTTNG_DOMAIN_UST;
  dom->buf_type = LTTNG_BUFFER_PER_UID;
}

/* A session writing a trace (local or to a relayd) keeps each process's
 * events in its own buffers: LTTng then writes the process's vpid and
 * procname into that trace's environment once, and the events carry only
 * the vtid context. The vpid and procname contexts cost about 280 of the
 * 1,330 instructions LTTng-UST spends on a small event (callgrind), on every
 * event. Flight-recorder (snapshot) sessions keep per-user buffers and all
 * three contexts: a process's per-process buffers vanish when it exits, and
 * a capture may come after that; live sessions keep them too (the live
 * viewer reads the contexts). */
static int per_process_buffers(const struct trc_session_cfg *c) { return !c->snapshot && !c->live_timer_us; }

static void fill_session_domain(const struct trc_session_cfg *c, struct lttng_domain *dom) {
  fill_domain(dom);
  if (per_process_buffers(c)) dom->buf_type = LTTNG_BUFFER_PER_PID;
}

/* The requests that make the session's channel, contexts, events and vpid
 * tracker, each named to the watchdog (trc_ctl_next) inside the caller's
 * trc_ctl_begin/trc_ctl_end. */
static int setup_session(const struct trc_session_cfg *c, struct lttng_handle *h,
                         char *err, size_t errlen) {
  struct lttng_domain dom;
  fill_session_domain(c, &dom);
  /* The per-user channel's default geometry in either case (per-process
   * channels default to much smaller sub-buffers). */
  uint64_t subbuf, num;
  trc_channel_geometry(c->subbuf_size, c->num_subbuf, &subbuf, &num);
  struct lttng_channel *ch = lttng_channel_create(&dom);
  if (!ch) { snprintf(err, errlen, "out of memory"); return -1; }
  snprintf(ch->name, sizeof ch->name, "%s", CHANNEL);
  if (subbuf) ch->attr.subbuf_size = subbuf;
  if (num) ch->attr.num_subbuf = num;
  if (c->tracefile_size) {
    ch->attr.tracefile_size = c->tracefile_size;
    ch->attr.tracefile_count = c->tracefile_count;
  }
  if (c->snapshot) {
    ch->attr.overwrite = 1;
    ch->attr.output = LTTNG_EVENT_MMAP;
  }
  if (trc_ctl_next("enable channel %s", CHANNEL)) { lttng_channel_destroy(ch); return -1; }
  int r = lttng_enable_channel(h, ch);
  lttng_channel_destroy(ch);
  if (r < 0) return lterr(err, errlen, "cannot create the channel", r);

  static const enum lttng_event_context_type ctxs[] = {
    LTTNG_EVENT_CONTEXT_VPID, LTTNG_EVENT_CONTEXT_VTID, LTTNG_EVENT_CONTEXT_PROCNAME,
  };
  static const char *const ctx_names[] = { "vpid", "vtid", "procname" };
  for (size_t i = 0; i < sizeof ctxs / sizeof ctxs[0]; i++) {
    if (per_process_buffers(c) && ctxs[i] != LTTNG_EVENT_CONTEXT_VTID) continue;
    struct lttng_event_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.ctx = ctxs[i];
    if (trc_ctl_next("add context %s", ctx_names[i])) return -1;
    if ((r = lttng_add_context(h, &ctx, NULL, CHANNEL)) < 0)
      return lterr(err, errlen, "cannot add a context", r);
  }
  for (int i = 0; i < c->nevents; i++) {
    struct lttng_event *ev = lttng_event_create();
    if (!ev) { snprintf(err, errlen, "out of memory"); return -1; }
    ev->type = LTTNG_EVENT_TRACEPOINT;
    ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
    ev->loglevel = -1;
    snprintf(ev->name, sizeof ev->name, "%s", c->events[i]);
    if (trc_ctl_next("enable event %.200s", c->events[i])) { lttng_event_destroy(ev); return -1; }
    r = lttng_enable_event(h, ev, CHANNEL);
    lttng_event_destroy(ev);
    if (r < 0) {
      char what[400];
      snprintf(what, sizeof what, "cannot enable event %s", c->events[i]);
      return lterr(err, errlen, what, r);
    }
  }
  if (c->pid > 0) {
    struct lttng_process_attr_tracker_handle *th = NULL;
    if (trc_ctl_next("track vpid %d", (int)c->pid)) return -1;
    enum lttng_error_code ec = lttng_session_get_tracker_handle(
        c->name, LTTNG_DOMAIN_UST, LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID, &th);
    if (ec != LTTNG_OK) return lterr(err, errlen, "cannot get the vpid tracker", (int)ec);
    enum lttng_process_attr_tracker_handle_status ts = LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_ERROR;
    if (!trc_ctl_next("track vpid %d", (int)c->pid))
      ts = lttng_process_attr_tracker_handle_set_tracking_policy(th, LTTNG_TRACKING_POLICY_INCLUDE_SET);
    if (ts == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK) {
      ts = LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_ERROR;
      if (!trc_ctl_next("track vpid %d", (int)c->pid))
        ts = lttng_process_attr_virtual_process_id_tracker_handle_add_pid(th, c->pid);
    }
    lttng_process_attr_tracker_handle_destroy(th);
    if (ts != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK) {
      snprintf(err, errlen, "cannot track vpid %d (tracker status %d)", (int)c->pid, (int)ts);
      return -1;
    }
  }
  return 0;
}

/* Inside trc_ctl_begin/trc_ctl_end (trc_session_create). */
static int session_create(const struct trc_session_cfg *c, struct lttng_session_descriptor *desc,
                          char *err, size_t errlen) {
  enum lttng_error_code ec = lttng_create_session_ext(desc);
  if (ec != LTTNG_OK && c->relayd) {
    char what[600];
    snprintf(what, sizeof what, "cannot stream to lttng-relayd at %s", c->relayd);
    return lterr(err, errlen, what, (int)ec);
  }
  if (ec != LTTNG_OK) return lterr(err, errlen, "cannot create the LTTng session", (int)ec);

  struct lttng_domain dom;
  fill_session_domain(c, &dom);
  struct lttng_handle *h = lttng_create_handle(c->name, &dom);
  if (!h) {
    if (!trc_ctl_next("destroy session")) lttng_destroy_session(c->name);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  last_code = 0;
  int r = setup_session(c, h, err, errlen);
  lttng_destroy_handle(h);
  /* The session daemon connects to the relayd when the first channel is made. */
  if (r && c->relayd && last_code == LTTNG_ERR_RELAYD_CONNECT_FAIL)
    snprintf(err, errlen, "cannot connect to lttng-relayd at %s (is it running, with these control and data ports?)",
             c->relayd);
  if (r && !trc_ctl_next("destroy session")) lttng_destroy_session(c->name);
  return r;
}

int trc_session_create(const struct trc_session_cfg *c, char *err, size_t errlen) {
  struct lttng_session_descriptor *desc;
  lttng_opt_quiet = 1;   /* the descriptor's URL parser prints its own errors otherwise */
  if (c->live_timer_us && (c->snapshot || !c->relayd)) {
    snprintf(err, errlen, c->snapshot ? "a live session cannot be a snapshot session"
                                      : "a live session needs a relayd URL");
    return -1;
  }
  if (c->live_timer_us)
    desc = lttng_session_descriptor_live_network_create(c->name, c->relayd, NULL, c->live_timer_us);
  else if (c->snapshot)
    desc = c->relayd ? lttng_session_descriptor_snapshot_network_create(c->name, c->relayd, NULL)
                     : lttng_session_descriptor_snapshot_create(c->name);
  else
    desc = c->relayd ? lttng_session_descriptor_network_create(c->name, c->relayd, NULL)
                     : lttng_session_descriptor_local_create(c->name, c->path);
  if (!desc) {
    snprintf(err, errlen, c->relayd ? "invalid relayd URL '%s' (expected net://HOST[:CTRL[:DATA]])"
                                    : "invalid output path '%s'", c->relayd ? c->relayd : c->path);
    return -1;
  }
  /* An unreachable relayd is otherwise found late: at the first channel
   * (streaming), or at the first capture (snapshot). */
  if (c->relayd && trc_relayd_url_check(c->relayd, RELAYD_CONNECT_TIMEOUT_MS, err, errlen)) {
    lttng_session_descriptor_destroy(desc);
    return -1;
  }
  if (trc_ctl_begin(err, errlen, "create session")) {
    lttng_session_descriptor_destroy(desc);
    return -1;
  }
  int r = session_create(c, desc, err, errlen);
  if (trc_ctl_end(err, errlen)) r = -1;
  lttng_session_descriptor_destroy(desc);
  return r;
}

int trc_session_start(const char *name, char *err, size_t errlen) {
  if (trc_ctl_begin(err, errlen, "start tracing")) return -1;
  int r = lttng_start_tracing(name);
  if (trc_ctl_end(err, errlen)) return -1;
  return r < 0 ? lterr(err, errlen, "cannot start tracing", r) : 0;
}

/* lttng_stop_tracing's steps, each request bounded on its own: the stop,
 * then "is data pending?" until the consumer has written everything. The
 * daemon may answer "yes" for ever (a consumer stuck on a full disk, a
 * relayd that stopped reading, a broken daemon), so the whole wait is
 * bounded too: GCSCOPE_FLUSH_TIMEOUT, from the stop's answer on. Nothing is
 * deleted then: the consumer keeps what it wrote. */
int trc_session_stop(const char *name, char *err, size_t errlen) {
  int flush_secs;
  if (trc_ctl_flush_timeout(&flush_secs, err, errlen)) return -1;
  if (trc_ctl_begin(err, errlen, "stop tracing")) return -1;
  int r = lttng_stop_tracing_no_wait(name), late = 0;
  if (r >= 0) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
      if (trc_ctl_next("stop tracing")) break;
      int pending = lttng_data_pending(name);
      if (pending < 0) r = pending;
      if (pending <= 0) break;
      clock_gettime(CLOCK_MONOTONIC, &t);
      if ((t.tv_sec - t0.tv_sec) * 1000L + (t.tv_nsec - t0.tv_nsec) / 1000000L >= flush_secs * 1000L) {
        late = 1;
        break;
      }
      sleep_ms(DATA_PENDING_POLL_MS);
    }
  }
  if (trc_ctl_end(err, errlen)) return -1;
  if (late) {
    snprintf(err, errlen, "the LTTng consumer did not finish writing the trace within %d s (GCSCOPE_FLUSH_TIMEOUT)",
             flush_secs);
    return TRC_STOP_FLUSH_LATE;
  }
  if (r < 0 && r != -LTTNG_ERR_TRACE_ALREADY_STOPPED)
    return lterr(err, errlen, "cannot stop tracing", r);
  return 0;
}

int trc_session_destroy(const char *name, char *err, size_t errlen) {
  return trc_session_destroy_wait(name, -1, err, errlen);
}

int trc_session_destroy_wait(const char *name, int timeout_ms, char *err, size_t errlen) {
  struct lttng_destruction_handle *dh = NULL;
  /* liblttng-ctl waits without a limit for 0 (timeout_ms > 0 is a limit) */
  if (timeout_ms == 0) timeout_ms = 1;
  if (trc_ctl_begin(err, errlen, "destroy session")) return -1;
  enum lttng_error_code ec = lttng_destroy_session_ext(name, &dh);
  enum lttng_destruction_handle_status ws = LTTNG_DESTRUCTION_HANDLE_STATUS_COMPLETED;
  if (ec == LTTNG_OK) {
    ws = lttng_destruction_handle_wait_for_completion(dh, timeout_ms);
    lttng_destruction_handle_destroy(dh);
  }
  if (trc_ctl_end(err, errlen)) return -1;
  if (ec != LTTNG_OK) return lterr(err, errlen, "cannot destroy the session", (int)ec);
  if (ws == LTTNG_DESTRUCTION_HANDLE_STATUS_TIMEOUT) {
    snprintf(err, errlen, "the session's destruction did not complete within %d ms", timeout_ms);
    return -1;
  }
  return 0;
}

int trc_snapshot_record(const char *session, const char *snap_name, const char *path,
                        const char *url, char *err, size_t errlen) {
  struct lttng_snapshot_output *o = lttng_snapshot_output_create();
  if (!o) { snprintf(err, errlen, "out of memory"); return -1; }
  if (trc_ctl_begin(err, errlen, "record snapshot %.100s", snap_name)) {
    lttng_snapshot_output_destroy(o);
    return -1;
  }
  int r = lttng_snapshot_output_set_name(snap_name, o);
  if (r == 0) r = url ? lttng_snapshot_output_set_network_url(url, o)
                      : lttng_snapshot_output_set_local_path(path, o);
  if (r == 0) r = lttng_snapshot_record(session, o, 0);
  lttng_snapshot_output_destroy(o);
  if (trc_ctl_end(err, errlen)) return -1;
  return r < 0 ? lterr(err, errlen, "cannot record the snapshot", r) : 0;
}

void trc_channel_geometry(uint64_t subbuf_req, uint64_t num_req, uint64_t *subbuf, uint64_t *num) {
  struct lttng_domain dom;
  fill_domain(&dom);
  struct lttng_channel *ch = lttng_channel_create(&dom);   /* holds the daemon's defaults */
  *subbuf = subbuf_req ? subbuf_req : ch ? ch->attr.subbuf_size : 0;
  *num = num_req ? num_req : ch ? ch->attr.num_subbuf : 0;
  if (ch) lttng_channel_destroy(ch);
}

void trc_circular_geometry(double total_mb, long ncpus, uint64_t *subbuf, uint64_t *num) {
  if (ncpus < 1) ncpus = 1;
  double per_cpu = total_mb * 1e6 / (double)ncpus / 4.0;
  uint64_t s = 4096;
  while ((double)(s * 2) <= per_cpu) s *= 2;
  *subbuf = s;
  *num = 4;
}
