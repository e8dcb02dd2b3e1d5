"""test_top_gcsim.py — `gcscope top -- gcsim --scenario bgc` driven in tmux,
checked against the trace the relayd wrote.

usage: test_top_gcsim.py GCSCOPE GCSIM WORKDIR

With a relayd of the test's own (-o WORKDIR/relayd-out), top runs gcsim's
background-GC scenario live. After gcsim exits the screen is read:
- the header: GC counts per generation and the background (B) / foreground
  (F) counts, max pause, last GC (the last to complete: number, Gen, pause),
  newest table row (the highest GC number);
- filter `g` x4 (background GCs): every row is `2B`, the rows are the newest
  BGCs of the trace, each with its pause; Enter on the newest one: its
  detail shows both BGC pauses (initial, final = the SuspendForGCPrep one)
  and their sum as the pause, and the event sequence starts at its
  suspension (GCStart's +ms = GCStart - GCSuspendEEBegin);
- filter `g` again (foreground GCs): every row is `0F`/`1F`, the rows are
  the newest FGCs with their pauses; Enter shows ForegroundGC and no BGC
  pause line.
Every expected figure comes from babeltrace2's text output of that trace,
read by trace_gcs.py with PerfView's pause rules (no gcscope code).
Exits 77 (skipped) when the live port stays held by someone else's relayd,
as the trace could not be ours to read.
"""
import glob
import os
import re
import shutil
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tmux_top import Screen  # noqa: E402
from top_live_common import Relayd, header_figures, remove_command_output, stable_screen  # noqa: E402
import trace_gcs  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, GCSIM, WORK = sys.argv[1:4]
TABLE_ROWS = 10   # at 80x24: 24 - title, 3 header, 2 sparklines, column names, 6 panel, status
MS = 0.0011       # screen shows ms with 3 decimals


def close_ms(a, b):
    return a is not None and b is not None and abs(a - b) < MS


def detail(t):
    """Figures of the detail overlay."""
    d = {}
    m = re.search(r"GC #(\d+)\s+Gen (\w+)\s+(\w+GC)", t)
    if m:
        d["number"], d["gen"], d["type"] = int(m.group(1)), m.group(2), m.group(3)
    m = re.search(r"Pause ([0-9.]+) ms", t)
    d["pause"] = float(m.group(1)) if m else None
    m = re.search(r"BGC pauses: initial ([0-9.]+) ms, final \(SuspendForGCPrep\) ([0-9.]+) ms", t)
    d["bgc"] = (float(m.group(1)), float(m.group(2))) if m else None
    # (the payload column is cut at 80 columns: GCSuspendEEBegin's Count may be too)
    m = re.search(r"^.\s+[0-9.]+\s+([0-9.]+)\s+GCSuspendEEBegin\s+Reason=(\w+)", t, re.M)
    d["first"] = (float(m.group(1)), m.group(2)) if m else None
    m = re.search(r"^.\s+[0-9.]+\s+([0-9.]+)\s+GCStart\s+Count=(\d+)", t, re.M)
    d["gcstart"] = (float(m.group(1)), int(m.group(2))) if m else None
    return d


def filtered(s, name, presses):
    """Press g until the title names filter name; the stable screen then."""
    for _ in range(presses):
        s.keys("g")
    s.wait_until(lambda ls: (" | %s | " % name) in ls[0], "filter %s" % name)
    return stable_screen(s, " | %s | " % name, settle=0.5)


os.makedirs(WORK, exist_ok=True)
out_dir = os.path.join(WORK, "relayd-out")
shutil.rmtree(out_dir, ignore_errors=True)
relayd = Relayd(out_dir)
if not relayd.ours:
    print("the live port is held by another relayd: its trace is not ours to check; skipped")
    sys.exit(77)
s = None
try:
    s = Screen("%s top -- %s --scenario bgc --seconds 3 --quiet" % (GCSCOPE, GCSIM))
    main = stable_screen(s, "command exited (", timeout=60)
    status = main.rstrip("\n").split("\n")[-1]
    print("status line: %s" % status)
    if "command exited (status 0," not in status:
        m = re.search(r"output in (\S+\.out)\)", status)
        if m and os.path.exists(m.group(1)):
            with open(m.group(1), errors="replace") as f:
                print("gcsim's output (%s):\n%s" % (m.group(1), f.read()[-4000:]), file=sys.stderr)
    check("command exited (status 0," in status, "gcsim exited with status 0", main)
    remove_command_output(main)
    counts, bf, maxp, last, rows = header_figures(main)

    bg = filtered(s, "background", 4)
    bg_rows = header_figures(bg)[4]
    s.keys("Enter")
    bg_detail = s.wait_for("GC detail")
    s.keys("Escape")
    s.wait_for("GC detail", absent=True)

    fg = filtered(s, "foreground", 1)
    fg_rows = header_figures(fg)[4]
    s.keys("Enter")
    fg_detail = s.wait_for("GC detail")
    s.keys("Escape")
    s.wait_for("GC detail", absent=True)

    s.keys("q")
    s.wait_for("EXIT=0", timeout=20)
    s.close()
    s = None
finally:
    if s is not None:
        s.close()
    relayd.stop()

traces = glob.glob(os.path.join(out_dir, "*", "gcscope-top-*"))
check(len(traces) == 1, "one trace written by the relayd: %r" % traces)
if len(traces) != 1:
    sys.exit(1)
gcs, bt_err = trace_gcs.read(traces[0], "gcsim")
check("discarded" not in bt_err.lower(), "no events discarded (else the trace cannot be compared): %s" % bt_err)
done = [g for g in gcs.values() if g.complete]
tcounts = tuple(sum(1 for g in done if g.gen == n) for n in range(3))
tbf = (sum(1 for g in done if g.type == 1), sum(1 for g in done if g.type == 2))
newest = max(gcs.values(), key=lambda g: g.number)
tmax = max(g.pause_ms for g in done) if done else None
bgcs = sorted((g for g in gcs.values() if g.type == 1), key=lambda g: -g.number)
fgcs = sorted((g for g in gcs.values() if g.type == 2), key=lambda g: -g.number)
print("screen: counts %r B/F %r max pause %r last %r" % (counts, bf, maxp, last))
print("trace:  counts %r B/F %r max pause %.4f newest %d %s %r" %
      (tcounts, tbf, tmax or 0, newest.number, newest.gen_name(), newest.pause_ms))
check(tbf[0] >= 1 and tbf[1] >= 1, "the bgc scenario made background and foreground GCs: %r" % (tbf,))

# header and newest row
check(counts == tcounts, "GC counts per generation: screen %r, trace %r" % (counts, tcounts), main)
check(bf == tbf, "BGC/FGC counts: screen %r, trace %r" % (bf, tbf), main)
check(close_ms(maxp, tmax), "max pause: screen %r, trace %r" % (maxp, tmax), main)
check(rows and rows[0][0] == newest.number, "newest GC row: screen %r, trace %d" % (rows[:1], newest.number), main)
# "last GC" is the one that completed last (a BGC often ends after the
# foreground GCs it let run); with an incomplete GC in the trace it is not
# checked (what an unfinished GC shows there is not this test's business).
if len(done) == len(gcs):
    lg = max(done, key=lambda g: g.done_ns)
    check(last is not None and last[0] == lg.number and last[1] == lg.gen_name() and close_ms(last[2], lg.pause_ms),
          "last GC: screen %r, trace #%d %s %r" % (last, lg.number, lg.gen_name(), lg.pause_ms), main)
else:
    print("incomplete GCs in the trace: %r" % sorted(g.number for g in gcs.values() if not g.complete))


def check_rows(rows, expected, what, screen):
    """rows (number, Gen, pause) are the newest of expected, with their Gen
    and (complete GCs) pause."""
    want = expected[:TABLE_ROWS]
    check([r[0] for r in rows] == [g.number for g in want],
          "%s rows: screen %r, trace %r" % (what, [r[0] for r in rows], [g.number for g in want]), screen)
    for (num, gen, pause), g in zip(rows, want):
        check(gen == g.gen_name(), "%s #%d Gen: screen %s, trace %s" % (what, num, gen, g.gen_name()), screen)
        if g.complete:
            check(close_ms(pause, g.pause_ms), "%s #%d pause: screen %r, trace %r" % (what, num, pause, g.pause_ms),
                  screen)


print("rows compared: %d background, %d foreground" % (len(bg_rows), len(fg_rows)))

# background GCs: 2B rows, and both pauses of the newest in its detail
check(all(r[1].startswith("2B") for r in bg_rows) and bg_rows, "background filter shows 2B rows", bg)
check_rows(bg_rows, bgcs, "background", bg)
if bgcs:
    b = bgcs[0]
    d = detail(bg_detail)
    print("BGC #%d: screen %r; trace pause %r initial %r final %r" % (b.number, d, b.pause_ms, b.initial_ms,
                                                                      b.final_ms))
    check(d.get("number") == b.number and d.get("gen") == b.gen_name() and d.get("type") == "BackgroundGC",
          "detail of the newest BGC #%d %s" % (b.number, b.gen_name()), bg_detail)
    if b.complete:
        check(b.final_ns is not None, "BGC #%d has a SuspendForGCPrep pause in the trace" % b.number)
        check(d["bgc"] is not None and close_ms(d["bgc"][0], b.initial_ms) and close_ms(d["bgc"][1], b.final_ms),
              "BGC pauses: screen %r, trace initial %r final %r" % (d["bgc"], b.initial_ms, b.final_ms), bg_detail)
        check(close_ms(d["pause"], b.pause_ms), "BGC pause: screen %r, trace %r" % (d["pause"], b.pause_ms),
              bg_detail)
    check(d["first"] is not None and d["first"][0] == 0 and d["first"][1] == "SuspendForGC",
          "BGC events begin with its GCSuspendEEBegin: %r" % (d["first"],), bg_detail)
    check(d["gcstart"] is not None and d["gcstart"][1] == b.number
          and close_ms(d["gcstart"][0], (b.start_ns - b.suspend_begin_ns) / 1e6),
          "BGC GCStart +ms: screen %r, trace %.4f" % (d["gcstart"], (b.start_ns - b.suspend_begin_ns) / 1e6),
          bg_detail)

# foreground GCs: 0F/1F rows; a foreground GC's detail has no BGC pauses
check(all(re.match(r"[01]F", r[1]) for r in fg_rows) and fg_rows, "foreground filter shows 0F/1F rows", fg)
check_rows(fg_rows, fgcs, "foreground", fg)
if fgcs:
    f = fgcs[0]
    d = detail(fg_detail)
    check(d.get("number") == f.number and d.get("type") == "ForegroundGC" and d["bgc"] is None,
          "detail of the newest FGC #%d: %r" % (f.number, d), fg_detail)
    if f.complete:
        check(close_ms(d["pause"], f.pause_ms), "FGC pause: screen %r, trace %r" % (d["pause"], f.pause_ms),
              fg_detail)

if failed():
    print("%d check(s) failed" % failed(), file=sys.stderr)
    sys.exit(1)
print("all checks passed")
