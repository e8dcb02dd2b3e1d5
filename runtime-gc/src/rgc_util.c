/* rgc_util.c — clocks, fatal errors, growable vectors, memory load. */
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include "rgc_internal.h"

uint64_t rgc_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rgc_thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void rgc_fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("librgc: fatal: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

void *rgc_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q) rgc_fatal("out of memory (%zu bytes of GC bookkeeping)", n);
  return q;
}

/* Memory load in percent: against the hard limit when there is one (as
 * CoreCLR in a container), else the machine's MemAvailable/MemTotal. */
uint64_t rgc_memory_load_percent(struct rgc_runtime *rt, uint64_t *total_avail) {
  if (rt->cfg.heap_hard_limit) {
    if (total_avail) *total_avail = rt->cfg.heap_hard_limit;
    return (uint64_t)rt->committed * 100 / rt->cfg.heap_hard_limit;
  }
  FILE *f = fopen("/proc/meminfo", "r");
  unsigned long long total = 0, avail = 0, v;
  char key[64];
  if (f) {
    while (fscanf(f, "%63s %llu kB\n", key, &v) == 2) {
      if (!strcmp(key, "MemTotal:")) total = v * 1024;
      else if (!strcmp(key, "MemAvailable:")) avail = v * 1024;
    }
    fclose(f);
  }
  if (total_avail) *total_avail = total;
  if (!total) return 0;
  return (total - avail) * 100 / total;
}
