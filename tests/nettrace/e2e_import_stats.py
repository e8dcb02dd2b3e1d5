#!/usr/bin/env python3
"""Issue 8 end to end: `gcscope import` of the shared .NET Core 3.0 .nettrace
file into a database, then `gcscope stats --format json` (and `stats` on the
file itself).

The literals come from tests/nettrace/tools/nt_walk.py FILE gc-pauses, an
independent Python walker of the file (not gcscope's reader): PerfView's pause,
RestartEEEnd - SuspendEEBegin(SuspendForGC) on the suspending thread, in ns
from the file's clock (SyncTimeUTC + (ts - SyncTimeQPC) * 1e9 / QPCFrequency).
GC 1 and GC 3 are the interesting ones: another thread's SuspendOther
suspension overlaps them (GC 1: its RestartEEEnd comes 4.9 ms after the
SuspendForGC; the GC's own restart comes 20.9 ms after), which must not end or
start the GC's pause.

usage: e2e_import_stats.py GCSCOPE NETTRACE WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, TRACE, WORK = sys.argv[1:4]

# (GC index) -> (generation, pause ns), from nt_walk.py gc-pauses.
PAUSES = {1: (0, 20865216), 2: (0, 12535134), 3: (1, 13602642), 100: (0, 12728790), 179: (1, 13140109),
          250: (0, 14548515), 317: (1, 15515833), 445: (1, 23324485), 469: (1, 22586032), 478: (0, 28646019)}
TOTAL_PAUSE_NS = 7730339857  # sum over the 478 GCs (nt_walk.py gc-pauses)
PID = 10064                  # the Trace object's process id


def run(args, cwd=None):
    p = subprocess.run([GCSCOPE] + args, cwd=cwd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        print("command failed:", args, p.stderr, file=sys.stderr)
        sys.exit(1)
    return p.stdout


def check_report(js, where):
    check(len(js["processes"]) == 1, where + ": one process")
    p = js["processes"][0]
    s = p["summary"]
    check(p["pid"] == PID, where + ": pid %r" % p["pid"])
    check(s["gc_count"] == 478 and s["incomplete_count"] == 0, where + ": 478 complete GCs (%r, %r incomplete)"
          % (s["gc_count"], s["incomplete_count"]))
    gens = {g["gen"]: g["count"] for g in p["generations"]}
    check(gens == {"ALL": 478, "0": 473, "1": 5, "2": 0}, where + ": generations %r" % gens)
    check(sum(1 for g in p["gcs"] if g["gen"] == 1) == 5, where + ": 5 gen1 rows")
    check(abs(s["total_pause_msec"] - TOTAL_PAUSE_NS / 1e6) < 1e-6, where + ": total pause %r" % s["total_pause_msec"])
    by_index = {g["index"]: g for g in p["gcs"]}
    check(sorted(by_index) == list(range(1, 479)), where + ": GC indexes 1..478")
    for idx, (gen, ns) in PAUSES.items():
        g = by_index.get(idx)
        check(g is not None and g["gen"] == gen and g["type"] == "N" and g["complete"],
              where + ": GC %d gen %d blocking" % (idx, gen))
        check(g is not None and abs(g["pause_msec"] - ns / 1e6) < 1e-9,
              where + ": GC %d pause %r ms, expected %r" % (idx, g and g["pause_msec"], ns / 1e6))
    gen1 = sorted(i for i, g in by_index.items() if g["gen"] == 1)
    check(gen1 == [3, 179, 317, 445, 469], where + ": the gen1 GCs %r" % gen1)
    check(s["max_pause_msec"] >= 28.646019, where + ": max pause at least GC 478's")


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
db = os.path.join(WORK, "nt.db")
out = run(["import", TRACE, "-d", db])
check("478 GCs" in out and "0 discarded" in out, "import summary line: %r" % out)
check_report(json.loads(run(["stats", db, "--format", "json"])), "stats DB")
# A .nettrace path is imported into ./gcscope.db first, then reported.
check_report(json.loads(run(["stats", TRACE, "--format", "json"], cwd=WORK)), "stats FILE")
check(os.path.exists(os.path.join(WORK, "gcscope.db")), "stats FILE created ./gcscope.db")
# Measured allocations: this runtime reports the LOH's size after a gen0 GC
# as 0 (nt_walk.py FILE loh: size after 0 in 473 histories, 36,016 in the 5
# gen1 ones) while its objects before are 36,016 bytes in all 478. A GC that
# does not condemn the LOH leaves it unchanged, so the measured LOH is the
# 36,016 bytes found at the first GC and nothing after (issue 29: each gen0
# GC was credited the whole LOH again).
import sqlite3  # noqa: E402
con = sqlite3.connect(db)
loh, n = con.execute("SELECT sum(loh_alloc_measured_mb), sum(loh_alloc_measured_mb > 0) FROM gcs").fetchone()
check(abs(loh - 0.036016) < 1e-12 and n == 1, "measured LOH %r MB over %r GCs, expected 0.036016 once" % (loh, n))
con.close()
txt = run(["stats", db])
check("GCs: 478 complete, 0 incomplete" in txt, "text summary")

if failed():
    print("%d failure(s)" % failed(), file=sys.stderr)
    sys.exit(1)
print("ok")
