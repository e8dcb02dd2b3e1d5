#!/usr/bin/env python3
"""nettrace_held.py GCSCOPE TMP -- an import's memory does not grow with the
number of GCs: the GCs written while the file is read are freed, so the
most GCs the reconstruction holds at once (`import -v`: "at most K GCs held
in memory") is the same for a file of 2,000 GCs and one of 10,000, and
every GC table is the same as when every GC is written (and held) to the
end.

Hand-made files (tests/import/nettrace_gaps.py's writer), pid 4545: thread
100 runs GC n (n = 1..N, gen0) from 10 n ms to 10 n + 2 (SuspendEEBegin,
SuspendEEEnd, GCStart, GCEnd, GCHeapStats, RestartEEEnd); an EventBlock of
100 GCs, then a sequence point listing thread 100 at its last number. The
reader hands a block's events over at its sequence point, and no loss
window can begin before the point before the last one read (the horizon):
the GCs of about one block wait, and a GC is written once done before it
and 16 newer ones began (recon's FINAL_LAG). A store runs after the event
that completes a GC, every E GCs (GCSCOPE_STORE_GCS_EVERY); the count is
taken at each GCStart. While block B is handed over, the horizon is the
last event of block B - 1 (its last GC's RestartEEEnd): a store at GC p
of block B writes up to the GC before block B - 1's last (that one is
done at the horizon, not before it), and the next store comes at GC
p + E, at whose GCStart GCs L(B - 1) - 1 to p + E are held:
p + E - L(B - 1) + 2, at most 100 + E + 2 (p the last GC of block B: L(B)
= 100 B here, a multiple of E). So with a store after every GC (E = 1)
103 GCs held, with the default (E = 64; GC 1,600 ends block 16 and is the
25th store) 166, for N = 2,000 and N = 10,000 alike; all N written at the
end (=0) hold all N (2,000 and 10,000): the count sees the GCs held. No
background GC: none is kept beside them.

A third file of 2,001 GCs begins inside GC 1 (its GCStart, GCEnd,
GCHeapStats and RestartEEEnd without the suspension before: it never
completes, "no suspension before its GCStart") and thread 100's numbers
skip by 5 in the middle of block 10 (events lost: a window that marks the
GCs around it). GC 1 stays open to the end, but a loss window's scan stops
16 GCs done before it, so once 16 later GCs are done before the horizon
no window can reach it: it is written while reading and does not hold the
GCs after it (before, nothing was written early and all 2,001 were held):
103 held with a store after every GC (as above), and at most 200 (two
blocks) every 64 (165 seen: its blocks end at GC 101 + 100 B, and GC 1's
report, when it is written early, moves the stores by one), the tables
those of writing every GC at the end.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish, fresh_dir  # noqa: E402
import nettrace_gaps as ng  # noqa: E402

GCSCOPE, TMP = sys.argv[1:3]
fresh_dir(TMP)
PID = 4545


def make(blocks, began=False):
    f = ng.File(os.path.join(TMP, "w%d%s" % (blocks, "b" if began else "")), PID)
    n = 1
    if began:   # GC 1 without its suspension: the trace began inside it
        f.events(f.gc(n, 10 * n)[2:])
        n += 1
        f.sp(10 * n, [(100, f.seq[100])])
    for b in range(blocks):
        evs = []
        for i in range(100):
            if began and b == 10 and i == 50:   # 5 numbers skipped: events lost
                f.seq[100] += 5
            evs += f.gc(n, 10 * n)
            n += 1
        f.events(evs)
        f.sp(10 * n, [(100, f.seq[100])])
    return f.write(os.path.join(TMP, "gcs%d%s.nettrace" % (blocks, "b" if began else "")))


TABLES = ("SELECT 'gcs', * FROM gcs ORDER BY id; SELECT 'gens', * FROM gc_gens ORDER BY gc_id, gen; "
          "SELECT 'summary', * FROM gc_process_summary")


def imp(path, every):
    db = os.path.join(TMP, "%s-%s.db" % (os.path.basename(path), every))
    env = dict(os.environ, GCSCOPE_STORE_GCS_EVERY=every)
    p = subprocess.run([GCSCOPE, "import", "-v", "-d", db, path], capture_output=True, text=True, env=env,
                       timeout=120)
    check(p.returncode == 0, "import %s (every %s): %r" % (path, every, p.stdout + p.stderr))
    m = re.search(r"^  at most (\d+) GCs held in memory$", p.stdout, re.M)
    check(m is not None, "no held count in %r" % p.stdout)
    rows = subprocess.run([GCSCOPE, "sql", db, TABLES, "--csv"], capture_output=True, text=True, timeout=120)
    check(rows.returncode == 0, "sql: %r" % rows.stderr)
    return (int(m.group(1)) if m else -1), rows.stdout


held = {}
for blocks in (20, 100):
    path = make(blocks)
    n = blocks * 100
    k0, rows0 = imp(path, "0")
    check(k0 == n, "%d GCs all written at the end: %d held, expected %d" % (n, k0, n))
    check(rows0.count("\ngcs,") == n, "%d GCs: %d gcs rows" % (n, rows0.count("\ngcs,")))
    for every in ("1", "64"):
        k, rows = imp(path, every)
        check(rows == rows0, "%d GCs, every %s: the GC tables differ from every GC written at the end" % (n, every))
        want = 103 if every == "1" else 166
        check(k == want, "%d GCs, every %s: %d GCs held, expected %d" % (n, every, k, want))
        held[(blocks, every)] = k
        print("%d GCs, store every %s: at most %d held" % (n, every, k))
path = make(20, began=True)
k0, rows0 = imp(path, "0")
check(k0 == 2001, "began inside GC 1, all written at the end: %d held, expected 2001" % k0)
check("no suspension before its GCStart" in rows0, "GC 1 not marked: began inside it")
check("events lost" in rows0, "no GC marked events lost")
for every in ("1", "64"):
    k, rows = imp(path, every)
    check(rows == rows0, "began inside GC 1, every %s: the GC tables differ from every GC written at the end" % every)
    check(k == 103 if every == "1" else 0 < k <= 200,
          "began inside GC 1, every %s: %d GCs held, expected %s" % (every, k, "103" if every == "1" else "at most 200"))
    print("2,001 GCs, the first never complete, store every %s: at most %d held" % (every, k))
for every in ("1", "64"):
    check(held.get((20, every)) == held.get((100, every)),
          "every %s: %r held for 2,000 GCs, %r for 10,000: memory grows with the GCs" %
          (every, held.get((20, every)), held.get((100, every))))

sys.exit(finish())
