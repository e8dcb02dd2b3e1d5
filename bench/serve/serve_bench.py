#!/usr/bin/env python3
"""serve-bench [ROUNDS] [WINDOW_S] — what `gcscope serve` costs, per monitored
process and per 100 GCs/s.

Each configuration is a separate `gcscope serve` (its own TMPDIR, so it sees
only this benchmark's .NET processes), run for WINDOW_S seconds (default 8)
after every program is attached, the configurations alternating ROUNDS times
(default 5):

  none    serve watching no process (the baseline)
  idle4   four gcprog processes that sleep (no GC): the cost of a session
  gc100   one gcprog allocating with a 1 MB gen0 budget (~110 GCs/s here)
  gc400   the same with 256 KB (~400 GCs/s)

Measured on serve alone (/proc/PID/task/*/schedstat: every thread's time on
a CPU over the window, in ns; /proc/PID/status: VmRSS at its end, VmHWM), and the GCs it
counted in the window (dotnet_gc_collections_total from its /metrics). Prints
the median (and spread) of each, then: RSS and CPU per monitored process
((idle4 - none) / 4), CPU per 100 GCs/s ((gcN - none) / (GCs/s / 100)), in ms
of CPU per second (0.1 % of one core per ms/s). The programs wait for a file
before they run, so their start-up is outside the window.
Environment: GCSCOPE, GCPROG (defaults: the build's). Exit 77 without dotnet.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

GCSCOPE = os.environ.get("GCSCOPE", "@GCSCOPE@")
GCPROG = os.environ.get("GCPROG", "@GCPROG@")
BUILD = "@GCPROG_BUILD@"

CONFIGS = {
    "none": [],
    "idle4": [("sleep", "0x100000")] * 4,
    "gc100": [("idle", "0x100000")],
    "gc400": [("idle", "0x40000")],
}


def cpu_ms(pid):
    """CPU time of every thread of pid (ms, from each thread's schedstat: ns resolution)."""
    total = 0
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total / 1e6


def status_kb(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def gcs_counted(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
        text = r.read().decode()
    return sum(float(m) for m in re.findall(r"^dotnet_gc_collections_total\{.*\} (\S+)$", text, re.M))


def wait_for(pred, timeout):
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    raise SystemExit("serve-bench: timed out")


def one(name, window):
    tmp = tempfile.mkdtemp(prefix="gcscope-serve-bench.")
    env = dict(os.environ, TMPDIR=tmp, DOTNET_CLI_TELEMETRY_OPTOUT="1")
    log = open(tmp + "/serve.log", "w+")
    serve = subprocess.Popen([GCSCOPE, "serve", "--listen", "127.0.0.1:0"], stdout=subprocess.DEVNULL, stderr=log,
                             env=env)
    progs = []
    try:
        port = int(wait_for(lambda: re.search(r":(\d+)/metrics", open(log.name).read()), 20).group(1))
        go = tmp + "/go"
        for scenario, gen0 in CONFIGS[name]:
            arg = [scenario, str(window + 30)]
            progs.append(subprocess.Popen(["dotnet", GCPROG, "wait", go] + arg, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, env=dict(env, DOTNET_GCgen0size=gen0)))
        for p in progs:
            wait_for(lambda: ("attached to pid %d " % p.pid) in open(log.name).read(), 60)
        time.sleep(0.5)
        c0, g0, t0 = cpu_ms(serve.pid), gcs_counted(port), time.time()
        open(go, "w").close()
        time.sleep(window)
        c1, g1, t1 = cpu_ms(serve.pid), gcs_counted(port), time.time()
        rss, hwm = status_kb(serve.pid, "VmRSS"), status_kb(serve.pid, "VmHWM")
        return {"cpu": (c1 - c0) / (t1 - t0), "rate": (g1 - g0) / (t1 - t0), "rss": rss, "hwm": hwm}
    finally:
        for p in progs:
            p.kill()
            p.wait()
        serve.terminate()
        serve.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def med(xs):
    return statistics.median(xs), min(xs), max(xs)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    window = float(sys.argv[2]) if len(sys.argv) > 2 else 8
    if shutil.which("dotnet") is None:
        print("serve-bench: SKIPPED: dotnet is not installed")
        sys.exit(77)
    if not os.path.exists(GCPROG):
        build = BUILD.split(";")
        subprocess.run([build[0], build[1], build[2]], check=True, stdout=subprocess.DEVNULL)
    res = {n: [] for n in CONFIGS}
    names = list(CONFIGS)
    print("serve-bench: %d rounds of %g s windows, load %s" % (rounds, window, open("/proc/loadavg").read().split()[:3]))
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            res[n].append(one(n, window))
    print("%-6s %22s %18s %18s %12s" % ("config", "CPU ms/s med (range)", "GCs/s", "RSS KB", "peak RSS KB"))
    for n in names:
        cpu, rate, rss = med([x["cpu"] for x in res[n]]), med([x["rate"] for x in res[n]]), med([x["rss"] for x in res[n]])
        hwm = max(x["hwm"] for x in res[n])
        print("%-6s %7.2f (%5.2f-%5.2f) %8.1f (%.0f-%.0f) %8d (%d-%d) %12d" % (n, cpu[0], cpu[1], cpu[2], rate[0], rate[1],
                                                                         rate[2], rss[0], rss[1], rss[2], hwm))
    base_cpu = med([x["cpu"] for x in res["none"]])[0]
    base_rss = med([x["rss"] for x in res["none"]])[0]
    idle = res["idle4"]
    print("per monitored process (idle4 - none) / 4: RSS %.0f KB, CPU %.3f ms/s" %
          ((med([x["rss"] for x in idle])[0] - base_rss) / 4, (med([x["cpu"] for x in idle])[0] - base_cpu) / 4))
    for n in ("gc100", "gc400"):
        per = [(x["cpu"] - base_cpu) / (x["rate"] / 100) for x in res[n] if x["rate"] > 0]
        m = med(per)
        print("%s: CPU per 100 GCs/s %.2f ms/s (%.2f-%.2f), i.e. %.2f %% of one core; RSS %+.0f KB vs none" %
              (n, m[0], m[1], m[2], m[0] / 10, med([x["rss"] for x in res[n]])[0] - base_rss))


if __name__ == "__main__":
    main()
