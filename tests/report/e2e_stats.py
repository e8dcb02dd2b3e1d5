#!/usr/bin/env python3
"""End-to-end test of `gcscope stats|events|sql` on a real CoreCLR trace.

Expected figures are computed here, independently of gcscope, from the text
output of `babeltrace2 --clock-seconds TRACE`: for each blocking GC, its pause
is RestartEEEnd - SuspendEEBegin and its suspension SuspendEEEnd -
SuspendEEBegin (ns, compared to the microsecond), its generation and reason
come from GCStart, and After MB is the sum of the GCHeapStats generation sizes
decoded from the event's __data__ bytes (ETW layout, little endian).

usage: e2e_stats.py GCSCOPE TRACE_DIR WORK_DIR
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, TRACE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
REASONS = {0: "AllocSmall", 1: "Induced", 2: "LowMemory", 3: "Empty", 4: "AllocLarge",
           5: "OutOfSpaceSOH", 6: "OutOfSpaceLOH", 7: "InducedNotForced"}
SPANS = {}  # pid -> (first, last) event ns, from babeltrace2


def html_escape(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def run(args, cwd=None, ok=True, stdin=None):
    p = subprocess.run([GCSCOPE] + args, cwd=cwd, capture_output=True, text=True, timeout=300, input=stdin)
    if ok and p.returncode != 0:
        print("command failed:", args, p.stderr, file=sys.stderr)
        sys.exit(1)
    return p


def expected_from_babeltrace():
    out = subprocess.run(["babeltrace2", "--clock-seconds", TRACE], capture_output=True, text=True,
                         check=True).stdout
    line_re = re.compile(r"^\[(\d+)\.(\d{9})\].*? DotNETRuntime:(\w+?)(?:_V\d+)?: .*?vpid = (\d+), vtid = (\d+).*?\}, \{ (.*) \}$")
    procs = {}
    span_re = re.compile(r"^\[(\d+)\.(\d{9})\].*?vpid = (\d+)")
    for line in out.splitlines():
        m = span_re.match(line)
        if m:  # the process's first and last event, any provider
            ts, pid = int(m.group(1)) * 10**9 + int(m.group(2)), int(m.group(3))
            first, last = SPANS.get(pid, (ts, ts))
            SPANS[pid] = (min(first, ts), max(last, ts))
        m = line_re.match(line)
        if not m:
            continue
        ts = int(m.group(1)) * 10**9 + int(m.group(2))
        name, pid, payload = m.group(3), int(m.group(4)), m.group(6)
        st = procs.setdefault(pid, {"gcs": [], "susp": None, "susp_end": None, "cur": None,
                                    "starts": 0, "ends": 0})
        if name == "GCSuspendEEBegin":
            st["susp"] = ts
        elif name == "GCSuspendEEEnd":
            st["susp_end"] = ts
        elif name == "GCStart":
            f = dict(re.findall(r"(\w+) = (\d+)", payload))
            assert int(f["Type"]) == 0, "this test expects blocking GCs only"
            st["cur"] = {"index": int(f["Count"]), "gen": int(f["Depth"]), "reason": REASONS[int(f["Reason"])],
                         "susp": st["susp"], "suspend_ns": st["susp_end"] - st["susp"]}
            st["starts"] += 1
        elif name == "GCEnd":
            st["ends"] += 1
        elif name == "GCHeapStats":
            data = [int(x) & 0xFF for x in re.findall(r"\[\d+\] = (-?\d+)", payload)]
            size = lambda off: int.from_bytes(bytes(data[off:off + 8]), "little")
            st["cur"]["after_bytes"] = sum(size(o) for o in (0, 16, 32, 48)) + (size(94) if len(data) >= 102 else 0)
        elif name == "GCRestartEEEnd" and st["cur"] is not None:
            st["cur"]["pause_ns"] = ts - st["cur"]["susp"]
            st["gcs"].append(st["cur"])
            st["cur"] = None
    return procs


exp = expected_from_babeltrace()
db = os.path.join(WORK, "e2e.db")
for f in (db, os.path.join(WORK, "gcscope.db")):
    if os.path.exists(f):
        os.remove(f)
run(["import", TRACE, "-d", db])
js = json.loads(run(["stats", db, "--format", "json"]).stdout)

# 11 GCs in two of the trace's three processes.
procs = {p["pid"]: p for p in js["processes"]}
check(len(procs) == 3, "3 processes, got %d" % len(procs))
with_gcs = [pid for pid, p in procs.items() if p["summary"]["gc_count"] > 0]
check(len(with_gcs) == 2, "2 processes with GCs")
check(sum(p["summary"]["gc_count"] for p in procs.values()) == 11, "11 GCs in all")
check(sum(len(e["gcs"]) for e in exp.values()) == 11, "babeltrace2 shows 11 GCs")

for key in ("pid", "name", "summary", "generations", "gcs"):
    for p in procs.values():
        check(key in p, "process key " + key)
for key in ("gc_count", "total_pause_msec", "max_pause_msec", "pct_pause_time", "max_heap_mb", "total_alloc_mb"):
    check(all(key in p["summary"] for p in procs.values()), "summary key " + key)
GC_KEYS = ("index", "gen", "type", "reason", "pause_start_msec", "suspend_msec", "pause_msec", "bgc_pause1_msec",
           "bgc_pause2_msec", "peak_mb", "after_mb", "promoted_mb", "gen0_alloc_mb", "complete")

for pid, e in exp.items():
    if not e["gcs"]:
        continue
    p = procs.get(pid)
    check(p is not None, "process %d in the report" % pid)
    if p is None:
        continue
    gcs = p["gcs"]
    check(len(gcs) == len(e["gcs"]), "pid %d: %d GCs" % (pid, len(e["gcs"])))
    total = 0.0
    for g, x in zip(gcs, e["gcs"]):
        for k in GC_KEYS:
            check(k in g, "gc key " + k)
        tag = "pid %d GC %d" % (pid, x["index"])
        check(g["index"] == x["index"], tag + " index")
        check(g["gen"] == x["gen"], tag + " gen")
        check(g["type"] == "N", tag + " type N")
        check(g["reason"] == x["reason"], tag + " reason")
        check(g["complete"] is True, tag + " complete")
        check(abs(g["pause_msec"] - x["pause_ns"] / 1e6) < 0.001, tag + " pause %.6f vs %.6f" % (g["pause_msec"], x["pause_ns"] / 1e6))
        check(abs(g["suspend_msec"] - x["suspend_ns"] / 1e6) < 0.001, tag + " suspend")
        check(abs(g["after_mb"] - x["after_bytes"] / 1e6) < 1e-9, tag + " after MB %r vs %r" % (g["after_mb"], x["after_bytes"] / 1e6))
        check(g["bgc_pause1_msec"] is None and g["bgc_pause2_msec"] is None, tag + " no BGC pauses")
        total += x["pause_ns"] / 1e6
    check(abs(p["summary"]["total_pause_msec"] - total) < 0.001, "pid %d total pause" % pid)
    check(abs(p["summary"]["max_pause_msec"] - max(x["pause_ns"] for x in e["gcs"]) / 1e6) < 0.001, "pid %d max pause" % pid)
    check(p["generations"][0]["count"] == len(e["gcs"]), "pid %d rollup ALL count" % pid)

    # events: GCStart|GCEnd of that process, in time order.
    ev = run(["events", db, "--filter", "GCStart|GCEnd", "--pid", str(pid)]).stdout.splitlines()[1:]
    check(len(ev) == e["starts"] + e["ends"], "pid %d events GCStart|GCEnd: %d lines" % (pid, len(ev)))
    check(all(l.split()[0] in ("GCStart", "GCEnd") for l in ev), "events filter")

# GC overhead over time, computed here from the babeltrace2 pauses:
# the run is the process's first..last event; the worst 60 s window is the
# whole run when the run is shorter; MMU(w) = 1 - (most paused time of any
# w-long window inside the run) / w. The paused time of a window is piecewise
# linear in its start, so its maximum is at a start where the window's start
# meets a pause start or its end meets a pause end (or at the run's edges).
def paused_in(pauses, a, b):
    return sum(max(0, min(e, b) - max(s, a)) for s, e in pauses)


def mmu(pauses, t0, t1, w):
    if w > t1 - t0:
        return None
    starts = [t0, t1 - w] + [s for s, _ in pauses] + [e - w for _, e in pauses]
    worst = max(paused_in(pauses, min(max(x, t0), t1 - w), min(max(x, t0), t1 - w) + w) for x in starts)
    return 1 - worst / w


MMU_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
for pid, e in exp.items():
    if not e["gcs"]:
        continue
    s = procs[pid]["summary"]
    pauses = [(x["susp"], x["susp"] + x["pause_ns"]) for x in e["gcs"]]  # disjoint: blocking GCs only
    t0, t1 = SPANS[pid]
    check(t1 - t0 < 60 * 10**9, "pid %d: run shorter than 60 s" % pid)
    want = sum(b - a for a, b in pauses) * 100.0 / (t1 - t0)
    check(abs(s["worst_window_pct_paused"] - want) < 1e-9, "pid %d worst window %% paused %r vs %r"
          % (pid, s["worst_window_pct_paused"], want))
    check(abs(s["worst_window_len_msec"] - (t1 - t0) / 1e6) < 1e-6, "pid %d worst window = the run" % pid)
    check(s["worst_window_sec"] == 60, "pid %d window 60 s" % pid)
    check([m["window_msec"] for m in s["mmu"]] == list(MMU_MS), "pid %d MMU window sizes" % pid)
    for m in s["mmu"]:
        x = mmu(pauses, t0, t1, m["window_msec"] * 10**6)
        check((m["mmu"] is None) if x is None else abs(m["mmu"] - x) < 1e-9,
              "pid %d MMU(%g ms) %r vs %r" % (pid, m["window_msec"], m["mmu"], x))
    print("pid %d: worst window %.4f %% paused, MMU %s" % (pid, want, [m["mmu"] for m in s["mmu"]]))
for p in procs.values():
    if p["summary"]["gc_count"] == 0:
        check(p["summary"]["worst_window_pct_paused"] is None and p["summary"]["mmu"] == [],
              "no pause: no overhead figures")

# text, html, csv
txt = run(["stats", db]).stdout
for pid in with_gcs:
    check(("GC Stats for Process %5d" % pid) in txt, "text section for %d" % pid)
check(max(len(l) for l in txt.splitlines()) <= 80, "text fits 80 columns")
for pid in with_gcs:
    s = procs[pid]["summary"]
    line = "  GC overhead: worst 60 s window %.2f%% paused (all {:,.1f} msec traced)\n    MMU".format(
        s["worst_window_len_msec"]) % s["worst_window_pct_paused"]
    line += "".join(" %s %.3f" % (n, m["mmu"]) for n, m in zip(("1ms", "10ms", "100ms", "1s", "10s"), s["mmu"][::3])
                    if m["mmu"] is not None)
    check(line + "\n" in txt, "text overhead line for %d: %r" % (pid, line))
check("\033[" not in txt, "no colour when stdout is not a tty")
# Processes without GCs: one line, not an empty report
idle = sorted(pid for pid, p in procs.items() if p["summary"]["gc_count"] == 0 and p["summary"]["incomplete_count"] == 0)
for pid in idle:
    check(("GC Stats for Process %5d" % pid) not in txt, "no empty report for %d" % pid)
if idle:
    tail = txt[txt.find("Processes without GCs:"):].rstrip("\n")
    check(re.fullmatch(r"Processes without GCs:( \d+ \([^)]*\))+(\n  \d+ \([^)]*\)( \d+ \([^)]*\))*)*", tail)
          is not None and all((" %d (" % pid) in tail for pid in idle)
          and all(len(l) <= 80 for l in tail.splitlines()), "one list for processes without GCs: %r" % tail)
# Two traces in one database: each heading names its trace; --trace narrows to one, without it
two = os.path.join(WORK, "two.db")
shutil.copyfile(db, two)
run(["import", "-d", two, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dotnet", "fixtures",
                                       "gcprog-alloc.nettrace")])
lines = run(["stats", two]).stdout.splitlines()
# the trace on the heading's line, or on the next when the line would pass 80 columns
heads = [l + (lines[i + 1] if i + 1 < len(lines) and lines[i + 1].startswith("  [trace") else "")
         for i, l in enumerate(lines) if l.startswith("GC Stats for Process")]
check(len(heads) == len(with_gcs) + 1 and all(re.search(r"  \[trace \d+: .+\]$", h) for h in heads),
      "headings name their trace: %r" % heads)
check(all(len(l) <= 80 or l.startswith("  [trace") for l in lines), "stats text within 80 columns")
heads = [l for l in run(["stats", two, "--trace", "1"]).stdout.splitlines() if l.startswith("GC Stats for Process")]
check(len(heads) == len(with_gcs) and not any("[trace" in h for h in heads), "--trace 1: %r" % heads)
# A terminal-sized report: the N longest pauses, the full table only with --gcs all
check("All GC Events" not in txt and "GCs with the longest pauses" in txt, "default text lists the longest pauses")
full = run(["stats", db, "--gcs", "all"]).stdout
check("All GC Events" in full and full.count("\n") > txt.count("\n") - 5, "--gcs all: every GC")
top3 = run(["stats", db, "--gcs", "3", "--pid", str(with_gcs[0])]).stdout
# -p is --pid, as in perf and dotnet-trace
check(run(["stats", db, "--gcs", "3", "-p", str(with_gcs[0])]).stdout == top3, "-p PID: the report of --pid PID")
sec = top3[top3.index("GCs with the longest pauses"):]
rows = [l for l in sec.splitlines()[3:] if l.strip() and l.strip()[0].isdigit()][:3]
want = sorted(((g["pause_msec"], g["index"]) for g in procs[with_gcs[0]]["gcs"] if g["complete"]),
              key=lambda x: (-x[0], x[1]))
ncomplete = len(want)
check([int(r.split()[0].replace(",", "")) for r in rows] == [i for _, i in want[:3]],
      "--gcs 3: the three longest pauses first: %r vs %r" % (rows, want[:3]))
more = ncomplete - 3
check(more <= 0 or ("... %d more: --gcs all" % more) in sec, "--gcs 3: says how many more (%d)" % more)
# On a terminal the text goes through $GCSCOPE_PAGER (or $PAGER, else less -FRX); --no-pager turns it off
import pty


def on_tty(args, pager):
    env = dict(os.environ, GCSCOPE_PAGER=pager)
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(GCSCOPE, [GCSCOPE] + args, env)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    return out.decode(errors="replace")


paged = on_tty(["stats", db], "sed s/^/paged:/")
check("paged:GC Stats for Process" in paged, "text on a terminal goes through the pager")
check("paged:" not in on_tty(["stats", db, "--no-pager"], "sed s/^/paged:/"), "--no-pager")
p = run(["stats", db, "--gcs", "x"], ok=False)
check(p.returncode == 2 and p.stderr.startswith("gcscope stats: --gcs"), "bad --gcs")
html = run(["stats", db, "--format", "html"]).stdout
check(html.count("<svg") == 3 * len(with_gcs) and "http://" not in html.replace("http://www.w3.org/2000/svg", ""),
      "html self-contained with 3 charts per process (pauses, heap, MMU)")
check(html.count("<h4>Minimum mutator utilisation (MMU)</h4>") == len(procs), "an MMU section per process")
# The advisor's findings (computed on a second connection and thread while the
# report loads) sit in their own process's section, with the titles `advise`
# gives that process, and in no other.
adv = json.loads(run(["advise", db, "--format", "json"]).stdout)
titles = {p["pid"]: [f["title"] for f in p["findings"]] for p in adv["processes"]}
sections = {int(s.split(":", 1)[0]): s for s in html.split("<h3>GC Stats for Process ")[1:]}
check(set(titles) <= set(sections) and sum(map(len, titles.values())) >= 3,
      "html sections %s, advise processes %s (>= 3 findings in all)" % (sorted(sections), sorted(titles)))
for pid in set(sections) - set(titles):   # a process with GC events but no GC: nothing to advise
    check("Advisor findings" not in sections[pid], "pid %d: no findings block without GCs" % pid)
for pid, ts in titles.items():
    sec = sections.get(pid, "")
    check(sec.count("Advisor findings (gcscope advise)") == 1, "pid %d: one findings block" % pid)
    for t in ts:
        check(html.count(html_escape(t)) == 1 and html_escape(t) in sec, "pid %d: finding %r in its section only" % (pid, t))
check(html.count("<circle") == sum(sum(m["mmu"] is not None for m in p["summary"]["mmu"]) for p in procs.values()),
      "an MMU chart point per defined window size")
csv = run(["stats", db, "--format", "csv"]).stdout.splitlines()
check(len(csv) == 12 and "gc_index" in csv[0].split(","), "csv: header + 11 rows")

# sql: read-only unless --write
out = run(["sql", db, "SELECT count(*) AS n FROM gcs WHERE complete = 1", "--csv"]).stdout
check(out == "n\n11\n", "sql count: %r" % out)
p = run(["sql", db, "DELETE FROM gcs"], ok=False)
check(p.returncode != 0 and p.stderr.count("\n") == 1 and p.stderr.startswith("gcscope sql:"), "sql read-only")
check("use --write" in p.stderr, "a refused write says to use --write: %r" % p.stderr)
# VACUUM INTO writes another file through a read-only connection: refused too
vac = os.path.join(WORK, "vacuumed.db")
if os.path.exists(vac):
    os.remove(vac)
p = run(["sql", db, "VACUUM INTO '%s'" % vac], ok=False)
check(p.returncode != 0 and "use --write" in p.stderr and not os.path.exists(vac), "VACUUM INTO without --write")
# statements from stdin: refused without --write, run with it; the shell goes on after an error
wdb = os.path.join(WORK, "writable.db")
shutil.copyfile(db, wdb)
p = run(["sql", wdb], ok=False, stdin="CREATE TABLE z (a);\nSELECT count(*) FROM gcs;\n")
check(p.returncode == 1 and p.stderr.count("\n") == 1 and "use --write" in p.stderr and "11" in p.stdout,
      "stdin without --write: %d %r %r" % (p.returncode, p.stderr, p.stdout))
p = run(["sql", wdb, "--write"], stdin="CREATE TABLE z (a);\nINSERT INTO z VALUES (7);\n")
out = run(["sql", wdb, "SELECT a FROM z", "--csv"]).stdout
check(out == "a\n7\n", "stdin with --write: %r" % out)
# the shell's dot-commands: .mode, .tables, .schema; an unknown one is an error and the shell goes on; .quit
p = run(["sql", wdb], ok=False, stdin=".mode csv\nSELECT count(*) AS n FROM gcs;\n.tables\n.schema gc_pauses\n"
                                        ".bogus\nSELECT 7 AS seven;\n.quit\nSELECT 8 AS eight;\n")
check(p.returncode == 1 and "n\n11\n" in p.stdout and "gc_pauses,view" in p.stdout
      and "CREATE VIEW gc_pauses AS" in p.stdout and "seven\n7\n" in p.stdout and "eight" not in p.stdout
      and p.stderr.count("\n") == 1 and ".bogus" in p.stderr, "dot-commands: %r %r" % (p.stdout[-300:], p.stderr))
run(["sql", wdb, "VACUUM INTO '%s'" % vac, "--write"])
check(os.path.exists(vac), "VACUUM INTO with --write")
out = json.loads(run(["sql", db, "SELECT gc_index FROM gcs WHERE pid = %d ORDER BY gc_index LIMIT 2" % with_gcs[0], "--json"]).stdout)
check([r["gc_index"] for r in out] == [1, 2], "sql --json")

# stats on a trace path imports into ./gcscope.db first
cwd = os.path.join(WORK, "cwd")
shutil.rmtree(cwd, ignore_errors=True)
os.makedirs(cwd)
js2 = json.loads(run(["stats", TRACE, "--format", "json"], cwd=cwd).stdout)
check(os.path.exists(os.path.join(cwd, "gcscope.db")), "default database created")
check(sum(p["summary"]["gc_count"] for p in js2["processes"]) == 11, "stats TRACE: 11 GCs")

# bad inputs: one line on stderr, non-zero exit
other = os.path.join(WORK, "other.db")
if os.path.exists(other):
    os.remove(other)
c = sqlite3.connect(other)
c.execute("CREATE TABLE t (x)")
c.commit()
c.close()
for args, what in (([ "stats", other], "not a gcscope DB"),
                   (["stats", os.path.join(WORK, "missing.db")], "missing file"),
                   (["stats", db, "--format", "xml"], "bad --format"),
                   (["events", other], "events on a non-gcscope DB"),
                   (["sql", os.path.join(WORK, "missing.db"), "SELECT 1"], "sql missing file")):
    p = run(args, ok=False)
    check(p.returncode != 0 and p.stderr.count("\n") == 1 and p.stderr.startswith("gcscope "),
          what + ": %d %r" % (p.returncode, p.stderr))

if failed():
    print("%d failure(s)" % failed(), file=sys.stderr)
    sys.exit(1)
print("ok")
