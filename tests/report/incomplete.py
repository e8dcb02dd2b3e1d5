#!/usr/bin/env python3
"""incomplete.py GCSCOPE TRACE WORKDIR -- incomplete data is named, never
hidden: on a CoreCLR trace that records only GCStart/GCEnd (no suspension,
restart or heap-stats events), every GC is incomplete. The stored reason says
the trace has no suspension events (not that it began inside the GC); stats
prints one line per process with the count and the reason instead of empty
tables; advise says "Cannot judge" instead of "No findings". The GC counts per
process come from babeltrace2's text of the trace."""
import collections, os, pty, re, shutil, sqlite3, subprocess, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, TRACE, WORK = sys.argv[1:4]


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
db = os.path.join(WORK, "inc.db")
bt = subprocess.run(["babeltrace2", TRACE], capture_output=True, text=True, check=True).stdout
starts = collections.Counter(int(m.group(1)) for m in re.finditer(r"GCStart_V\d+: .*?vpid = (\d+)", bt))
check(len(starts) == 2 and "SuspendEE" not in bt, "premise: two processes, no suspension events: %r" % starts)
subprocess.run([GCSCOPE, "import", "-d", db, TRACE], check=True, capture_output=True)
why = "the trace has no GCSuspendEEBegin events for the process (suspensions not recorded)"
rows = sqlite3.connect(db).execute("SELECT pid, count(*), sum(complete), group_concat(DISTINCT incomplete_why) "
                                   "FROM gcs GROUP BY pid").fetchall()
check(sorted((p, n, c, w) for p, n, c, w in rows) == sorted((p, n, 0, why) for p, n in starts.items()),
      "stored GCs and reasons: %r" % rows)
txt = subprocess.run([GCSCOPE, "stats", db], capture_output=True, text=True).stdout
txt = txt.replace("\n    ", " ")  # the why wraps at 80 columns under its line
for pid, n in starts.items():
    line = "  No complete GC: %d GC%s seen, all incomplete: %s" % (n, "" if n == 1 else "s", why)
    check(("GC Stats for Process %5d" % pid) in txt and line in txt, "stats for %d: %r" % (pid, line))
check("Pause statistics" not in txt and "Number of Heaps: -1" not in txt, "no empty tables")
adv = subprocess.run([GCSCOPE, "advise", db], capture_output=True, text=True).stdout
check(all(len(l) <= 80 for l in adv.splitlines()), "advise text within 80 columns")
adv = " ".join(adv.split())  # the text wraps at 80 columns
for pid, n in starts.items():
    check(("Cannot judge: %d GC%s, all incomplete because %s" % (n, "" if n == 1 else "s", why)) in adv,
          "advise for %d" % pid)
check("No findings" not in adv, "advise never says 'No findings' here")
# Views over events the trace lacks: one line naming the profile, nothing on stdout
for cmd, prof in (("allocs", "--profile alloc"), ("handles", "--profile handles")):
    p = subprocess.run([GCSCOPE, cmd, db], capture_output=True, text=True)
    check(p.returncode == 1 and p.stdout == "" and p.stderr.count("\n") == 1 and prof in p.stderr,
          "%s without its events: %d %r %r" % (cmd, p.returncode, p.stdout, p.stderr))
# A trace whose tracer discarded events: every report repeats the warning
lossy = os.path.join(WORK, "lossy.db")
shutil.copyfile(db, lossy)
c = sqlite3.connect(lossy)
c.execute("UPDATE traces SET discarded = 17")
c.commit()
c.close()
def on_tty(argv):
    """argv's stdout and stderr, both written to one pseudo-terminal."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:   # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    p.wait()
    return out.decode(errors="replace").replace("\r\n", "\n")


WARN = r"(gcscope \w+: )?warning: trace \d+ \(.*\): 17 events discarded by the tracer"
for cmd in (["stats"], ["stats", "--format", "json"], ["advise"], ["impact"], ["triggers"], ["events"],
            ["export", "--format", "chrome-json"], ["heaps"], ["allocs"], ["handles"]):
    p = subprocess.run([GCSCOPE, cmd[0], lossy] + cmd[1:], capture_output=True, text=True)
    check(re.search(WARN, p.stderr + p.stdout) is not None,
          "%s repeats the discarded-events warning: %r" % (cmd[0], p.stderr))
    # ... first, before any line of the report (gcs_input_open_report): stdout
    # and stderr on one terminal (stdout line-buffered) give the lines in the
    # order written.
    first = on_tty([GCSCOPE, cmd[0], lossy, "--no-pager"][:4 if cmd[0] == "stats" else 3] + cmd[1:]).split("\n", 1)[0]
    check(re.match(WARN, first) is not None, "%s: the warning is the first line, not %r" % (" ".join(cmd), first))
# Every report takes -d: events TRACE -d DB imports TRACE into DB and lists
# the same events as events on the database the test imported above.
evdb = os.path.join(WORK, "events.db")
p = subprocess.run([GCSCOPE, "events", TRACE, "-d", evdb], capture_output=True, text=True)
want = subprocess.run([GCSCOPE, "events", db], capture_output=True, text=True).stdout
check(p.returncode == 0 and os.path.exists(evdb) and p.stdout == want and want.count("\n") > 1,
      "events TRACE -d DB: %d %r (%d lines, want %d)" % (p.returncode, p.stderr, p.stdout.count("\n"), want.count("\n")))
if failed():
    print(adv + txt, file=sys.stderr)
    sys.exit(1)
print("ok")
