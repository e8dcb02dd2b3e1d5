/*
 * rgc_long_suspend — a librgc program whose chosen GCs have a long suspension,
 * deterministically: for those GCs a mutator thread leaves native code and
 * spins MS ms without reaching a safepoint while the main thread induces the
 * GC, so the GC thread's SuspendEE waits for it (rgc.h, "Threads").
 *
 *   rgc_long_suspend [--gcs N] [--interval-ms N] [--long-suspend I:MS]...
 *
 * Runs N induced gen0 GCs (rgc_collect, forced) INTERVAL ms apart; GC I
 * (1-based, the I-th induced GC) gets a suspension of about MS ms (up to 8
 * specs). The mutator allocates a little garbage between GCs, far below the
 * gen0 budget, so no other GC runs. Prints "rgc_long_suspend: ready PID" first,
 * then for every long-suspension GC the index and generation librgc reports
 * for it (rgc_get_memory_info), "rgc_long_suspend: GC #K gen0 suspended MS ms",
 * and "rgc_long_suspend: done" at the end.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rgc.h"

/* In the ASan build: liblttng-ust keeps some allocations until exit. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }

#define MAX_SPECS 8

struct mutator {
  rgc_runtime *rt;
  const rgc_type *garbage;
  atomic_int cmd;        /* 0 idle, > 0 spin that many ms for the next GC, -1 exit */
  atomic_int spinning;   /* 1 once the mutator left native code for cmd */
  atomic_int go;         /* set by main right before it induces the GC */
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  while (nanosleep(&ts, &ts) != 0) {}
}

static void *mutator_main(void *arg) {
  struct mutator *m = arg;
  rgc_thread *t = rgc_attach_thread(m->rt);
  if (!t) return NULL;
  for (;;) {
    for (int i = 0; i < 64; i++) rgc_alloc(t, m->garbage);   /* a little garbage */
    /* Idle in native code: GCs do not wait for this thread. */
    rgc_enter_native(t);
    int c;
    while ((c = atomic_load(&m->cmd)) == 0) sleep_ms(1);
    rgc_leave_native(t);
    if (c < 0) break;
    atomic_store(&m->spinning, 1);
    while (!atomic_load(&m->go)) {}
    /* Cooperative and away from any safepoint: the GC's suspension waits. */
    uint64_t until = now_ns() + (uint64_t)c * 1000000ull;
    while (now_ns() < until) {}
    rgc_safepoint(t);                        /* the GC runs here */
    atomic_store(&m->spinning, 0);
    atomic_store(&m->go, 0);
    atomic_store(&m->cmd, 0);
  }
  rgc_detach_thread(t);
  return NULL;
}

static int usage(void) {
  fprintf(stderr, "usage: rgc_long_suspend [--gcs N] [--interval-ms N] [--long-suspend I:MS]...\n");
  return 2;
}

int main(int argc, char **argv) {
  unsigned ngcs = 6, interval = 10, idx[MAX_SPECS], ms[MAX_SPECS];
  int nspecs = 0;
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) return usage();
    const char *a = argv[i], *v = argv[++i];
    if (!strcmp(a, "--gcs")) ngcs = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--interval-ms")) interval = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--long-suspend")) {
      if (nspecs == MAX_SPECS || sscanf(v, "%u:%u", &idx[nspecs], &ms[nspecs]) != 2 || !idx[nspecs] ||
          !ms[nspecs])
        return usage();
      nspecs++;
    } else {
      return usage();
    }
  }
  char err[256];
  struct mutator m;
  memset(&m, 0, sizeof m);
  m.rt = rgc_create(NULL, err, sizeof err);
  if (!m.rt) {
    fprintf(stderr, "rgc_long_suspend: %s\n", err);
    return 1;
  }
  m.garbage = rgc_register_type(m.rt, &(struct rgc_type_desc){ .name = "Garbage", .kind = RGC_KIND_OBJECT,
                                                                .size = 32 });
  pthread_t th;
  if (!m.garbage || pthread_create(&th, NULL, mutator_main, &m) != 0) {
    fprintf(stderr, "rgc_long_suspend: cannot start the mutator\n");
    rgc_destroy(m.rt);
    return 1;
  }
  printf("rgc_long_suspend: ready %d\n", (int)getpid());
  fflush(stdout);
  for (unsigned n = 1; n <= ngcs; n++) {
    unsigned spin = 0;
    for (int k = 0; k < nspecs; k++)
      if (idx[k] == n) spin = ms[k];
    if (spin) {
      atomic_store(&m.cmd, (int)spin);
      while (!atomic_load(&m.spinning)) sleep_ms(1);
      atomic_store(&m.go, 1);
    }
    rgc_collect(m.rt, 0, RGC_COLLECT_FORCED);
    if (spin) {
      while (atomic_load(&m.cmd) != 0) sleep_ms(1);
      struct rgc_memory_info mi;
      rgc_get_memory_info(m.rt, RGC_GC_KIND_ANY, &mi);
      printf("rgc_long_suspend: GC #%llu gen%d suspended %u ms\n", (unsigned long long)mi.index,
             mi.generation, spin);
      fflush(stdout);
    }
    sleep_ms(interval);
  }
  atomic_store(&m.cmd, -1);
  pthread_join(th, NULL);
  rgc_destroy(m.rt);
  printf("rgc_long_suspend: done\n");
  fflush(stdout);
  return 0;
}
