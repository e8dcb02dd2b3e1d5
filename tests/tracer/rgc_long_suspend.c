/*
 * rgc_long_suspend — a librgc program whose chosen GCs have a long pause of a
 * chosen shape, deterministically, for the tracer's trigger tests:
 *
 *   rgc_long_suspend [--gcs N] [--interval-ms N] [--long-suspend I:MS]...
 *                    [--long-gc I:MB]... [--bgc I:MS]... [--old-mb N]
 *                    [--after-capture FILE]
 *
 * Runs N induced GCs (rgc_collect) INTERVAL ms apart; I is 1-based (the I-th
 * induced GC of the loop). Up to 8 specs of each kind.
 *  --long-suspend I:MS  GC I (forced gen0) has a suspension (SuspendEE) of
 *                       about MS ms: a mutator thread leaves native code and
 *                       spins MS ms without reaching a safepoint while the
 *                       main thread induces the GC (rgc.h, "Threads").
 *  --long-gc I:MB       GC I (forced gen0) has a long GCStart -> GCEnd: right
 *                       before it the mutator builds a linked list of MB MB
 *                       (10^6 bytes) of live objects, which that GC marks and
 *                       promotes; the list is dropped after it. The gen0
 *                       budget is raised above every list, so no GC but the
 *                       induced ones ever runs and the other GCs stay short.
 *  --bgc I:MS           GC I is a background GC (gen2, non-blocking) whose
 *                       final pause (SuspendEE SuspendForGCPrep -> RestartEEEnd) lasts
 *                       about MS ms (0: not held up): the mutator polls
 *                       safepoints until the BGC's first pause is over, then
 *                       sleeps MS ms in cooperative mode (no safepoint), so
 *                       the BGC's second suspension waits for it. The main thread waits for
 *                       the BGC's end before going on.
 *  --old-mb N           first build an N MB list and promote it to gen2 (two
 *                       gen1 GCs before the loop): the BGC's concurrent mark
 *                       then takes long enough that the mutator is running
 *                       again before the second suspension starts. If it is
 *                       not (an overloaded machine: the pause is under a
 *                       tenth of MS), the BGC is reported as "not held up"
 *                       and done again (up to 3 times).
 *  --after-capture FILE the K-th chosen GC (K >= 2) waits until FILE holds
 *                       gcscope record's "capture-(K-1) verified" line
 *                       (wait_capture.h).
 * Output (stdout): "rgc_long_suspend: ready PID" first; for each chosen GC the
 * index and generation librgc reports for it (rgc_get_memory_info):
 *   rgc_long_suspend: GC #K gen0 suspended MS ms
 *   rgc_long_suspend: GC #K genG marked MB MB live, pause P ms
 *   rgc_long_suspend: BGC #K gen2 final pause held MS ms, pause2 P ms
 *   rgc_long_suspend: BGC #K final pause not held up (P ms), again
 * (P: librgc's own pause measure), and "rgc_long_suspend: done" at the end.
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
#include "wait_capture.h"

/* In the ASan build: liblttng-ust keeps some allocations of its listener
 * threads until exit. detect_leaks=0 is only a default (CI's ASAN_OPTIONS
 * turns leak detection on), so those are also suppressed by name. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:liblttng-ust.so\n"; }

#define MAX_SPECS 8
#define NODE_BYTES 32u              /* 16-byte header + next + one word */
#define BGC_ATTEMPTS 3

enum cmd { CMD_IDLE = 0, CMD_SPIN, CMD_BUILD, CMD_BUILD_OLD, CMD_DROP, CMD_BGC_HOLD, CMD_EXIT };

struct node { struct node *next; uint64_t value; };

struct mutator {
  rgc_runtime *rt;
  const rgc_type *garbage, *node;
  atomic_int cmd;        /* enum cmd; the mutator sets it back to CMD_IDLE when done */
  atomic_uint arg;       /* SPIN/BGC_HOLD: ms; BUILD*: MB */
  atomic_int spinning;   /* SPIN: 1 once the mutator left native code */
  atomic_int go;         /* SPIN: set by main right before it induces the GC */
  atomic_int armed;      /* BGC_HOLD: 1 once the mutator polls safepoints */
  atomic_int old_gen;    /* BUILD_OLD: generation of the list's head afterwards */
};

struct spec { unsigned idx, val; };

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  while (nanosleep(&ts, &ts) != 0) {}
}

static void spin_ms(unsigned ms) {
  uint64_t until = now_ns() + (uint64_t)ms * 1000000ull;
  while (now_ns() < until) {}
}

/* Prepend mb MB of nodes to the list rooted at *head (a registered root). */
static void build_list(struct mutator *m, rgc_thread *t, struct node **head, unsigned mb) {
  uint64_t n = (uint64_t)mb * 1000000u / NODE_BYTES;
  for (uint64_t i = 0; i < n; i++) {
    struct node *x = rgc_alloc(t, m->node);
    if (!x) return;
    x->value = i;
    RGC_SET(x, next, *head);
    *head = x;
  }
}

static void *mutator_main(void *arg) {
  struct mutator *m = arg;
  rgc_thread *t = rgc_attach_thread(m->rt);
  if (!t) return NULL;
  struct node *live = NULL, *old = NULL;
  rgc_root(t, (void **)&live);
  rgc_root(t, (void **)&old);
  for (;;) {
    for (int i = 0; i < 64; i++) rgc_alloc(t, m->garbage);   /* a little garbage */
    /* Idle in native code: GCs do not wait for this thread. */
    rgc_enter_native(t);
    int c;
    while ((c = atomic_load(&m->cmd)) == CMD_IDLE) sleep_ms(1);
    rgc_leave_native(t);
    if (c == CMD_EXIT) break;
    unsigned a = atomic_load(&m->arg);
    switch (c) {
    case CMD_SPIN:
      atomic_store(&m->spinning, 1);
      while (!atomic_load(&m->go)) {}
      /* Cooperative and away from any safepoint: the GC's suspension waits. */
      spin_ms(a);
      rgc_safepoint(t);                        /* the GC runs here */
      atomic_store(&m->spinning, 0);
      atomic_store(&m->go, 0);
      break;
    case CMD_BUILD: build_list(m, t, &live, a); break;
    case CMD_BUILD_OLD: build_list(m, t, &old, a); break;
    case CMD_DROP: live = NULL; break;
    case CMD_BGC_HOLD: {
      uint64_t gen2_before = rgc_collection_count(m->rt, 2);
      /* Poll until the BGC's first pause (which parks us here) is over ... */
      atomic_store(&m->armed, 1);
      for (;;) {
        if (rgc_background_gc_in_progress(m->rt)) {
          /* ... then hold up its second suspension: sleeping, not spinning,
           * so the BGC thread gets a core for its concurrent mark on a busy
           * 2-core machine (it then starts the suspension we delay). */
          sleep_ms(a);
          rgc_safepoint(t);
          break;
        }
        if (rgc_collection_count(m->rt, 2) != gen2_before) break;   /* missed: the BGC is over */
        rgc_safepoint(t);
      }
      atomic_store(&m->armed, 0);
      break;
    }
    }
    if (c == CMD_BUILD_OLD) atomic_store(&m->old_gen, old ? rgc_generation_of(old) : -1);
    atomic_store(&m->cmd, CMD_IDLE);
  }
  rgc_detach_thread(t);
  return NULL;
}

/* Give the mutator a command and wait until it is done. */
static void command(struct mutator *m, int c, unsigned arg) {
  atomic_store(&m->arg, arg);
  atomic_store(&m->cmd, c);
  while (atomic_load(&m->cmd) != CMD_IDLE) sleep_ms(1);
}

static unsigned spec_of(const struct spec *s, int n, unsigned idx, int *found) {
  for (int k = 0; k < n; k++)
    if (s[k].idx == idx) { *found = 1; return s[k].val; }
  return 0;
}

static double ms_of(uint64_t ns) { return (double)ns / 1e6; }

/* One BGC whose final pause the mutator holds up hold ms. When the hold
 * missed the second suspension (its pause under a tenth of hold: the mutator
 * woke too late on a busy machine), the BGC is done again. Returns 0, or -1
 * if it never held. */
static int run_bgc(struct mutator *m, unsigned hold) {
  for (int attempt = 0; attempt < BGC_ATTEMPTS; attempt++) {
    if (hold) {
      atomic_store(&m->arg, hold);
      atomic_store(&m->cmd, CMD_BGC_HOLD);
      while (!atomic_load(&m->armed)) sleep_ms(1);
    }
    rgc_collect(m->rt, 2, RGC_COLLECT_NON_BLOCKING);
    rgc_wait_background_gc(m->rt);
    if (hold)
      while (atomic_load(&m->cmd) != CMD_IDLE) sleep_ms(1);
    struct rgc_memory_info mi;
    rgc_get_memory_info(m->rt, RGC_GC_KIND_BACKGROUND, &mi);
    double p2 = ms_of(mi.pause_durations_ns[1]);
    if (!hold || p2 >= hold / 10.0) {
      printf("rgc_long_suspend: BGC #%llu gen%d final pause held %u ms, pause2 %.1f ms\n",
             (unsigned long long)mi.index, mi.generation, hold, p2);
      fflush(stdout);
      return 0;
    }
    printf("rgc_long_suspend: BGC #%llu final pause not held up (%.1f ms), again\n",
           (unsigned long long)mi.index, p2);
    fflush(stdout);
  }
  return -1;
}

static int usage(void) {
  fprintf(stderr, "usage: rgc_long_suspend [--gcs N] [--interval-ms N] [--long-suspend I:MS]... "
                  "[--long-gc I:MB]... [--bgc I:MS]... [--old-mb N] [--after-capture FILE]\n");
  return 2;
}

static int parse_spec(const char *v, struct spec *s, int *n, int allow_zero) {
  char extra;
  if (*n == MAX_SPECS || sscanf(v, "%u:%u%c", &s[*n].idx, &s[*n].val, &extra) != 2 || !s[*n].idx ||
      (!allow_zero && !s[*n].val) || s[*n].val > 4000)
    return -1;
  (*n)++;
  return 0;
}

int main(int argc, char **argv) {
  unsigned ngcs = 6, interval = 10, old_mb = 0;
  struct spec susp[MAX_SPECS], lgc[MAX_SPECS], bgc[MAX_SPECS];
  int nsusp = 0, nlgc = 0, nbgc = 0, nlong = 0;
  const char *after_capture = NULL;
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) return usage();
    const char *a = argv[i], *v = argv[++i];
    int bad = 0;
    if (!strcmp(a, "--gcs")) ngcs = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--interval-ms")) interval = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--old-mb")) old_mb = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--long-suspend")) bad = parse_spec(v, susp, &nsusp, 0);
    else if (!strcmp(a, "--long-gc")) bad = parse_spec(v, lgc, &nlgc, 0);
    else if (!strcmp(a, "--bgc")) bad = parse_spec(v, bgc, &nbgc, 1);
    else if (!strcmp(a, "--after-capture")) after_capture = v;
    else bad = 1;
    if (bad || old_mb > 4000) return usage();
  }
  char err[256];
  struct rgc_config cfg;
  rgc_config_default(&cfg);
  if (rgc_config_from_env(&cfg, err, sizeof err) != 0) {
    fprintf(stderr, "rgc_long_suspend: %s\n", err);
    return 1;
  }
  /* A gen0 budget above every list built: only the induced GCs run. */
  unsigned big = old_mb;
  for (int k = 0; k < nlgc; k++)
    if (lgc[k].val > big) big = lgc[k].val;
  if (big) cfg.gen0_size = ((size_t)big + 16) * 1000000u;

  struct mutator m;
  memset(&m, 0, sizeof m);
  m.rt = rgc_create(&cfg, err, sizeof err);
  if (!m.rt) {
    fprintf(stderr, "rgc_long_suspend: %s\n", err);
    return 1;
  }
  m.garbage = rgc_register_type(m.rt, &(struct rgc_type_desc){ .name = "Garbage", .kind = RGC_KIND_OBJECT,
                                                                .size = 32 });
  static const uint32_t next_off[] = { 0 };
  m.node = rgc_register_type(m.rt, &(struct rgc_type_desc){ .name = "Node", .kind = RGC_KIND_OBJECT,
                                                             .size = sizeof(struct node),
                                                             .ref_offsets = next_off, .nrefs = 1 });
  pthread_t th;
  if (!m.garbage || !m.node || pthread_create(&th, NULL, mutator_main, &m) != 0) {
    fprintf(stderr, "rgc_long_suspend: cannot start the mutator\n");
    rgc_destroy(m.rt);
    return 1;
  }
  printf("rgc_long_suspend: ready %d\n", (int)getpid());
  fflush(stdout);
  int rc = 0;
  if (old_mb) {
    command(&m, CMD_BUILD_OLD, old_mb);
    /* gen0 -> gen1 -> gen2 */
    rgc_collect(m.rt, 1, RGC_COLLECT_FORCED);
    rgc_collect(m.rt, 1, RGC_COLLECT_FORCED);
    command(&m, CMD_BUILD_OLD, 0);            /* reports where the list is now */
    if (atomic_load(&m.old_gen) != 2) {
      fprintf(stderr, "rgc_long_suspend: the old list is in gen%d, not gen2\n", atomic_load(&m.old_gen));
      rc = 1;
      ngcs = 0;
    }
  }
  for (unsigned n = 1; n <= ngcs; n++) {
    int is_susp = 0, is_lgc = 0, is_bgc = 0;
    unsigned spin = spec_of(susp, nsusp, n, &is_susp);
    unsigned mb = spec_of(lgc, nlgc, n, &is_lgc);
    unsigned hold = spec_of(bgc, nbgc, n, &is_bgc);
    if (is_susp || is_lgc || is_bgc) wait_capture(after_capture, nlong++, "rgc_long_suspend");
    if (is_bgc) {
      if (run_bgc(&m, hold) != 0) {
        fprintf(stderr, "rgc_long_suspend: the BGC's final pause was never held up\n");
        rc = 1;
        break;
      }
      sleep_ms(interval);
      continue;
    }
    if (is_lgc) command(&m, CMD_BUILD, mb);
    if (is_susp) {
      atomic_store(&m.arg, spin);
      atomic_store(&m.cmd, CMD_SPIN);
      while (!atomic_load(&m.spinning)) sleep_ms(1);
      atomic_store(&m.go, 1);
    }
    rgc_collect(m.rt, 0, RGC_COLLECT_FORCED);
    struct rgc_memory_info mi;
    if (is_susp) {
      while (atomic_load(&m.cmd) != CMD_IDLE) sleep_ms(1);
      rgc_get_memory_info(m.rt, RGC_GC_KIND_ANY, &mi);
      printf("rgc_long_suspend: GC #%llu gen%d suspended %u ms\n", (unsigned long long)mi.index,
             mi.generation, spin);
      fflush(stdout);
    }
    if (is_lgc) {
      rgc_get_memory_info(m.rt, RGC_GC_KIND_ANY, &mi);
      printf("rgc_long_suspend: GC #%llu gen%d marked %u MB live, pause %.1f ms\n",
             (unsigned long long)mi.index, mi.generation, mb, ms_of(mi.pause_durations_ns[0]));
      fflush(stdout);
      command(&m, CMD_DROP, 0);
    }
    sleep_ms(interval);
  }
  atomic_store(&m.cmd, CMD_EXIT);
  pthread_join(th, NULL);
  rgc_destroy(m.rt);
  if (rc == 0) {
    printf("rgc_long_suspend: done\n");
    fflush(stdout);
  }
  return rc;
}
