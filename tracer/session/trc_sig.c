/* trc_sig.c — signals and sleeps of `gcscope record` (trc_sig.h). */
#include "trc_sig.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile sig_atomic_t trc_sig, trc_sig_forward, trc_nsig;

static int g_pipe[2] = { -1, -1 };
static struct sigaction g_old_int, g_old_term, g_old_chld;
static int g_chld;

static void wake(void) {
  int e = errno;
  if (g_pipe[1] >= 0 && write(g_pipe[1], "s", 1) < 0) {}   /* full: a wake-up is pending anyway */
  errno = e;
}

static void on_signal(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  trc_sig = sig;
  trc_nsig++;
  /* A terminal's Ctrl-C already reaches the command (same process group);
   * forward only signals sent to us by kill(). */
  trc_sig_forward = si && si->si_code != SI_KERNEL;
  wake();
}

static void on_child(int sig) {
  (void)sig;
  wake();
}

void trc_sig_begin(int wake_on_child) {
  trc_sig = trc_sig_forward = trc_nsig = 0;
  if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) g_pipe[0] = g_pipe[1] = -1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;   /* no SA_RESTART: a blocking waitpid() returns on the signal */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
  g_chld = wake_on_child;
  if (g_chld) {
    struct sigaction sc;
    memset(&sc, 0, sizeof sc);
    sc.sa_handler = on_child;
    sc.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sc.sa_mask);
    sigaction(SIGCHLD, &sc, &g_old_chld);
  }
}

void trc_sig_end(void) {
  sigaction(SIGINT, &g_old_int, NULL);
  sigaction(SIGTERM, &g_old_term, NULL);
  if (g_chld) sigaction(SIGCHLD, &g_old_chld, NULL);
  g_chld = 0;
  for (int i = 0; i < 2; i++) {
    if (g_pipe[i] >= 0) close(g_pipe[i]);
    g_pipe[i] = -1;
  }
}

int trc_sig_fd(void) { return g_pipe[0]; }

void trc_sig_drain(void) {
  char b[64];
  if (g_pipe[0] >= 0)
    while (read(g_pipe[0], b, sizeof b) > 0) {}
}

int trc_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
  int fd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (fd >= 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) { close(fd); return -1; }
  return fd;
#else
  (void)pid;
  return -1;
#endif
}

int trc_pid_exited(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return 1;
  char path[64], buf[256];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *p = strrchr(buf, ')');   /* the name may hold spaces and parentheses */
  return p && p[1] == ' ' && p[2] == 'Z';
}

int trc_sig_sleep(int pidfd, int timeout_ms) {
  if (g_pipe[0] < 0 && (timeout_ms < 0 || timeout_ms > TRC_SIG_BLIND_MS)) timeout_ms = TRC_SIG_BLIND_MS;
  struct pollfd p[2] = { { .fd = g_pipe[0], .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };
  if (poll(p, 2, timeout_ms) <= 0) return 0;
  if (p[0].revents) trc_sig_drain();
  return p[1].revents != 0;
}
