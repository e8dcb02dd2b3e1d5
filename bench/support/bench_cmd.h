/*
 * bench_cmd.h — what the command benchmarks share (bench only): running a
 * gcscope command as a process of its own with its output on /dev/null,
 * timing it (wall, and CPU as user + sys of all its threads), and the median
 * and range of a configuration's rounds.
 */
#ifndef BENCH_CMD_H
#define BENCH_CMD_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BENCH_MAX_ROUNDS 50

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int bench_cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of v[0..n), 1 <= n <= BENCH_MAX_ROUNDS (v is not reordered). */
static inline double bench_median(const double *v, int n) {
  double t[BENCH_MAX_ROUNDS];
  memcpy(t, v, sizeof *v * (size_t)n);
  qsort(t, (size_t)n, sizeof *t, bench_cmp_d);
  return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static inline void bench_range(const double *v, int n, double *lo, double *hi) {
  *lo = *hi = v[0];
  for (int i = 1; i < n; i++) {
    if (v[i] < *lo) *lo = v[i];
    if (v[i] > *hi) *hi = v[i];
  }
}

/* The command benchmarks' arguments: [N] [DB_PATH] [ROUNDS], each with its
 * default. 0, or -1 after the usage line (N >= 1, 1 <= ROUNDS <= BENCH_MAX_ROUNDS). */
struct bench_args { long n; const char *path; int rounds; };
static inline int bench_parse_args(int argc, char **argv, const char *prog, const char *n_name,
                                   struct bench_args *a) {
  if (argc > 1) a->n = atol(argv[1]);
  if (argc > 2) a->path = argv[2];
  if (argc > 3) a->rounds = atoi(argv[3]);
  if (a->n >= 1 && a->rounds >= 1 && a->rounds <= BENCH_MAX_ROUNDS) return 0;
  fprintf(stderr, "usage: %s [%s (>= 1)] [DB_PATH] [ROUNDS (1-%d)]\n", prog, n_name, BENCH_MAX_ROUNDS);
  return -1;
}

/* Runs argv (argv[0] a path) with stdout on /dev/null: its wall and CPU
 * seconds. -1 after "PROG: ..." on stderr if it cannot run or fails. */
static inline int bench_run_cmd(const char *prog, const char *const *argv, double *wall, double *cpu) {
  double t0 = bench_now();
  pid_t pid = fork();
  if (pid < 0) { fprintf(stderr, "%s: fork failed\n", prog); return -1; }
  if (pid == 0) {
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) dup2(fd, 1);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  int st;
  struct rusage ru;
  if (wait4(pid, &st, 0, &ru) != pid) { fprintf(stderr, "%s: wait4 failed\n", prog); return -1; }
  *wall = bench_now() - t0;
  *cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
         (double)ru.ru_stime.tv_usec / 1e6;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    fprintf(stderr, "%s: %s %s ... failed (status %d)\n", prog, argv[0], argv[1] ? argv[1] : "", st);
    return -1;
  }
  return 0;
}

#endif
