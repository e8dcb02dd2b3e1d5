#!/usr/bin/env python3
"""JSON numbers print their shortest exact form, and never NaN or Infinity
(gcs_output.h, rpt_json_num): `sql --json` prints 28.362894, not %.17g's
28.362894000000001.

usage: json_numbers.py GCSCOPE TRACE WORKDIR
TRACE: netcore31-perfcollect-default. Each GC's pause_msec is stored as
(restart_end_ns - suspend_begin_ns) / 1e6, so its shortest text is that
integer count of ns written with six decimals, trailing zeros cut: computed
here from the two integer columns of the same row, without floating point.
"""
import os
import re
import shutil
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, TRACE, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
DB = os.path.join(WORK, "t.db")


def run(args):
    p = subprocess.run([GCSCOPE] + args, cwd=WORK, capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, "%s: exit %d (%s)" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


run(["import", TRACE, "-d", DB, "-q"])

# Literals: the value, one that needs 17 digits, one that needs 16,
# and the infinities SQLite makes of 1e999 (null, never "inf").
out = run(["sql", DB, "SELECT 28.362894 AS a, 0.1 + 0.2 AS b, 1.0 / 3 AS c, 1e999 AS d, -1e999 AS e, 2.5 AS f",
           "--json"])
want = '[\n {"a": 28.362894, "b": 0.30000000000000004, "c": 0.3333333333333333, "d": null, "e": null, "f": 2.5}]\n'
check(out == want, "sql --json literals: %r, want %r" % (out, want))


def ms_text(ns):
    s = "%d.%06d" % (ns // 1000000, ns % 1000000)
    return s.rstrip("0").rstrip(".")


out = run(["sql", DB, "SELECT suspend_begin_ns, restart_end_ns, pause_msec FROM gcs "
           "WHERE suspend_begin_ns IS NOT NULL AND restart_end_ns IS NOT NULL ORDER BY id", "--json"])
rows = re.findall(r'"suspend_begin_ns": (\d+), "restart_end_ns": (\d+), "pause_msec": ([^}]*)\}', out)
n = int(re.search(r'"n": (\d+)', run(["sql", DB, "SELECT count(*) AS n FROM gcs WHERE suspend_begin_ns IS NOT NULL "
                                       "AND restart_end_ns IS NOT NULL", "--json"])).group(1))
check(n > 0 and len(rows) == n, "GC rows read: %d of %d" % (len(rows), n))
bad = [(b, e, t) for b, e, t in rows if t != ms_text(int(e) - int(b))]
check(not bad, "pause_msec not in its shortest form: %d rows, first %r" % (len(bad), bad[:1]))
check("000000000" not in out and "99999999" not in out, "a %.17g tail in sql --json")

if failed():
    print("%d failure(s)" % failed(), file=sys.stderr)
    sys.exit(1)
print("ok")
