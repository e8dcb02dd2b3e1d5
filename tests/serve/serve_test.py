#!/usr/bin/env python3
"""serve_test.py CASE — `gcscope serve` with real .NET processes and a real Prometheus.

Cases:
  prometheus     two gcprog processes at once under one `gcscope serve`, scraped
                 every second by Prometheus (/usr/bin/prometheus, started here on
                 127.0.0.1 with its own storage directory); through Prometheus's
                 HTTP API, for each process:
                 - dotnet_gc_collections_total{gc_heap_generation="genG"} equals
                   the runtime's CollectionCount(G) - CollectionCount(G+1) (the
                   OpenTelemetry convention: a GC counts once, under the
                   generation it collected), printed by gcprog at exit;
                 - the sum over generations equals CollectionCount(0);
                 - gcscope_gc_pause_seconds_count (all series) equals CollectionCount(0);
                 - gcscope_gc_pause_seconds_sum equals, within 1 %, the total pause
                   `gcscope stats` reports from the stream serve received
                   (-o DIR --keep-stream: the same session's bytes, read back
                   through the file reader, import and SQL instead of serve's
                   live path). Not a second session: EventPipe timestamps each
                   session's copy of an event on its own, so a parallel
                   `gcscope record` measured pauses up to 9 % apart here;
                 - dotnet_gc_pause_time_seconds_total equals that sum.
  exit_reattach  serve watching every .NET process (a private TMPDIR, so only
                 this test's): a process runs and exits, its series stay for
                 --keep-exited seconds and then go; a second process started
                 later is attached within 5 s of its diagnostic socket appearing.
  bad_input      a dead pid, a non-.NET pid, a bad --listen, a port in
                 use: one line each, non-zero exit.
  listen         --listen that cannot bind: an address no interface has, a
                 port in use (IPv4, IPv6), port 80 as nobody: exit 1 and the
                 one line "cannot listen on ADDR:PORT: " + strerror of bind's
                 errno (EADDRNOTAVAIL, EADDRINUSE, EACCES); no dotnet needed.
  outdir_again   serve -o DIR --keep-stream started twice on one live process: the
                 first DIR/pid-PID stays byte for byte, the second writes DIR/pid-PID-2.
  hostile        fake diagnostic sockets (one answers garbage, one never answers), a scraper that
                 disconnects mid-request, a slow scraper, a huge request: serve
                 keeps serving /metrics and the real process's figures.

Environment: GCSCOPE, GCPROG (gcprog.dll, built by the dotnet.build fixture),
WORK. Skipped (77) without dotnet or prometheus. Every process started here
is stopped by its PID.
"""
import errno
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish  # noqa: E402

SKIP = 77
GCSCOPE = os.environ.get("GCSCOPE", "gcscope")
GCPROG = os.environ.get("GCPROG", "")
GCSIM = os.environ.get("GCSIM", "")
WORK = os.environ.get("WORK", "/tmp/gcscope-serve-test")
PROMETHEUS = "/usr/bin/prometheus"
started = []


def need_dotnet():
    if shutil.which("dotnet") is None:
        print("SKIPPED: dotnet is not installed")
        sys.exit(SKIP)
    if not GCPROG or not os.path.exists(GCPROG):
        print("SKIPPED: gcprog was not built (%s)" % GCPROG)
        sys.exit(SKIP)


def workdir(case):
    d = os.path.join(WORK, case)
    subprocess.run(["rm", "-rf", d])
    os.makedirs(d)
    os.makedirs(d + "/tmp")
    return d


def env_for(d, extra=None):
    e = dict(os.environ)
    e["TMPDIR"] = d + "/tmp"     # the runtime's diagnostic sockets, and serve's discovery
    e["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1"
    e.update(extra or {})
    return e


def spawn(args, **kw):
    p = subprocess.Popen(args, **kw)
    started.append(p)
    return p


def stop(p, sig=signal.SIGTERM, timeout=15):
    if p.poll() is None:
        os.kill(p.pid, sig)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.kill(p.pid, signal.SIGKILL)
            p.wait()


def stop_all():
    for p in reversed(started):
        stop(p)


def wait_for(pred, timeout, what):
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    raise SystemExit("timed out waiting for " + what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_prog(d, name, scenario, env_extra):
    """gcprog waiting for d/NAME.go before its scenario; returns (process, go path, output path)."""
    out = d + "/" + name + ".out"
    go = d + "/" + name + ".go"
    p = spawn(["dotnet", GCPROG, "wait", go] + scenario, stdout=open(out, "w"), stderr=subprocess.STDOUT,
              env=env_for(d, env_extra))
    wait_for(lambda: os.path.exists(out) and "PID " in open(out).read(), 60, name + " to start")
    return p, go, out


class Serve:
    def __init__(self, d, args, env=None):
        self.log = d + "/serve.log"
        self.p = spawn([GCSCOPE, "serve", "--listen", "127.0.0.1:0"] + args, stdout=subprocess.DEVNULL,
                       stderr=open(self.log, "w"), env=env or env_for(d))
        m = wait_for(lambda: re.search(r"listening on http://127\.0\.0\.1:(\d+)/metrics", self.text()), 20,
                     "serve to listen")
        self.port = int(m.group(1))

    def text(self):
        return open(self.log).read()

    def wait_line(self, pattern, timeout=30):
        return wait_for(lambda: re.search(pattern, self.text()), timeout, "serve to say /%s/" % pattern)

    def metrics(self, accept=None):
        req = urllib.request.Request("http://127.0.0.1:%d/metrics" % self.port)
        if accept:
            req.add_header("Accept", accept)
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.headers.get("Content-Type"), r.read().decode()


def samples(text, name, pid):
    """{labels-dict-as-tuple: value} of metric `name` for pid in an exposition."""
    out = {}
    for line in text.splitlines():
        m = re.match(r'^%s\{(.*)\} (\S+)$' % re.escape(name), line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(1)))
        if labels.get("pid") == str(pid):
            out[tuple(sorted(labels.items()))] = float(m.group(2))
    return out


def parse_counts(text):
    m = re.search(r"COUNTS gen0=(\d+) gen1=(\d+) gen2=(\d+)", text)
    return [int(x) for x in m.groups()] if m else None


# ---- Prometheus ---------------------------------------------------------------

class Prometheus:
    def __init__(self, d, target_port):
        self.port = free_port()
        cfg = d + "/prometheus.yml"
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
                    "scrape_configs:\n  - job_name: gcscope\n    static_configs:\n"
                    "      - targets: ['127.0.0.1:%d']\n" % target_port)
        self.p = spawn([PROMETHEUS, "--config.file=" + cfg, "--storage.tsdb.path=" + d + "/prom-data",
                        "--web.listen-address=127.0.0.1:%d" % self.port, "--log.level=warn"],
                       stdout=open(d + "/prometheus.log", "w"), stderr=subprocess.STDOUT)
        wait_for(self.ready, 60, "Prometheus to start")

    def ready(self):
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % self.port, timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def query(self, q):
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (self.port, urllib.parse.urlencode({"query": q}))
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.loads(r.read().decode())
        if body.get("status") != "success":
            raise SystemExit("query %s failed: %s" % (q, body))
        return body["data"]["result"]

    def scalar(self, q):
        r = self.query(q)
        return float(r[0]["value"][1]) if r else None


def stats_total_pause(trace, db, pid):
    out = subprocess.run([GCSCOPE, "stats", trace, "-d", db, "--pid", str(pid), "--format", "json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("gcscope stats failed: " + out.stderr)
    j = json.loads(out.stdout)
    procs = j["processes"] if isinstance(j, dict) and "processes" in j else j
    for p in procs:
        if int(p.get("pid", -1)) == pid:
            return float(p["summary"]["total_pause_msec"]), int(p["summary"]["gc_count"])
    raise SystemExit("gcscope stats has no process %d: %s" % (pid, out.stdout[:500]))


def case_prometheus():
    need_dotnet()
    if not os.path.exists(PROMETHEUS):
        print("SKIPPED: %s is not installed (Debian's prometheus package)" % PROMETHEUS)
        sys.exit(SKIP)
    d = workdir("prometheus")
    progs = []
    for name, scenario, env in (("a", ["alloc"], {"DOTNET_GCgen0size": "0x200000"}),
                                ("b", ["bgc"], {"DOTNET_GCgen0size": "0x400000"})):
        progs.append((name,) + start_prog(d, name, scenario, env))
    s = Serve(d, ["--keep-exited", "600", "-o", d + "/out", "--keep-stream"])
    for name, p, go, out in progs:
        s.wait_line(r"attached to pid %d " % p.pid)
    prom = Prometheus(d, s.port)
    wait_for(lambda: prom.scalar('up{job="gcscope"}') == 1, 30, "Prometheus to scrape serve")
    for name, p, go, out in progs:
        open(go, "w").close()
    for name, p, go, out in progs:
        p.wait(timeout=180)
    for name, p, go, out in progs:
        s.wait_line(r"pid %d exited" % p.pid)
    time.sleep(3)   # two more scrapes after the last event
    print(s.text())
    for name, p, go, out in progs:
        counts = parse_counts(open(out).read())
        check(counts is not None, "%s printed its COUNTS" % name)
        if counts is None:
            continue
        want = {0: counts[0] - counts[1], 1: counts[1] - counts[2], 2: counts[2]}
        sel = 'pid="%d"' % p.pid
        total = 0
        for g in range(3):
            got = prom.scalar('dotnet_gc_collections_total{%s,gc_heap_generation="gen%d"}' % (sel, g))
            check(got == want[g], "%s gen%d collections: Prometheus %s, runtime %d" % (name, g, got, want[g]))
            total += got or 0
        check(total == counts[0], "%s collections: Prometheus %s, runtime CollectionCount(0) %d" % (name, total,
                                                                                                 counts[0]))
        n = prom.scalar("sum(gcscope_gc_pause_seconds_count{%s})" % sel)
        check(n == counts[0], "%s pause histogram count: %s, runtime's GC count %d" % (name, n, counts[0]))
        inf = prom.scalar('sum(gcscope_gc_pause_seconds_bucket{%s,le="+Inf"})' % sel)
        check(inf == n, "%s: the +Inf bucket (%s) is the count (%s)" % (name, inf, n))
        psum = prom.scalar("sum(gcscope_gc_pause_seconds_sum{%s})" % sel)
        kept = "%s/out/pid-%d/trace.nettrace" % (d, p.pid)
        stats_ms, stats_n = stats_total_pause(kept, d + "/" + name + ".db", p.pid)
        print("%s: pause sum %.6f ms (serve), %.6f ms (gcscope stats of the kept stream, %d GCs)"
              % (name, (psum or 0) * 1e3, stats_ms, stats_n))
        check(psum is not None and abs(psum * 1e3 - stats_ms) <= 0.01 * stats_ms,
              "%s pause sum within 1 %% of gcscope stats' total pause" % name)
        check(stats_n == counts[0], "%s: the kept stream has the runtime's %d GCs (%d)" % (name, counts[0], stats_n))
        ptime = prom.scalar("dotnet_gc_pause_time_seconds_total{%s}" % sel)
        check(ptime is not None and psum is not None and abs(ptime - psum) < 1e-9,
              "%s dotnet_gc_pause_time_seconds_total (%s) is the histogram's sum" % (name, ptime))
        # committed memory after the last GC: the runtime's own TotalCommittedBytes (gcprog
        # prints it for the GCs it saw one at a time; a background GC reports only its start)
        gl = re.findall(r"^GC index=(\d+) .*concurrent=(\d) .*committed=(\d+)", open(out).read(), re.M)
        com = prom.scalar("dotnet_gc_last_collection_memory_committed_size_bytes{%s}" % sel)
        print("%s: committed gauge %s, gcprog's last GC line %s" % (name, com, gl[-1] if gl else None))
        if gl and int(gl[-1][0]) == counts[0] and gl[-1][1] == "0":
            check(com == int(gl[-1][2]), "%s committed after the last GC: serve %s, runtime %s"
                  % (name, com, gl[-1][2]))
        else:
            check(com is not None and com > 0, "%s committed gauge present: %s" % (name, com))
        labels = prom.query("dotnet_gc_collections_total{%s}" % sel)
        lab = labels[0]["metric"] if labels else {}
        check(lab.get("process_name") == "gcprog", "%s process_name label: %s" % (name, lab.get("process_name")))
        check(re.match(r"^\d+\.\d+\.\d+", lab.get("runtime_version", "")) is not None,
              "%s runtime_version label: %s" % (name, lab.get("runtime_version")))
        check(lab.get("gc_heap_count") == "1", "%s gc_heap_count label: %s" % (name, lab.get("gc_heap_count")))
    # gcprog's bgc scenario runs background GCs: their final pauses are those the kept stream has
    # (a GC announced as background but run blocking has none: docs/dotnet.md)
    b = progs[1][1].pid
    fin = prom.scalar('gcscope_gc_bgc_final_pause_seconds_count{pid="%d"}' % b)
    q = subprocess.run([GCSCOPE, "sql", d + "/b.db", "SELECT count(*) FROM gcs WHERE bgc_pause2_msec IS NOT NULL",
                        "--csv"], capture_output=True, text=True)
    want = int(q.stdout.strip().splitlines()[-1])
    print("bgc: %s final pauses (serve), %d (the kept stream)" % (fin, want))
    check(want >= 1 and fin == want, "BGC final pauses: serve %s, the kept stream %d" % (fin, want))
    # what Prometheus scraped: OpenMetrics (Prometheus asks for it first)
    ctype, _ = s.metrics(accept="application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
    check(ctype.startswith("application/openmetrics-text"), "OpenMetrics when asked: %s" % ctype)
    ctype, _ = s.metrics()
    check(ctype.startswith("text/plain; version=0.0.4"), "the text format otherwise: %s" % ctype)
    stop(s.p)
    check(s.p.returncode == 0, "serve exits 0 on SIGTERM")
    stop(prom.p)


def case_exit_reattach():
    need_dotnet()
    d = workdir("exit_reattach")
    s = Serve(d, ["--all-dotnet", "--keep-exited", "3"])
    a, go_a, out_a = start_prog(d, "a", ["alloc"], {"DOTNET_GCgen0size": "0x200000"})
    s.wait_line(r"attached to pid %d " % a.pid, timeout=10)
    open(go_a, "w").close()
    a.wait(timeout=120)
    s.wait_line(r"pid %d exited" % a.pid)
    counts = parse_counts(open(out_a).read())
    _, text = s.metrics()
    got = sum(samples(text, "dotnet_gc_collections_total", a.pid).values())
    check(counts is not None and got == counts[0], "exited process's figures kept: %s GCs, runtime %s" %
          (got, counts and counts[0]))
    check("gcscope_monitored_processes 0" in text, "no process attached after the exit")
    time.sleep(4.5)   # --keep-exited 3, scanned every second
    _, text = s.metrics()
    check(not samples(text, "dotnet_gc_collections_total", a.pid), "its series are gone after --keep-exited")
    # a new process (a runtime restart: another pid) is attached within 5 s of its socket appearing
    b, go_b, out_b = start_prog(d, "b", ["idle", "1"], {"DOTNET_GCgen0size": "0x200000"})
    sock_dir = d + "/tmp"
    t_sock = wait_for(lambda: [time.time() for f in os.listdir(sock_dir)
                               if f.startswith("dotnet-diagnostic-%d-" % b.pid)], 30, "b's socket")[0]
    s.wait_line(r"attached to pid %d " % b.pid, timeout=10)
    t_att = time.time()
    print("attached %.2f s after the socket was seen" % (t_att - t_sock))
    check(t_att - t_sock <= 5, "attached within 5 s of the socket (%.2f s)" % (t_att - t_sock))
    open(go_b, "w").close()
    b.wait(timeout=120)
    s.wait_line(r"pid %d exited" % b.pid)
    counts = parse_counts(open(out_b).read())
    _, text = s.metrics()
    got = sum(samples(text, "dotnet_gc_collections_total", b.pid).values())
    check(counts is not None and got == counts[0], "re-attached process: %s GCs, runtime %s" % (got, counts and counts[0]))
    stop(s.p)
    print(s.text())
    check(s.p.returncode == 0, "serve exits 0")


def run_serve(args, d, timeout=20):
    r = subprocess.run([GCSCOPE, "serve"] + args, capture_output=True, text=True, timeout=timeout, env=env_for(d))
    print("serve %s -> %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return r


def one_line(r, status, pattern, what):
    lines = r.stderr.strip().splitlines()
    check(r.returncode == status, "%s: exit status %d (got %d)" % (what, status, r.returncode))
    check(len(lines) == 1 and re.search(pattern, lines[0]) is not None and lines[0].startswith("gcscope serve: "),
          "%s: one line matching /%s/" % (what, pattern))


def case_bad_input():
    d = workdir("bad_input")
    dead = subprocess.Popen(["true"])
    dead.wait()
    one_line(run_serve(["--pid", str(dead.pid)], d), 1, r"no process with pid %d" % dead.pid, "dead pid")
    sl = spawn(["sleep", "60"])
    try:
        one_line(run_serve(["--pid", str(sl.pid)], d), 1, r"pid %d is not a \.NET process" % sl.pid, "non-.NET pid")
    finally:
        stop(sl)
    one_line(run_serve(["--listen", "localhost"], d), 2, r"--listen: expected ADDR:PORT", "bad --listen")
    one_line(run_serve(["--listen", "127.0.0.1:70000"], d), 2, r"--listen", "port out of range")
    one_line(run_serve(["-o", d + "/out"], d), 2, r"captures of --rules", "-o without --rules")
    check(not os.path.exists(d + "/out"), "-o without --rules writes nothing")
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        one_line(run_serve(["--listen", "127.0.0.1:%d" % busy.getsockname()[1]], d), 1, r"cannot listen",
                 "port in use")
    finally:
        busy.close()
    with open(d + "/bad.rules", "w") as f:
        f.write("x: pair=nonsense over=5\n")
    one_line(run_serve(["--rules", d + "/bad.rules"], d), 2, r"bad\.rules:1", "bad rules file")


def bind_errno(family, addr):
    """The errno of binding addr as this test's user (0: it binds)."""
    t = socket.socket(family)
    try:
        t.bind(addr)
        return 0
    except OSError as e:
        return e.errno
    finally:
        t.close()


def case_listen():
    """--listen's bind fails: one line with the system's own reason (strerror
    of bind's errno, as Python's os.strerror gives it), exit 1. The address is
    checked first to fail that way for this test too (the premise)."""
    d = workdir("listen")
    line = "gcscope serve: cannot listen on %s: %s"
    # an address no interface has: EADDRNOTAVAIL
    check(bind_errno(socket.AF_INET, ("1.2.3.4", 80)) == errno.EADDRNOTAVAIL, "premise: 1.2.3.4 is not local")
    r = run_serve(["--listen", "1.2.3.4:80"], d)
    check(r.returncode == 1 and r.stderr == line % ("1.2.3.4:80", os.strerror(errno.EADDRNOTAVAIL)) + "\n",
          "1.2.3.4:80: exit 1, one line: Cannot assign requested address")
    # a port another socket listens on: EADDRINUSE, IPv4 and IPv6
    for family, host, shown in ((socket.AF_INET, "127.0.0.1", "127.0.0.1"), (socket.AF_INET6, "::1", "[::1]")):
        busy = socket.socket(family)
        try:
            busy.bind((host, 0))
        except OSError as e:
            print("SKIPPED: port in use on %s: %s" % (host, e))
            busy.close()
            continue
        busy.listen(1)
        try:
            where = "%s:%d" % (shown, busy.getsockname()[1])
            r = run_serve(["--listen", where], d)
            check(r.returncode == 1 and r.stderr == line % (where, os.strerror(errno.EADDRINUSE)) + "\n",
                  "%s in use: exit 1, one line: Address already in use" % where)
        finally:
            busy.close()
    # a port below net.ipv4.ip_unprivileged_port_start, as nobody: EACCES
    with open("/proc/sys/net/ipv4/ip_unprivileged_port_start") as f:
        first = int(f.read())
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        print("SKIPPED: port 80 as nobody (needs root and setpriv)")
    elif first <= 80:
        print("SKIPPED: port 80 as nobody (ip_unprivileged_port_start is %d)" % first)
    else:
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", GCSCOPE, "serve",
                            "--listen", "127.0.0.1:80"], capture_output=True, text=True, timeout=20, env=env_for(d))
        print("serve --listen 127.0.0.1:80 as nobody -> %d: %s" % (r.returncode, r.stderr.strip()))
        check(r.returncode == 1 and r.stderr == line % ("127.0.0.1:80", os.strerror(errno.EACCES)) + "\n",
              "127.0.0.1:80 as nobody: exit 1, one line: Permission denied")


def case_hostile():
    need_dotnet()
    d = workdir("hostile")
    # processes that are not .NET but have a diagnostic socket: one answers garbage, one never answers
    fake_src = r"""
import os, socket, sys, time
d, mode = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX)
start = open("/proc/self/stat").read().rsplit(")", 1)[1].split()[19]   # the key: the start time, as the runtime's
s.bind(os.path.join(d, "dotnet-diagnostic-%d-%s-socket" % (os.getpid(), start)))
s.listen(8)
held = []
while True:
    c, _ = s.accept()
    if mode == "silent":
        held.append(c)
        continue
    try:
        c.recv(4096)
        c.sendall(b"\xff" * 64 + b"garbage")
    except OSError:
        pass
    c.close()
"""
    fake = spawn([sys.executable, "-c", fake_src, d + "/tmp", "garbage"])
    silent = spawn([sys.executable, "-c", fake_src, d + "/tmp", "silent"])
    for f in (fake, silent):
        wait_for(lambda: any(x.startswith("dotnet-diagnostic-%d-" % f.pid) for x in os.listdir(d + "/tmp")), 10,
                 "the fake sockets")
    a, go, out = start_prog(d, "a", ["alloc"], {"DOTNET_GCgen0size": "0x200000"})
    s = Serve(d, [])
    s.wait_line(r"pid %d: cannot attach" % fake.pid)
    # a silent peer holds its own watcher only: the real process is attached meanwhile
    s.wait_line(r"attached to pid %d " % a.pid, timeout=10)
    s.wait_line(r"pid %d: cannot attach" % silent.pid, timeout=20)
    # scrapers that misbehave: disconnect mid-request, never finish, send too much
    for payload in (b"GET /metr", b"GET /metrics HTTP/1.1\r\nHost: x\r\n", b"GET /" + b"a" * 100000):
        c = socket.create_connection(("127.0.0.1", s.port))
        try:
            c.sendall(payload)
        except OSError:
            pass
        c.close()
    slow = socket.create_connection(("127.0.0.1", s.port))
    slow.sendall(b"GET /metrics HTTP/1.1\r\n")
    open(go, "w").close()
    a.wait(timeout=120)
    s.wait_line(r"pid %d exited" % a.pid)
    counts = parse_counts(open(out).read())
    ctype, text = s.metrics()
    got = sum(samples(text, "dotnet_gc_collections_total", a.pid).values())
    check(counts is not None and got == counts[0], "figures intact next to a hostile peer: %s GCs, runtime %s" %
          (got, counts and counts[0]))
    check(not samples(text, "dotnet_gc_collections_total", fake.pid), "no series for the fake process")
    check(not samples(text, "dotnet_gc_collections_total", silent.pid), "no series for the silent one")
    req = urllib.request.Request("http://127.0.0.1:%d/metrics" % s.port, method="POST", data=b"x" * 1000)
    try:
        urllib.request.urlopen(req, timeout=5)
        check(False, "POST is refused")
    except urllib.error.HTTPError as e:
        check(e.code == 405, "POST: 405 (got %d)" % e.code)
    try:
        urllib.request.urlopen("http://127.0.0.1:%d/nope" % s.port, timeout=5)
        check(False, "unknown path is 404")
    except urllib.error.HTTPError as e:
        check(e.code == 404, "unknown path: 404 (got %d)" % e.code)
    slow.close()
    stop(s.p)
    print(s.text())
    check(s.p.returncode == 0, "serve exits 0")
    check("Sanitizer" not in s.text() and "runtime error" not in s.text(), "no sanitizer report")


def case_rules():
    """--rules on a live process: log rules that fire on every gen0 and every
    gen1 GC (gc-over over=0; gcprog's alloc scenario runs only blocking GCs)
    count the runtime's CollectionCount(0) - CollectionCount(1) and
    CollectionCount(1) - CollectionCount(2) firings; a capture rule on gen2
    GCs with max=1 fires once and writes one capture under -o that imports;
    firings.tsv has a line per firing."""
    need_dotnet()
    d = workdir("rules")
    with open(d + "/r.rules", "w") as f:
        f.write("g0: pair=gc-over gen=0 over=0 action=log\n")
        f.write("g1: pair=gc-over gen=1 over=0 action=log\n")
        f.write("g2: pair=gc-over gen=2 over=0 max=1\n")
    a, go, out = start_prog(d, "a", ["alloc"], {"DOTNET_GCgen0size": "0x200000"})
    s = Serve(d, ["--pid", str(a.pid), "--rules", d + "/r.rules", "-o", d + "/out", "--delay-after-trigger", "0.5"])
    s.wait_line(r"attached to pid %d " % a.pid)
    open(go, "w").close()
    a.wait(timeout=120)
    s.wait_line(r"pid %d exited" % a.pid)
    counts = parse_counts(open(out).read())
    check(counts is not None and counts[2] >= 1, "the program ran gen2 GCs: %s" % counts)
    if counts is None:
        return
    _, text = s.metrics()
    fired = samples(text, "gcscope_trigger_firings_total", a.pid)
    got = {r: [v for k, v in fired.items() if ("rule", r) in k] for r in ("g0", "g1", "g2")}
    print("firings %s; runtime %s" % (got, counts))
    check(got["g0"] == [counts[0] - counts[1]], "g0 fired once per gen0 GC (%s)" % got["g0"])
    check(got["g1"] == [counts[1] - counts[2]], "g1 fired once per gen1 GC (%s)" % got["g1"])
    check(got["g2"] == [1], "g2 fired once (max=1): %s" % got["g2"])
    cap = "%s/out/pid-%d/capture-1.nettrace" % (d, a.pid)
    check(os.path.exists(cap), "the capture is written: " + cap)
    check(not os.path.exists("%s/out/pid-%d/capture-2.nettrace" % (d, a.pid)), "max=1: one capture")
    imp = subprocess.run([GCSCOPE, "import", "-d", d + "/c.db", cap], capture_output=True, text=True)
    print(imp.stdout + imp.stderr)
    check(imp.returncode == 0, "the capture imports")
    tsv = open("%s/out/pid-%d/firings.tsv" % (d, a.pid)).read()
    check(tsv.count("\tcaptured\n") == 1 and tsv.count("\tlogged\n") == counts[0] - counts[2],
          "firings.tsv: one capture, %d logged" % (counts[0] - counts[2]))
    stop(s.p)
    check(s.p.returncode == 0, "serve exits 0")


def tree_bytes(top):
    """{relative path: bytes} of every file under top."""
    out = {}
    for root, dirs, files in os.walk(top):
        for f in files:
            p = os.path.join(root, f)
            out[os.path.relpath(p, top)] = open(p, "rb").read()
    return out


def case_outdir_again():
    """-o DIR --keep-stream, serve started twice on the same live process:
    the first serve's DIR/pid-PID stays byte for byte, the second writes
    DIR/pid-PID-2, whose trace.nettrace holds the process's GCs (stats'
    count is the runtime's CollectionCount(0))."""
    need_dotnet()
    d = workdir("outdir_again")
    a, go, out = start_prog(d, "a", ["alloc"], {"DOTNET_GCgen0size": "0x200000"})
    first, second = "%s/out/pid-%d" % (d, a.pid), "%s/out/pid-%d-2" % (d, a.pid)
    args = ["--pid", str(a.pid), "-o", d + "/out", "--keep-stream"]
    s = Serve(d, args)
    s.wait_line(r"attached to pid %d " % a.pid)
    wait_for(lambda: os.path.exists(first + "/trace.nettrace") and os.path.getsize(first + "/trace.nettrace") > 0,
             30, "the first serve's stream")
    stop(s.p)
    check(s.p.returncode == 0, "the first serve exits 0")
    before = tree_bytes(first)
    print("first serve kept %s" % {k: len(v) for k, v in before.items()})
    check(before.get("trace.nettrace", b"").startswith(b"Nettrace"), "the first serve kept a stream")
    s = Serve(d, args)
    s.wait_line(r"attached to pid %d " % a.pid)
    open(go, "w").close()
    a.wait(timeout=120)
    s.wait_line(r"pid %d exited" % a.pid)
    stop(s.p)
    check(s.p.returncode == 0, "the second serve exits 0")
    after = tree_bytes(first)
    check(after == before, "pid-%d is byte for byte what the first serve left (%s, was %s)"
          % (a.pid, {k: len(v) for k, v in after.items()}, {k: len(v) for k, v in before.items()}))
    check(sorted(os.listdir(d + "/out")) == sorted(["pid-%d" % a.pid, "pid-%d-2" % a.pid]),
          "the second serve writes pid-%d-2 and nothing else: %s" % (a.pid, os.listdir(d + "/out")))
    counts = parse_counts(open(out).read())
    check(counts is not None, "the program printed its COUNTS")
    if counts is not None and os.path.exists(second + "/trace.nettrace"):
        ms, n = stats_total_pause(second + "/trace.nettrace", d + "/second.db", a.pid)
        print("pid-%d-2: %d GCs in the kept stream, runtime %s" % (a.pid, n, counts))
        check(n == counts[0], "pid-%d-2/trace.nettrace has the runtime's %d GCs (%d)" % (a.pid, counts[0], n))


def port_open(port):
    s = socket.socket()
    try:
        s.settimeout(0.5)
        s.connect(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def parse_kv(text):
    return dict(re.findall(r"^(\w+)=(\S*)$", text, re.M))


def case_lttng():
    if not GCSIM or not os.path.exists(GCSIM):
        print("SKIPPED: gcsim was not built (%s)" % GCSIM)
        sys.exit(SKIP)
    if not os.path.exists(PROMETHEUS):
        print("SKIPPED: %s is not installed (Debian's prometheus package)" % PROMETHEUS)
        sys.exit(SKIP)
    d = workdir("lttng")
    # other engineers' LTTng tests hold a relayd for a few seconds at a time
    end = time.time() + 90
    while port_open(5344) and time.time() < end:
        time.sleep(0.5)
    if port_open(5344):
        print("SKIPPED: another lttng-relayd holds the live port: its trace is not ours to read")
        sys.exit(SKIP)
    with open(d + "/r.rules", "w") as f:   # log rules: fire on every gen0, every gen1 GC
        f.write("g0: pair=gc-over gen=0 over=0 action=log\n")
        f.write("g1: pair=gc-over gen=1 over=0 action=log\n")
    s = Serve(d, ["--lttng", "--keep-exited", "600", "-o", d + "/out", "--keep-stream", "--rules", d + "/r.rules"])
    s.wait_line(r"LTTng live session gcscope-serve-\d+")
    if "trace in the running lttng-relayd" in s.text():
        stop(s.p)
        print("SKIPPED: another lttng-relayd took the live port meanwhile")
        sys.exit(SKIP)
    prom = Prometheus(d, s.port)
    wait_for(lambda: prom.scalar('up{job="gcscope"}') == 1, 30, "Prometheus to scrape serve")
    out = d + "/gcsim.out"
    g = spawn([GCSIM, "--scenario", "bgc", "--seconds", "2"], stdout=open(out, "w"), stderr=subprocess.STDOUT,
              env=env_for(d))
    g.wait(timeout=120)
    check(g.returncode == 0, "gcsim exited 0 (%s)" % g.returncode)
    s.wait_line(r"following pid %d over LTTng \(gcsim, librgc-" % g.pid, timeout=30)
    s.wait_line(r"pid %d exited" % g.pid, timeout=30)
    time.sleep(3)   # two more scrapes after the last event
    kv = parse_kv(open(out).read())
    print("gcsim: " + " ".join("%s=%s" % (k, kv.get(k)) for k in ("gc_count", "gen0_gcs", "gen1_gcs", "gen2_gcs")))
    sel = 'pid="%d"' % g.pid
    got = {}
    for n in range(3):
        got[n] = prom.scalar('dotnet_gc_collections_total{%s,gc_heap_generation="gen%d"}' % (sel, n))
    cnt = prom.scalar("sum(gcscope_gc_pause_seconds_count{%s})" % sel)
    psum = prom.scalar("sum(gcscope_gc_pause_seconds_sum{%s})" % sel)
    fin = prom.scalar("gcscope_gc_bgc_final_pause_seconds_count{%s}" % sel)
    fired = {r: prom.scalar('gcscope_trigger_firings_total{%s,rule="%s"}' % (sel, r)) for r in ("g0", "g1")}
    labels = prom.query("dotnet_gc_collections_total{%s}" % sel)
    lab = labels[0]["metric"] if labels else {}
    stop(s.p)
    check(s.p.returncode == 0, "serve exits 0 on SIGTERM")
    stop(prom.p)
    print(s.text())
    # the same LTTng trace, read back by `gcscope stats` (serve's relayd wrote it under -o DIR/lttng)
    traces = [os.path.join(r, x) for r, dirs, _ in os.walk(d + "/out/lttng") for x in dirs
              if x.startswith("gcscope-serve-")]
    check(len(traces) == 1, "one trace written by serve's relayd: %r" % traces)
    if len(traces) != 1:
        return
    r = subprocess.run([GCSCOPE, "stats", traces[0], "-d", d + "/t.db", "--pid", str(g.pid), "--format", "json"],
                       capture_output=True, text=True)
    check(r.returncode == 0, "gcscope stats of the trace: %s" % r.stderr.strip())
    j = json.loads(r.stdout)
    pr = [p for p in j["processes"] if int(p["pid"]) == g.pid]
    check(len(pr) == 1, "the trace has gcsim's process")
    if len(pr) != 1:
        return
    sm = pr[0]["summary"]
    print("trace: %d GCs, %d incomplete, total pause %.6f ms; serve: pause sum %.6f ms, %s GCs"
          % (sm["gc_count"], sm["incomplete_count"], sm["total_pause_msec"], (psum or 0) * 1e3, cnt))
    if sm["incomplete_count"]:
        print("SKIPPED: the tracer discarded GC events of this run (%d incomplete GCs; shared per-user buffers "
              "under another user's load): the figures cannot be compared" % sm["incomplete_count"])
        sys.exit(SKIP)
    check(sm["gc_count"] == int(kv["gc_count"]), "the trace has librgc's %s GCs (%d)" % (kv["gc_count"],
                                                                                      sm["gc_count"]))
    for n in range(3):
        want = int(kv["gen%d_gcs" % n])
        check(got[n] == want, "gen%d collections: Prometheus %s, librgc %d" % (n, got[n], want))
    check(cnt == int(kv["gc_count"]), "pause histogram count %s = librgc's gc_count %s" % (cnt, kv["gc_count"]))
    check(psum is not None and abs(psum * 1e3 - sm["total_pause_msec"]) <= 0.01 * sm["total_pause_msec"],
          "pause sum within 1 %% of gcscope stats' total pause on the same trace")
    q = subprocess.run([GCSCOPE, "sql", d + "/t.db", "SELECT count(*) FROM gcs WHERE bgc_pause2_msec IS NOT NULL "
                        "AND pid = %d" % g.pid, "--csv"], capture_output=True, text=True)
    want_fin = int(q.stdout.strip().splitlines()[-1])
    check(want_fin >= 1 and fin == want_fin, "BGC final pauses: serve %s, the trace %d" % (fin, want_fin))
    check(fired["g0"] == int(kv["gen0_gcs"]) and fired["g1"] == int(kv["gen1_gcs"]),
          "log rules fired once per gen0 and gen1 GC: %s, librgc %s %s" % (fired, kv["gen0_gcs"], kv["gen1_gcs"]))
    tsv = open("%s/out/pid-%d/firings.tsv" % (d, g.pid)).read()
    check(tsv.count("\tlogged\n") == int(kv["gen0_gcs"]) + int(kv["gen1_gcs"]),
          "firings.tsv: a line per firing (%d)" % tsv.count("\tlogged\n"))
    check(lab.get("process_name") == "gcsim", "process_name label: %s" % lab.get("process_name"))
    check(re.match(r"^librgc-\d+\.\d+", lab.get("runtime_version", "")) is not None,
          "runtime_version label: %s" % lab.get("runtime_version"))
    check(lab.get("gc_mode") == "workstation" and lab.get("gc_concurrent") == "true"
          and lab.get("gc_heap_count") == "1", "GC mode labels: %s" % lab)


CASES = {"lttng": case_lttng, "rules": case_rules, "outdir_again": case_outdir_again, "prometheus": case_prometheus, "exit_reattach": case_exit_reattach, "bad_input": case_bad_input,
         "hostile": case_hostile, "listen": case_listen}

if __name__ == "__main__":
    try:
        CASES[sys.argv[1]]()
    finally:
        stop_all()
    sys.exit(finish())
