#!/usr/bin/env python3
"""allocs_sums.py GCSCOPE TRACES_DIR CORPUS_MAKER TMP — `gcscope allocs` sums
the AllocationTick samples per trace, process and type itself (not by SQLite's
GROUP BY); its rows must be the sums and ranks computed here from the
alloc_ticks view: on the real traces of TRACES_DIR and on a .nettrace written
here (tests/nettrace/tools/make_corpus.py's writer) holding version-1 ticks
(no type name: '(unknown type)') beside named ones, of every kind, two types
with the same bytes (ranked by name), with --top, --pid and --trace."""
import csv
import io
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker, corpus_writer, fresh_dir  # noqa: E402

G, TRACES, MAKER, TMP = sys.argv[1:5]
T = Checker(G)
fresh_dir(TMP)
db = TMP + "/allocs.db"

# A .nettrace of ticks: version 1 (no type) and version 2 (a type name), kinds 0, 1, 2.
m = corpus_writer(MAKER, TMP)   # it writes its corpus there too
w = m["Writer"]()
w.trace((2024, 1, 2, 2, 3, 4, 5, 678), 1000, 1000000000, 8, 5151)
RT = m["RT"]
w.block("MetadataBlock", m["block_header"](1) + m["compressed"]([m["md"](0, x) for x in (
    m["meta_record"](1, RT, 10, "", 1), m["meta_record"](2, RT, 10, "", 2))]))


def v1(amount, kind):
    return struct.pack("<IIH", amount, kind, 3)


def v2(amount, kind, name, heap=0):
    return struct.pack("<IIHQQ", amount & 0xFFFFFFFF, kind, 3, amount, 0x7f00) + m["u16z"](name) + struct.pack("<I", heap)


ticks = [(1, v1(100000, 0)), (1, v1(100500, 1)), (1, v1(7, 2)),
         (2, v2(300000, 0, "App.Same")), (2, v2(150000, 0, "App.Alpha")), (2, v2(150000, 2, "App.Alpha")),
         (2, v2(300000, 1, "App.Other")), (2, v2(5000000000, 1, "App.Big")), (2, v2(300000, 0, "App.Same"))]
w.block("EventBlock", m["block_header"](1) + m["compressed"](
    [m["ev"](meta, i + 1, 100, 2000 + 10 * i, p) for i, (meta, p) in enumerate(ticks)]))
w.end()
nt = TMP + "/ticks.nettrace"
open(nt, "wb").write(bytes(w.b))

paths = [nt] + sorted(os.path.join(TRACES, "nettrace", f) for f in os.listdir(os.path.join(TRACES, "nettrace"))
                      if f.endswith(".nettrace"))
paths += sorted(os.path.join(TRACES, "coreclr", d) for d in os.listdir(os.path.join(TRACES, "coreclr")))
for p in paths:
    rc, out, err = T.run("import", "-q", "-d", db, p)
    T.check(rc == 0, "import %s (%s)" % (p, err.strip()))

rc, out, err = T.run("sql", db, "SELECT a.trace_id, a.pid, a.type_id, ty.name, a.kind, a.amount FROM alloc_ticks a "
                     "LEFT JOIN types ty ON ty.id = a.type_id", "--csv")
rows = [(int(r[0]), int(r[1]), r[2], r[3], int(r[4]), int(r[5])) for r in list(csv.reader(io.StringIO(out)))[1:]]
T.check(sum(1 for r in rows if r[0] == 1) == 9 and sum(1 for r in rows if r[2] == "") == 3,
        "the written trace's 9 ticks, 3 without a type")


def expected(top, pid=None, trace=None):
    groups = {}
    for tr, p, tid, name, kind, amount in rows:
        if (pid is not None and p != pid) or (trace is not None and tr != trace):
            continue
        g = groups.setdefault((tr, p, tid), [name or "(unknown type)", 0, 0, [0, 0, 0]])
        g[1] += 1
        g[2] += amount
        if kind in (0, 1, 2):
            g[3][kind] += amount
    res = []
    for (tr, p) in sorted(set((k[0], k[1]) for k in groups)):
        mine = [g for k, g in groups.items() if k[:2] == (tr, p)]
        total = sum(g[2] for g in mine)
        mine.sort(key=lambda g: (-g[2], g[0].encode()))
        for rank, (name, n, b, kb) in enumerate(mine[:top], 1):
            res.append((tr, p, rank, name, n, b / 1e6, b * 100.0 / total, kb[0] / 1e6, kb[1] / 1e6, kb[2] / 1e6))
    return res


def printed(args):
    rc, out, err = T.run("allocs", db, "--format", "csv", *args)
    T.check(rc == 0, "allocs %s (%s)" % (" ".join(args), err.strip()))
    return [(int(r[0]), int(r[1]), int(r[2]), r[3], int(r[4])) + tuple(float(x) for x in r[5:])
            for r in list(csv.reader(io.StringIO(out)))[1:]]


def same(a, b):
    """Rounded to 3 decimals by the command: within half a unit of the last place."""
    ok = len(a) == len(b) and all(x[:5] == y[:5] and all(abs(p - q) <= 0.0005 + 1e-9 for p, q in zip(x[5:], y[5:]))
                                  for x, y in zip(a, b))
    if not ok:
        bad = [(x, y) for x, y in zip(a, b) if x[:5] != y[:5] or any(abs(p - q) > 0.0005 + 1e-9 for p, q in zip(x[5:], y[5:]))]
        print("first difference: %r" % (bad[:1] or [(len(a), len(b))]))
    return ok


pid_nt = [r[1] for r in rows if r[0] == 2][0]
for args, exp in ((["--top", "100000"], expected(100000)), ([], expected(20)), (["--top", "2"], expected(2)),
                  (["--trace", "1", "--top", "100"], expected(100, trace=1)),
                  (["--pid", str(pid_nt), "--top", "5"], expected(5, pid=pid_nt))):
    got = printed(args)
    T.check(len(got) > 0 and same(got, exp), "allocs %s: the sums and ranks computed here (%d rows)\n%r\n%r"
            % (" ".join(args), len(got), got[:6], exp[:6]))
mine = printed(["--trace", "1"])
T.check([r[3] for r in mine] == ["App.Big", "App.Same", "App.Alpha", "App.Other", "(unknown type)"] and
        mine[0][8] == 5000.0 and mine[2][7] == 0.15 and mine[2][9] == 0.15 and mine[4][4] == 3,
        "the written trace: Big, then Same, then Alpha before Other (same bytes, by name), the untyped last (%r)" % mine)
sys.exit(T.done())
