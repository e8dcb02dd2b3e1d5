/* trc_ctl.c — every liblttng-ctl request bounded in time (trc_lttng.h,
 * trc_ctl_begin): one watchdog thread per process, armed around each request. */
#include "trc_lttng.h"
#include "trc_ctl.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <lttng/lttng.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* liblttng-ctl prints its own "Error: ..." lines on stderr (URL parsing, for
 * one) unless this flag, exported by the library though not declared in its
 * headers, is set; our callers report every failure in one line of their own. */
extern int lttng_opt_quiet;

/* ---- the session daemon's socket -------------------------------------------- */

/* The client socket liblttng-ctl 2.13 connects to (lttng-ctl.c,
 * set_session_daemon_path): root uses the system daemon's; another user the
 * system daemon's when a supplementary group is "tracing" and that socket
 * accepts a connection, else $LTTNG_HOME (or $HOME, or the passwd entry's
 * home)/.lttng. Only the messages naming a daemon that does not answer use it. */
#define GLOBAL_CLIENT_SOCK "/var/run/lttng/client-lttng-sessiond"
/* The basenames of the daemon's sockets a client connects to (defaults.h):
 * requests, and the notification channel of triggers. */
#define CLIENT_SOCK_NAME "client-lttng-sessiond"
#define NOTIFICATION_SOCK_NAME "sessiond-notification"

/* -1 with errno set when it cannot connect; EAGAIN: something listens there
 * but its listen queue is full (it accepts nothing). */
static int unix_connect(const char *path) {
  struct sockaddr_un a;
  if (strlen(path) >= sizeof a.sun_path) { errno = ENAMETOOLONG; return -1; }
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  memcpy(a.sun_path, path, strlen(path) + 1);
  /* non-blocking: a daemon whose listen backlog is full refuses at once */
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

int trc_ctl_socket_state(const char *path) {
  int fd = unix_connect(path);
  if (fd >= 0) { close(fd); return TRC_SOCK_ACCEPTS; }
  return errno == EAGAIN ? TRC_SOCK_FULL : TRC_SOCK_NONE;
}

static int in_tracing_group(void) {
  struct group *g = getgrnam("tracing");
  if (!g) return 0;
  gid_t groups[256];
  int n = getgroups(256, groups);
  for (int i = 0; i < n; i++) if (groups[i] == g->gr_gid) return 1;
  return 0;
}

void trc_ctl_socket_path(char *out, size_t n) {
  if (getuid() != 0) {
    /* a full listen queue is a daemon there too: liblttng-ctl's blocking
     * connect waits on it (and the watchdog bounds that wait) */
    int st = in_tracing_group() ? trc_ctl_socket_state(GLOBAL_CLIENT_SOCK) : TRC_SOCK_NONE;
    if (st == TRC_SOCK_NONE) {
      const char *home = getenv("LTTNG_HOME");
      if (!home) home = getenv("HOME");
      if (!home) { struct passwd *pw = getpwuid(getuid()); home = pw ? pw->pw_dir : ""; }
      snprintf(out, n, "%s/.lttng/" CLIENT_SOCK_NAME, home);
      return;
    }
  }
  snprintf(out, n, "%s", GLOBAL_CLIENT_SOCK);
}

pid_t trc_ctl_socket_owner(const char *path) {
  int fd = unix_connect(path);
  if (fd < 0) return 0;
  struct ucred cr;
  socklen_t len = sizeof cr;
  pid_t pid = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 ? cr.pid : 0;
  close(fd);
  return pid;
}

static int env_secs(const char *name, int dflt, int max, int *secs, char *err, size_t errlen) {
  const char *v = getenv(name);
  *secs = dflt;
  if (!v || !*v) return 0;
  char *end;
  errno = 0;
  long s = strtol(v, &end, 10);
  if (errno || *end || s < 1 || s > max) {
    snprintf(err, errlen, "%s='%.40s' is not a number of seconds from 1 to %d", name, v, max);
    return -1;
  }
  *secs = (int)s;
  return 0;
}

int trc_ctl_timeout(int *secs, char *err, size_t errlen) {
  return env_secs("GCSCOPE_SESSIOND_TIMEOUT", 10, 3600, secs, err, errlen);
}

int trc_ctl_flush_timeout(int *secs, char *err, size_t errlen) {
  return env_secs("GCSCOPE_FLUSH_TIMEOUT", TRC_FLUSH_TIMEOUT_DEFAULT, 86400, secs, err, errlen);
}

/* ---- the watchdog ------------------------------------------------------------ */

/* Shared with the watchdog thread, under mu. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;
static pthread_once_t cv_once = PTHREAD_ONCE_INIT;
static int started;             /* the watchdog thread runs */
static int armed;               /* a request is under way */
static struct timespec deadline;   /* CLOCK_MONOTONIC */
static int fired;               /* the request under way outlived its deadline */
static int cut;                 /* ... and its connections were shut down */
static int connecting;          /* ... and it was found waiting in connect() */
static pthread_t req_thread;    /* the thread making the request */
static pid_t req_tid;           /* the same, as /proc/self/task/ names it */
static pid_t owner;             /* the daemon's pid, from the connection cut */
static int wait_secs;
static char request[200];

/* The caller's (one thread at a time). */
static atomic_int hung;         /* a request went unanswered: no more are made */
static char hung_msg[600];
static struct { sigset_t old; int was_pending; } pipe_g;

static void cv_init(void) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(&cv, &a);
  pthread_condattr_destroy(&a);
}

/* 1 if fd is connected to the daemon's client socket, 2 to its notification
 * socket, else 0; *pid (when 0) gets the daemon's pid. */
static int is_sessiond_peer(int fd, pid_t *pid) {
  struct sockaddr_un a;
  socklen_t len = sizeof a;
  memset(&a, 0, sizeof a);
  if (getpeername(fd, (struct sockaddr *)&a, &len) != 0 || a.sun_family != AF_UNIX ||
      len <= offsetof(struct sockaddr_un, sun_path) || !a.sun_path[0])
    return 0;
  a.sun_path[sizeof a.sun_path - 1] = '\0';
  const char *base = strrchr(a.sun_path, '/');
  base = base ? base + 1 : a.sun_path;
  int which = !strcmp(base, CLIENT_SOCK_NAME) ? 1 : !strcmp(base, NOTIFICATION_SOCK_NAME) ? 2 : 0;
  if (!which) return 0;
  struct ucred cr;
  socklen_t crlen = sizeof cr;
  if (!*pid && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) == 0) *pid = cr.pid;
  return which;
}

/* The next of this process's open descriptors listed by d, a directory
 * stream of /proc/self/fd, d's own descriptor left out; -1 at the end, or
 * when d is NULL (/proc/self/fd could not be opened: none seen). */
static int next_fd(DIR *d) {
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) {
    char *end;
    long fd = strtol(e->d_name, &end, 10);
    if (*end || end == e->d_name || fd < 0 || fd > INT_MAX || fd == dirfd(d)) continue;
    return (int)fd;
  }
  return -1;
}

int trc_ctl_notification_fds(int *fds, int max) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  for (int fd; n < max && (fd = next_fd(d)) >= 0;) {
    pid_t pid = -1;   /* not asked */
    if (is_sessiond_peer(fd, &pid) == 2) fds[n++] = fd;
  }
  if (d) closedir(d);
  return n;
}

pid_t trc_ctl_peer_pid(int fd) {
  struct ucred cr;
  socklen_t len = sizeof cr;
  return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 ? cr.pid : 0;
}

/* Shut down this process's connections to the session daemon (its client
 * and notification sockets, found by their peer's path): the liblttng-ctl
 * call blocked on one reads end-of-file and returns an error, and closes the
 * socket itself. Returns how many were cut. */
static int cut_connections(pid_t *pid) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  for (int fd; (fd = next_fd(d)) >= 0;)
    if (is_sessiond_peer(fd, pid) > 0 && shutdown(fd, SHUT_RDWR) == 0) n++;
  if (d) closedir(d);
  return n;
}

static int ts_ge(const struct timespec *a, const struct timespec *b) {
  return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/* A connect() to a daemon whose listen queue is full waits on the daemon's
 * socket, not on ours: there is no connection to cut yet, and neither
 * shutdown() nor close() of the connecting socket wakes it (Linux
 * unix_stream_connect sleeps in unix_wait_for_peer until the queue has room
 * or a signal comes; tried: shutdown and close leave it asleep). A signal
 * does: WAKE_SIG, whose handler does nothing and is installed without
 * SA_RESTART, makes the call fail with EINTR, and liblttng-ctl
 * (lttcomm_connect_unix_sock) reports that as no session daemon. The
 * watchdog sends it to the requesting thread only when that thread is seen
 * blocked in connect() (/proc/self/task/TID/syscall, proc(5)); the thread
 * unblocks WAKE_SIG for the request (trc_ctl_begin). SIGURG: nothing in
 * gcscope uses it, and its default action, should a stray one come, is to
 * be ignored.
 *
 * "Someone else's handler" (install_wake) cannot be the traced program's:
 * this code runs only in gcscope's own process (gcs_session is linked into
 * the gcscope binary alone), and a program gcscope starts (record COMMAND)
 * is another process, whose handlers are its own (exec resets them). In
 * gcscope's process no code installs a SIGURG handler: gcscope's own
 * sigaction/signal calls are for SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE
 * and the TUI's fatal signals; of the libraries it links, liblttng-ctl's
 * calls are in its run-as worker (a forked child), ncurses' and glib's
 * (libbabeltrace2) are for other signals (glib's unix signal sources accept
 * only SIGHUP, SIGINT, SIGTERM, SIGUSR1/2 and SIGWINCH). An inherited
 * SIG_IGN is replaced, an inherited blocked mask unblocked for the request.
 * So the check below only guards against an embedding nobody does (an
 * LD_PRELOAD'ed library with its own SIGURG handler); a real-time signal
 * picked at install time would buy nothing here. */
#define WAKE_SIG SIGURG
static int wake_installed;      /* under mu */

static void wake_handler(int sig) { (void)sig; }

static void install_wake(void) {
  struct sigaction old;
  if (sigaction(WAKE_SIG, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
      (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN))
    return;   /* someone else's handler: leave it (the wait is then not woken) */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = wake_handler;
  sigfillset(&sa.sa_mask);
  sa.sa_flags = 0;   /* no SA_RESTART: the interrupted connect() returns EINTR */
  if (sigaction(WAKE_SIG, &sa, NULL) == 0) wake_installed = 1;
}

/* 1 if the thread is blocked in connect(), 0 if not, -1 if unknown. */
static int in_connect(pid_t tid) {
  char path[64], buf[128];
  snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  char *line = fgets(buf, sizeof buf, f);
  fclose(f);
  if (!line) return -1;
  char *end;
  long nr = strtol(buf, &end, 10);
  if (end == buf) return 0;   /* "running" */
#ifdef SYS_connect
  if (nr == SYS_connect) return 1;
#endif
#ifdef SYS_socketcall
  if (nr == SYS_socketcall) return 1;   /* i386's connect (3rd subcall): close enough */
#endif
  return 0;
}

/* Waits for each armed request's deadline; past it, every 50 ms until the
 * request ends: cuts the connections (the call may open another one), and
 * wakes the requesting thread from a connect() that waits on a full listen
 * queue. It lives as long as the process, blocked on cv between requests. */
static void *watchdog(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  for (;;) {
    if (!armed) {
      pthread_cond_wait(&cv, &mu);
      continue;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!fired && ts_ge(&now, &deadline)) fired = 1;
    if (!fired) {
      pthread_cond_timedwait(&cv, &mu, &deadline);
      continue;
    }
    if (cut_connections(&owner) > 0) cut = 1;
    int c = in_connect(req_tid);
    if (c == 1) connecting = 1;
    if (c != 0 && wake_installed) pthread_kill(req_thread, WAKE_SIG);
    struct timespec t = now;
    t.tv_nsec += 50000000L;
    if (t.tv_nsec >= 1000000000L) { t.tv_sec++; t.tv_nsec -= 1000000000L; }
    pthread_cond_timedwait(&cv, &mu, &t);
  }
  return NULL;
}

static void set_request(const char *fmt, va_list ap) {
  vsnprintf(request, sizeof request, fmt, ap);
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += wait_secs;
}

int trc_ctl_begin(char *err, size_t errlen, const char *fmt, ...) {
  if (atomic_load(&hung)) {
    snprintf(err, errlen, "%s", hung_msg);
    return -1;
  }
  int secs;
  if (trc_ctl_timeout(&secs, err, errlen)) return -1;
  pthread_once(&cv_once, cv_init);
  pthread_mutex_lock(&mu);
  if (!started) {
    install_wake();
    /* every signal blocked in the watchdog: they stay the caller's */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int rc = pthread_create(&t, &a, watchdog, NULL);
    pthread_attr_destroy(&a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
      pthread_mutex_unlock(&mu);
      snprintf(err, errlen, "cannot start a thread: %s", strerror(rc));
      return -1;
    }
    started = 1;
  }
  wait_secs = secs;
  va_list ap;
  va_start(ap, fmt);
  set_request(fmt, ap);
  va_end(ap);
  armed = 1;
  fired = cut = connecting = 0;
  owner = 0;
  req_thread = pthread_self();
  req_tid = (pid_t)syscall(SYS_gettid);
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);

  /* SIGPIPE: when the session daemon refuses a request early (an unreachable
   * relayd, for one) it closes its socket while the library is still
   * sending, and the default SIGPIPE would kill us. The signal is blocked in
   * this thread (a failed socket write raises it for the writing thread) and
   * one raised meanwhile is consumed at trc_ctl_end; the call then fails
   * with EPIPE, which liblttng-ctl reports as an error code. WAKE_SIG is
   * unblocked here for the request (the watchdog's wake from connect()). */
  sigset_t mask, pend;
  pthread_sigmask(SIG_SETMASK, NULL, &pipe_g.old);
  mask = pipe_g.old;
  sigaddset(&mask, SIGPIPE);
  sigdelset(&mask, WAKE_SIG);
  pthread_sigmask(SIG_SETMASK, &mask, NULL);
  sigpending(&pend);
  pipe_g.was_pending = sigismember(&pend, SIGPIPE);
  lttng_opt_quiet = 1;
  return 0;
}

int trc_ctl_next(const char *fmt, ...) {
  pthread_mutex_lock(&mu);
  int f = fired;
  if (!f) {
    va_list ap;
    va_start(ap, fmt);
    set_request(fmt, ap);   /* the watchdog sees the new deadline when the old one passes */
    va_end(ap);
  }
  pthread_mutex_unlock(&mu);
  return f ? -1 : 0;
}

int trc_ctl_end(char *err, size_t errlen) {
  /* disarmed first: no WAKE_SIG is sent once the mask is restored */
  pthread_mutex_lock(&mu);
  armed = 0;
  int f = fired, secs = wait_secs, conn = connecting && !cut;
  pid_t pid = owner;
  char req[sizeof request];
  memcpy(req, request, sizeof req);
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);

  sigset_t pipe, pend;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  sigpending(&pend);
  if (!pipe_g.was_pending && sigismember(&pend, SIGPIPE)) {
    struct timespec zero = { 0, 0 };
    while (sigtimedwait(&pipe, NULL, &zero) < 0 && errno == EINTR) {}
  }
  pthread_sigmask(SIG_SETMASK, &pipe_g.old, NULL);

  if (!f) return 0;
  char path[4200];
  trc_ctl_socket_path(path, sizeof path);
  if (conn) {
    /* no connection was made: the daemon's queue of connections is full,
     * so its pid cannot be asked of it (SO_PEERCRED needs a connection) */
    snprintf(hung_msg, sizeof hung_msg,
             "lttng-sessiond (%.300s) accepts no connection for \"%s\" within %d s "
             "(its listen queue is full); restart it", path, req, secs);
  } else {
    if (!pid) pid = trc_ctl_socket_owner(path);
    if (pid > 0)
      snprintf(hung_msg, sizeof hung_msg, "lttng-sessiond (pid %d) does not answer \"%s\" within %d s; restart it",
               (int)pid, req, secs);
    else
      snprintf(hung_msg, sizeof hung_msg, "lttng-sessiond (%.300s) does not answer \"%s\" within %d s; restart it",
               path, req, secs);
  }
  atomic_store(&hung, 1);
  snprintf(err, errlen, "%s", hung_msg);
  return -1;
}

const char *trc_ctl_hung(void) { return atomic_load(&hung) ? hung_msg : NULL; }
