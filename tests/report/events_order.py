#!/usr/bin/env python3
"""events_order.py GCSCOPE TRACES_DIR CORPUS_MAKER TMP — `gcscope events` reads
a trace as stored when its import found the events in time order
(traces.time_ordered = 1), else sorts them; either way its output is the
events of each trace by ts_ns, ties by id, trace by trace:

- every real trace of TRACES_DIR imports with time_ordered = 1 exactly when
  its events, in id order, have non-decreasing times (computed here from the
  events view); `gcscope events` prints, line for line, the events view's rows
  sorted here by (trace_id, ts_ns, id), and the same bytes as the sorting
  path (a copy of the database with time_ordered NULL, as an older gcscope
  left it), with --trace, --pid, --filter and --from/--to too;
- a query naming the payload several times gets the same text each time;
- a .nettrace written here (with tests/nettrace/tools/make_corpus.py's
  writer) whose second region holds an event older than the first region's
  last, and one at the same time as an earlier one, imports with
  time_ordered = 0 and still prints in (ts_ns, id) order; the stored order
  (time_ordered forced to 1) would print it differently."""
import csv
import io
import os
import shutil
import sqlite3
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker, corpus_writer, fresh_dir  # noqa: E402

G, TRACES, MAKER, TMP = sys.argv[1:5]
T = Checker(G)
fresh_dir(TMP)


def set_flag(db, value):
    c = sqlite3.connect(db)
    c.execute("UPDATE traces SET time_ordered = ?", (value,))
    c.commit()
    c.close()


def view_rows(db):
    """(trace_id, id, ts_ns, name, pid, tid, payload) of every events row, and each trace's start_ns."""
    rc, out, err = T.run("sql", db, "SELECT e.trace_id, e.id, e.ts_ns, e.name, e.pid, e.tid, e.payload FROM events e",
                         "--csv")
    T.check(rc == 0, "events view read (%s)" % err.strip())
    rows = [(int(r[0]), int(r[1]), int(r[2]), r[3], int(r[4]), int(r[5]), r[6])
            for r in list(csv.reader(io.StringIO(out)))[1:]]
    rc, out, err = T.run("sql", db, "SELECT id, start_ns FROM traces", "--csv")
    starts = {int(r[0]): int(r[1]) for r in list(csv.reader(io.StringIO(out)))[1:]}
    return rows, starts


def printed(out):
    """`gcscope events` lines as (name, ms, pid, tid, payload); '-- trace N' lines as ('--', N)."""
    lines = out.split("\n")
    T.check(lines[0].startswith("Event Name") and lines[-1] == "", "header and final newline")
    res = []
    for l in lines[1:-1]:
        if l.startswith("-- trace "):
            res.append(("--", int(l[9:])))
        else:
            res.append((l[:24].rstrip(), float(l[25:41].replace(",", "")), int(l[42:50]), int(l[51:59]), l[61:]))
    return res


def expected(rows, starts):
    """The rows sorted here by (trace_id, ts_ns, id), as printed()."""
    res, last = [], None
    for tr, i, ts, name, pid, tid, payload in sorted(rows, key=lambda r: (r[0], r[2], r[1])):
        if last is not None and tr != last:
            res.append(("--", tr))
        last = tr
        res.append((name, (ts - starts[tr]) / 1e6, pid, tid, payload))
    return res


def same(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x[0] == "--" or y[0] == "--":
            if x != y:
                return False
        elif (x[0], x[2], x[3], x[4]) != (y[0], y[2], y[3], y[4]) or abs(x[1] - y[1]) > 0.0005001:
            return False
    return True


# ---- the real traces --------------------------------------------------------------
db = TMP + "/real.db"
paths = sorted(os.path.join(TRACES, "nettrace", f) for f in os.listdir(os.path.join(TRACES, "nettrace"))
               if f.endswith(".nettrace"))
paths += sorted(os.path.join(TRACES, "coreclr", d) for d in os.listdir(os.path.join(TRACES, "coreclr")))
for p in paths:
    rc, out, err = T.run("import", "-q", "-d", db, p)
    T.check(rc == 0, "import %s (%s)" % (p, err.strip()))
rows, starts = view_rows(db)
T.check(len(starts) == len(paths) and len(rows) > 20000, "%d traces, %d events" % (len(starts), len(rows)))
flags = dict((int(r[0]), r[1]) for r in T.rows(db, "SELECT id, time_ordered FROM traces"))
for tr in starts:
    ts = [r[2] for r in sorted((r for r in rows if r[0] == tr), key=lambda r: r[1])]
    ordered = all(a <= b for a, b in zip(ts, ts[1:]))
    T.check(flags.get(tr) == ("1" if ordered else "0"), "trace %d: time_ordered %r, events in id order %s"
            % (tr, flags.get(tr), "time-ordered" if ordered else "not time-ordered"))
sorted_db = TMP + "/real-sorted.db"
shutil.copy(db, sorted_db)
set_flag(sorted_db, None)
rc, out, err = T.run("events", db)
T.check(rc == 0 and same(printed(out), expected(rows, starts)), "real traces: (trace_id, ts_ns, id) order")
pid = max(set(r[4] for r in rows), key=lambda p: sum(1 for r in rows if r[4] == p))
for args in ([], ["--trace", "1"], ["--trace", "4"], ["--pid", str(pid)], ["--filter", "GCStart|GCEnd"],
             ["--from", "100", "--to", "2500.5"], ["--trace", "1", "--filter", "mark", "--from", "3000"]):
    a = T.run("events", db, *args)
    b = T.run("events", sorted_db, *args)
    T.check(a[0] == 0 and a == b and a[1].count("\n") > 1,
            "events %s: stored and sorted paths, byte for byte (%d lines)" % (" ".join(args), a[1].count("\n")))

# GCAllocationTick is kept apart (view alloc_ticks) and not listed: the
# listing says so, once, on stderr, when it would have had them (these
# traces hold ticks: netcore2017-allocationtick), and not for a filter that
# cannot match them or a database without ticks (ooo.db, below).
NOTE = "gcscope events: GCAllocationTick is left out (gcscope allocs; view alloc_ticks)\n"
ticks = int(T.rows(db, "SELECT count(*) FROM alloc_ticks")[0][0])
T.check(ticks > 0, "premise: the real traces hold allocation ticks (%d)" % ticks)
for args, note in (([], True), (["--filter", "AllocationTick"], True), (["--filter", "GCStart|GCEnd"], False)):
    rc, out, err = T.run("events", db, *args)
    T.check(rc == 0 and err == (NOTE if note else "") and "GCAllocationTick" not in out,
            "events %s: %s (%r)" % (" ".join(args), "the note" if note else "no note", err))

# gcs_unpack formats a row's payload once however often a query names it
# (gcscope heaps names it eight times): the same text as a lone reference, row by row.
rc, one, err = T.run("sql", db, "SELECT e.id, e.payload FROM events e", "--csv")
rc2, three, err2 = T.run("sql", db, "SELECT e.id, e.payload || '|' || substr(e.payload, 1) || '|' || e.payload FROM events e",
                         "--csv")
one = list(csv.reader(io.StringIO(one)))[1:]
three = list(csv.reader(io.StringIO(three)))[1:]
T.check(rc == 0 and rc2 == 0 and len(one) == len(rows) and len(set(p for _, p in one)) > 1000 and
        [[i, "|".join([p] * 3)] for i, p in one] == three, "payload named three times in a row: the same text")

# ---- an out-of-order .nettrace ------------------------------------------------------
m = corpus_writer(MAKER, TMP)   # it writes its corpus there too
w = m["Writer"]()
w.trace((2024, 1, 2, 2, 3, 4, 5, 678), 1000, 1000000000, 8, 4242)
RT = m["RT"]
w.block("MetadataBlock", m["block_header"](1) + m["compressed"]([m["md"](0, x) for x in (
    m["meta_record"](1, RT, 1, "", 2),    # GCStart_V2
    m["meta_record"](2, RT, 2, "", 1),    # GCEnd_V1
    m["meta_record"](3, RT, 9, "", 1),    # GCSuspendEEBegin_V1
    m["meta_record"](4, RT, 3, "", 1))]))  # GCRestartEEEnd_V1
ev, gcstart = m["ev"], m["gcstart"]
i32, i64 = m["i32"], m["i64"]
w.block("EventBlock", m["block_header"](1) + m["compressed"]([
    ev(3, 1, 100, 2000, struct.pack("<IIH", 1, 7, 3)),
    ev(1, 2, 100, 2500, gcstart(1, 0, 0, 0)),
    ev(2, 3, 100, 3000, struct.pack("<IIH", 1, 0, 3)),
    ev(4, 4, 100, 3500, struct.pack("<H", 3))]))
# A sequence point: the reader delivers the first region before it reads the second.
w.block("SPBlock", i64(4000) + i32(2) + i64(100) + i32(4) + i64(300) + i32(0))
w.block("EventBlock", m["block_header"](1) + m["compressed"]([
    ev(3, 1, 300, 2200, struct.pack("<IIH", 1, 8, 3)),      # older than the first region's last
    ev(1, 2, 300, 2500, gcstart(2, 1, 0, 0)),                # the same time as GCStart Count=1
    ev(4, 5, 100, 5000, struct.pack("<H", 3))]))
w.end()
nt = TMP + "/out-of-order.nettrace"
open(nt, "wb").write(bytes(w.b))
db2 = TMP + "/ooo.db"
rc, out, err = T.run("import", "-q", "-d", db2, nt)
T.check(rc == 0, "import the out-of-order trace (%s)" % err.strip())
T.check(T.rows(db2, "SELECT time_ordered FROM traces") == [["0"]], "out-of-order trace: time_ordered 0 (%r)"
        % T.rows(db2, "SELECT time_ordered FROM traces"))
rows2, starts2 = view_rows(db2)
T.check(len(rows2) == 7, "7 events (%d)" % len(rows2))
by_id = [r[2] for r in sorted(rows2, key=lambda r: r[1])]
T.check(any(a > b for a, b in zip(by_id, by_id[1:])) and len(set(by_id)) < len(by_id),
        "stored out of time order, with a tie on ts_ns (%r)" % by_id)
rc, out, err = T.run("events", db2)
T.check(err == "", "no ticks in ooo.db: no note (%r)" % err)
got = printed(out)
T.check(rc == 0 and same(got, expected(rows2, starts2)), "out-of-order trace: (ts_ns, id) order\n" + out)
# The GCStart of the first region (smaller id) before the second's at the same time.
starts_printed = [x[4] for x in got if x[0] == "GCStart"]
T.check(len(starts_printed) == 2 and starts_printed[0].startswith("Count=1 ") and starts_printed[1].startswith("Count=2 "),
        "the tie on ts_ns broken by id (%r)" % starts_printed)
T.check(T.run("events", db2, "--filter", "Suspend")[1].split("\n")[1:3] ==
        [x for x in out.split("\n") if x.startswith("GCSuspendEEBegin")], "--filter keeps the order")
forced = TMP + "/ooo-forced.db"
shutil.copy(db2, forced)
set_flag(forced, 1)
T.check(T.run("events", forced)[1] != out, "read as stored, the out-of-order trace would print otherwise")
sys.exit(T.done())
