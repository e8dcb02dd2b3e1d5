#!/usr/bin/env python3
"""test_lttng — run lttng_prog under a real LTTng session and check, from
babeltrace2's text output, the exact event order of every GC and that the
trace's GC counts equal rgc_collection_count.

usage: test_lttng.py PATH/TO/rgc-test-lttng-prog
The session daemon comes from the lttng_daemon CTest fixture."""
import os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from rgc_trace import fail, trace_runs  # noqa: E402

prog = sys.argv[1]

text, (r,) = trace_runs("rgc-test", [[prog]], timeout=120)
m = re.search(r"pid=(\d+) gcs=(\d+) gen1=(\d+) gen2=(\d+) pinned=(\d+)", r.stdout)
if not m:
    fail("unexpected program output: " + r.stdout)
pid, gcs, gen1, gen2, pinned = map(int, m.groups())

line_re = re.compile(r"rgc:(\w+): \{ cpu_id = \d+ \}, \{ vpid = (\d+), vtid = (\d+) \}, \{ (.*) \}$")
events = []
for line in text.splitlines():
    m = line_re.search(line)
    if not m:
        continue
    name, vpid, vtid, fields = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
    if vpid != pid:
        continue  # another librgc program tracing at the same time
    f = dict(re.findall(r"(\w+) = (\d+)", fields))
    events.append((name, vtid, {k: int(v) for k, v in f.items()}, fields))

if sum(1 for e in events if e[0] == "RuntimeInformation") != 1:
    fail("expected one RuntimeInformation event")

lifecycle = {"GCSuspendEEBegin_V1", "GCSuspendEEEnd_V1", "GCTriggered", "GCStart_V2",
             "GCMarkWithType", "PinObjectAtGCTime", "GCGlobalHeapHistory_V4",
             "GCPerHeapHistory_V3", "GCEnd_V1", "GCCpuTime", "GCHeapStats_V2",
             "GCRestartEEBegin_V1", "GCRestartEEEnd_V1"}
seq = [e for e in events if e[0] in lifecycle]
if not seq:
    fail("no GC events in the trace")
# Each GC's events come from the one thread that runs it: the thread that
# asked for it (no other thread running managed code) or the GC thread; a
# run may have both kinds of GC (seen under ASan), never a GC split.

head = ["GCSuspendEEBegin_V1", "GCSuspendEEEnd_V1", "GCTriggered", "GCStart_V2",
        "GCMarkWithType", "GCMarkWithType", "GCMarkWithType", "GCMarkWithType"]
tail = ["GCGlobalHeapHistory_V4", "GCPerHeapHistory_V3", "GCEnd_V1", "GCCpuTime",
        "GCHeapStats_V2", "GCRestartEEBegin_V1", "GCRestartEEEnd_V1"]
i, n, depths, pins_seen = 0, 0, [], []
while i < len(seq):
    n += 1
    gi = i
    names = [e[0] for e in seq[i:i + len(head)]]
    if names != head:
        fail("GC %d starts with %s" % (n, names))
    gc = seq[i:i + len(head)]
    if gc[0][2]["Reason"] != 1 or gc[0][2]["Count"] != n:
        fail("GC %d: SuspendEEBegin %s" % (n, gc[0][3]))
    start = gc[3][2]
    if start["Count"] != n or start["Type"] != 0 or start["Reason"] != gc[2][2]["Reason"]:
        fail("GC %d: GCStart %s" % (n, gc[3][3]))
    if [e[2]["Type"] for e in gc[4:8]] != [0, 1, 2, 3]:
        fail("GC %d: GCMarkWithType types" % n)
    depths.append(start["Depth"])
    i += len(head)
    while i < len(seq) and seq[i][0] == "PinObjectAtGCTime":
        pins_seen.append((n, seq[i][2]["ObjectID"]))
        i += 1
    t = seq[i:i + len(tail)]
    if [e[0] for e in t] != tail:
        fail("GC %d ends with %s" % (n, [e[0] for e in t]))
    if t[2][2]["Count"] != n or t[2][2]["Depth"] != start["Depth"] or t[3][2]["Count"] != n:
        fail("GC %d: GCEnd/GCCpuTime counts" % n)
    if t[0][2]["CondemnedGeneration"] != start["Depth"]:
        fail("GC %d: GlobalHeapHistory generation" % n)
    # GCHeapStats sizes equal the per-heap history's SizeAfter
    size_after = re.search(r"SizeAfter = \[ (.*?) \]", t[1][3]).group(1)
    sa = [int(v) for v in re.findall(r"\] = (\d+)", size_after)]
    hs = t[4][2]
    if sa != [hs["GenerationSize%d" % g] for g in range(5)]:
        fail("GC %d: GCHeapStats sizes %s != PerHeapHistory SizeAfter %s" % (n, hs, sa))
    i += len(tail)
    tids = {e[1] for e in seq[gi:i]}
    if len(tids) != 1:
        fail("GC %d: events from several threads: %s" % (n, tids))

if n != gcs:
    fail("trace has %d GCs, rgc_collection_count(0) = %d" % (n, gcs))
if sum(1 for d in depths if d >= 1) != gen1 or sum(1 for d in depths if d == 2) != gen2:
    fail("trace depths %s vs counts gen1=%d gen2=%d" % (depths, gen1, gen2))
# the pinned object is reported by the induced gen0 GC (GC n-2) at its address
if (gcs - 2, pinned) not in pins_seen:
    fail("no PinObjectAtGCTime for %d in GC %d: %s" % (pinned, gcs - 2, pins_seen))
print("test_lttng: %d GCs (gen1 %d, gen2 %d) in order: ok" % (n, gen1, gen2))
