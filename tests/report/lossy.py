#!/usr/bin/env python3
"""lossy.py GCSCOPE WORKDIR -- a lossy trace follows its one stated rule,
"incomplete GCs are left out of every figure" (issue 29, items 5 and 6);
and a server GC whose heap count changes (item 1, datas.nettrace, below).

Two hand-made .nettrace files (tests/nettrace/tools/make_corpus.py's writer;
1 QPC tick = 1 ns, times below in ms from the trace's start). Each loses the
event after a GCEnd (its thread's sequence number jumps by one: the
GCHeapStats), so that GC is incomplete although its pause is timed. Every
GC's suspension takes 0.25 ms.

lossy-a, pid 4242, three gen0 GCs (SuspendEEBegin .. RestartEEEnd):
  GC1 complete    100 .. 102   pause 2 ms
  GC2 incomplete  200 .. 300   pause 100 ms (its GCHeapStats lost)
  GC3 complete    400 .. 404   pause 4 ms
  The process's events span 100 .. 404 = 304 ms. Complete pauses: 6 ms.
  - % Time paused (PerfView): 6 / (403.5 last GCHeapStats - 100 first pause
    start) = 1.976936 %.
  - worst 60 s window = the whole run: 6 ms paused of 304 = 1.973684 %
    (with GC2's pause it was 106 ms, 34.87 %).
  - MMU (worst window of w): 1 ms 0 (a pause covers it), 5 ms 1 - 4/5 = 0.2,
    10 ms 0.6, 50 ms 0.92, 100 ms 0.96 (GC2's pause made these 0), 200 ms
    0.98 (GC1 and GC3 are 304 ms apart: never in one window), 500 ms and more
    than the run: unknown (null).
lossy-b, pid 5151: one GC, incomplete the same way. A process with no
  complete GC: every report's JSON says null, and its HTML "unknown" or "–",
  for what is unknown (heap count, % time paused, ...): never -1 or NaN.
"""
import json, os, re, shutil, struct, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, os.path.join(HERE, "..", "nettrace", "tools"))
from gcs_check import check, failed  # noqa: E402
import make_corpus as mc  # noqa: E402

GCSCOPE, WORK = sys.argv[1:3]
MS = 1000000  # ticks per ms


def trace(pid, gcs, heaps=None):
    """gcs: (suspend, start, end, heap_stats or None, restart_end) in ms;
    heaps: each GC's GCGlobalHeapHistory_V2 NumHeaps (none without)."""
    w = mc.Writer()
    w.trace((2024, 1, 2, 2, 3, 4, 5, 678), 0, 1000000000, 8, pid)
    opcode_tag = mc.i32(1) + b'\x01' + b'\x01'
    metas = [mc.meta_record(1, mc.RT, 1, '', 2, opcode_tag), mc.meta_record(2, mc.RT, 2, '', 1),
             mc.meta_record(3, mc.RT, 9, '', 1), mc.meta_record(4, mc.RT, 3, '', 1),
             mc.meta_record(9, mc.RT, 4, '', 1), mc.meta_record(8, mc.RT, 8, '', 1),
             mc.meta_record(11, mc.RT, 205, '', 2)]
    w.block('MetadataBlock', mc.block_header(1) + mc.compressed([mc.md(0, m) for m in metas]))
    evs, seq = [], 0
    stats = struct.pack('<10Q3IH', 1000000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3)
    for n, (su, st, en, hs, re_) in enumerate(gcs, 1):
        def add(meta, ms, payload):
            nonlocal seq
            seq += 1
            evs.append(mc.ev(meta, seq, 100, int(round(ms * MS)), payload))
        add(3, su, struct.pack('<IIH', 1, n - 1, 3))        # SuspendEEBegin SuspendForGC
        add(8, su + 0.25, struct.pack('<H', 3))            # SuspendEEEnd
        add(1, st, mc.gcstart(n, 0, 0, 0))                 # GCStart gen0 AllocSmall blocking
        if heaps:                                          # GCGlobalHeapHistory_V2
            add(11, en - 0.1, struct.pack('<QiIIIIHII', 1000000, heaps[n - 1], 0, 0, 0, 0, 3, 1, 0))
        add(2, en, struct.pack('<IIH', n, 0, 3))           # GCEnd
        if hs is None:
            seq += 1                                       # GCHeapStats lost
        else:
            add(9, hs, stats)
        add(4, re_, struct.pack('<H', 3))                  # RestartEEEnd
    w.block('EventBlock', mc.block_header(1) + mc.compressed(evs))
    w.end()
    return bytes(w.b)


def run(args):
    p = subprocess.run([GCSCOPE] + args, capture_output=True, text=True, timeout=120)
    return p


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
a = os.path.join(WORK, "lossy-a.nettrace")
b = os.path.join(WORK, "lossy-b.nettrace")
open(a, "wb").write(trace(4242, [(100, 100.5, 101, 101.5, 102), (200, 200.5, 290, None, 300),
                                 (400, 400.5, 403, 403.5, 404)]))
open(b, "wb").write(trace(5151, [(100, 100.5, 150, None, 160)]))
db = os.path.join(WORK, "lossy.db")
for t in (a, b):
    p = run(["import", "-q", "-d", db, t])
    check(p.returncode == 0, "import %s: %r" % (t, p.stderr))

# ---- item 5: one rule for every figure ----
js = json.loads(run(["stats", db, "--format", "json"]).stdout)
procs = {p["pid"]: p for p in js["processes"]}
s = procs[4242]["summary"]
check(s["gc_count"] == 2 and s["incomplete_count"] == 1, "4242: 2 complete, 1 incomplete: %r" % s)
check(abs(s["total_pause_msec"] - 6.0) < 1e-9, "4242: total pause %r" % s["total_pause_msec"])
check(abs(s["pct_pause_time"] - 600 / 303.5) < 1e-9, "4242: %% time paused %r" % s["pct_pause_time"])
check(abs(s["worst_window_paused_msec"] - 6.0) < 1e-9 and abs(s["worst_window_len_msec"] - 304.0) < 1e-9,
      "4242: worst window %r ms paused of %r" % (s["worst_window_paused_msec"], s["worst_window_len_msec"]))
check(abs(s["worst_window_pct_paused"] - 600 / 304) < 1e-9, "4242: worst window %r %%" % s["worst_window_pct_paused"])
mmu = {m["window_msec"]: m["mmu"] for m in s["mmu"]}
want = {1: 0.0, 5: 0.2, 10: 0.6, 50: 0.92, 100: 0.96, 200: 0.98, 500: None, 10000: None}
for w_ms, u in want.items():
    got = mmu.get(w_ms)
    check((u is None and got is None) or (u is not None and got is not None and abs(got - u) < 1e-9),
          "4242: MMU %g ms = %r, expected %r" % (w_ms, got, u))
txt = run(["stats", db]).stdout
check("GC overhead: worst 60 s window 1.97% paused" in txt, "text worst window: %r" %
      [l for l in txt.splitlines() if "overhead" in l])
adv = run(["advise", db, "--format", "json"])
check(adv.returncode == 0, "advise json: %r" % adv.stderr)
ov = {p["pid"]: p for p in json.loads(adv.stdout)["processes"]}[4242]["overhead"]
amm = {m["window_ms"]: m["mmu"] for m in ov["mmu"]}
check(abs(ov["worst_window_pct"] - 1.974) < 1e-9 and amm.get(100) == 0.96 and amm.get(10) == 0.6,
      "advise: the same window and MMU: %r %r" % (ov["worst_window_pct"], amm))

# ---- item 6: unknown is null / "unknown", never -1, NaN or a 0 that means nothing ----
BAD = re.compile(r"(?<![\w.#-])-1(?![\w.])|\bnan\b|\binf(inity)?\b", re.I)
for args in (["stats", "--format", "json"], ["stats", "--format", "html"], ["stats", "--format", "csv"],
             ["stats"], ["stats", "--wide"], ["advise", "--format", "json"], ["advise"],
             ["triggers", "--format", "json"], ["triggers", "--format", "csv"], ["events"], ["heaps"],
             ["diff", db, "--format", "json"], ["diff", db, "--format", "html"], ["diff", db]):
    p = run(args[:1] + [db] + args[1:])
    out = re.sub(r"<style>.*?</style>", "", p.stdout, flags=re.S)
    m = BAD.search(out)
    check(m is None, "%s: %r" % (" ".join(args), m and out[max(0, m.start() - 60):m.end() + 20]))
ej = os.path.join(WORK, "lossy.json")
p = run(["export", db, "--format", "chrome-json", "-o", ej])
m = BAD.search(open(ej).read()) if p.returncode == 0 else None
check(p.returncode == 0 and m is None, "export chrome-json: %r %r" % (p.stderr[-200:], m and m.group(0)))
b_js = procs[5151]["summary"]
check(procs[5151]["summary"]["gc_count"] == 0, "5151: no complete GC")
for k in ("heap_count", "pct_pause_time", "process_duration_msec", "max_pause_msec", "max_heap_mb"):
    check(k in b_js and b_js[k] is None, "5151 json %s: %r (unknown is null)" % (k, b_js.get(k)))
check(procs[4242]["summary"]["heap_count"] is None, "4242 json heap_count (no GCGlobalHeapHistory): null")
check(procs[5151]["server_gc"] is None, "5151 json server_gc: null")
html = run(["stats", db, "--format", "html"]).stdout
part = html[html.find("Process  5151") if "Process  5151" in html else html.find("5151"):]
check("Number of Heaps: unknown" in part and "% Time paused for Garbage Collection: unknown" in part
      and "Time paused for Garbage Collection: 0.0%" not in html.replace("2.0%", ""),
      "5151 html says unknown: %r" % re.findall(r"<li>[^<]*(?:Heaps|Time paused)[^<]*</li>", html))
adv5 = {p["pid"]: p for p in json.loads(adv.stdout)["processes"]}[5151]
check(adv5["server_gc"] is None and adv5["heap_count"] is None, "advise json 5151: %r" % adv5)

# ---- item 1: a server GC whose heap count changes (DATAS): 5 GCs with
# GCGlobalHeapHistory NumHeaps 1, 2, 2, 1, 2 -> each GC its own, the range
# 1-2 with 3 changes; PerfView's Number of Heaps (the first) 1 stays in JSON.
c = os.path.join(WORK, "datas.nettrace")
open(c, "wb").write(trace(6363, [(100 * k, 100 * k + 0.5, 100 * k + 2, 100 * k + 2.5, 100 * k + 3)
                                 for k in range(1, 6)], heaps=[1, 2, 2, 1, 2]))
ddb = os.path.join(WORK, "datas.db")
p = run(["import", "-q", "-d", ddb, c])
check(p.returncode == 0, "import datas: %r" % p.stderr)
dj = json.loads(run(["stats", ddb, "--format", "json"]).stdout)["processes"][0]
check([g["heap_count"] for g in dj["gcs"]] == [1, 2, 2, 1, 2], "each GC's heap count: %r"
      % [g.get("heap_count") for g in dj["gcs"]])
ds = dj["summary"]
check((ds["heap_count"], ds["heap_count_min"], ds["heap_count_max"], ds["heap_count_changes"]) == (1, 1, 2, 3),
      "heap counts: first %r, range %r..%r, %r changes" % (ds["heap_count"], ds["heap_count_min"],
                                                           ds["heap_count_max"], ds["heap_count_changes"]))
dt = run(["stats", ddb]).stdout
check("  Number of Heaps: 1-2, changed 3 times (each GC's: --wide's Heaps)\n" in dt,
      "text: %r" % [l for l in dt.splitlines() if "Heaps" in l])
check(run(["stats", ddb, "--wide"]).stdout.count("Heaps") >= 2, "--wide has the Heaps column")

if failed():
    print("%d failure(s)" % failed(), file=sys.stderr)
    sys.exit(1)
print("ok")
