#!/usr/bin/env python3
"""nettrace_cut.py GCSCOPE TRACE TMP — `gcscope import` of a .nettrace cut short.

The real .NET Core 3.0 trace is cut inside an EventBlock and exactly after a
whole block. Each cut imports with exit 0 and one warning naming the byte
offset, traces.truncated_at is the end of the last whole object (found here by
walking the objects' framing), and the database holds exactly the GCs of the
same bytes closed with an end-of-stream tag (a complete file imported on its
own). Every report on it repeats the warning.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker, nettrace_last_whole  # noqa: E402

GCSCOPE, TRACE, TMP = sys.argv[1:4]
T = Checker(GCSCOPE)
check, run = T.check, T.run
rows = T.rows
gcscope = T.run
last_whole = nettrace_last_whole

data = open(TRACE, "rb").read()
os.makedirs(TMP, exist_ok=True)
half = len(data) // 2
for label, cut in (("inside", half), ("between", last_whole(data, half))):
    keep = last_whole(data, cut)
    cutf, wholef = "%s/cut-%s.nettrace" % (TMP, label), "%s/whole-%s.nettrace" % (TMP, label)
    open(cutf, "wb").write(data[:cut])
    open(wholef, "wb").write(data[:keep] + b"\x01")
    for f in (cutf + ".db", wholef + ".db"):
        if os.path.exists(f):
            os.unlink(f)
    rc, out, err = gcscope("import", "-d", cutf + ".db", cutf)
    print(out + err)
    check(rc == 0, "%s: import exits 0 (%d)" % (label, rc))
    warn = [l for l in out.splitlines() if l.startswith("warning: %s: truncated at byte" % cutf)]
    check(len(warn) == 1, "%s: one warning naming the file and the byte" % label)
    if label == "inside":
        check(warn and "truncated at byte %d inside an EventBlock that starts at byte %d (%d bytes of it received, "
              "dropped)" % (cut, keep, cut - keep) in warn[0], "%s: the warning says what was dropped" % label)
    else:
        check(warn and "after a whole object: the end-of-stream tag is missing" in warn[0],
              "%s: the warning says only the end tag is missing" % label)
    check(rows(cutf + ".db", "SELECT truncated_at FROM traces") == [[str(keep)]],
          "%s: traces.truncated_at is %d" % (label, keep))
    rc2, _, _ = gcscope("import", "-d", wholef + ".db", wholef)
    check(rc2 == 0, "%s: the closed prefix imports" % label)
    q = "SELECT gen, count(*), sum(complete) FROM gcs GROUP BY gen ORDER BY gen"
    a, b = rows(cutf + ".db", q), rows(wholef + ".db", q)
    check(a == b and a, "%s: the GCs of the cut trace are those of its whole blocks (%s vs %s)" % (label, a, b))
    check(rows(wholef + ".db", "SELECT count(*) FROM traces WHERE truncated_at IS NULL") == [["1"]],
          "%s: a complete file is not marked" % label)
    check(rows(cutf + ".db", "SELECT truncated_file FROM traces") == [[cutf]],
          "%s: traces.truncated_file is the file" % label)
    cutline = "warning: trace 1: %s: cut at byte %d, open GCs incomplete" % (cutf, keep)
    rc, out, err = gcscope("stats", cutf + ".db", "--no-pager")
    check(cutline in out + err, "%s: stats repeats the warning" % label)
    rc, out, err = gcscope("advise", cutf + ".db")
    check(cutline in out + err, "%s: advise repeats the warning" % label)
# The whole trace and a prefix of it in one database: the same GCs in two
# traces. Each report covers one trace; stats and advise say they overlap.
both = "%s/both.db" % TMP
if os.path.exists(both):
    os.unlink(both)
cutf = "%s/cut-inside.nettrace" % TMP
open(cutf, "wb").write(data[:half])
rc, out, err = gcscope("import", "-q", "-d", both, TRACE, cutf)
check(rc == 0, "both import")
n, lo, hi = rows(both, "SELECT count(*), min(gc_index), max(gc_index) FROM gcs WHERE trace_id = 2")[0]
note = "note: traces 1 and 2 both hold GCs #%s-#%s of pid 10064 (%s GCs" % (lo, hi, n)
for cmd in ("stats", "advise", "events"):
    rc, out, err = gcscope(cmd, both, *(["--no-pager"] if cmd == "stats" else []))
    check(note in out + err, "%s notes the overlap (%s)" % (cmd, note))
rc, out, err = gcscope("stats", both, "--trace", "1", "--no-pager")
check("note: traces" not in out + err and out.count("GC Stats for Process") == 1, "--trace 1: one report, no note")
sys.exit(T.done())
