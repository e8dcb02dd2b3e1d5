"""trace_gcs.py — GCs read from babeltrace2's text output of an rgc trace,
independently of gcscope (no gcscope code is used), for the live top tests.

gcs(trace_dir, procname) returns {GC number: GC} where GC has the fields
  gen, type (0 NonConcurrent, 1 Background, 2 Foreground), reason,
  complete, done_ns (when it completed), pause_ms, and for a background GC initial_ms, final_ms,
  suspend_begin_ns, start_ns (the initial suspension and its GCStart).

Pause rules (PerfView's GCStats, as TraceEvent's TraceGC computes them):
- blocking GC (Type 0 or 2): GCSuspendEEBegin -> GCRestartEEEnd of the
  suspension its GCStart came in;
- background GC: initial pause (its suspension -> the first GCRestartEEEnd)
  plus every SuspendForGCPrep pause (GCSuspendEEBegin Reason 6 ->
  GCRestartEEEnd) while it runs; the final pause is the last of those;
- an ephemeral NonConcurrent GC started in the same suspension as a BGC
  (after it) gets GCStart -> GCRestartEEEnd, and the BGC keeps only its
  suspend time (SuspendEEBegin -> SuspendEEEnd) as initial pause.
Completeness (as PerfView): a blocking GC is complete at its GCRestartEEEnd
if its GCHeapStats came before; a background GC at its GCHeapStats. The
GCHeapStats belongs to the GC whose GCEnd came last on the same thread.
Suspensions for other reasons (not 1 SuspendForGC, 6 SuspendForGCPrep) are
not GC pauses and are ignored.
"""
import re
import subprocess

_LINE = re.compile(r"\[(\d+)\.(\d{9})\] \(\+[0-9.?]+\) \S+ rgc:(\w+): (.*)$")
# A field as babeltrace2 prints it: a number, a string, or an enum
# `( "Label" : container = N )`, of which the number is kept.
_FIELD = re.compile(r'(\w+) = (?:\( "[^"]*" : container = (-?\d+) \)|(-?\d+)|"([^"]*)")')


class GC:
    def __init__(self, number, gen, typ, reason):
        self.number, self.gen, self.type, self.reason = number, gen, typ, reason
        self.pause_start_ns = None
        self.start_ns = None
        self.suspend_begin_ns = None
        self.pause_ns = None
        self.initial_ns = None
        self.final_ns = None
        self.ended = False
        self.heapstats = False
        self.complete = False
        self.done_ns = None    # when it became complete

    @property
    def pause_ms(self):
        return None if self.pause_ns is None else self.pause_ns / 1e6

    @property
    def initial_ms(self):
        return None if self.initial_ns is None else self.initial_ns / 1e6

    @property
    def final_ms(self):
        return None if self.final_ns is None else self.final_ns / 1e6

    def gen_name(self):
        """PerfView's Gen column: 0N, 2B, 1F, 2NI, 2Bi ..."""
        return "%d%s%s" % (self.gen, "NBF"[self.type], {1: "I", 7: "i"}.get(self.reason, ""))


def fields(text):
    out = {}
    for m in _FIELD.finditer(text):
        v = m.group(2) or m.group(3)
        out[m.group(1)] = int(v) if v is not None else m.group(4)
    return out


def events(trace_dir, procname):
    """(ts_ns, name, fields) of procname's rgc events, in trace order; also
    the stderr of babeltrace2 (it warns there about discarded events)."""
    r = subprocess.run(["babeltrace2", "--clock-seconds", trace_dir], capture_output=True, text=True, check=True)
    evs = []
    for line in r.stdout.split("\n"):
        m = _LINE.match(line)
        if not m:
            continue
        f = fields(m.group(4))
        if f.get("procname") != procname:
            continue
        evs.append((int(m.group(1)) * 10**9 + int(m.group(2)), m.group(3), f))
    return evs, r.stderr


def gcs(evs):
    """{number: GC} from events(): the pause and completeness rules above."""
    out = {}
    susp = None          # current GC suspension: {begin, end, reason, started: [GC]}
    bgc = None           # the running background GC
    last_end = {}        # vtid -> GC whose GCEnd came last on that thread
    for ts, name, f in evs:
        ev = name.rsplit("_V", 1)[0]
        if ev == "GCSuspendEEBegin":
            susp = {"begin": ts, "end": None, "reason": f["Reason"], "started": []} \
                if f["Reason"] in (1, 6) else None
        elif ev == "GCSuspendEEEnd":
            if susp is not None and susp["end"] is None:
                susp["end"] = ts
        elif ev == "GCStart":
            gc = GC(f["Count"], f["Depth"], f["Type"], f["Reason"])
            gc.start_ns = ts
            if susp is not None:
                gc.pause_start_ns = susp["begin"]
                gc.suspend_begin_ns = susp["begin"]
                if gc.type == 0 and susp["started"] and susp["started"][-1].type == 1:
                    gc.pause_start_ns = ts          # ephemeral GC at BGC start
                susp["started"].append(gc)
            if gc.type == 1:
                bgc = gc
            out[gc.number] = gc
        elif ev == "GCEnd":
            gc = out.get(f["Count"])
            if gc is not None:
                gc.ended = True
                last_end[f["vtid"]] = gc
        elif ev == "GCHeapStats":
            gc = last_end.pop(f["vtid"], None)
            if gc is not None:
                gc.heapstats = True
                if gc.type == 1:
                    gc.complete = gc.pause_ns is not None
                    gc.done_ns = ts
                    if bgc is gc:
                        bgc = None
        elif ev == "GCRestartEEEnd":
            if susp is None:
                continue
            pause = ts - susp["begin"]
            started = susp["started"]
            if susp["reason"] == 6:
                if bgc is not None and bgc.pause_ns is not None:
                    bgc.pause_ns += pause
                    bgc.final_ns = pause
            elif started:
                if len(started) == 2 and started[0].type == 1 and started[1].type == 0:
                    b, e = started
                    b.initial_ns = b.pause_ns = (susp["end"] or susp["begin"]) - susp["begin"]
                    e.pause_ns = ts - e.pause_start_ns
                    e.complete, e.done_ns = e.heapstats, ts
                else:
                    gc = started[-1]
                    if gc.type == 1:
                        gc.initial_ns = gc.pause_ns = ts - gc.pause_start_ns
                    else:
                        gc.pause_ns = ts - gc.pause_start_ns
                        gc.complete, gc.done_ns = gc.heapstats, ts
            susp = None
    return out


def read(trace_dir, procname):
    """(gcs, babeltrace2 stderr) for procname's GCs in trace_dir."""
    evs, err = events(trace_dir, procname)
    return gcs(evs), err
