#!/usr/bin/env python3
"""compact_same.py GCSCOPE TRACES_DIR RGC_TRACE TMP GOLDEN [--update] — the
compact GC tables (gcs_base, gc_gens_base, gc_heaps_base, gc_heap_gens_base
under the views gcs, gc_gens, gc_heaps, gc_heap_gens) give every GC of the
corpus traces and of a librgc recording (tests/import/data/rgc-server-verbose:
`gcscope record --profile verbose -- gcsim --scenario server --alloc-mb 200`,
38 GCs on 2 heaps, one background GC) exactly the rows the tables of the
previous layout stored: GOLDEN holds, per trace and view, the row count and
the md5 of every row with each value's type and its exact bits (a double as
float.hex()), made by gcscope before the compact tables (commit 194d321):
  python3 compact_same.py GCSCOPE TRACES_DIR RGC_TRACE TMP GOLDEN --update
(netcore31-perfcollect-default's lines since gcs ids follow GCStart order
over a trace's processes rather than one process after the other: its GCs
of two processes have other ids, every other value the same; the gcs lines
since runtime_pause_msec ends a blocking GC's pause at its GCEnd: that
column alone differs.)
Then the same rows written back through the views (their INSTEAD OF
triggers, as a user's INSERT) into an emptied copy read back identical, and
an UPDATE and a DELETE through the views do what they do on a table."""
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys

G, TRACES, RGC, TMP, GOLDEN = sys.argv[1:6]
UPDATE = sys.argv[6:] == ["--update"]
VIEWS = (("gcs", "id"), ("gc_gens", "gc_id, gen"), ("gc_heaps", "gc_id, heap_slot"),
         ("gc_heap_gens", "gc_id, gen, heap_slot"))
TRACE_LIST = [("netcore31-perfcollect-default", os.path.join(TRACES, "coreclr/netcore31-perfcollect-default")),
              ("netcore2017-gcstart-gcend", os.path.join(TRACES, "coreclr/netcore2017-gcstart-gcend")),
              ("objver4-nettrace", os.path.join(TRACES, "nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace")),
              ("rgc-server-verbose", RGC)]
fails = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL: " + msg)


def exact(v):
    if isinstance(v, float):
        return "r" + v.hex()
    if isinstance(v, int):
        return "i%d" % v
    if v is None:
        return "n"
    return "t" + repr(v)


def dump(db):
    c = sqlite3.connect(db)
    out = {}
    for view, order in VIEWS:
        cols = [d[0] for d in c.execute("SELECT * FROM %s LIMIT 0" % view).description]
        h = hashlib.md5((",".join(cols) + "\n").encode())
        n = 0
        for row in c.execute("SELECT * FROM %s ORDER BY %s" % (view, order)):
            h.update((" ".join(exact(v) for v in row) + "\n").encode())
            n += 1
        out[view] = "%d %s" % (n, h.hexdigest())
    c.close()
    return out


shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
lines = []
dbs = {}
for name, path in TRACE_LIST:
    db = os.path.join(TMP, name + ".db")
    p = subprocess.run([G, "import", "-q", "-d", db, path], capture_output=True, text=True)
    if p.returncode != 0:
        print("FAIL: import %s: %s" % (name, p.stderr.strip()))
        sys.exit(1)
    dbs[name] = db
    for view, d in dump(db).items():
        lines.append("%s %s %s" % (name, view, d))
if UPDATE:
    with open(GOLDEN, "w") as f:
        f.write("\n".join(lines) + "\n")
    sys.exit(0)
golden = open(GOLDEN).read().split("\n")[:-1]
for want, got in zip(golden, lines):
    if want != got:
        fail("%s (the previous layout) != %s (now)" % (want, got))
if len(golden) != len(lines):
    fail("%d golden lines, %d now" % (len(golden), len(lines)))
for name in dbs:
    n = sum(int(l.split()[2]) for l in lines if l.startswith(name + " "))
    if name != "netcore2017-gcstart-gcend" and n < 30:
        fail("%s: only %d rows" % (name, n))

# The views are writable: the rows written back through their triggers.
src = dbs["rgc-server-verbose"]
copy = os.path.join(TMP, "through-views.db")
shutil.copy(src, copy)
a, b = sqlite3.connect(src), sqlite3.connect(copy)
for view, _ in reversed(VIEWS):
    b.execute("DELETE FROM %s" % view)
empty = [b.execute("SELECT count(*) FROM %s_base" % v).fetchone()[0] for v, _ in VIEWS]
if empty != [0, 0, 0, 0]:
    fail("DELETE through the views left base rows %r" % empty)
for view, order in VIEWS:
    cols = [d[0] for d in a.execute("SELECT * FROM %s LIMIT 0" % view).description]
    b.executemany("INSERT INTO %s (%s) VALUES (%s)" % (view, ", ".join(cols), ", ".join("?" * len(cols))),
                  a.execute("SELECT * FROM %s ORDER BY %s" % (view, order)))
b.commit()
b.close()
if dump(copy) != dump(src):
    fail("the rows written through the views' triggers read back differently")
b = sqlite3.connect(copy)
gid, pause = b.execute("SELECT id, pause_msec FROM gcs WHERE pause_msec > 0 ORDER BY id LIMIT 1").fetchone()
b.execute("UPDATE gcs SET pause_msec = 2 * pause_msec, cr_induced = 2 WHERE id = ?", (gid,))
b.execute("UPDATE gc_heap_gens SET size_after = 12345 WHERE gc_id = ? AND heap_slot = 1 AND gen = 2", (gid,))
b.execute("DELETE FROM gc_heap_gens WHERE gc_id = ? AND heap_slot = 0 AND gen = 4", (gid,))
got = (b.execute("SELECT pause_msec, cr_induced FROM gcs WHERE id = ?", (gid,)).fetchone(),
       b.execute("SELECT size_after FROM gc_heap_gens WHERE gc_id = ? AND heap_slot = 1 AND gen = 2", (gid,)).fetchone(),
       b.execute("SELECT count(*) FROM gc_heap_gens WHERE gc_id = ?", (gid,)).fetchone()[0],
       b.execute("SELECT count(*) FROM gc_heap_gens WHERE gc_id = ? AND heap_slot = 0 AND gen = 4", (gid,)).fetchone()[0])
if got != ((2 * pause, 2), (12345,), 9, 0):
    fail("UPDATE/DELETE through the views: %r" % (got,))
print("%d views of %d traces: the previous layout's rows, exactly" % (len(lines), len(TRACE_LIST)) if not fails else "")
sys.exit(1 if fails else 0)
