"""test_top_live.py — `gcscope top` on live LTTng sessions, driven in tmux.

usage: test_top_live.py GCSCOPE RGC_DEMO WORKDIR

1. `gcscope top -- rgc-demo` with no relayd listening: top starts one, shows
   the demo's GCs, and stops it (by PID) when it quits.
2. With a relayd of the test's own (-o WORKDIR/relayd-out), `gcscope top --
   rgc-demo` again; after the demo exits, the header's GC counts per
   generation, the newest GC number and the max pause must equal what
   babeltrace2 reads from the trace the relayd wrote (trace_gcs.py: complete
   GCs per GCStart Depth; PerfView's pauses, a background GC's initial +
   SuspendForGCPrep pauses included). A relayd of another test keeping the
   port is waited for (90 s), then this part is not checked.
3. `gcscope top --session NAME` on a live session made with the lttng CLI;
   a second reader is refused with a plain message; an unknown session too.
Every process started here is stopped by its PID.
"""
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tmux_top import Screen  # noqa: E402
from top_live_common import (header_figures, lttng, port_open, remove_command_output,  # noqa: E402
                             stable_screen, Relayd)
import trace_gcs  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, DEMO, WORK = sys.argv[1:4]


def trace_figures(trace_dir, procname="rgc-demo"):
    """GC counts per generation (complete GCs), newest GC number and max
    pause in ms (PerfView's rules, trace_gcs.py), from babeltrace2's text
    output."""
    gcs, _ = trace_gcs.read(trace_dir, procname)
    done = [g for g in gcs.values() if g.complete]
    counts = tuple(sum(1 for g in done if g.gen == n) for n in range(3))
    return counts, (max(gcs) if gcs else None), (max(g.pause_ms for g in done) if done else 0.0)


os.makedirs(WORK, exist_ok=True)
relayd = None
s = None
demo = None
session = "gcs-tui-test-%d" % os.getpid()
try:
    # --- 1: top starts and stops its own relayd ----------------------------
    if not port_open():
        t_start = time.time()
        # The relayd top starts writes the live trace to a temporary directory
        # (in $TMPDIR) that top removes when it quits, and says so.
        tmpdir = os.path.join(WORK, "tmp")
        shutil.rmtree(tmpdir, ignore_errors=True)
        os.makedirs(tmpdir)
        s = Screen("%s top -- %s --seconds 2" % (GCSCOPE, DEMO), env={"TMPDIR": tmpdir})
        t = s.wait_until(lambda ls: any(re.match(r"PID \d+ rgc-demo", x) for x in ls), "live header", timeout=20)
        check("temp trace (removed on exit; -o DIR keeps it): %s" % tmpdir[:20] in t or "command exited (" in t,
              "the status line names the temporary trace", t)
        live_dirs = glob.glob(os.path.join(tmpdir, "gcscope-top-*-*"))
        check(len([d for d in live_dirs if os.path.isdir(d)]) == 1, "one temporary trace directory: %r" % live_dirs)
        t = s.wait_for("command exited (", timeout=20)
        remove_command_output(t)
        s.keys("q")
        s.wait_for("EXIT=0", timeout=20)
        check(not port_open(), "the relayd top started is stopped when it quits")
        check("gcscope-top-" not in lttng("list").stdout, "top's live session destroyed")
        s.close()
        s = None
        check(not [d for d in glob.glob(os.path.join(tmpdir, "gcscope-top-*")) if os.path.isdir(d)],
              "the temporary trace directory is removed on exit")
        check(not [d for d in glob.glob(os.path.expanduser("~/lttng-traces/*/gcscope-top-*"))
                   if os.path.getmtime(d) >= t_start - 1], "nothing written to ~/lttng-traces")
        # -o DIR keeps it: a CTF trace that imports.
        keep = os.path.join(WORK, "kept")
        shutil.rmtree(keep, ignore_errors=True)
        s = Screen("%s top -o %s -- %s --seconds 2" % (GCSCOPE, keep, DEMO), env={"TMPDIR": tmpdir})
        t = s.wait_for("command exited (", timeout=30)
        remove_command_output(t)
        s.keys("q")
        s.wait_for("EXIT=0", timeout=20)
        s.close()
        s = None
        metas = glob.glob(os.path.join(keep, "**", "metadata"), recursive=True)
        check(len(metas) >= 1, "-o DIR keeps the trace (%r)" % metas)
        if os.path.exists(os.path.join(WORK, "kept.db")):   # an earlier run's (maybe an older layout's)
            os.remove(os.path.join(WORK, "kept.db"))
        imp = subprocess.run([GCSCOPE, "import", "-q", "-d", os.path.join(WORK, "kept.db"), keep], capture_output=True,
                             text=True)
        check(imp.returncode == 0, "the kept trace imports: %s" % imp.stderr.strip())
        # -o DIR again: refused before COMMAND starts, as record -o refuses it,
        # and not a byte of the kept trace changes.
        def tree(root):
            out = {}
            for dp, _, fs in os.walk(root):
                for f in fs:
                    with open(os.path.join(dp, f), "rb") as fh:
                        out[os.path.relpath(os.path.join(dp, f), root)] = hashlib.sha256(fh.read()).hexdigest()
            return out
        kept_before = tree(keep)
        again = subprocess.run([GCSCOPE, "top", "-o", keep, "--", DEMO, "--seconds", "2"], capture_output=True,
                               text=True, timeout=60, stdin=subprocess.DEVNULL)
        m = re.fullmatch(r"gcscope top: '%s' already holds a recording \(%s/(\S+)\); choose another -o or remove "
                         r"it\n" % (re.escape(keep), re.escape(keep)), again.stderr)
        check(again.returncode == 1 and m is not None,
              "top -o DIR holding a recording: exit %d, %r" % (again.returncode, again.stderr))
        check(tree(keep) == kept_before, "the kept trace is unchanged (%d files)" % len(kept_before))
    else:
        print("a relayd already listens: part 1 skipped")

    # --- 2: figures against the trace the relayd wrote ------------------------
    out_dir = os.path.join(WORK, "relayd-out")
    shutil.rmtree(out_dir, ignore_errors=True)
    relayd = Relayd(out_dir)     # waits a while for another test's relayd to go
    s = Screen("%s top -- %s --seconds 3" % (GCSCOPE, DEMO))
    t = stable_screen(s, "command exited (")
    counts, _, maxp, _, rows = header_figures(t)
    newest = rows[0][0] if rows else None
    # (rgc-demo's own exit status is the runtime's business: shown, not checked)
    print("status line: %s" % t.rstrip("\n").split("\n")[-1])
    remove_command_output(t)
    s.keys("q")
    s.wait_for("EXIT=0", timeout=20)
    s.close()
    s = None
    if relayd.ours:
        relayd.stop()
        traces = [d for d in glob.glob(os.path.join(out_dir, "*", "gcscope-top-*"))]
        check(len(traces) == 1, "one trace written by the relayd: %r" % traces)
        if traces:
            tc, tnewest, tmax = trace_figures(traces[0])
            print("screen: counts %r newest %r max pause %r; trace: %r %r %.4f" % (counts, newest, maxp, tc, tnewest, tmax))
            check(counts == tc, "GC counts per generation: screen %r, trace %r" % (counts, tc), t)
            check(newest == tnewest, "newest GC: screen %r, trace %r" % (newest, tnewest), t)
            check(maxp is not None and abs(maxp - tmax) < 0.0011,
                  "max pause: screen %r, trace %.4f" % (maxp, tmax), t)
    else:
        print("the relayd is not ours: its trace is not checked")
        relayd = None

    # --- 3: --session, one reader only --------------------------------------------
    if port_open():
        r = lttng("create", session, "--live=100000", "--set-url=net://127.0.0.1")
        check(r.returncode == 0, "lttng create: %s" % r.stderr)
        lttng("enable-event", "-u", "rgc:*", "-s", session)
        lttng("add-context", "-u", "-t", "vpid", "-t", "vtid", "-t", "procname", "-s", session)
        lttng("start", session)
        demo = subprocess.Popen([DEMO, "--seconds", "6"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        s = Screen("%s top --session %s" % (GCSCOPE, session))
        t = s.wait_until(lambda ls: len(ls) > 1 and ls[1].startswith("PID "), "a process on screen", timeout=20)
        check(("live session %s" % session) in t.split("\n")[0], "title names the session", t)
        # The session traces every rgc program on the machine: look for the
        # demo in the process chooser (other tests may run rgc programs too).
        s.keys("p")
        t = s.wait_until(lambda ls: any(re.search(r"PID %d\s+rgc-demo" % demo.pid, x) for x in ls),
                         "attached view shows the demo", timeout=20)
        s.keys("Escape")
        s.wait_for("Choose a process", absent=True)
        r = subprocess.run([GCSCOPE, "top", "--session", session], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=30)
        check(r.returncode == 1 and r.stderr ==
              "gcscope top: session '%s' is already being read by another live viewer (LTTng allows one per "
              "session and relayd): close it first\n" % session, "second reader refused: %r" % r.stderr)
        r = subprocess.run([GCSCOPE, "top", "--session", session + "-none"], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=30)
        check(r.returncode == 1 and "no live session '%s-none'" % session in r.stderr,
              "unknown session: %r" % r.stderr)
        s.keys("q")
        s.wait_for("EXIT=0", timeout=20)
finally:
    if s is not None:
        s.close()
    if demo is not None:
        try:
            demo.wait(timeout=20)
        except subprocess.TimeoutExpired:
            demo.kill()
            demo.wait()
    lttng("destroy", session)
    if relayd is not None:
        relayd.stop()

if failed():
    print("%d check(s) failed" % failed(), file=sys.stderr)
    sys.exit(1)
print("all checks passed")
