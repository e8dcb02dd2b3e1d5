#!/usr/bin/env python3
"""test_bgc_lttng — trace bgc_prog under a real LTTng session and check from
babeltrace2's text output:
  bgc:    every background GC follows CoreCLR's BGC event sequence exactly: first
          pause on the GC thread (SuspendEE reason 1, GCStart Type 1, BGCBegin,
          4 MarkWithType, BGC1stNonConEnd, RestartEE), then on the BGC thread
          BGC1stConEnd, the second pause (SuspendEE reason 6 SuspendForGCPrep,
          same Count), the sweep phase events, histories (PauseMode 3,
          Concurrent mechanism), GCEnd, GCCpuTime, GCHeapStats; the two pauses
          are distinct; at least one foreground GC (Type 2, ephemeral, its own
          blocking sequence) lies between a BGC's first RestartEEEnd and its
          GCEnd; an LOH allocation waited (BGCAllocWaitBegin/End, reason 10/11).
  server: every GC has 4 MarkWithType per heap (HeapNum 0 then 1), two
          GCPerHeapHistory (HeapIndex 0, 1) and NumHeaps 2.
usage: test_bgc_lttng.py PATH/TO/rgc-test-bgc-prog
The session daemon comes from the lttng_daemon CTest fixture."""
import os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from rgc_trace import fail, trace_runs  # noqa: E402

prog = sys.argv[1]

def run(mode):
    text, (r,) = trace_runs("rgc-bgc-test", [[prog, mode]])
    return text, {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", r.stdout)}

# Whether an LOH allocation has to wait depends on the BGC still running when
# the LOH budget runs out, which scheduling on a loaded machine can upset: the
# program cannot see it, so a trace without any wait is recorded again (at most
# three times) before the checks below, which then require one.
runs = {}
for attempt in range(3):
    text_bgc, runs["bgc"] = run("bgc")
    if re.search(r"rgc:BGCAllocWaitBegin: .*vpid = %d," % runs["bgc"]["pid"], text_bgc):
        break
text_server, runs["server"] = run("server")
text = text_bgc + text_server

line_re = re.compile(r"rgc:(\w+): \{ cpu_id = \d+ \}, \{ vpid = (\d+), vtid = (\d+) \}, \{ (.*) \}$")
def events_of(pid):
    evs = []
    for line in text.splitlines():
        m = line_re.search(line)
        if not m or int(m.group(2)) != pid:
            continue
        f = {k: int(v) for k, v in re.findall(r"(\w+) = (\d+)", m.group(4))}
        evs.append((m.group(1), int(m.group(3)), f, m.group(4)))
    return evs

IGNORED = {"GCAllocationTick_V4", "GCCreateSegment_V1", "GCFreeSegment_V1", "SetGCHandle",
           "DestroyGCHandle", "GCFinalizersBegin_V1", "GCFinalizersEnd_V1", "RuntimeInformation",
           "RequestStart", "RequestStop", "PinObjectAtGCTime"}

# ---- bgc ----
ev = [e for e in events_of(runs["bgc"]["pid"]) if e[0] not in IGNORED]
names = [e[0] for e in ev]
starts = [i for i, e in enumerate(ev) if e[0] == "GCStart_V2"]
if len(starts) != runs["bgc"]["gcs"]:
    fail("bgc: %d GCStart events, rgc_collection_count(0) = %d" % (len(starts), runs["bgc"]["gcs"]))
bgcs = [i for i in starts if ev[i][2]["Type"] == 1]
# The runtime's own count (its GC callback): the program's requests, plus any
# BGC an LOH allocation past its budget started right after one ended.
if len(bgcs) != runs["bgc"]["bgcs"] or runs["bgc"]["bgcs"] < runs["bgc"]["attempts"]:
    fail("bgc: %d background GCs in the trace, the runtime says %d (%d requested)"
         % (len(bgcs), runs["bgc"]["bgcs"], runs["bgc"]["attempts"]))
gc_tid = ev[bgcs[0]][1]

first = ["GCSuspendEEBegin_V1", "GCSuspendEEEnd_V1", "GCTriggered", "GCStart_V2", "BGCBegin",
         "GCMarkWithType", "GCMarkWithType", "GCMarkWithType", "GCMarkWithType", "BGC1stNonConEnd",
         "GCRestartEEBegin_V1", "GCRestartEEEnd_V1"]
rest = ["BGC1stConEnd", "GCSuspendEEBegin_V1", "GCSuspendEEEnd_V1", "BGC2ndNonConBegin",
        "BGC2ndNonConEnd", "GCRestartEEBegin_V1", "GCRestartEEEnd_V1", "BGC2ndConBegin",
        "BGC1stSweepEnd", "BGC2ndConEnd", "GCGlobalHeapHistory_V4", "GCPerHeapHistory_V3",
        "GCEnd_V1", "GCCpuTime", "GCHeapStats_V2"]
fg_inside = waits_inside = 0
for s in bgcs:
    count = ev[s][2]["Count"]
    i0 = s - 3
    got = [e[0] for e in ev[i0:i0 + len(first)]]
    if got != first or any(e[1] != gc_tid for e in ev[i0:i0 + len(first)]):
        fail("BGC %d first pause: %s" % (count, got))
    if ev[i0][2]["Reason"] != 1 or ev[i0][2]["Count"] != count or ev[s][2]["Depth"] != 2:
        fail("BGC %d: SuspendEEBegin %s / GCStart %s" % (count, ev[i0][3], ev[s][3]))
    restart1 = i0 + len(first) - 1
    # the BGC thread's own events, in order
    bgc_tid = next(e[1] for e in ev[restart1:] if e[0] == "BGC1stConEnd")
    if bgc_tid == gc_tid:
        fail("BGC %d: concurrent phases on the GC thread" % count)
    mine = [(i, e) for i, e in enumerate(ev) if i > restart1 and e[1] == bgc_tid][:len(rest)]
    if [e[0] for _, e in mine] != rest:
        fail("BGC %d on its thread: %s" % (count, [e[0] for _, e in mine]))
    susp2 = mine[1][1][2]
    if susp2["Reason"] != 6 or susp2["Count"] != count:
        fail("BGC %d: second SuspendEEBegin %s (want Reason 6, Count %d)" % (count, mine[1][1][3], count))
    gh = mine[10][1][2]
    if gh["CondemnedGeneration"] != 2 or gh["PauseMode"] != 3 or not gh["GlobalMechanisms"] & 1:
        fail("BGC %d: GlobalHeapHistory %s" % (count, mine[10][1][3]))
    end = mine[12]
    if end[1][2]["Count"] != count or end[1][2]["Depth"] != 2:
        fail("BGC %d: GCEnd %s" % (count, end[1][3]))
    # two distinct pauses: first restart done before the second suspension
    s2 = mine[1][0]
    if not restart1 < s2:
        fail("BGC %d: pauses overlap" % count)
    # foreground GCs inside: GCStart Type 2 between the first restart and GCEnd
    for i in range(restart1, end[0]):
        e = ev[i]
        if e[0] == "GCStart_V2":
            if e[2]["Type"] != 2 or e[2]["Depth"] > 1 or e[1] != gc_tid:
                fail("GC %d inside BGC %d: %s" % (e[2]["Count"], count, e[3]))
            seq = [x[0] for x in ev[i - 3:i + 1]]
            if seq != ["GCSuspendEEBegin_V1", "GCSuspendEEEnd_V1", "GCTriggered", "GCStart_V2"] or \
                    ev[i - 3][2]["Reason"] != 1:
                fail("foreground GC %d starts with %s" % (e[2]["Count"], seq))
            fg_inside += 1
        if e[0] == "BGCAllocWaitBegin" and e[2]["Reason"] in (10, 11):
            ends = [x for x in ev[i:] if x[0] == "BGCAllocWaitEnd" and x[1] == e[1]]
            if not ends or ends[0][2]["Reason"] != e[2]["Reason"]:
                fail("BGC %d: BGCAllocWaitBegin without its End" % count)
            waits_inside += 1
# every GC outside BGCs is blocking (Type 0)
for i in starts:
    t = ev[i][2]["Type"]
    if t == 0 and any(b < i < next(j for j, e in enumerate(ev) if j > b and e[0] == "GCEnd_V1" and
                                   e[2]["Count"] == ev[b][2]["Count"]) for b in bgcs):
        fail("GC %d inside a BGC has Type 0" % ev[i][2]["Count"])
if fg_inside < 1:
    fail("no foreground GC inside a background GC")
if waits_inside < 1:
    fail("no LOH allocation waited for a background GC")

# ---- server ----
ev = [e for e in events_of(runs["server"]["pid"]) if e[0] not in IGNORED]
starts = [i for i, e in enumerate(ev) if e[0] == "GCStart_V2"]
if len(starts) != runs["server"]["gcs"] or not starts:
    fail("server: %d GCStart events, count %d" % (len(starts), runs["server"]["gcs"]))
for s in starts:
    count = ev[s][2]["Count"]
    marks = ev[s + 1:s + 9]
    if [e[0] for e in marks] != ["GCMarkWithType"] * 8 or \
            [(e[2]["HeapNum"], e[2]["Type"]) for e in marks] != [(h, k) for h in (0, 1) for k in range(4)]:
        fail("server GC %d marks: %s" % (count, [e[3] for e in marks]))
    j = s + 9
    if ev[j][0] != "GCGlobalHeapHistory_V4" or ev[j][2]["NumHeaps"] != 2:
        fail("server GC %d: %s" % (count, ev[j][3]))
    if [e[0] for e in ev[j + 1:j + 3]] != ["GCPerHeapHistory_V3"] * 2 or \
            [e[2]["HeapIndex"] for e in ev[j + 1:j + 3]] != [0, 1] or ev[j + 3][0] != "GCEnd_V1":
        fail("server GC %d per-heap histories: %s" % (count, [e[0] for e in ev[j + 1:j + 4]]))
print("test_bgc_lttng: %d BGCs, %d foreground GCs inside, %d LOH waits; %d server GCs: ok" %
      (len(bgcs), fg_inside, waits_inside, len(starts)))
