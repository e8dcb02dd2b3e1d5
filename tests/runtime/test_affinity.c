/* test_affinity — server GC pins its workers, one per CPU, like CoreCLR's
 * server GC threads; RGC_GCNoAffinitize=1 (cfg.no_affinitize) leaves them to
 * the scheduler. The threads are read from /proc/self/task: those the runtime
 * started (absent before rgc_create) whose Cpus_allowed_list names exactly one
 * CPU. Expected: as many as heaps when the process may use at least that many
 * CPUs (else none), and none with no_affinitize. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rgc.h"
#include "check.h"

#define MAX_TASKS 256

static int tasks(long *out) {
  int n = 0;
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d)) && n < MAX_TASKS;)
    if (e->d_name[0] != '.') out[n++] = atol(e->d_name);
  closedir(d);
  return n;
}

/* CPUs in task tid's affinity (the kernel's Cpus_allowed_list), -1 if unreadable. */
static int cpus_of(long tid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/self/task/%ld/status", tid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int n = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "Cpus_allowed_list:", 18)) continue;
    n = 0;
    for (char *p = line + 18; *p;) {  /* "0-3,6,8-9" */
      while (*p == ' ' || *p == '\t' || *p == ',') p++;
      if (*p < '0' || *p > '9') break;
      long a = strtol(p, &p, 10), b = a;
      if (*p == '-') b = strtol(p + 1, &p, 10);
      n += (int)(b - a + 1);
    }
  }
  fclose(f);
  return n;
}

static int pinned_new_threads(int no_affinitize, unsigned heaps) {
  long before[MAX_TASKS], after[MAX_TASKS];
  int nb = tasks(before);
  struct rgc_config c;
  rgc_config_default(&c);
  c.server = 1;
  c.heap_count = heaps;
  c.concurrent = 0;
  c.no_affinitize = no_affinitize;
  char err[200];
  rgc_runtime *rt = rgc_create(&c, err, sizeof err);
  if (!rt) { fprintf(stderr, "rgc_create: %s\n", err); exit(1); }
  rgc_thread *t = rgc_attach_thread(rt);
  /* Two GCs (a worker is pinned from its creation, whether or not it has run). */
  rgc_collect(rt, 0, RGC_COLLECT_FORCED);
  rgc_collect(rt, 0, RGC_COLLECT_FORCED);
  int na = tasks(after), pinned = 0;
  for (int i = 0; i < na; i++) {
    int old = 0;
    for (int j = 0; j < nb; j++) old |= after[i] == before[j];
    if (!old && cpus_of(after[i]) == 1) pinned++;
  }
  rgc_detach_thread(t);
  rgc_destroy(rt);
  return pinned;
}

int main(void) {
  cpu_set_t allowed;
  CHECK(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
  int ncpu = CPU_COUNT(&allowed);
  CHECK(cpus_of(0) == -1);  /* no such task: the reader says so */
  int want = ncpu >= 2 ? 2 : 0;
  CHECK_EQ_INT(pinned_new_threads(0, 2), want);
  CHECK_EQ_INT(pinned_new_threads(1, 2), 0);
  printf("test_affinity: %d CPUs allowed, %d workers pinned by default\n", ncpu, want);
  return check_done();
}
