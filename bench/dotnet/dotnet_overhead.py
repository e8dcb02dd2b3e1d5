#!/usr/bin/env python3
"""dotnet-overhead [ROUNDS] [REQUEST_ROUNDS] — what an EventPipe session costs a .NET program.

Part 1, GC-bound: tests/dotnet's gcprog `throughput` workload (allocation-
bound: 8 million objects of 32..1056 bytes untimed, so the JIT's tiers, OSR
and the GC's budgets settle, then 40 million timed, one in 16 kept a while:
570 gen1 GCs, or 1,365 with background GCs) in separate processes: with
no session, under `gcscope record --dotnet --profile gc`, `--profile alloc`
and `--profile alloc --stacks`, alternating them ROUNDS times (default 11, each round in a rotated order).
The times are the program's own around the timed part (wall: a Stopwatch;
CPU: every thread of the process, the runtime's EventPipe threads included,
which a loaded machine disturbs less), so process start, JIT warm-up,
session set-up and the rundown at the end are not counted. Prints per
configuration the median and its ratio to no session, the median of each
round's own ratio (a load that drifts between rounds cancels), the minimum
and the ratio of the minimums (the least disturbed runs), the spread
(min-max, and the runs themselves); targets (targets: gc <= 1.03, alloc <= 1.06, alloc with stacks
<= 1.10, never worse than dotnet-trace). Per configuration also: the CPU
time and context switches of the whole process tree from wait4() (gcscope
and the program, start-up included: the "tree" lines), gcscope's own CPU
time and context switches (read from /proc between its exit and its
reaping: the "own" lines), and the load average before and after. Then it
imports the last round's alloc and alloc+stacks traces, alternating, and
prints the import time and database size ratios (docs/stacks.md).

Part 2, requests: tests/dotnet's webapp (ASP.NET Core, Kestrel on
127.0.0.1) driven by tests/dotnet/loadgen.py: 1,000 GETs of /alloc/1
untimed (warm-up), then 8,000 timed, one at a time over a keep-alive
connection (64 KB allocated per request, so the request events are a large
share of what is traced; at concurrency 4 the service's CPU per request
depended on how many requests each wake-up found queued, i.e. on the
machine's load), with no session, under `record --dotnet` (the gc
profile) and under `record --dotnet --requests aspnet`, alternating
REQUEST_ROUNDS times (default 7; 0 skips the part). Prints the service's CPU
time over the timed requests (/proc/PID/stat of the service, before and
after: its every thread) and loadgen's wall time (the client shares the 2
cores, so the wall time is the noisier one), medians, spread, ratios.

Every configuration gets the same runtime settings (tiered compilation,
PGO and ReadyToRun on, workstation GC, blocking: DOTNET_gcConcurrent=0, or
the default background GCs with OVERHEAD_GC=concurrent; a DOTNET_ variable
of the caller is dropped) and runs, program and recorder, on one CPU
(OVERHEAD_CPU=N, default the last one allowed; "all": no pinning; loadgen is
not pinned). Both make the untraced runs agree on a loaded machine: with
background GCs and every CPU, a run's work depends on how its threads are
scheduled (the runtime spins while another thread holds a lock).
Environment: GCSCOPE, GCPROG, WEBAPP (defaults: the build's); DOTNET_TRACE=a
dotnet-trace binary adds `dotnet-trace collect --profile gc-collect`
(dt-gc: the gc profile's providers, plus its default stacks) and
`dotnet-trace collect` with the alloc profile's providers (dt-alloc: its
defaults add stacks and the rundown, as alloc+stacks) to part 1, and
gc-collect with the aspnet request providers (dt-requests) to part 2;
GCSCOPE_BASE=another gcscope binary adds its gc and alloc runs (gc@base,
alloc@base) to part 1's alternation, for a before/after comparison.
Exit 77 without dotnet.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

GCSCOPE = os.environ.get("GCSCOPE", "@GCSCOPE@")
GCPROG = os.environ.get("GCPROG", "@GCPROG@")
BUILD = "@GCPROG_BUILD@"
WEBAPP = os.environ.get("WEBAPP", "@WEBAPP@")
WEBAPP_BUILD = "@WEBAPP_BUILD@"
LOADGEN = "@LOADGEN@"
TIMED, WARM = 40000000, 8000000          # gcprog throughput: objects timed, objects before the timer
REQ_WARM, REQ_TIMED, REQ_CONC = 1000, 8000, 1
# The same runtime settings in every configuration (DOTNET_ variables of the caller are dropped): the
# defaults, except blocking (non-concurrent) workstation GC unless OVERHEAD_GC=concurrent. With background
# GCs the work of a run depends on how its threads are scheduled (the BGC thread and the allocating one,
# which presumably spin on each other's locks; at load 6 the untraced CPU time spread 0.75-1.42 of the median, blocking
# GCs on one CPU 0.93-1.05).
RUNTIME_ENV = {"DOTNET_TieredCompilation": "1", "DOTNET_TieredPGO": "1", "DOTNET_ReadyToRun": "1",
               "DOTNET_gcServer": "0",
               "DOTNET_gcConcurrent": "1" if os.environ.get("OVERHEAD_GC") == "concurrent" else "0"}
# Every configuration's program and recorder run on one CPU (OVERHEAD_CPU=N; default the last one this
# process may use; "all": no pinning): the runtime then sees one processor and does not spin while
# another thread holds a lock, which on a loaded machine is what makes CPU time vary most.
_cpus = sorted(os.sched_getaffinity(0))
_pin = os.environ.get("OVERHEAD_CPU", str(_cpus[-1]))
PIN = None if _pin == "all" else {int(_pin)}


def pin():
    if PIN:
        os.sched_setaffinity(0, PIN)


# dotnet-trace's gc-collect and alloc-equivalent providers; the aspnet request providers (record --requests aspnet).
DT_ALLOC = "Microsoft-Windows-DotNETRuntime:0x1:5,Microsoft-Windows-DotNETRuntimePrivate:0x1:4"
DT_REQUESTS = ("Microsoft.AspNetCore.Hosting:0xFFFFFFFFFFFFFFFF:4,"
               "System.Threading.Tasks.TplEventSource:0x80:4")


def bench_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOTNET_", "COMPlus_"))
           or k in ("DOTNET_ROOT", "DOTNET_CLI_TELEMETRY_OPTOUT", "DOTNET_NOLOGO")}
    env.update(RUNTIME_ENV)
    return env


def run(cmd):
    """The program's own wall and CPU time (ms), its GC count, and the process tree's CPU (ms) and
    context switches (wait4: the command and every descendant it waited for)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=bench_env(),
                         preexec_fn=pin)
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
    m = re.search(r"ELAPSED_MS (\S+) CPU_MS (\S+) GCS (\d+)", out)
    if not m:
        raise SystemExit("dotnet-overhead: %s printed no ELAPSED_MS line (its output began: %r)"
                         % (" ".join(cmd), out[:200]))
    return (float(m.group(1)), float(m.group(2)), int(m.group(3)),
            (ru.ru_utime + ru.ru_stime) * 1000, ru.ru_nvcsw + ru.ru_nivcsw, own_cpu, own_sw)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def spread(v):
    """median, then min-max as fractions of it"""
    med = statistics.median(v)
    return "%.2f-%.2f" % (min(v) / med, max(v) / med)


def table(t, n, per):
    """One line per configuration for CPU then wall: the median and its ratio to no session, the cost per
    unit (GC or request), the median of the rounds' own ratios (each run against the untraced run of its
    round: a load that drifts between rounds cancels), the minimum and the ratio of the minimums (the
    least disturbed runs), min-max as fractions of the median, and every run."""
    print("  %-4s %-12s %9s %7s %10s %7s %9s %7s %9s   %s" % ("", "", "median ms", "ratio", "per " + per, "paired",
                                                            "min ms", "ratio", "min-max", "runs (ms)"))
    for name in ("CPU", "wall"):
        base, bmin = statistics.median(t[name]["none"]), min(t[name]["none"])
        for m in t[name]:
            v = t[name][m]
            med = statistics.median(v)
            paired = statistics.median(x / y for x, y in zip(v, t[name]["none"]))
            print("  %-4s %-12s %9.1f ratio %5.3f %+7.1f us %7.3f %9.1f %7.3f %9s   (%s)"
                  % (name, m, med, med / base, (med - base) * 1000 / n, paired, min(v), min(v) / bmin, spread(v),
                     " ".join("%.0f" % x for x in v)))


def rotate(names, k):
    # rotated each round (ABCDE, BCDEA, ...): no configuration always runs first or after the same one
    return names[k % len(names):] + names[:k % len(names)]


def part_gc(rounds, work):
    prog = ["dotnet", GCPROG, "throughput", str(TIMED), str(WARM)]

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
    dotnet_trace = os.environ.get("DOTNET_TRACE")
    if dotnet_trace:
        dt = [dotnet_trace, "collect", "--show-child-io"]
        modes["dt-gc"] = lambda k: dt + ["--profile", "gc-collect", "-o", "%s/dt-gc%d.nettrace" % (work, k),
                                         "--"] + prog
        modes["dt-alloc"] = lambda k: dt + ["--providers", DT_ALLOC, "-o", "%s/dt-alloc%d.nettrace" % (work, k),
                                            "--"] + prog
    keys = ("wall", "cpu", "tree", "csw", "own", "own_sw")
    r = {key: {m: [] for m in modes} for key in keys}
    gcs = []
    load0 = loadavg()
    names = list(modes)
    for k in range(rounds):
        for m in rotate(names, k):
            w, c, n, t, x, oc, ox = run(modes[m](k))
            for key, v in zip(keys, (w, c, t, x, oc, ox)):
                r[key][m].append(v)
            gcs.append(n)
            if k < rounds - 1 or m not in ("alloc", "alloc+stacks"):
                shutil.rmtree("%s/%s%d" % (work, m.split("@")[0], k), ignore_errors=True)
                for f in ("%s/%s%d.nettrace" % (work, m, k),):
                    if os.path.exists(f):
                        os.remove(f)
    imports = import_cost(work, rounds - 1)
    ngc = statistics.median(gcs)
    base_cpu = statistics.median(r["cpu"]["none"])
    print("dotnet-overhead, part 1: gcprog throughput, %d M objects timed after %d M untimed; %d rounds;"
          % (TIMED // 1000000, WARM // 1000000, rounds))
    print("  %d GCs timed a run (%.0f per CPU second untraced; every run %s); the program's own times"
          % (ngc, ngc / base_cpu * 1000, "the same" if min(gcs) == max(gcs) else "%d-%d" % (min(gcs), max(gcs))))
    print("  load average before: %s, after: %s" % (load0, loadavg()))
    table({"CPU": r["cpu"], "wall": r["wall"]}, ngc, "GC")
    print("  tree: CPU and context switches of the recorder + the program, start-up included (wait4)")
    for m in modes:
        tr, cs = r["tree"], r["csw"]
        print("  tree %-12s CPU %7.0f ms (%+6.0f)  switches %7.0f (%+6.0f)   (CPU %s)"
              % (m, statistics.median(tr[m]), statistics.median(tr[m]) - statistics.median(tr["none"]),
                 statistics.median(cs[m]), statistics.median(cs[m]) - statistics.median(cs["none"]),
                 " ".join("%.0f" % x for x in tr[m])))
    print("  own: the recorder's own CPU (every thread) and context switches (its main thread's: dotnet-trace"
          " reads on others), whole run; none: the program's")
    for m in modes:
        print("  own  %-12s CPU %7.1f ms  switches %6.0f   (CPU %s; switches %s)"
              % (m, statistics.median(r["own"][m]), statistics.median(r["own_sw"][m]),
                 " ".join("%.0f" % x for x in r["own"][m]), " ".join("%d" % x for x in r["own_sw"][m])))
    if imports:
        print("  import of the last round's alloc traces, %d alternating runs each (median ms; database bytes):"
              % len(imports["alloc"][0]))
        a, b = statistics.median(imports["alloc"][0]), statistics.median(imports["alloc+stacks"][0])
        print("  import alloc         %8.1f ms  %9d bytes   (%s)" % (a, imports["alloc"][1],
                                                                      " ".join("%.0f" % x for x in imports["alloc"][0])))
        print("  import alloc+stacks  %8.1f ms  %9d bytes   (%s)  time ratio %.3f, size ratio %.3f"
              % (b, imports["alloc+stacks"][1], " ".join("%.0f" % x for x in imports["alloc+stacks"][0]), b / a,
                 imports["alloc+stacks"][1] / imports["alloc"][1]))


def import_cost(work, k, runs=5):
    """`gcscope import` of round k's alloc and alloc+stacks traces, alternating: wall ms and the database size."""
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


def proc_cpu_ms(pid):
    with open("/proc/%d/stat" % pid) as f:
        st = f.read().rsplit(")", 1)[1].split()
    return (int(st[11]) + int(st[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def loadgen(port, n, path="/alloc/1", conc=REQ_CONC):
    r = subprocess.run([sys.executable, LOADGEN, str(port), str(n), str(conc), path], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("dotnet-overhead: loadgen failed: " + r.stdout + r.stderr)


def one_service(cmd, tmp):
    """Start the service under cmd, warm it up, time REQ_TIMED requests: (its CPU ms, loadgen's wall ms)."""
    ready = os.path.join(tmp, "ready")
    if os.path.exists(ready):
        os.unlink(ready)
    p = subprocess.Popen(cmd(ready), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=bench_env(),
                         preexec_fn=pin)
    try:
        end = time.time() + 60
        while not os.path.exists(ready):
            if p.poll() is not None:
                raise SystemExit("dotnet-overhead: the service exited before it listened")
            if time.time() > end:
                raise SystemExit("dotnet-overhead: the service did not listen within 60 s")
            time.sleep(0.05)
        port, pid = (int(x) for x in open(ready).read().split()[:2])
        loadgen(port, REQ_WARM)
        c0, t0 = proc_cpu_ms(pid), time.monotonic()
        loadgen(port, REQ_TIMED)
        wall, cpu = (time.monotonic() - t0) * 1000, proc_cpu_ms(pid) - c0
        loadgen(port, 1, "/quit", 1)
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return cpu, wall


def part_requests(rounds, tmp):
    app = lambda ready: ["dotnet", WEBAPP, ready]
    rec = os.path.join(tmp, "rec")
    modes = {"none": app,
             "gc": lambda ready: [GCSCOPE, "record", "--dotnet", "-o", rec, "--"] + app(ready),
             "gc+requests": lambda ready: [GCSCOPE, "record", "--dotnet", "-o", rec, "--requests", "aspnet",
                                           "--"] + app(ready)}
    dotnet_trace = os.environ.get("DOTNET_TRACE")
    if dotnet_trace:
        modes["dt-requests"] = lambda ready: [dotnet_trace, "collect", "--profile", "gc-collect", "--providers",
                                              DT_REQUESTS, "-o", rec + ".nettrace", "--"] + app(ready)
    cpu = {m: [] for m in modes}
    wall = {m: [] for m in modes}
    load0 = loadavg()
    names = list(modes)
    for k in range(rounds):
        for m in rotate(names, k):
            shutil.rmtree(rec, ignore_errors=True)
            c, w = one_service(modes[m], tmp)
            cpu[m].append(c)
            wall[m].append(w)
    print("dotnet-overhead, part 2: webapp, %d GETs of /alloc/1 timed after %d untimed, concurrency %d; %d rounds"
          % (REQ_TIMED, REQ_WARM, REQ_CONC, rounds))
    print("  load average before: %s, after: %s" % (load0, loadavg()))
    table({"CPU": cpu, "wall": wall}, REQ_TIMED, "req")
    print("  ratio requests/gc (the request events' own cost): CPU %.3f, wall %.3f; %.0f requests/s untraced"
          % (statistics.median(cpu["gc+requests"]) / statistics.median(cpu["gc"]),
             statistics.median(wall["gc+requests"]) / statistics.median(wall["gc"]),
             REQ_TIMED / statistics.median(wall["none"]) * 1000))


def main():
    if shutil.which("dotnet") is None:
        print("dotnet-overhead: skipped: dotnet is not installed")
        return 77
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 11
    req_rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    if not os.path.exists(GCPROG):
        subprocess.run(BUILD.split(";"), check=True)
    if req_rounds > 0 and not os.path.exists(WEBAPP):
        subprocess.run(WEBAPP_BUILD.split(";"), check=True)
    work = tempfile.mkdtemp(prefix="gcscope-dotnet-overhead-")
    try:
        print("every configuration: %s; program and recorder on %s"
              % (" ".join("%s=%s" % kv for kv in RUNTIME_ENV.items()),
                 "CPU %d" % next(iter(PIN)) if PIN else "every CPU"))
        if rounds > 0:
            part_gc(rounds, work)
        if req_rounds > 0:
            part_requests(req_rounds, work)
    finally:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
