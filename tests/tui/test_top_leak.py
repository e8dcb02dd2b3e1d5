"""test_top_leak.py — a leak is seen as a rising heap sparkline, live.

usage: test_top_leak.py GCSCOPE GCSIM

Runs `gcscope top -- gcsim --scenario leak --seconds 6` (survivors never die,
a full GC every 250 ms) at 100x30 and reads the screen once gcsim has exited.
The process's timeline (~6 s) is shorter than 60 s, so the window is all of
it ("all N s"), 100 - 9 - 30 = 61 cells. Checked: the heap line (largest heap
after GC per cell) rises: its first drawn cell is in the lower half of the
scale, one of its last five at the top, and it hardly ever steps down (at
most a tenth of the cells, two eighths at most: a cell holding only a full
GC can sit a little below one of gen0 GCs before it); its scale's top is at least the header's
heap now (the newest GC is in the window) and at most the header's max
(Peak MB >= After MB); the pause line has drawn cells.
"""
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tmux_top import Screen  # noqa: E402
from top_live_common import remove_command_output, stable_screen  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, GCSIM = sys.argv[1:3]
BLOCKS = " \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"


s = Screen("%s top -- %s --scenario leak --seconds 6 --quiet" % (GCSCOPE, GCSIM), width=100, height=30)
try:
    t = stable_screen(s, "command exited (", timeout=90)
    remove_command_output(t)
    lines = t.split("\n")
    check("command exited (status 0," in t, "gcsim exited with status 0", t)
    ncells = 100 - 9 - 30
    heap = lines[4][9:9 + ncells]
    pause = lines[5][9:9 + ncells]
    check(lines[4].startswith("heap MB") and lines[5].startswith("pause ms"), "sparkline rows", t)
    m = re.match(r" ([0-9.]+)\.\.([0-9.]+) MB$", lines[4][9 + ncells:].rstrip())
    w = re.match(r" max [0-9.]+/cell, all [0-9.]+ s$", lines[5][9 + ncells:].rstrip())
    check(m is not None and w is not None, "labels: scale and the whole timeline as window", t)
    drawn = [BLOCKS.index(c) for c in heap if c in BLOCKS and c != " "]
    downs = [(a, b) for a, b in zip(drawn, drawn[1:]) if b < a]
    print("heap line: %s (%d cells drawn, %d steps down)" % (heap, len(drawn), len(downs)))
    check(len(drawn) >= ncells // 2, "most cells drawn: %d" % len(drawn), t)
    check(drawn and drawn[0] <= 4 and max(drawn[-5:]) == 8, "rises from the lower half to the top: %r" % drawn, t)
    check(len(downs) <= len(drawn) // 10 and all(a - b <= 2 for a, b in downs), "hardly steps down: %r" % downs, t)
    hm = re.search(r"heap ([0-9.]+) MB \(max ([0-9.]+)\)", t)
    check(hm is not None and m is not None and float(hm.group(1)) <= float(m.group(2)) <= float(hm.group(2)),
          "scale top between heap now and max", t)
    check(pause.strip() != "", "pause line drawn", t)
    s.keys("q")
    s.wait_for("EXIT=0", timeout=20)
finally:
    s.close()

if failed():
    print("%d check(s) failed" % failed(), file=sys.stderr)
    sys.exit(1)
print("all checks passed")
