/*
 * gcs_recon_store_final on a trace that lost events: the GCs that never
 * complete near the losses no longer hold every GC after them in memory,
 * and every row stays what storing every GC at the end writes.
 *
 * Part 1: process 7, 2,000 GCs (GC u + 1 from u ms, a blocking GC of 0.5 ms
 * but for these, u modulo 50):
 *   0  W: restarted without GCHeapStats (open: never complete);
 *   10 X: its GCHeapStats and restart lost: a window [its GCEnd + 1 us,
 *      + 400 us] given after its GCEnd (open, marked lost; the scan back
 *      from it passes 9 GCs done before the window, fewer than 16, so it
 *      reaches W and marks it lost too);
 *   15 Y: its suspension lost: a window [its start - 140 us, + 50 us] given
 *      before its GCStart (no suspension before it: open, marked lost as it
 *      begins);
 *   28 and 32 Z: restarted without GCHeapStats (open, not lost: the next
 *      window, the next block's X, passes 17 GCs done between Z 32 and the
 *      next W first, so no window reaches them).
 * So per block of 50: 3 GCs marked "events lost" (W, X, Y), 5 incomplete,
 * 45 complete; over 40 blocks 120, 200, 1,800.
 * Run A stores at the end only; run B calls gcs_recon_store_final after
 * every event and every window. The tables (recon_db.h's dump: every
 * value's storage class and bits, ids included) must be identical. Before,
 * an open GC was written only once the 16 GCs after it were all done: W's
 * 16 include X, X's include Y, each open for good, so run B wrote nothing
 * early and held all 2,000. Now a GC marked lost is written whatever
 * windows may still come (marking it again changes nothing), and an open GC
 * once any 16 GCs in a row after it are done before the horizon (the scan
 * stops there): run B holds at most 40 (22 seen: the 16 an event may reach
 * and the GCs since the last open one).
 * gc_done reports every GC once in both runs (2,000): before, an open GC
 * written early was freed unreported (import printed one GC less).
 *
 * Part 2: process 9: background GC P (complete), 20 blocking GCs,
 * background GC Q, complete at its GCHeapStats at time T; run B stores
 * then; a window beginning at T (the last event's time: windows come at or
 * after it) marks Q lost, so no longer complete; an allocation wait's end
 * then goes to the last complete background GC: P (BGCAllocWaitEnd: a
 * gc_loh_waits row of P). An early version wrote P as soon as Q completed
 * (a later complete background GC) and missed that row in run B; then P
 * waited until a later background GC was done before the horizon; now P is
 * written early, kept, and its waits written again when the end reaches
 * it (part 4).
 *
 * Part 3: two processes at once, 2,000 GCs each: process 7 as in part 1
 * but GC u + 1 from 5u ms, process 9 GC u + 1 from 5u + 1 ms, a blocking
 * GC, or every 100th a background GC (as in part 2; 20 of them). The ids
 * are the same in both runs, whichever call writes a GC: in GCStart order
 * over both processes (process 7's GC u + 1 is id 2u + 1, process 9's id
 * 2u + 2), each process's in list order. Run B holds at most 250 GCs of
 * 4,000: process 9's since its last complete background GC, up to 100
 * (before: every GC but the first process's was written at the end, all
 * 2,000 of process 9 held).
 *
 * Part 4: background GCs whose allocation waits end late. Process 9:
 * background GC P (GC 1, complete) with a wait beginning inside it (thread
 * 56), 1,000 blocking GCs, the end of thread 56's wait, 500 GCs, the end of
 * a wait of thread 57 (no beginning seen), 500 GCs, background GC Q whose
 * events are lost (a window inside it: incomplete), the end of a wait of
 * thread 58, 100 GCs. Every end goes to P, the last complete background
 * GC: 3 gc_loh_waits rows of P (56 with its start and stop, 57 and 58
 * with a stop only), loh_wait_count 3, none of Q. Process 10: background
 * GC R, incomplete (a window inside it), no complete one ever, 100 GCs, the
 * end of a wait of thread 59: R's (the last background GC). Run B holds at
 * most 60 GCs of 2,233: P and R are written early and kept, and their
 * waits written again when an end reaches them. Before, a background GC
 * was written only once a later one completed: everything from P on was
 * held (2,233).
 *
 * The GCs held (gcs_recon_held_max, import -v's "at most K GCs held in
 * memory") count every GC in memory: those in a process's list and the
 * background GC it keeps after writing it (kept_bgc), which an early
 * version left out. Run B after every event; at a GCStart (where the count
 * is taken, before the store that follows) a process of complete blocking
 * GCs holds 18: the last GC written (its successor's figures read it), the
 * 16 newest at the last store (FINAL_LAG: an event may still reach them)
 * and the one just begun. So:
 *   part 1: 22, at the GCStart of u = 48 of a block: Z 28 and Z 32 are
 *     written only once u = 33 to 48 (16 in a row) are done before the
 *     horizon, which 48 is not yet: u = 27 (the last written) to 48 are
 *     held, 22; no background GC is kept;
 *   part 3: 40 = process 7's 22 (as in part 1, at its GCStart) + process
 *     9's 18 after its last store: 17 in its list and, from its first
 *     background GC written and freed on (u = 99), that GC kept (39
 *     before: the kept one left out);
 *   part 4: 37 = process 9's 18 (17 and P kept; Q, incomplete, does not
 *     replace the complete P) + process 10's 19 at its GCStart (18 and R
 *     kept: its only background GC) (35 before);
 *   part 5: process 9, background GC P (complete), then 40 blocking GCs: 19
 *     (18 and P kept, written once the first GC after its end is 16 behind
 *     the newest); 18 before. Run A holds all 41.
 */
#include <stdlib.h>
#include <string.h>

#include "recon_run.h"

#define PID 7
#define UNITS 2000

static void on_done(const struct gcs_gc *g, void *ud) {
  (void)g;
  ((struct run *)ud)->reported++;
}

/* parts of a blocking GC k at t us */
enum { FULL, NO_STATS, LOST_END, LOST_SUSPENSION };
static void gc(struct run *s, int pid, double t, uint32_t k, int kind) {
  if (kind == LOST_SUSPENSION) {
    lost(s, pid, t - 140, t + 50);
  } else {
    suspend(s, pid, t, GT, GCS_SUSPEND_REASON_SUSPEND_FOR_GC, k - 1);
    simple(s, pid, gcs_kind_GCSuspendEEEnd, t + 20, GT);
  }
  start(s, pid, t + 40, GT, k, k % 3 == 0 ? 1 : 0, GCS_GC_TYPE_NON_CONCURRENT);
  end(s, pid, t + 300, GT, k, k % 3 == 0 ? 1 : 0);
  if (kind == LOST_END) {
    lost(s, pid, t + 301, t + 700);
    return;
  }
  if (kind != NO_STATS) stats(s, pid, t + 310, GT, k);
  simple(s, pid, gcs_kind_GCRestartEEBegin, t + 480, GT);
  simple(s, pid, gcs_kind_GCRestartEEEnd, t + 500, GT);
}

static void part1(struct run *s) {
  for (int u = 0; u < UNITS; u++) {
    int m = u % 50;
    int kind = m == 0 || m == 28 || m == 32 ? NO_STATS : m == 10 ? LOST_END : m == 15 ? LOST_SUSPENSION : FULL;
    gc(s, PID, u * 1000.0, (uint32_t)u + 1, kind);
  }
  CHECK(gcs_recon_store(s->r, s->db, 1) == SQLITE_OK);
}

/* A background GC k from t us to t + 3000 (complete at its GCHeapStats). */
static void background(struct run *s, double t, uint32_t k) {
  bgc_begin(s, 9, t, k);
  bgc_finish(s, 9, t, k);
}

static void part2(struct run *s) {
  uint32_t k = 1;
  double t = 0;
  background(s, t, k++);  /* P */
  for (int i = 0; i < 20; i++) gc(s, 9, t += 5000, k++, FULL);
  background(s, t += 5000, k++);  /* Q, complete at t + 3000 */
  lost(s, 9, t + 3000, t + 3100);
  struct gcs_event w = ev_at(gcs_kind_BGCAllocWaitEnd, t + 3200, 9, 55);
  w.u.BGCAllocWaitEnd.Reason = 11;
  ev(s, w);
  for (int i = 0; i < 20; i++) gc(s, 9, t += 5000, k++, FULL);
  CHECK(gcs_recon_store(s->r, s->db, 1) == SQLITE_OK);
}

static void part3(struct run *s) {
  uint32_t k9 = 1;
  for (int u = 0; u < UNITS; u++) {
    int m = u % 50;
    int kind = m == 0 || m == 28 || m == 32 ? NO_STATS : m == 10 ? LOST_END : m == 15 ? LOST_SUSPENSION : FULL;
    gc(s, PID, u * 5000.0, (uint32_t)u + 1, kind);
    if (u % 100 == 99) background(s, u * 5000.0 + 1000, k9++);
    else gc(s, 9, u * 5000.0 + 1000, k9++, FULL);
  }
  CHECK(gcs_recon_store(s->r, s->db, 1) == SQLITE_OK);
}

static void wait_end(struct run *s, int pid, double us, int tid) {
  struct gcs_event w = ev_at(gcs_kind_BGCAllocWaitEnd, us, pid, tid);
  w.u.BGCAllocWaitEnd.Reason = 11;
  ev(s, w);
}

/* A background GC k of process pid from t us to t + 3000; a window inside
 * it (lost: incomplete); a wait of thread wait_tid beginning inside it. */
static void background2(struct run *s, int pid, double t, uint32_t k, int lose, int wait_tid) {
  bgc_begin(s, pid, t, k);
  if (wait_tid) {
    struct gcs_event w = ev_at(gcs_kind_BGCAllocWaitBegin, t + 500, pid, wait_tid);
    w.u.BGCAllocWaitBegin.Reason = 11;
    ev(s, w);
  }
  if (lose) lost(s, pid, t + 1000, t + 1100);
  bgc_finish(s, pid, t, k);
}

static void part4(struct run *s) {
  uint32_t k = 1, k10 = 1;
  double t = 0;
  background2(s, 9, t, k++, 0, 56);  /* P */
  for (int i = 0; i < 1000; i++) gc(s, 9, t += 5000, k++, FULL);
  wait_end(s, 9, t += 5000, 56);
  for (int i = 0; i < 500; i++) gc(s, 9, t += 5000, k++, FULL);
  wait_end(s, 9, t += 5000, 57);
  for (int i = 0; i < 500; i++) gc(s, 9, t += 5000, k++, FULL);
  background2(s, 9, t += 5000, k++, 1, 0);  /* Q */
  wait_end(s, 9, t += 5000, 58);
  background2(s, 10, t += 5000, k10++, 1, 0);  /* R */
  for (int i = 0; i < 100; i++) {
    gc(s, 9, t += 5000, k++, FULL);
    gc(s, 10, t += 5000, k10++, FULL);
  }
  wait_end(s, 10, t += 5000, 59);
  for (int i = 0; i < 30; i++) gc(s, 10, t += 5000, k10++, FULL);
  CHECK(gcs_recon_store(s->r, s->db, 1) == SQLITE_OK);
}

static void part5(struct run *s) {
  uint32_t k = 1;
  double t = 0;
  background(s, t, k++);  /* P */
  for (int i = 0; i < 40; i++) gc(s, 9, t += 5000, k++, FULL);
  CHECK(gcs_recon_store(s->r, s->db, 1) == SQLITE_OK);
}

static void run(struct run *s, int early, void (*feed)(struct run *)) {
  memset(s, 0, sizeof *s);
  static const struct gcs_recon_callbacks cb = { .gc_done = on_done };
  s->r = gcs_recon_new(&cb, s);
  s->db = recon_db_new();
  s->every = early; /* 1: after every event and window */
  gcs_recon_set_time_origin(s->r, T0);
  feed(s);
}

static void same(struct run *a, struct run *b) { recon_same(a->db, b->db); }

#define LOST "FROM gcs WHERE incomplete_why LIKE '%events lost%'"

int main(void) {
  struct run a, b;
  run(&a, 0, part1);
  run(&b, 1, part1);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs") == UNITS);
  CHECK(recon_q1(a.db, "SELECT count(*) " LOST) == 120);
  CHECK(recon_q1(a.db, "SELECT count(*) " LOST " AND (gc_index - 1) % 50 NOT IN (0, 10, 15)") == 0);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs WHERE complete = 0") == 200);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs WHERE complete = 0 AND (gc_index - 1) % 50 IN (28, 32) "
                       "AND incomplete_why = 'no GCHeapStats'") == 80);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs WHERE complete = 1") == 1800);
  same(&a, &b);
  fprintf(stderr, "part 1, run B: %d GCs written early, at most %d held\n", gcs_recon_stored_final(b.r),
          gcs_recon_held_max(b.r));
  CHECK(gcs_recon_held_max(a.r) == UNITS);
  CHECK(gcs_recon_held_max(b.r) == 22);
  CHECK(gcs_recon_stored_final(b.r) >= UNITS - 40);
  CHECK(a.reported == UNITS && b.reported == UNITS);
  done(&a);
  done(&b);

  run(&a, 0, part2);
  run(&b, 1, part2);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs") == 42);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs WHERE type = 1 AND complete = 1") == 1);
  CHECK(recon_q1(a.db, "SELECT gc_index FROM gcs g JOIN gc_loh_waits w ON w.gc_id = g.id") == 1);
  CHECK(recon_q1(a.db, "SELECT loh_wait_count FROM gcs WHERE gc_index = 1") == 1);
  CHECK(recon_q1(a.db, "SELECT count(*) " LOST) == 1 && recon_q1(a.db, "SELECT gc_index " LOST) == 22);
  same(&a, &b);
  CHECK(a.reported == 42 && b.reported == 42);
  done(&a);
  done(&b);

  run(&a, 0, part3);
  run(&b, 1, part3);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs") == 2 * UNITS);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs WHERE id = 2 * list_index + 1 + (pid = 9)") == 2 * UNITS);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs WHERE pid = 9 AND type = 1 AND complete = 1") == 20);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs WHERE pid = 9 AND complete = 1") == UNITS);
  CHECK(recon_q1(a.db, "SELECT count(*) " LOST) == 120);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_process_summary") == 2);
  same(&a, &b);
  fprintf(stderr, "part 3, run B: %d GCs written early, at most %d held\n", gcs_recon_stored_final(b.r),
          gcs_recon_held_max(b.r));
  CHECK(gcs_recon_held_max(a.r) == 2 * UNITS);
  CHECK(gcs_recon_held_max(b.r) == 40);
  CHECK(gcs_recon_stored_final(b.r) >= 2 * UNITS - 250);
  CHECK(a.reported == 2 * UNITS && b.reported == 2 * UNITS);
  done(&a);
  done(&b);

  run(&a, 0, part4);
  run(&b, 1, part4);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs") == 2233);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_loh_waits") == 4);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_loh_waits w JOIN gcs g ON g.id = w.gc_id "
                       "WHERE g.pid = 9 AND g.gc_index = 1 AND g.type = 1 AND g.complete = 1") == 3);
  CHECK(recon_q1(a.db, "SELECT loh_wait_count FROM gcs WHERE pid = 9 AND gc_index = 1") == 3);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_loh_waits WHERE pid = 9 AND tid = 56 AND start_msec IS NOT NULL "
                       "AND stop_msec IS NOT NULL") == 1);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_loh_waits WHERE pid = 9 AND tid IN (57, 58) AND start_msec IS NULL "
                       "AND stop_msec IS NOT NULL") == 2);
  CHECK(recon_q1(a.db, "SELECT loh_wait_count FROM gcs WHERE pid = 9 AND gc_index = 2002 AND type = 1 AND complete = 0") == 0);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gc_loh_waits w JOIN gcs g ON g.id = w.gc_id "
                       "WHERE g.pid = 10 AND g.gc_index = 1 AND g.type = 1 AND g.complete = 0 AND w.tid = 59") == 1);
  same(&a, &b);
  fprintf(stderr, "part 4, run B: %d GCs written early, at most %d held\n", gcs_recon_stored_final(b.r),
          gcs_recon_held_max(b.r));
  CHECK(gcs_recon_held_max(a.r) == 2233);
  CHECK(gcs_recon_held_max(b.r) == 37);
  CHECK(a.reported == 2233 && b.reported == 2233);
  done(&a);
  done(&b);

  run(&a, 0, part5);
  run(&b, 1, part5);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs") == 41);
  CHECK(recon_q1(a.db, "SELECT count(*) FROM gcs WHERE type = 1 AND complete = 1") == 1);
  same(&a, &b);
  fprintf(stderr, "part 5, run B: %d GCs written early, at most %d held\n", gcs_recon_stored_final(b.r),
          gcs_recon_held_max(b.r));
  CHECK(gcs_recon_held_max(a.r) == 41);
  CHECK(gcs_recon_held_max(b.r) == 19);
  done(&a);
  done(&b);
  return check_done();
}
