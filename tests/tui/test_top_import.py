"""test_top_import.py — `gcscope top DB` following a real import.

usage: test_top_import.py GCSCOPE TUI_MKDB TRACE_DIR WORKDIR

top is started on an empty database (real schema, no rows), then `gcscope
import` loads the real CoreCLR trace netcore31-perfcollect-default into it
while top runs: the GCs must appear without restarting top.

Expected figures come from outside gcscope: lttng-analyses' periodstats on
this trace (pairs GCSuspendEEBegin_V1 -> GCRestartEEEnd_V1 per vpid, i.e.
PerfView's pause of a blocking GC, SuspendEEBegin -> RestartEEEnd):
  Count 11, Avg 14303.354 us, Max 46851.143 us
so the two processes' GC counts add up to 11, their total pauses to
11 * 14.303354 = 157.337 ms, and the largest pause is 46.851 ms.
"""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tmux_top import Screen  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, MKDB, TRACE, WORK = sys.argv[1:5]
DB = os.path.join(WORK, "top-import.db")


def rollup_all(t):
    m = re.search(r"^ALL\s+(\d+)\s+([0-9.]+)\s+\S+\s+\S+\s+([0-9.]+)\s", t, re.M)
    return (int(m.group(1)), float(m.group(2)), float(m.group(3))) if m else None


os.makedirs(WORK, exist_ok=True)
if os.path.exists(DB):
    os.unlink(DB)
empty = os.path.join(WORK, "empty.sql")
with open(empty, "w") as f:
    f.write("SELECT 1;\n")
subprocess.run([MKDB, DB, empty], check=True)

s = Screen("%s top %s" % (GCSCOPE, DB))
try:
    s.wait_for("waiting for GCs")
    r = subprocess.run([GCSCOPE, "import", TRACE, "-d", DB], capture_output=True, text=True)
    check(r.returncode == 0, "import: %s" % r.stderr)
    t = s.wait_for("PID 5747 dotnet", timeout=10)
    check(" | proc 1/2 | " in t.split("\n")[0], "two processes with GCs", t)
    a = rollup_all(t)
    s.keys("p")
    s.wait_for("Choose a process")
    s.keys("Down", "Enter")
    t = s.wait_for("PID 5767 dotnet")
    b = rollup_all(t)
    check("max pause 46.851 ms" in t, "max pause of pid 5767", t)
    check(a is not None and b is not None, "rollup rows", t)
    if a and b:
        check(a[0] + b[0] == 11, "GC count 3 + 8: %r %r" % (a, b), t)
        check(abs(a[2] + b[2] - 157.337) < 0.002, "total pause: %.3f + %.3f" % (a[2], b[2]), t)
        check(max(a[1], b[1]) == 46.851, "max pause in the rollup", t)
    s.keys("q")
    s.wait_for("EXIT=0")
finally:
    s.close()

if failed():
    print("%d check(s) failed" % failed(), file=sys.stderr)
    sys.exit(1)
print("all checks passed")
