#!/usr/bin/env python3
"""unknown.py GCSCOPE WORKDIR FIXTURES TRACES -- "Unknown prints as 'unknown'
(text), and as null in JSON; never NaN or -1 in output" for every report:

1. every report command (stats, impact, triggers, allocs, handles, stacks,
   heaps, advise, diff, export's JSON) in each of its formats on the .NET
   fixtures and the real CoreCLR traces: no figure reads nan, inf, infinity
   or -1 (a word of its own, so "-1" inside a range like "1-2" or a name
   does not count).
2. the unknown cases, provoked and asserted exactly:
   - impact on requests of 0 ms latency (a CSV of requests whose end is
     their start): the band they fill has Latency ms 0.000 and GC ms 0.000,
     so its GC share is 0/0, not known: "unknown" in text (the table's
     column keeps its width), an empty field in CSV (as sqlite3 -csv prints
     NULL), null in JSON; the JSON's figures of that band are the CSV's;
   - impact with requests of one process only, on a database of two
     processes: the one without requests is not reported (no figures of
     nothing, no -1), the other is;
   - top on an incomplete GC (no heap stats): tests/tui/test_top_db.py;
   - diff of a run with GCStart/GCEnd only (no suspensions: % time paused
     and the MMU not known) against a full one: those rows read "unknown"
     base, "unknown" change and "unknown" ratio, null in JSON, never "-",
     which is only a ratio over a base of 0.
"""
import csv
import io
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish  # noqa: E402
import report_dbs  # noqa: E402

G, WORK, FIX, TRACES = sys.argv[1:5]
run = report_dbs.runner(G, WORK)

ALL = report_dbs.inputs(FIX, TRACES)
INPUTS = {k: ALL[k] for k in ("web", "stk", "alloc", "sweep", "datas", "net8", "tick", "clr", "gcend", "obj4")}
report_dbs.import_all(run, INPUTS)

# nan, inf, infinity as a word; -1 as a word of its own (not "1-2", "x-1", "-1.5")
BAD = re.compile(r"(?<![\w.])(-?nan|[-+]?inf(inity)?)(?![\w.])|(?<![\w.\-])-1(?![\w.\-])", re.I)
NAN = re.compile(r"(?<![\w.])(-?nan|[-+]?inf(inity)?)(?![\w.])", re.I)
FORMATS = {
    "stats": ["text", "csv", "json", "html"], "impact": ["text", "csv", "json", "html"],
    "triggers": ["text", "csv", "json"], "allocs": ["text", "csv"], "handles": ["text", "csv"],
    "heaps": ["text", "csv"], "advise": ["text", "json"], "stacks": ["text"],
}
# Columns that are ids or enums, where -1 is the schema's "none" (docs/schema.md: a pid, tid or
# CPU of -1; a type id of -1), are not figures: stats' CSV carries the gcs table whole.
ID_COLS = re.compile(r"^(pid|tid|cpu|type_id|heap|.*_id|.*_index)$")


def bad_in_csv(text):
    """The fields of a CSV that read nan/inf/-1, outside the id columns."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return []
    head, out = rows[0], []
    for r in rows[1:]:
        for h, v in zip(head, r):
            if not ID_COLS.match(h) and BAD.fullmatch(v.strip()):
                out.append("%s=%s" % (h, v))
    return out


def bad_in_json(v, path=""):
    """The numbers of a JSON that are -1 (nan and inf are not JSON)."""
    if isinstance(v, dict):
        return [b for k, x in v.items() for b in bad_in_json(x, path + "." + k)]
    if isinstance(v, list):
        return [b for i, x in enumerate(v) for b in bad_in_json(x, path + "[%d]" % i)]
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v == -1 and not ID_COLS.match(path.split(".")[-1]):
        return [path]
    return []


scanned = 0
for name in INPUTS:
    db = name + ".db"
    for cmd, fmts in FORMATS.items():
        for fmt in fmts:
            rc, out, err = run(cmd, db, "--format", fmt) if fmt != "text" else run(cmd, db)
            if rc != 0:
                continue   # (a report the trace has no events for: its one error line, tests/report/width80.py)
            scanned += 1
            where = "%s %s --format %s" % (cmd, db, fmt)
            if fmt == "csv":
                bad = bad_in_csv(out)
            elif fmt == "json":
                try:
                    bad = bad_in_json(json.loads(out, parse_constant=lambda c: "BAD:" + c))
                    bad += re.findall(r"\bNaN\b|\bInfinity\b", out)
                except ValueError as e:
                    bad = ["not JSON: %s" % e]
            else:
                bad = [m.group(0) + ": " + out[max(0, m.start() - 40):m.end() + 20].replace("\n", " | ")
                       for m in BAD.finditer(out)]
            bad += [m.group(0) for m in BAD.finditer(err.replace(db, "c.db"))]
            check(not bad, "%s: no nan/inf/-1" % where, "\n".join(bad[:5]))
    out_json = os.path.join(WORK, name + ".chrome.json")
    rc, _, err = run("export", db, "--format", "chrome-json", "-o", out_json)
    if rc == 0:
        scanned += 1
        text = open(out_json).read()
        check(re.search(r"\bNaN\b|\bInfinity\b|\bnan\b", text) is None, "export %s: no NaN" % db)
        try:
            json.loads(text)
        except ValueError as e:
            check(False, "export %s: JSON: %s" % (db, e))
for a, b in (("sweep", "datas"), ("gcend", "clr"), ("clr", "gcend"), ("web", "alloc")):
    for fmt in ("text", "json", "html"):
        rc, out, err = run("diff", a + ".db", b + ".db", "--format", fmt)
        if rc not in (0, 1) or not out:
            continue
        scanned += 1
        # (a change of -1 is a figure: 1 GC fewer; only nan and inf are looked for in the change column)
        if fmt == "json":
            try:
                bad = [m["name"] for m in json.loads(out)["metrics"] if -1 in (m["base"], m["candidate"])]
            except ValueError as e:
                bad = ["not JSON: %s" % e]
        else:
            bad = [m.group(0) for m in NAN.finditer(out)]
        check(not bad, "diff %s %s --format %s: no nan/inf/-1" % (a, b, fmt), "\n".join(bad[:5]))
print("reports scanned: %d" % scanned)
check(scanned >= 60, "reports scanned: %d" % scanned)

# --- impact: a band of requests with 0 ms latency ---------------------------
# webapp-requests' one process; 12 requests: 8 of 0 ms (end = start) before
# any GC, 4 of 1, 2, 3, 4 ms. The default cuts 50,90,99: the <= P50 band
# holds 0 ms requests only (nearest rank: P50 of the 12 latencies is the
# 6th, 0 ms).
rc, pj, _ = run("sql", "web.db", "SELECT pid, min(start_ns) AS s FROM gcs GROUP BY pid", "--json")
pid, t0 = json.loads(pj)[0]["pid"], int(json.loads(pj)[0]["s"]) - 10 ** 8   # 100 ms before the first GC
reqs = os.path.join(WORK, "zero.csv")
with open(reqs, "w") as f:
    f.write("id,start_ns,end_ns,pid\n")
    for i in range(8):
        f.write("%d,%d,%d,%d\n" % (i + 1, t0 + i * 1000, t0 + i * 1000, pid))
    for i in range(4):
        f.write("%d,%d,%d,%d\n" % (100 + i, t0 + 10 ** 6 * (10 + i), t0 + 10 ** 6 * (10 + i) + 10 ** 6 * (i + 1), pid))
rc, txt, err = run("impact", "web.db", "--requests", reqs)
check(rc == 0, "impact --requests zero.csv", err)
m = re.search(r"^  Band +Latency range ms +Requests +Latency ms +GC ms +GC share %\n(  <= P50 .*)$", txt, re.M)
check(m is not None and m.group(1).split() == ["<=", "P50", "<=", "0.000", "8", "0.000", "0.000", "unknown"],
      "impact: the 0 ms band's GC share is unknown", txt)
head = re.search(r"^  Band .*$", txt, re.M)
check(m is not None and head is not None and len(m.group(1)) == len(head.group(0)),
      "impact: the band's row as wide as its header", txt)
check(max(len(l) for l in txt.splitlines()) <= 80 and not BAD.search(txt) and " - " not in txt.split("Band")[1],
      "impact text: 80 columns, no nan/-1, no '-' cell", txt)
rc, js, _ = run("impact", "web.db", "--requests", reqs, "--format", "json")
band = json.loads(js)["processes"][0]["bands"][0]
check(band["requests"] == 8 and band["latency_ms"] == 0 and band["gc_ms"] == 0 and band["gc_share_pct"] is None,
      "impact json: the 0 ms band, gc_share_pct null: %r" % band)
rc, cs, _ = run("impact", "web.db", "--requests", reqs, "--format", "csv")
rows = list(csv.DictReader(io.StringIO(cs)))
check(len(rows) == 1 and rows[0].get("le_p50_requests") == "8" and rows[0].get("le_p50_gc_share_pct") == "",
      "impact csv: the 0 ms band's share an empty field: %r" % rows)

# --- impact: requests of one process on a database of two --------------------
rc, pj, _ = run("sql", "clr.db", "SELECT pid, min(start_ns) AS s FROM gcs GROUP BY pid ORDER BY pid", "--json")
procs = json.loads(pj)
check(len(procs) == 2, "clr.db: two processes with GCs: %r" % procs)
one = os.path.join(WORK, "one.csv")
with open(one, "w") as f:
    f.write("id,start_ns,end_ns,pid\n")
    for i in range(5):
        s = int(procs[0]["s"]) - 10 ** 6 + i * 10 ** 5
        f.write("%d,%d,%d,%d\n" % (i + 1, s, s + 3 * 10 ** 6, procs[0]["pid"]))
rc, txt, err = run("impact", "clr.db", "--requests", one)
check(rc == 0 and re.search(r"^Process %d\b" % procs[0]["pid"], txt, re.M) is not None
      and re.search(r"^Process %d\b" % procs[1]["pid"], txt, re.M) is None and not BAD.search(txt),
      "impact: the process without requests left out", txt + err)
rc, js, _ = run("impact", "clr.db", "--requests", one, "--format", "json")
ps = json.loads(js)["processes"]
check([p["pid"] for p in ps] == [procs[0]["pid"]] and ps[0]["requests"] == 5 and not bad_in_json(ps),
      "impact json: one process, 5 requests: %r" % [(p["pid"], p["requests"]) for p in ps])

# --- stats: the rollup's SurvMB/msGC without GC CPU time ----------------------
# eventpipe objver4 (CoreCLR 3.0 sends no GC CPU time; gc_cpu_msec NULL on every
# GC): PerfView's MB promoted / ms of GC CPU is not known where a row has GCs,
# and "-" (none) in the gen2 row, which has no GC: every cell of it as before.
rc, txt, _ = run("stats", "obj4.db", "--wide", "--no-pager")
rows = {l.split()[0]: l.split() for l in txt.split("GC Rollup By Generation")[1].splitlines()[3:7]}
check(rows.get("ALL", [])[-3:] == ["unknown", "16.2", "0"] and rows.get("0", [])[-3:] == ["unknown", "16.2", "0"]
      and rows.get("1", [])[-3:] == ["unknown", "17.6", "0"], "stats rollup: SurvMB/msGC unknown: %r" % rows)
check(rows.get("2") == ["2", "0", "-", "-", "-", "0.0", "0.0", "-", "-", "-", "0"], "stats rollup: gen2 row of no GC",
      txt)
rc, sql_cpu, _ = run("sql", "obj4.db", "SELECT count(*) AS n FROM gcs WHERE gc_cpu_msec IS NOT NULL", "--json")
check(json.loads(sql_cpu) == [{"n": 0}], "obj4: no GC CPU time in the trace: %s" % sql_cpu)

# --- stats: a per-GC column the trace does not give --------------------------
# netcore31-perfcollect-default has no GC CPU time: % GC (NULL in gcs.pct_gc)
# of its gen2 GC 7 reads "unknown" in the --wide table (PerfView: NaN), its
# other cells the gcs row's figures (Pause 46.851, % Pause Time 41.8, Ratio
# Peak/After 2.11: the gcs row, read below).
rc, q, _ = run("sql", "clr.db", "SELECT printf('%.3f', pause_msec) AS p, printf('%.1f', pct_pause_time) AS pp, "
               "printf('%.2f', ratio_peak_after) AS r, pct_gc FROM gcs WHERE pid = 5767 AND gc_index = 7", "--json")
check(json.loads(q) == [{"p": "46.851", "pp": "41.8", "r": "2.11", "pct_gc": None}], "clr.db GC 7: %s" % q)
rc, txt, _ = run("stats", "clr.db", "--wide", "--no-pager", "--pid", "5767")
m = re.search(r"^Gen 2 GCs\n(GC Index .*)\n-+\n( +7 .*)$", txt, re.M)
if m:
    head, row = m.group(1), m.group(2)
    at = head.index("% GC") + len("% GC")
    check(row[:at].split()[-1] == "unknown" and row.split()[5] == "46.851" and row[:at].split()[-2] == "41.8",
          "stats --wide: GC 7's %% GC unknown: %r" % row)
    at = head.index("Ratio Peak/After") + len("Ratio Peak/After")
    check(row[:at].split()[-1] == "2.11", "stats --wide: GC 7's Ratio Peak/After: %r" % row)
check(m is not None, "stats --wide: the gen2 table", txt)

# --- stats: a stop-rule firing whose value is NULL ----------------------------
# Two firings written into a copy of web.db: one without its value (NULL)
# and no capture, one of 12.5 ms with a capture. The value reads "unknown"
# (JSON null); "-" is the Capture column's "none" only.
shutil.copy(os.path.join(WORK, "web.db"), os.path.join(WORK, "fir.db"))
rc, _, err = run("sql", "fir.db", "--write", "INSERT INTO trigger_firings (trace_id, pid, gc_index, rule, kind, value, "
                 "capture, verdict) VALUES (1, %d, 3, 'gc-over', 'gc-over', NULL, NULL, 'logged'), "
                 "(1, %d, 4, 'gc-over', 'gc-over', 12.5, 'cap-1', 'verified')" % (pid, pid))
check(rc == 0, "sql --write firings", err)
rc, txt, _ = run("stats", "fir.db", "--no-pager")
check(re.search(r"^3 +gc-over +gc-over +unknown +- +logged$", txt, re.M) is not None
      and re.search(r"^4 +gc-over +gc-over +12\.500 ms +cap-1 +verified$", txt, re.M) is not None,
      "stats firings: value unknown, capture '-' (none)", txt)
rc, js, _ = run("stats", "fir.db", "--format", "json")
f = json.loads(js)["processes"][0]["firings"]
check([(x["gc_index"], x["value"], x["capture"]) for x in f] == [(3, None, None), (4, 12.5, "cap-1")],
      "stats json firings: %r" % f)

# --- diff: a run whose duration is 0 ms ----------------------------------------
# clr.db's process 5747 with gc_process_summary.process_duration_msec set to
# 0 (sql --write): its allocation rate (MB / 0 s) and its MMU (over no run)
# are not known. Their rows read "unknown" base, change and ratio (JSON
# null); "-" stays the ratio over a base of 0 (gen2: 0 -> 1).
shutil.copy(os.path.join(WORK, "clr.db"), os.path.join(WORK, "nul.db"))
rc, _, err = run("sql", "nul.db", "--write", "UPDATE gc_process_summary SET process_duration_msec = 0 WHERE pid = 5747")
check(rc == 0, "sql --write", err)
rc, txt, err = run("diff", "nul.db:5747", "clr.db:5767")
check(rc == 0, "diff nul.db:5747 clr.db:5767", err)
want = {"MMU 1 ms": "unknown 0.000 unknown unknown", "MMU 10 ms": "unknown 0.000 unknown unknown",
        "MMU 100 ms": "unknown 0.485 unknown unknown", "allocation rate (MB/s)": "unknown 29.5 unknown unknown",
        "gen2 blocking": "0 1 +1 -", "promoted per GC (MB)": "2.544 3.058 +0.514 1.202"}
for title, cells in want.items():
    row = [l for l in txt.splitlines() if l.strip().startswith(title + " ")]
    check(len(row) == 1 and row[0].strip()[len(title):].split() == cells.split(), "diff: %s reads %s" % (title, cells),
          txt)
check(max(len(l) for l in txt.splitlines()) <= 80 and not BAD.search(txt), "diff: 80 columns, no nan/-1", txt)
rc, js, _ = run("diff", "nul.db:5747", "clr.db:5767", "--format", "json")
ms = {m["name"]: m for m in json.loads(js)["metrics"]}
for n in ("mmu_1ms", "mmu_10ms", "mmu_100ms", "alloc_rate"):
    check(ms[n]["base"] is None and ms[n]["change"] is None and ms[n]["ratio"] is None and ms[n]["candidate"] is not None,
          "diff json: %s base, change and ratio null: %r" % (n, ms[n]))
sys.exit(finish())
