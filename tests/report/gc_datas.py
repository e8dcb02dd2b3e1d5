#!/usr/bin/env python3
"""gc_datas.py GCSCOPE TMP OLD_TRACE DATAS_NETTRACE — DATAS (GCDynamicEvent
SizeAdaptationSample / SizeAdaptationTuning / SizeAdaptationFullGCTuning,
.NET 9+ server GC) end to end, on a committed .NET 10 recording
(tests/dotnet/fixtures/gcprog-datas.nettrace: gcprog's datas scenario,
server GC, concurrent GC off).

Independent value: this script finds every payload of those names in the
.nettrace bytes itself (the UTF-16 name and its NUL, DataSize u32, then Data,
packed little-endian as the runtime's gcevent_serializers.h writes it:
version u16 first) and unpacks it with struct from the layouts of CoreCLR's
dynamic_heap_count.cpp (38, 56 and 44 bytes). Checked:
- gc_datas_samples / _tunings / _gen2_tunings hold exactly those payloads, in
  file order, every column (floats to the float's precision), each with the
  GC its GCIndex names;
- `stats --format json`: each GC's dynamic_events lists exactly the payloads
  naming it; the summary's datas counts them, and each heap count change
  (from the GCs' GCGlobalHeapHistory NumHeaps) carries the last decision
  before it for the new count;
- the runtime's codes by name (struct dynamic_heap_count_data_t's enums in
  CoreCLR's gc/gcpriv.h, copied by hand below): JSON keeps each code and adds
  "<code>_name"; the text row's Adjusted is the adj_metric's name and a "Why"
  line names the decision, adj_reason and hc_freq_reason; codes the runtime
  does not have (written into the database) print "unknown (N)", null names
  in JSON, never a name;
- the text section prints that change; without the decisions (deleted) the
  change is listed with "not in trace" (null in JSON); an older trace
  prints "DATAS heap count: not in trace (needs .NET 9+", null per GC in
  JSON, never 0.
"""
import json
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402
from gcs_dynamic import check_tables, find_dynamic, same  # noqa: E402

G, TMP, OLD, TRACE = sys.argv[1:5]
T = Checker(G)
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)

# name -> (table, struct format, column names after the version, in payload order)
LAYOUTS = {
    "SizeAdaptationSample": ("gc_datas_samples", "<HQIIIIQI", 38,
                             ["gc_index", "elapsed_between_gcs_usec", "gc_pause_usec", "soh_msl_wait_usec",
                              "uoh_msl_wait_usec", "total_soh_stable_size", "gen0_budget_per_heap"]),
    "SizeAdaptationTuning": ("gc_datas_tunings", "<HHHHQQfffHfIBHHHHB", 56,
                             ["new_heap_count", "max_heap_count", "min_heap_count", "gc_index",
                              "total_soh_stable_size", "median_tcp_pct", "tcp_to_consider_pct",
                              "around_target_accumulation_pct", "recorded_tcp_count", "recorded_tcp_slope",
                              "gcs_since_last_change", "agg_factor", "change_decision", "adj_reason",
                              "hc_change_freq_factor", "hc_freq_reason", "adj_metric"]),
    "SizeAdaptationFullGCTuning": ("gc_datas_gen2_tunings", "<HHQfIIfIfIf", 44,
                                   ["new_heap_count", "gc_index", "median_gen2_tcp_pct", "gen2s_since_last_change",
                                    "sample0_gc_distance", "sample0_pct", "sample1_gc_distance", "sample1_pct",
                                    "sample2_gc_distance", "sample2_pct"]),
}


def decode(path):
    b = open(path, "rb").read()
    out = {}
    for name, (table, fmt, size, cols) in LAYOUTS.items():
        assert struct.calcsize(fmt) == size
        out[name] = [dict(zip(cols, v[1:])) for n, v in find_dynamic(b, name, fmt) if n == size and v[0] == 1]
    return out


# The runtime's codes (gcpriv.h): single values, and bit sets (ORed, 0 named).
CHANGE_DECISION = {0: "init_change_condition", 1: "change", 2: "too_few_samples", 4: "not_enough_diff_accumulated",
                   8: "already_toward_target", 16: "tcp_in_range", 32: "temp_change"}
ADJ_METRIC = {0: "not_adjusted", 1: "adjust_budget", 2: "adjust_hc"}
ADJ_REASON_BITS = {1: "limited_by_bounds", 2: "cannot_adjust_budget", 4: "change_pct_too_small", 8: "change_too_soon"}
HC_FREQ_BITS = {1: "expensive_hc_change", 2: "dec", 4: "dec_multiple", 8: "fluctuation"}


def bits_name(v, bits, zero):
    if v == 0:
        return zero
    if v & ~sum(bits):
        return None
    return "|".join(bits[b] for b in sorted(bits) if v & b)


def code_names(w):
    return {"change_decision_name": CHANGE_DECISION.get(w["change_decision"]),
            "adj_reason_name": bits_name(w["adj_reason"], ADJ_REASON_BITS, "init_adjustment_reason"),
            "hc_freq_reason_name": bits_name(w["hc_freq_reason"], HC_FREQ_BITS, "default_reason"),
            "adj_metric_name": ADJ_METRIC.get(w["adj_metric"])}


want = decode(TRACE)
T.check(len(want["SizeAdaptationSample"]) >= 3 and len(want["SizeAdaptationTuning"]) >= 1,
        "the fixture has DATAS payloads: %s" % {k: len(v) for k, v in want.items()})
db = TMP + "/t.db"
rc, out, err = T.run("import", "-q", "-d", db, TRACE)
T.check(rc == 0, "import %s" % TRACE)
check_tables(T, db, LAYOUTS, want)

rc, out, err = T.run("stats", db, "--format", "json")
p = json.loads(out)["processes"][0]
idx = {g["index"] for g in p["gcs"]}
for name in LAYOUTS:
    for w in want[name]:
        T.check(w["gc_index"] in idx, "%s names GC #%d, which is in the trace" % (name, w["gc_index"]))
for g in p["gcs"]:
    mine = sorted((e["name"], json.dumps(e, sort_keys=True)) for e in g["dynamic_events"])
    exp = sorted(n for n in LAYOUTS for w in want[n] if w["gc_index"] == g["index"])
    T.check([m[0] for m in mine] == exp, "GC #%d dynamic_events %s, want %s" % (g["index"], [m[0] for m in mine], exp))
    for e in g["dynamic_events"]:
        w = [w for w in want[e["name"]] if w["gc_index"] == g["index"]][0]
        bad = [c for c in LAYOUTS[e["name"]][3] if c != "gc_index" and not same(e[c], w[c])]
        T.check(not bad, "GC #%d %s fields %s" % (g["index"], e["name"], bad))
        if e["name"] == "SizeAdaptationTuning":
            names = code_names(w)
            T.check(all(n is not None for n in names.values()), "the fixture's codes are the runtime's: %s" % names)
            T.check({k: e.get(k) for k in names} == names, "GC #%d codes by name %s, want %s"
                    % (g["index"], {k: e.get(k) for k in names}, names))
s = p["summary"]["datas"]
T.check(s["in_trace"] and s["samples"] == len(want["SizeAdaptationSample"])
        and s["tunings"] == len(want["SizeAdaptationTuning"])
        and s["full_gc_tunings"] == len(want["SizeAdaptationFullGCTuning"])
        and s["dynamic_events"] == sum(len(v) for v in want.values()) and s["undecoded"] == 0
        and s["unattached"] == 0, "summary datas %s" % {k: v for k, v in s.items() if k != "heap_count_changes"})
heaps = [(g["index"], g["heap_count"]) for g in sorted(p["gcs"], key=lambda g: g["index"]) if g["heap_count"]]
changes = [(b[0], a[1], b[1], a[0]) for a, b in zip(heaps, heaps[1:]) if a[1] != b[1]]
T.check(len(changes) >= 1, "the fixture's heap count changes: %s" % heaps)
T.check(len(s["heap_count_changes"]) == len(changes), "%d changes listed" % len(s["heap_count_changes"]))
for c, (at, frm, to, prev) in zip(s["heap_count_changes"], changes):
    dec = [w for w in want["SizeAdaptationTuning"] if prev <= w["gc_index"] < at and w["new_heap_count"] == to]
    T.check(c["gc_index"] == at and c["from"] == frm and c["to"] == to and dec
            and c["decision"]["gc_index"] == dec[-1]["gc_index"]
            and same(c["decision"]["median_tcp_pct"], dec[-1]["median_tcp_pct"])
            and all(c["decision"][k] == v for k, v in code_names(dec[-1]).items()),
            "change at GC #%d %d -> %d: decision %s" % (at, frm, to, c["decision"]))
rc, out, err = T.run("stats", db, "--section", "datas", "--no-pager")
at, frm, to, prev = changes[0]
dec = [w for w in want["SizeAdaptationTuning"] if prev <= w["gc_index"] < at and w["new_heap_count"] == to][-1]
line = [ln for ln in out.splitlines() if "%d -> %d" % (frm, to) in ln]
cells = line[0].split() if len(line) == 1 else []   # decided ms, at GC#, FROM -> TO, cost %, from GC#, adjusted
names = code_names(dec)
T.check(len(cells) == 8 and cells[1] == str(dec["gc_index"]) and cells[5] == "%.1f" % dec["median_tcp_pct"]
        and cells[6] == str(at) and cells[7] == names["adj_metric_name"], "text row for the change: %s" % line)


def why_line(text, gc):
    """The "GC#N: ..." line of the section, its wrapped continuation joined."""
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("    GC#%d: " % gc):
            out = ln.strip()
            for nx in lines[i + 1:]:
                if not nx.startswith("          ") or nx.strip().startswith("GC#"):
                    break
                out += ("" if out.endswith("|") else " ") + nx.strip()   # wrapped at a space or after a '|'

            return out
    return None


why = why_line(out, dec["gc_index"])
T.check(why == "GC#%d: decision %s; adj_reason %s; hc_freq_reason %s"
        % (dec["gc_index"], names["change_decision_name"], names["adj_reason_name"], names["hc_freq_reason_name"]),
        "the decision's why line: %s\n%s" % (why, out))
T.check(all(len(ln) <= 80 for ln in out.splitlines()), "the section fits 80 columns")

# Codes the runtime does not have (as a later runtime could send): numbers
# kept, "unknown (N)" in text, null names in JSON, never a name.
rc, o2, err = T.run("sql", db, "UPDATE gc_datas_tunings SET change_decision = 64, adj_reason = 17, "
                    "hc_freq_reason = 32, adj_metric = 3 WHERE gc_index = %d" % dec["gc_index"], "--write")
T.check(rc == 0, "codes rewritten (%s)" % err.strip())
rc, o2, err = T.run("stats", db, "--section", "datas", "--no-pager")
line = [ln for ln in o2.splitlines() if "%d -> %d" % (frm, to) in ln]
T.check(len(line) == 1 and line[0].rstrip().endswith(" unknown (3)"), "unknown adj_metric: %s" % line)
why = why_line(o2, dec["gc_index"])
T.check(why == "GC#%d: decision unknown (64); adj_reason unknown (17); hc_freq_reason unknown (32)" % dec["gc_index"],
        "unknown codes' why line: %s" % why)
T.check(all(len(ln) <= 80 for ln in o2.splitlines()), "the section fits 80 columns")
# Every bit of both bit sets: the longest why line, wrapped within 80 columns.
rc, o3, err = T.run("sql", db, "UPDATE gc_datas_tunings SET change_decision = 4, adj_reason = 15, "
                    "hc_freq_reason = 15, adj_metric = 1 WHERE gc_index = %d" % dec["gc_index"], "--write")
rc, o3, err = T.run("stats", db, "--section", "datas", "--no-pager")
line = [ln for ln in o3.splitlines() if "%d -> %d" % (frm, to) in ln]
T.check(len(line) == 1 and line[0].rstrip().endswith(" adjust_budget"), "adjust_budget: %s" % line)
T.check(why_line(o3, dec["gc_index"]) == "GC#%d: decision not_enough_diff_accumulated; adj_reason "
        "limited_by_bounds|cannot_adjust_budget|change_pct_too_small|change_too_soon; hc_freq_reason "
        "expensive_hc_change|dec|dec_multiple|fluctuation" % dec["gc_index"], "every bit: %s" % why_line(o3, dec["gc_index"]))
T.check(all(len(ln) <= 80 for ln in o3.splitlines()), "every bit: the section fits 80 columns\n%s" % o3)
rc, o3, err = T.run("sql", db, "UPDATE gc_datas_tunings SET change_decision = 64, adj_reason = 17, "
                    "hc_freq_reason = 32, adj_metric = 3 WHERE gc_index = %d" % dec["gc_index"], "--write")
rc, o2, err = T.run("stats", db, "--format", "json")
c = json.loads(o2)["processes"][0]["summary"]["datas"]["heap_count_changes"][0]["decision"]
T.check(c["change_decision"] == 64 and c["change_decision_name"] is None and c["adj_reason"] == 17
        and c["adj_reason_name"] is None and c["hc_freq_reason"] == 32 and c["hc_freq_reason_name"] is None
        and c["adj_metric"] == 3 and c["adj_metric_name"] is None, "unknown codes in JSON: %s" % c)

# A change no decision explains (the decisions deleted, as from a trace that
# lost them): listed with its decision "not in trace" and null in JSON.
rc, out, err = T.run("sql", db, "DELETE FROM gc_datas_tunings", "--write")
T.check(rc == 0, "decisions deleted (%s)" % err.strip())
rc, out, err = T.run("stats", db, "--format", "json")
c = json.loads(out)["processes"][0]["summary"]["datas"]["heap_count_changes"]
T.check(len(c) == len(changes) and all(x["decision"] is None for x in c), "no decision: null (%s)" % c)
rc, out, err = T.run("stats", db, "--section", "datas", "--no-pager")
line = [ln for ln in out.splitlines() if "%d -> %d" % (frm, to) in ln]
T.check(len(line) == 1 and line[0].split()[:3] == ["not", "in", "trace"], "no decision: text %s" % line)

# An older trace: nothing decoded, said so, null per GC.
db2 = TMP + "/old.db"
rc, out, err = T.run("import", "-q", "-d", db2, OLD)
rc, out, err = T.run("stats", db2, "--section", "datas", "--no-pager")
T.check("DATAS heap count: not in trace (needs .NET 9+ server GC with DATAS)" in out, "older trace: %s" % out)
rc, out, err = T.run("stats", db2, "--format", "json")
p = json.loads(out)["processes"][0]
T.check(all(g["dynamic_events"] is None for g in p["gcs"]) and p["summary"]["datas"]["in_trace"] is False
        and p["summary"]["datas"]["heap_count_changes"] == [], "older trace: null per GC, no change")
sys.exit(T.done())
