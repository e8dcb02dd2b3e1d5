/*
 * scripted_gc — a deterministic "GC emitter" for the tracer tests: it emits
 * librgc's `rgc` GC events (through runtime-gc/src/rgc_tp.h, probes built into
 * this program) with sleeps placed so that chosen GCs have chosen lengths.
 *
 *   scripted_gc [--start-delay-ms N] [--interval-ms N] [--gcs N | --forever]
 *               [--long-gc I:MS] [--long-suspend I:MS] [--bgc I:MS]
 *
 * GC I (1-based) is, by default, a gen0 non-concurrent GC with no sleeps.
 *   --long-gc I:MS       GC I: GCStart -> GCEnd takes MS ms (gen1, blocking)
 *   --long-suspend I:MS  GC I: SuspendEEBegin -> SuspendEEEnd takes MS ms
 *   --bgc I:MS           GC I is a background gen2 GC whose final pause
 *                        (SuspendEEBegin SuspendForGCPrep -> RestartEEEnd) takes MS ms
 *   --after-capture FILE the K-th GC named by the options above (K >= 2)
 *                        waits until FILE holds gcscope record's "capture-(K-1)
 *                        verified" line (wait_capture.h)
 * Each option may be given up to 8 times. Prints "scripted_gc: ready PID" on
 * stdout (flushed) before the first GC and "scripted_gc: done" at the end.
 */
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "rgc_tp.h"

#include "gcs_enums.h"
#include "wait_capture.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* In the ASan build: liblttng-ust keeps some allocations until exit; they are
 * not this program's leaks (gcscope itself keeps leak checking on). */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }

#define MAX_SPECS 8
struct spec { unsigned index; unsigned ms; };
struct specs { struct spec v[MAX_SPECS]; int n; };

static volatile sig_atomic_t g_stop;
static void on_signal(int sig) { (void)sig; g_stop = 1; }

static void sleep_ms(unsigned ms) {
  if (!ms) return;                   /* no syscall: --interval-ms 0 emits back to back */
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  while (nanosleep(&ts, &ts) != 0 && !g_stop) {}
}

static int add_spec(struct specs *s, const char *arg) {
  unsigned i, ms;
  if (s->n == MAX_SPECS || sscanf(arg, "%u:%u", &i, &ms) != 2 || i == 0) return -1;
  s->v[s->n].index = i;
  s->v[s->n].ms = ms;
  s->n++;
  return 0;
}

static unsigned find(const struct specs *s, unsigned index) {
  for (int k = 0; k < s->n; k++)
    if (s->v[k].index == index) return s->v[k].ms;
  return 0;
}
static int has(const struct specs *s, unsigned index) {
  for (int k = 0; k < s->n; k++)
    if (s->v[k].index == index) return 1;
  return 0;
}

static void suspend(unsigned reason, unsigned count, unsigned ms) {
  struct gcs_ev_GCSuspendEEBegin b = { .Reason = reason, .Count = count, .ClrInstanceID = 0 };
  struct gcs_ev_GCSuspendEEEnd e = { 0 };
  tracepoint(rgc, GCSuspendEEBegin_V1, &b);
  if (ms) sleep_ms(ms);
  tracepoint(rgc, GCSuspendEEEnd_V1, &e);
}

static void restart(void) {
  struct gcs_ev_GCRestartEEBegin b = { 0 };
  struct gcs_ev_GCRestartEEEnd e = { 0 };
  tracepoint(rgc, GCRestartEEBegin_V1, &b);
  tracepoint(rgc, GCRestartEEEnd_V1, &e);
}

static void heap_stats(void) {
  struct gcs_ev_GCHeapStats h = { .GenerationSize0 = 1000000, .GenerationSize2 = 5000000 };
  tracepoint(rgc, GCHeapStats_V2, &h);
}

static void blocking_gc(unsigned n, unsigned depth, unsigned suspend_ms, unsigned gc_ms) {
  struct gcs_ev_GCTriggered t = { .Reason = GCS_GC_REASON_ALLOC_SMALL };
  struct gcs_ev_GCStart s = { .Count = n, .Depth = depth, .Reason = GCS_GC_REASON_ALLOC_SMALL,
                              .Type = GCS_GC_TYPE_NON_CONCURRENT };
  struct gcs_ev_GCEnd e = { .Count = n, .Depth = depth };
  suspend(GCS_SUSPEND_REASON_SUSPEND_FOR_GC, n, suspend_ms);
  tracepoint(rgc, GCTriggered, &t, NULL, 0);  /* no stack */
  tracepoint(rgc, GCStart_V2, &s);
  if (gc_ms) sleep_ms(gc_ms);
  tracepoint(rgc, GCEnd_V1, &e);
  heap_stats();
  restart();
}

#define PHASE(Name) do { struct gcs_ev_##Name p_ = { 0 }; tracepoint(rgc, Name, &p_); } while (0)

/* A BGC: initial pause, concurrent phase, final pause of final_ms, end. */
static void background_gc(unsigned n, unsigned final_ms) {
  struct gcs_ev_GCTriggered t = { .Reason = GCS_GC_REASON_ALLOC_SMALL };
  struct gcs_ev_GCStart s = { .Count = n, .Depth = GCS_GEN2, .Reason = GCS_GC_REASON_ALLOC_SMALL,
                              .Type = GCS_GC_TYPE_BACKGROUND };
  struct gcs_ev_GCEnd e = { .Count = n, .Depth = GCS_GEN2 };
  suspend(GCS_SUSPEND_REASON_SUSPEND_FOR_GC, n, 0);
  tracepoint(rgc, GCTriggered, &t, NULL, 0);  /* no stack */
  tracepoint(rgc, GCStart_V2, &s);
  PHASE(BGCBegin);
  PHASE(BGC1stNonConEnd);
  restart();
  sleep_ms(5);                       /* concurrent marking */
  PHASE(BGC1stConEnd);
  struct gcs_ev_GCSuspendEEBegin b = { .Reason = GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP, .Count = n };
  struct gcs_ev_GCSuspendEEEnd se = { 0 };
  tracepoint(rgc, GCSuspendEEBegin_V1, &b);
  tracepoint(rgc, GCSuspendEEEnd_V1, &se);
  PHASE(BGC2ndNonConBegin);
  if (final_ms) sleep_ms(final_ms);
  PHASE(BGC2ndNonConEnd);
  restart();
  PHASE(BGC2ndConBegin);
  PHASE(BGC2ndConEnd);
  tracepoint(rgc, GCEnd_V1, &e);
  heap_stats();
}

static int usage(void) {
  fprintf(stderr, "usage: scripted_gc [--start-delay-ms N] [--interval-ms N] [--gcs N | --forever] "
                  "[--long-gc I:MS] [--long-suspend I:MS] [--bgc I:MS] [--after-capture FILE]\n");
  return 2;
}

int main(int argc, char **argv) {
  unsigned start_delay = 0, interval = 10, ngcs = 10;
  int forever = 0, nlong = 0;
  const char *after_capture = NULL;
  struct specs lg = { .n = 0 }, ls = { .n = 0 }, bg = { .n = 0 };
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--forever")) { forever = 1; continue; }
    if (!v) return usage();
    i++;
    if (!strcmp(a, "--start-delay-ms")) start_delay = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--interval-ms")) interval = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--gcs")) ngcs = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--long-gc")) { if (add_spec(&lg, v)) return usage(); }
    else if (!strcmp(a, "--long-suspend")) { if (add_spec(&ls, v)) return usage(); }
    else if (!strcmp(a, "--bgc")) { if (add_spec(&bg, v)) return usage(); }
    else if (!strcmp(a, "--after-capture")) after_capture = v;
    else return usage();
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);

  printf("scripted_gc: ready %d\n", (int)getpid());
  fflush(stdout);
  sleep_ms(start_delay);
  struct gcs_ev_RuntimeInformation ri = { .HeapCount = 1, .Version = "scripted", .CommandLine = "scripted_gc" };
  tracepoint(rgc, RuntimeInformation, &ri);
  for (unsigned n = 1; (forever || n <= ngcs) && !g_stop; n++) {
    if (has(&bg, n) || has(&lg, n) || has(&ls, n)) wait_capture(after_capture, nlong++, "scripted_gc");
    if (has(&bg, n)) background_gc(n, find(&bg, n));
    else if (has(&lg, n)) blocking_gc(n, 1, find(&ls, n), find(&lg, n));
    else blocking_gc(n, 0, find(&ls, n), 0);
    sleep_ms(interval);
  }
  printf("scripted_gc: done\n");
  fflush(stdout);
  return 0;
}
