#!/usr/bin/env python3
"""stacks_real.py GCSCOPE WORKDIR TRACES — `gcscope stacks` on the shared real traces:

- coreclr/netcore31-startup-small (perfcollect, CoreCLR's LTTng provider): its one
  GCAllocationTick (System.Int32[], the trace README) is shown, without a stack,
  and the view says CoreCLR's LTTng events carry no stacks and how to record them.
- nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace (EventPipe, .NET Core
  3.0, Windows): its GCAllocationTick events and how many have no (or an empty)
  stack, counted by an independent walker of the file (nt_stackless.py: 35,458
  and 1);
  the file has MethodLoadVerbose events but no rundown, so most frames print as
  addresses and the view says "no rundown: record with ... --stacks".
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish  # noqa: E402

GCSCOPE, WORK, TRACES = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)


def run(*args):
    return subprocess.run([GCSCOPE] + list(args), capture_output=True, text=True)


db = os.path.join(WORK, "real.db")
if os.path.exists(db):
    os.remove(db)

p = run("stacks", "-d", db, os.path.join(TRACES, "coreclr", "netcore31-startup-small"))
text = p.stdout.replace("\n  ", " ")
check(p.returncode == 0, "stacks on a CoreCLR LTTng trace exits 0", p.stderr)
check("== System.Int32[]: 1 sample (100.0 %)" in p.stdout, "its one AllocationTick is shown", p.stdout)
check("1 of 1 sample has no stack" in text, "counted without a stack", p.stdout)
check("CoreCLR's LTTng events carry no stacks; record over EventPipe: gcscope record --dotnet --stacks" in text,
      "says CoreCLR's LTTng events carry no stacks", p.stdout)

nt = os.path.join(TRACES, "nettrace", "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace")
p = run("stacks", "-d", db, nt, "--format", "json")
check(p.returncode == 0, "stacks --format json on the .NET Core 3.0 nettrace exits 0", p.stderr)
doc = json.loads(p.stdout) if p.returncode == 0 else {"processes": []}
groups = [g for pr in doc["processes"] for g in pr["groups"]]
total = sum(g["samples"] for g in groups)
stackless = sum(s["samples"] for g in groups for s in g["stacks"] if not s["frames"])
walk = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "nt_stackless.py"), nt,
                       "Microsoft-Windows-DotNETRuntime", "10"], capture_output=True, text=True).stdout.split()
want_total, want_stackless = int(walk[1]), int(walk[3])
check(want_total == 35458, "the walker finds the README's 35,458 GCAllocationTick (%d)" % want_total)
check(total == want_total, "%d AllocationTick samples (%d)" % (want_total, total))
check(stackless == want_stackless, "%d without a stack, as the walker counts (%d)" % (want_stackless, stackless))
check(all(sum(s["samples"] for s in g["stacks"]) == g["samples"] for g in groups), "each group's stacks add up")
err = p.stderr.replace("\n  ", " ")
check("no rundown" in err and "record with gcscope record --dotnet --stacks" in err,
      "says why frames did not resolve", p.stderr)
p = run("sql", db, "SELECT jit_methods > 0, rundown_methods, unresolved > 0 FROM stack_symbols", "--csv")
check(p.stdout.strip().splitlines()[1:] == ["1,0,1"], "JIT method events, no rundown, unresolved addresses", p.stdout)
p = run("stacks", db, "--trace", "2")
check(p.returncode == 0 and all(len(l) <= 80 for l in p.stdout.splitlines()), "text fits 80 columns")

sys.exit(finish())
