#!/usr/bin/env python3
"""gc_datas_net8.py GCSCOPE TMP TRACE_GZ — .NET 8's DATAS events
(GCDynamicEvent HeapCountSample / HeapCountTuning, version 1) end to end, on a
committed recording of the .NET 8.0.31 runtime
(tests/dotnet/fixtures/net8-datas.nettrace.gz: tests/dotnet/datasprog, server
GC with DOTNET_GCDynamicAdaptationMode=1).

Independent values: this script finds every payload of those names in the
trace's bytes itself (the UTF-16 name and its NUL, DataSize u32, then Data,
packed little-endian: version u16 first) and unpacks them with struct:
HeapCountSample "<HQQQQ" (34 bytes), HeapCountTuning "<HHQffffff" (36).
Checked:
- the layout against the runtime's own arithmetic (gc.cpp's
  calculate_new_heap_count, .NET 8; schemas/gc_events.def), in every
  decision: its MedianThroughputCostPct is the median of its 3 samples'
  (GCPauseTime + MslWaitTime / heaps) * 100 / ElapsedBetweenGCs, heaps being
  the GC's own (GCGlobalHeapHistory NumHeaps: one here), and its smoothed
  figure is 2/3 of the previous one plus 1/3 of the median; NewHeapCount is
  the count the GC ran with (the runtime sends new_n_heaps, the count of its
  last change, not the decided one); the four step figures are the
  runtime's formulas over step_up = min((n + 1) / 2, m - n - (1 + (m >= 32)))
  and step_down = (n + 1) / 3 with n that count and m the most heaps the
  program printed in net8-datas.out (MAXHEAPS 2): both steps 0, so all four
  exactly 0;
  each sample's GCPauseTime (us) is at most that GC's pause from the GC
  events (PerfView's, suspension to restart);
- gc_datas_hc_samples / gc_datas_hc_tunings hold exactly those payloads, in
  file order, every column, each with the GC its GCIndex names; nothing
  undecoded or unattached;
- `stats --format json`: each GC's dynamic_events lists them, the summary's
  datas counts them (samples, tunings);
- the text section says the events are .NET 8's and fits 80 columns;
- `gcscope events` prints them as GCHeapCountSample / GCHeapCountTuning
  with their fields;
- `advise --format json` finds datas-low-heaps from .NET 8's decisions,
  derived here: a decision is judged when a GC follows it, held when no GC
  after it up to the next decision has more heaps than its own and its
  median cost is >= 10 %; decisions, held decisions, the cited GCs, the
  median held cost (the middle value, or the mean of the two middle ones)
  and net8_decisions exactly as computed here from the payloads and the
  GCs' heap counts.
"""
import gzip
import json
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402
from gcs_dynamic import check_tables, find_dynamic, same  # noqa: E402

G, TMP, TRACE = sys.argv[1:4]
T = Checker(G)
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)

LAYOUTS = {
    "HeapCountSample": ("gc_datas_hc_samples", "<HQQQQ", 34,
                        ["gc_index", "elapsed_between_gcs_usec", "gc_pause_usec", "msl_wait_usec"]),
    "HeapCountTuning": ("gc_datas_hc_tunings", "<HHQffffff", 36,
                        ["new_heap_count", "gc_index", "median_tcp_pct", "smoothed_median_tcp_pct",
                         "tcp_reduction_per_step_up", "tcp_increase_per_step_down", "scp_increase_per_step_up",
                         "scp_decrease_per_step_down"]),
}

b = gzip.open(TRACE, "rb").read()
want = {}
for name, (table, fmt, size, cols) in LAYOUTS.items():
    assert struct.calcsize(fmt) == size
    rows = []
    for n, v in find_dynamic(b, name, fmt):
        T.check(n == size and v[0] == 1, "%s payload of %d bytes, version %d" % (name, n, v[0]))
        rows.append(dict(zip(cols, v[1:])))
    want[name] = rows
samples, tunings = want["HeapCountSample"], want["HeapCountTuning"]
T.check(len(samples) >= 9 and len(tunings) >= 3, "the fixture has %d samples, %d decisions" % (len(samples), len(tunings)))


db = TMP + "/t.db"
rc, out, err = T.run("import", "-q", "-d", db, TRACE)
T.check(rc == 0, "import %s (%s)" % (TRACE, err.strip()))
rc, out, err = T.run("sql", db, "SELECT gc_index, pause_msec, heap_count FROM gcs", "--json")
pause = {r["gc_index"]: r["pause_msec"] for r in json.loads(out)}
heaps_of = {r["gc_index"]: r["heap_count"] for r in json.loads(out)}
with open(TRACE.replace(".nettrace.gz", ".out")) as f:
    most = int(f.read().split("MAXHEAPS ")[1].split()[0])

# The runtime's arithmetic over the fields as unpacked: the layout is right.
by_gc = {s["gc_index"]: s for s in samples}
prev = None
for t in tunings:
    i = t["gc_index"]
    n = heaps_of.get(i)
    T.check(n is not None and t["new_heap_count"] == n,
            "decision at GC #%d: NewHeapCount %d is the GC's heap count %s" % (i, t["new_heap_count"], n))
    if n is None:
        continue
    tcp = [min(100.0, (by_gc[j]["gc_pause_usec"] + by_gc[j]["msl_wait_usec"] / n) * 100.0
               / by_gc[j]["elapsed_between_gcs_usec"]) for j in (i - 2, i - 1, i) if j in by_gc]
    T.check(len(tcp) == 3 and abs(sorted(tcp)[1] - t["median_tcp_pct"]) <= 1e-4 * max(1.0, t["median_tcp_pct"]),
            "decision at GC #%d: median of its samples' cost %s is %s" % (i, tcp, t["median_tcp_pct"]))
    smooth = t["median_tcp_pct"] if prev is None else prev * 2 / 3 + t["median_tcp_pct"] / 3
    T.check(abs(smooth - t["smoothed_median_tcp_pct"]) <= 1e-4 * max(1.0, smooth),
            "decision at GC #%d: smoothed %s, want %s" % (i, t["smoothed_median_tcp_pct"], smooth))
    prev = t["smoothed_median_tcp_pct"]
    up = max(0, min((n + 1) // 2, most - n - (1 + (most >= 32))))
    down = (n + 1) // 3
    want_up = t["smoothed_median_tcp_pct"] * up / (n + up)
    want_down = t["smoothed_median_tcp_pct"] * down / (n - down)
    T.check(abs(t["tcp_reduction_per_step_up"] - want_up) <= 1e-4 * max(1.0, want_up)
            and abs(t["tcp_increase_per_step_down"] - want_down) <= 1e-4 * max(1.0, want_down)
            and (up or t["scp_increase_per_step_up"] == 0.0) and (down or t["scp_decrease_per_step_down"] == 0.0),
            "decision at GC #%d (%d of %d heaps, steps +%d -%d): step figures %s" % (
                i, n, most, up, down, [t[c] for c in LAYOUTS["HeapCountTuning"][3][4:]]))
T.check(most == 2 and all(t[c] == 0.0 for t in tunings for c in LAYOUTS["HeapCountTuning"][3][4:]),
        "1 heap of at most %d: every step figure exactly 0" % most)
for s in samples:
    T.check(s["gc_index"] in pause and s["gc_pause_usec"] / 1000.0 <= pause[s["gc_index"]] + 1e-9,
            "sample of GC #%d: pause %d us within the GC's %s ms" % (s["gc_index"], s["gc_pause_usec"],
                                                                   pause.get(s["gc_index"])))
check_tables(T, db, LAYOUTS, want)
rc, out, err = T.run("sql", db, "SELECT dynamic_events, dynamic_events_undecoded, dynamic_events_unattached "
                     "FROM gc_process_summary", "--json")
T.check(json.loads(out) == [{"dynamic_events": len(samples) + len(tunings), "dynamic_events_undecoded": 0,
                             "dynamic_events_unattached": 0}], "summary counts %s" % out.strip())

rc, out, err = T.run("stats", db, "--format", "json")
p = json.loads(out)["processes"][0]
for g in p["gcs"]:
    mine = sorted(e["name"] for e in (g["dynamic_events"] or []))
    exp = sorted(n for n in LAYOUTS for w in want[n] if w["gc_index"] == g["index"])
    T.check(mine == exp, "GC #%d dynamic_events %s, want %s" % (g["index"], mine, exp))
    for e in g["dynamic_events"] or []:
        w = [w for w in want[e["name"]] if w["gc_index"] == g["index"]][0]
        bad = [c for c in LAYOUTS[e["name"]][3] if c != "gc_index" and not same(e[c], w[c])]
        T.check(not bad, "GC #%d %s fields %s" % (g["index"], e["name"], bad))
s = p["summary"]["datas"]
T.check(s["in_trace"] and s["samples"] == len(samples) and s["tunings"] == len(tunings)
        and s["full_gc_tunings"] == 0 and s["undecoded"] == 0,
        "summary datas %s" % {k: v for k, v in s.items() if k != "heap_count_changes"})

rc, out, err = T.run("stats", db, "--section", "datas", "--no-pager")
T.check("From .NET 8's events (HeapCountTuning, HeapCountSample): no reason codes" in out
        and ("%d decisions, %d samples" % (len(tunings), len(samples))) in out, "text section:\n%s" % out)
T.check(all(len(ln) <= 80 for ln in out.splitlines()), "the section fits 80 columns")

rc, out, err = T.run("events", db, "--filter", "HeapCount")
s0, t0 = samples[0], tunings[0]
T.check(("Version=1 GCIndex=%d ElapsedBetweenGCs=%d GCPauseTime=%d MslWaitTime=%d"
         % (s0["gc_index"], s0["elapsed_between_gcs_usec"], s0["gc_pause_usec"], s0["msl_wait_usec"])) in out
        and any(ln.startswith("GCHeapCountTuning") and ("NewHeapCount=%d GCIndex=%d " % (t0["new_heap_count"],
                                                                                        t0["gc_index"])) in ln
                for ln in out.splitlines()), "events prints the .NET 8 events")

# advise: datas-low-heaps from .NET 8's decisions, judged by the GCs after them.
order = sorted(heaps_of)
judged, held = [], []
decided = {t["gc_index"] for t in tunings}
for t in tunings:
    i = t["gc_index"]
    after = []
    for j in order:
        if j > i:
            after.append(heaps_of[j])
            if j in decided:
                break
    if not after or heaps_of.get(i) is None:
        continue
    judged.append(i)
    if max(after) <= heaps_of[i] and t["median_tcp_pct"] >= 10:
        held.append(t)
costs = sorted(t["median_tcp_pct"] for t in held)
k = len(costs)
median = costs[k // 2] if k % 2 else (costs[k // 2 - 1] + costs[k // 2]) / 2
rc, out, err = T.run("advise", db, "--format", "json")
found = [f for p in json.loads(out)["processes"] for f in p["findings"] if f["rule"] == "datas-low-heaps"]
T.check(len(found) == 1, "advise finds datas-low-heaps once (%s)" % [f["rule"] for p in json.loads(out)["processes"]
                                                                   for f in p["findings"]])
if found:
    f, m = found[0], found[0]["metrics"]
    T.check(len(judged) == len(tunings) - 1 and m["decisions"] == len(judged) and m["net8_decisions"] == len(judged)
            and m["held_decisions"] == len(held) and f["gcs"] == [t["gc_index"] for t in held]
            and abs(m["median_held_cost_pct"] - median) <= 1e-3 and m["max_heap_count"] == 1
            and m["pause_pct"] >= 10,
            "datas-low-heaps: %s, gcs %s; want %d decisions, %d held (%s), median %.3f" % (
                m, f["gcs"], len(judged), len(held), [t["gc_index"] for t in held], median))
    T.check("%d of %d decisions added no heap" % (len(held), len(judged)) in f["title"]
            and ".NET 8's HeapCountTuning" in f["evidence"], "finding text: %s / %s" % (f["title"], f["evidence"]))
sys.exit(T.done())
