#!/usr/bin/env python3
"""requests-overhead [ROUNDS] [REQUESTS] — what `record --requests aspnet`
costs an ASP.NET Core service.

Runs tests/dotnet's webapp (Kestrel on 127.0.0.1) in separate processes and
drives it with tests/dotnet/loadgen.py (REQUESTS, default 4000, GETs of
/alloc/1 — 64 KB allocated per request, so the request events are a large
share of what is traced — at concurrency 4 over keep-alive connections):
with no session, under `gcscope record --dotnet` (the gc profile) and under
`gcscope record --dotnet --requests aspnet`, alternating the three ROUNDS
times (default 5). The time is loadgen's wall time for all requests (the
client's own cost is the same in every configuration; start-up and session
set-up are not counted). Prints the median and spread (min-max) of each, the
requests per second, and the ratios: requests vs gc is the cost of the
request events (and of TplEventSource's activity ids) alone.
Environment: GCSCOPE, WEBAPP (defaults: the build's). Exit 77 without dotnet.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

GCSCOPE = os.environ.get("GCSCOPE", "@GCSCOPE@")
WEBAPP = os.environ.get("WEBAPP", "@WEBAPP@")
BUILD = "@WEBAPP_BUILD@"
LOADGEN = "@LOADGEN@"
CONC = 4


def wait_ready(ready, proc):
    end = time.time() + 60
    while time.time() < end:
        if os.path.exists(ready):
            return int(open(ready).read().split()[0])
        if proc.poll() is not None:
            raise SystemExit("requests-overhead: the service exited before it listened")
        time.sleep(0.05)
    raise SystemExit("requests-overhead: the service did not listen within 60 s")


def one(config, n, tmp):
    ready = os.path.join(tmp, "ready")
    if os.path.exists(ready):
        os.unlink(ready)
    app = ["dotnet", WEBAPP, ready]
    if config == "none":
        cmd = app
    else:
        shutil.rmtree(os.path.join(tmp, "rec"), ignore_errors=True)
        cmd = [GCSCOPE, "record", "--dotnet", "-o", os.path.join(tmp, "rec")]
        cmd += (["--requests", "aspnet"] if config == "requests" else []) + ["--"] + app
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port = wait_ready(ready, p)
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, LOADGEN, str(port), str(n), str(CONC), "/alloc/1"], capture_output=True,
                           text=True)
        wall = time.monotonic() - t0
        if r.returncode != 0:
            raise SystemExit("requests-overhead: loadgen failed: " + r.stdout + r.stderr)
        subprocess.run([sys.executable, LOADGEN, str(port), "1", "1", "/quit"], capture_output=True)
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return wall


def main():
    if shutil.which("dotnet") is None:
        print("SKIPPED: dotnet is not installed")
        return 77
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
    if not os.path.exists(WEBAPP):
        subprocess.run(BUILD.split(";"), check=True)
    configs = ["none", "gc", "requests"]
    times = {c: [] for c in configs}
    with tempfile.TemporaryDirectory(prefix="gcscope-reqbench-") as tmp:
        one("none", 200, tmp)   # warm the file cache
        for i in range(rounds):
            order = configs[i % 3:] + configs[:i % 3]
            for c in order:
                times[c].append(one(c, n, tmp))
    print("requests-overhead: %d rounds of %d requests at concurrency %d, /alloc/1 (load %s)"
          % (rounds, n, CONC, " ".join(open("/proc/loadavg").read().split()[:3])))
    med = {c: statistics.median(v) for c, v in times.items()}
    for c in configs:
        print("  %-9s median %7.3f s (min %7.3f, max %7.3f)  %8.0f requests/s"
              % (c, med[c], min(times[c]), max(times[c]), n / med[c]))
    print("  ratio gc/none %.3f   requests/none %.3f   requests/gc %.3f"
          % (med["gc"] / med["none"], med["requests"] / med["none"], med["requests"] / med["gc"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
