/*
 * trc_eventpipe.c — `gcscope record` over EventPipe (trc_eventpipe.h).
 *
 * One thread, one loop: poll the session's connection (100 ms), append what
 * arrives to trace.nettrace (so a killed gcscope leaves the prefix received
 * so far), and watch the process, --duration and signals. The summary reads
 * the file back through the nettrace reader and the stop-trigger rules'
 * reconstruction (core/triggers), as the LTTng path's summary does.
 */
#include "trc_eventpipe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gcs_db.h"
#include "gcs_dsipc.h"
#include "gcs_nettrace.h"
#include "gcs_triggers.h"
#include "trc_child.h"
#include "trc_ep_profile.h"

#define POLL_MS 100
#define CONNECT_WAIT_MS 60000      /* a runtime under load can take long to start */
#define DRAIN_AFTER_STOP_MS 10000  /* StopTracing: the runtime flushes, then closes */
#define DRAIN_AFTER_EXIT_MS 3000   /* the process is gone: its socket closes at once */
#define SUMMARY_KEEP_GCS 256

static volatile sig_atomic_t g_sig, g_sig_forward, g_nsig;

static void on_signal(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  g_sig = sig;
  g_nsig++;
  g_sig_forward = si && si->si_code != SI_KERNEL;   /* a terminal's Ctrl-C reached the command already */
}

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct eprec {
  const struct trc_opts *o;
  char path[PATH_MAX + 32];
  struct gcs_dsipc_endpoint ep;
  int launch;
  struct trc_child child;
  int child_status, child_done;
  pid_t pid;
  int out_fd, stream_fd;
  uint64_t session, bytes;
  int exited, stopped, eof;
  char err[PATH_MAX + 512];
};

int trc_eventpipe_wanted(const struct trc_opts *o) {
  if (o->transport == TRC_TRANSPORT_EVENTPIPE) return 1;
  if (o->transport == TRC_TRANSPORT_LTTNG) return 0;
  if (o->dotnet) return 1;
  return o->pid > 0 && gcs_dsipc_has_socket(o->pid);
}

static int usage_error(const char *what) {
  fprintf(stderr, "gcscope record: %s is not available over EventPipe yet (use --transport lttng for it)\n", what);
  return 2;
}

static int check_options(const struct trc_opts *o) {
  if (trc_opts_any_trigger(o)) return usage_error("--stop-on-...");
  if (o->relayd) return usage_error("--relayd");
  if (o->circular_mb > 0) return usage_error("--circular-mb");
  if (o->subbuf_size || o->num_subbuf) return usage_error("--buffer-size/--num-subbuf");
  if (!o->command && !o->pid) {
    fprintf(stderr, "gcscope record: --dotnet needs a COMMAND (launch) or --pid PID (attach)\n");
    return 2;
  }
  return 0;
}

static void reap_child(struct eprec *r) {
  if (r->launch && !r->child_done && waitpid(r->child.pid, &r->child_status, WNOHANG) == r->child.pid)
    r->child_done = 1;
}

static int target_gone(struct eprec *r) {
  if (r->launch) {
    reap_child(r);
    return r->child_done;
  }
  return kill(r->pid, 0) != 0 && errno == ESRCH;
}

/* Launch mode: wait until the runtime connects to our socket, watching the child. */
static int wait_runtime(struct eprec *r) {
  int64_t end = mono_ms() + CONNECT_WAIT_MS;
  for (;;) {
    struct pollfd p = { .fd = r->ep.listen_fd, .events = POLLIN };
    int n = poll(&p, 1, POLL_MS);
    if (n > 0) return 0;
    if (n < 0 && errno != EINTR) { snprintf(r->err, sizeof r->err, "poll: %s", strerror(errno)); return -1; }
    if (target_gone(r)) {
      snprintf(r->err, sizeof r->err,
               "the command exited before a .NET runtime connected (not a .NET program, or it disables "
               "diagnostics with DOTNET_EnableDiagnostics=0)");
      return -1;
    }
    if (g_sig) { snprintf(r->err, sizeof r->err, "interrupted before the runtime connected"); return -1; }
    if (mono_ms() > end) {
      snprintf(r->err, sizeof r->err, "no .NET runtime connected to %s within %d s", r->ep.path, CONNECT_WAIT_MS / 1000);
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

static int start_launch(struct eprec *r, const struct gcs_dsipc_session_cfg *cfg) {
  char sock[108], env[160];
  const char *dir = gcs_dsipc_socket_dir();
  if (strlen(dir) > 80) dir = "/tmp";   /* a Unix socket path has at most 107 bytes */
  snprintf(sock, sizeof sock, "%.80s/gcscope-ds-%d.sock", dir, (int)getpid());
  if (gcs_dsipc_listen(&r->ep, sock, r->err, sizeof r->err)) return -1;
  r->launch = 1;
  snprintf(env, sizeof env, "%s,suspend", sock);
  char *saved;
  set_env("DOTNET_DiagnosticPorts", env, &saved);
  int rc = trc_child_spawn(&r->child, r->o->command, 0, r->err, sizeof r->err);
  restore_env("DOTNET_DiagnosticPorts", saved);
  if (rc || trc_child_release(&r->child, r->err, sizeof r->err)) return -1;
  if (wait_runtime(r)) return -1;
  if (gcs_dsipc_collect(&r->ep, cfg, &r->session, &r->stream_fd, NULL, r->err, sizeof r->err)) return -1;
  r->pid = (pid_t)r->ep.pid;
  if (wait_runtime(r) || gcs_dsipc_resume(&r->ep, r->err, sizeof r->err)) return -1;
  return 0;
}

static int start_attach(struct eprec *r, const struct gcs_dsipc_session_cfg *cfg) {
  r->pid = r->o->pid;
  if (gcs_dsipc_attach_pid(&r->ep, r->pid, r->err, sizeof r->err)) return -1;
  return gcs_dsipc_collect(&r->ep, cfg, &r->session, &r->stream_fd, NULL, r->err, sizeof r->err);
}

/* Append what the connection has: 1 at the end of the stream, 0 otherwise,
 * -1 on a read or write error (in r->err). */
static int pump(struct eprec *r, int timeout_ms) {
  struct pollfd p = { .fd = r->stream_fd, .events = POLLIN };
  int n = poll(&p, 1, timeout_ms);
  if (n < 0 && errno != EINTR) { snprintf(r->err, sizeof r->err, "waiting for the stream: %s", strerror(errno)); return -1; }
  if (n <= 0) return 0;
  static uint8_t buf[1 << 16];
  ssize_t got = read(r->stream_fd, buf, sizeof buf);
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return 0;
  if (got < 0 && errno == ECONNRESET) return 1;
  if (got < 0) { snprintf(r->err, sizeof r->err, "reading the stream: %s", strerror(errno)); return -1; }
  if (got == 0) return 1;
  for (ssize_t off = 0; off < got;) {
    ssize_t w = write(r->out_fd, buf + off, (size_t)(got - off));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) { snprintf(r->err, sizeof r->err, "writing %s: %s", r->path, strerror(errno)); return -1; }
    off += w;
  }
  r->bytes += (uint64_t)got;
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
  r->stopped = 1;
  r->ep.timeout_ms = 5000;
  if (gcs_dsipc_stop(&r->ep, r->session, err, sizeof err) != 0 && !target_gone(r))
    fprintf(stderr, "gcscope record: %s\n", err);
}

static int record_loop(struct eprec *r) {
  const struct trc_opts *o = r->o;
  int64_t end = o->duration_sec > 0 ? mono_ms() + (int64_t)(o->duration_sec * 1000) : 0;
  for (;;) {
    int p = pump(r, POLL_MS);
    if (r->launch) gcs_dsipc_serve_pending(&r->ep);   /* processes the command starts go on untraced */
    if (p == 1) { r->eof = 1; break; }
    if (p < 0) return -1;
    if (target_gone(r)) {
      r->exited = 1;
      return drain(r, DRAIN_AFTER_EXIT_MS);
    }
    if (g_sig || (end && mono_ms() >= end)) {
      stop_session(r);
      if (drain(r, DRAIN_AFTER_STOP_MS)) return -1;
      /* --duration: like timeout(1), the command is asked to stop too. */
      if (r->launch && !g_sig) { reap_child(r); if (!r->child_done) kill(r->child.pid, SIGTERM); }
      return 0;
    }
  }
  r->exited = target_gone(r);
  if (!r->exited && !r->launch) {
    /* the runtime closes the stream as its process exits: give it a moment */
    for (int i = 0; i < 20 && !(r->exited = target_gone(r)); i++) usleep(50000);
  }
  return 0;
}

struct summary {
  struct gcs_triggers *m;
};

static int on_event(const struct gcs_event *ev, void *ud) {
  struct gcs_trigger_pair f;
  gcs_triggers_feed(((struct summary *)ud)->m, ev, &f);
  return 0;
}

/* A runtime that dies mid-session closes the stream without the
 * end-of-stream tag (FastSerialization's NullReference, one byte 0x01). When
 * the stream was cut between two blocks, that byte makes the file whole; if
 * the file still does not read, it is put back as received. Returns 1 if
 * the tag was added. */
static int close_cut_stream(struct eprec *r) {
  char err[512];
  if (!r->eof || gcs_nettrace_read(r->path, NULL, NULL, NULL, err, sizeof err) == 0) return 0;
  int fd = open(r->path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return 0;
  int added = write(fd, "\x01", 1) == 1;
  if (added && gcs_nettrace_read(r->path, NULL, NULL, NULL, err, sizeof err) != 0) {
    added = 0;
    if (ftruncate(fd, (off_t)r->bytes) != 0) {}
  }
  close(fd);
  return added;
}

static void print_summary(struct eprec *r) {
  int closed = close_cut_stream(r);
  struct summary s = { gcs_triggers_new(SUMMARY_KEEP_GCS, NULL, NULL) };
  struct gcs_nettrace_info info;
  char err[512] = "";
  memset(&info, 0, sizeof info);
  int rc = s.m ? gcs_nettrace_read(r->path, on_event, &s, &info, err, sizeof err) : -1;
  struct gcs_trigger_summary t = { 0 };
  if (s.m) gcs_triggers_finish(s.m, &t);
  gcs_triggers_free(s.m);
  printf("gcscope record: trace in %s (%llu bytes)\n", r->path, (unsigned long long)r->bytes);
  printf("gcscope record: %llu GCs in %d process%s", (unsigned long long)t.gcs, t.nprocs, t.nprocs == 1 ? "" : "es");
  if (t.max_pause_ms > 0) printf(", max pause %.1f ms (pid %d GC #%u)", t.max_pause_ms, (int)t.max_pid, t.max_gc);
  if (info.events_lost) printf(" (%llu events lost)", (unsigned long long)info.events_lost);
  printf("\n");
  if (r->exited && !r->stopped && !r->launch) printf("gcscope record: process %d exited during the session\n", (int)r->pid);
  if (closed)
    printf("gcscope record: the stream ended without its end-of-stream tag (the runtime did not close the session); "
           "gcscope added it after the last whole block\n");
  if (rc != 0) {
    printf("gcscope record: the trace is incomplete: %s\n", err);
    if (!r->eof) printf("gcscope record: the stream did not end (the runtime did not close it in time)\n");
  }
}

static void finish_child(struct eprec *r) {
  if (!r->launch || r->child.pid <= 0) return;
  if (g_sig && g_sig_forward) { reap_child(r); if (!r->child_done) kill(r->child.pid, g_sig); }
  int nsig = g_nsig;
  while (!r->child_done) {
    reap_child(r);
    if (r->child_done || (g_nsig != nsig && g_nsig > 1)) break;
    gcs_dsipc_serve_pending(&r->ep);   /* a runtime started after the session must not wait for us */
    usleep(1000);
  }
}

static void print_child_status(const struct eprec *r) {
  if (!r->launch || !r->child_done) return;
  if (WIFEXITED(r->child_status) && WEXITSTATUS(r->child_status))
    printf("gcscope record: the command exited with status %d\n", WEXITSTATUS(r->child_status));
  else if (WIFSIGNALED(r->child_status))
    printf("gcscope record: the command was killed by signal %d\n", WTERMSIG(r->child_status));
}

static int run(struct eprec *r, const char *outdir) {
  const struct trc_opts *o = r->o;
  struct gcs_dsipc_provider prov[TRC_EP_MAX_PROVIDERS];
  struct gcs_dsipc_session_cfg cfg = { .providers = prov, .nproviders = trc_ep_profile_providers(o->profile, prov) };
  snprintf(r->path, sizeof r->path, "%s/%s", outdir, TRC_EP_TRACE_NAME);
  r->out_fd = open(r->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (r->out_fd < 0) { snprintf(r->err, sizeof r->err, "cannot write %s: %s", r->path, strerror(errno)); return -1; }
  if (o->command ? start_launch(r, &cfg) : start_attach(r, &cfg)) return -1;
  printf("gcscope record: recording pid %d over EventPipe to %s\n", (int)r->pid, r->path);
  fflush(stdout);
  int rc = record_loop(r);
  close(r->stream_fd);
  r->stream_fd = -1;
  close(r->out_fd);
  r->out_fd = -1;
  if (rc) return -1;
  finish_child(r);
  print_summary(r);
  print_child_status(r);
  fflush(stdout);
  return 0;
}

static int do_import(const struct trc_opts *o, const char *path) {
  const char *paths[1] = { path };
  char err[512];
  if (gcs_import_paths(o->db ? o->db : GCS_DB_DEFAULT_PATH, paths, 1, NULL, err, sizeof err)) {
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
  r->child.pid = -1;
  r->out_fd = r->stream_fd = -1;
  r->ep.listen_fd = r->ep.spare_fd = -1;
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  g_sig = g_nsig = 0;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  rc = run(r, outdir) ? 1 : 0;
  if (rc) {
    fprintf(stderr, "gcscope record: %s\n", r->err);
    if (r->launch && r->child.pid > 0 && !r->child_done) {
      if (r->child.go_fd >= 0) trc_child_abort(&r->child);
      else { kill(r->child.pid, SIGKILL); waitpid(r->child.pid, NULL, 0); }
    }
  }
  if (r->stream_fd >= 0) close(r->stream_fd);
  if (r->out_fd >= 0) close(r->out_fd);
  gcs_dsipc_close(&r->ep);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  if (rc == 0 && o->import) rc = do_import(o, r->path);
  return rc;
}
