/*
 * bench_child.h — what the librgc benchmarks share (bench only): running one
 * configuration in a child process of its own, so that nothing of one run
 * (heap, allocator caches, page faults already taken) carries over to the
 * next, and bringing its fixed-size result back through a pipe.
 */
#ifndef BENCH_CHILD_H
#define BENCH_CHILD_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fn(arg, out) in a forked child and copies its size-byte result into
 * out. On any failure prints "PROG: WHAT failed" and exits 1. */
static inline void bench_run_child(const char *prog, const char *what, void (*fn)(int arg, void *out), int arg,
                                   void *out, size_t size) {
  int fd[2];
  if (pipe(fd)) { fprintf(stderr, "%s: pipe failed\n", prog); exit(1); }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) { fprintf(stderr, "%s: fork failed\n", prog); exit(1); }
  if (pid == 0) {
    close(fd[0]);
    fn(arg, out);
    fflush(stdout);
    ssize_t w = write(fd[1], out, size);
    _exit(w == (ssize_t)size ? 0 : 1);
  }
  close(fd[1]);
  ssize_t got = read(fd[0], out, size);
  close(fd[0]);
  int st;
  waitpid(pid, &st, 0);
  if (got != (ssize_t)size || !WIFEXITED(st) || WEXITSTATUS(st)) {
    fprintf(stderr, "%s: %s failed\n", prog, what);
    exit(1);
  }
}

#endif
