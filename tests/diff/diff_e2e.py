#!/usr/bin/env python3
"""diff_e2e.py GCSCOPE TRACE TMP — `gcscope diff` end to end.

BASE is the real .NET Core 3.0 trace imported; CANDIDATE a copy of that
database with every GC's pause doubled (UPDATE gcs SET pause_msec = 2 *
pause_msec). Checked against figures computed here from the databases:
- the pause percentiles (nearest rank) of each side, their ratio 2.000;
- the Mann-Whitney p-value, computed here independently (average ranks, tie
  and continuity corrections), to the printed precision; the verdict
  "regression"; --fail-on 'p99_pause>+10%' exits 1, 'p99_pause>+150%' 0;
- a diff of the database against itself: every ratio 1.000, p = 1, "no
  significant change", exit 0 with the same --fail-on;
- JSON parses with no NaN or Infinity and says the same;
- a database with two processes needs DB:PID, and DB:PID works;
- the gen0/gen1/gen2 blocking/background split, with Foreground gen2 GCs
  planted, is PerfView's and the same as stats' (exact counts in the case).
"""
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402

GCSCOPE, TRACE, TMP = sys.argv[1:4]
T = Checker(GCSCOPE)
check, run = T.check, T.run



def pauses(db):
    c = sqlite3.connect(db)
    v = sorted(r[0] for r in c.execute("SELECT pause_msec FROM gcs WHERE complete = 1 AND pause_msec IS NOT NULL"))
    c.close()
    return v


def nearest(v, p):
    k = max(0, math.ceil(p / 100 * len(v)) - 1)
    return v[min(k, len(v) - 1)]


def mann_whitney(a, b):
    allv = sorted([(x, 0) for x in a] + [(x, 1) for x in b])
    rank_b, ties, i, n = 0.0, 0.0, 0, len(allv)
    while i < n:
        j = i
        while j < n and allv[j][0] == allv[i][0]:
            j += 1
        avg = (i + 1 + j) / 2
        rank_b += sum(avg for k in range(i, j) if allv[k][1])
        ties += (j - i) ** 3 - (j - i)
        i = j
    na, nb = len(a), len(b)
    u = rank_b - nb * (nb + 1) / 2
    var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)))
    d = u - na * nb / 2
    z = (d - math.copysign(0.5, d) if d else 0) / math.sqrt(var)
    return u, z, math.erfc(abs(z) / math.sqrt(2))


shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
base, cand = TMP + "/base.db", TMP + "/cand.db"
rc, out, err = run("import", "-q", "-d", base, TRACE)
check(rc == 0, "import")
shutil.copy(base, cand)
c = sqlite3.connect(cand)
c.execute("UPDATE gcs SET pause_msec = 2 * pause_msec")
c.commit()
c.close()
pa, pb = pauses(base), pauses(cand)
u, z, p = mann_whitney(pa, pb)
print("expected: U %.1f z %.2f p %.3g" % (u, z, p))

rc, out, err = run("diff", base, cand, "--fail-on", "p99_pause>+10%")
print(out + err)
check(rc == 1, "a regression with --fail-on p99_pause>+10%% exits 1 (%d)" % rc)
for name, q in (("P50", 50), ("P95", 95), ("P99", 99)):
    line = [l for l in out.splitlines() if l.startswith("pause %s (ms)" % name)]
    want = "pause %s (ms)" % name
    check(line and line[0].split()[3:5] == ["%.3f" % nearest(pa, q), "%.3f" % nearest(pb, q)]
          and line[0].split()[-1] == "2.000", "%s: %.3f -> %.3f, ratio 2.000 (%s)" % (name, nearest(pa, q), nearest(pb, q), line))
check("pauses: regression (Mann-Whitney U = %.1f, z = %.2f, p = %.3g, alpha 0.01; %d vs %d pauses"
      % (u, z, p, len(pa), len(pb)) in " ".join(out.split()), "the verdict and the test's figures")
check(all(len(l) <= 80 for l in out.splitlines() if not l.startswith(("base:", "candidate:"))),
      "diff text within 80 columns (but the inputs' paths)")
check("--fail-on p99_pause>+10%: HOLDS (change +100.000 %)" in err, "the rule that held is named")
rc, out, err = run("diff", base, cand, "--fail-on", "p99_pause>+150%")
check(rc == 0 and "does not hold" in err, "+150%% does not hold: exit 0")

rc, out, err = run("diff", base, base, "--fail-on", "p99_pause>+10%,pct_pause>+1pt")
print(out + err)
check(rc == 0, "self diff exits 0")
check("pauses: no significant change (Mann-Whitney U = %.1f, z = 0.00, p = 1," % (len(pa) ** 2 / 2)
      in " ".join(out.split()),
      "self diff: no significant change, p = 1")
rows = [l for l in out.splitlines() if l[:1].isalpha() or l.startswith("  ")]
ratios = [l.split()[-1] for l in out.splitlines() if "(ms)" in l or l.startswith("% time")]
check(ratios and all(r == "1.000" for r in ratios), "self diff: ratios 1.000 (%s)" % ratios)

rc, out, err = run("diff", base, cand, "--format", "json")
def no_const(x):
    raise ValueError("non-finite number in JSON: " + x)
try:
    j = json.loads(out, parse_constant=no_const)
    m = {x["name"]: x for x in j["metrics"]}
    check(m["p99_pause"]["ratio"] == 2.0, "json: p99 ratio 2")
    check(j["pauses"]["verdict"] == "regression" and abs(j["pauses"]["p"] - p) <= 1e-9 * max(1, p) + 1e-300,
          "json: verdict and p (%s vs %s)" % (j["pauses"]["p"], p))
    check(m["gen2"]["ratio"] is None, "json: a ratio over zero is null")
except ValueError as e:
    check(False, "json parses without NaN: %s" % e)

# HTML: the verdict, every metric row, --fail-on, both percentile curves.
rc, out, err = run("diff", base, cand, "--format", "html", "--fail-on", "p99_pause>+10%")
check(rc == 1 and out.startswith("<!DOCTYPE html>") and '<span class="regression">regression</span>' in out,
      "html: the regression verdict")
check(out.count("<tr><td class=\"l\">") == 17 and "<code>p99_pause&gt;+10%</code>: <span class=\"holds\">HOLDS</span>" in out,
      "html: 17 metric rows and the rule that holds")
check(out.count("<polyline") == 2 and "P99: " in out and "NaN" not in out and "-0 %" not in out,
      "html: two percentile curves with hover points")
rc, out, err = run("diff", base, base, "--format", "html")
check(rc == 0 and '<span class="note">no significant change</span>' in out, "html: a self diff finds nothing")

# The four-way split is PerfView's (gcs_gc_pause_kind): a Foreground GC is
# blocking, so one condemning gen2 counts as gen2 blocking, like a
# NonConcurrent one. The trace has 473 gen0 and 5 gen1 GCs, all NonConcurrent;
# the candidate turns the first two gen1 GCs into Foreground gen2 and the first
# gen0 GC into NonConcurrent gen2: 472 gen0, 3 gen1, 3 gen2 blocking, 0
# background (diff counted the two Foreground ones nowhere before: 1).
fg2 = TMP + "/fg2.db"
shutil.copy(base, fg2)
c = sqlite3.connect(fg2)
c.execute("UPDATE gcs SET gen = 2, type = 2 WHERE id IN (SELECT id FROM gcs WHERE gen = 1 ORDER BY id LIMIT 2)")
c.execute("UPDATE gcs SET gen = 2, type = 0 WHERE id = (SELECT MIN(id) FROM gcs WHERE gen = 0)")
c.commit()
c.close()
rc, out, err = run("diff", base, fg2)
split = {l[:32].strip(): l.split()[-4:-2] for l in out.splitlines() if l.startswith("  ") or l.startswith("GCs (")}
check(rc == 0 and split.get("GCs (complete)") == ["478", "478"] and split.get("gen0") == ["473", "472"]
      and split.get("gen1") == ["5", "3"] and split.get("gen2 blocking") == ["0", "3"]
      and split.get("background") == ["0", "0"], "diff: Foreground gen2 is gen2 blocking (%s)" % split)
rc, out, err = run("stats", fg2, "--section", "pauses")
kinds = {l[:16].strip(): l.split()[-7] for l in out.splitlines() if l.startswith("gen")}
check(rc == 0 and kinds == {"gen0": "472", "gen1": "3", "gen2 background": "0", "gen2 blocking": "3"},
      "stats splits the same way (%s)" % kinds)

# Two processes in one database: DB:PID picks one.
two = TMP + "/two.db"
rc, out, err = run("import", "-q", "-d", two, TRACE)
c = sqlite3.connect(two)
c.execute("ATTACH ? AS o", (cand,))
for t in ("gcs", "gc_process_summary"):
    cols = [r[1] for r in c.execute("PRAGMA table_info(%s)" % t)]
    sel = ", ".join("4242" if col == "pid" else col for col in cols if col != "id")
    c.execute("INSERT INTO %s (%s) SELECT %s FROM o.%s" % (t, ", ".join(x for x in cols if x != "id"), sel, t))
c.commit()
c.close()
rc, out, err = run("diff", two, base)
check(rc == 1 and "holds 2 processes with GCs" in err and "pid 4242" in err and "DB:PID" in err,
      "two processes: an error naming them (%s)" % err.strip())
rc, out, err = run("diff", base, two + ":4242")
check(rc == 0 and "pauses: regression" in out and "(trace 1, pid 4242)" in out, "DB:PID selects the process")
rc, out, err = run("diff", base)
check(rc == 2 and err.strip() == "gcscope diff: expected BASE and CANDIDATE (got 1 input)", "one input: usage error: %r" % err)
rc, out, err = run("diff", base, cand, "--fail-on", "p99>1")
check(rc == 2 and "unknown metric 'p99'" in err, "a bad rule: usage error")
sys.exit(T.done())
