/*
 * The traced COMMAND starts with no signal blocked (trc_child_spawn), even
 * when the thread that forks it has some blocked: SIGPIPE is blocked in it
 * during every liblttng-ctl request (trc_ctl_begin), and a blocked signal
 * survives exec. The command here is cat /proc/self/status: its SigBlk line
 * must read 0 (before, the forking thread's SIGPIPE and SIGUSR1 bits,
 * 0x1000 | 0x200, were there).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trc_child.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

int main(void) {
  char path[] = "/tmp/gcs-trc-child-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return 1;
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGPIPE);
  sigaddset(&block, SIGUSR1);
  sigprocmask(SIG_BLOCK, &block, &old);

  /* the command's stdout is the file (as top sends it away from the screen) */
  int saved = dup(1);
  dup2(fd, 1);
  struct trc_child c;
  char err[256] = "";
  char *argv[] = { "cat", "/proc/self/status", NULL };
  int rc = trc_child_spawn(&c, argv, 0, err, sizeof err);
  dup2(saved, 1);
  close(saved);
  CHECK(rc == 0);
  if (rc == 0) {
    CHECK(trc_child_release(&c, err, sizeof err) == 0);
    int st = 0;
    CHECK(waitpid(c.pid, &st, 0) == c.pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  sigprocmask(SIG_SETMASK, &old, NULL);

  char buf[8192];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  close(fd);
  unlink(path);
  CHECK(n > 0);
  buf[n > 0 ? n : 0] = '\0';
  const char *blk = strstr(buf, "\nSigBlk:\t");
  CHECK(blk != NULL);
  if (blk) {
    unsigned long long mask = strtoull(blk + 9, NULL, 16);
    if (mask != 0) fprintf(stderr, "the command's SigBlk: %016llx\n", mask);
    CHECK(mask == 0);
  }
  if (err[0]) fprintf(stderr, "err: %s\n", err);
  printf(failures ? "%d failed\n" : "ok\n", failures);
  return failures ? 1 : 0;
}
