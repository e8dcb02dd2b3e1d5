/* Windowed % time paused and MMU on a hand-built run of 1000 ms with pauses
 * [100,110], [120,130] and [500,600] ms (120 ms paused in all). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "ins_overhead.h"

#define MS(x) ((int64_t)((x) * 1000000.0 + 0.5)) /* ms -> ns */

static const struct ins_pause P[] = {
    {1, MS(100), MS(110)}, {2, MS(120), MS(130)}, {3, MS(500), MS(600)}};

/* Exhaustive worst window over integer starts: the paused time of [s, s+w)
 * summed pause by pause for every s in [t0, t1 - w]; the earliest start wins. */
static void brute_worst(const struct ins_pause *p, int n, int64_t t0, int64_t t1, int64_t w,
                        int64_t *start, int64_t *paused) {
  *paused = -1;
  for (int64_t s = t0; s <= t1 - w; s++) {
    /* union of the pauses within [s, s+w): mark each ns once */
    int64_t v = 0;
    for (int64_t x = s; x < s + w; x++) {
      for (int i = 0; i < n; i++)
        if (p[i].start_ns <= x && x < p[i].end_ns) { v++; break; }
    }
    if (v > *paused) { *paused = v; *start = s; }
  }
}

/* The candidate-position search ins_worst_window used before its O(n) merge
 * (every candidate measured with ins_timeline_paused's binary search). */
static void candidate_worst(const struct ins_timeline *t, int64_t t0, int64_t t1, int64_t w,
                            int64_t *start, int64_t *paused) {
  int64_t last = t1 - w;
  int64_t best_s = t0, best = ins_timeline_paused(t, t0, t0 + w);
  for (size_t i = 0; i < 2 * t->n + 1; i++) {
    int64_t s = i == 2 * t->n ? last : (i % 2 == 0 ? t->start[i / 2] : t->end[i / 2] - w);
    if (s < t0) s = t0;
    if (s > last) s = last;
    int64_t v = ins_timeline_paused(t, s, s + w);
    if (v > best || (v == best && s < best_s)) { best = v; best_s = s; }
  }
  *start = best_s;
  *paused = best;
}

static unsigned seed = 12345;
static int64_t rnd(int64_t m) {
  seed = seed * 1103515245u + 12345u;
  return (int64_t)(seed >> 16) % m;
}

/* Random timelines (overlapping pauses, runs starting or ending inside one):
 * ins_worst_window's start and paused time equal the exhaustive search's and
 * the old candidate search's for every window size; ins_mmu follows. */
static void test_random(void) {
  int mismatches = 0, cases = 0;
  for (int round = 0; round < 400; round++) {
    struct ins_pause p[30];
    int n = (int)rnd(30);
    int64_t at = 0;
    for (int i = 0; i < n; i++) {
      at += rnd(round % 2 ? 50 : 12);
      p[i] = (struct ins_pause){(uint32_t)i, at, at + rnd(30)};
    }
    if (round % 5 == 0 && n > 2) {   /* out of order */
      struct ins_pause x = p[0];
      p[0] = p[n - 1];
      p[n - 1] = x;
    }
    struct ins_timeline t;
    CHECK_EQ_INT(ins_timeline_build(&t, p, (size_t)n), 0);
    int64_t t0 = round % 3 == 0 ? 0 : (int64_t)(round % 17), t1 = at + 40 - round % 50;
    if (t1 <= t0) t1 = t0 + 1;
    for (int64_t w = 1; w <= t1 - t0 + 1; w += 1 + w / 8) {
      int64_t s, v, bs = 0, bv, cs, cv;
      int rc = ins_worst_window(&t, t0, t1, w, &s, &v);
      double m = ins_mmu(&t, t0, t1, w);
      cases++;
      if (w > t1 - t0) {
        if (rc != -1 || !isnan(m)) mismatches++;
        continue;
      }
      brute_worst(p, n, t0, t1, w, &bs, &bv);
      candidate_worst(&t, t0, t1, w, &cs, &cv);
      if (rc != 0 || s != bs || v != bv || s != cs || v != cv || m != 1.0 - (double)bv / (double)w) mismatches++;
    }
    ins_timeline_free(&t);
  }
  CHECK(cases > 1000);
  CHECK_EQ_INT(mismatches, 0);
}

/* By hand: pauses [10,12) and [30,40) in a run [0,100). */
static void test_small(void) {
  struct ins_pause hp[] = {{1, 30, 40}, {2, 10, 12}};
  struct ins_timeline ht;
  int64_t s, v;
  CHECK_EQ_INT(ins_timeline_build(&ht, hp, 2), 0);
  /* 20 long: at most the 10 of [30,40); earliest such start is 20 (end 40 - 20). */
  CHECK_EQ_INT(ins_worst_window(&ht, 0, 100, 20, &s, &v), 0);
  CHECK_EQ_INT(s, 20);
  CHECK_EQ_INT(v, 10);
  /* 30 long: [10,40) holds both, 12. */
  CHECK_EQ_INT(ins_worst_window(&ht, 0, 100, 30, &s, &v), 0);
  CHECK_EQ_INT(s, 10);
  CHECK_EQ_INT(v, 12);
  /* 5 long: wholly paused from 30 on (earliest); the run itself; too long. */
  CHECK_EQ_INT(ins_worst_window(&ht, 0, 100, 5, &s, &v), 0);
  CHECK_EQ_INT(s, 30);
  CHECK_EQ_INT(v, 5);
  CHECK(ins_mmu(&ht, 0, 100, 5) == 0);
  CHECK(ins_mmu(&ht, 0, 100, 100) == 1.0 - 12.0 / 100.0);
  CHECK(isnan(ins_mmu(&ht, 0, 100, 101)));
  /* The run starts inside a pause: [35,45) holds 5 of [30,40). */
  CHECK_EQ_INT(ins_worst_window(&ht, 35, 100, 10, &s, &v), 0);
  CHECK_EQ_INT(s, 35);
  CHECK_EQ_INT(v, 5);
  CHECK(ins_mmu(&ht, 35, 100, 10) == 0.5);
  /* No pause in reach: the earliest start, t0. */
  CHECK_EQ_INT(ins_worst_window(&ht, 50, 100, 10, &s, &v), 0);
  CHECK_EQ_INT(s, 50);
  CHECK_EQ_INT(v, 0);
  ins_timeline_free(&ht);
}

int main(void) {
  test_small();
  test_random();
  struct ins_timeline t;
  CHECK_EQ_INT(ins_timeline_build(&t, P, 3), 0);

  /* 200 ms tumbling windows: 20, 0, 100, 0, 0 ms paused. */
  struct ins_window *w, worst;
  size_t n;
  CHECK_EQ_INT(ins_overhead_windows(&t, 0, MS(1000), MS(200), &w, &n, &worst), 0);
  CHECK_EQ_INT(n, 5);
  CHECK_REL(w[0].paused_pct, 10, 1e-9);
  CHECK_REL(w[1].paused_pct, 0, 1e-9);
  CHECK_REL(w[2].paused_pct, 50, 1e-9);
  CHECK_EQ_INT(w[4].end_ns, MS(1000));
  /* Worst sliding 200 ms window: 100 ms paused; earliest such start is 400. */
  CHECK_EQ_INT(worst.start_ns, MS(400));
  CHECK_EQ_INT(worst.paused_ns, MS(100));
  CHECK_REL(worst.paused_pct, 50, 1e-9);
  free(w);

  /* 300 ms windows: the last one is partial (900..1000). */
  CHECK_EQ_INT(ins_overhead_windows(&t, 0, MS(1000), MS(300), &w, &n, &worst), 0);
  CHECK_EQ_INT(n, 4);
  CHECK_REL(w[0].paused_pct, 20.0 / 3, 1e-9);   /* 20 of 300 */
  CHECK_REL(w[1].paused_pct, 100.0 / 3, 1e-9);  /* 100 of 300 */
  CHECK_EQ_INT(w[3].start_ns, MS(900));
  CHECK_EQ_INT(w[3].end_ns, MS(1000));
  /* Worst 300 ms: [300,600) holds 100 ms; [130,430) would hold 0... the
   * best reaches 100 (no window holds the 20 ms pair and the 100 ms pause). */
  CHECK_EQ_INT(worst.paused_ns, MS(100));
  CHECK_EQ_INT(worst.start_ns, MS(300));
  free(w);

  /* A run shorter than the window (60 s): one window, the whole run, 12 %. */
  CHECK_EQ_INT(ins_overhead_windows(&t, 0, MS(1000), MS(60000), &w, &n, &worst), 0);
  CHECK_EQ_INT(n, 1);
  CHECK_REL(w[0].paused_pct, 12, 1e-9);
  CHECK_REL(worst.paused_pct, 12, 1e-9);
  CHECK_EQ_INT(worst.start_ns, 0);
  free(w);
  CHECK_EQ_INT(ins_overhead_windows(&t, MS(5), MS(5), MS(10), &w, &n, &worst), -1);

  /* MMU: 10 ms fits inside a pause -> 0; 150 ms -> 1 - 100/150; 400 ms ->
   * 1 - 100/400 (the 20 ms pair and the 100 ms pause are 370 ms apart at
   * best: [130,500) holds only 10 of them); whole run 1 - 120/1000. */
  CHECK_REL(ins_mmu(&t, 0, MS(1000), MS(10)), 0, 1e-9);
  CHECK_REL(ins_mmu(&t, 0, MS(1000), MS(150)), 1 - 100.0 / 150, 1e-9);
  CHECK_REL(ins_mmu(&t, 0, MS(1000), MS(400)), 0.75, 1e-9);
  CHECK_REL(ins_mmu(&t, 0, MS(1000), MS(1000)), 0.88, 1e-9);
  CHECK(isnan(ins_mmu(&t, 0, MS(1000), MS(2000))));
  /* A window that holds both close pauses: 30 ms starting at 100 -> 20 paused. */
  CHECK_REL(ins_mmu(&t, 0, MS(450), MS(30)), 1 - 20.0 / 30, 1e-9);

  /* No pauses: MMU 1 everywhere. */
  struct ins_timeline e;
  CHECK_EQ_INT(ins_timeline_build(&e, NULL, 0), 0);
  CHECK_REL(ins_mmu(&e, 0, MS(1000), MS(1)), 1, 1e-9);
  ins_timeline_free(&e);
  ins_timeline_free(&t);
  return check_done();
}
