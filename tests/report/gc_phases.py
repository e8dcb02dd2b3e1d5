#!/usr/bin/env python3
"""gc_phases.py GCSCOPE TMP OLD_TRACE NETTRACE... — the GC's phase times
(GCGlobalHeapHistory v4 Count + Times[], microseconds) end to end.

Independent value: this script decodes every GCGlobalHeapHistory v4 payload
from the .nettrace bytes itself (the manifest layout: FinalYoungestDesired
u64, NumHeaps i32, CondemnedGeneration, Gen0ReductionCount, Reason,
GlobalMechanisms u32, ClrInstanceID u16, PauseMode, MemoryPressure,
CondemnReasons0/1 u32, Count u32 at offset 46, Times u32[Count] at 50; found
by scanning for a plausible header whose Times[0], the unused SizedRef slot,
is 0) and maps the slots as CoreCLR's gc_heap::fire_pevents fills them
(Count 8: compacting, slot 6 relocate, 7 compact; Count 7: sweeping, slot 6
sweep; Count 5: a background GC's marking). Checked:
- the GCs' phases_usec, global_mechanisms (TraceEvent's flag names),
  pause_mode and memory_pressure in `stats --format json` are, as a multiset,
  exactly the decoded payloads, and as many as there are GCs;
- the gcs table's phase_*_usec columns hold the same per GC as the json;
- every complete GC's phases sum to no more than its duration (GCStart ->
  GCEnd): the runtime times them inside the GC;
- the summary's phases (mean, P95 per kind, linear interpolation) are those of
  the per-GC values, and the text table prints them (msec) within 80 columns;
- an older trace (.NET Core 3.1, GCGlobalHeapHistory v2) says "not in trace
  (needs .NET 6+" in text and HTML and null in json, never 0; the HTML
  report has the same table.
"""
import json
import math
import os
import re
import shutil
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402

G, TMP, OLD = sys.argv[1:4]
TRACES = sys.argv[4:]
T = Checker(G)
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)

PHASES = ["mark_root", "mark_short_weak", "mark_scan_finalization", "mark_long_weak", "plan", "relocate",
          "compact", "sweep"]
MECH = [(1, "Concurrent"), (2, "Compaction"), (4, "Promotion"), (8, "Demotion"), (16, "CardBundles")]
PAUSE = ["Batch", "Interactive", "LowLatency", "SustainedLowLatency", "NoGC"]
KINDS = ["gen0", "gen1", "gen2 background", "gen2 blocking"]


def decode(path):
    b = open(path, "rb").read()
    out = []
    for m in re.finditer(rb"[\x05\x07\x08]\x00\x00\x00\x00\x00\x00\x00", b):
        x = m.start() - 46
        if x < 0:
            continue
        (_fyd, nh, cond, g0r, reason, mech, _clr, pm, mp, _cr0, _cr1,
         count) = struct.unpack_from("<QiIIIIHIIIII", b, x)
        if not (1 <= nh <= 1024 and cond <= 2 and g0r < 1000 and reason <= 17 and mech < 0x20 and pm <= 4
                and mp <= 100 and count in (5, 7, 8)):
            continue
        t = struct.unpack_from("<%dI" % count, b, x + 50)
        ph = dict.fromkeys(PHASES)
        ph.update(mark_root=t[1], mark_short_weak=t[2], mark_scan_finalization=t[3], mark_long_weak=t[4])
        if count == 7:
            ph.update(plan=t[5], sweep=t[6])
        elif count == 8:
            ph.update(plan=t[5], relocate=t[6], compact=t[7])
        names = ", ".join(n for bit, n in MECH if mech & bit) or "None"
        out.append((cond, names, PAUSE[pm], mp, tuple(ph[p] for p in PHASES)))
    return out


def pct(xs, p):
    xs = sorted(xs)
    r = p / 100.0 * (len(xs) - 1)
    lo = int(math.floor(r))
    if lo >= len(xs) - 1:
        return xs[-1]
    return xs[lo] + (r - lo) * (xs[lo + 1] - xs[lo])


def kind(g):
    if g["type"] == "B":
        return "gen2 background"
    return KINDS[g["gen"]] if g["gen"] < 2 else "gen2 blocking"


for n, trace in enumerate(TRACES):
    db = "%s/t%d.db" % (TMP, n)
    rc, out, err = T.run("import", "-q", "-d", db, trace)
    T.check(rc == 0, "import %s: %s" % (trace, err))
    want = decode(trace)
    rc, out, err = T.run("stats", db, "--format", "json")
    T.check(rc == 0, "stats json")
    p = json.loads(out)["processes"][0]
    gcs = p["gcs"]
    got = [(g["gen"], g["global_mechanisms"], g["pause_mode"], g["memory_pressure"],
            tuple(g["phases_usec"][k] for k in PHASES)) for g in gcs]
    T.check(len(want) == len(gcs) and len(want) > 0, "%s: %d payloads decoded, %d GCs" % (trace, len(want), len(gcs)))
    T.check(sorted(got, key=repr) == sorted(want, key=repr),
            "%s: per-GC phases, mechanisms, pause mode, memory pressure = the decoded payloads\n%s\n%s"
            % (trace, sorted(got, key=repr)[:3], sorted(want, key=repr)[:3]))
    cols = ", ".join("phase_%s_usec" % k for k in PHASES)
    rows = T.rows(db, "SELECT gc_index, %s FROM gcs ORDER BY gc_index" % cols)
    by_index = {int(g["index"]): g for g in gcs}
    same = all([("" if by_index[int(r[0])]["phases_usec"][k] is None else str(by_index[int(r[0])]["phases_usec"][k]))
                for k in PHASES] == r[1:] for r in rows)
    T.check(len(rows) == len(gcs) and same, "%s: gcs.phase_*_usec = json phases_usec" % trace)
    for g in gcs:
        if not g["complete"]:
            continue
        s = sum(v for v in g["phases_usec"].values() if v is not None)
        T.check(0 < s <= g["duration_msec"] * 1000.0,
                "%s GC #%d: phases sum %d us <= duration %.3f ms" % (trace, g["index"], s, g["duration_msec"]))
    summ = p["summary"]["phases"]
    rc, text, err = T.run("stats", db, "--section", "phases")
    lines = text.splitlines()
    T.check(all(len(l) <= 80 for l in lines), "%s: the phases section fits 80 columns" % trace)
    for k in KINDS:
        sel = [g for g in gcs if g["complete"] and kind(g) == k]
        for ph in PHASES + ["all"]:
            if ph == "all":
                vals = [sum(v for v in g["phases_usec"].values() if v is not None) for g in sel
                        if any(v is not None for v in g["phases_usec"].values())]
            else:
                vals = [g["phases_usec"][ph] for g in sel if g["phases_usec"][ph] is not None]
            c = summ[k][ph]
            ok = c["count"] == len(vals)
            if vals:
                ok = ok and abs(c["mean_usec"] - sum(vals) / len(vals)) < 1e-6 and abs(c["p95_usec"] - pct(vals, 95)) < 1e-6
            else:
                ok = ok and c["mean_usec"] is None and c["p95_usec"] is None
            T.check(ok, "%s %s %s: count/mean/P95 %s of %s" % (trace, k, ph, c, vals))
    rc, html, err = T.run("stats", db, "--format", "html")
    T.check("<td>Mark roots</td><td>%.3f</td>" % (sum(g["phases_usec"]["mark_root"] for g in gcs if g["complete"]
                                                      and kind(g) == "gen0") / 1000.0 /
                                                  len([g for g in gcs if g["complete"] and kind(g) == "gen0"])) in html,
            "%s: the html table's Mark roots gen0 mean" % trace)
    # The text's Mark roots row: Gen0's mean and P95 in msec, 3 decimals.
    g0 = [g["phases_usec"]["mark_root"] for g in gcs if g["complete"] and kind(g) == "gen0"]
    row = [l for l in lines if l.startswith("Mark roots")]
    T.check(len(row) == 1 and row[0].split()[2:4] == ["%.3f" % (sum(g0) / len(g0) / 1000.0),
                                                         "%.3f" % (pct(g0, 95) / 1000.0)],
            "%s: text Mark roots gen0 mean/P95: %s" % (trace, row))

db = TMP + "/old.db"
rc, out, err = T.run("import", "-q", "-d", db, OLD)
rc, text, err = T.run("stats", db, "--section", "phases")
T.check("Where the GC time went: not in trace (needs .NET 6+" in text, "old trace: not in trace: %s" % text[:300])
rc, html, err = T.run("stats", db, "--format", "html")
T.check("<h4>Where the GC time went</h4><p>not in trace (needs .NET 6+" in html, "old trace: html says not in trace")
rc, out, err = T.run("stats", db, "--format", "json")
d = json.loads(out)
T.check(all(p["summary"]["phases"] is None for p in d["processes"]), "old trace: json phases null")
T.check(all(g["phases_usec"] is None for p in d["processes"] for g in p["gcs"]), "old trace: phases_usec null")
rows = T.rows(db, "SELECT count(*) FROM gcs WHERE coalesce(%s) IS NOT NULL" % ", ".join(
    "phase_%s_usec" % k for k in PHASES))
T.check(rows == [["0"]], "old trace: every phase column NULL: %s" % rows)
sys.exit(T.done())
