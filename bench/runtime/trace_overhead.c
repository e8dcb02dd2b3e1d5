/* rgc-trace-overhead — cost of librgc's tracepoints under a real LTTng
 * session. The same allocation workload (GCBench-style trees on librgc) runs
 * with no session, with a session enabling the rgc GC events (everything but
 * GCAllocationTick), and with AllocationTick too; configurations are
 * interleaved over several rounds and the median times compared. The last
 * lines are `tracing overhead gc R` and `tracing overhead alloc R`.
 *
 *   rgc-trace-overhead [--rounds N] [--small]
 * Needs a running lttng-sessiond (and the lttng command). */
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
static int scale = 64;

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

static int sh(const char *fmt, const char *session) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, fmt, session, session);
  return system(cmd);
}

static int cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int rounds = 5;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--small")) scale = 1;
    else { fprintf(stderr, "usage: rgc-trace-overhead [--rounds N] [--small]\n"); return 2; }
  }
  if (rounds < 1 || rounds > 50) { fprintf(stderr, "rgc-trace-overhead: --rounds must be 1..50\n"); return 2; }
  if (system("lttng list >/dev/null 2>&1") != 0) {
    fprintf(stderr, "rgc-trace-overhead: no LTTng session daemon answers (start lttng-sessiond)\n");
    return 1;
  }
  char err[200];
  rgc_runtime *rt = rgc_create(NULL, err, sizeof err);
  if (!rt) { fprintf(stderr, "rgc-trace-overhead: %s\n", err); return 1; }
  node_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Node", .kind = RGC_KIND_OBJECT,
    .size = sizeof(struct Node), .ref_offsets = refs, .nrefs = 2});
  T = rgc_attach_thread(rt);
  char session[64];
  snprintf(session, sizeof session, "rgc-overhead-%d", (int)getpid());
  uint64_t t[3][50];
  workload();  /* warm-up */
  int failed = 0;
  for (int r = 0; r < rounds && !failed; r++) {
    t[0][r] = workload();
    failed |= sh("lttng create %s --output=/tmp/%s >/dev/null", session) != 0;
    failed |= sh("lttng enable-event -u 'rgc:*' --exclude rgc:GCAllocationTick_V4 -s %s >/dev/null #%s", session) != 0;
    failed |= sh("lttng start %s >/dev/null #%s", session) != 0;
    t[1][r] = workload();
    failed |= sh("lttng enable-event -u rgc:GCAllocationTick_V4 -s %s >/dev/null #%s", session) != 0;
    t[2][r] = workload();
    sh("lttng destroy %s >/dev/null #%s", session);
    sh("rm -rf /tmp/%s #%s", session);
  }
  if (failed) {
    sh("lttng destroy %s >/dev/null 2>&1 #%s", session);
    sh("rm -rf /tmp/%s #%s", session);
    fprintf(stderr, "rgc-trace-overhead: an lttng command failed\n");
    return 1;
  }
  uint64_t med[3];
  for (int c = 0; c < 3; c++) { qsort(t[c], (size_t)rounds, sizeof(uint64_t), cmp); med[c] = t[c][rounds / 2]; }
  printf("workload (median of %d): no session %.1f ms, gc events %.1f ms, gc+alloc events %.1f ms (%llu GCs so far)\n",
         rounds, (double)med[0] / 1e6, (double)med[1] / 1e6, (double)med[2] / 1e6,
         (unsigned long long)rgc_collection_count(rt, 0));
  rgc_detach_thread(T);
  rgc_destroy(rt);
  printf("tracing overhead gc %.3f\n", (double)med[1] / (double)med[0]);
  printf("tracing overhead alloc %.3f\n", (double)med[2] / (double)med[0]);
  return 0;
}
