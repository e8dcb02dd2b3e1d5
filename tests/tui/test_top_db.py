"""test_top_db.py — `gcscope top DB` driven in tmux against fixture.sql.

usage: test_top_db.py GCSCOPE TUI_MKDB FIXTURE.sql WORKDIR

Expected figures, derived by hand from fixture.sql (pid 4242, complete GCs
#1..#5; #6 is incomplete and left out of every figure, as PerfView does):
  pauses 2.5 + 5.5 + 3.25 + 3.5 + 250 = 264.75 ms, max 250.000 (#5)
  process duration = last GC end (#5: 400.5 + 240 = 640.5) - first pause
    start (#1: 100.0) = 540.5 ms -> % paused 264.75*100/540.5 = 48.98 -> "49.0%"
  allocs 8 + 10 + 12 + 6 + 15 = 51 MB -> 51*1000/540.5 = 94.36 -> "94.4 MB/s"
  heap now = After of #5 = 8.000; max = max Peak = 25.000 (#5)
  counts gen0 1 (#1), gen1 2 (#2, #4), gen2 2 (#3, #5); BGC 1 (#3), FGC 1 (#4)
  uptime = gc_process_summary last_event 1234.5 - first 0.0 ms -> "1.2 s"
  rollup gen2: #3 + #5: count 2, max 250.000, total 253.250, mean 126.625,
    total alloc 27.000, max alloc rate 150.0, max peak 25.000, induced 1 (#5)
  histogram (1-2-5 ms buckets): 2.5, 3.25, 3.5 -> [2,5): 3; 5.5 -> [5,10): 1;
    250 -> [200,500): 1
  BGC #3: pauses 1.25 (300.000 -> 301.250) and 2.0 (340.000 -> 342.000); its
    events span 300.000 .. 350.250 ms: 15 events (the foreground GC #4's 4
    included), the GCSuspendEEBegin of #5 at 400.000 excluded.
"""
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tmux_top import Screen  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, MKDB, FIXTURE, WORK = sys.argv[1:5]
DB = os.path.join(WORK, "top-fixture.db")


def row_numbers(text):
    """GC numbers of the table rows, top to bottom (the rows start with the number)."""
    nums = []
    for line in text.split("\n")[7:]:
        m = re.match(r"^\s*(\d+)\??\s+\d+\.\d+ ", line)
        if m:
            nums.append(int(m.group(1)))
    return nums


os.makedirs(WORK, exist_ok=True)
if os.path.exists(DB):
    os.unlink(DB)
subprocess.run([MKDB, DB, FIXTURE], check=True)

# --- errors, no terminal needed --------------------------------------------
r = subprocess.run([GCSCOPE, "top", os.path.join(WORK, "missing.db")], capture_output=True, text=True)
check(r.returncode == 1 and r.stderr.strip() == "gcscope top: %s: no such database" % os.path.join(WORK, "missing.db"),
      "missing DB: %r %r" % (r.returncode, r.stderr))
notdb = os.path.join(WORK, "not-a-db.txt")
with open(notdb, "w") as f:
    f.write("this is not a database\n" * 100)
r = subprocess.run([GCSCOPE, "top", notdb], capture_output=True, text=True)
check(r.returncode == 1 and r.stderr.startswith("gcscope top: %s: not a gcscope database" % notdb)
      and r.stderr.count("\n") == 1, "not a DB: %r %r" % (r.returncode, r.stderr))
r = subprocess.run([GCSCOPE, "top", "--bogus"], capture_output=True, text=True)
check(r.returncode == 2 and "unknown option '--bogus'" in r.stderr, "bad flag: %r" % r.stderr)
r = subprocess.run([GCSCOPE, "top", DB, "--long-pause", "abc"], capture_output=True, text=True)
check(r.returncode == 2 and "--long-pause" in r.stderr, "bad --long-pause: %r" % r.stderr)
r = subprocess.run([GCSCOPE, "top", DB], capture_output=True, text=True, stdin=subprocess.DEVNULL)
check(r.returncode == 1 and "needs a terminal" in r.stderr, "no tty: %r" % r.stderr)

s = Screen("%s top %s" % (GCSCOPE, DB))
try:
    t = s.wait_for("PID 4242")
    lines = t.split("\n")
    # --- header ------------------------------------------------------------
    check(lines[0].startswith(" gcscope top | proc 1/2 | all | sort GC# desc | DB top-fixture.db"), "title", t)
    check(lines[1].startswith("PID 4242 demo-app (Workstation concurrent)  up 1.2 s  paused 49.0%"), "header 1", t)
    check(lines[2].startswith("GCs 0:1 1:2 2:2 (BGC 1, FGC 1)  heap 8.000 MB (max 25.000)  alloc 94.4 MB/s"),
          "header 2", t)
    check(lines[3].startswith("max pause 250.000 ms  last GC #6 0N AllocSmall, pause unknown ms  (1 incomplete)"),
          "header 3", t)
    # sparklines over time: the timeline 0 .. 1234.5 ms (gc_process_summary) is
    # shorter than 60 s, so the window is all of it; 80 - 9 - 30 = 41 cells of
    # 1234.5 / 41 = 30.11 ms. Complete GCs by pause start: 100 -> cell 3
    # (100 / 30.11 = 3.3), 200 -> 6, 300 -> 9 (9.96), 320 -> 10, 400 -> 13.
    # Heap after GC (max per cell) 4, 6, 9, 12, 8 on the scale min(4, 12 / 2)
    # = 4 .. 12: 1 + ceil((v - 4) * 7 / 8) = 1 3 6 8 5 eighths; pause (sum per
    # cell) 2.5, 5.5, 3.25, 3.5, 250 on 0 .. 250: ceil(v * 8 / 250), at least
    # 1 = 1 1 1 1 8.
    check(lines[4].startswith("heap MB") and lines[5].startswith("pause ms"), "sparkline labels", t)
    check(lines[4][9:9 + 41] == "   \u2581  \u2583  \u2586\u2588  \u2585" + " " * 27, "heap sparkline %r" % lines[4][9:50], t)
    check(lines[5][9:9 + 41] == "   \u2581  \u2581  \u2581\u2581  \u2588" + " " * 27, "pause sparkline %r" % lines[5][9:50], t)
    check(lines[4][50:].rstrip() == " 4.000..12.000 MB", "heap sparkline scale %r" % lines[4][50:], t)
    check(lines[5][50:].rstrip() == " max 250.000/cell, all 1.2 s", "pause sparkline scale, window %r" % lines[5][50:], t)
    # --- table: newest first, exact cells ------------------------------------
    check(row_numbers(t) == [6, 5, 4, 3, 2, 1], "rows newest first: %r" % row_numbers(t), t)
    check(re.search(r"^\s+5\s+400\.000 2NI\s+Induced\s+0\.500\s+250\.000\s+25\.000\s+8\.000\s+7\.000", t, re.M)
          is not None, "row of GC 5", t)
    check(re.search(r"^\s+6\?\s+700\.000 0N\s+AllocSmall\s+0\.100\s+unknown\s+unknown\s+unknown\s+unknown$", t, re.M) is not None,
          "incomplete GC 6 marked", t)
    # --- rollup --------------------------------------------------------------
    check(re.search(r"^ALL\s+5\s+250\.000\s+25\.000\s+300\.0\s+264\.750\s+51\.000\s+52\.950\s+1\s*$", t, re.M)
          is not None, "rollup ALL", t)
    check(re.search(r"^2\s+2\s+250\.000\s+25\.000\s+150\.0\s+253\.250\s+27\.000\s+126\.625\s+1\s*$", t, re.M)
          is not None, "rollup gen2", t)
    check(re.search(r"^1\s+2\s+5\.500\s+18\.000\s+300\.0\s+9\.000\s+16\.000\s+4\.500\s+0\s*$", t, re.M)
          is not None, "rollup gen1", t)

    # --- Tab: histogram --------------------------------------------------------
    s.keys("Tab")
    t = s.wait_for("Pause histogram")
    check(re.search(r"^GCs\s+0\s+0\s+0\s+0\s+0\s+3\s+1\s+0\s+0\s+0\s+0\s+1\s+0\s+0\s*$", t, re.M) is not None,
          "histogram counts", t)
    s.keys("Tab")
    s.wait_for("GC rollup by generation")

    # --- Enter: detail of the BGC (#3 is the 4th row) -------------------------
    s.keys("Down", "Down", "Down", "Enter")
    t = s.wait_for("GC detail")
    check("GC #3  Gen 2B  BackgroundGC  Reason AllocLarge" in t, "detail title", t)
    check("BGC pauses: initial 1.250 ms, final (SuspendForGCPrep) 2.000 ms" in t, "detail BGC pauses", t)
    check("Events (15)" in t, "detail event count", t)
    s.keys("Down")                     # one line down: the first pause's end
    t = s.wait_for("301.250")
    check(re.search(r"301\.250\s+1\.250\s+GCRestartEEEnd", t) is not None, "detail event time", t)
    s.keys("NPage")
    t = s.wait_for("GCHeapStats")
    check(re.search(r"342\.000\s+42\.000\s+GCRestartEEEnd", t) is not None, "detail: end of the final pause", t)
    check("400.000" not in t, "detail: next GC's events excluded", t)
    s.keys("Escape")
    t = s.wait_for("GC detail", absent=True)
    # Up to #5 (2NI): sizes per generation from gc_gens
    s.keys("Up", "Up", "Enter")
    t = s.wait_for("GC detail")
    check("GC #5  Gen 2NI" in t, "detail of #5", t)
    check(re.search(r"gen0\s+10\.000\s+1\.000", t) and re.search(r"gen2\s+9\.000\s+4\.000", t)
          and re.search(r"POH\s+1\.000\s+0\.500", t), "detail sizes before/after", t)
    s.keys("Escape")
    s.wait_for("GC detail", absent=True)

    # --- S: sort by the next column; 5 presses from GC# reach Pause ms --------
    for _ in range(5):
        s.keys("S")
    t = s.wait_for("sort Pause ms desc")
    check(row_numbers(t) == [5, 2, 4, 3, 1, 6], "sorted by pause desc: %r" % row_numbers(t), t)
    s.keys("r")
    t = s.wait_for("sort Pause ms asc")
    check(row_numbers(t) == [1, 3, 4, 2, 5, 6], "sorted by pause asc: %r" % row_numbers(t), t)
    for _ in range(6):   # back round to GC#, descending
        s.keys("S")
    t = s.wait_for("sort GC# desc")
    check(row_numbers(t) == [6, 5, 4, 3, 2, 1], "back to newest first", t)

    # --- s: the sort menu -------------------------------------------------------
    s.keys("s")
    t = s.wait_for("Sort by")
    menu = {}
    for line in t.split("\n"):
        m = re.search(r"\u2502 (\S)  (GC#|Start ms|Gen|Reason|Susp ms|Pause ms|Peak MB|After MB|Prom MB|%Pause|Alloc MB)"
                      r"\s*(now: \w+|\(hidden\))?\s*\u2502", line)
        if m:
            menu[m.group(2)] = (m.group(1), m.group(3))
    check(menu == {"GC#": ("i", "now: desc"), "Start ms": ("t", None), "Gen": ("g", None), "Reason": ("r", None),
                   "Susp ms": ("u", None), "Pause ms": ("p", None), "Peak MB": ("e", None),
                   "After MB": ("a", None), "Prom MB": ("m", None), "%Pause": ("%", "(hidden)"),
                   "Alloc MB": ("l", "(hidden)")}, "sort menu lines %r" % menu, t)
    s.keys("p")                        # a letter picks: Pause, descending
    t = s.wait_for("sort Pause ms desc")
    check("Sort by" not in t and row_numbers(t) == [5, 2, 4, 3, 1, 6], "menu p: pause desc %r" % row_numbers(t), t)
    check(re.search(r"Pause ms\*", t.split("\n")[6]) is not None, "sorted column marked", t)
    s.keys("s")
    s.wait_for("now: desc")
    s.keys("p")                        # the same column again: reversed
    t = s.wait_for("sort Pause ms asc")
    check(row_numbers(t) == [1, 3, 4, 2, 5, 6], "menu p again: pause asc %r" % row_numbers(t), t)
    s.keys("s")
    t = s.wait_for("now: asc")
    s.keys("Down", "Down")             # the selection starts on Pause ms: Down twice = After MB
    s.keys("Enter")
    t = s.wait_for("sort After MB desc")
    check(row_numbers(t) == [4, 3, 5, 2, 1, 6], "menu Enter: after desc %r" % row_numbers(t), t)
    s.keys("s")
    s.wait_for("Sort by")
    s.keys("g")                        # Gen: ascending first (0N, 1N, 1F, 2NI ... by gen, type)
    t = s.wait_for("sort Gen asc")
    check(row_numbers(t)[:2] == [6, 1], "menu g: gen asc %r" % row_numbers(t), t)
    s.keys("s")
    s.wait_for("Sort by")
    s.keys("Escape")                   # Esc closes, nothing changes
    t = s.wait_for("Sort by", absent=True)
    check("sort Gen asc" in t, "Esc keeps the sort", t)
    s.keys("s")
    s.wait_for("Sort by")
    s.keys("i")
    t = s.wait_for("sort GC# desc")
    check(row_numbers(t) == [6, 5, 4, 3, 2, 1], "menu i: back to newest first", t)

    # --- g: filter ---------------------------------------------------------------
    s.keys("g")
    t = s.wait_for("| gen0 |")
    check(row_numbers(t) == [6, 1], "filter gen0: %r" % row_numbers(t), t)
    s.keys("g", "g")
    t = s.wait_for("| gen2 |")
    check(row_numbers(t) == [5, 3], "filter gen2: %r" % row_numbers(t), t)
    s.keys("g")
    t = s.wait_for("| background |")
    check(row_numbers(t) == [3], "filter background: %r" % row_numbers(t), t)
    for _ in range(4):   # foreground, blocking gen2, induced, all
        s.keys("g")
    t = s.wait_for("| all |")
    check(row_numbers(t) == [6, 5, 4, 3, 2, 1], "filter back to all", t)

    # --- /: search -----------------------------------------------------------
    s.keys("/")
    s.literal("Induced")
    s.keys("Enter")
    t = s.wait_for("/Induced: GC #5")
    s.keys("/")
    s.literal("2B")
    s.keys("Enter")
    t = s.wait_for("/2B: GC #3")
    s.keys("/")
    s.literal("99")
    s.keys("Enter")
    t = s.wait_for("/99: not found")
    s.keys("Enter")
    t = s.wait_for("GC detail")
    check("GC #3  Gen 2B" in t, "search moved the selection to #3", t)
    s.keys("Escape")
    s.wait_for("GC detail", absent=True)

    # --- ?: help, whole at 80x24 --------------------------------------------------
    # every line of help_lines() in tui_draw.c is on the screen, whole, in order,
    # inside the box, with no scrolling
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tui", "tui_draw.c")).read()
    block = src[src.index("static void help_lines("):]
    block = block[:block.index("};")]
    help_text = [x.replace('\\"', '"') for x in re.findall(r'"((?:[^"\\]|\\.)*)",?\s*$', block, re.M)]
    check(len(help_text) >= 15, "help text parsed: %d lines" % len(help_text))
    s.keys("?")
    t = s.wait_for("gcscope top: keys")
    lines = t.split("\n")
    first = next(i for i, x in enumerate(lines) if "gcscope top: keys" in x)
    for k, want in enumerate(help_text):
        got = lines[first + k] if first + k < len(lines) else ""
        check(got[1:1 + len(want)] == want and got[1 + len(want):].strip(" ") == "\u2502" and len(want) <= 78,
              "help line %d whole: %r" % (k, want), t)
    check(first + len(help_text) < 23 and "\u2514" in lines[first + len(help_text)], "help box closes after its last line", t)
    check("PgUp/PgDn \u2500" not in t, "no scroll hint: nothing left to scroll", t)
    s.keys("Escape")
    s.wait_for("gcscope top: keys", absent=True)

    # --- f: freeze, and following the DB --------------------------------------------
    s.keys("f")
    s.wait_for("FROZEN")
    con = sqlite3.connect(DB)
    con.execute("INSERT INTO gcs (id, trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name,"
                " reason, reason_name, complete, pause_start_msec, start_msec, duration_msec, suspend_msec,"
                " pause_msec, total_alloc_mb, peak_mb, after_mb, promoted_mb) VALUES"
                " (8, 1, 4242, 0, 7, 6, 0, 0, '0N', 0, 'AllocSmall', 1, 800.0, 800.1, 1.0, 0.1, 1.5,"
                " 4.0, 9.0, 3.0, 0.25)")
    # the process's timeline grows to 2469 ms: frozen, the uptime and the
    # sparklines' window stay at 1.2 s; unfrozen they follow
    con.execute("UPDATE gc_process_summary SET last_event_msec = 2469.0 WHERE pid = 4242")
    con.commit()
    con.close()
    import time
    time.sleep(1.5)   # > 2 polls of 500 ms: the frozen view must not show it
    t = s.text()
    check(row_numbers(t)[:1] == [6], "frozen view unchanged: %r" % row_numbers(t), t)
    check("up 1.2 s" in t and "all 1.2 s" in t, "frozen: uptime and sparkline window unchanged", t)
    s.keys("f")
    t = s.wait_for("   7  800.000", timeout=3)
    check(row_numbers(t)[:3] == [7, 6, 5], "unfrozen view shows the new GC: %r" % row_numbers(t), t)
    check("GCs 0:2 1:2 2:2" in t, "counts include the new GC", t)
    check("up 2.5 s" in t and "all 2.5 s" in t, "unfrozen: the timeline grew to 2.5 s", t)

    # --- resize: wider shows more columns, back to 80x24 still fits -------------
    s.resize(100, 30)
    t = s.wait_for("%Pause")
    check("Alloc MB" in t and len(t.split("\n")) >= 30, "wide layout", t)
    s.resize(80, 24)
    # redrawn at the new size: title on the first line, status on the last
    t = s.wait_until(lambda ls: len(ls) >= 24 and ls[0].startswith(" gcscope top") and
                     ls[23].startswith("following new GCs") and "%Pause" not in ls[6], "80x24 layout after resize")
    lines = t.split("\n")
    check(lines[1].startswith("PID 4242") and lines[6].lstrip().startswith("GC#*"), "80x24 layout after resize", t)

    # --- p: choose the process ------------------------------------------------------
    s.keys("p")
    t = s.wait_for("Choose a process")
    check("PID 4242" in t and "PID 5151" in t and "other-app" in t, "process list", t)
    s.keys("Down", "Enter")
    t = s.wait_for("PID 5151 other-app (Server 4 heaps non-concurrent)")
    # the heap count now is the newest GC's (issue 29, item 1: DATAS changes it)
    check(t.split("\n")[3].startswith("max pause 1.750 ms  last GC #1 0N AllocSmall, pause 1.750 ms, 3 heaps"),
          "5151: 3 heaps now (its last GC's), the process began with 4", t)
    check(row_numbers(t) == [1], "process 5151 rows", t)

    # --- q: quit, terminal restored --------------------------------------------------
    s.keys("q")
    t = s.wait_for("EXIT=0")
    check("gcscope top |" not in t, "screen restored after q", t)
finally:
    s.close()

# Idle, top sleeps until its next 500 ms poll or the once-a-second status
# redraw: over 2 s about 6 wake-ups (voluntary context switches), where a
# 50 ms key timeout made 40. It still takes a key at once.
s = Screen("%s top %s" % (GCSCOPE, DB))
try:
    s.wait_for("PID 4242")
    pid = s.command_pid()

    def switches():
        with open("/proc/%d/status" % pid) as f:
            return int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", f.read(), re.M).group(1))
    a = switches()
    time.sleep(2)
    n = switches() - a
    check(n <= 20, "idle top woke %d times in 2 s (a timer of 100 ms or less)" % n)
    s.keys("q")
    t = s.wait_for("EXIT=0")
finally:
    s.close()

# Ctrl-C quits cleanly too.
s = Screen("%s top %s" % (GCSCOPE, DB))
try:
    s.wait_for("PID 4242")
    s.keys("C-c")
    t = s.wait_for("EXIT=0")
    check("gcscope top |" not in t, "screen restored after Ctrl-C", t)
finally:
    s.close()

# SIGTERM quits cleanly; a crash (SIGSEGV) still gives the terminal back.
for sig, status in ((signal.SIGTERM, "EXIT=0"), (signal.SIGSEGV, "EXIT=139")):
    s = Screen("%s top %s" % (GCSCOPE, DB))
    try:
        s.wait_for("PID 4242")
        os.kill(s.command_pid(), sig)
        t = s.wait_for(status)
        check("gcscope top |" not in t, "screen restored after signal %d" % sig, t)
        # the tty is back in cooked mode with echo: what is typed shows up
        # (the pane's shell is in `sleep`, so the tty itself echoes it)
        s.literal("typed-after-exit")
        s.wait_for("typed-after-exit")
    finally:
        s.close()

if failed():
    print("%d check(s) failed" % failed(), file=sys.stderr)
    sys.exit(1)
print("all checks passed")
