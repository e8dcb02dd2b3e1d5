#!/usr/bin/env python3
"""alloc_measured.py GCSCOPE GCSIM TMP — gcscope's measured allocations
against what librgc says it handed out (gcsim prints soh_/loh_/poh_allocated_bytes,
counted by the runtime per allocation). Three recordings of 1 s: loh-churn
(background GCs with foreground GCs inside, most bytes on the LOH), bgc
(gen0 allocations while background GCs run; PerfView's column counts them
only from AllocationTick, absent from the gc profile) and pinning with a POH
share. Each generation's measured total must be within 0.1 % of the
runtime's, less at most the last GC's budget for that generation (what is
allocated after the last GC is in no figure), no GC may
have a negative measured allocation, and `stats` prints both figures, PerfView's
unchanged. Label lttng."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
from gcs_check import Checker  # noqa: E402

G, SIM, TMP = sys.argv[1:4]
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
c = Checker(G)

CASES = [("loh-churn", ["--scenario", "loh-churn"]),
         ("bgc", ["--scenario", "bgc"]),
         ("poh", ["--scenario", "pinning", "--poh-fraction", "0.2"])]

for name, args in CASES:
    d = os.path.join(TMP, name)
    db = d + ".db"
    p = subprocess.run([G, "record", "-o", d, "--import", "-d", db, "--", SIM] + args + ["--seconds", "1"],
                       capture_output=True, text=True, timeout=120)
    c.check(p.returncode == 0, "%s: record exits 0 (%d: %s)" % (name, p.returncode, p.stderr[-400:]))
    if p.returncode != 0:
        continue
    rt = {}
    for line in p.stdout.splitlines():
        k, _, v = line.partition("=")
        if k in ("soh_allocated_bytes", "loh_allocated_bytes", "poh_allocated_bytes"):
            rt[k[:3]] = int(v.split()[0])
    c.check(len(rt) == 3, "%s: gcsim printed its allocated bytes" % name)
    f = c.rows(db, "SELECT sum(soh_alloc_measured_mb) * 1e6, sum(loh_alloc_measured_mb) * 1e6, "
               "sum(poh_alloc_measured_mb) * 1e6, sum(alloc_measured_mb < 0), count(*), "
               "sum(alloc_measured_mb IS NULL AND complete = 1), sum(total_alloc_mb) FROM gcs")[0]
    ours = {"soh": float(f[0] or 0), "loh": float(f[1] or 0), "poh": float(f[2] or 0)}
    # What is allocated after the last GC is in no figure: up to that GC's budget of the
    # generation (gc_gens.budget_mb, summed over heaps). Above the runtime's count only slack.
    budget = {}
    for k, gen in (("soh", 0), ("loh", 3), ("poh", 4)):
        b = c.rows(db, "SELECT coalesce(budget_mb, 0) * 1e6 FROM gc_gens WHERE gen = %d AND gc_id = "
                       "(SELECT max(id) FROM gcs WHERE complete = 1)" % gen)
        budget[k] = float(b[0][0]) if b and b[0][0] else 0.0
    for k in ("soh", "loh", "poh"):
        want = rt.get(k, -1)
        over = max(0.001 * want, 300000)               # allocation-context slack
        under = over + budget[k]
        c.check(-under <= ours[k] - want <= over, "%s: %s measured %.0f bytes, runtime %d (allowed -%.0f .. +%.0f)"
                % (name, k, ours[k], want, under, over))
    c.check(f[3] == "0", "%s: no GC with a negative measured allocation (%s)" % (name, f[3]))
    c.check(f[5] == "0", "%s: every complete GC has a measured allocation (%s missing)" % (name, f[5]))
    s = subprocess.run([G, "stats", db, "--format", "json"], capture_output=True, text=True)
    js = json.loads(s.stdout)
    summ = js["processes"][0]["summary"]
    c.check(abs(summ["total_alloc_measured_mb"] * 1e6 - sum(ours.values())) < 1,
            "%s: stats json total_alloc_measured_mb = the rows' sum" % name)
    c.check(abs(summ["total_alloc_mb"] - float(f[6])) < 1e-6, "%s: PerfView's total_alloc_mb kept" % name)
    t = subprocess.run([G, "stats", db, "--section", "summary"], capture_output=True, text=True)
    c.check("Total Allocs measured:" in t.stdout and "Total Allocs  :" in t.stdout,
            "%s: the text summary prints both totals" % name)
    if name == "bgc":
        # the figure PerfView's rule misses: background GCs' gen0 without AllocationTick
        c.check(summ["total_alloc_mb"] < summ["total_alloc_measured_mb"],
                "bgc: PerfView's total (%.1f) is below the measured one (%.1f)"
                % (summ["total_alloc_mb"], summ["total_alloc_measured_mb"]))
sys.exit(c.done())
