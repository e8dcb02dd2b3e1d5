/* rgc-gcbench — GCBench (Ellis, Kovac, Boehm; parameters as published:
 * stretch tree depth 18, long-lived tree depth 16, an array of 500,000
 * doubles, trees of depth 4..16 in steps of 2, built top-down and bottom-up)
 * on librgc, on bdwgc and on malloc/free, each run a separate process
 * (forked: no heap, allocator cache or page faults carry over from one run
 * to the next), the three in a rotated order per round (ABC, BCA, CAB...).
 * Prints per collector the median over rounds of the time (and its range),
 * CPU time, GC count, max pause (and range), median pause and median gen0
 * pause; then each ratio as the median of the per-round ratios with their
 * range, and the same ratios one per line: the last two lines are
 * `time librgc/bdwgc R` and `median-pause librgc/bdwgc R`.
 *
 * A second baseline is CoreCLR's GC running the same GCBench in C#
 * (bench/runtime/gcbench-dotnet, built with `dotnet build -c Release` into
 * the build directory when the bench starts), twice per round: workstation
 * GC as .NET runs by default (concurrent) and workstation non-concurrent
 * (DOTNET_gcConcurrent=0), each `dotnet gcbench.dll` a process of its own
 * in the same rotation. The C# program times its own benchmark body (wall
 * and CPU, not the runtime's start-up) and reports CoreCLR's GC count and
 * total pause (GC.GetTotalPauseDuration); CoreCLR does not report each GC's
 * pause in-process, so pauses are compared as means (total / GC count).
 * Without the .NET SDK the CoreCLR rows are skipped, with a line saying so.
 *
 *   rgc-gcbench [--small] [--rounds N] [--no-dotnet]
 *                      (default 5 rounds; --small: depths /2)
 *   rgc-gcbench --only librgc|bdwgc|malloc [--small]
 *                      (one run in this process, for perf or callgrind)
 */
#include <gc.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_child.h"
#include "rgc.h"

static int kStretchTreeDepth = 18, kLongLivedTreeDepth = 16, kArraySize = 500000;
static int kMinTreeDepth = 4, kMaxTreeDepth = 16;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static int TreeSize(int i) { return (1 << (i + 1)) - 1; }
static int NumIters(int i) { return 2 * TreeSize(kStretchTreeDepth) / TreeSize(i); }

/* ---- pause bookkeeping ---- */
#define MAXP 100000
struct pauses { uint64_t ns[MAXP]; int gen[MAXP]; size_t n; };
static struct pauses P[2];
static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}
static double median_ms(const struct pauses *p, int gen_filter) {
  uint64_t *v = malloc(sizeof(uint64_t) * (p->n + 1));
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++) if (gen_filter < 0 || p->gen[i] == gen_filter) v[k++] = p->ns[i];
  double m = 0;
  if (k) { qsort(v, k, sizeof *v, cmp_u64); m = k % 2 ? (double)v[k / 2] : ((double)v[k / 2 - 1] + (double)v[k / 2]) / 2; }
  free(v);
  return m / 1e6;
}
static double max_ms(const struct pauses *p) {
  uint64_t m = 0;
  for (size_t i = 0; i < p->n; i++) if (p->ns[i] > m) m = p->ns[i];
  return (double)m / 1e6;
}

/* ---- the timed span: the benchmark body, not the collector's start-up or
 * tear-down (librgc's start-up loads the LTTng probe provider, whose
 * liblttng-ust registers with a session daemon if one runs: tens to hundreds
 * of ms on a loaded machine; the C# program's span likewise starts after the
 * runtime has started) ---- */
static uint64_t body_t0, body_t1;
static double body_c0, body_c1;
static double cpu_ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
static void body_begin(void) { body_c0 = cpu_ms_now(); body_t0 = now_ns(); }
static void body_end(void) { body_t1 = now_ns(); body_c1 = cpu_ms_now(); }

/* ---- librgc ---- */
struct RNode { struct RNode *left, *right; int i, j; };
static const uint32_t rnode_refs[] = {0, 8};
static const rgc_type *rnode_t, *rdbl_t;
static rgc_thread *T;

static void rgc_on_gc(void *ctx, const struct rgc_memory_info *gc) {
  (void)ctx;
  if (P[0].n < MAXP) { P[0].ns[P[0].n] = gc->pause_durations_ns[0]; P[0].gen[P[0].n++] = gc->generation; }
}

static void rPopulate(int depth, struct RNode *node) {
  if (depth <= 0) return;
  size_t m = rgc_root_mark(T);
  rgc_root(T, (void **)&node);
  struct RNode *l = rgc_alloc(T, rnode_t);
  RGC_SET(node, left, l);
  struct RNode *r = rgc_alloc(T, rnode_t);
  RGC_SET(node, right, r);
  rPopulate(depth - 1, node->left);
  rPopulate(depth - 1, node->right);
  rgc_root_release(T, m);
}
static struct RNode *rMakeTree(int depth) {
  if (depth <= 0) return rgc_alloc(T, rnode_t);
  size_t m = rgc_root_mark(T);
  struct RNode *l = rMakeTree(depth - 1);
  rgc_root(T, (void **)&l);
  struct RNode *r = rMakeTree(depth - 1);
  rgc_root(T, (void **)&r);
  struct RNode *n = rgc_alloc(T, rnode_t);
  RGC_SET(n, left, l);
  RGC_SET(n, right, r);
  rgc_root_release(T, m);
  return n;
}

static void run_rgc(void) {
  struct rgc_config c;
  rgc_config_default(&c);
  char err[200];
  if (rgc_config_from_env(&c, err, sizeof err)) { fprintf(stderr, "rgc-gcbench: %s\n", err); exit(1); }
  rgc_runtime *rt = rgc_create(&c, err, sizeof err);
  if (!rt) { fprintf(stderr, "rgc-gcbench: %s\n", err); exit(1); }
  rnode_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Node", .kind = RGC_KIND_OBJECT,
    .size = sizeof(struct RNode), .ref_offsets = rnode_refs, .nrefs = 2});
  rdbl_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "double[]", .kind = RGC_KIND_VALUE_ARRAY, .elem_size = 8});
  rgc_set_gc_callback(rt, rgc_on_gc, NULL);
  T = rgc_attach_thread(rt);
  body_begin();
  struct RNode *tmp = rMakeTree(kStretchTreeDepth);
  tmp = NULL;
  struct RNode *longLived = rgc_alloc(T, rnode_t);
  rgc_root(T, (void **)&longLived);
  rPopulate(kLongLivedTreeDepth, longLived);
  double *array = rgc_alloc_array(T, rdbl_t, (size_t)kArraySize);
  rgc_root(T, (void **)&array);
  for (int i = 0; i < kArraySize / 2; i++) ((double *)rgc_array_data(array))[i] = 1.0 / i;
  for (int d = kMinTreeDepth; d <= kMaxTreeDepth; d += 2) {
    int iters = NumIters(d);
    for (int i = 0; i < iters; i++) {
      tmp = rgc_alloc(T, rnode_t);
      rgc_root(T, (void **)&tmp);
      rPopulate(d, tmp);
      rgc_root_release(T, rgc_root_mark(T) - 1);
      tmp = rMakeTree(d);
    }
  }
  body_end();
  if (!longLived || ((double *)rgc_array_data(array))[1000] != 1.0 / 1000) fprintf(stderr, "rgc-gcbench: check failed\n");
  rgc_detach_thread(T);
  rgc_destroy(rt);
}

/* ---- bdwgc ---- */
struct BNode { struct BNode *left, *right; int i, j; };
static uint64_t bdw_stop_t;
static void bdw_event(GC_EventType e) {
  if (e == GC_EVENT_PRE_STOP_WORLD) bdw_stop_t = now_ns();
  else if (e == GC_EVENT_POST_START_WORLD && P[1].n < MAXP) { P[1].ns[P[1].n] = now_ns() - bdw_stop_t; P[1].gen[P[1].n++] = 2; }
}
static void bPopulate(int depth, struct BNode *node) {
  if (depth <= 0) return;
  node->left = GC_MALLOC(sizeof(struct BNode));
  node->right = GC_MALLOC(sizeof(struct BNode));
  bPopulate(depth - 1, node->left);
  bPopulate(depth - 1, node->right);
}
static struct BNode *bMakeTree(int depth) {
  struct BNode *n = GC_MALLOC(sizeof(struct BNode));
  if (depth > 0) { n->left = bMakeTree(depth - 1); n->right = bMakeTree(depth - 1); }
  return n;
}
static size_t run_bdw(void) {
  GC_INIT();
  GC_set_on_collection_event(bdw_event);
  size_t gc0 = GC_get_gc_no();
  body_begin();
  struct BNode *tmp = bMakeTree(kStretchTreeDepth);
  tmp = NULL;
  struct BNode *longLived = GC_MALLOC(sizeof(struct BNode));
  bPopulate(kLongLivedTreeDepth, longLived);
  double *array = GC_MALLOC_ATOMIC(sizeof(double) * (size_t)kArraySize);
  for (int i = 0; i < kArraySize / 2; i++) array[i] = 1.0 / i;
  for (int d = kMinTreeDepth; d <= kMaxTreeDepth; d += 2) {
    int iters = NumIters(d);
    for (int i = 0; i < iters; i++) {
      tmp = GC_MALLOC(sizeof(struct BNode));
      bPopulate(d, tmp);
      tmp = bMakeTree(d);
    }
  }
  body_end();
  if (!longLived || array[1000] != 1.0 / 1000) fprintf(stderr, "rgc-gcbench: check failed\n");
  return GC_get_gc_no() - gc0;
}

/* ---- malloc/free ---- */
struct MNode { struct MNode *left, *right; int i, j; };
static void mFree(struct MNode *n) { if (n) { mFree(n->left); mFree(n->right); free(n); } }
static void mPopulate(int depth, struct MNode *node) {
  if (depth <= 0) return;
  node->left = calloc(1, sizeof(struct MNode));
  node->right = calloc(1, sizeof(struct MNode));
  mPopulate(depth - 1, node->left);
  mPopulate(depth - 1, node->right);
}
static struct MNode *mMakeTree(int depth) {
  struct MNode *n = calloc(1, sizeof(struct MNode));
  if (depth > 0) { n->left = mMakeTree(depth - 1); n->right = mMakeTree(depth - 1); }
  return n;
}
static void run_malloc(void) {
  body_begin();
  mFree(mMakeTree(kStretchTreeDepth));
  struct MNode *longLived = calloc(1, sizeof(struct MNode));
  mPopulate(kLongLivedTreeDepth, longLived);
  double *array = malloc(sizeof(double) * (size_t)kArraySize);
  for (int i = 0; i < kArraySize / 2; i++) array[i] = 1.0 / i;
  for (int d = kMinTreeDepth; d <= kMaxTreeDepth; d += 2) {
    int iters = NumIters(d);
    for (int i = 0; i < iters; i++) {
      struct MNode *t = calloc(1, sizeof(struct MNode));
      mPopulate(d, t);
      mFree(t);
      mFree(mMakeTree(d));
    }
  }
  int ok = array[1000] == 1.0 / 1000;
  mFree(longLived);
  free(array);
  body_end();
  if (!ok) fprintf(stderr, "rgc-gcbench: check failed\n");
}

/* ---- one collector per process ---- */
enum { C_RGC, C_BDW, C_MALLOC, C_CLR, C_CLR_NC, NCOLL };
static const char *const cname[NCOLL] = {"librgc", "bdwgc", "malloc/free", "CoreCLR", "CoreCLR-nc"};
/* mean_ms: total pause / GC count. CoreCLR: max_ms is the longest pause
 * seen by sampling GC.GetGCMemoryInfo after each depth (a lower bound), and
 * med_ms / med0_ms are not known (0). */
struct result { double ms, cpu_ms, max_ms, med_ms, med0_ms, mean_ms; size_t gcs; };
static int small_run;

static struct result run_one(int c) {
  struct result r = {0};
  if (c == C_RGC) run_rgc();
  else if (c == C_BDW) r.gcs = run_bdw();
  else run_malloc();
  r.ms = (double)(body_t1 - body_t0) / 1e6;
  r.cpu_ms = body_c1 - body_c0;
  if (c != C_MALLOC) {
    const struct pauses *p = &P[c == C_RGC ? 0 : 1];
    if (c == C_RGC) r.gcs = p->n;
    r.max_ms = max_ms(p);
    r.med_ms = median_ms(p, -1);
    r.med0_ms = c == C_RGC ? median_ms(p, 0) : 0;
    double total = 0;
    for (size_t i = 0; i < p->n; i++) total += (double)p->ns[i] / 1e6;
    r.mean_ms = p->n ? total / (double)p->n : 0;
  }
  return r;
}

/* ---- CoreCLR: the C# GCBench, a `dotnet` process per run ---- */
#ifndef GCBENCH_DOTNET_SRC
#define GCBENCH_DOTNET_SRC ""
#define GCBENCH_DOTNET_OUT ""
#define GCBENCH_DOTNET_BUILD ""
#endif
#define DOTNET_DLL GCBENCH_DOTNET_OUT "/bin/gcbench.dll"

/* Build the C# program: 0 built, 77 no SDK (skip), else failed. */
static int build_dotnet(void) {
  if (!*GCBENCH_DOTNET_BUILD) return 77;
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    dup2(2, 1);  /* the build's messages go to stderr, the bench's results stay on stdout */
    execl("/bin/sh", "sh", GCBENCH_DOTNET_BUILD, GCBENCH_DOTNET_SRC, GCBENCH_DOTNET_OUT, "gcbench", (char *)NULL);
    _exit(127);
  }
  int st;
  if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return 1;
  return WEXITSTATUS(st);
}

/* One run of the C# GCBench under CoreCLR's workstation GC, concurrent or
 * not; exits 1 with a message if it fails or prints no result line. */
static struct result run_dotnet(int c) {
  int fd[2];
  if (pipe(fd)) { fprintf(stderr, "rgc-gcbench: pipe failed\n"); exit(1); }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) { fprintf(stderr, "rgc-gcbench: fork failed\n"); exit(1); }
  if (pid == 0) {
    close(fd[0]);
    dup2(fd[1], 1);
    close(fd[1]);
    setenv("DOTNET_gcServer", "0", 1);
    setenv("DOTNET_gcConcurrent", c == C_CLR_NC ? "0" : "1", 1);
    setenv("DOTNET_CLI_TELEMETRY_OPTOUT", "1", 1);
    execlp("dotnet", "dotnet", DOTNET_DLL, small_run ? "--small" : (char *)NULL, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  char buf[1024];
  size_t n = 0;
  for (ssize_t k; n < sizeof buf - 1 && ((k = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0 || (k < 0 && errno == EINTR));)
    if (k > 0) n += (size_t)k;
  buf[n] = 0;
  close(fd[0]);
  int st;
  waitpid(pid, &st, 0);
  struct result r = {0};
  unsigned gcs = 0, g0, g1, g2, server, conc;
  double pause_ms;
  const char *line = strstr(buf, "gcbench-dotnet ");
  if (!WIFEXITED(st) || WEXITSTATUS(st) || !line ||
      sscanf(line, "gcbench-dotnet ms=%lf cpu_ms=%lf gcs=%u gen0=%u gen1=%u gen2=%u pause_ms=%lf max_pause_ms=%lf "
             "server=%u concurrent=%u", &r.ms, &r.cpu_ms, &gcs, &g0, &g1, &g2, &pause_ms, &r.max_ms, &server,
             &conc) != 10) {
    fprintf(stderr, "rgc-gcbench: the %s run (dotnet %s) failed\n", cname[c], DOTNET_DLL);
    exit(1);
  }
  if (server || conc != (c == C_CLR)) {
    fprintf(stderr, "rgc-gcbench: the %s run did not get the GC asked for (server %u, concurrent %u)\n", cname[c],
            server, conc);
    exit(1);
  }
  r.gcs = gcs;
  r.mean_ms = gcs ? pause_ms / gcs : 0;
  return r;
}

/* Run collector c in a child process (nothing of one run carries over to the
 * next: heap, caches of the allocator, page faults already taken). */
static void run_one_into(int c, void *out) { *(struct result *)out = run_one(c); }
static struct result run_child(int c) {
  if (c == C_CLR || c == C_CLR_NC) return run_dotnet(c);
  struct result r;
  char what[48];
  snprintf(what, sizeof what, "the %s run", cname[c]);
  bench_run_child("rgc-gcbench", what, run_one_into, c, &r, sizeof r);
  return r;
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
/* Median, minimum and maximum of v[0..n) (sorted in place). */
static double med3(double *v, int n, double *lo, double *hi) {
  qsort(v, (size_t)n, sizeof *v, cmp_dbl);
  *lo = v[0];
  *hi = v[n - 1];
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MAXROUNDS 64

int main(int argc, char **argv) {
  int rounds = 5, only = -1, dotnet = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--small")) {
      kStretchTreeDepth = 12; kLongLivedTreeDepth = 10; kArraySize = 50000; kMaxTreeDepth = 10;
      small_run = 1;
    } else if (!strcmp(argv[i], "--no-dotnet")) {
      dotnet = 0;
    } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
      rounds = atoi(argv[++i]);
      if (rounds > MAXROUNDS) rounds = MAXROUNDS;
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      const char *w = argv[++i];
      only = !strcmp(w, "librgc") ? C_RGC : !strcmp(w, "bdwgc") ? C_BDW : !strcmp(w, "malloc") ? C_MALLOC : -2;
      if (only == -2) { fprintf(stderr, "rgc-gcbench: --only librgc|bdwgc|malloc\n"); return 2; }
    } else {
      fprintf(stderr, "usage: rgc-gcbench [--small] [--rounds N] [--no-dotnet] [--only librgc|bdwgc|malloc]\n");
      return 2;
    }
  }
  printf("GCBench: stretch depth %d, long-lived depth %d, array %d doubles, depths %d..%d\n",
         kStretchTreeDepth, kLongLivedTreeDepth, kArraySize, kMinTreeDepth, kMaxTreeDepth);
  if (only >= 0) {  /* one run in this process (for profilers) */
    struct result r = run_one(only);
    printf("%s: %.1f ms (cpu %.1f ms), %zu GCs, max pause %.3f ms, median %.3f ms, median gen0 %.3f ms\n",
           cname[only], r.ms, r.cpu_ms, r.gcs, r.max_ms, r.med_ms, r.med0_ms);
    return 0;
  }
  int ncoll = C_MALLOC + 1;
  if (dotnet) {
    int b = build_dotnet();
    if (b == 0) ncoll = NCOLL;
    else if (b == 77) printf("CoreCLR: skipped: the .NET SDK (dotnet) is not installed\n");
    else { fprintf(stderr, "rgc-gcbench: building the C# GCBench (%s) failed\n", GCBENCH_DOTNET_SRC); return 1; }
  } else {
    printf("CoreCLR: skipped (--no-dotnet)\n");
  }
  printf("%d rounds; each run a separate process, the %d in a rotated order per round\n", rounds, ncoll);
  static struct result R[MAXROUNDS][NCOLL];
  for (int k = 0; k < rounds; k++)
    for (int j = 0; j < ncoll; j++) {
      int c = (k + j) % ncoll;
      R[k][c] = run_child(c);
    }
  /* per collector: medians over rounds (min-max) */
  double v[MAXROUNDS], lo, hi;
  printf("%-11s %21s %7s %5s %21s %7s %7s %7s\n", "collector", "time ms (min-max)", "cpu ms", "GCs",
         "max pause ms (range)", "median", "gen0", "mean");
  for (int c = 0; c < ncoll; c++) {
    double t, tl, th, cpu, gcs, mp = 0, mpl = 0, mph = 0, md = 0, md0 = 0, mean = 0;
    for (int k = 0; k < rounds; k++) v[k] = R[k][c].ms;
    t = med3(v, rounds, &tl, &th);
    for (int k = 0; k < rounds; k++) v[k] = R[k][c].cpu_ms;
    cpu = med3(v, rounds, &lo, &hi);
    for (int k = 0; k < rounds; k++) v[k] = (double)R[k][c].gcs;
    gcs = med3(v, rounds, &lo, &hi);
    if (c != C_MALLOC) {
      for (int k = 0; k < rounds; k++) v[k] = R[k][c].max_ms;
      mp = med3(v, rounds, &mpl, &mph);
      for (int k = 0; k < rounds; k++) v[k] = R[k][c].med_ms;
      md = med3(v, rounds, &lo, &hi);
      for (int k = 0; k < rounds; k++) v[k] = R[k][c].med0_ms;
      md0 = med3(v, rounds, &lo, &hi);
      for (int k = 0; k < rounds; k++) v[k] = R[k][c].mean_ms;
      mean = med3(v, rounds, &lo, &hi);
      char mds[16] = "-", md0s[16] = "-";
      if (c == C_RGC || c == C_BDW) snprintf(mds, sizeof mds, "%.3f", md);
      if (c == C_RGC) snprintf(md0s, sizeof md0s, "%.3f", md0);
      printf("%-11s %7.1f (%5.1f-%5.1f) %7.1f %5.0f %6.2f%s(%5.2f-%5.2f) %7s %7s %7.3f\n", cname[c], t, tl, th, cpu,
             gcs, mp, c >= C_CLR ? ">" : " ", mpl, mph, mds, md0s, mean);
    } else {
      printf("%-11s %7.1f (%5.1f-%5.1f) %7.1f %5s %21s %7s %7s %7s\n", cname[c], t, tl, th, cpu, "-", "-", "-", "-",
             "-");
    }
  }
  printf("(pauses in ms: median of the runs' max, median, median gen0 and mean\n"
         " (total/GCs) pause; CoreCLR's max is the largest of the GCs sampled after\n"
         " each depth, a lower bound ('>'), and its median is unknown)\n");
  /* ratios: median of the per-round ratios, with their range */
  enum { F_MS, F_CPU, F_MAX, F_MED, F_MED0, F_MEAN };
  static const struct { const char *name; int a, b, fa, fb; } ratios[] = {
    {"time librgc/CoreCLR", C_RGC, C_CLR, F_MS, F_MS},
    {"cpu librgc/CoreCLR", C_RGC, C_CLR, F_CPU, F_CPU},
    {"mean-pause librgc/CoreCLR", C_RGC, C_CLR, F_MEAN, F_MEAN},
    {"time librgc/CoreCLR-nc", C_RGC, C_CLR_NC, F_MS, F_MS},
    {"cpu librgc/CoreCLR-nc", C_RGC, C_CLR_NC, F_CPU, F_CPU},
    {"mean-pause librgc/CoreCLR-nc", C_RGC, C_CLR_NC, F_MEAN, F_MEAN},
    {"time librgc/malloc", C_RGC, C_MALLOC, F_MS, F_MS},
    {"cpu librgc/bdwgc", C_RGC, C_BDW, F_CPU, F_CPU},
    {"max-pause librgc/bdwgc", C_RGC, C_BDW, F_MAX, F_MAX},
    {"median-gen0-pause librgc/bdwgc", C_RGC, C_BDW, F_MED0, F_MED},
    {"time librgc/bdwgc", C_RGC, C_BDW, F_MS, F_MS},
    {"median-pause librgc/bdwgc", C_RGC, C_BDW, F_MED, F_MED},
  };
  const size_t nratios = sizeof ratios / sizeof *ratios;
  double rm[sizeof ratios / sizeof *ratios], rl[sizeof ratios / sizeof *ratios], rh[sizeof ratios / sizeof *ratios];
  for (size_t i = 0; i < nratios; i++) {
    int n = 0;
    if (ratios[i].b >= ncoll) { rm[i] = rl[i] = rh[i] = -1; continue; }  /* not run */
    for (int k = 0; k < rounds; k++) {
      const struct result *ra = &R[k][ratios[i].a], *rb = &R[k][ratios[i].b];
      const double fa[] = {ra->ms, ra->cpu_ms, ra->max_ms, ra->med_ms, ra->med0_ms, ra->mean_ms};
      const double fb[] = {rb->ms, rb->cpu_ms, rb->max_ms, rb->med_ms, rb->med0_ms, rb->mean_ms};
      if (fb[ratios[i].fb] > 0) v[n++] = fa[ratios[i].fa] / fb[ratios[i].fb];
    }
    rm[i] = n ? med3(v, n, &rl[i], &rh[i]) : 0;
    if (!n) rl[i] = rh[i] = 0;
  }
  printf("ratios (median of the per-round ratios, min-max):\n");
  for (size_t i = 0; i < nratios; i++)
    if (rm[i] >= 0) printf("  %-31s %.3f (%.3f-%.3f)\n", ratios[i].name, rm[i], rl[i], rh[i]);
    else printf("  %-31s skipped\n", ratios[i].name);
  if (ncoll == NCOLL)
    printf("time librgc/CoreCLR %.3f\ncpu librgc/CoreCLR %.3f\n", rm[0], rm[1]);
  /* the last two lines, read by scripts */
  printf("time librgc/bdwgc %.3f\n", rm[nratios - 2]);
  printf("median-pause librgc/bdwgc %.3f\n", rm[nratios - 1]);
  return 0;
}
