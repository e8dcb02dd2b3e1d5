#!/usr/bin/env python3
"""dotnet-overhead [ROUNDS] — what an EventPipe session costs a .NET program.

Runs tests/dotnet's gcprog `throughput` workload (allocation-bound: 20 million
objects of 32..1056 bytes, one in 16 kept a while) in separate processes:
with no session, under `gcscope record --dotnet --profile gc` and under
`--profile alloc`, alternating the three ROUNDS times (default 7), and
prints the median of each and the ratios to no session (target for gc:
<= 1.03). The times are the program's own around the workload (wall: a
Stopwatch; CPU: every thread of the process, the runtime's EventPipe threads
included, which a loaded machine disturbs less), so process start and session
set-up are not counted.
Environment: GCSCOPE, GCPROG (defaults: the build's). Exit 77 without dotnet.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

GCSCOPE = os.environ.get("GCSCOPE", "@GCSCOPE@")
GCPROG = os.environ.get("GCPROG", "@GCPROG@")
BUILD = "@GCPROG_BUILD@"


def run(cmd):
    """The program's own wall and CPU time (ms) and its GC count."""
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    m = re.search(r"ELAPSED_MS (\S+) CPU_MS (\S+)", out)
    return float(m.group(1)), float(m.group(2)), int(re.search(r"COUNTS gen0=(\d+)", out).group(1))


def main():
    if shutil.which("dotnet") is None:
        print("dotnet-overhead: skipped: dotnet is not installed")
        return 77
    if not os.path.exists(GCPROG):
        subprocess.run(BUILD.split(";"), check=True)
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    work = tempfile.mkdtemp(prefix="gcscope-dotnet-overhead-")
    prog = ["dotnet", GCPROG, "throughput"]
    modes = {
        "none": lambda k: prog,
        "gc": lambda k: [GCSCOPE, "record", "--dotnet", "--profile", "gc", "-o", "%s/gc%d" % (work, k), "--"] + prog,
        "alloc": lambda k: [GCSCOPE, "record", "--dotnet", "--profile", "alloc", "-o", "%s/alloc%d" % (work, k),
                            "--"] + prog,
    }
    wall = {m: [] for m in modes}
    cpu = {m: [] for m in modes}
    gcs = []
    try:
        for k in range(rounds):
            for m, cmd in modes.items():
                w, c, n = run(cmd(k))
                wall[m].append(w)
                cpu[m].append(c)
                gcs.append(n)
    finally:
        shutil.rmtree(work)
    ngc = statistics.median(gcs)
    base_wall = statistics.median(wall["none"])
    print("dotnet-overhead: %d rounds; %d GCs a run (%.0f GCs/s); medians of the program's own times"
          % (rounds, ngc, ngc / base_wall * 1000))
    for name, t in (("wall", wall), ("CPU", cpu)):
        base = statistics.median(t["none"])
        for m in modes:
            med = statistics.median(t[m])
            print("  %-4s %-6s %8.1f ms  ratio %.3f  %+7.1f us per GC   (%s)"
                  % (name, m, med, med / base, (med - base) * 1000 / ngc, " ".join("%.0f" % x for x in t[m])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
