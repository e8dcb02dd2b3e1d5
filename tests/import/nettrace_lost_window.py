#!/usr/bin/env python3
"""nettrace_lost_window.py GCSCOPE TMP -- a .nettrace's sequence gaps are
placed in time: each marks exactly the GCs whose events span its window.

A hand-made file (tests/nettrace/tools/make_corpus.py's writer), pid 4343,
SyncTimeUTC 2024-01-02 03:04:05.678 at QPC 0, 1e9 ticks/s: 1 tick = 1 ns,
times below in ms from that instant. Thread 100 runs every GC (gen0,
SuspendEEBegin s, SuspendEEEnd s+0.25, GCStart s+0.5, GCEnd s+1,
GCHeapStats s+1.5, RestartEEEnd s+2: a GC spans [s, s+2]); its sequence
numbers never skip. Threads 300 and 400 only write sampler events
(not GC events: their sequence numbers are all that matters).

  EventBlock 1: GC1 s=100, GC2 s=200, GC3 s=400; thread 300 seq 1 at 150
                and seq 4 at 300 (seq 2, 3 lost: window 150 -> 300).
  SPBlock at 500: thread 100 at its last number, thread 300 at 6 (seq 5, 6
                lost after its event at 300: window 300 -> 500).
  EventBlock 2: GC4 s=600, GC5 s=800; thread 300 seq 7 at 700; thread 400
                seq 1 at 650.
  SPBlock at 1000: thread 400 at 1 (nothing lost yet).
  EventBlock 3: GC6..GC25, s = 1100, 1200, ..., 3000; thread 300 seq 8 at
                3500.
  SPBlock at 4000.
  EventBlock 4: thread 400 seq 3 at 4100 (seq 2 lost, found three regions
                after thread 400's event at 650; the sequence point at 4000
                listed it at 1, and the runtime read that number after the
                point at 1000 was taken: seq 2 was given out after 1000,
                window 1000 -> 4100, not 650 -> 4100); GC26 s=4200.

By hand, a GC is marked iff [s, s+2] meets a window (ends included):
  150-300:  GC2 (200-202) only -- it began and completed inside the window
            (the old rule, "GCs open after the last event", marked none);
  300-500:  GC3 (400-402);
  1000-4100: GC6..GC25; not GC4 nor GC5 (600-602, 800-802: done before
            1000) nor GC26 (begins at 4200).
So GCs 2, 3, 6..25 are "events lost", GCs 1, 4, 5 and 26 are complete; and
the same with the GCs written while the file is read (GCSCOPE_STORE_GCS_EVERY
=1: GC6..GC21 are done before the 4100 window is read, and only the
reader's horizon -- thread 400's event at 650, then the sequence point at
1000 -- holds them back) and all at the end (=0). lost_events holds the three windows (absolute ns, from the
SyncTimeUTC above computed here with datetime), counts 2, 2 and 1;
traces.discarded is 5 as before.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish, fresh_dir  # noqa: E402
import nettrace_gaps as ng  # noqa: E402
from nettrace_gaps import MS, T0, SAMPLE  # noqa: E402

GCSCOPE, TMP = sys.argv[1:3]
fresh_dir(TMP)
PID = 4343
th = ng.File(TMP, PID)
gc, events, sp = th.gc, th.events, th.sp
# EventBlock 1
evs = gc(1, 100) + [th.ev(5, 300, 150, SAMPLE)] + gc(2, 200) + [th.ev(5, 300, 300, SAMPLE, seq=4)] + gc(3, 400)
events(evs)
sp(500, [(100, th.seq[100]), (300, 6)])
# EventBlock 2
th.seq[300] = 6
events(gc(4, 600) + [th.ev(5, 400, 650, SAMPLE), th.ev(5, 300, 700, SAMPLE)] + gc(5, 800))
sp(1000, [(100, th.seq[100]), (300, 7), (400, 1)])
# EventBlock 3
evs = []
for n in range(6, 26):
    evs += gc(n, 1100 + (n - 6) * 100)
evs.append(th.ev(5, 300, 3500, SAMPLE))
events(evs)
sp(4000, [(100, th.seq[100]), (300, 8), (400, 1)])
# EventBlock 4
events([th.ev(5, 400, 4100, SAMPLE, seq=3)] + gc(26, 4200))
path = th.write(os.path.join(TMP, "gaps.nettrace"))

WANT_LOST = set([2, 3] + list(range(6, 26)))
WANT_DONE = {1, 4, 5, 26}
WINDOWS = [(150, 300, 2), (300, 500, 2), (1000, 4100, 1)]


def sql(db, q):
    return ng.sql(GCSCOPE, db, q)


for every in ("0", "1", "64"):
    db = os.path.join(TMP, "gaps-%s.db" % every)
    env = dict(os.environ, GCSCOPE_STORE_GCS_EVERY=every)
    p = subprocess.run([GCSCOPE, "import", "-d", db, path], capture_output=True, text=True, env=env, timeout=60)
    check(p.returncode == 0, "import (store every %s): %r" % (every, p.stderr))
    check("5 discarded" in p.stdout + p.stderr, "import says 5 discarded: %r" % (p.stdout + p.stderr))
    rows = sql(db, "SELECT gc_index, complete, coalesce(incomplete_why, '') FROM gcs WHERE pid = %d "
                   "ORDER BY gc_index" % PID)
    lost = {int(r[0]) for r in rows if "events lost" in r[2]}
    done = {int(r[0]) for r in rows if r[1] == "1"}
    check(len(rows) == 26, "every %s: 26 GCs, got %d" % (every, len(rows)))
    check(lost == WANT_LOST, "every %s: GCs marked events lost %s, expected %s" % (every, sorted(lost),
                                                                                   sorted(WANT_LOST)))
    check(done == WANT_DONE, "every %s: complete GCs %s, expected %s" % (every, sorted(done), sorted(WANT_DONE)))
    got = sql(db, "SELECT begin_ns, ts_ns, count, packets_missing FROM lost_events ORDER BY begin_ns")
    want = [[str(T0 + b * MS), str(T0 + e * MS), str(c), "0"] for b, e, c in WINDOWS]
    check(got == want, "every %s: lost_events %r, expected %r" % (every, got, want))
    check(sql(db, "SELECT discarded FROM traces") == [["5"]], "every %s: traces.discarded 5" % every)

sys.exit(finish())
