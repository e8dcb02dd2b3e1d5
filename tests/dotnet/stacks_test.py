#!/usr/bin/env python3
"""stacks_test.py CASE — `gcscope record --dotnet --stacks` and `gcscope stacks`
on a real .NET runtime: gcprog's culprits scenario (tests/dotnet/gcprog/Culprits.cs)
knows its own culprits:

- Culprits.AllocBytes allocates 60 MB of byte[], Culprits.AllocLongs 40 MB of
  long[] (nothing else allocates much): at least 95 % of the System.Byte[]
  AllocationTick samples have AllocBytes on their stack and at least 95 % of
  the System.Int64[] samples AllocLongs; each type's estimated MB (the
  samples' AllocationAmount) is within 10 % of what the method allocated.
- Culprits.InduceGCs calls GC.Collect() 7 times and nothing else induces a GC:
  exactly 7 GCTriggered(Induced), every one with InduceGCs on its stack, and
  exactly as many Induced GCs in the gcs table.
- Culprits.PinObjects makes 40 pinned handles: at least 40 SetGCHandle(Pinned)
  events are counted; a pinned handle with a stack has PinObjects on it, and
  the ones without (GCHandle.Alloc's fast path records none on .NET 9+) are
  counted, in JSON as a stack with no frames, in text as "N of M samples have
  no stack".
- Every frame address resolves (the rundown names every method with code).
- The database with stacks is at most 1.5 times the one of the same run
  recorded without them.

Case fixture: the same checks (pins excepted: no GCHandle keyword) on two
committed .NET 10 recordings, one by gcscope record --stacks and one by
dotnet-trace collect (stacks and rundown are its defaults), offline (no
dotnet needed).

Environment as dotnet_test.py (GCSCOPE, GCPROG, WORK). Exit 77 (skipped)
without dotnet.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_test as dt  # noqa: E402
from dotnet_test import check, failed, sql  # noqa: E402

GCSCOPE = dt.GCSCOPE


def stacks(db, *args):
    p = subprocess.run([GCSCOPE, "stacks", db] + list(args), capture_output=True, text=True)
    return p


def has(stack, method):
    return any(f == method for f in stack["frames"])


def group(doc, key):
    for pr in doc["processes"]:
        for g in pr["groups"]:
            if g["key"] == key:
                return g
    return None


def share(g, method):
    """Samples (and bytes) of group g whose stack holds method."""
    n = sum(s["samples"] for s in g["stacks"] if has(s, method))
    b = sum(s["bytes"] for s in g["stacks"] if has(s, method))
    return n, b


def record_culprits(d, stacks_on):
    args = ["--dotnet", "--profile", "handles", "-o", d + "/rec", "--import", "-d", d + "/t.db", "-q"]
    if stacks_on:
        args.append("--stacks")
    p = dt.record(args + ["--", "dotnet", dt.GCPROG, "culprits"], cwd=d, env=dt.env_with({}))
    check(p.returncode == 0, "record %s--stacks exits 0 (got %d)" % ("" if stacks_on else "without ", p.returncode))
    m = re.search(r"^CULPRITS bytes=(\d+) longs=(\d+) induced=(\d+) pins=(\d+)", p.stdout, re.M)
    check(m is not None, "the program printed its CULPRITS line")
    return [int(x) for x in m.groups()] if m else None


def case_culprits():
    d = dt.workdir("stacks_culprits")
    known = record_culprits(d, True)
    if not known:
        return
    check_culprits(d + "/t.db", known, pins=True)

    # size: the same run without stacks
    d2 = dt.workdir("stacks_culprits_nostacks")
    if record_culprits(d2, False):
        with_s, without = os.path.getsize(d + "/t.db"), os.path.getsize(d2 + "/t.db")
        print("database with stacks %d bytes, without %d (%.2fx)" % (with_s, without, with_s / without))
        check(with_s <= 1.5 * without, "the database with stacks is at most 1.5x the one without (%.2fx)"
              % (with_s / without))


def case_fixture():
    """The committed recordings of gcprog's culprits on .NET 10.0, each with the
    program's output beside it, offline: fixtures/gcprog-culprits-stacks
    (`gcscope record --dotnet --profile alloc --stacks`) and
    fixtures/gcprog-culprits-dotnet-trace (`dotnet-trace collect --providers
    Microsoft-Windows-DotNETRuntime:0x1:5`: its defaults bring the stacks and
    the rundown): the same attributions from both."""
    fx = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
    for name in ("gcprog-culprits-stacks", "gcprog-culprits-dotnet-trace"):
        with open(os.path.join(fx, name + ".out")) as fh:
            m = re.search(r"^CULPRITS bytes=(\d+) longs=(\d+) induced=(\d+) pins=(\d+)", fh.read(), re.M)
        check(m is not None, "%s: the fixture's output has its CULPRITS line" % name)
        d = dt.workdir("stacks_fixture_" + name)
        db = d + "/t.db"
        p = subprocess.run([GCSCOPE, "import", "-q", "-d", db, os.path.join(fx, name + ".nettrace.gz")],
                           capture_output=True, text=True)
        check(p.returncode == 0, "%s: import exits 0" % name, p.stderr)
        if m and p.returncode == 0:
            print("-- " + name)
            check_culprits(db, [int(x) for x in m.groups()], pins=False)


def check_culprits(db, known, pins):
    want_bytes, want_longs, want_induced, want_pins = known

    # allocations
    p = stacks(db, "--format", "json")
    check(p.returncode == 0, "stacks --format json exits 0", p.stderr)
    doc = json.loads(p.stdout)
    a = subprocess.run([GCSCOPE, "allocs", db, "--stacks", "--format", "json"], capture_output=True, text=True)
    check(a.returncode == 0 and json.loads(a.stdout) == doc, "allocs --stacks is stacks --event AllocationTick", a.stderr)
    for key, method, want in (("System.Byte[]", "Culprits.AllocBytes", want_bytes),
                              ("System.Int64[]", "Culprits.AllocLongs", want_longs)):
        g = group(doc, key)
        check(g is not None, "AllocationTick has a %s group" % key)
        if not g:
            continue
        n, b = share(g, method)
        print("%s: %d of %d samples (%.1f %%) on %s; %.3f MB estimated, %d allocated"
              % (key, n, g["samples"], 100.0 * n / g["samples"], method, g["bytes"] / 1e6, want))
        check(n >= 0.95 * g["samples"], "%s: at least 95 %% of the samples on %s (%d of %d)"
              % (key, method, n, g["samples"]))
        check(abs(b - want) <= 0.10 * want, "%s: %s's estimated bytes %d within 10 %% of the %d it allocated"
              % (key, method, b, want))
        check(sum(s["samples"] for s in g["stacks"]) == g["samples"], "%s: the stacks add up to the group" % key)

    # induced GCs
    p = stacks(db, "--event", "GCTriggered", "--format", "json")
    check(p.returncode == 0, "stacks --event GCTriggered exits 0", p.stderr)
    g = group(json.loads(p.stdout), "Induced")
    check(g is not None, "GCTriggered has an Induced group")
    if g:
        n, _ = share(g, "Culprits.InduceGCs")
        check(g["samples"] == want_induced, "Induced GCTriggered: %d, the program called GC.Collect %d times"
              % (g["samples"], want_induced))
        check(n == want_induced, "every induced GC has Culprits.InduceGCs on its stack (%d of %d)" % (n, g["samples"]))
        leaf = [s["frames"][0] for s in g["stacks"] if s["frames"]]
        check(all(f == "System.GC.Collect" for f in leaf), "the frame nearest the event is System.GC.Collect", leaf)
    adv = subprocess.run([GCSCOPE, "advise", db], capture_output=True, text=True)
    check("GC.Collect is called from Culprits.InduceGCs (%d of %d)" % (want_induced, want_induced)
          in " ".join(adv.stdout.split()), "advise names the caller of GC.Collect", adv.stdout)
    induced = int(sql(db, "SELECT count(*) FROM gcs WHERE reason IN (1, 7)")[0][0])
    check(induced == want_induced, "gcs has %d induced GCs (%d)" % (want_induced, induced))

    # pins
    p = stacks(db, "--event", "GCHandle", "--format", "json") if pins else None
    if p:
        check(p.returncode == 0, "stacks --event GCHandle exits 0", p.stderr)
        g = group(json.loads(p.stdout), "Pinned")
        check(g is not None, "GCHandle has a Pinned group")
        if g:
            stackless = sum(s["samples"] for s in g["stacks"] if not s["frames"])
            stacked = [s for s in g["stacks"] if s["frames"]]
            n, _ = share(g, "Culprits.PinObjects")
            print("Pinned: %d handles, %d without a stack, %d with Culprits.PinObjects on theirs"
                  % (g["samples"], stackless, n))
            check(g["samples"] >= want_pins, "at least the program's %d pinned handles are counted (%d)"
                  % (want_pins, g["samples"]))
            check(n + stackless >= want_pins, "the program's pins are PinObjects' or stackless (%d + %d)" % (n, stackless))
            check(all(has(s, "Culprits.PinObjects") for s in stacked if any(f.startswith("Culprits.") for f in s["frames"])),
                  "a pin from the program's code has PinObjects on its stack")
            t = stacks(db, "--event", "GCHandle", "--by", "kind")
            if stackless:
                check(re.search(r"%d of %d samples have no stack: GCHandle\.Alloc's fast path" % (stackless, g["samples"]),
                                t.stdout.replace("\n  ", " ")) is not None,
                      "text says %d of %d pins have no stack and why" % (stackless, g["samples"]), t.stdout)

    # every frame resolved; text fits 80 columns
    row = sql(db, "SELECT sum(addresses), sum(unresolved), sum(rundown_methods) FROM stack_symbols")[0]
    check(int(row[0]) > 0 and row[1] == "0", "every frame address resolved (%s of %s unresolved)" % (row[1], row[0]))
    check(int(row[2]) > 0, "the rundown named methods (%s)" % row[2])
    for ev in ("AllocationTick", "GCTriggered") + (("GCHandle",) if pins else ()):
        t = stacks(db, "--event", ev, "--min-pct", "0")
        long_lines = [l for l in t.stdout.splitlines() if len(l) > 80]
        check(t.returncode == 0 and not long_lines, "stacks --event %s: text fits 80 columns" % ev, long_lines[:3])
    f = stacks(db, "--format", "folded")
    lines = f.stdout.splitlines()
    check(f.returncode == 0 and lines and all(re.match(r"^.+ \d+$", l) for l in lines), "folded: 'a;b;c COUNT' lines")
    check(any(l.startswith("System.Byte[];Program.Main;Culprits.Run;Culprits.AllocBytes ") for l in lines),
          "folded: root first (Program.Main;Culprits.Run;Culprits.AllocBytes)", lines[:5])


CASES = {"culprits": case_culprits, "fixture": case_fixture}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        raise SystemExit("usage: stacks_test.py " + "|".join(CASES))
    if sys.argv[1] != "fixture":
        dt.skip_without_dotnet()
    os.makedirs(dt.WORK, exist_ok=True)
    CASES[sys.argv[1]]()
    print("%d failed" % failed())
    sys.exit(1 if failed() else 0)
