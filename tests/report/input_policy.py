#!/usr/bin/env python3
"""The reports' input policy (gcs_gcdb.h, docs/import.md): a trace argument is
imported into ./gcscope.db and the report covers only that trace's processes;
a database argument covers the whole database; --trace ID narrows it.

usage: input_policy.py GCSCOPE A_TRACE B_TRACE WORKDIR
A_TRACE: netcore31-startup-small (babeltrace2: every event has vpid 27661,
procname "app"); B_TRACE: the nettrace corpus's valid-small (make_corpus.py
writes pid 4242; nettrace carries no process name: the import names it after
its command line, "ignored-cmd").
"""
import json
import os
import shutil
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, A, B, WORK = (os.path.abspath(a) for a in sys.argv[1:5])
A_PROC, B_PROC = (27661, "app"), (4242, "ignored-cmd")


def run(args, ok=True):
    p = subprocess.run([GCSCOPE] + args, cwd=WORK, capture_output=True, text=True, timeout=300)
    check((p.returncode == 0) == ok, "%s: exit %d (%s)" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p


def stats_procs(arg, *extra):
    p = run(["stats", arg, "--format", "json"] + list(extra))
    try:
        return [(q["pid"], q["name"]) for q in json.loads(p.stdout)["processes"]]
    except ValueError:
        return None


def advise_pids(arg, *extra):
    p = run(["advise", arg, "--format", "json"] + list(extra))
    try:
        return [q["pid"] for q in json.loads(p.stdout)["processes"]]
    except ValueError:
        return None


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
db = os.path.join(WORK, "gcscope.db")

# Each trace argument is imported into ./gcscope.db; the report shows its processes only.
check(stats_procs(A) == [A_PROC], "stats A_TRACE: only A's process")
check(os.path.exists(db), "stats A_TRACE wrote ./gcscope.db")
check(stats_procs(B) == [B_PROC], "stats B_TRACE after A: only B's process")
# Importing again adds nothing and still reports that trace alone.
check(stats_procs(A) == [A_PROC], "stats A_TRACE again: only A's process")
# The database covers both; the json lists processes by max heap, then trace.
both = stats_procs("gcscope.db")
check(both is not None and sorted(both, key=lambda p: p[0]) == sorted([A_PROC, B_PROC], key=lambda p: p[0]),
      "stats gcscope.db: both processes, got %s" % both)
# Traces are numbered in import order: A is 1, B is 2.
check(stats_procs("gcscope.db", "--trace", "2") == [B_PROC], "stats gcscope.db --trace 2: B only")
check(stats_procs("gcscope.db", "--trace", "1") == [A_PROC], "stats gcscope.db --trace 1: A only")
p = run(["stats", "gcscope.db", "--trace", "9"], ok=False)
check(p.stderr.strip() == "gcscope stats: --trace 9: no such trace in gcscope.db", "unknown --trace: %r" % p.stderr)
p = run(["stats", A, "--trace", "2"], ok=False)
check(p.stderr.strip().endswith("gcscope stats: --trace 2: no such trace in %s" % A),
      "--trace outside the imported trace: %r" % p.stderr)

# The insight commands follow the same policy (B has GCs, A has none).
check(advise_pids(B) == [B_PROC[0]], "advise B_TRACE: B's process")
check(advise_pids("gcscope.db") == [B_PROC[0]], "advise gcscope.db: the process with GCs")
p = run(["advise", A], ok=False)
check("gcscope advise: no GCs in" in p.stderr, "advise A_TRACE: only A, which has no GCs: %r" % p.stderr)

# events: a trace argument shows that trace's events only.
ev = run(["events", B]).stdout.splitlines()[1:]
check(len(ev) > 0, "events B_TRACE: rows")
pids = {int(line.split()[2]) for line in ev}
check(pids == {B_PROC[0]}, "events B_TRACE: pid 4242 only, got %s" % pids)

if failed():
    print("%d failure(s)" % failed(), file=sys.stderr)
    sys.exit(1)
print("ok")
