/*
 * wait_capture.h — the tracer tests' programs (scripted_gc, rgc_long_suspend)
 * with --after-capture FILE: before its K-th long pause (K >= 2) a program
 * waits until FILE (gcscope record's stdout, which the program shares) holds
 * "gcscope record: capture-(K-1) verified". record prints that line (to a
 * file: flushed with the re-arm that follows it), so the next long pause
 * begins after the previous capture's re-arm whatever the machine's load.
 * A fixed interval assumed the capture, its verification and the
 * notifications' delivery took less than it; under load the notifications
 * lagged 670 ms behind a 300 ms interval and a pause began before the re-arm
 * (tracer.record.rgc_multiple, 1 run in 3 with 4 CPU hogs).
 */
#ifndef TRC_WAIT_CAPTURE_H
#define TRC_WAIT_CAPTURE_H

#include <stdio.h>
#include <string.h>
#include <time.h>

#define WAIT_CAPTURE_MAX_S 60   /* generous: then the program goes on (the test fails on its captures) */

/* 1 if the file holds needle (whole file, read in chunks with overlap). */
static inline int wait_capture_holds(const char *path, const char *needle) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char buf[8192];
  size_t keep = 0, nlen = strlen(needle), n;
  int found = 0;
  while (!found && (n = fread(buf + keep, 1, sizeof buf - 1 - keep, f)) > 0) {
    buf[keep + n] = '\0';
    found = strstr(buf, needle) != NULL;
    size_t have = keep + n;
    keep = have < nlen ? have : nlen;
    memmove(buf, buf + have - keep, keep);
  }
  fclose(f);
  return found;
}

/* Wait (at most WAIT_CAPTURE_MAX_S) until path holds capture-k's
 * verification line; k < 1 or no path: no wait. 0 when it came, -1 not. */
static inline int wait_capture(const char *path, int k, const char *prog) {
  if (!path || k < 1) return 0;
  char needle[64];
  snprintf(needle, sizeof needle, "gcscope record: capture-%d verified", k);
  struct timespec step = { 0, 5000000L };
  for (int i = 0; i < WAIT_CAPTURE_MAX_S * 200; i++) {
    if (wait_capture_holds(path, needle)) return 0;
    nanosleep(&step, NULL);
  }
  fprintf(stderr, "%s: no '%s' in %s within %d s; going on\n", prog, needle, path, WAIT_CAPTURE_MAX_S);
  return -1;
}

#endif
