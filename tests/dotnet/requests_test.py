#!/usr/bin/env python3
"""requests_test.py CASE — `record --dotnet --requests aspnet` and `impact` on
a real ASP.NET Core service (tests/dotnet/webapp, Kestrel on 127.0.0.1 at a
port the system picks) driven by loadgen.py (a fixed number of requests at a
fixed concurrency, then it stops).

Where the expected values come from:
- the request count: the app counts every request it handles (its first
  middleware) and prints "handled N" at exit; loadgen.py says how many it
  sent and how many got 200;
- each request's latency: its SourceRequestStop minus its SourceRequestStart
  event time, paired here by the Id in the stored events' JSON fields (the
  events table), against the requests table and impact's slowest list;
- the affected figures (also the HTML picture's red and blue request lines
  and its pause bands): recomputed here from the requests table and the
  gc_pauses view (a request is affected when a pause overlaps it by a
  positive length; its GC time is the union of the overlaps; "more than one
  GC": pauses of two or more distinct gc_index; the worst GCs: the overlaps
  summed per gc_index).

Cases: requests_aspnet (launch), requests_attach (--pid), requests_custom
(PROVIDER:START:STOP:KEY on the app's own EventSource), requests_not_aspnet
(gcprog, a .NET program without ASP.NET: one clear line, exit 1, trace kept),
fixture_requests and fixture_requests_top (a committed recording, no dotnet).
Every process started here is stopped by its PID. Exit 77 without dotnet.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True   # no __pycache__ in the source tree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import dotnet_test as dt  # noqa: E402
from gcs_check import check, failed  # noqa: E402

WEBAPP = os.environ.get("WEBAPP", "")
LOADGEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "loadgen.py")
COUNT, CONC, WORK_PATH = 200, 4, "/alloc/40"


def skip_without_webapp():
    if not WEBAPP or not os.path.exists(WEBAPP):
        print("SKIPPED: webapp was not built (%s); the dotnet.build_webapp fixture failed or did not run" % WEBAPP)
        sys.exit(dt.SKIP)


def wait_ready(ready, procs):
    end = time.time() + 60
    while time.time() < end:
        if os.path.exists(ready):
            port, pid = open(ready).read().split()
            return int(port), int(pid)
        if any(p.poll() is not None for p in procs):
            raise SystemExit("the app or the recorder exited before the app listened")
        time.sleep(0.1)
    raise SystemExit("timed out waiting for the app to listen")


def load(port):
    out = subprocess.run([sys.executable, LOADGEN, str(port), str(COUNT), str(CONC), WORK_PATH],
                         capture_output=True, text=True, timeout=240)
    check(out.returncode == 0 and out.stdout.strip() == "sent %d ok %d" % (COUNT, COUNT),
          "loadgen: every request answered 200", out.stdout + out.stderr)
    quit_ = subprocess.run([sys.executable, LOADGEN, str(port), "1", "1", "/quit"], capture_output=True, text=True,
                           timeout=60)
    check(quit_.returncode == 0, "the /quit request answered", quit_.stdout + quit_.stderr)


def kill_pid(pid):
    try:
        os.kill(pid, 9)
    except OSError:
        pass


def overlap_union(a, b, pauses):
    segs = sorted((max(s, a), min(e, b)) for s, e, _ in pauses if min(e, b) > max(s, a))
    total, cur_s, cur_e = 0, None, None
    for s, e in segs:
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def verify(db, handled, paths_want=None):
    paths_want = paths_want or {WORK_PATH: COUNT, "/quit": 1}
    r = subprocess.run([dt.GCSCOPE, "impact", db, "--format", "json", "--slowest", "1000000"], capture_output=True,
                       text=True)
    check(r.returncode == 0, "impact exits 0", r.stderr)
    procs = json.loads(r.stdout)["processes"]
    check(len(procs) == 1, "one process with requests")
    p = procs[0]
    check(p["requests"] == handled, "impact's request count %d == requests the server handled %d"
          % (p["requests"], handled))
    check(p["invalid_requests"] == 0 and p["unpaired_starts"] == 0 and p["unpaired_stops"] == 0,
          "no invalid or unpaired requests (%s %s %s)" % (p["invalid_requests"], p["unpaired_starts"],
                                                          p["unpaired_stops"]))
    pid = p["pid"]
    # Latency: stop - start from the stored events, paired here by Id.
    starts, stops = {}, {}
    out = subprocess.run([dt.GCSCOPE, "sql", db, "SELECT ts_ns, name, fields FROM events WHERE name IN "
                          "('SourceRequestStart','SourceRequestStop') AND pid = %d" % pid, "--json"],
                         capture_output=True, text=True)
    rows = json.loads(out.stdout) if out.returncode == 0 else None
    check(rows is not None, "gcscope sql --json reads the events", out.stderr)
    for row in rows or []:
        f = json.loads(row["fields"])
        (starts if row["name"] == "SourceRequestStart" else stops)[f["Id"]] = (int(row["ts_ns"]), f)
    check(len(starts) == handled and len(stops) == handled,
          "%d start and %d stop events, one per handled request (%d)" % (len(starts), len(stops), handled))
    paths = {}
    for k, (ts, f) in starts.items():
        paths[f["Path"]] = paths.get(f["Path"], 0) + 1
    check(paths == paths_want, "paths from RequestStart: %s" % paths)
    req = dt.sql(db, "SELECT request_id, start_ns, end_ns, path, method FROM requests WHERE pid = %d" % pid)
    bad = [x for x in req if int(x[0]) not in starts or int(x[1]) != starts[int(x[0])][0]
           or int(x[2]) != stops[int(x[0])][0] or x[4] != "GET"]
    check(len(req) == handled and not bad, "every stored request is its events' start and stop (%d bad)" % len(bad))
    lat = {int(x[0]): stops[int(x[0])][0] - starts[int(x[0])][0] for x in req if int(x[0]) in starts}
    # impact prints ms with 3 decimals: the same double, formatted alike.
    slow_bad = [s for s in p["slowest"] if "%.3f" % s["latency_ms"] != "%.3f" % (lat[s["id"]] / 1e6)]
    check(len(p["slowest"]) == handled and not slow_bad,
          "impact's latency of every request == stop - start of its events (%d differ)" % len(slow_bad))
    # Affected figures from the requests and the gc_pauses view.
    pauses = [(int(a), int(b), int(g)) for a, b, g in
              dt.sql(db, "SELECT start_ns, end_ns, gc_index FROM gc_pauses WHERE pid = %d AND end_ns > start_ns" % pid)]
    affected = multi = 0
    aff_gc = aff_lat = 0
    lost = {}
    for x in req:
        a, b = int(x[1]), int(x[2])
        g = overlap_union(a, b, pauses)
        hit = set()
        for s, e, gi in pauses:
            o = min(e, b) - max(s, a)
            if o > 0:
                hit.add(gi)
                lost[gi] = lost.get(gi, 0) + o
        if g > 0:
            affected += 1
            aff_gc += g
            aff_lat += b - a
            multi += len(hit) >= 2
    check(affected > 0, "GCs overlapped some requests (%d)" % affected)
    check(p["affected"] == affected, "affected %d == recomputed %d" % (p["affected"], affected))
    check(p["multi_gc_requests"] == multi, "hit by more than one GC %d == recomputed %d"
          % (p["multi_gc_requests"], multi))
    # sums: impact adds doubles, this integers; both printed with 3 decimals
    check(abs(p["affected_gc_ms"] - aff_gc / 1e6) <= 0.001, "affected GC ms %s == %.3f" % (p["affected_gc_ms"], aff_gc / 1e6))
    check(abs(p["affected_latency_ms"] - aff_lat / 1e6) <= 0.001,
          "affected latency ms %s == %.3f" % (p["affected_latency_ms"], aff_lat / 1e6))
    check(abs(p["affected_pct"] - affected * 100.0 / handled) < 0.0005, "affected %% %s" % p["affected_pct"])
    check(p["without_gc_requests"] == handled - affected, "requests without GC %d" % p["without_gc_requests"])
    worst = sorted(lost.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    got = [(w["gc_index"], round(w["lost_ms"], 3)) for w in p["worst_gcs"]]
    want = [(g, round(v / 1e6, 3)) for g, v in worst]
    check(got == want, "worst GCs %s == recomputed %s" % (got, want))
    pp = {x["path"]: x["requests"] for x in p["paths"]}
    check(pp == paths_want, "per-path requests %s" % pp)
    # HTML: one line per request, red when a pause hit it, one band per pause.
    h = subprocess.run([dt.GCSCOPE, "impact", db, "--format", "html"], capture_output=True, text=True)
    check(h.returncode == 0 and h.stdout.rstrip().endswith("</html>"), "impact --format html", h.stderr)
    red, blue = h.stdout.count('stroke="#c00"/>'), h.stdout.count('stroke="#2a6fdb"/>')
    bands = h.stdout.count('fill="#f0a030"')
    check(red == affected and blue == handled - affected, "HTML: %d red and %d blue request lines" % (red, blue))
    check(bands == len(pauses), "HTML: %d pause bands == %d pauses" % (bands, len(pauses)))
    st = subprocess.run([dt.GCSCOPE, "stats", db, "--format", "html"], capture_output=True, text=True)
    check(st.returncode == 0 and "<h4>Request latency vs GC pauses</h4>" in st.stdout
          and st.stdout.count('stroke="#c00"/>') == affected
          and st.stdout.count('stroke="#2a6fdb"/>') >= handled - affected,
          "stats HTML draws the requests against the pauses")
    # export: every request a slice on a "Requests (tid N)" track of the thread that started it,
    # lasting its latency, none overlapping another on its track.
    ej = db + ".json"
    e = subprocess.run([dt.GCSCOPE, "export", db, "--format", "chrome-json", "-o", ej], capture_output=True, text=True)
    check(e.returncode == 0, "export --format chrome-json", e.stderr)
    if e.returncode == 0:
        d = json.load(open(ej))
        evs = d["traceEvents"] if isinstance(d, dict) else d
        tracks = {(x["pid"], x["tid"]): x["args"]["name"] for x in evs
                  if x.get("ph") == "M" and x.get("name") == "thread_name"}
        sl = [x for x in evs if x.get("ph") == "X" and tracks.get((x["pid"], x["tid"]), "").startswith("Requests (tid ")]
        tid_of = {int(x[0]): int(x[5]) for x in dt.sql(db, "SELECT request_id, start_ns, end_ns, path, method, tid "
                                                           "FROM requests WHERE pid = %d" % pid)}
        wrong = [x for x in sl if "%.3f" % (x["dur"] / 1e3) != "%.3f" % (lat[x["args"]["request_id"]] / 1e6)
                 or not tracks[(x["pid"], x["tid"])].startswith("Requests (tid %d)" % tid_of[x["args"]["request_id"]])]
        by_track = {}
        for x in sl:
            by_track.setdefault((x["pid"], x["tid"]), []).append((x["ts"], x["ts"] + x["dur"]))
        overlaps = sum(1 for v in by_track.values() for a, b in zip(sorted(v), sorted(v)[1:]) if b[0] < a[1] - 1e-6)
        check(len(sl) == handled and not wrong and overlaps == 0,
              "export: %d request slices (%d wrong, %d overlapping on a track)" % (len(sl), len(wrong), overlaps))


def handled_from(text):
    m = re.search(r"^handled (\d+)$", text, re.M)
    check(m is not None, "the app printed its handled count", text)
    return int(m.group(1)) if m else -1


def case_requests_aspnet():
    d = dt.workdir("requests_aspnet")
    ready = d + "/ready"
    out = open(d + "/record.out", "w")
    rec = subprocess.Popen([dt.GCSCOPE, "record", "--dotnet", "--requests", "aspnet", "-o", d + "/rec", "--import",
                            "-d", d + "/t.db", "--", "dotnet", WEBAPP, ready], cwd=d, stdout=out, stderr=subprocess.STDOUT,
                           env=dt.env_with({"DOTNET_GCgen0size": "0x400000"}))
    app_pid = None
    try:
        port, app_pid = wait_ready(ready, [rec])
        load(port)
        rec.wait(timeout=120)
    finally:
        if app_pid:
            kill_pid(app_pid)
        if rec.poll() is None:
            rec.kill()
        rec.wait()
    text = open(d + "/record.out").read()
    print(text)
    check(rec.returncode == 0, "record exits 0 (got %s)" % rec.returncode)
    handled = handled_from(text)
    check(handled == COUNT + 1, "the app handled the %d requests and /quit (%d)" % (COUNT, handled))
    check("ASP.NET Core requests: %d started, %d ended" % (handled, handled) in text, "record's summary line")
    verify(d + "/t.db", handled)


def case_requests_attach():
    d = dt.workdir("requests_attach")
    ready = d + "/ready"
    app_out = open(d + "/app.out", "w")
    app = subprocess.Popen(["dotnet", WEBAPP, ready], cwd=d, stdout=app_out, stderr=subprocess.STDOUT,
                           env=dt.env_with({"DOTNET_GCgen0size": "0x400000"}))
    rec = None
    try:
        port, _ = wait_ready(ready, [app])
        # The session starts before the load: every request is inside it.
        rec_out = open(d + "/record.out", "w")
        rec = subprocess.Popen([dt.GCSCOPE, "record", "--dotnet", "--requests", "aspnet", "--pid", str(app.pid),
                                "-o", d + "/rec", "--import", "-d", d + "/t.db"], cwd=d, stdout=rec_out,
                               stderr=subprocess.STDOUT)
        dt.wait_for(lambda: "recording pid" in open(d + "/record.out").read(), 60, "the session")
        time.sleep(0.5)
        load(port)
        app.wait(timeout=60)
        rec.wait(timeout=120)
    finally:
        dt.stop(app)
        if rec:
            dt.stop(rec)
    text = open(d + "/record.out").read()
    print(text)
    check(rec.returncode == 0, "record exits 0 (got %s)" % rec.returncode)
    handled = handled_from(open(d + "/app.out").read())
    check(handled == COUNT + 1, "the app handled %d requests" % handled)
    verify(d + "/t.db", handled)


def case_requests_not_aspnet():
    d = dt.workdir("requests_not_aspnet")
    p = dt.record(["--dotnet", "--requests", "aspnet", "-o", d + "/rec", "--", "dotnet", dt.GCPROG, "alloc"], cwd=d,
                  env=dt.env_with({"DOTNET_GCgen0size": "0x200000"}))
    check(p.returncode == 1, "record exits 1 (got %d)" % p.returncode)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    check(lines == ["gcscope record: no Microsoft.AspNetCore.Hosting events: is this an ASP.NET Core app?"],
          "one clear line on stderr", p.stderr)
    check(os.path.getsize(d + "/rec/trace.nettrace") > 0, "the trace is kept")
    r = subprocess.run([dt.GCSCOPE, "stats", d + "/rec/trace.nettrace", "-d", d + "/t.db"], capture_output=True,
                       text=True)
    check(r.returncode == 0, "the kept trace reads", r.stderr)


def case_requests_custom():
    """--requests PROVIDER:START:STOP:KEY on the app's own EventSource
    (GcScope-WebApp WorkBegin(id, path) / WorkEnd(id), ids 1..COUNT in the
    order the /alloc requests arrive): the import (through
    the trace's .requests file) pairs them by id, so the stored request ids
    are exactly 1..COUNT, each with its events' stop - start."""
    d = dt.workdir("requests_custom")
    ready = d + "/ready"
    out = open(d + "/record.out", "w")
    rec = subprocess.Popen([dt.GCSCOPE, "record", "--dotnet", "--requests", "GcScope-WebApp:WorkBegin:WorkEnd:id",
                            "-o", d + "/rec", "--import", "-d", d + "/t.db", "--", "dotnet", WEBAPP, ready],
                           cwd=d, stdout=out, stderr=subprocess.STDOUT, env=dt.env_with({}))
    app_pid = None
    try:
        port, app_pid = wait_ready(ready, [rec])
        load(port)
        rec.wait(timeout=120)
    finally:
        if app_pid:
            kill_pid(app_pid)
        if rec.poll() is None:
            rec.kill()
        rec.wait()
    text = open(d + "/record.out").read()
    print(text)
    check(rec.returncode == 0, "record exits 0 (got %s)" % rec.returncode)
    check("custom requests: %d started, %d ended" % (COUNT, COUNT) in text, "record's summary line")
    check(open(d + "/rec/trace.nettrace.requests").read().splitlines()[1:] == ["GcScope-WebApp:WorkBegin:WorkEnd:id"],
          "the trace's .requests file names the pair")
    rows = dt.sql(d + "/t.db", "SELECT request_id, start_ns, end_ns, path FROM requests ORDER BY request_id")
    check([int(x[0]) for x in rows] == list(range(1, COUNT + 1)), "request ids 1..%d (%d rows)" % (COUNT, len(rows)))
    check(all(x[3] == "/alloc" for x in rows), "path from WorkBegin's path field")
    ev = subprocess.run([dt.GCSCOPE, "sql", d + "/t.db", "SELECT ts_ns, name, fields FROM events WHERE name LIKE "
                         "'SourceRequest%'", "--json"], capture_output=True, text=True)
    t = {}
    for e in json.loads(ev.stdout):
        t.setdefault(json.loads(e["fields"])["Id"], {})[e["name"]] = int(e["ts_ns"])
    bad = [x for x in rows if int(x[1]) != t[int(x[0])]["SourceRequestStart"] or
           int(x[2]) != t[int(x[0])]["SourceRequestStop"]]
    check(not bad, "each request is its WorkBegin and WorkEnd (%d differ)" % len(bad))
    r = subprocess.run([dt.GCSCOPE, "impact", d + "/t.db", "--format", "json"], capture_output=True, text=True)
    check(r.returncode == 0 and json.loads(r.stdout)["processes"][0]["requests"] == COUNT, "impact counts them")


def case_requests_http():
    """--requests aspnet --requests http: each of COUNT /proxy requests makes
    one HttpClient request to the app itself (/alloc/1): the client pairs
    are COUNT, the server's 2 * COUNT + 1 (/proxy, its /alloc/1, /quit), as
    the app counts them."""
    d = dt.workdir("requests_http")
    ready = d + "/ready"
    out = open(d + "/record.out", "w")
    rec = subprocess.Popen([dt.GCSCOPE, "record", "--dotnet", "--requests", "aspnet", "--requests", "http",
                            "-o", d + "/rec", "--import", "-d", d + "/t.db", "--", "dotnet", WEBAPP, ready],
                           cwd=d, stdout=out, stderr=subprocess.STDOUT, env=dt.env_with({}))
    app_pid = None
    n = 50
    try:
        port, app_pid = wait_ready(ready, [rec])
        r = subprocess.run([sys.executable, LOADGEN, str(port), str(n), "2", "/proxy"], capture_output=True,
                           text=True, timeout=240)
        check(r.stdout.strip() == "sent %d ok %d" % (n, n), "every /proxy answered", r.stdout + r.stderr)
        subprocess.run([sys.executable, LOADGEN, str(port), "1", "1", "/quit"], capture_output=True, timeout=60)
        rec.wait(timeout=120)
    finally:
        if app_pid:
            kill_pid(app_pid)
        if rec.poll() is None:
            rec.kill()
        rec.wait()
    text = open(d + "/record.out").read()
    print(text)
    check(rec.returncode == 0, "record exits 0 (got %s)" % rec.returncode)
    handled = handled_from(text)
    check(handled == 2 * n + 1, "the app handled %d requests" % handled)
    check("ASP.NET Core requests: %d started, %d ended" % (handled, handled) in text, "record's server line")
    check("HttpClient requests: %d started, %d ended" % (n, n) in text, "record's client line")
    paths = dict((p, int(c)) for p, c in dt.sql(d + "/t.db", "SELECT path, count(*) FROM requests WHERE end_ns IS "
                                                 "NOT NULL AND start_ns IS NOT NULL GROUP BY path"))
    check(paths == {"/proxy": n, "/alloc/1": 2 * n, "/quit": 1},
          "paths: server /proxy and /alloc/1, client /alloc/1 (pathAndQuery): %s" % paths)


def case_fixture_requests():
    """A committed .NET 10 recording (record --dotnet --requests aspnet of
    webapp under 60 GETs of /alloc/30 at concurrency 3, then /quit; the
    recorder's output, with the app's "handled 61", beside it): the reader,
    the import and impact without dotnet."""
    d = dt.workdir("fixture_requests")
    fx = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
    handled = handled_from(open(os.path.join(fx, "webapp-requests.out")).read())
    r = subprocess.run([dt.GCSCOPE, "import", "-d", d + "/t.db", os.path.join(fx, "webapp-requests.nettrace")],
                       capture_output=True, text=True)
    check(r.returncode == 0, "import", r.stderr)
    verify(d + "/t.db", handled, {"/alloc/30": 60, "/quit": 1})


def top_figures(db):
    """top's header figures recomputed from the requests table: the window is
    the 10 s before the newest request's end, or from the first request's
    start when the run is shorter; P99 by linear interpolation."""
    req = [(int(a), int(b)) for a, b in dt.sql(db, "SELECT start_ns, end_ns FROM requests WHERE start_ns IS NOT NULL "
                                                   "AND end_ns IS NOT NULL")]
    last = max(b for _, b in req)
    frm = max(min(a for a, _ in req), last - 10000 * 1000000)
    lat = sorted((b - a) / 1e6 for a, b in req if b >= frm)
    rank = 0.99 * (len(lat) - 1)
    lo = int(rank)
    hi = min(lo + 1, len(lat) - 1)
    return len(lat) * 1000.0 / ((last - frm) / 1e6), lat[lo] + (rank - lo) * (lat[hi] - lat[lo])


def case_requests_top_live():
    """`gcscope top --dotnet --requests aspnet -o DIR -- dotnet webapp`: once
    the load is over, the header's rate and p99 equal the recomputation from
    the stream top kept (imported)."""
    if shutil.which("tmux") is None:
        print("SKIPPED: tmux is not installed")
        sys.exit(dt.SKIP)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tui"))
    from tmux_top import Screen
    from top_live_common import stable_screen
    d = dt.workdir("requests_top_live")
    ready = d + "/ready"
    s = Screen("%s top --dotnet --requests aspnet -o %s/keep -- dotnet %s %s" % (dt.GCSCOPE, d, WEBAPP, ready),
               width=160, height=40, env={"DOTNET_CLI_TELEMETRY_OPTOUT": "1"})
    app_pid = None
    try:
        end = time.time() + 60
        while not os.path.exists(ready) and time.time() < end:
            time.sleep(0.1)
        port, app_pid = [int(x) for x in open(ready).read().split()]
        load(port)
        t = stable_screen(s, "command exited", timeout=120)
        print(t)
        m = re.search(r"req ([0-9.]+)/s p99 ([0-9.]+) ms", t)
        check(m is not None, "the header shows the request rate and p99", t)
        s.keys("q")
        s.wait_for("EXIT=0", timeout=20)
    finally:
        if app_pid:
            kill_pid(app_pid)
        s.close()
    r = subprocess.run([dt.GCSCOPE, "import", "-d", d + "/t.db", d + "/keep/trace.nettrace"], capture_output=True,
                       text=True)
    check(r.returncode == 0, "the kept stream imports", r.stderr)
    if m and r.returncode == 0:
        rate, p99 = top_figures(d + "/t.db")
        check(m.group(1) == "%.1f" % rate and m.group(2) == "%.3f" % p99,
              "top live: %s/s p99 %s ms; from the kept stream %.1f/s p99 %.3f ms" % (m.group(1), m.group(2), rate, p99))


def case_fixture_requests_top():
    """`gcscope top DB` on the committed recording: the header's request rate
    and p99 equal a recomputation from the requests table (the window is the
    whole run, shorter than 10 s: from the first request's start to the last
    one's end; P99 by linear interpolation)."""
    if shutil.which("tmux") is None:
        print("SKIPPED: tmux is not installed")
        sys.exit(dt.SKIP)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tui"))
    from tmux_top import Screen
    from top_live_common import stable_screen
    d = dt.workdir("fixture_requests_top")
    fx = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
    r = subprocess.run([dt.GCSCOPE, "import", "-d", d + "/t.db", os.path.join(fx, "webapp-requests.nettrace")],
                       capture_output=True, text=True)
    check(r.returncode == 0, "import", r.stderr)
    rate, p99 = top_figures(d + "/t.db")
    s = Screen("%s top %s" % (dt.GCSCOPE, d + "/t.db"), width=140, height=40)
    try:
        t = stable_screen(s, "req ", timeout=30)
        print(t)
        m = re.search(r"req ([0-9.]+)/s p99 ([0-9.]+) ms", t)
        check(m is not None, "the header shows the request rate and p99", t)
        if m:
            check(m.group(1) == "%.1f" % rate and m.group(2) == "%.3f" % p99,
                  "top: %s/s p99 %s ms; recomputed %.1f/s p99 %.3f ms" % (m.group(1), m.group(2), rate, p99))
        s.keys("q")
        s.wait_for("EXIT=0", timeout=20)
    finally:
        s.close()


CASES = {"requests_aspnet": case_requests_aspnet, "fixture_requests": case_fixture_requests,
         "fixture_requests_top": case_fixture_requests_top, "requests_custom": case_requests_custom,
         "requests_http": case_requests_http,
         "requests_top_live": case_requests_top_live, "requests_attach": case_requests_attach,
         "requests_not_aspnet": case_requests_not_aspnet}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        raise SystemExit("usage: requests_test.py " + "|".join(CASES))
    if not sys.argv[1].startswith("fixture_"):
        dt.skip_without_dotnet()
        skip_without_webapp()
    os.makedirs(dt.WORK, exist_ok=True)
    CASES[sys.argv[1]]()
    print("%d failed" % failed())
    sys.exit(1 if failed() else 0)
