/* Windowed % time paused and MMU on a hand-built run of 1000 ms with pauses
 * [100,110], [120,130] and [500,600] ms (120 ms paused in all). */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "ins_overhead.h"

#define MS(x) ((int64_t)((x) * 1000000.0 + 0.5)) /* ms -> ns */

static const struct ins_pause P[] = {
    {1, MS(100), MS(110)}, {2, MS(120), MS(130)}, {3, MS(500), MS(600)}};

int main(void) {
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
