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
- the layout against the runtime's own arithmetic, in every decision: its
  MedianThroughputCostPct is the median of its 3 samples' (GCPauseTime +
  MslWaitTime / heaps) * 100 / ElapsedBetweenGCs (one heap here), and its
  smoothed figure is 2/3 of the previous one plus 1/3 of the median;
  each sample's GCPauseTime (us) is at most that GC's pause from the GC
  events (PerfView's, suspension to restart);
- gc_datas_hc_samples / gc_datas_hc_tunings hold exactly those payloads, in
  file order, every column, each with the GC its GCIndex names; nothing
  undecoded or unattached;
- `stats --format json`: each GC's dynamic_events lists them, the summary's
  datas counts them (samples, tunings);
- the text section says the events are .NET 8's and fits 80 columns;
- `gcscope events` prints them as GCHeapCountSample / GCHeapCountTuning
  with their fields.
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


# The runtime's arithmetic over the fields as unpacked: the layout is right.
by_gc = {s["gc_index"]: s for s in samples}
prev = None
for t in tunings:
    i, heaps = t["gc_index"], t["new_heap_count"]
    tcp = [(by_gc[j]["gc_pause_usec"] + by_gc[j]["msl_wait_usec"] / heaps) * 100.0 / by_gc[j]["elapsed_between_gcs_usec"]
           for j in (i - 2, i - 1, i) if j in by_gc]
    T.check(len(tcp) == 3 and abs(sorted(tcp)[1] - t["median_tcp_pct"]) <= 1e-4 * max(1.0, t["median_tcp_pct"]),
            "decision at GC #%d: median of its samples' cost %s is %s" % (i, tcp, t["median_tcp_pct"]))
    smooth = t["median_tcp_pct"] if prev is None else prev * 2 / 3 + t["median_tcp_pct"] / 3
    T.check(abs(smooth - t["smoothed_median_tcp_pct"]) <= 1e-4 * max(1.0, smooth),
            "decision at GC #%d: smoothed %s, want %s" % (i, t["smoothed_median_tcp_pct"], smooth))
    prev = t["smoothed_median_tcp_pct"]

db = TMP + "/t.db"
rc, out, err = T.run("import", "-q", "-d", db, TRACE)
T.check(rc == 0, "import %s (%s)" % (TRACE, err.strip()))
rc, out, err = T.run("sql", db, "SELECT gc_index, pause_msec FROM gcs", "--json")
pause = {r["gc_index"]: r["pause_msec"] for r in json.loads(out)}
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
sys.exit(T.done())
