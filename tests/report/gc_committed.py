#!/usr/bin/env python3
"""gc_committed.py GCSCOPE TMP OLD_TRACE NETTRACE... — committed memory
(GCDynamicEvent "CommittedUsage", .NET 8+) end to end.

Independent value: this script finds every GCDynamicEvent payload named
CommittedUsage in the .nettrace bytes itself (the UTF-16 name and its NUL,
DataSize u32 = 42, then Data: Version u16 and five i64: in use, in global
decommit, in free, in global free, bookkeeping). The runtime fires one right
after a GC's GCStart and one right before its GCEnd (a background GC: the
first only). Checked:
- the GCs' committed_before/committed_after in `stats --format json` are,
  in GC order, exactly the decoded payloads taken in file order (the
  fixtures' GCs start and end in file order, a background GC's one payload
  being its before);
- committed_after_mb = (in use + in free + in global free) / 1e6 (the
  runtime's TotalCommittedBytes, checked against the runtime in tests/dotnet);
- the summary's max_committed_mb is the largest of them; the text prints
  "Max Committed" and a Commit MB column;
- `export` has a "Committed MB" counter with exactly those figures;
- an older trace says "Max Committed: not in trace (needs .NET 8+" and has
  null figures, never 0.
"""
import json
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402

G, TMP, OLD = sys.argv[1:4]
TRACES = sys.argv[4:]
T = Checker(G)
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
PARTS = ["in_use", "in_global_decommit", "in_free", "in_global_free", "bookkeeping"]
NAME = "CommittedUsage".encode("utf-16le") + b"\0\0"


def decode(path):
    b = open(path, "rb").read()
    out, at = [], b.find(NAME)
    while at >= 0:
        x = at + len(NAME)
        size, version = struct.unpack_from("<IH", b, x)
        if size == 42 and version == 1:
            out.append(dict(zip(PARTS, struct.unpack_from("<5q", b, x + 6))))
        at = b.find(NAME, x)
    return out


for n, trace in enumerate(TRACES):
    db = "%s/t%d.db" % (TMP, n)
    rc, out, err = T.run("import", "-q", "-d", db, trace)
    T.check(rc == 0, "import %s" % trace)
    want = decode(trace)
    rc, out, err = T.run("stats", db, "--format", "json")
    p = json.loads(out)["processes"][0]
    gcs = sorted(p["gcs"], key=lambda g: g["index"])
    got = []
    for g in gcs:
        got += [g["committed_before"]] + ([g["committed_after"]] if g["type"] != "B" else [])
        T.check(g["committed_before"] is not None and (g["committed_after"] is not None) == (g["type"] != "B"),
                "%s GC #%d: before, and after unless background" % (trace, g["index"]))
    T.check(len(want) > 0 and got == want, "%s: %d payloads decoded = the GCs' before/after in order (%d)"
            % (trace, len(want), len(got)))
    mb = {int(r[0]): r[1:] for r in T.rows(db, "SELECT gc_index, committed_before_mb, committed_after_mb FROM gcs")}
    best = 0
    for g in gcs:
        for w, col in (("committed_before", 0), ("committed_after", 1)):
            c = g[w]
            if c is None:
                T.check(mb[g["index"]][col] == "", "%s GC #%d %s_mb NULL" % (trace, g["index"], w))
                continue
            v = (c["in_use"] + c["in_free"] + c["in_global_free"]) / 1e6
            best = max(best, v)
            T.check(abs(float(mb[g["index"]][col]) - v) < 1e-9, "%s GC #%d %s_mb %s = %.6f"
                    % (trace, g["index"], w, mb[g["index"]][col], v))
    T.check(abs(p["summary"]["max_committed_mb"] - best) < 1e-9, "%s: max_committed_mb %s = %.6f"
            % (trace, p["summary"]["max_committed_mb"], best))
    rc, text, err = T.run("stats", db, "--section", "summary,gcs")
    T.check("  Max Committed: %.3f MB (GCCommittedUsage" % best in text and "Commit MB" in text,
            "%s: text Max Committed %.3f and the Commit MB column" % (trace, best))

    # export: a "Committed MB" counter, before at each GC's start, after at its end.
    rc, out, err = T.run("export", db, "--format", "chrome-json", "-o", TMP + "/e.json")
    ev = json.load(open(TMP + "/e.json"))["traceEvents"]
    pts = sorted(e["args"]["value"] for e in ev if e.get("ph") == "C" and e.get("name") == "Committed MB")
    vals = sorted([(c["in_use"] + c["in_free"] + c["in_global_free"]) / 1e6
                   for g in gcs for c in (g["committed_before"], g["committed_after"]) if c is not None])
    T.check(len(pts) == len(vals) and all(abs(a - b) < 1e-9 for a, b in zip(pts, vals)),
            "%s: export's Committed MB counter holds every before/after figure (%d points, %d figures)"
            % (trace, len(pts), len(vals)))

db = TMP + "/old.db"
T.run("import", "-q", "-d", db, OLD)
rc, text, err = T.run("stats", db, "--section", "summary,gcs")
T.check("Max Committed: not in trace (needs .NET 8+" in text and "Commit MB" not in text,
        "old trace: not in trace, no Commit MB column")
d = json.loads(T.run("stats", db, "--format", "json")[1])
T.check(all(pr["summary"]["max_committed_mb"] is None for pr in d["processes"]), "old trace: max_committed_mb null")
T.check(all(g["committed_before"] is None and g["committed_after"] is None for pr in d["processes"]
            for g in pr["gcs"]), "old trace: committed null")
sys.exit(T.done())
