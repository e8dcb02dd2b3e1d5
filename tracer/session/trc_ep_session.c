/* trc_ep_session.c — one EventPipe session on a .NET process (trc_ep_session.h). */
#include "trc_ep_session.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trc_ep_profile.h"
#include "trc_sig.h"

#define POLL_MS 100
#define CONNECT_WAIT_MS 60000      /* a runtime under load can take long to start */

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void reap_child(struct trc_ep_session *s) {
  if (s->launch && !s->child_done && s->child.pid > 0 &&
      waitpid(s->child.pid, &s->child_status, WNOHANG) == s->child.pid)
    s->child_done = 1;
}

int trc_ep_target_gone(struct trc_ep_session *s) {
  if (s->launch) {
    reap_child(s);
    return s->child_done;
  }
  return s->pid_exited || (s->pid > 0 && trc_pid_exited(s->pid));
}

void trc_ep_serve(struct trc_ep_session *s) {
  if (!s->launch) return;
  gcs_dsipc_serve_pending(&s->ep);
  reap_child(s);
}

/* Launch mode: wait until the runtime connects to our socket, watching the child. */
static int wait_runtime(struct trc_ep_session *s, const volatile sig_atomic_t *interrupted, char *err,
                        size_t errlen) {
  int64_t end = mono_ms() + CONNECT_WAIT_MS;
  for (;;) {
    struct pollfd p = { .fd = s->ep.listen_fd, .events = POLLIN };
    int n = poll(&p, 1, POLL_MS);
    if (n > 0) return 0;
    if (n < 0 && errno != EINTR) { snprintf(err, errlen, "poll: %s", strerror(errno)); return -1; }
    if (trc_ep_target_gone(s)) {
      snprintf(err, errlen,
               "the command exited before a .NET runtime connected (not a .NET program, or it disables "
               "diagnostics with DOTNET_EnableDiagnostics=0)");
      return -1;
    }
    if (interrupted && *interrupted) { snprintf(err, errlen, "interrupted before the runtime connected"); return -1; }
    if (mono_ms() > end) {
      snprintf(err, errlen, "no .NET runtime connected to %s within %d s", s->ep.path, CONNECT_WAIT_MS / 1000);
      return -1;
    }
  }
}

static void set_env(const char *name, const char *value, char **saved) {
  const char *old = getenv(name);
  *saved = old ? strdup(old) : NULL;
  setenv(name, value, 1);
}

static void restore_env(const char *name, char *saved) {
  if (saved) setenv(name, saved, 1);
  else unsetenv(name);
  free(saved);
}

/* Fork COMMAND (held) with the diagnostic port in its environment and the
 * caller's descriptors as its stdio. */
static int spawn(struct trc_ep_session *s, const struct trc_ep_start_cfg *cfg, const char *sock, char *err,
                 size_t errlen) {
  char env[160];
  snprintf(env, sizeof env, "%s,suspend", sock);
  char *saved_env;
  set_env("DOTNET_DiagnosticPorts", env, &saved_env);
  int saved[3] = { -1, -1, -1 };
  if (cfg->child_in_fd >= 0) { saved[0] = dup(0); dup2(cfg->child_in_fd, 0); }
  if (cfg->child_out_fd >= 0) {
    saved[1] = dup(1);
    saved[2] = dup(2);
    fflush(stdout);
    dup2(cfg->child_out_fd, 1);
    dup2(cfg->child_out_fd, 2);
  }
  int rc = trc_child_spawn(&s->child, cfg->command, 0, err, errlen);
  for (int i = 0; i < 3; i++) if (saved[i] >= 0) { dup2(saved[i], i); close(saved[i]); }
  restore_env("DOTNET_DiagnosticPorts", saved_env);
  return rc;
}

static int start_launch(struct trc_ep_session *s, const struct trc_ep_start_cfg *cfg,
                        const struct gcs_dsipc_session_cfg *sc, char *err, size_t errlen) {
  char sock[108];
  const char *dir = gcs_dsipc_socket_dir();
  if (strlen(dir) > 80) dir = "/tmp";   /* a Unix socket path has at most 107 bytes */
  snprintf(sock, sizeof sock, "%.80s/gcscope-ds-%d.sock", dir, (int)getpid());
  if (gcs_dsipc_listen(&s->ep, sock, err, errlen)) return -1;
  s->launch = 1;
  if (spawn(s, cfg, sock, err, errlen) || trc_child_release(&s->child, err, errlen)) return -1;
  if (wait_runtime(s, cfg->interrupted, err, errlen)) return -1;
  if (gcs_dsipc_collect(&s->ep, sc, &s->session, &s->stream_fd, NULL, err, errlen)) return -1;
  s->pid = (pid_t)s->ep.pid;
  if (wait_runtime(s, cfg->interrupted, err, errlen) || gcs_dsipc_resume(&s->ep, err, errlen)) return -1;
  return 0;
}

static int start_attach(struct trc_ep_session *s, const struct trc_ep_start_cfg *cfg,
                        const struct gcs_dsipc_session_cfg *sc, char *err, size_t errlen) {
  s->pid = cfg->pid;
  if (gcs_dsipc_attach_pid(&s->ep, s->pid, err, errlen)) return -1;
  return gcs_dsipc_collect(&s->ep, sc, &s->session, &s->stream_fd, NULL, err, errlen);
}

int trc_ep_start(struct trc_ep_session *s, const struct trc_ep_start_cfg *cfg, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  s->child.pid = -1;
  s->child.go_fd = s->child.err_fd = -1;
  s->stream_fd = -1;
  s->ep.listen_fd = s->ep.spare_fd = -1;
  s->pidfd = -1;
  s->wake_fd = cfg->wake_fd;
  struct gcs_dsipc_provider prov[TRC_EP_MAX_PROVIDERS];
  int nprov = trc_ep_profile_providers(cfg->profile, prov);
  nprov = trc_ep_profile_requests(cfg->requests, cfg->nrequests, prov, nprov);
  struct gcs_dsipc_session_cfg sc = { .providers = prov, .nproviders = nprov };
  if (cfg->stacks) trc_ep_profile_stacks(&sc, prov);
  if (cfg->settings_rundown) sc.rundown_keywords = GCS_DSIPC_RUNDOWN_GC;
  int rc = cfg->command ? start_launch(s, cfg, &sc, err, errlen) : start_attach(s, cfg, &sc, err, errlen);
  /* launch: the pidfd is COMMAND's (the runtime may be a child of a shell) */
  if (!rc) s->pidfd = trc_pidfd_open(s->launch ? s->child.pid : s->pid);
  if (rc) {
    if (s->launch && s->child.pid > 0 && !s->child_done) {
      if (s->child.go_fd >= 0) trc_child_abort(&s->child);
      else { kill(s->child.pid, SIGKILL); waitpid(s->child.pid, NULL, 0); }
      s->child_done = 1;
    }
    trc_ep_close(s);
  }
  return rc;
}

enum { W_STREAM, W_LISTEN, W_PID, W_WAKE, W_N };

/* Block in poll() until one of the session's descriptors needs us or
 * timeout_ms passes. Returns 1 if the stream is readable,
 * 0 otherwise, -1 (errno) on a poll error. */
static int wait_fds(struct trc_ep_session *s, int timeout_ms) {
  struct pollfd p[W_N];
  int use_pidfd = s->pidfd >= 0 && !s->pid_exited;
  p[W_STREAM] = (struct pollfd){ .fd = s->stream_fd, .events = POLLIN };
  p[W_LISTEN] = (struct pollfd){ .fd = s->launch ? s->ep.listen_fd : -1, .events = POLLIN };
  p[W_PID] = (struct pollfd){ .fd = use_pidfd ? s->pidfd : -1, .events = POLLIN };
  p[W_WAKE] = (struct pollfd){ .fd = s->wake_fd, .events = POLLIN };
  /* without a pidfd or a wake-up descriptor, look again every POLL_MS */
  int blind = (!use_pidfd && !s->pid_exited) || s->wake_fd < 0;
  if (blind && (timeout_ms < 0 || timeout_ms > POLL_MS)) timeout_ms = POLL_MS;
  int n = poll(p, W_N, timeout_ms);
  if (n < 0) return errno == EINTR ? 0 : -1;
  if (p[W_LISTEN].revents) trc_ep_serve(s);
  if (p[W_PID].revents) {
    s->pid_exited = 1;
    reap_child(s);
  }
  if (p[W_WAKE].revents) {
    char b[64];
    while (read(s->wake_fd, b, sizeof b) > 0) {}
  }
  return p[W_STREAM].revents != 0;
}

void trc_ep_wait_child(struct trc_ep_session *s) {
  if (!s->launch || s->child_done || s->child.pid <= 0) return;
  if (waitpid(s->child.pid, &s->child_status, 0) == s->child.pid) s->child_done = 1;
}

long trc_ep_read(struct trc_ep_session *s, void *buf, size_t cap, int timeout_ms, char *err, size_t errlen) {
  int n = wait_fds(s, timeout_ms);
  if (n < 0) { snprintf(err, errlen, "waiting for the stream: %s", strerror(errno)); return -1; }
  if (n == 0) return 0;
  ssize_t got = read(s->stream_fd, buf, cap);
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return 0;
  if (got < 0 && errno == ECONNRESET) return TRC_EP_EOF;
  if (got < 0) { snprintf(err, errlen, "reading the stream: %s", strerror(errno)); return -1; }
  if (got == 0) return TRC_EP_EOF;
  return (long)got;
}

int trc_ep_stop(struct trc_ep_session *s, char *err, size_t errlen) {
  s->stopped = 1;
  s->ep.timeout_ms = 5000;
  if (gcs_dsipc_stop(&s->ep, s->session, err, errlen) != 0 && !trc_ep_target_gone(s)) return -1;
  return 0;
}

void trc_ep_kill_child(struct trc_ep_session *s, int grace_ms) {
  if (!s->launch || s->child.pid <= 0) return;
  reap_child(s);
  if (s->child_done) return;
  kill(s->child.pid, SIGTERM);
  /* Block on the command's pidfd (10 ms looks without one), answering a
   * runtime that connects to our port meanwhile. */
  int64_t until = mono_ms() + grace_ms;
  for (int64_t left = grace_ms; !s->child_done && left > 0; left = until - mono_ms()) {
    int watch = s->pidfd >= 0 && !s->pid_exited;
    struct pollfd p[2] = { { .fd = watch ? s->pidfd : -1, .events = POLLIN },
                           { .fd = s->ep.listen_fd, .events = POLLIN } };
    if (poll(p, 2, watch ? (int)left : (left < 10 ? (int)left : 10)) < 0 && errno != EINTR) break;
    if (p[1].revents) gcs_dsipc_serve_pending(&s->ep);
    reap_child(s);
  }
  if (!s->child_done) {
    kill(s->child.pid, SIGKILL);
    if (waitpid(s->child.pid, &s->child_status, 0) == s->child.pid) s->child_done = 1;
  }
}

void trc_ep_close(struct trc_ep_session *s) {
  if (s->stream_fd >= 0) close(s->stream_fd);
  s->stream_fd = -1;
  if (s->pidfd >= 0) close(s->pidfd);
  s->pidfd = -1;
  gcs_dsipc_close(&s->ep);
}
