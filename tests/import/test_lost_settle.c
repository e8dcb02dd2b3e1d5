/* test_lost_settle — discarded-events counts when a stream's cumulative
 * counter goes down (ctf_lost_settle, both CTF readers): a lossy per-uid
 * lttng-ust 2.13 session was seen with a packet's events_discarded 3,847
 * below the packet before, which babeltrace2 reports as a "count" of
 * 2^64 - 3,847 = 18,446,744,073,709,547,769 events. Expected values by hand:
 * the records never exceed the counter's highest rise, and the total (the
 * records minus what is still owed) is the counter's change from the first
 * packet to the last, as the telescoping sum of the changes modulo 2^64. */
#include <stdint.h>
#include <stdio.h>

#include "ctf_map.h"
#include "check.h"

/* Feed the changes between packets whose counters are c[0..n-1]; return the
 * records' sum, and the number of records in *nrec, the total in *total. */
static uint64_t feed(const uint64_t *c, int n, int *nrec, uint64_t *total, struct ctf_owed *o) {
  uint64_t sum = 0, *owed = ctf_owed_of(o, c);
  *nrec = 0;
  for (int i = 1; i < n; i++) {
    uint64_t r = ctf_lost_settle(owed, c[i] - c[i - 1]);
    if (r) { sum += r; ++*nrec; }
  }
  *total = sum - ctf_owed_total(o);
  return sum;
}

int main(void) {
  CHECK_EQ_U64((uint64_t)0 - 3847, UINT64_C(18446744073709547769));  /* what babeltrace2 printed */
  struct ctf_owed o = { 0 };
  int nrec;
  uint64_t total;
  /* up 10, down 5, up 15: records 10 and 10 (5 of the last rise repaid) */
  const uint64_t a[] = { 0, 10, 5, 20 };
  CHECK_EQ_U64(feed(a, 4, &nrec, &total, &o), 20);
  CHECK_EQ_INT(nrec, 2);
  CHECK_EQ_U64(total, 20);
  free(o.v);
  /* ends in deficit: up 10, down 5, up 3 -> one record of 10, total 8 (the last counter) */
  struct ctf_owed p = { 0 };
  const uint64_t b[] = { 0, 10, 5, 8 };
  CHECK_EQ_U64(feed(b, 4, &nrec, &total, &p), 10);
  CHECK_EQ_INT(nrec, 1);
  CHECK_EQ_U64(total, 8);
  /* the seen case: 100,000 then 96,153 (down 3,847), then 100,000 again: no record, total 0 */
  const uint64_t c[] = { 100000, 96153, 100000 };
  struct ctf_owed q = { 0 };
  CHECK_EQ_U64(feed(c, 3, &nrec, &total, &q), 0);
  CHECK_EQ_INT(nrec, 0);
  CHECK_EQ_U64(total, 0);
  /* two streams keep their own deficits */
  uint64_t *s1 = ctf_owed_of(&q, &a), *s2 = ctf_owed_of(&q, &b);
  CHECK_EQ_U64(ctf_lost_settle(s1, (uint64_t)0 - 7), 0);
  CHECK_EQ_U64(ctf_lost_settle(s2, 4), 4);
  CHECK_EQ_U64(ctf_lost_settle(ctf_owed_of(&q, &a), 9), 2);
  CHECK_EQ_U64(ctf_owed_total(&q), 0);
  free(p.v);
  free(q.v);
  return check_done();
}
