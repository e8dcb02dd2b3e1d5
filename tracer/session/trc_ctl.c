/* trc_ctl.c — every liblttng-ctl request bounded in time (trc_lttng.h,
 * trc_ctl_begin): one watchdog thread per process, armed around each request. */
#include "trc_lttng.h"
#include "trc_ctl.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
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

static int unix_connect(const char *path) {
  struct sockaddr_un a;
  if (strlen(path) >= sizeof a.sun_path) return -1;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  memcpy(a.sun_path, path, strlen(path) + 1);
  /* non-blocking: a daemon whose listen backlog is full refuses at once */
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { close(fd); return -1; }
  return fd;
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
    int fd = in_tracing_group() ? unix_connect(GLOBAL_CLIENT_SOCK) : -1;
    if (fd < 0) {
      const char *home = getenv("LTTNG_HOME");
      if (!home) home = getenv("HOME");
      if (!home) { struct passwd *pw = getpwuid(getuid()); home = pw ? pw->pw_dir : ""; }
      snprintf(out, n, "%s/.lttng/" CLIENT_SOCK_NAME, home);
      return;
    }
    close(fd);
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

int trc_ctl_timeout(int *secs, char *err, size_t errlen) {
  const char *v = getenv("GCSCOPE_SESSIOND_TIMEOUT");
  *secs = 10;
  if (!v || !*v) return 0;
  char *end;
  errno = 0;
  long s = strtol(v, &end, 10);
  if (errno || *end || s < 1 || s > 3600) {
    snprintf(err, errlen, "GCSCOPE_SESSIOND_TIMEOUT='%.40s' is not a number of seconds from 1 to 3600", v);
    return -1;
  }
  *secs = (int)s;
  return 0;
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
  if (strcmp(base, CLIENT_SOCK_NAME) && strcmp(base, NOTIFICATION_SOCK_NAME)) return 0;
  struct ucred cr;
  socklen_t crlen = sizeof cr;
  if (!*pid && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) == 0) *pid = cr.pid;
  return 1;
}

/* Shut down this process's connections to the session daemon (its client
 * and notification sockets, found by their peer's path): the liblttng-ctl
 * call blocked on one reads end-of-file and returns an error, and closes the
 * socket itself. Returns how many were cut. */
static int cut_connections(pid_t *pid) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    char *end;
    long fd = strtol(e->d_name, &end, 10);
    if (*end || end == e->d_name || fd == dirfd(d)) continue;
    if (is_sessiond_peer((int)fd, pid) && shutdown((int)fd, SHUT_RDWR) == 0) n++;
  }
  closedir(d);
  return n;
}

static int ts_ge(const struct timespec *a, const struct timespec *b) {
  return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/* Waits for each armed request's deadline; past it, cuts the connections
 * (again every 50 ms until one is cut: the call may still be connecting). It
 * lives as long as the process, blocked on cv between requests. */
static void *watchdog(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  for (;;) {
    if (!armed || cut) {
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
    cut = cut_connections(&owner) > 0;
    if (!cut) {
      struct timespec t = now;
      t.tv_nsec += 50000000L;
      if (t.tv_nsec >= 1000000000L) { t.tv_sec++; t.tv_nsec -= 1000000000L; }
      pthread_cond_timedwait(&cv, &mu, &t);
    }
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
  fired = cut = 0;
  owner = 0;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);

  /* SIGPIPE: when the session daemon refuses a request early (an unreachable
   * relayd, for one) it closes its socket while the library is still
   * sending, and the default SIGPIPE would kill us. The signal is blocked in
   * this thread (a failed socket write raises it for the writing thread) and
   * one raised meanwhile is consumed at trc_ctl_end; the call then fails
   * with EPIPE, which liblttng-ctl reports as an error code. */
  sigset_t pipe, pend;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, &pipe_g.old);
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
  sigset_t pipe, pend;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  sigpending(&pend);
  if (!pipe_g.was_pending && sigismember(&pend, SIGPIPE)) {
    struct timespec zero = { 0, 0 };
    while (sigtimedwait(&pipe, NULL, &zero) < 0 && errno == EINTR) {}
  }
  pthread_sigmask(SIG_SETMASK, &pipe_g.old, NULL);

  pthread_mutex_lock(&mu);
  armed = 0;
  int f = fired, secs = wait_secs;
  pid_t pid = owner;
  char req[sizeof request];
  memcpy(req, request, sizeof req);
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
  if (!f) return 0;
  char path[4200];
  trc_ctl_socket_path(path, sizeof path);
  if (!pid) pid = trc_ctl_socket_owner(path);
  if (pid > 0)
    snprintf(hung_msg, sizeof hung_msg, "lttng-sessiond (pid %d) does not answer \"%s\" within %d s; restart it",
             (int)pid, req, secs);
  else
    snprintf(hung_msg, sizeof hung_msg, "lttng-sessiond (%.300s) does not answer \"%s\" within %d s; restart it",
             path, req, secs);
  atomic_store(&hung, 1);
  snprintf(err, errlen, "%s", hung_msg);
  return -1;
}

const char *trc_ctl_hung(void) { return atomic_load(&hung) ? hung_msg : NULL; }
