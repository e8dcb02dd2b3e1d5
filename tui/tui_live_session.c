/* tui_live_session.c — daemon, relayd, live session and COMMAND for
 * `gcscope top -- COMMAND` (see tui_live_session.h). */
#include "tui_live_session.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <lttng/lttng.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trc_opts.h"
#include "trc_profile.h"

#define LIVE_PORT 5344

int tui_port_listening(int port) {
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

static void sleep_ms(long ms) {
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

/* Start lttng-relayd in the foreground of its own process group (so a
 * Ctrl-C for top does not reach it), output silenced, and wait for its live port. */
static int start_relayd(struct tui_lsess *s, char *err, size_t errlen) {
  pid_t pid = fork();
  if (pid < 0) { snprintf(err, errlen, "cannot start lttng-relayd: %s", strerror(errno)); return -1; }
  if (pid == 0) {
    setpgid(0, 0);
    int dn = open("/dev/null", O_RDWR);
    if (dn >= 0) { dup2(dn, 0); dup2(dn, 1); dup2(dn, 2); }
    execlp("lttng-relayd", "lttng-relayd", (char *)NULL);
    _exit(127);
  }
  s->relayd_pid = pid;
  for (int i = 0; i < 100; i++) {        /* up to 5 s */
    if (tui_port_listening(LIVE_PORT)) return 0;
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      s->relayd_pid = 0;
      snprintf(err, errlen, "lttng-relayd could not start (is it installed? exit status %d)",
               WIFEXITED(st) ? WEXITSTATUS(st) : -1);
      return -1;
    }
    sleep_ms(50);
  }
  snprintf(err, errlen, "lttng-relayd started but does not listen on port %d", LIVE_PORT);
  return -1;
}

static int lterr(char *err, size_t errlen, const char *what, int code) {
  snprintf(err, errlen, "%s: %s", what, lttng_strerror(code < 0 ? code : -code));
  return -1;
}

/* Channel, contexts and the "gc" profile's events (rgc and CoreCLR). */
static int setup_session(struct tui_lsess *s, char *err, size_t errlen) {
  struct lttng_domain dom;
  memset(&dom, 0, sizeof dom);
  dom.type = LTTNG_DOMAIN_UST;
  dom.buf_type = LTTNG_BUFFER_PER_UID;
  struct lttng_handle *h = lttng_create_handle(s->name, &dom);
  if (!h) { snprintf(err, errlen, "out of memory"); return -1; }
  int rc = -1;
  struct lttng_channel *ch = lttng_channel_create(&dom);
  if (!ch) { snprintf(err, errlen, "out of memory"); goto out; }
  snprintf(ch->name, sizeof ch->name, "gcscope");
  int r = lttng_enable_channel(h, ch);
  if (r < 0) { lterr(err, errlen, "cannot enable the channel", r); goto out; }
  static const enum lttng_event_context_type ctxs[] = {
    LTTNG_EVENT_CONTEXT_VPID, LTTNG_EVENT_CONTEXT_VTID, LTTNG_EVENT_CONTEXT_PROCNAME
  };
  for (size_t i = 0; i < sizeof ctxs / sizeof ctxs[0]; i++) {
    struct lttng_event_context c;
    memset(&c, 0, sizeof c);
    c.ctx = ctxs[i];
    r = lttng_add_context(h, &c, NULL, ch->name);
    if (r < 0) { lterr(err, errlen, "cannot add a context", r); goto out; }
  }
  const char *names[TRC_MAX_EVENTS];
  int n = trc_profile_events(TRC_PROFILE_GC, 1, names);
  for (int i = 0; i < n; i++) {
    struct lttng_event *ev = lttng_event_create();
    if (!ev) { snprintf(err, errlen, "out of memory"); goto out; }
    ev->type = LTTNG_EVENT_TRACEPOINT;
    ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
    snprintf(ev->name, sizeof ev->name, "%s", names[i]);
    r = lttng_enable_event(h, ev, ch->name);
    lttng_event_destroy(ev);
    if (r < 0) { lterr(err, errlen, "cannot enable the GC events", r); goto out; }
  }
  /* Only COMMAND: other traced programs on the machine stay out of the view. */
  struct lttng_process_attr_tracker_handle *th = NULL;
  enum lttng_error_code ec = lttng_session_get_tracker_handle(s->name, LTTNG_DOMAIN_UST,
                                                              LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID, &th);
  if (ec != LTTNG_OK) { lterr(err, errlen, "cannot get the vpid tracker", (int)ec); goto out; }
  enum lttng_process_attr_tracker_handle_status ts =
    lttng_process_attr_tracker_handle_set_tracking_policy(th, LTTNG_TRACKING_POLICY_INCLUDE_SET);
  if (ts == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK)
    ts = lttng_process_attr_virtual_process_id_tracker_handle_add_pid(th, s->child_pid);
  lttng_process_attr_tracker_handle_destroy(th);
  if (ts != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK) {
    snprintf(err, errlen, "cannot track the command's pid %d", (int)s->child_pid);
    goto out;
  }
  rc = 0;
out:
  if (ch) lttng_channel_destroy(ch);
  lttng_destroy_handle(h);
  return rc;
}

int tui_lsess_open(struct tui_lsess *s, char **command, long live_timer_us, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "gcscope-top-%d", (int)getpid());
  if (gethostname(s->host, sizeof s->host) != 0) snprintf(s->host, sizeof s->host, "localhost");
  s->host[sizeof s->host - 1] = '\0';
  /* The child first: it waits on a pipe until tracing runs. Its output would
   * scribble over the screen and it must not read our keys: stdin is
   * /dev/null, stdout/stderr a file. */
  const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(s->out_path, sizeof s->out_path, "%s/gcscope-top-%d.out", tmp, (int)getpid());
  int out = open(s->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out < 0 || in < 0) {
    snprintf(err, errlen, "cannot create %s: %s", s->out_path, strerror(errno));
    if (out >= 0) close(out);
    if (in >= 0) close(in);
    return -1;
  }
  int saved[3] = { dup(0), dup(1), dup(2) };
  dup2(in, 0);
  dup2(out, 1);
  dup2(out, 2);
  int r0 = trc_child_spawn(&s->child, command, 0, err, errlen);
  for (int i = 0; i < 3; i++) if (saved[i] >= 0) { dup2(saved[i], i); close(saved[i]); }
  close(out);
  close(in);
  if (r0 < 0) return -1;
  s->child_pid = s->child.pid;
  if (trc_daemon_ensure(&s->daemon, err, errlen) < 0) return -1;
  if (!tui_port_listening(LIVE_PORT) && start_relayd(s, err, errlen) < 0) return -1;
  struct lttng_session_descriptor *d =
    lttng_session_descriptor_live_network_create(s->name, "net://127.0.0.1", NULL, (unsigned long long)live_timer_us);
  if (!d) { snprintf(err, errlen, "cannot describe the live session"); return -1; }
  enum lttng_error_code ec = lttng_create_session_ext(d);
  lttng_session_descriptor_destroy(d);
  if (ec != LTTNG_OK) return lterr(err, errlen, "cannot create the live session", (int)ec);
  s->session_created = 1;
  if (setup_session(s, err, errlen) < 0) return -1;
  int r = lttng_start_tracing(s->name);
  if (r < 0) return lterr(err, errlen, "cannot start tracing", r);
  if (trc_child_release(&s->child, err, errlen) < 0) { s->child_pid = 0; return -1; }
  s->child_released = 1;
  return 0;
}

int tui_lsess_child_exited(struct tui_lsess *s) {
  if (!s->child_pid) return 1;
  int st;
  if (waitpid(s->child_pid, &st, WNOHANG) == s->child_pid) {
    s->child_pid = 0;
    s->child_status = st;
    return 1;
  }
  return 0;
}

void tui_lsess_close(struct tui_lsess *s) {
  if (s->child_pid) {
    /* Never released (open failed) or still running: stop it by its PID. */
    if (!s->child_released) trc_child_abort(&s->child);
    else {
      kill(s->child_pid, SIGTERM);
      for (int i = 0; i < 40 && waitpid(s->child_pid, NULL, WNOHANG) == 0; i++) sleep_ms(50);
      if (waitpid(s->child_pid, NULL, WNOHANG) == 0) { kill(s->child_pid, SIGKILL); waitpid(s->child_pid, NULL, 0); }
    }
    s->child_pid = 0;
  }
  if (s->session_created) {
    lttng_stop_tracing(s->name);
    struct lttng_destruction_handle *dh = NULL;
    if (lttng_destroy_session_ext(s->name, &dh) == LTTNG_OK && dh) {
      lttng_destruction_handle_wait_for_completion(dh, 5000);
      lttng_destruction_handle_destroy(dh);
    }
    s->session_created = 0;
  }
  if (s->relayd_pid) {
    kill(s->relayd_pid, SIGTERM);
    for (int i = 0; i < 100 && waitpid(s->relayd_pid, NULL, WNOHANG) == 0; i++) sleep_ms(50);
    if (waitpid(s->relayd_pid, NULL, WNOHANG) == 0) { kill(s->relayd_pid, SIGKILL); waitpid(s->relayd_pid, NULL, 0); }
    s->relayd_pid = 0;
  }
  trc_daemon_stop(&s->daemon);
}
