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
import calendar
import datetime
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from gcs_check import check, corpus_writer, finish, fresh_dir  # noqa: E402

GCSCOPE, TMP = sys.argv[1:3]
fresh_dir(TMP)
mc = corpus_writer(os.path.join(HERE, "..", "nettrace", "tools", "make_corpus.py"), fresh_dir(os.path.join(TMP, "c")))
MS = 1000000
PID = 4343
T0 = calendar.timegm(datetime.datetime(2024, 1, 2, 3, 4, 5).timetuple()) * 10**9 + 678 * MS


class Threads:
    def __init__(self):
        self.seq = {}

    def ev(self, meta, thread, ms, payload, seq=None):
        s = self.seq.get(thread, 0) + 1 if seq is None else seq
        self.seq[thread] = s
        return mc['ev'](meta, s, thread, int(round(ms * MS)), payload)


th = Threads()
STATS = struct.pack('<10Q3IH', 1000000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3)


def gc(n, s):
    e = th.ev
    return [e(3, 100, s, struct.pack('<IIH', 1, n - 1, 3)),        # SuspendEEBegin SuspendForGC
            e(8, 100, s + 0.25, struct.pack('<H', 3)),             # SuspendEEEnd
            e(1, 100, s + 0.5, mc['gcstart'](n, 0, 0, 0)),         # GCStart gen0 AllocSmall blocking
            e(2, 100, s + 1, struct.pack('<IIH', n, 0, 3)),        # GCEnd
            e(9, 100, s + 1.5, STATS),                             # GCHeapStats
            e(4, 100, s + 2, struct.pack('<H', 3))]                # RestartEEEnd


SAMPLE = b'\x01\0\0\0'


def sp(w, ms, threads):
    w.block('SPBlock', mc['i64'](int(ms * MS)) + mc['i32'](len(threads)) +
            b''.join(mc['i64'](t) + mc['i32'](s) for t, s in threads))


def events(w, evs):
    w.block('EventBlock', mc['block_header'](1) + mc['compressed'](evs))


w = mc['Writer']()
w.trace((2024, 1, 2, 2, 3, 4, 5, 678), 0, 1000000000, 8, PID)
RT = mc['RT']
metas = [mc['meta_record'](1, RT, 1, '', 2), mc['meta_record'](2, RT, 2, '', 1),
         mc['meta_record'](3, RT, 9, '', 1), mc['meta_record'](4, RT, 3, '', 1),
         mc['meta_record'](9, RT, 4, '', 1), mc['meta_record'](8, RT, 8, '', 1),
         mc['meta_record'](5, mc['SAMPLER'], 0, 'ThreadSample', 0)]
w.block('MetadataBlock', mc['block_header'](1) + mc['compressed']([mc['md'](0, m) for m in metas]))
# EventBlock 1
evs = gc(1, 100) + [th.ev(5, 300, 150, SAMPLE)] + gc(2, 200) + [th.ev(5, 300, 300, SAMPLE, seq=4)] + gc(3, 400)
events(w, evs)
sp(w, 500, [(100, th.seq[100]), (300, 6)])
# EventBlock 2
th.seq[300] = 6
events(w, gc(4, 600) + [th.ev(5, 400, 650, SAMPLE), th.ev(5, 300, 700, SAMPLE)] + gc(5, 800))
sp(w, 1000, [(100, th.seq[100]), (300, 7), (400, 1)])
# EventBlock 3
evs = []
for n in range(6, 26):
    evs += gc(n, 1100 + (n - 6) * 100)
evs.append(th.ev(5, 300, 3500, SAMPLE))
events(w, evs)
sp(w, 4000, [(100, th.seq[100]), (300, 8), (400, 1)])
# EventBlock 4
events(w, [th.ev(5, 400, 4100, SAMPLE, seq=3)] + gc(26, 4200))
w.end()
path = os.path.join(TMP, "gaps.nettrace")
open(path, "wb").write(bytes(w.b))

WANT_LOST = set([2, 3] + list(range(6, 26)))
WANT_DONE = {1, 4, 5, 26}
WINDOWS = [(150, 300, 2), (300, 500, 2), (1000, 4100, 1)]


def sql(db, q):
    p = subprocess.run([GCSCOPE, "sql", db, q, "--csv"], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "sql %s: %r" % (q, p.stderr))
    return [l.split(",") for l in p.stdout.strip().splitlines()[1:]]


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
