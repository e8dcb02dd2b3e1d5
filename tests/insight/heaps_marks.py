#!/usr/bin/env python3
"""heaps_marks.py GCSCOPE SCHEMA_TRACE WORKDIR

`gcscope heaps` places each GCMarkWithType in a GC and sums it per GC and
heap. Since issue 27 that is done in one pass in C (a binary search per mark)
instead of SQL's two correlated look-ups per mark; a payload of another shape
makes the command fall back to the SQL. Both must place marks by the same
rule: a mark belongs to the latest-started GC of its process if that GC
contains it (start <= ts and (no end or end >= ts)), else to the latest-started
background GC if that one does, else to none. Among GCs with equal starts the
latest is the one stored last.

The database has gcscope's schema (from importing SCHEMA_TRACE) with the
rows replaced by hand-made ones (events as a plain table, as scale.py does):
pid 7's GCs, with times in us after T0
  #10 blocking 1000-2000   #11 background 3000-9000   #12 blocking 4000-5000
  #13 blocking 10000-(no end)   #15 blocking 30000-30500   #16 blocking 30000-31000
and marks (us, heap, kind, bytes):
  1500 h0 Stack 100000, 1600 h1 Older 50000, 1700 h0 Finalizer 7000  -> #10
  2500 h0 Stack 999000                       -> no GC (between #10 and #11)
  3500 h0 Handle 20000                       -> #11 (only it contains it)
  4500 h0 Stack 30000                        -> #12 (latest, contains it)
  6000 h0 Stack 40000, 6100 h0 SizedRef 5000 -> #11 (#12 has ended)
  11000 h0 7 3000                            -> #13 (no end; kind 7: "other")
  30200 h0 Stack 1000, 30800 h0 Stack 2000   -> #16 (stored after #15)
  and pid 8 at 1500 (pid 8 has no GC)        -> none.
Expected, by hand: per GC and heap (stack, finalize_queue, handles, older,
other, total, imbalance):
  #10 h0 100000 7000 0 0 0 107000 1.363 (107000 / mean(107000, 50000))
  #10 h1 0 0 0 50000 0 50000 1.363
  #11 h0 40000 0 25000 0 0 65000 1.0;  #12 h0 30000 ... 30000 1.0
  #13 h0 0 0 0 0 3000 3000 1.0;        #16 h0 3000 ... 3000 1.0
per heap: h0 5 GCs, 0.208 MB, 80.6 %, mark ms mean (0.7+3.1+0.5+1.0+0.8)/5
= 1.22, max 3.1; h1 1 GC, 0.05 MB, 19.4 %, 0.6 / 0.6.
Then one more mark in another text shape ("HeapNum=1 ClrInstanceID=0
Type=Stack Bytes=4000" at 1800: #10 heap 1, as the SQL reads it) takes the
SQL path: the same figures with #10 h1's stack 4000, total 54000, its last
mark 0.8 ms after the GC's start."""
import csv, io, os, sqlite3, subprocess, sys

GCSCOPE, TRACE, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
db = os.path.join(WORK, "heaps-marks.db")
if os.path.exists(db):
    os.remove(db)
subprocess.run([GCSCOPE, "import", "-q", "-d", db, TRACE], check=True, capture_output=True)
T0 = 1_700_000_000_000_000_000
US = 1000
c = sqlite3.connect(db)
for t in ("gcs", "gc_gens", "gc_heaps", "gc_heap_gens", "event_blocks", "gc_process_summary"):
    c.execute("DELETE FROM %s" % t)
c.execute("DROP VIEW events")
c.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, trace_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, "
          "pid INTEGER NOT NULL, tid INTEGER NOT NULL, cpu INTEGER NOT NULL, name TEXT NOT NULL, "
          "version INTEGER NOT NULL, payload TEXT NOT NULL)")
tid = c.execute("SELECT id FROM traces").fetchone()[0]
c.execute("UPDATE traces SET start_ns = ?, end_ns = ?, time_ordered = NULL", (T0, T0 + 40000 * US))
BGC, BLOCKING = 1, 0   # gc_type: NonConcurrentGC 0, BackgroundGC 1
gcs = [(10, BLOCKING, 1000, 2000), (11, BGC, 3000, 9000), (12, BLOCKING, 4000, 5000), (13, BLOCKING, 10000, None),
       (15, BLOCKING, 30000, 30500), (16, BLOCKING, 30000, 31000)]
for i, (idx, typ, s, e) in enumerate(gcs):
    c.execute("INSERT INTO gcs (id, trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name, reason, "
              "reason_name, complete, start_ns, end_ns) VALUES (?, ?, 7, 0, ?, ?, ?, ?, '0N', 0, 'AllocSmall', 1, ?, ?)",
              (i + 1, tid, idx, i, 2 if typ == BGC else 0, typ, T0 + s * US, None if e is None else T0 + e * US))
marks = [(1500, 7, 0, "Stack", 100000), (1600, 7, 1, "Older", 50000), (1700, 7, 0, "Finalizer", 7000),
         (2500, 7, 0, "Stack", 999000), (3500, 7, 0, "Handle", 20000), (4500, 7, 0, "Stack", 30000),
         (6000, 7, 0, "Stack", 40000), (6100, 7, 0, "SizedRef", 5000), (11000, 7, 0, "7", 3000),
         (30200, 7, 0, "Stack", 1000), (30800, 7, 0, "Stack", 2000), (1500, 8, 0, "Stack", 123000)]


def add_mark(ts, pid, payload):
    # The first report renames the table legacy_events (a database of an older
    # gcscope) and reads it through the events view.
    table = "legacy_events" if c.execute("SELECT 1 FROM sqlite_master WHERE name = 'legacy_events'").fetchone() \
        else "events"
    c.execute("INSERT INTO " + table + " (trace_id, ts_ns, pid, tid, cpu, name, version, payload) "
              "VALUES (?, ?, ?, 1, 0, 'GCMarkWithType', 0, ?)", (tid, T0 + ts * US, pid, payload))


for ts, pid, heap, kind, b in marks:
    add_mark(ts, pid, "HeapNum=%d Type=%s Bytes=%d" % (heap, kind, b))
c.commit()

failures = 0


def check(what, got, want):
    global failures
    if got != want:
        failures += 1
        print("FAIL: %s: %r, expected %r" % (what, got, want))


def rows(args):
    p = subprocess.run([GCSCOPE, "heaps", db, "--format", "csv"] + args, capture_output=True, text=True)
    check("heaps %s exit status (stderr %r)" % (args, p.stderr), p.returncode, 0)
    return list(csv.reader(io.StringIO(p.stdout)))


def expect(h1_stack, h1_total, h1_mark_ms):
    summary = rows([])
    check("summary header", summary[0], ["trace_id", "pid", "heap", "gcs", "marked_mb", "share_pct", "mean_mark_ms",
                                         "max_mark_ms"])
    s = [[float(x) for x in r] for r in summary[1:]]
    h0 = 107000 + 65000 + 30000 + 3000 + 3000
    check("summary rows", s, [[tid, 7, 0, 5, round(h0 / 1e6, 3), round(100.0 * h0 / (h0 + h1_total), 1), 1.22, 3.1],
                              [tid, 7, 1, 1, round(h1_total / 1e6, 3), round(100.0 * h1_total / (h0 + h1_total), 1),
                               h1_mark_ms, h1_mark_ms]])
    per = rows(["--all"])
    at = [i for i, r in enumerate(per) if r and r[0] == "trace_id"]
    check("two CSV tables", len(at), 2)
    g = [[float(x) for x in r] for r in per[at[1] + 1:] if r]
    imb = round(max(107000, h1_total) / ((107000 + h1_total) / 2), 3)
    check("per GC and heap", g, [
        [tid, 7, 10, 0, 100000, 7000, 0, 0, 0, 107000, imb],
        [tid, 7, 10, 1, h1_stack, 0, 0, 50000, 0, h1_total, imb],
        [tid, 7, 11, 0, 40000, 0, 25000, 0, 0, 65000, 1.0],
        [tid, 7, 12, 0, 30000, 0, 0, 0, 0, 30000, 1.0],
        [tid, 7, 13, 0, 0, 0, 0, 0, 3000, 3000, 1.0],
        [tid, 7, 16, 0, 3000, 0, 0, 0, 0, 3000, 1.0]])
    only8 = subprocess.run([GCSCOPE, "heaps", db, "--pid", "8"], capture_output=True, text=True)
    check("pid 8: no mark in a GC, exit 1", only8.returncode, 1)


expect(0, 50000, 0.6)
# A text of another shape: the SQL path, which reads HeapNum as "1 ClrInstanceID=0" cast to 1.
add_mark(1800, 7, "HeapNum=1 ClrInstanceID=0 Type=Stack Bytes=4000")
c.commit()
expect(4000, 54000, 0.8)
print("%s" % ("FAILED" if failures else "heaps placed every mark as expected (C and SQL paths)"))
sys.exit(1 if failures else 0)
