#!/usr/bin/env python3
"""rgc_stacks.py GCSCOPE CULPRITS WORKDIR — librgc's call stacks end to end
(LTTng, label lttng): `gcscope record --stacks --profile verbose` runs
rgc_culprits.c, import resolves the stacks from the statedump (libdwfl),
`gcscope stacks --format json` is checked against what the program knows:

- AllocationTick: >= 95 % of the Culprit.Static samples have the static
  function static_alloc_site as their leaf frame (GCC may name its clone
  static_alloc_site.constprop.0), >= 95 % of Culprit.Public's
  public_alloc_site; every such stack's next frame is main. The bytes are
  3:1 by construction: Static's share of the sampled bytes is 75 % within
  one sample (106496 bytes of 19+ MB: 1 %) plus the tick's phase (4 %).
- GCTriggered, key Induced: exactly the number of rgc_collect calls the
  program reports (3), every one with induce_site as its leaf (the
  requesting thread's stack, though the GC thread emits the event).
- GCHandle, key Pinned: exactly the pins the program reports (5), all in
  pin_site.
- A stripped copy (strip(1)) of the program: Culprit.Static's leaf is
  NAME+0xOFF, OFF inside static_alloc_site's range as nm(1) reads it from
  the unstripped program, and the text view says in one line why
  ("... is stripped ...").
- Without --stacks no event carries a stack (off by default).
- librgc walks each stack twice in the first recording (RGC_StacksVerify=1):
  with its own unwinder (rgc_unwind.c) and with glibc's backtrace(); it
  says on stderr how many it walked (every stacked event: > 0), how many
  differed (0) and how many its unwinder left to backtrace() (0 in this
  program of ordinary -O2 code).
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish  # noqa: E402

G, PROG, WORK = sys.argv[1:4]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)


def run(*args, timeout=180, env=None):
    p = subprocess.run([G] + list(args), capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr


def record(prog, name, stacks=True, verify=False):
    out = os.path.join(WORK, name)
    env = dict(os.environ, RGC_StacksVerify="1") if verify else None
    rc, o, e = run("record", *(["--stacks"] if stacks else []), "--profile", "verbose", "-o", out, "--", prog,
                   env=env)
    check(rc == 0, "%s: record exits 0 (%d: %s)" % (name, rc, e.strip()[-300:]))
    if verify:
        v = re.search(r"RGC_StacksVerify: (\d+) stacks walked both ways, (\d+) differed; rgc_unwind declined (\d+)", e)
        check(v is not None, "%s: librgc reports its stack check (%s)" % (name, e.strip()[-300:]))
        if v:
            walked, differed, declined = map(int, v.groups())
            check(walked > 0 and differed == 0 and declined == 0,
                  "%s: %d stacks walked by both unwinders, %d differed (0), %d left to backtrace() (0)"
                  % (name, walked, differed, declined))
    m = re.search(r"pid=(\d+) induced=(\d+) pins=(\d+)", o)
    check(m is not None, "%s: the program ran (%s)" % (name, o[-300:]))
    db = os.path.join(WORK, name + ".db")
    rc, _, e = run("import", "-q", "-d", db, out)
    check(rc == 0, "%s: import exits 0 (%s)" % (name, e.strip()))
    return db, tuple(map(int, m.groups())) if m else (0, 0, 0)


def groups(db, event, pid):
    rc, o, e = run("stacks", db, "--event", event, "--format", "json")
    check(rc == 0, "stacks --event %s exits 0 (%s)" % (event, e.strip()))
    try:
        doc = json.loads(o)
    except ValueError:
        check(False, "stacks --event %s prints JSON (%s)" % (event, o[:200]))
        return {}
    procs = [p for p in doc["processes"] if p["pid"] == pid]
    check(len(procs) == 1, "%s: one process %d" % (event, pid))
    return {g["key"]: g for g in procs[0]["groups"]} if procs else {}


def is_fn(frame, fn):   # GCC's clones keep the name before a dot
    return frame == fn or frame.startswith(fn + ".")


def share(g, fn, nth=0):
    good = sum(s["samples"] for s in g["stacks"] if len(s["frames"]) > nth and is_fn(s["frames"][nth], fn))
    return good, g["samples"]


db, (pid, induced, pins) = record(PROG, "rec", verify=True)
check(induced == 3 and pins == 5, "the program induced 3 GCs and pinned 5 handles (%d, %d)" % (induced, pins))
al = groups(db, "AllocationTick", pid)
for key, fn in (("Culprit.Static", "static_alloc_site"), ("Culprit.Public", "public_alloc_site")):
    g = al.get(key)
    check(g is not None and g["samples"] > 0, "AllocationTick %s has samples" % key)
    if g:
        good, n = share(g, fn)
        check(good * 100 >= 95 * n, "%s: %d of %d samples in %s (>= 95 %%)" % (key, good, n, fn))
        callers = sum(s["samples"] for s in g["stacks"] if len(s["frames"]) > 1 and s["frames"][1] == "main")
        check(callers * 100 >= 95 * n, "%s: %s is called by main (%d of %d)" % (key, fn, callers, n))
if al.get("Culprit.Static") and al.get("Culprit.Public"):
    b1, b2 = al["Culprit.Static"]["bytes"], al["Culprit.Public"]["bytes"]
    check(abs(b1 / (b1 + b2) - 0.75) <= 0.05, "Static's share of the sampled bytes is 3/4 (%d, %d)" % (b1, b2))
tr = groups(db, "GCTriggered", pid)
g = tr.get("Induced")
check(g is not None and g["samples"] == induced, "GCTriggered Induced: %d samples (%s)" % (induced, g and g["samples"]))
if g:
    good, n = share(g, "induce_site")
    check(good == n == induced, "every induced GC's leaf is induce_site (%d of %d)" % (good, n))
hd = groups(db, "GCHandle", pid)
g = hd.get("Pinned")
check(g is not None and g["samples"] == pins, "GCHandle Pinned: %d samples (%s)" % (pins, g and g["samples"]))
if g:
    good, n = share(g, "pin_site")
    check(good == n == pins, "every pin's leaf is pin_site (%d of %d)" % (good, n))
rc, o, _ = run("stacks", db, "--event", "AllocationTick")
check(rc == 0 and "did not resolve" not in o, "unstripped: every frame resolves (no note)")

# A stripped copy: module+0xOFF inside static_alloc_site, and one line saying why.
nm = subprocess.run(["nm", "-S", PROG], capture_output=True, text=True).stdout
rng = None
for line in nm.splitlines():
    f = line.split()
    if len(f) == 4 and is_fn(f[3], "static_alloc_site"):
        rng = (int(f[0], 16), int(f[0], 16) + int(f[1], 16))
check(rng is not None, "nm names static_alloc_site in the unstripped program")
stripped = os.path.join(WORK, "culprits-stripped")
shutil.copy(PROG, stripped)
subprocess.run(["strip", stripped], check=True)
check("static_alloc_site" not in subprocess.run(["nm", "-S", stripped], capture_output=True, text=True).stdout,
      "strip removed static_alloc_site's symbol")
db2, (pid2, _, _) = record(stripped, "stripped")
g = groups(db2, "AllocationTick", pid2).get("Culprit.Static")
check(g is not None and g["samples"] > 0, "stripped: Culprit.Static has samples")
if g and rng:
    offs = []
    for s in g["stacks"]:
        m = re.fullmatch(r"culprits-stripped\+0x([0-9a-f]+)", s["frames"][0])
        if m:
            offs += [int(m.group(1), 16)] * s["samples"]
    inside = sum(1 for o in offs if rng[0] < o <= rng[1])   # a return address: just past its call
    check(inside * 100 >= 95 * g["samples"],
          "stripped: %d of %d leaves are culprits-stripped+0xOFF inside static_alloc_site [%#x, %#x)"
          % (inside, g["samples"], rng[0], rng[1]))
rc, o, _ = run("stacks", db2, "--event", "AllocationTick")
notes = [l for l in o.splitlines() if l.startswith("note:")]
check(rc == 0 and len(notes) == 1 and "did not resolve" in notes[0], "stripped: one note (%s)" % notes)
check("culprits-stripped is stripped" in o.replace("\n", " ").replace("  ", " "), "stripped: the note says why")

# Off by default: no --stacks, no stack.
db3, (pid3, _, _) = record(PROG, "nostacks", stacks=False)
rc, o, _ = run("sql", db3, "SELECT count(*) FROM stacks")
check(rc == 0 and o.split()[-1] == "0", "without --stacks no stack is stored (%s)" % o.strip())
sys.exit(finish())
