/* trc_child.c — spawn the traced command (trc_child.h). */
#include "trc_child.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int trc_child_spawn(struct trc_child *c, char *const *argv, int dotnet, char *err, size_t errlen) {
  int go[2], ep[2];
  c->pid = -1;
  if (pipe2(go, O_CLOEXEC) != 0) goto fail;
  if (pipe2(ep, O_CLOEXEC) != 0) { close(go[0]); close(go[1]); goto fail; }
  pid_t pid = fork();
  if (pid < 0) { close(go[0]); close(go[1]); close(ep[0]); close(ep[1]); goto fail; }
  if (pid == 0) {
    close(go[1]);
    close(ep[0]);
    char b;
    ssize_t r;
    do r = read(go[0], &b, 1); while (r < 0 && errno == EINTR);
    if (r != 1) _exit(127);           /* gcscope went away before the start */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    /* A blocked signal stays blocked across exec: the mask of the thread
     * that forked (SIGPIPE is blocked during a liblttng-ctl request,
     * trc_ctl_begin) is not the command's. It starts with none blocked, as
     * from a shell. */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dotnet) setenv("DOTNET_EnableEventLog", "1", 1);
    execvp(argv[0], argv);
    int e = errno;
    if (write(ep[1], &e, sizeof e) < 0) {}
    _exit(127);
  }
  close(go[0]);
  close(ep[1]);
  c->pid = pid;
  c->go_fd = go[1];
  c->err_fd = ep[0];
  return 0;
fail:
  snprintf(err, errlen, "cannot start the command: %s", strerror(errno));
  return -1;
}

int trc_child_release(struct trc_child *c, char *err, size_t errlen) {
  char b = 'g';
  ssize_t r = write(c->go_fd, &b, 1);
  close(c->go_fd);
  c->go_fd = -1;
  int e = 0;
  ssize_t n;
  do n = read(c->err_fd, &e, sizeof e); while (n < 0 && errno == EINTR);
  close(c->err_fd);
  c->err_fd = -1;
  if (r == 1 && n == 0) return 0;
  waitpid(c->pid, NULL, 0);
  c->pid = -1;
  snprintf(err, errlen, "cannot run the command: %s", n == (ssize_t)sizeof e ? strerror(e) : "it exited at once");
  return -1;
}

void trc_child_abort(struct trc_child *c) {
  if (c->pid <= 0) return;
  if (c->go_fd >= 0) close(c->go_fd);   /* EOF: the child exits on its own */
  if (c->err_fd >= 0) close(c->err_fd);
  c->go_fd = c->err_fd = -1;
  waitpid(c->pid, NULL, 0);
  c->pid = -1;
}

void trc_child_stop(struct trc_child *c) {
  if (c->pid <= 0) return;
  if (c->go_fd >= 0) { trc_child_abort(c); return; }
  kill(c->pid, SIGTERM);
  for (int i = 0; i < 100; i++) {
    pid_t w = waitpid(c->pid, NULL, WNOHANG);
    if (w == c->pid || (w < 0 && errno != EINTR)) { c->pid = -1; return; }
    struct timespec ts = { 0, 20000000L };
    nanosleep(&ts, NULL);
  }
  kill(c->pid, SIGKILL);
  while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR) {}
  c->pid = -1;
}

/* Is COMMAND a .NET program: the `dotnet` host, or an app host (an
 * executable beside its NAME.runtimeconfig.json, as `dotnet build` lays one
 * out)? A name without a slash is looked up in PATH, as execvp does. */
int trc_child_is_dotnet(const char *cmd) {
  const char *base = strrchr(cmd, '/');
  if (!strcmp(base ? base + 1 : cmd, "dotnet")) return 1;
  char path[PATH_MAX + 32];
  if (strchr(cmd, '/')) {
    if ((size_t)snprintf(path, sizeof path, "%s.runtimeconfig.json", cmd) >= sizeof path) return 0;
    return access(path, R_OK) == 0;
  }
  const char *dirs = getenv("PATH");
  if (!dirs || !*dirs) return 0;
  for (const char *d = dirs; d;) {
    const char *end = strchr(d, ':');
    int len = end ? (int)(end - d) : (int)strlen(d);
    char exe[PATH_MAX];
    int n = len ? snprintf(exe, sizeof exe, "%.*s/%s", len, d, cmd) : snprintf(exe, sizeof exe, "./%s", cmd);
    if (n > 0 && (size_t)n < sizeof exe &&
        access(exe, X_OK) == 0)
      return (size_t)snprintf(path, sizeof path, "%s.runtimeconfig.json", exe) < sizeof path &&
             access(path, R_OK) == 0;
    d = end ? end + 1 : NULL;
  }
  return 0;
}
