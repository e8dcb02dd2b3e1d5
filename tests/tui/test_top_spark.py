"""test_top_spark.py — the header's sparklines are over time, checked cell by
cell against the database.

usage: test_top_spark.py GCSCOPE TUI_MKDB WORKDIR

The database (written here with the real schema by tui_mkdb) holds a leaking
process, pid 900: a timeline of 0 .. 150000 ms (gc_process_summary), GC i
(i = 0 .. 149) at pause start 1000 i + 250 ms with heap after GC 100 + i MB
and pause 1 + (i % 5) / 2 ms (every 10th a gen2 of 40 ms), no GC from 120 s
to 130 s (a quiet stretch), and an incomplete GC at 135.5 s (left out). The
window is the last 60 s (90000 .. 150000 ms): at 80 columns 80 - 9 - 30 = 41
cells, at 120 columns 81. For each cell the expected heap (largest After MB)
and pause (sum) are computed here from the gcs rows, and their heights in
eighths must be the screen's block characters exactly (also after `w`: the last 10 s, then 5 min, which
is longer than the timeline, so all 150 s): the heap on the
scale lo .. max with lo = min(smallest, max / 2), 1 + ceil((v - lo) * 7 /
(max - lo)); the pause on 0 .. max, ceil(v * 8 / max), at least 1; blank for
an empty cell. The labels give both scales and the window. The heap
line must rise (a leak): its non-blank cells never go down.
"""
import math
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

GCSCOPE, MKDB, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
DB = os.path.join(WORK, "top-spark.db")
SQL = os.path.join(WORK, "spark.sql")
for f in (DB, SQL):
    if os.path.exists(f):
        os.unlink(f)


rows = []
for i in range(150):
    t = 1000.0 * i + 250
    if 120000 <= t < 130000:
        continue
    gen2 = i % 10 == 9
    rows.append("(%d, 1, 900, 0, %d, %d, %d, 0, '%s', 0, 'AllocSmall', 1, %.3f, %.3f, 1.0, 0.01, %.3f, 5.0, %.3f, %.3f, 0.5)"
                % (i + 1, i + 1, i, 2 if gen2 else 0, "2N" if gen2 else "0N", t, t + 0.1,
                   40.0 if gen2 else 1 + (i % 5) / 2, 120.0 + i, 100.0 + i))
rows.append("(200, 1, 900, 0, 200, 150, 0, 0, '0N', 0, 'AllocSmall', 0, 135500.0, 135500.1, NULL, 0.01, NULL, NULL,"
            " NULL, NULL, NULL)")
with open(SQL, "w") as f:
    f.write("INSERT INTO traces (id, path, hostname, start_ns, end_ns, identity, event_count, gc_event_count,"
            " discarded, source, imported_ns) VALUES (1, '/fixture/leak', 'testhost', 1000000000000000,"
            " 1000150000000000, 'leak-1', 1, 1, 0, 'lttng', 0);\n")
    f.write("INSERT INTO processes (trace_id, pid, name, host, server_gc, concurrent_gc, heap_count, origin,"
            " event_count, gc_event_count) VALUES (1, 900, 'leaky', 'testhost', 0, 1, 1, 'clr', 1, 1);\n")
    f.write("INSERT INTO gcs (id, trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name, reason,"
            " reason_name, complete, pause_start_msec, start_msec, duration_msec, suspend_msec, pause_msec,"
            " total_alloc_mb, peak_mb, after_mb, promoted_mb) VALUES\n" + ",\n".join(rows) + ";\n")
    f.write("INSERT INTO gc_process_summary (trace_id, pid, clr_instance, gc_count, incomplete_count,"
            " induced_count, total_pause_msec, total_alloc_mb, total_promoted_mb, process_duration_msec,"
            " pct_pause_time, heap_count, first_event_msec, last_event_msec, lost_events) VALUES"
            " (1, 900, 0, 140, 1, 0, 0, 0, 0, 0, 0, 1, 0.0, 150000.0, 0);\n")
subprocess.run([MKDB, DB, SQL], check=True)

con = sqlite3.connect(DB)
gcs = con.execute("SELECT pause_start_msec, after_mb, pause_msec FROM gcs WHERE pid = 900 AND complete = 1").fetchall()
first, last = con.execute("SELECT first_event_msec, last_event_msec FROM gc_process_summary").fetchone()
con.close()

BLOCKS = " \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"


def expected(ncells, window=60000.0):
    """(heap levels, pause levels, heap bottom, heap max, pause max) as top must draw them."""
    window = min(window, last - first)
    start = last - window
    bucket = window / ncells
    heap = [None] * ncells
    pause = [0.0] * ncells
    for t, after, p in gcs:
        if t < start or t > last:
            continue
        i = min(int(math.floor((t - start) / bucket)), ncells - 1)
        heap[i] = after if heap[i] is None else max(heap[i], after)
        pause[i] += p
    hmax = max(v for v in heap if v is not None)
    hlo = min(min(v for v in heap if v is not None), hmax / 2)
    pmax = max(pause)

    def level(v, m):
        return 0 if v is None or v <= 0 else min(8, max(1, math.ceil(v * 8 / m)))

    def hlevel(v):
        return 0 if v is None else min(8, max(1, 1 + math.ceil((v - hlo) * 7 / (hmax - hlo))))
    return [hlevel(v) for v in heap], [level(v, pmax) for v in pause], hlo, hmax, pmax


for width in (80, 120):
    ncells = width - 9 - 30
    hl, pl, hlo, hmax, pmax = expected(ncells)
    s = Screen("%s top %s" % (GCSCOPE, DB), width=width, height=24)
    try:
        s.wait_for("PID 900")
        t = s.wait_for("q quit")   # the footer: the whole screen drawn, not only its first lines
        lines = t.split("\n")
        where = "at %d columns" % width
        heap_cells = lines[4][9:9 + ncells]
        pause_cells = lines[5][9:9 + ncells]
        check(lines[4].startswith("heap MB ") and lines[5].startswith("pause ms"), "%s: labels" % where, t)
        check(heap_cells == "".join(BLOCKS[v] for v in hl), "%s: heap cells %r, want %r"
              % (where, heap_cells, "".join(BLOCKS[v] for v in hl)), t)
        check(pause_cells == "".join(BLOCKS[v] for v in pl), "%s: pause cells %r, want %r"
              % (where, pause_cells, "".join(BLOCKS[v] for v in pl)), t)
        check(lines[4][9 + ncells:].rstrip() == " %.3f..%.3f MB" % (hlo, hmax), "%s: heap scale %r"
              % (where, lines[4][9 + ncells:]), t)
        check(lines[5][9 + ncells:].rstrip() == " max %.3f/cell, last 60 s" % pmax,
              "%s: pause scale and window %r" % (where, lines[5][9 + ncells:]), t)
        # a leak rises: the heap's drawn cells never go down, and it spans the scale
        drawn = [BLOCKS.index(c) for c in heap_cells if c != " "]
        check(len(drawn) > ncells // 2 and all(a <= b for a, b in zip(drawn, drawn[1:])) and drawn[-1] == 8
              and drawn[0] <= 5, "%s: the heap line rises, over 4 steps at least: %r" % (where, drawn), t)
        # the quiet stretch (120 .. 130 s) is blank on both lines
        q0 = int(math.floor((120000 - 90000) / (60000.0 / ncells))) + 1
        q1 = int(math.floor((129999 - 90000) / (60000.0 / ncells))) - 1
        check(q1 > q0 and heap_cells[q0:q1 + 1].strip() == "" and pause_cells[q0:q1 + 1].strip() == "",
              "%s: no GC from 120 to 130 s: blank cells %d..%d" % (where, q0, q1), t)
        # w: the window cycles 60 s -> 10 s -> 5 min (longer than the timeline:
        # all 150 s) -> 1 h -> 60 s
        for key_window, label in ((10000.0, "last 10 s"), (300000.0, "all 150 s")):
            s.keys("w")
            t = s.wait_until(lambda ls: ls[5].rstrip().endswith(label), "w: %s" % label)
            lines = t.split("\n")
            hl, pl, hlo, hmax, pmax = expected(ncells, key_window)
            check(lines[4][9:9 + ncells] == "".join(BLOCKS[v] for v in hl), "%s, %s: heap cells %r, want %r"
                  % (where, label, lines[4][9:9 + ncells], "".join(BLOCKS[v] for v in hl)), t)
            check(lines[5][9:9 + ncells] == "".join(BLOCKS[v] for v in pl), "%s, %s: pause cells" % (where, label), t)
            check(lines[4][9 + ncells:].rstrip() == " %.3f..%.3f MB" % (hlo, hmax), "%s, %s: heap scale" % (where, label), t)
            check(lines[5][9 + ncells:].rstrip() == " max %.3f/cell, %s" % (pmax, label), "%s, %s: label" % (where, label), t)
        s.keys("q")
        s.wait_for("EXIT=0")
    finally:
        s.close()

if failed():
    print("%d check(s) failed" % failed(), file=sys.stderr)
    sys.exit(1)
print("all checks passed")
