/* rgc_util.c — clocks, fatal errors, growable vectors, memory load. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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

/* The value in kB of the /proc/meminfo line starting with key (e.g.
 * "MemTotal:"), 0 if absent. */
static unsigned long long meminfo_kb(const char *text, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = text; *p;) {
    if (!strncmp(p, key, kl)) {
      p += kl;
      while (*p == ' ' || *p == '\t') p++;
      unsigned long long v = 0;
      while (*p >= '0' && *p <= '9') v = v * 10 + (unsigned long long)(*p++ - '0');
      return v;
    }
    const char *nl = strchr(p, '\n');
    if (!nl) break;
    p = nl + 1;
  }
  return 0;
}

/* Memory load in percent: against the hard limit when there is one (as
 * CoreCLR in a container), else the machine's MemAvailable/MemTotal.
 * /proc/meminfo is read with one read(2) and scanned by hand: stdio's
 * fopen + fscanf of its ~55 lines cost about twice the kernel's work. */
uint64_t rgc_memory_load_percent(struct rgc_runtime *rt, uint64_t *total_avail) {
  if (rt->cfg.heap_hard_limit) {
    if (total_avail) *total_avail = rt->cfg.heap_hard_limit;
    return (uint64_t)rt->committed * 100 / rt->cfg.heap_hard_limit;
  }
  unsigned long long total = 0, avail = 0;
  char buf[8192];
  int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    size_t n = 0;
    ssize_t r;
    while (n < sizeof buf - 1 && (r = read(fd, buf + n, sizeof buf - 1 - n)) > 0) n += (size_t)r;
    close(fd);
    buf[n] = '\0';
    total = meminfo_kb(buf, "MemTotal:") * 1024;
    avail = meminfo_kb(buf, "MemAvailable:") * 1024;
  }
  if (total_avail) *total_avail = total;
  if (!total) return 0;
  return (total - avail) * 100 / total;
}
