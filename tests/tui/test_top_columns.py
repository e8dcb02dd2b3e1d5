"""test_top_columns.py — the GC table never cuts a number: it drops columns.

usage: test_top_columns.py GCSCOPE TUI_MKDB COLUMNS.sql WORKDIR

columns.sql holds one process with wide figures (see its comments). At 80,
100 and 160 columns (24 lines), for every GC row on the screen, each visible
cell must equal the database's value printed whole (3 decimals, %Pause 1),
the columns shown must be a prefix of the drop priority (GC#, Gen, Pause,
Peak MB, After MB, Start ms, Reason, Prom MB, Susp ms, Alloc MB, %Pause),
shown in screen order, and the table title must say how many are hidden.
Expected layouts (from the widths in columns.sql; one space between columns):
  80:  GC#, Start, Gen, Reason, Pause, Peak, After        "+4 cols"
  100: ... + Susp, Prom                                  "+2 cols"
  160: all 11, no note
The header's numbers are checked whole too (heap now/max, max pause), and so
are the rollup's gen2 row and the detail (Enter) of the widest GC.
"""
import os
import re
import sqlite3
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tmux_top import Screen  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, MKDB, SQL, WORK = sys.argv[1:5]
DB = os.path.join(WORK, "top-columns.db")
os.makedirs(WORK, exist_ok=True)
if os.path.exists(DB):
    os.unlink(DB)
subprocess.run([MKDB, DB, SQL], check=True)


# screen order, titles, and the database's value printed as top prints it
SCREEN = ["GC#", "Start ms", "Gen", "Reason", "Susp ms", "Pause ms", "Peak MB", "After MB", "Prom MB",
          "%Pause", "Alloc MB"]
PRIORITY = ["GC#", "Gen", "Pause ms", "Peak MB", "After MB", "Start ms", "Reason", "Prom MB", "Susp ms",
            "Alloc MB", "%Pause"]
con = sqlite3.connect(DB)
rows = {}
for r in con.execute("SELECT gc_index, complete, pause_start_msec, gen_name, reason_name, suspend_msec,"
                     " pause_msec, peak_mb, after_mb, promoted_mb, pct_pause_time, total_alloc_mb"
                     " FROM gcs WHERE pid = 777"):
    def f(v, d=3):
        return "unknown" if v is None else "%.*f" % (d, v)
    n, complete = r[0], r[1]
    rows[n] = {"GC#": "%d%s" % (n, "" if complete else "?"), "Start ms": f(r[2]), "Gen": r[3],
               "Reason": r[4][:13], "Susp ms": f(r[5]), "Pause ms": f(r[6]), "Peak MB": f(r[7]),
               "After MB": f(r[8]), "Prom MB": f(r[9]), "%Pause": f(r[10], 1), "Alloc MB": f(r[11])}
con.close()
check(len(rows) == 5, "fixture: 5 GCs")

EXPECT = {80: (7, "+4 cols"), 100: (9, "+2 cols"), 160: (11, "")}

for width, (nshown, note) in EXPECT.items():
    s = Screen("%s top %s" % (GCSCOPE, DB), width=width, height=24)
    try:
        s.wait_for("PID 777")
        t = s.wait_for("q quit")   # the footer: the whole screen drawn, not only its first lines
        lines = t.split("\n")
        head = lines[6]
        where = "at %d columns" % width
        # the columns shown, by their titles' positions in the table title
        shown = sorted((head.find(c), c) for c in SCREEN if re.search(r"(^|\s)%s\*?(\s|$)" % re.escape(c), head))
        titles = [c for _, c in shown]
        check(len(titles) == nshown, "%s: %d columns shown, want %d: %r" % (where, len(titles), nshown, titles), t)
        check(set(titles) == set(PRIORITY[:len(titles)]), "%s: shown columns are a priority prefix: %r"
              % (where, titles), t)
        check(titles == [c for c in SCREEN if c in titles], "%s: screen order" % where, t)
        check(head.rstrip().endswith(note) if note else "+" not in head and "hidden" not in head,
              "%s: hidden note %r in %r" % (where, note, head), t)
        check(all(len(x) <= width for x in lines), "%s: no line wider than the terminal" % where, t)
        # every cell of every GC row, whole
        seen = 0
        for line in lines[7:]:
            if line.startswith("GC rollup"):
                break
            m = re.match(r"^\s*(\d+)\??\s", line)
            if not m or int(m.group(1)) not in rows:
                continue
            want = rows[int(m.group(1))]
            cells = line.split()
            check(cells == [want[c] for c in titles], "%s: GC %s cells %r, want %r"
                  % (where, m.group(1), cells, [want[c] for c in titles]), t)
            seen += 1
        check(seen == 5, "%s: 5 GC rows on screen, saw %d" % (where, seen), t)
        # header numbers whole (the segments that do not fit are left out, never cut)
        check("heap 199999.999 MB (max 234567.891)" in lines[2], "%s: header heap" % where, t)
        check(lines[3].startswith("max pause 98765.432 ms  last GC #10235 0N AllocSmall"), "%s: header 3" % where, t)
        check("alloc 5.0 MB/s" in lines[2] if width >= 100 else "alloc" not in lines[2],
              "%s: alloc rate whole or absent" % where, t)
        # the rollup's numbers whole too: gen2 max peak, total alloc (the
        # rightmost columns that do not fit are left out)
        roll = next((x for x in lines if x.startswith("2 ")), "")
        check(roll.split()[:4] == ["2", "2", "98765.432", "234567.891"], "%s: rollup gen2 %r" % (where, roll), t)
        check(all(len(x) <= width for x in lines), "%s: rollup fits" % where, t)
        # sparkline labels whole: no GC in the last 60 s of this 3.5-hour
        # timeline; over the last hour (w three times: 10 s, 5 min, 1 h) GC
        # 10234 (after 199999.999 MB; scale bottom half of it) is in, and the
        # 32-character label takes cells from the lines
        check(lines[4].rstrip().endswith(" no GC in the window"), "%s: empty window said" % where, t)
        s.keys("w", "w", "w")
        t = s.wait_until(lambda ls: ls[5].rstrip().endswith("last 1 h"), "w: 1 h")
        check(t.split("\n")[4].rstrip().endswith(" 100000.000..199999.999 MB"), "%s: heap scale whole" % where, t)
        check(t.split("\n")[5].rstrip().endswith(" max 98765.432/cell, last 1 h"), "%s: pause scale whole" % where, t)
        # the sort menu marks the hidden columns
        s.keys("s")
        t = s.wait_for("Sort by")
        hidden = [c for c in SCREEN if c not in titles]
        marked = [c for c in SCREEN for x in t.split("\n")
                  if re.search(r"\u2502 \S  %s\s+\(hidden\)" % re.escape(c), x)]
        check(marked == hidden, "%s: sort menu marks %r hidden, want %r" % (where, marked, hidden), t)
        s.keys("Escape")
        s.wait_for("Sort by", absent=True)
        # the detail of GC 10234 (the second row): its numbers whole too
        s.keys("Down", "Enter")
        t = s.wait_for("GC detail")
        for want in ("Pause start 12345678.901 ms   GC start 12345679.000 ms",
                     "GC duration 20000.000 ms   Suspend 123.456 ms   Pause 98765.432 ms",
                     "Alloc 7654.321 MB measured; PerfView 7654.321 MB (gen0 5000.000)",
                     "Alloc rate 1000.0 MB/s   % Pause time 99.9",
                     "Heap: peak 234567.891 MB, after 199999.999 MB, promoted 87654.321 MB"):
            check(want in t, "%s: detail line %r" % (where, want), t)
        s.keys("Escape")
        s.wait_for("GC detail", absent=True)
        s.keys("q")
        s.wait_for("EXIT=0")
    finally:
        s.close()

if failed():
    print("%d check(s) failed" % failed(), file=sys.stderr)
    sys.exit(1)
print("all checks passed")
