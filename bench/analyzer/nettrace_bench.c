/*
 * nettrace_bench.c — decode rate of the .nettrace reader, as a ratio against
 * a plain read of the same file measured in the same run.
 *
 * Baseline: read(2) the whole file into memory and sum its bytes (the least
 * any reader must do). Measured: gcs_nettrace_read with a callback that
 * counts events (container parsing, header decompression, sorting, payload
 * decoding). Each is run REPS times after a warm-up; the best time counts.
 * Usage: nettrace_bench [FILE] [REPS]
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gcs_nettrace.h"

#ifndef NT_BENCH_DEFAULT_FILE
#define NT_BENCH_DEFAULT_FILE "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace"
#endif

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

static int plain_read(const char *path, uint8_t *buf, size_t len) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  size_t got = 0;
  while (got < len) {
    ssize_t n = read(fd, buf + got, len - got);
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd);
  uint64_t sum = 0;
  for (size_t i = 0; i < got; i++) sum += buf[i];
  sink += sum;
  return got == len ? 0 : -1;
}

static int count_event(const struct gcs_event *ev, void *ud) {
  (*(uint64_t *)ud) += 1 + (ev->ts_ns & 1);
  return 0;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : NT_BENCH_DEFAULT_FILE;
  int reps = argc > 2 ? atoi(argv[2]) : 20;
  if (reps < 1) reps = 1;
  struct stat st;
  if (stat(path, &st) != 0) { perror(path); return 1; }
  size_t len = (size_t)st.st_size;
  uint8_t *buf = malloc(len ? len : 1);
  if (!buf) return 1;

  double best_read = 1e30, best_decode = 1e30;
  struct gcs_nettrace_info info;
  char err[512];
  for (int r = 0; r <= reps; r++) {  /* r == 0 warms the page cache */
    double t0 = now_s();
    if (plain_read(path, buf, len) != 0) { fprintf(stderr, "nettrace_bench: cannot read %s\n", path); return 1; }
    double t1 = now_s();
    uint64_t n = 0;
    if (gcs_nettrace_read(path, count_event, &n, &info, err, sizeof err) != 0) {
      fprintf(stderr, "nettrace_bench: %s\n", err);
      return 1;
    }
    double t2 = now_s();
    sink += n;
    if (r == 0) continue;
    if (t1 - t0 < best_read) best_read = t1 - t0;
    if (t2 - t1 < best_decode) best_decode = t2 - t1;
  }
  free(buf);

  double mb = (double)len / 1e6;
  printf("nettrace_bench: %s (%.1f MB, %" PRIu64 " events, %" PRIu64 " GC events decoded), best of %d\n",
         path, mb, info.events_total, info.events_decoded, reps);
  printf("  plain read      %8.2f ms  %8.0f MB/s\n", best_read * 1e3, mb / best_read);
  printf("  nettrace decode %8.2f ms  %8.0f MB/s  %.2f M events/s (all)  %.2f M GC events/s (delivered)\n",
         best_decode * 1e3, mb / best_decode, (double)info.events_total / best_decode / 1e6,
         (double)info.events_decoded / best_decode / 1e6);
  printf("  ratio decode/read: %.2f\n", best_decode / best_read);
  return 0;
}
