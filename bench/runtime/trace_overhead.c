/* rgc-trace-overhead — what recording costs the traced program, measured
 * as separate processes (a process's heap and warm-up never carry over from
 * one configuration to the next).
 *
 * Two workloads: "trees" (GCBench-style binary trees on librgc, this
 * program's own --workload mode) and "alloc-heavy" (gcsim --scenario
 * alloc-heavy --threads 1, sized to a few seconds). Three configurations:
 * "none" (no session), "gc" (`gcscope record --profile gc -- CMD`: the GC
 * events, vpid/vtid/procname contexts, as users record) and "alloc"
 * (`--profile alloc`: + GCAllocationTick). Each round runs the three in a
 * rotated order (ABC, BCA, CAB, ...) so that no configuration always runs
 * first; the workload reports its own wall and CPU time (gcscope's session
 * setup is not counted). Per configuration: the median over rounds; the
 * ratio to "none" is the median of the per-round ratios, with their range,
 * and the CPU time tracing adds per GC (median over rounds of the traced
 * minus the untraced CPU time, over the GC count): a figure that does not
 * depend on the workload's GC rate.
 *
 *   rgc-trace-overhead [--rounds N] [--small]
 *   rgc-trace-overhead --workload [--small]      (one run of the trees)
 * Needs gcscope and gcsim beside it, and an LTTng session daemon (gcscope
 * record starts one if none runs). The last line is
 * `tracing overhead gc R alloc R` (the alloc-heavy workload's medians). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rgc.h"

struct Node { struct Node *left, *right; int64_t v; };
static const uint32_t refs[] = {0, 8};
static const rgc_type *node_t;
static rgc_thread *T;
static int scale = 640;   /* about 1 s of trees untraced */

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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

static uint64_t workload(void) {
  uint64_t t0 = now_ns();
  struct Node *keep = make_tree(14);          /* long-lived */
  size_t m = rgc_root_mark(T);
  rgc_root(T, (void **)&keep);
  for (int d = 4; d <= 12; d += 2)
    for (int i = 0, n = (scale << 14) >> d; i < n; i++) make_tree(d);
  rgc_root_release(T, m);
  return now_ns() - t0;
}

static double cpu_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --workload: one run of the trees, its own times on stdout. */
static int run_workload(void) {
  char err[200];
  rgc_runtime *rt = rgc_create(NULL, err, sizeof err);
  if (!rt) { fprintf(stderr, "rgc-trace-overhead: %s\n", err); return 1; }
  node_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Node", .kind = RGC_KIND_OBJECT,
    .size = sizeof(struct Node), .ref_offsets = refs, .nrefs = 2});
  T = rgc_attach_thread(rt);
  double c0 = cpu_now_s();
  uint64_t ns = workload();
  double cpu = cpu_now_s() - c0;
  printf("seconds_taken=%.6f\ncpu_seconds_taken=%.6f\ngc_count=%llu\n", (double)ns / 1e9, cpu,
         (unsigned long long)rgc_collection_count(rt, 0));
  rgc_detach_thread(T);
  rgc_destroy(rt);
  return 0;
}

enum { C_NONE, C_GC, C_ALLOC, NCONF };
static const char *const conf_name[NCONF] = { "none", "gc", "alloc" };
#define MAXR 50

struct result { double wall, cpu, gcs; };

/* Run CMD (a shell command line) under configuration c; parse the
 * workload's key=value lines. */
static int run_one(const char *dir, const char *cmd, int c, const char *tmp, struct result *r) {
  char line[4096];
  if (c == C_NONE) snprintf(line, sizeof line, "%s 2>/dev/null", cmd);
  else
    snprintf(line, sizeof line, "rm -rf '%s/rec' && '%s/gcscope' record -o '%s/rec' --profile %s -- %s 2>/dev/null; "
             "rm -rf '%s/rec'", tmp, dir, tmp, conf_name[c], cmd, tmp);
  FILE *p = popen(line, "r");
  if (!p) return -1;
  memset(r, 0, sizeof *r);
  int seen = 0;
  char buf[512];
  while (fgets(buf, sizeof buf, p)) {
    if (sscanf(buf, "seconds_taken=%lf", &r->wall) == 1) seen |= 1;
    else if (sscanf(buf, "cpu_seconds_taken=%lf", &r->cpu) == 1) seen |= 2;
    else if (sscanf(buf, "gc_count=%lf", &r->gcs) == 1) seen |= 4;
  }
  int st = pclose(p);
  return st == 0 && seen == 7 ? 0 : -1;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One workload, all rounds; fills the median wall ratio of gc and alloc. */
static int measure(const char *dir, const char *name, const char *cmd, int rounds, const char *tmp, double ratio[NCONF]) {
  static struct result res[NCONF][MAXR];
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < NCONF; k++) {
      int c = (r + k) % NCONF;
      if (run_one(dir, cmd, c, tmp, &res[c][r])) {
        fprintf(stderr, "rgc-trace-overhead: %s under '%s' failed (is %s/gcscope there; can it record?)\n", name,
                conf_name[c], dir);
        return -1;
      }
    }
  double wall[NCONF], cpu[NCONF], gcs = 0, v[MAXR];
  for (int c = 0; c < NCONF; c++) {
    for (int r = 0; r < rounds; r++) v[r] = res[c][r].wall;
    wall[c] = median(v, rounds);
    for (int r = 0; r < rounds; r++) v[r] = res[c][r].cpu;
    cpu[c] = median(v, rounds);
  }
  for (int r = 0; r < rounds; r++) gcs += res[C_NONE][r].gcs / rounds;
  printf("%s: %d rounds, %.0f GCs in %.3f s untraced (%.0f GCs/s); medians wall/cpu s: none %.3f/%.3f, "
         "gc %.3f/%.3f, alloc %.3f/%.3f\n", name, rounds, gcs, wall[C_NONE], wall[C_NONE] > 0 ? gcs / wall[C_NONE] : 0,
         wall[C_NONE], cpu[C_NONE], wall[C_GC], cpu[C_GC], wall[C_ALLOC], cpu[C_ALLOC]);
  for (int c = C_GC; c < NCONF; c++) {
    double w[MAXR], u[MAXR];
    for (int r = 0; r < rounds; r++) {
      w[r] = res[c][r].wall / res[C_NONE][r].wall;
      u[r] = res[c][r].cpu / res[C_NONE][r].cpu;
    }
    double wm = median(w, rounds), um = median(u, rounds);
    /* What tracing adds per GC, in CPU time: comparable across GC rates. */
    double add[MAXR];
    for (int r = 0; r < rounds; r++)
      add[r] = res[C_NONE][r].gcs > 0 ? (res[c][r].cpu - res[C_NONE][r].cpu) / res[C_NONE][r].gcs * 1e6 : 0;
    double am = median(add, rounds);
    printf("  %-5s / none: wall %.3f (rounds %.3f..%.3f), cpu %.3f (rounds %.3f..%.3f), cpu added per GC %.1f us%s\n",
           conf_name[c], wm, w[0], w[rounds - 1], um, u[0], u[rounds - 1], am,
           wm < 1 ? "  [below 1: within the spread of the untraced runs; more --rounds narrow it]" : "");
    ratio[c] = wm;
  }
  return 0;
}

int main(int argc, char **argv) {
  int rounds = 5, only_workload = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--small")) scale = 1;
    else if (!strcmp(argv[i], "--workload")) only_workload = 1;
    else { fprintf(stderr, "usage: rgc-trace-overhead [--rounds N] [--small] | --workload [--small]\n"); return 2; }
  }
  if (only_workload) return run_workload();
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
  char trees[4400], heavy[4400];
  snprintf(trees, sizeof trees, "'%s' --workload%s", self, scale == 1 ? " --small" : "");
  snprintf(heavy, sizeof heavy, "'%s/gcsim' --scenario alloc-heavy --threads 1 --alloc-mb %d", dir,
           scale == 1 ? 500 : 20000);
  double rt[NCONF] = { 1, 0, 0 }, rh[NCONF] = { 1, 0, 0 };
  int rc = measure(dir, "trees", trees, rounds, tmp, rt) || measure(dir, "alloc-heavy", heavy, rounds, tmp, rh);
  rmdir(tmp);
  if (rc) return 1;
  printf("tracing overhead gc %.3f alloc %.3f\n", rh[C_GC], rh[C_ALLOC]);
  return 0;
}
