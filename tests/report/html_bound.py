#!/usr/bin/env python3
"""html_bound.py GCSCOPE TRACE TMP — the HTML report stays bounded.

The real .NET Core 3.0 trace (478 complete GCs, no background GC) imported,
then its GCs copied four more times at later times (2,390 GCs): the HTML's
"All GC Events" table holds 2,000 rows and says "... 390 more GCs", the
charts switch to one mark per pixel column and say so, an empty table says
"(none)", and each pause bar's hover text names its GC. The 478-GC report
keeps every GC and every mark, puts the advisor's findings (as `advise`
gives them) before the summary and draws its axes with round, equally
spaced ticks and gridlines.
"""
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402

GCSCOPE, TRACE, TMP = sys.argv[1:4]
T = Checker(GCSCOPE)
os.makedirs(TMP, exist_ok=True)
db = TMP + "/h.db"
if os.path.exists(db):
    os.unlink(db)
rc, out, err = T.run("import", "-q", "-d", db, TRACE)
T.check(rc == 0, "import")

rc, small, err = T.run("stats", db, "--format", "html")
T.check(rc == 0 and "more GCs" not in small and "pixel column" not in small, "478 GCs: every GC, every mark")
T.check(small.count("<title>GC ") == 478, "478 pause bars with hover text (%d)" % small.count("<title>GC "))
T.check(re.search(r"<title>GC 1 0N \w+: [0-9.]+ ms</title>", small) is not None, "hover: number, kind, reason, pause")
T.check("LOH Allocation Pause" in small and '<td colspan="5">(none)</td>' in small, "an empty table says (none)")

# the advisor's findings at the top of the process (the same rules as `advise`)
import json  # noqa: E402
rc, adv, err = T.run("advise", db, "--format", "json")
rules = [f["rule"] for p in json.loads(adv)["processes"] for f in p["findings"]]
top = small.find("Advisor findings (gcscope advise)")
T.check(top >= 0 and top < small.find("Total Allocs") and rules and all("[%s]" % r in small for r in rules),
        "findings %s before the summary" % rules)
# axes: round ticks, equally spaced, with gridlines
xt = [(float(x), float(v)) for x, v in re.findall(r'<text x="([0-9.]+)" y="[0-9.]+" font-size="10" '
                                                  r'text-anchor="middle">([0-9.]+) (?:ms|s)</text>', small)]
steps = sorted(set(round(b[1] - a[1], 6) for a, b in zip(xt, xt[1:]) if b[1] > a[1]))
T.check(len(xt) >= 3 and len(steps) == 1 and steps[0] in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000),
        "x ticks at a round step (%s)" % xt[:6])
T.check(small.count('class="grid"') >= 10, "gridlines (%d)" % small.count('class="grid"'))

c = sqlite3.connect(db)
cols = [r[1] for r in c.execute("PRAGMA table_info(gcs)")]
span = c.execute("SELECT max(start_ns) - min(start_ns) + 1000000000 FROM gcs").fetchone()[0]
for k in range(1, 5):
    sel = []
    for col in cols:
        if col == "id":
            continue
        if col.endswith("_ns"):
            sel.append("%s + %d" % (col, k * span))
        elif col.endswith("_msec") and col.startswith(("start", "pause_start")):
            sel.append("%s + %f" % (col, k * span / 1e6))
        elif col in ("gc_index", "list_index"):
            sel.append("%s + %d" % (col, k * 1000))
        else:
            sel.append(col)
    c.execute("INSERT INTO gcs (%s) SELECT %s FROM gcs WHERE gc_index < 1000" % (",".join(x for x in cols if x != "id"),
                                                                                 ",".join(sel)))
c.commit()
n = c.execute("SELECT count(*) FROM gcs WHERE complete = 1").fetchone()[0]
c.close()
T.check(n == 2390, "2390 complete GCs (%d)" % n)
rc, big, err = T.run("stats", db, "--format", "html")
T.check(rc == 0, "html of 2390 GCs")
T.check("... 390 more GCs: <code>gcscope stats --format csv</code> lists every one." in big, "the GC list capped at 2000")
T.check("2390 GCs: each pixel column shows its largest value." in big, "the charts say they show maxima")
T.check(big.count("<title>GC ") <= 821, "at most one pause bar per pixel column (%d)" % big.count("<title>GC "))
T.check(len(big) < len(small) * 4, "bounded: %d bytes for 2390 GCs, %d for 478" % (len(big), len(small)))
sys.exit(T.done())
