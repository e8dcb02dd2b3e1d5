#!/usr/bin/env python3
"""gc_datas_codes.py GCSCOPE TMP TRACE... — the names gcscope gives DATAS'
reason codes (SizeAdaptationTuning) against what the runtime's code does with
them, on real recordings: tests/dotnet/fixtures/net9-datas.nettrace.gz (.NET
9.0.20, tests/dotnet/datasprog) and gcprog-datas.nettrace (.NET 10).

Independent figures: the rules below are read off CoreCLR's DATAS code
(dynamic_heap_count_data_t::should_change and its caller), not gcscope's
maps; a name mapped to the wrong number breaks one of them:
- R1: should_change() sets too_few_samples when the last adjustment (a
  decision whose adj_metric is not not_adjusted) was fewer than 6 GCs
  (2 * sample_size) before: a decision is too_few_samples exactly when one
  adjusted fewer than 6 GCs before it;
- R2: a decision should_change() stopped (any change_decision but
  init_change_condition) leaves the rest at their start values: max and min
  heap counts and total_soh_stable_size 0, adj_metric not_adjusted,
  adj_reason init_adjustment_reason, hc_freq_reason default_reason,
  hc_change_freq_factor 0;
- R3: a decision whose new_heap_count differs from the heap count of its GC
  (GCGlobalHeapHistory NumHeaps) is adjust_hc with init_change_condition;
- each trace has at least one decision of R1 and one of R3 (not vacuous).
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402

G, TMP = sys.argv[1:3]
T = Checker(G)
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
for n, trace in enumerate(sys.argv[3:]):
    db = "%s/t%d.db" % (TMP, n)
    rc, out, err = T.run("import", "-q", "-d", db, trace)
    T.check(rc == 0, "import %s (%s)" % (trace, err.strip()))
    rc, out, err = T.run("stats", db, "--format", "json")
    p = json.loads(out)["processes"][0]
    heaps = {g["index"]: g["heap_count"] for g in p["gcs"]}
    dec = sorted((e for g in p["gcs"] for e in (g["dynamic_events"] or []) if e["name"] == "SizeAdaptationTuning"),
                 key=lambda e: e["time_msec"])
    gc_of = {id(e): g["index"] for g in p["gcs"] for e in (g["dynamic_events"] or [])}
    T.check(len(dec) >= 2, "%s: %d decisions" % (trace, len(dec)))
    r1 = r3 = 0
    last_adjusted = None
    for e in dec:
        i = gc_of[id(e)]
        what = "%s GC #%d %s" % (os.path.basename(trace), i, {k: v for k, v in e.items() if k.endswith("_name")})
        soon = last_adjusted is not None and i - last_adjusted < 6
        T.check((e["change_decision_name"] == "too_few_samples") == soon,
                "R1: %s (last adjusted at GC #%s)" % (what, last_adjusted))
        r1 += soon
        if e["change_decision_name"] != "init_change_condition":
            T.check(e["max_heap_count"] == 0 and e["min_heap_count"] == 0 and e["total_soh_stable_size"] == 0
                    and e["adj_metric_name"] == "not_adjusted" and e["adj_reason_name"] == "init_adjustment_reason"
                    and e["hc_freq_reason_name"] == "default_reason" and e["hc_change_freq_factor"] == 0,
                    "R2: %s" % what)
        if heaps.get(i) is not None and e["new_heap_count"] != heaps[i]:
            T.check(e["adj_metric_name"] == "adjust_hc" and e["change_decision_name"] == "init_change_condition",
                    "R3: %s, %d -> %d heaps" % (what, heaps[i], e["new_heap_count"]))
            r3 += 1
        if e["adj_metric_name"] != "not_adjusted":
            last_adjusted = i
    T.check(r1 >= 1 and r3 >= 1, "%s: %d decisions of R1, %d of R3" % (trace, r1, r3))
sys.exit(T.done())
