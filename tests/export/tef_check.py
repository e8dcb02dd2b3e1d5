"""Checks a Chrome JSON trace against the Trace Event Format's rules (the
"JSON Object Format" of Google's Trace Event Format document), written for the
export tests:

- the file is JSON (no NaN/Infinity) holding {"traceEvents": [...]} with an
  optional displayTimeUnit of "ms" or "ns";
- every event has the keys its phase requires: X (name, ts, dur, pid, tid),
  B/E (ts, pid, tid; B a name), C (name, ts, pid, args of numbers),
  M (a known metadata name with its args key), i/I (name, ts, scope);
- timestamps and durations are finite numbers >= 0;
- complete (X) events on one (pid, tid) nest: each either ends before the
  next one starts or contains it; B/E pair up on their thread;
- every thread with slices has a thread_name, every process a process_name.

read(path) returns the parsed document or raises ValueError; check(doc)
returns the list of violations (empty when valid); slices(doc) and
counters(doc) give what the tests compare, in integer ns.
"""
import json
import math

METADATA_ARGS = {"process_name": ("name", str), "process_labels": ("labels", str),
                 "process_sort_index": ("sort_index", int), "thread_name": ("name", str),
                 "thread_sort_index": ("sort_index", int)}


def _no_constants(name):
    raise ValueError("non-JSON number %s" % name)


def read(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_constant=_no_constants)


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def ns(us):
    """A µs timestamp as integer ns (the exporter writes three decimals)."""
    return int(round(us * 1000))


def check(doc):
    errs = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["top level: an object with a traceEvents array"]
    if "displayTimeUnit" in doc and doc["displayTimeUnit"] not in ("ms", "ns"):
        errs.append("displayTimeUnit must be ms or ns")
    threads, procs, named_threads, named_procs = set(), set(), set(), set()
    xs, open_b = {}, {}
    for k, e in enumerate(doc["traceEvents"]):
        where = "event %d" % k
        if not isinstance(e, dict) or not isinstance(e.get("ph"), str):
            errs.append(where + ": an object with a ph")
            continue
        ph = e["ph"]
        if not isinstance(e.get("pid"), int):
            errs.append(where + ": pid must be an integer")
        if ph in "XBEiIC" and not (_num(e.get("ts")) and e["ts"] >= 0):
            errs.append(where + ": ts must be a number >= 0")
        if ph in "XBiIMC" and not isinstance(e.get("name"), str):
            errs.append(where + ": %s needs a name" % ph)
        if ph in "XBE" and not isinstance(e.get("tid"), int):
            errs.append(where + ": %s needs a tid" % ph)
        if "args" in e and not isinstance(e["args"], dict):
            errs.append(where + ": args must be an object")
        if errs and errs[-1].startswith(where):
            continue
        key = (e["pid"], e.get("tid"))
        procs.add(e["pid"])
        if ph == "X":
            if not (_num(e.get("dur")) and e["dur"] >= 0):
                errs.append(where + ": X needs dur >= 0")
                continue
            xs.setdefault(key, []).append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"], k))
            threads.add(key)
        elif ph == "B":
            open_b.setdefault(key, []).append(e)
            threads.add(key)
        elif ph == "E":
            if not open_b.get(key):
                errs.append(where + ": E without a B on its thread")
            else:
                open_b[key].pop()
        elif ph == "C":
            a = e.get("args")
            if not isinstance(a, dict) or not a or not all(_num(v) for v in a.values()):
                errs.append(where + ": C needs args of finite numbers")
        elif ph == "M":
            if e["name"] not in METADATA_ARGS:
                errs.append(where + ": unknown metadata %r" % e["name"])
                continue
            akey, atype = METADATA_ARGS[e["name"]]
            v = (e.get("args") or {}).get(akey)
            if not isinstance(v, atype) or isinstance(v, bool):
                errs.append(where + ": %s needs args.%s" % (e["name"], akey))
            if e["name"] == "thread_name":
                named_threads.add(key)
            if e["name"] == "process_name":
                named_procs.add(e["pid"])
        elif ph in "iI":
            if e.get("s", "t") not in ("g", "p", "t"):
                errs.append(where + ": instant scope must be g, p or t")
        else:
            errs.append(where + ": phase %r not used by gcscope" % ph)
    for key, v in open_b.items():
        if v:
            errs.append("thread %s: %d B without E" % (key, len(v)))
    for key, v in xs.items():
        v.sort(key=lambda s: (s[0], -(s[1] - s[0])))
        stack = []
        for start, end, name, k in v:
            while stack and stack[-1][1] <= start and not (stack[-1][1] == start == stack[-1][0]):
                stack.pop()
            if stack and end > stack[-1][1]:
                errs.append("thread %s: X %r (event %d) overlaps %r without nesting" % (key, name, k, stack[-1][2]))
            stack.append((start, end, name))
    for key in threads - named_threads:
        errs.append("thread %s has slices but no thread_name" % (key,))
    for pid in procs - named_procs:
        errs.append("process %s has no process_name" % pid)
    return errs


def track_names(doc):
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
            if e["ph"] == "M" and e["name"] == "thread_name"}


def slices(doc):
    """{(pid, track name): [(name, start_ns, end_ns, args)]} in file order."""
    names = track_names(doc)
    out = {}
    for e in doc["traceEvents"]:
        if e["ph"] == "X":
            out.setdefault((e["pid"], names[(e["pid"], e["tid"])]), []).append(
                (e["name"], ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e.get("args", {})))
    return out


def counters(doc):
    """{(pid, counter name): [(ts_ns, value)]} in file order."""
    out = {}
    for e in doc["traceEvents"]:
        if e["ph"] == "C":
            out.setdefault((e["pid"], e["name"]), []).append((ns(e["ts"]), e["args"]["value"]))
    return out


def processes(doc):
    """{pid: (name, command line or None)}"""
    out = {}
    for e in doc["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "process_name":
            out[e["pid"]] = (e["args"]["name"], out.get(e["pid"], (None, None))[1])
        if e["ph"] == "M" and e["name"] == "process_labels":
            out[e["pid"]] = (out.get(e["pid"], (None, None))[0], e["args"]["labels"])
    return out
