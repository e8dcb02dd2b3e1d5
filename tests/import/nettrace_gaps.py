"""nettrace_gaps.py -- the hand-made .nettrace files of the loss-window tests
(nettrace_lost_window.py, nettrace_idle_horizon.py), written with
tests/nettrace/tools/make_corpus.py's writer: SyncTimeUTC 2024-01-02
03:04:05.678 at QPC 0, 1e9 ticks/s (1 tick = 1 ns), times in ms from that
instant; the runtime's GC events and the sampler's ThreadSample declared.
Thread 100 runs every GC: gc(n, s) is GC n from s to s + 2 ms (gen0,
SuspendEEBegin s, SuspendEEEnd s+0.25, GCStart s+0.5, GCEnd s+1, GCHeapStats
s+1.5, RestartEEEnd s+2). Each thread's sequence numbers count up unless an
event gives its own (a gap)."""
import calendar
import datetime
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from gcs_check import check, corpus_writer, fresh_dir  # noqa: E402

MS = 1000000
T0 = calendar.timegm(datetime.datetime(2024, 1, 2, 3, 4, 5).timetuple()) * 10**9 + 678 * MS
STATS = struct.pack('<10Q3IH', 1000000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3)
SAMPLE = b'\x01\0\0\0'   # a ThreadSample's payload (meta 5): not a GC event


class File:
    def __init__(self, tmp, pid):
        self.mc = corpus_writer(os.path.join(HERE, "..", "nettrace", "tools", "make_corpus.py"),
                                fresh_dir(os.path.join(tmp, "c")))
        self.seq = {}
        mc = self.mc
        self.w = mc['Writer']()
        self.w.trace((2024, 1, 2, 2, 3, 4, 5, 678), 0, 1000000000, 8, pid)
        RT = mc['RT']
        metas = [mc['meta_record'](1, RT, 1, '', 2), mc['meta_record'](2, RT, 2, '', 1),
                 mc['meta_record'](3, RT, 9, '', 1), mc['meta_record'](4, RT, 3, '', 1),
                 mc['meta_record'](9, RT, 4, '', 1), mc['meta_record'](8, RT, 8, '', 1),
                 mc['meta_record'](5, mc['SAMPLER'], 0, 'ThreadSample', 0)]
        self.w.block('MetadataBlock', mc['block_header'](1) + mc['compressed']([mc['md'](0, m) for m in metas]))

    def ev(self, meta, thread, ms, payload, seq=None):
        s = self.seq.get(thread, 0) + 1 if seq is None else seq
        self.seq[thread] = s
        return self.mc['ev'](meta, s, thread, int(round(ms * MS)), payload)

    def gc(self, n, s):
        e, mc = self.ev, self.mc
        return [e(3, 100, s, struct.pack('<IIH', 1, n - 1, 3)),        # SuspendEEBegin SuspendForGC
                e(8, 100, s + 0.25, struct.pack('<H', 3)),             # SuspendEEEnd
                e(1, 100, s + 0.5, mc['gcstart'](n, 0, 0, 0)),         # GCStart gen0 AllocSmall blocking
                e(2, 100, s + 1, struct.pack('<IIH', n, 0, 3)),        # GCEnd
                e(9, 100, s + 1.5, STATS),                             # GCHeapStats
                e(4, 100, s + 2, struct.pack('<H', 3))]                # RestartEEEnd

    def events(self, evs):
        self.w.block('EventBlock', self.mc['block_header'](1) + self.mc['compressed'](evs))

    def sp(self, ms, threads):
        """A sequence point at ms: threads [(tid, its sequence number)]."""
        mc = self.mc
        self.w.block('SPBlock', mc['i64'](int(ms * MS)) + mc['i32'](len(threads)) +
                     b''.join(mc['i64'](t) + mc['i32'](s) for t, s in threads))

    def write(self, path):
        self.w.end()
        open(path, "wb").write(bytes(self.w.b))
        return path


def sql(gcscope, db, q):
    p = subprocess.run([gcscope, "sql", db, q, "--csv"], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "sql %s: %r" % (q, p.stderr))
    return [l.split(",") for l in p.stdout.strip().splitlines()[1:]]
