#!/usr/bin/env python3
"""width80.py GCSCOPE WORKDIR FIXTURES TRACES -- "Text output fits 80 columns"
for every report command, not only stats (report.width):

1. every report in text form (stats, impact, triggers, allocs, handles,
   stacks, heaps, advise, diff, their --stacks forms) on the .NET fixtures and
   the real CoreCLR traces, imported into databases with short names: no line
   of stdout or stderr passes 80 columns. Error and warning lines are measured
   with the input's path replaced by "c.db" (a user's long path may make them
   longer; they are not wrapped). `events` is left out: a line an event, like
   `perf script`.
2. usage and input errors of every command (a bad flag value, a missing kind
   of event, a database of several processes): one line each, within 80
   columns with the path "c.db".
3. exact values of the reflowed outputs: `impact` on webapp-requests (the
   figures as the JSON output and the database give them, one group a line)
   and `allocs` type names cut to the room left ("..." and the end of the
   full name that the CSV prints, worked out by hand below), whole with -w.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish  # noqa: E402
import report_dbs  # noqa: E402

G, WORK, FIX, TRACES = sys.argv[1:5]
run = report_dbs.runner(G, WORK)

INPUTS = report_dbs.inputs(FIX, TRACES)
report_dbs.import_all(run, INPUTS)


def too_wide(text, db):
    """The lines over 80 columns, the database's path counted as "c.db"."""
    return [l for l in text.replace(db, "c.db").splitlines() if len(l) > 80]


REPORTS = [
    ["stats", "--no-pager"], ["stats", "--no-pager", "--gcs", "all", "--section", "all"],
    ["impact"], ["impact", "--bands", "10,25,50,75,90,99,99.9", "--slowest", "30"],
    ["triggers"], ["triggers", "--gc-over", "1", "--suspend-over", "0.1", "--bgc-final-pause-over", "1"],
    ["allocs"], ["allocs", "--stacks"], ["handles"],
    ["stacks"], ["stacks", "-e", "GCTriggered"], ["stacks", "-e", "GCHandle"], ["stacks", "-e", "GCStart"],
    ["heaps"], ["heaps", "--all"], ["advise"],
]
for name in INPUTS:
    db = name + ".db"
    for args in REPORTS:
        rc, out, err = run(args[0], db, *args[1:])
        wide = too_wide(out + err, db)
        check(not wide, "%s %s: %d line(s) over 80 columns" % (" ".join(args), db, len(wide)), "\n".join(wide[:5]))
        check(rc != 0 or out, "%s %s: a report" % (" ".join(args), db))
        check(rc == 0 or len(err.strip().splitlines()) >= 1, "%s %s: an error says why" % (" ".join(args), db))

# diff: two runs of one program, two programs, with stacks, and a database of
# several processes (refused in one line).
for a, b, extra in (("sweep", "phh", []), ("net8", "datas", []), ("web", "alloc", []), ("obj4", "datas", []),
                    ("stk", "dt", ["--stacks"]), ("stk", "dt", ["--stacks", "--event", "GCTriggered"]),
                    ("clr", "obj4", []), ("startup", "obj4", [])):
    rc, out, err = run("diff", a + ".db", b + ".db", *extra)
    text = (out + err).replace(a + ".db", "c.db").replace(b + ".db", "c.db")
    wide = [l for l in text.splitlines() if len(l) > 80]
    check(not wide, "diff %s %s %s: %d line(s) over 80 columns" % (a, b, " ".join(extra), len(wide)), "\n".join(wide))

# triggers --rules: a rule's description too long for one line wraps, its
# firing count under it.
RULES = os.path.join(WORK, "rules.txt")
open(RULES, "w").write(
    "long-gen2: pair=gc-over over=5 gen=2 type=nonconcurrent\n"
    "slow-susp: pair=suspend-over over=0.05 reason=SuspendForGC cooldown=30 max=3\n"
    "whole: start=GCSuspendEEBegin stop=GCRestartEEEnd key=thread where=Reason=SuspendForGC over=2\n"
    "busy: metric=pct-pause window=10 above=1 sustain=0 action=log\n")
for name in ("obj4", "datas", "clr"):
    rc, out, err = run("triggers", name + ".db", "--rules", RULES, "--gc-over", "1")
    wide = too_wide(out + err, name + ".db")
    check(rc == 0 and "  Rules\n" in out and not wide, "triggers --rules %s: within 80 columns" % name,
          "\n".join(wide) + err)
rc, out, err = run("triggers", "obj4.db", "--rules", RULES)
check(re.search(r"^    whole \(GCSuspendEEBegin -> GCRestartEEEnd by thread > 2 ms, Reason=1\):\n      478 firings\n",
                out, re.M) is not None, "triggers --rules: the long description wrapped, 478 firings under it", out)

# Errors: one line within 80 columns (path "c.db"), the exact new wording for
# the missing kinds of events.
os.symlink("alloc.db", os.path.join(WORK, "c.db"))
os.symlink("clr.db", os.path.join(WORK, "m.db"))
open(os.path.join(WORK, "c.nt"), "w").write("not a trace\n")
ONE_LINE = {
    ("handles", "c.db"): "gcscope handles: no GC handle events in c.db (record with --profile handles)",
    ("allocs", "c.db"): "gcscope allocs: no AllocationTick events in c.db (record with --profile alloc)",
    ("stacks", "c.db"): "gcscope stacks: no AllocationTick events in c.db (record with --profile alloc)",
    ("stacks", "c.db", "-e", "GCHandle"): "gcscope stacks: no GCHandle events in c.db (record with --profile handles)",
    ("impact", "c.db"): "gcscope impact: no requests in c.db (record --requests aspnet; or --begin/--end)",
    ("diff", "m.db", "c.db"): "gcscope diff: m.db holds 2 processes with GCs (pid 5747, 5767): give DB:PID",
}
for args, want in ONE_LINE.items():
    rc, out, err = run(*args)
    check(rc == 1 and err == want + "\n" and len(want) <= 80, "%s: %r" % (" ".join(args), want), err)
BAD = [
    ["stats", "c.db", "--section", "nosuch"], ["stats", "c.db", "--format", "xml"], ["stats", "c.db", "--pid", "1"],
    ["stats", "/nonexistent/c.db"], ["events", "c.db", "--filter", "("], ["sql", "c.db", "DELETE FROM gcs"],
    ["sql", "c.db", "SELECT * FROM nosuch"], ["impact", "c.db", "--bands", "90,50"],
    ["impact", "c.db", "--begin", "GCStart"], ["impact", "c.db", "--key", "x"],
    ["impact", "c.db", "--begin", "NoSuchStart", "--end", "NoSuchStop"], ["triggers", "c.db", "--rules", "/nonexistent"],
    ["heaps", "tick.db"], ["advise", "c.db", "--fail-on", "info"], ["stacks", "c.db", "--event", "Nope"],
    ["stacks", "c.db", "--by", "reason"], ["stacks", "c.db", "--pid", "1"], ["export", "c.db", "--format", "xml"],
    ["diff", "c.db"], ["import", "-d", "x.db", "c.nt"], ["allocs", "c.db", "--top", "0"],
    ["record", "--transport", "nope", "--", "true"], ["record", "--profile", "nope", "--", "true"],
    ["serve", "--listen", "nope"], ["serve", "-o", "x"], ["ps", "--nope"], ["top", "c.db", "--nope"],
]
for args in BAD:
    rc, out, err = run(*args)
    lines = err.replace("/nonexistent/c.db", "c.db").splitlines()
    check(rc != 0 and len(lines) == 1 and len(lines[0]) <= 80,
          "%s: one error line within 80 columns (exit %d)" % (" ".join(args), rc), err)

# impact, reflowed: each figure as the JSON output has it (the pause split from
# the gcs table), one group a line.
import json  # noqa: E402
rc, js, _ = run("impact", "web.db", "--format", "json")
p = json.loads(js)["processes"][0]
pc = p["percentiles"]
rc, txt, _ = run("impact", "web.db")
f3 = "%.3f".__mod__
want = ["  Latency ms: p50 %s p90 %s p95 %s" % (f3(pc["p50"]), f3(pc["p90"]), f3(pc["p95"])),
        "              p99 %s p99.9 %s Max %s" % (f3(pc["p99"]), f3(pc["p99.9"]), f3(pc["max"])),
        "  Affected by GC: %d (%s %%)" % (p["affected"], f3(p["affected_pct"])),
        "  GC impact in them: %s %% (%s ms of %s ms)" % (f3(p["gc_impact_pct"]), f3(p["affected_gc_ms"]),
                                                      f3(p["affected_latency_ms"])),
        "  Hit by more than one GC: %d" % p["multi_gc_requests"]]
check("\n".join(want) + "\n" in txt, "impact: the figures one group a line", "\n".join(want) + "\n---\n" + txt)
# ... the values themselves as measured before the reflow (main's one-line text)
check("  Latency ms: p50 0.656 p90 9.411 p95 13.494\n              p99 185.369 p99.9 190.552 Max 191.128\n"
      "  Affected by GC: 19 (31.148 %)\n  GC impact in them: 12.664 % (77.838 ms of 614.655 ms)\n"
      "  Hit by more than one GC: 4\n" in txt, "impact: webapp-requests' figures unchanged", txt)
rc, q, _ = run("sql", "web.db", "SELECT count(*), printf('%.3f', sum(pause_msec)), printf('%.3f', sum(suspend_msec)), "
               "printf('%.3f', sum(pause_msec) - sum(suspend_msec)), printf('%.3f', sum(suspend_msec) * 100.0 / "
               "sum(pause_msec)), printf('%.3f', 100.0 - sum(suspend_msec) * 100.0 / sum(pause_msec)) FROM gcs "
               "WHERE complete = 1", "--csv")
n, pause, susp, work, sp, wp = q.strip().splitlines()[1].split(",")
want = ("  GC pauses: %s ms in %s complete GCs\n    = suspending threads %s ms (%s %%)\n    + GC work %s ms (%s %%)\n"
        % (pause, n, susp, sp, work, wp))
check(want in txt and "GC pauses: 36.578 ms in 15 complete GCs" in txt, "impact: the pause split on three lines",
      want + "---\n" + txt)
rows = {}
for b in p["bands"]:
    lo, hi = b["lo_ms"], b["hi_ms"]
    rng = "<= %.3f" % hi if lo is None else "> %.3f" % lo if hi is None else "%.3f-%.3f" % (lo, hi)
    rows[b["band"]] = [rng, str(b["requests"]), f3(b["latency_ms"]), f3(b["gc_ms"]), f3(b["gc_share_pct"])]
for line in txt.splitlines():
    for band, cells in rows.items():
        if line.startswith("  " + band + " "):
            check(line[2 + len(band):].split() == " ".join(cells).split(), "impact band %s: %r" % (band, line))
            rows[band] = None
check(all(v is None for v in rows.values()) and re.search(
      r"^  Band +Latency range ms +Requests +Latency ms +GC ms +GC share %$", txt, re.M) is not None,
      "impact: every band row", txt)
check(re.search(r"^  Path +Requests +p50 ms +p99 ms +Affected% +GC share%\n  /alloc/30 +60 +0\.572 +185\.465 +31\.667"
                r" +11\.749\n  /quit +1 +7\.591 +7\.591 +0\.000 +0\.000$", txt, re.M) is not None, "impact: paths", txt)
check(re.search(r"^ +201796191103710119 +1514\.589 +155\.063 +6\.779  #1 #2 #3 #4$", txt, re.M) is not None,
      "impact: a slow request and its GCs", txt)
check(max(len(l) for l in txt.splitlines()) <= 80, "impact: 80 columns")

# allocs: a type name that does not fit is cut to "..." and the end of the
# name the CSV prints; the cut line is then exactly 80 columns. By hand:
# netcore2017-allocationtick's 9th type (CSV) is
# "Slot[Microsoft.Build.Construction.ProjectStringCache+StringCacheEntry][]"
# (72 characters); the text's numbers take 51 columns and a space, leaving 28:
# "..." + its last 25 characters, "ache+StringCacheEntry][]" preceded by "gC":
# "...gCache+StringCacheEntry][]".
rc, csv, _ = run("allocs", "tick.db", "--format", "csv")
full = {}
for line in csv.splitlines()[1:]:
    m = re.match(r'^(\d+),(\d+),(\d+),("(?:[^"]|"")*"|[^,]*),', line)
    full[(m.group(2), m.group(3))] = m.group(4).strip('"').replace('""', '"')
check(full.get(("12298", "9")) == "Slot[Microsoft.Build.Construction.ProjectStringCache+StringCacheEntry][]",
      "allocs csv: the whole name", csv)
check(full.get(("12298", "5")) == "System.Text.RegularExpressions.Match", "allocs csv: type 5", csv)
rc, txt, _ = run("allocs", "tick.db")
rc, wtxt, _ = run("allocs", "tick.db", "-w")
check(re.search(r"^ +9 +3 +0\.359 +2\.527 +0\.218 +0\.142 +0\.000 \.\.\.gCache\+StringCacheEntry\]\[\]$", txt, re.M)
      is not None, "allocs: type 9 cut to its end", txt)
check(re.search(r"^ +5 +6 +0\.641 +4\.506 +0\.641 +0\.000 +0\.000 \.\.\.t\.RegularExpressions\.Match$", txt, re.M)
      is not None, "allocs: type 5 cut to its end", txt)
check(re.search(r"^ +9 +3 +0\.359 +2\.527 +0\.218 +0\.142 +0\.000 Slot\[Microsoft\.Build\.Construction\."
                r"ProjectStringCache\+StringCacheEntry\]\[\]$", wtxt, re.M) is not None, "allocs -w: the whole name", wtxt)


def rows_of(text):
    """(pid, rank) -> (line, the name shown) of an allocs text."""
    pid, out = None, {}
    for line in text.splitlines():
        m = re.match(r"^pid (\d+), trace", line)
        if m:
            pid = m.group(1)
        m = re.match(r"^ +(\d+) +\d+ .* (\S+)$", line)
        if m and pid is not None:
            out[(pid, m.group(1))] = (line, m.group(2))
    return out


cut, whole = 0, 0
shown_rows, wide_rows = rows_of(txt), rows_of(wtxt)
check(len(shown_rows) == len(full) and set(wide_rows) == set(full), "allocs: every row in text and -w")
for key, (line, shown) in shown_rows.items():
    name = full[key]
    check(len(line) <= 80, "allocs: %r within 80 columns" % line)
    check(wide_rows.get(key, ("", ""))[1] == name, "allocs -w: %r whole" % name, wide_rows.get(key))
    if shown == name:
        whole += 1
    else:
        cut += 1
        check(shown.startswith("...") and name.endswith(shown[3:]) and len(line) == 80,
              "allocs: %r is '...' and the end of %r, to column 80" % (shown, name), line)
check(cut >= 10 and whole >= 10, "allocs: names cut (%d) and whole (%d)" % (cut, whole))
sys.exit(finish())
