#!/usr/bin/env python3
"""Checks gcscope impact / handles / heaps against figures computed here,
independently of gcscope, from `babeltrace2 --clock-seconds` text of the same
gcsim trace. Only events of gcsim's vpid count.

usage: gcsim_e2e_check.py impact BT_TXT PID GCSIM_OUT IMPACT_JSON
       gcsim_e2e_check.py views  BT_TXT PID GCSIM_OUT HANDLES_CSV HEAPS_CSV

impact: a request is RequestStart -> RequestStop with the same Id; a pause is a
GCSuspendEEBegin -> the next GCRestartEEEnd (every stop of the world: blocking
GCs, a background GC's initial and final pauses, foreground GCs inside it). A
request is affected when a pause overlaps it by a positive length.
views: handle kinds come from SetGCHandle.Kind (a destroy takes its handle's
kind); pinned handles (Kind 3 Pinned, 7 AsyncPinned) alive at a GC's GCStart
(events at that very timestamp included); GCMarkWithType bytes per GC (between
its GCStart and GCEnd) and HeapNum by root Type (0 Stack, 1 Finalizer, 2
Handle, 3 Older, 4 SizedRef, 6 DependentHandle, 7 NewFQ, others "other").
"""
import bisect
import csv
import io
import json
import re
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

MODE, BT, PID, GCSIM_OUT = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
LINE = re.compile(r"^\[(\d+)\.(\d{9})\] \([^)]*\) \S+ rgc:(\w+?)(?:_V\d+)?: .*?vpid = (\d+), vtid = (\d+) \}, \{ (.*) \}$")


def events():
    with open(BT) as f:
        for line in f:
            m = LINE.match(line)
            if not m or int(m.group(4)) != PID:
                continue
            fields = {k: int(v) for k, v in re.findall(r"(\w+) = (-?\d+)", m.group(6))}
            yield int(m.group(1)) * 10**9 + int(m.group(2)), m.group(3), fields


def gcsim_report():
    with open(GCSIM_OUT) as f:
        return dict(l.strip().split("=", 1) for l in f if "=" in l)


def percentile(xs, p):  # linear interpolation (numpy's default)
    r = p / 100.0 * (len(xs) - 1)
    lo = int(r)
    return xs[lo] if lo + 1 >= len(xs) else xs[lo] + (r - lo) * (xs[lo + 1] - xs[lo])


def check_impact(path):
    starts, reqs, pauses, susp = {}, [], [], None
    for ts, name, f in events():
        if name == "RequestStart":
            starts[f["Id"]] = ts
        elif name == "RequestStop" and f["Id"] in starts:
            reqs.append((starts.pop(f["Id"]), ts, f["Id"]))
        elif name == "GCSuspendEEBegin":
            susp = ts
        elif name == "GCRestartEEEnd" and susp is not None:
            pauses.append((susp, ts))
            susp = None
    n = len(reqs)
    lat = sorted(e - s for s, e, _ in reqs)
    affected, in_gc, aff_lat = 0, 0, 0
    check(all(pauses[i][1] <= pauses[i + 1][0] for i in range(len(pauses) - 1)), "pauses in order, disjoint")
    pstarts = [ps for ps, _ in pauses]
    for s, e, _ in reqs:
        i = max(0, bisect.bisect_left(pstarts, s) - 1)  # the pause before s may reach into the request
        g = 0
        while i < len(pauses) and pauses[i][0] < e:
            g += max(0, min(e, pauses[i][1]) - max(s, pauses[i][0]))
            i += 1
        if g > 0:
            affected += 1
            in_gc += g
            aff_lat += e - s
    slowest = sorted(reqs, key=lambda r: (-(r[1] - r[0]), r[0]))[:3]
    print("babeltrace2: %d requests, %d pauses, %d affected, max %.6f ms, P50 %.6f ms, P99 %.6f ms, impact %.4f %%"
          % (n, len(pauses), affected, lat[-1] / 1e6, percentile(lat, 50) / 1e6, percentile(lat, 99) / 1e6,
             in_gc * 100.0 / aff_lat))
    check(n > 100 and len(pauses) > 10 and affected > 0, "a run with requests, pauses and affected requests")
    check(n == int(gcsim_report()["requests"]), "gcsim's requests= equals the RequestStart/Stop pairs")
    js = json.load(open(path))
    check(len(js["processes"]) == 1, "one process")
    p = js["processes"][0]
    ms = lambda got, ns: abs(got - ns / 1e6) <= 0.0005 + 1e-9  # gcscope prints ms with 3 decimals
    check(p["pid"] == PID, "pid")
    check(p["requests"] == n and p["invalid_requests"] == 0, "requests %d vs %d" % (p["requests"], n))
    check(p["affected"] == affected, "affected %d vs %d" % (p["affected"], affected))
    check(abs(p["affected_pct"] - affected * 100.0 / n) <= 0.0005 + 1e-9, "affected_pct")
    check(abs(p["gc_impact_pct"] - in_gc * 100.0 / aff_lat) <= 0.0005 + 1e-9, "gc_impact_pct")
    check(ms(p["affected_gc_ms"], in_gc) and ms(p["affected_latency_ms"], aff_lat), "affected GC / latency ms")
    check(ms(p["percentiles"]["max"], lat[-1]), "max latency %r vs %r" % (p["percentiles"]["max"], lat[-1] / 1e6))
    check(ms(p["percentiles"]["p50"], percentile(lat, 50)), "P50")
    check(ms(p["percentiles"]["p99"], percentile(lat, 99)), "P99")
    check([s["id"] for s in p["slowest"]] == [r[2] for r in slowest], "slowest ids %r vs %r"
          % ([s["id"] for s in p["slowest"]], [r[2] for r in slowest]))
    check(sum(b["requests"] for b in p["bands"]) == n, "bands hold every request")


ROOTS = {0: "stack", 1: "finalize_queue", 7: "finalize_queue", 2: "handles", 6: "handles", 4: "handles", 3: "older"}
KINDS = {0: "WeakShort", 1: "WeakLong", 2: "Strong", 3: "Pinned", 4: "Variable", 5: "RefCounted", 6: "Dependent",
         7: "AsyncPinned", 8: "SizedRef"}


def csv_sections(path):
    """gcscope's csv views: sections, each starting with a 'trace_id,...' header."""
    out = []
    for line in open(path).read().splitlines():
        if line.startswith("trace_id,"):
            out.append([line])
        elif line and out:
            out[-1].append(line)
    return [list(csv.DictReader(io.StringIO("\n".join(s)))) for s in out]


def check_views(hpath, mpath):
    kind_of, created, destroyed = {}, {}, {}
    gcs, cur, marks, timeline, last_mark, start_ts = [], None, {}, [], {}, 0
    for ts, name, f in events():
        if name == "SetGCHandle":
            kind_of[f["HandleID"]] = f["Kind"]
            created[f["Kind"]] = created.get(f["Kind"], 0) + 1
            timeline.append((ts, 0, f["HandleID"], f["Kind"]))
        elif name == "DestroyGCHandle":
            k = kind_of.get(f["HandleID"])
            destroyed[k] = destroyed.get(k, 0) + 1
            timeline.append((ts, 0, f["HandleID"], None))
        elif name == "GCStart":
            cur = f["Count"]
            gcs.append(cur)
            timeline.append((ts, 1, cur, None))
            start_ts = ts
        elif name == "GCEnd":
            cur = None
        elif name == "GCMarkWithType" and cur is not None:
            h = marks.setdefault((cur, f["HeapNum"]), {"stack": 0, "finalize_queue": 0, "handles": 0, "older": 0,
                                                       "other": 0})
            h[ROOTS.get(f["Type"], "other")] += f["Bytes"]
            last_mark[(cur, f["HeapNum"])] = ts - start_ts
    # Pinned handles alive at each GCStart; handle events at the GCStart's very
    # timestamp count as before it (sort key: time, then handle events first).
    alive, pinned_at = {}, {}
    for ts, order, key, kind in sorted(timeline, key=lambda x: (x[0], x[1])):
        if order == 1:
            pinned_at[key] = sum(1 for k in alive.values() if k in (3, 7))
        elif kind is None:
            alive.pop(key, None)
        else:
            alive[key] = kind
    report = gcsim_report()
    print("babeltrace2: %d GCs, handles created %r, destroyed %r, %d heaps with marks, pinned handles made %s"
          % (len(gcs), created, destroyed, len({h for _, h in marks}), report.get("pinned_handles")))
    check(report.get("gc_server") == "1", "gcsim ran server GC")
    check(len(gcs) > 5 and created.get(3, 0) > 100, "a run with GCs and pinned handles")
    check(len({h for _, h in marks}) >= 2, "GCMarkWithType from at least two heaps")
    check(created.get(3, 0) == int(report["pinned_handles"]), "gcsim's pinned_handles= equals Kind 3 SetGCHandle")

    over_time, at_gc, longest = csv_sections(hpath)
    got_c, got_d = {}, {}
    for r in over_time:
        check(int(r["pid"]) == PID, "handles: pid")
        got_c[r["kind"]] = got_c.get(r["kind"], 0) + int(r["created"])
        got_d[r["kind"]] = got_d.get(r["kind"], 0) + int(r["destroyed"])
    check(got_c == {KINDS[k]: v for k, v in created.items()}, "created by kind %r vs %r" % (got_c, created))
    want_d = {KINDS[k]: destroyed.get(k, 0) for k in created}
    check(got_d == want_d, "destroyed by kind %r vs %r" % (got_d, want_d))
    check(len(at_gc) == len(gcs), "a row per GC: %d vs %d" % (len(at_gc), len(gcs)))
    for r in at_gc:
        i = int(r["gc_index"])
        check(int(r["pinned_alive"]) == pinned_at.get(i), "GC %d pinned alive %s vs %r" % (i, r["pinned_alive"],
                                                                                           pinned_at.get(i)))
    check(len(longest) == min(5, created.get(3, 0) + created.get(7, 0)), "top 5 longest-lived pins")

    sections = csv_sections(mpath)
    check(len(sections) == 2, "heaps --all: the per-heap summary, then the per-GC rows (%d sections)" % len(sections))
    summary, rows = sections[0], sections[-1]
    # The summary (issue 29): per heap over its GCs, MB marked, share of the
    # process's, and GCStart -> the heap's last root mark (mean, max), in ms.
    heaps = sorted({h for _, h in marks})
    total_all = sum(sum(m.values()) for m in marks.values())
    check([int(r["heap"]) for r in summary] == heaps, "summary heaps %r vs %r" % ([r["heap"] for r in summary], heaps))
    for r in summary:
        h = int(r["heap"])
        mine = {g: m for (g, hh), m in marks.items() if hh == h}
        tot = sum(sum(m.values()) for m in mine.values())
        spans = [last_mark[(g, h)] for g in mine]
        check(int(r["gcs"]) == len(mine), "heap %d: %s GCs vs %d" % (h, r["gcs"], len(mine)))
        check(r["marked_mb"] == "%.3f" % round(tot / 1e6, 3), "heap %d: marked %s vs %d bytes" % (h, r["marked_mb"], tot))
        check(r["share_pct"] == "%.3f" % round(100.0 * tot / total_all, 1), "heap %d share %s" % (h, r["share_pct"]))
        check(abs(float(r["mean_mark_ms"]) - sum(spans) / len(spans) / 1e6) <= 0.0005 and
              abs(float(r["max_mark_ms"]) - max(spans) / 1e6) <= 0.0005,
              "heap %d: mark ms %s/%s vs %.4f/%.4f" % (h, r["mean_mark_ms"], r["max_mark_ms"],
                                                     sum(spans) / len(spans) / 1e6, max(spans) / 1e6))
    got = {(int(r["gc_index"]), int(r["heap"])): r for r in rows}
    check(set(got) == set(marks), "heaps: the same (GC, heap) pairs: %d vs %d" % (len(got), len(marks)))
    for key, m in marks.items():
        r = got.get(key)
        if r is None:
            continue
        for col, v in m.items():
            check(int(r[col]) == v, "GC %d heap %d %s %s vs %d" % (key[0], key[1], col, r[col], v))
        check(int(r["total"]) == sum(m.values()), "GC %d heap %d total" % key)
    for gc in {g for g, _ in marks}:
        totals = [sum(m.values()) for (g, _), m in marks.items() if g == gc]
        mean = sum(totals) / len(totals)
        want = "%.3f" % (max(totals) / mean) if mean else ""
        r = got.get((gc, 0))
        check(r is not None and r["imbalance"] == want, "GC %d imbalance %r vs %r" % (gc, r and r["imbalance"], want))


if MODE == "impact":
    check_impact(sys.argv[5])
elif MODE == "views":
    check_views(sys.argv[5], sys.argv[6])
else:
    sys.exit("unknown mode " + MODE)
if failed():
    print("%d failure(s)" % failed(), file=sys.stderr)
    sys.exit(1)
print("ok")
