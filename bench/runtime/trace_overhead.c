/* rgc-trace-overhead — what recording costs the recorded program (issue 13).
 *
 * Every run is a separate process: nothing (heap state, warm-up) carries
 * over from one configuration to the next. Four configurations: "none" (no
 * session), "gc" (`gcscope record --profile gc -- CMD`, as users record),
 * "alloc" (`--profile alloc`: + GCAllocationTick) and "stacks" (`--profile
 * alloc --stacks`: librgc runs with RGC_Stacks=1 and walks the allocating
 * thread's stack for every AllocationTick; issue 23). Each round runs the
 * four once, in a rotated order (ABCD, BCDA, CDAB, ...), so no configuration
 * always runs first or after the same neighbour. The workload times itself (wall and
 * CPU) and counts its GCs: gcscope's session set-up and tear-down are not
 * counted.
 *
 * Three workloads:
 *   gcbench      GCBench as published (stretch depth 18, long-lived depth 16,
 *                500,000 doubles, depths 4..16 step 2, top-down and
 *                bottom-up), four times per run (~1 s): GCBench's own GC
 *                rate (~500 GCs/s here).
 *   trees        GCBench-style bottom-up trees of depth 4..12 beside a
 *                depth-14 long-lived tree: ~1,000 GCs/s.
 *   alloc-heavy  gcsim --scenario alloc-heavy --threads 1 with small objects
 *                (16..160-byte payloads): ~900 GCs/s and ~5.8 GB/s allocated,
 *                so ~57,000 AllocationTick events/s.
 *
 * Outside the program's CPU time, per configuration: the LTTng daemons' CPU
 * (lttng-sessiond, lttng-consumerd: every thread's schedstat) during the
 * workload's timed run and over the whole command (gcscope record's session
 * set-up and tear-down included), and the machine's busy CPU during the run
 * (/proc/stat, all cores, other users' work too). The librgc workloads also
 * report their parent's CPU during the run (gcscope record, or the driver's
 * shell), their context switches and minor page faults, and how much work their GCs did (MB
 * promoted: background GCs make it vary with timing, traced or not).
 *
 * Where the time goes (issue 13, measured on 2 cores): callgrind counts the
 * same GCBench run with RGC_gcConcurrent=0 (GC work identical run to run:
 * 606 GCs under valgrind) at 11,009.9 M instructions untraced and 11,028.4 M
 * traced with --profile gc: +30 k per GC, 0.17 %, of which liblttng-ust
 * 12.9 M, librgc-tp 1.4 M, libc 1.8 M, ld.so 1.2 M (TLS), librgc 0.6 M. The
 * daemons use ~0.1 ms of CPU during a 0.7 s run (14-17 ms per recording,
 * outside it). What did cost the program was gcscope record itself: its loop
 * woke every millisecond, 10-20 ms of CPU per run on the same 2 cores and 5x
 * the program's involuntary context switches; it now sleeps until the
 * command exits when nothing needs the millisecond (tracer/lttng/trc_lttng_rec.c).
 *
 * Per workload and configuration it prints the medians over rounds; per
 * traced configuration the median of the per-round ratios to "none" (wall and
 * CPU) with the interquartile range and the extremes, the ratio of the
 * fastest runs' CPU times (the runs other users' load slowed least), and the CPU time tracing
 * adds per GC (median of the per-round differences over the GC count: a figure
 * that does not depend on the GC rate). Rounds are noisy on a shared
 * machine, so the untraced runs' own spread (the interquartile range of the
 * ratios of consecutive untraced runs) is printed too, and a ratio below 1
 * says it lies within that spread.
 *
 *   rgc-trace-overhead [--rounds N] [--small] [--perf] [--only NAME]
 *   rgc-trace-overhead --workload gcbench|trees [--small]   (one run, as measured)
 * Needs gcscope and gcsim beside it and LTTng (gcscope record starts a
 * session daemon if none runs). The last two lines are
 * `tracing overhead alloc --stacks R` and `tracing overhead gc R alloc R`
 * (the alloc-heavy workload's wall medians). */
#include <dirent.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "rgc.h"

static int small;

/* ---- the librgc workloads (--workload) ---- */

struct Node { struct Node *left, *right; int64_t v; };
static const uint32_t refs[] = {0, 8};
static const rgc_type *node_t, *dbl_t;
static rgc_thread *T;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double cpu_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time (s) used so far by the LTTng daemons (every lttng-sessiond,
 * lttng-consumerd and lttng-runas thread, from /proc/PID/task/TID/schedstat):
 * outside the recorded program but on the same cores. On a shared machine
 * other users' sessions count too, in traced and untraced runs alike. */
static double task_cpu_s(const char *pid) {
  char path[300];
  snprintf(path, sizeof path, "/proc/%s/task", pid);
  DIR *td = opendir(path);
  if (!td) return 0;
  unsigned long long ns = 0;
  struct dirent *te;
  while ((te = readdir(td))) {
    if (te->d_name[0] == '.') continue;
    char tp[600];
    snprintf(tp, sizeof tp, "%s/%s/schedstat", path, te->d_name);
    unsigned long long run;
    FILE *f = fopen(tp, "r");
    if (f) {
      if (fscanf(f, "%llu", &run) == 1) ns += run;
      fclose(f);
    }
  }
  closedir(td);
  return (double)ns / 1e9;
}

static double lttng_daemons_cpu_s(void) {
  DIR *d = opendir("/proc");
  if (!d) return 0;
  double s = 0;
  struct dirent *de;
  char path[300], buf[64];
  while ((de = readdir(d))) {
    if (de->d_name[0] < '1' || de->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%s/comm", de->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    int ours = fgets(buf, sizeof buf, f) && !strncmp(buf, "lttng-", 6);
    fclose(f);
    if (ours) s += task_cpu_s(de->d_name);
  }
  closedir(d);
  return s;
}

/* Busy CPU time (s) of the whole machine so far, all cores (/proc/stat). */
static double system_busy_s(void) {
  FILE *f = fopen("/proc/stat", "r");
  if (!f) return 0;
  unsigned long long v[8] = {0};
  int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                 &v[6], &v[7]);
  fclose(f);
  if (n < 8) return 0;
  /* user nice system idle iowait irq softirq steal: all but idle and iowait */
  return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)sysconf(_SC_CLK_TCK);
}

/* Bottom-up: children first, then the node that holds them. */
static struct Node *make_tree(int depth) {
  if (depth <= 0) return rgc_alloc(T, node_t);
  size_t m = rgc_root_mark(T);
  struct Node *l = make_tree(depth - 1);
  rgc_root(T, (void **)&l);
  struct Node *r = make_tree(depth - 1);
  rgc_root(T, (void **)&r);
  struct Node *n = rgc_alloc(T, node_t);
  RGC_SET(n, left, l);
  RGC_SET(n, right, r);
  rgc_root_release(T, m);
  return n;
}

/* Top-down: the node exists first and its children are stored into it. */
static void fill_tree(int depth, struct Node *n) {
  if (depth <= 0) return;
  size_t m = rgc_root_mark(T);
  rgc_root(T, (void **)&n);
  struct Node *c = rgc_alloc(T, node_t);
  RGC_SET(n, left, c);
  c = rgc_alloc(T, node_t);
  RGC_SET(n, right, c);
  fill_tree(depth - 1, n->left);
  fill_tree(depth - 1, n->right);
  rgc_root_release(T, m);
}

static void trees(void) {
  int scale = small ? 1 : 640;
  struct Node *keep = make_tree(14);          /* long-lived */
  size_t m = rgc_root_mark(T);
  rgc_root(T, (void **)&keep);
  for (int d = 4; d <= 12; d += 2)
    for (int i = 0, n = (scale << 14) >> d; i < n; i++) make_tree(d);
  rgc_root_release(T, m);
}

static int nodes_in(int depth) { return (1 << (depth + 1)) - 1; }

/* GCBench's published shape; --small halves the depths. */
static void gcbench(void) {
  int stretch = small ? 9 : 18, lived = small ? 8 : 16, maxd = small ? 8 : 16, arrlen = small ? 1000 : 500000;
  make_tree(stretch);                          /* the stretch tree, dropped at once */
  size_t m = rgc_root_mark(T);
  struct Node *keep = rgc_alloc(T, node_t);
  rgc_root(T, (void **)&keep);
  fill_tree(lived, keep);
  double *arr = rgc_alloc_array(T, dbl_t, (size_t)arrlen);
  rgc_root(T, (void **)&arr);
  for (int i = 1; i < arrlen / 2; i++) ((double *)rgc_array_data(arr))[i] = 1.0 / i;
  for (int d = 4; d <= maxd; d += 2)
    for (int i = 0, n = 2 * nodes_in(stretch) / nodes_in(d); i < n; i++) {
      struct Node *t = rgc_alloc(T, node_t);
      size_t k = rgc_root_mark(T);
      rgc_root(T, (void **)&t);
      fill_tree(d, t);
      rgc_root_release(T, k);
      make_tree(d);
    }
  rgc_root_release(T, m);
}

/* What the GCs did (a GC's work depends on the heap it finds; with background
 * GCs that depends on timing): called on the GC or background GC thread. */
static _Atomic uint64_t gc_promoted, gc_pause_ns, gc_compacted, gc_background;
static void on_gc(void *ctx, const struct rgc_memory_info *gc) {
  (void)ctx;
  atomic_fetch_add(&gc_promoted, gc->promoted_bytes);
  atomic_fetch_add(&gc_pause_ns, gc->pause_durations_ns[0] + gc->pause_durations_ns[1]);
  if (gc->compacted) atomic_fetch_add(&gc_compacted, 1);
  if (gc->concurrent) atomic_fetch_add(&gc_background, 1);
}

/* --workload NAME: one run, its own times on stdout (gcsim's key names). */
static int run_workload(const char *name) {
  void (*fn)(void) = !strcmp(name, "trees") ? trees : !strcmp(name, "gcbench") ? gcbench : NULL;
  if (!fn) { fprintf(stderr, "rgc-trace-overhead: unknown workload '%s' (gcbench, trees)\n", name); return 2; }
  char err[200];
  rgc_runtime *rt = rgc_create(NULL, err, sizeof err);
  if (!rt) { fprintf(stderr, "rgc-trace-overhead: %s\n", err); return 1; }
  node_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Node", .kind = RGC_KIND_OBJECT,
    .size = sizeof(struct Node), .ref_offsets = refs, .nrefs = 2});
  dbl_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "double[]", .kind = RGC_KIND_VALUE_ARRAY,
    .elem_size = 8});
  rgc_set_gc_callback(rt, on_gc, NULL);
  T = rgc_attach_thread(rt);
  char ppid[24];
  snprintf(ppid, sizeof ppid, "%d", (int)getppid());   /* gcscope record, or the driver's shell */
  struct rusage u0, u1;
  getrusage(RUSAGE_SELF, &u0);
  double d0 = lttng_daemons_cpu_s(), s0 = system_busy_s(), p0 = task_cpu_s(ppid);
  double c0 = cpu_now_s();
  uint64_t t0 = now_ns();
  for (int rep = 0; rep < (fn == gcbench ? 4 : 1); rep++) fn();
  uint64_t ns = now_ns() - t0;
  double cpu = cpu_now_s() - c0;
  double daemons = lttng_daemons_cpu_s() - d0, sys = system_busy_s() - s0, parent = task_cpu_s(ppid) - p0;
  getrusage(RUSAGE_SELF, &u1);
  printf("lttng_daemons_cpu_seconds=%.6f\nparent_cpu_seconds=%.6f\nsystem_busy_cpu_seconds=%.2f\n"
         "voluntary_switches=%ld\ninvoluntary_switches=%ld\nminor_faults=%ld\n", daemons, parent, sys,
         u1.ru_nvcsw - u0.ru_nvcsw, u1.ru_nivcsw - u0.ru_nivcsw, u1.ru_minflt - u0.ru_minflt);
  printf("seconds_taken=%.6f\ncpu_seconds_taken=%.6f\ngc_count=%llu\ngen1_count=%llu\ngen2_count=%llu\n",
         (double)ns / 1e9, cpu, (unsigned long long)rgc_collection_count(rt, 0),
         (unsigned long long)rgc_collection_count(rt, 1), (unsigned long long)rgc_collection_count(rt, 2));
  printf("gc_promoted_mb=%.1f\ngc_pause_ms=%.1f\ngc_compacting=%llu\ngc_background=%llu\n",
         (double)atomic_load(&gc_promoted) / 1e6, (double)atomic_load(&gc_pause_ns) / 1e6,
         (unsigned long long)atomic_load(&gc_compacted), (unsigned long long)atomic_load(&gc_background));
  rgc_detach_thread(T);
  rgc_destroy(rt);
  return 0;
}

/* ---- the driver ---- */

enum { C_NONE, C_GC, C_ALLOC, C_STACKS, NCONF };
static const char *const conf_name[NCONF] = { "none", "gc", "alloc", "stacks" };
/* gcscope record's flags per traced configuration */
static const char *const conf_flags[NCONF] = { "", "--profile gc", "--profile alloc", "--profile alloc --stacks" };
#define MAXR 50

/* daemons: the LTTng daemons' CPU during the workload's timed run (librgc
 * workloads only, -1 otherwise); daemons_all: theirs over the whole command
 * (gcscope record's session set-up and tear-down included); busy: the whole
 * machine's busy CPU during the timed run (-1 when not reported); promoted:
 * the GCs' promoted MB (how much work they did); parent: the workload's
 * parent's CPU during the run (gcscope record, or the shell). */
struct result { double wall, cpu, gcs, bytes, daemons, daemons_all, busy, promoted, parent; };

/* Run CMD (a shell command line) under configuration c; parse the
 * workload's key=value lines. */
static int run_one(const char *dir, const char *cmd, int c, const char *tmp, struct result *r) {
  char line[12000];
  if (c == C_NONE) snprintf(line, sizeof line, "%s 2>/dev/null", cmd);
  else
    snprintf(line, sizeof line, "rm -rf '%s/rec' && '%s/gcscope' record -o '%s/rec' %s -- %s 2>/dev/null; "
             "rm -rf '%s/rec'", tmp, dir, tmp, conf_flags[c], cmd, tmp);
  FILE *p = popen(line, "r");
  if (!p) return -1;
  memset(r, 0, sizeof *r);
  r->daemons = r->busy = r->promoted = r->parent = -1;
  double d0 = lttng_daemons_cpu_s();
  int seen = 0;
  char buf[512];
  while (fgets(buf, sizeof buf, p)) {
    if (sscanf(buf, "seconds_taken=%lf", &r->wall) == 1) seen |= 1;
    else if (sscanf(buf, "cpu_seconds_taken=%lf", &r->cpu) == 1) seen |= 2;
    else if (sscanf(buf, "gc_count=%lf", &r->gcs) == 1) seen |= 4;
    else if (sscanf(buf, "lttng_daemons_cpu_seconds=%lf", &r->daemons) == 1) {}
    else if (sscanf(buf, "system_busy_cpu_seconds=%lf", &r->busy) == 1) {}
    else if (sscanf(buf, "gc_promoted_mb=%lf", &r->promoted) == 1) {}
    else if (sscanf(buf, "parent_cpu_seconds=%lf", &r->parent) == 1) {}
    else sscanf(buf, "total_allocated_bytes=%lf", &r->bytes);
  }
  int st = pclose(p);
  r->daemons_all = lttng_daemons_cpu_s() - d0;
  return st == 0 && seen == 7 ? 0 : -1;
}

/* --perf: one more run of each configuration under `perf record` (cpu-clock
 * samples of every process the command starts, the workload's threads kept
 * by their command name), and the share of its samples that fall in tracing
 * code: LTTng-UST's libraries, librgc's probe provider (librgc-tp), librgc's
 * emitters (rgc_ev_*) and stack walk, libgcc's unwinder (backtrace()), the
 * clock reads (vDSO) and TLS look-ups. A share is a ratio inside one run:
 * other users' load slows its numerator and denominator alike, where the
 * wall and CPU ratios above compare runs that the load slowed differently.
 * The untraced run's share (the disabled tracepoints' tests, the program's
 * own clock reads) is the baseline. */
static int use_perf;

static int tracing_code(const char *dso, const char *sym) {
  if (strstr(dso, "lttng") || strstr(dso, "rgc-tp") || strstr(dso, "libgcc_s") || strstr(dso, "[vdso]")) return 1;
  static const char *const syms[] = { "rgc_ev_", "capture", "rgc_unwind", "rule_of", "find_rule", "run_cfa",
                                      "rgc_trace_request_stack", "__tls_get_addr", "sched_getcpu", "clock_gettime",
                                      "__backtrace", "backtrace_helper", "_dl_find_object" };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
    if (!strncmp(sym, syms[i], strlen(syms[i]))) return 1;
  return 0;
}

/* The tracing code's share (%) of the workload's samples in one run under
 * configuration c; *n: its samples. -1 when perf is missing or fails. */
static double perf_share(const char *dir, const char *cmd, const char *comm, int c, const char *tmp, double *n) {
  char line[13000];
  if (c == C_NONE)
    snprintf(line, sizeof line, "perf record -q -F 4999 -o '%s/perf.data' -- %s >/dev/null 2>&1", tmp, cmd);
  else
    snprintf(line, sizeof line, "rm -rf '%s/rec' && perf record -q -F 4999 -o '%s/perf.data' -- '%s/gcscope' record "
             "-o '%s/rec' %s -- %s >/dev/null 2>&1; st=$?; rm -rf '%s/rec'; exit $st", tmp, tmp, dir, tmp,
             conf_flags[c], cmd, tmp);
  if (system(line) != 0) return -1;
  snprintf(line, sizeof line, "perf report -i '%s/perf.data' --sort comm,dso,sym --stdio -n 2>/dev/null", tmp);
  FILE *p = popen(line, "r");
  if (!p) return -1;
  double all = 0, tr = 0;
  char buf[2048];
  *n = 0;
  while (fgets(buf, sizeof buf, p)) {
    double pct, cnt;
    char cm[64], dso[512], sym[1024];
    if (buf[0] == '#' || sscanf(buf, " %lf%% %lf %63s %511s [%*c] %1023[^\n]", &pct, &cnt, cm, dso, sym) != 5) continue;
    if (strncmp(cm, comm, strlen(comm))) continue;
    all += cnt;
    if (tracing_code(dso, sym)) tr += cnt;
  }
  pclose(p);
  snprintf(line, sizeof line, "%s/perf.data", tmp);
  unlink(line);
  snprintf(line, sizeof line, "%s/perf.data.old", tmp);
  unlink(line);
  *n = all;
  return all > 0 ? tr / all * 100 : -1;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sorts v; the q-quantile by linear interpolation. */
static double quantile(double *v, int n, double q) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  double pos = q * (n - 1);
  int i = (int)pos;
  return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}
static double median(double *v, int n) { return quantile(v, n, 0.5); }

struct workload { const char *name, *target; char cmd[4400]; const char *comm; };

/* One workload, all rounds; ratio[] gets the median wall ratios. */
static int measure(const char *dir, const struct workload *w, int rounds, const char *tmp, double ratio[NCONF]) {
  static struct result res[NCONF][MAXR];
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < NCONF; k++) {
      int c = (r + k) % NCONF;
      if (run_one(dir, w->cmd, c, tmp, &res[c][r])) {
        fprintf(stderr, "rgc-trace-overhead: %s under '%s' failed (is %s/gcscope there; can it record?)\n", w->name,
                conf_name[c], dir);
        return -1;
      }
    }
  double wall[NCONF], cpu[NCONF], v[MAXR];
  for (int c = 0; c < NCONF; c++) {
    for (int r = 0; r < rounds; r++) v[r] = res[c][r].wall;
    wall[c] = median(v, rounds);
    for (int r = 0; r < rounds; r++) v[r] = res[c][r].cpu;
    cpu[c] = median(v, rounds);
  }
  for (int r = 0; r < rounds; r++) v[r] = res[C_NONE][r].gcs;
  double gcs = median(v, rounds);
  for (int r = 0; r < rounds; r++) v[r] = res[C_NONE][r].bytes;
  double bytes = median(v, rounds);
  /* The untraced runs' own spread: consecutive untraced runs against each
   * other, a ratio whose true value is 1. */
  double noise_lo = 1, noise_hi = 1;
  if (rounds > 1) {
    for (int r = 0; r + 1 < rounds; r++) v[r] = res[C_NONE][r + 1].wall / res[C_NONE][r].wall;
    noise_lo = quantile(v, rounds - 1, 0.25);
    noise_hi = quantile(v, rounds - 1, 0.75);
  }
  printf("%s: %d rounds; untraced %.0f GCs in %.3f s wall, %.3f s CPU: %.0f GCs/s", w->name, rounds, gcs,
         wall[C_NONE], cpu[C_NONE], wall[C_NONE] > 0 ? gcs / wall[C_NONE] : 0);
  if (bytes > 0) printf(", %.1f GB/s allocated (%.0f AllocationTick/s)", bytes / wall[C_NONE] / 1e9,
                        bytes / 102400 / wall[C_NONE]);
  printf("\n  medians wall/CPU s: none %.3f/%.3f, gc %.3f/%.3f, alloc %.3f/%.3f, stacks %.3f/%.3f; untraced run "
         "to run: %.3f..%.3f (interquartile)\n", wall[C_NONE], cpu[C_NONE], wall[C_GC], cpu[C_GC], wall[C_ALLOC],
         cpu[C_ALLOC], wall[C_STACKS], cpu[C_STACKS], noise_lo, noise_hi);
  for (int c = C_GC; c < NCONF; c++) {
    double wr[MAXR], cr[MAXR], add[MAXR];
    for (int r = 0; r < rounds; r++) {
      wr[r] = res[c][r].wall / res[C_NONE][r].wall;
      cr[r] = res[c][r].cpu / res[C_NONE][r].cpu;
      add[r] = res[C_NONE][r].gcs > 0 ? (res[c][r].cpu - res[C_NONE][r].cpu) / res[C_NONE][r].gcs * 1e6 : 0;
    }
    double wm = median(wr, rounds), wq1 = quantile(wr, rounds, 0.25), wq3 = quantile(wr, rounds, 0.75);
    double cm = median(cr, rounds), cq1 = quantile(cr, rounds, 0.25), cq3 = quantile(cr, rounds, 0.75);
    double am = median(add, rounds);
    /* The fastest run of each: what other users' load added least to. */
    double best = res[c][0].cpu, best_none = res[C_NONE][0].cpu;
    for (int r = 1; r < rounds; r++) {
      if (res[c][r].cpu < best) best = res[c][r].cpu;
      if (res[C_NONE][r].cpu < best_none) best_none = res[C_NONE][r].cpu;
    }
    printf("  %-6s / none: wall %.3f (IQR %.3f..%.3f, all %.3f..%.3f), CPU %.3f (IQR %.3f..%.3f; fastest runs "
           "%.3f), CPU added per GC %.1f us\n", conf_name[c], wm, wq1, wq3, wr[0], wr[rounds - 1], cm, cq1, cq3,
           best_none > 0 ? best / best_none : 0, am);
    if (c >= C_ALLOC && bytes > 0) {
      /* per AllocationTick (one per 102,400 bytes allocated): what the
       * configuration adds over the one before it (alloc over gc: the event;
       * stacks over alloc: the stack walk), median of per-round differences */
      double tk[MAXR];
      for (int r = 0; r < rounds; r++)
        tk[r] = res[C_NONE][r].bytes > 0 ? (res[c][r].cpu - res[c - 1][r].cpu) / (res[C_NONE][r].bytes / 102400) * 1e9
                                         : 0;
      printf("         CPU added per AllocationTick over %s: %.0f ns\n", conf_name[c - 1], median(tk, rounds));
    }
    if (wm < 1 || cm < 1)
      printf("         below 1: tracing cannot make the program faster; the untraced runs alone vary "
             "%.3f..%.3f, so this ratio is 1 within that spread (more --rounds narrow it)\n", noise_lo, noise_hi);
    ratio[c] = wm;
  }
  /* Outside the program's own CPU time: the LTTng daemons (during the run and
   * over the whole recording) and the machine's busy CPU; and how much work
   * the GCs did (background GCs make it vary with timing). */
  double dm[NCONF], da[NCONF], bm[NCONF], pm[NCONF], plo[NCONF], phi[NCONF], par[NCONF];
  for (int c = 0; c < NCONF; c++) {
    for (int r = 0; r < rounds; r++) v[r] = res[c][r].daemons * 1e3;
    dm[c] = median(v, rounds);
    for (int r = 0; r < rounds; r++) v[r] = res[c][r].parent * 1e3;
    par[c] = median(v, rounds);
    for (int r = 0; r < rounds; r++) v[r] = res[c][r].daemons_all * 1e3;
    da[c] = median(v, rounds);
    for (int r = 0; r < rounds; r++) v[r] = res[c][r].busy;
    bm[c] = median(v, rounds);
    for (int r = 0; r < rounds; r++) v[r] = res[c][r].promoted;
    pm[c] = median(v, rounds);
    plo[c] = v[0];
    phi[c] = v[rounds - 1];
  }
  if (res[C_NONE][0].daemons >= 0)
    printf("  during the run (medians): LTTng daemons' CPU none %.1f, gc %.1f, alloc %.1f, stacks %.1f ms; "
           "parent's (gcscope record) CPU none %.1f, gc %.1f, alloc %.1f, stacks %.1f ms; machine busy CPU (all "
           "cores, all users) none %.2f, gc %.2f, alloc %.2f, stacks %.2f s\n", dm[C_NONE], dm[C_GC], dm[C_ALLOC],
           dm[C_STACKS], par[C_NONE], par[C_GC], par[C_ALLOC], par[C_STACKS], bm[C_NONE], bm[C_GC], bm[C_ALLOC],
           bm[C_STACKS]);
  printf("  LTTng daemons' CPU per command, session set-up and tear-down included (medians): none %.1f, gc %.1f, "
         "alloc %.1f, stacks %.1f ms\n", da[C_NONE], da[C_GC], da[C_ALLOC], da[C_STACKS]);
  if (res[C_NONE][0].promoted >= 0)
    printf("  GC work, MB promoted (median, min..max): none %.0f (%.0f..%.0f), gc %.0f (%.0f..%.0f), "
           "alloc %.0f (%.0f..%.0f), stacks %.0f (%.0f..%.0f)\n", pm[C_NONE], plo[C_NONE], phi[C_NONE], pm[C_GC],
           plo[C_GC], phi[C_GC], pm[C_ALLOC], plo[C_ALLOC], phi[C_ALLOC], pm[C_STACKS], plo[C_STACKS],
           phi[C_STACKS]);
  if (use_perf) {
    printf("  tracing code's share of the program's CPU samples (perf, one more run each; the untraced run's is "
           "the disabled tracepoints' tests and the program's own clock reads):");
    for (int c = 0; c < NCONF; c++) {
      double n, sh = perf_share(dir, w->cmd, w->comm, c, tmp, &n);
      if (sh < 0) { printf(" %s: perf failed (is it installed, may it sample?)", conf_name[c]); break; }
      printf("%s %s %.2f %% of %.0f", c ? "," : "", conf_name[c], sh, n);
    }
    printf("\n");
  }
  printf("  targets: %s\n", w->target);
  return 0;
}

int main(int argc, char **argv) {
  int rounds = 7;
  const char *workload = NULL, *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--small")) small = 1;
    else if (!strcmp(argv[i], "--workload") && i + 1 < argc) workload = argv[++i];
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--perf")) use_perf = 1;
    else {
      fprintf(stderr, "usage: rgc-trace-overhead [--rounds N] [--small] [--perf] [--only gcbench|trees|alloc-heavy]\n"
                      "       rgc-trace-overhead --workload gcbench|trees [--small]\n");
      return 2;
    }
  }
  if (workload) return run_workload(workload);
  if (rounds < 1 || rounds > MAXR) { fprintf(stderr, "rgc-trace-overhead: --rounds must be 1..%d\n", MAXR); return 2; }
  char self[4096], dir[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) { fprintf(stderr, "rgc-trace-overhead: cannot find its own path\n"); return 1; }
  self[n] = '\0';
  snprintf(dir, sizeof dir, "%s", self);
  char *sl = strrchr(dir, '/');
  if (sl) *sl = '\0';
  char tmp[] = "/tmp/rgc-overhead-XXXXXX";
  if (!mkdtemp(tmp)) { perror("rgc-trace-overhead: mkdtemp"); return 1; }
  struct workload w[3] = {
    { "gcbench", "gc <= 1.01 at GCBench's GC rate", "", "rgc-trace-overh" },
    { "trees", "gc <= 1.03, alloc <= 1.06 at ~1,000 GCs/s", "", "rgc-trace-overh" },
    { "alloc-heavy", "gc <= 1.03, alloc <= 1.06, stacks <= 1.10 at ~900 GCs/s", "", "gcsim" },
  };
  snprintf(w[0].cmd, sizeof w[0].cmd, "'%s' --workload gcbench%s", self, small ? " --small" : "");
  snprintf(w[1].cmd, sizeof w[1].cmd, "'%s' --workload trees%s", self, small ? " --small" : "");
  snprintf(w[2].cmd, sizeof w[2].cmd,
           "'%s/gcsim' --scenario alloc-heavy --threads 1 --size-min 16 --size-max 160 --alloc-mb %d", dir,
           small ? 200 : 6000);
  double ratio[3][NCONF];
  int rc = 0, ran = 0;
  for (int i = 0; i < 3 && !rc; i++) {
    if (only && strcmp(only, w[i].name)) continue;
    rc = measure(dir, &w[i], rounds, tmp, ratio[i]);
    ran |= 1 << i;
  }
  rmdir(tmp);
  if (rc) return 1;
  if (!ran) { fprintf(stderr, "rgc-trace-overhead: no workload named '%s'\n", only); return 2; }
  int last = ran & 4 ? 2 : ran & 2 ? 1 : 0;
  printf("tracing overhead alloc --stacks %.3f\n", ratio[last][C_STACKS]);
  printf("tracing overhead gc %.3f alloc %.3f\n", ratio[last][C_GC], ratio[last][C_ALLOC]);
  return 0;
}
