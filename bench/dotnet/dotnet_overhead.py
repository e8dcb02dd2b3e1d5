#!/usr/bin/env python3
"""dotnet-overhead [ROUNDS] — what an EventPipe session costs a .NET program.

Runs tests/dotnet's gcprog `throughput` workload (allocation-bound: 20 million
objects of 32..1056 bytes, one in 16 kept a while) in separate processes:
with no session, under `gcscope record --dotnet --profile gc` and under
`--profile alloc`, and `--profile alloc --stacks`, alternating them ROUNDS
times (default 7, each round in a rotated order), and prints the median of each and the ratios to no
session (targets: gc <= 1.03, alloc with stacks <= 1.10). Then it imports
the last round's alloc and alloc+stacks traces, alternating, and prints the
import time and database size ratios (stacks: docs/stacks.md). The times are the program's own around the workload (wall: a
Stopwatch; CPU: every thread of the process, the runtime's EventPipe threads
included, which a loaded machine disturbs less), so process start and session
set-up are not counted. It also prints, per configuration, the CPU time and
context switches (voluntary + involuntary) of the whole process tree from
wait4(): gcscope and the program, start-up included, so the reader's own
cost shows (the "tree" lines), gcscope's own CPU time and context switches
(read from /proc between its exit and its reaping: the "own" lines), and the
load average before and after.
Environment: GCSCOPE, GCPROG (defaults: the build's); DOTNET_TRACE=a
dotnet-trace binary adds `dotnet-trace collect` with the alloc profile's
providers (its defaults add stacks and the rundown); GCSCOPE_BASE=another
gcscope binary adds its gc and alloc runs (gc@base, alloc@base) to the same
alternation, for a before/after comparison. Exit 77 without dotnet.
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
    """The program's own wall and CPU time (ms), its GC count, and the process tree's CPU (ms) and
    context switches (wait4: the command and every descendant it waited for)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    p.stdout.close()
    # Exited but not reaped: /proc still has its own CPU time and context switches (gcscope's alone).
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    with open("/proc/%d/stat" % p.pid) as f:
        st = f.read().rsplit(")", 1)[1].split()
    own_cpu = (int(st[11]) + int(st[12])) * 1000 / os.sysconf("SC_CLK_TCK")
    with open("/proc/%d/status" % p.pid) as f:
        own_sw = sum(int(l.split()[1]) for l in f
                     if l.split(":")[0] in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"))
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit("dotnet-overhead: %s exited %d" % (" ".join(cmd), p.returncode))
    m = re.search(r"ELAPSED_MS (\S+) CPU_MS (\S+)", out)
    return (float(m.group(1)), float(m.group(2)), int(re.search(r"COUNTS gen0=(\d+)", out).group(1)),
            (ru.ru_utime + ru.ru_stime) * 1000, ru.ru_nvcsw + ru.ru_nivcsw, own_cpu, own_sw)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    if shutil.which("dotnet") is None:
        print("dotnet-overhead: skipped: dotnet is not installed")
        return 77
    if not os.path.exists(GCPROG):
        subprocess.run(BUILD.split(";"), check=True)
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    work = tempfile.mkdtemp(prefix="gcscope-dotnet-overhead-")
    prog = ["dotnet", GCPROG, "throughput"]
    def rec(exe, profile, extra=()):
        name = profile + "".join(extra).replace("--", "+")
        return lambda k: [exe, "record", "--dotnet", "--profile", profile, "-o", "%s/%s%d" % (work, name, k)] + \
            list(extra) + ["--"] + prog
    base = os.environ.get("GCSCOPE_BASE")
    modes = {"none": lambda k: prog}
    for profile in ("gc", "alloc"):
        if base:
            modes[profile + "@base"] = rec(base, profile)
        modes[profile] = rec(GCSCOPE, profile)
    modes["alloc+stacks"] = rec(GCSCOPE, "alloc", ("--stacks",))   # docs/stacks.md: target <= 1.10
    dotnet_trace = os.environ.get("DOTNET_TRACE")   # dotnet-trace with alloc's providers (stacks, rundown: its defaults)
    if dotnet_trace:
        modes["dotnet-trace"] = lambda k: [dotnet_trace, "collect", "--show-child-io", "--providers",
                                           "Microsoft-Windows-DotNETRuntime:0x1:5,"
                                           "Microsoft-Windows-DotNETRuntimePrivate:0x1:4",
                                           "-o", "%s/dotnet-trace%d.nettrace" % (work, k), "--"] + prog
    wall = {m: [] for m in modes}
    cpu = {m: [] for m in modes}
    tree = {m: [] for m in modes}
    csw = {m: [] for m in modes}
    own = {m: [] for m in modes}
    own_sw = {m: [] for m in modes}
    gcs = []
    load0 = loadavg()
    try:
        names = list(modes)
        for k in range(rounds):
            # rotated each round (ABCDE, BCDEA, ...): no configuration always runs first or after the same one
            for m in names[k % len(names):] + names[:k % len(names)]:
                w, c, n, t, x, oc, ox = run(modes[m](k))
                own[m].append(oc)
                own_sw[m].append(ox)
                wall[m].append(w)
                cpu[m].append(c)
                tree[m].append(t)
                csw[m].append(x)
                gcs.append(n)
                if k < rounds - 1 or m not in ("alloc", "alloc+stacks"):
                    shutil.rmtree("%s/%s%d" % (work, m.split("@")[0], k), ignore_errors=True)
        imports = import_cost(work, rounds - 1)
    finally:
        shutil.rmtree(work)
    ngc = statistics.median(gcs)
    base_wall = statistics.median(wall["none"])
    print("dotnet-overhead: %d rounds; %d GCs a run (%.0f GCs/s); medians of the program's own times"
          % (rounds, ngc, ngc / base_wall * 1000))
    print("  load average before: %s, after: %s" % (load0, loadavg()))
    for name, t in (("wall", wall), ("CPU", cpu)):
        base = statistics.median(t["none"])
        for m in modes:
            med = statistics.median(t[m])
            print("  %-4s %-11s %8.1f ms  ratio %.3f  %+7.1f us per GC   (%s)"
                  % (name, m, med, med / base, (med - base) * 1000 / ngc, " ".join("%.0f" % x for x in t[m])))
    print("  tree: CPU and context switches of gcscope + the program, start-up included (wait4)")
    for m in modes:
        print("  tree %-11s CPU %7.0f ms (%+6.0f)  switches %7.0f (%+6.0f)   (CPU %s; switches %s)"
              % (m, statistics.median(tree[m]), statistics.median(tree[m]) - statistics.median(tree["none"]),
                 statistics.median(csw[m]), statistics.median(csw[m]) - statistics.median(csw["none"]),
                 " ".join("%.0f" % x for x in tree[m]), " ".join("%d" % x for x in csw[m])))
    print("  own: gcscope's own CPU and context switches (voluntary + involuntary), whole run; none: the program's")
    for m in modes:
        print("  own  %-11s CPU %7.1f ms  switches %6.0f   (CPU %s; switches %s)"
              % (m, statistics.median(own[m]), statistics.median(own_sw[m]), " ".join("%.0f" % x for x in own[m]),
                 " ".join("%d" % x for x in own_sw[m])))
    if imports:
        print("  import of the last round's alloc traces, %d alternating runs each (median ms; database bytes):"
              % len(imports["alloc"][0]))
        a, b = statistics.median(imports["alloc"][0]), statistics.median(imports["alloc+stacks"][0])
        print("  import alloc         %8.1f ms  %9d bytes   (%s)" % (a, imports["alloc"][1],
                                                                      " ".join("%.0f" % x for x in imports["alloc"][0])))
        print("  import alloc+stacks  %8.1f ms  %9d bytes   (%s)  time ratio %.3f, size ratio %.3f"
              % (b, imports["alloc+stacks"][1], " ".join("%.0f" % x for x in imports["alloc+stacks"][0]), b / a,
                 imports["alloc+stacks"][1] / imports["alloc"][1]))
    return 0


def import_cost(work, k, runs=5):
    """`gcscope import` of round k's alloc and alloc+stacks traces, alternating: wall ms and the database size."""
    import time
    out = {}
    for r in range(runs):
        for m in ("alloc", "alloc+stacks"):
            trace = "%s/%s%d/trace.nettrace" % (work, m, k)
            db = "%s/%s.db" % (work, m)
            if not os.path.exists(trace):
                return None
            if os.path.exists(db):
                os.remove(db)
            t0 = time.monotonic()
            subprocess.run([GCSCOPE, "import", "-q", "-d", db, trace], check=True, stdout=subprocess.DEVNULL)
            out.setdefault(m, [[], 0])[0].append((time.monotonic() - t0) * 1000)
            out[m][1] = os.path.getsize(db)
    return out


if __name__ == "__main__":
    sys.exit(main())
