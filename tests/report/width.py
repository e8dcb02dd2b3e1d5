#!/usr/bin/env python3
"""width.py GCSCOPE WORKDIR TRACE... -- the text fits the terminal (issue 29,
item 7): `stats` on real traces (default, --gcs all, every section) has no
line wider than 80 columns with COLUMNS=80, none wider than 120 with
COLUMNS=120 (where the GC table is one table again: its header holds GC# and
Promoted); `--wide` keeps PerfView's whole rows. Every command's --help, and
the command list, wrap at COLUMNS (80 and 120)."""
import os, re, shutil, subprocess, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

G, WORK, TRACES = sys.argv[1], sys.argv[2], sys.argv[3:]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)


def run(args, cols):
    env = dict(os.environ, COLUMNS=str(cols))
    return subprocess.run([G] + args, capture_output=True, text=True, env=env, timeout=120)


def widest(text):
    return max((len(l) for l in text.splitlines()), default=0)


for t in TRACES:
    db = os.path.join(WORK, os.path.basename(t.rstrip("/")) + ".db")
    subprocess.run([G, "import", "-q", "-d", db, t], check=True, capture_output=True)
    name = os.path.basename(t.rstrip("/"))
    for args in (["stats", db, "--no-pager"], ["stats", db, "--no-pager", "--gcs", "all"],
                 ["stats", db, "--no-pager", "--section", "all"]):
        for cols in (80, 120):
            out = run(args, cols).stdout
            check(out and widest(out) <= cols, "%s %s at %d columns: widest line %d" %
                  (name, " ".join(args[2:]), cols, widest(out)))
    wide = run(["stats", db, "--no-pager", "--wide"], 80).stdout
    check(re.search(r"^GC Index .*Pause MSec.*Promoted MB", wide, re.M) is not None, "%s --wide: whole rows" % name)
    at120 = run(["stats", db, "--no-pager"], 120).stdout
    if "longest pauses" in at120:
        sec = at120[at120.index("longest pauses"):]
        check(re.search(r"^GC#.*Promoted$", sec, re.M) is not None, "%s at 120: the GC table in one piece" % name)

cmds = [l.split()[0] for l in run([], 80).stderr.splitlines() + run([], 80).stdout.splitlines()
        if re.match(r"^  [a-z]+ ", l)]
check(len(cmds) >= 10, "the command list: %r" % cmds)
for cols in (80, 120):
    p = run(["help"], cols)
    check(widest(p.stdout) <= 80, "the command list fits 80 columns (%d)" % widest(p.stdout))
    for c in cmds:
        out = run([c, "--help"], cols).stdout
        check(out and widest(out) <= cols, "%s --help at %d columns: widest %d" % (c, cols, widest(out)))
r80, r120 = run(["record", "--help"], 80).stdout, run(["record", "--help"], 120).stdout
check(r80.count("\n") > r120.count("\n"), "record --help uses the width: %d lines at 80, %d at 120"
      % (r80.count("\n"), r120.count("\n")))
if failed():
    sys.exit(1)
print("ok")
