#!/usr/bin/env python3
"""nettrace_idle_horizon.py GCSCOPE TMP -- a capture thread that wrote one
event at the start and then stayed idle does not hold the GCs of a long
.nettrace back to the end: the sequence points bound where its next gap
can begin, so the GCs older than that are written while the file is read.

A hand-made file (tests/nettrace/tools/make_corpus.py's writer), pid 4545,
SyncTimeUTC 2024-01-02 03:04:05.678 at QPC 0, 1e9 ticks/s: 1 tick = 1 ns,
times below in ms from that instant. Thread 100 runs GC k (k = 1..40) from
s = 100 k to s + 2 (gen0, SuspendEEBegin s, SuspendEEEnd s+0.25, GCStart
s+0.5, GCEnd s+1, GCHeapStats s+1.5, RestartEEEnd s+2); its numbers never
skip. Thread 300 writes one sampler event (not a GC event), seq 1 at 50,
and nothing after.

  EventBlock 1: thread 300 at 50; GC1..GC10.   SPBlock at 1050.
  EventBlock 2: GC11..GC20.                    SPBlock at 2050.
  EventBlock 3: GC21..GC30.                    SPBlock at 3050.
  EventBlock 4: GC31..GC40.                    SPBlock at 4050, which lists
                thread 300 at 3 (seq 2, 3 lost).
Every sequence point lists thread 100 at its last number and, but the last,
thread 300 at 1.

The rule (docs/import.md): a gap found after the sequence point m began
after point m - 1 (the runtime read the numbers point m lists after point
m - 1 was taken), or after the thread's last event if that is later. So
while the events of block b + 1 are read (after the points of blocks 1..b)
the loss horizon is the point before the last one: block 2: 50 (thread
300's event: no point before the first), block 3: 1050, block 4: 2050. A
GC is written while reading once it is done before the horizon and 16 GCs
newer than it have begun (recon's FINAL_LAG: the newest may still get
events), with GCSCOPE_STORE_GCS_EVERY=1 a store after every GC done:

  block 3 (GC21..30): GCk done -> GCs 1..min(k-16, 10) (GC10 done 1002 <
                      1050, GC11 at 1102 is not): 10 written by GC26;
  block 4 (GC31..40): GCk done -> GCs 1..min(k-16, 20) (GC20 done 2002 <
                      2050): 20 written by GC36.
So 20 GCs are written while reading; the most done and waiting at once is
21, when GC31 completes (31 done, 10 written). Thread 300's gap, found at
the last point, is the window 2050 -> 4050 (not 50 -> 4050: it would
reach GCs already written), count 2: it marks GC21..GC40 (each spans
[s, s+2] within it), GC1..GC20 stay complete, the same as when every GC
is written at the end (=0).

Without the bound (thread 300's last event, 50, as the horizon to the end)
no GC is written while reading and the window 50 -> 4050 marks all 40;
before windows (the gap unplaced, after the last event) none is marked.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish, fresh_dir  # noqa: E402
import nettrace_gaps as ng  # noqa: E402
from nettrace_gaps import MS, T0  # noqa: E402

GCSCOPE, TMP = sys.argv[1:3]
fresh_dir(TMP)
PID = 4545
f = ng.File(TMP, PID)
for b in range(4):
    evs = [f.ev(5, 300, 50, ng.SAMPLE)] if b == 0 else []
    for n in range(10 * b + 1, 10 * b + 11):
        evs += f.gc(n, 100 * n)
    f.events(evs)
    f.sp(1050 + 1000 * b, [(100, f.seq[100]), (300, 3 if b == 3 else 1)])
path = f.write(os.path.join(TMP, "idle.nettrace"))


def sql(db, q):
    return ng.sql(GCSCOPE, db, q)


# GCSCOPE_STORE_GCS_EVERY: (written while reading, most done and waiting);
# 0 writes every GC at the end: all 40 wait.
WANT = {"0": (0, 40), "1": (20, 21)}
for every, (early, held) in WANT.items():
    db = os.path.join(TMP, "idle-%s.db" % every)
    env = dict(os.environ, GCSCOPE_STORE_GCS_EVERY=every)
    p = subprocess.run([GCSCOPE, "import", "-v", "-d", db, path], capture_output=True, text=True, env=env,
                       timeout=60)
    out = p.stdout + p.stderr
    check(p.returncode == 0, "import (store every %s): %r" % (every, out))
    line = "  %d GCs written while reading, at most %d done and waiting" % (early, held)
    check(line in out.splitlines(), "every %s: %r in %r" % (every, line, out))
    rows = sql(db, "SELECT gc_index, complete, coalesce(incomplete_why, '') FROM gcs WHERE pid = %d "
                   "ORDER BY gc_index" % PID)
    check(len(rows) == 40, "every %s: 40 GCs, got %d" % (every, len(rows)))
    lost = [int(r[0]) for r in rows if "events lost" in r[2]]
    done = [int(r[0]) for r in rows if r[1] == "1"]
    check(lost == list(range(21, 41)), "every %s: GCs marked events lost %s, expected 21..40" % (every, lost))
    check(done == list(range(1, 21)), "every %s: complete GCs %s, expected 1..20" % (every, done))
    got = sql(db, "SELECT begin_ns, ts_ns, count FROM lost_events")
    want = [[str(T0 + 2050 * MS), str(T0 + 4050 * MS), "2"]]
    check(got == want, "every %s: lost_events %r, expected %r" % (every, got, want))

sys.exit(finish())
