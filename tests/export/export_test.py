#!/usr/bin/env python3
"""`gcscope export` end to end.

usage: export_test.py GCSCOPE real TRACE WORKDIR
       export_test.py GCSCOPE handbuilt NETTRACE WORKDIR
       export_test.py GCSCOPE cli TRACE WORKDIR TRACE_WITHOUT_GCS

real: a real CoreCLR trace is exported in both formats (the trace argument is
  imported into WORKDIR/gcscope.db). The Chrome JSON must satisfy the Trace
  Event Format rules (tef_check.py), the protobuf must decode with the
  independent decoder (pb_decode.py); in both, the GC slices are exactly the
  GCs of the database (`gcscope sql`), each slice lasting its pause to the ns
  (and so pause_msec to the µs), each suspension its SuspendEEBegin->End.
handbuilt: a database whose gc rows are written here by hand (the schema comes
  from importing a small .nettrace, then its gc tables are replaced): a
  background GC with both pauses and a foreground GC inside it, LOH waits on
  two threads, a suspension that outlives its GC (clamped, noted in args), an
  incomplete GC (no slice), per-generation sizes. Every slice and counter
  point is compared with the values written.
cli: -h, usage errors (exit 2, one line), failures (exit 1).
"""
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pb_decode  # noqa: E402
import tef_check  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, MODE, INPUT, WORK = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3]), os.path.abspath(sys.argv[4])


def run(args, status=0):
    p = subprocess.run([GCSCOPE] + args, cwd=WORK, capture_output=True, timeout=300)
    check(p.returncode == status, "%s: exit %d, expected %d (%s)" % (" ".join(args), p.returncode, status,
                                                                   p.stderr.decode(errors="replace").strip()))
    return p


def sql(db, query):
    return json.loads(run(["sql", db, query, "--json"]).stdout or b"[]")


def export_both(arg, *extra):
    """(Chrome JSON document, pb_decode.Timeline, stderr of the JSON run)"""
    pj = run(["export", arg, "--format", "chrome-json", "-o", "t.json"] + list(extra))
    run(["export", arg, "--format", "perfetto", "-o", "t.pftrace"] + list(extra))
    doc = tl = None
    try:
        doc = tef_check.read(os.path.join(WORK, "t.json"))
        errs = tef_check.check(doc)
        check(not errs, "Trace Event Format: %s" % errs[:5])
    except ValueError as e:
        check(False, "chrome-json is not valid JSON: %s" % e)
    try:
        with open(os.path.join(WORK, "t.pftrace"), "rb") as f:
            tl = pb_decode.decode(f.read())
    except (ValueError, OSError) as e:
        check(False, "perfetto trace does not decode: %s" % e)
    return doc, tl, pj.stderr.decode()


def pb_slices(tl, pid):
    return {name: t.slices for name, t in tl.by_name(pid).items() if not t.counter}


def pb_counters(tl, pid):
    return {name: t.points for name, t in tl.by_name(pid).items() if t.counter}


def json_slices(doc, pid):
    return {track: v for (p, track), v in tef_check.slices(doc).items() if p == pid}


def json_counters(doc, pid):
    return {name: v for (p, name), v in tef_check.counters(doc).items() if p == pid}


def same_in_both(doc, tl, pid):
    """Both formats carry the same slices (name, start, end) and counter points."""
    js = {k: [(s[0], s[1], s[2]) for s in v] for k, v in json_slices(doc, pid).items()}
    ps = {k: [(s[0], s[1], s[2]) for s in v] for k, v in pb_slices(tl, pid).items()}
    check(js == ps, "pid %d: JSON and protobuf slices differ" % pid)
    check(json_counters(doc, pid) == pb_counters(tl, pid), "pid %d: JSON and protobuf counters differ" % pid)


# ---------------------------------------------------------------------------- real

def test_real():
    doc, tl, _ = export_both(INPUT)
    if doc is None or tl is None:
        return
    db = "gcscope.db"
    gcs = sql(db, "SELECT g.pid, g.gc_index, g.gen, g.type, g.reason_name, g.pause_msec, g.suspend_msec, "
                  "p.start_ns - t.start_ns AS start_rel, p.duration_ns, "
                  "g.suspend_begin_ns - t.start_ns AS sb, g.suspend_end_ns - t.start_ns AS se "
                  "FROM gcs g JOIN traces t ON t.id = g.trace_id "
                  "JOIN gc_pauses p ON p.trace_id = g.trace_id AND p.pid = g.pid AND p.gc_index = g.gc_index "
                  "AND p.kind = 'gc' ORDER BY g.pid, g.start_ns")
    total = sql(db, "SELECT count(*) AS n FROM gcs")[0]["n"]
    check(total > 0 and len(gcs) == total, "every GC of the trace has a timed pause (%d of %d)" % (len(gcs), total))
    pids = sorted({g["pid"] for g in gcs})
    procs = tef_check.processes(doc)
    for pid in pids:
        want = [g for g in gcs if g["pid"] == pid]
        name = sql(db, "SELECT name FROM processes WHERE pid = %d" % pid)[0]["name"]
        check(procs.get(pid, (None,))[0] == name, "JSON process %d named %r" % (pid, name))
        check(any(p[0] == pid and p[1] == name for p in tl.processes().values()), "protobuf process %d" % pid)
        letter = {0: "N", 1: "B", 2: "F"}
        for fmt, tracks in (("json", json_slices(doc, pid)), ("perfetto", pb_slices(tl, pid))):
            got = [s for s in tracks.get("GC pauses", []) if s[0].startswith("GC#")]
            check(len(got) == len(want), "%s pid %d: %d GC slices, %d GCs" % (fmt, pid, len(got), len(want)))
            for g, s in zip(want, got):
                title = "GC#%d %d%s %s" % (g["gc_index"], g["gen"], letter[g["type"]], g["reason_name"])
                check(s[0] == title, "%s: slice %r, expected %r" % (fmt, s[0], title))
                check(s[1] == g["start_rel"] and s[2] - s[1] == g["duration_ns"],
                      "%s %s: [%d, %d] vs pause at %d for %d ns" % (fmt, title, s[1], s[2], g["start_rel"], g["duration_ns"]))
                check(abs((s[2] - s[1]) / 1e6 - g["pause_msec"]) < 0.0005,
                      "%s %s: duration %.6f ms vs pause_msec %.6f" % (fmt, title, (s[2] - s[1]) / 1e6, g["pause_msec"]))
                check(s[3].get("pause_msec") == g["pause_msec"] and s[3].get("gc_index") == g["gc_index"],
                      "%s %s: args carry pause_msec and gc_index" % (fmt, title))
            susp = [s for s in tracks.get("GC pauses", []) if s[0] == "suspend EE"]
            want_susp = [g for g in want if g["sb"] is not None and g["se"] is not None]
            check([(s[1], s[2]) for s in susp] == [(g["sb"], g["se"]) for g in want_susp],
                  "%s pid %d: suspensions are SuspendEEBegin->End" % (fmt, pid))
        # the chosen GC: the longest pause, to the microsecond
        longest = max(want, key=lambda g: g["pause_msec"])
        s = [s for s in json_slices(doc, pid)["GC pauses"] if s[0].startswith("GC#%d " % longest["gc_index"])][0]
        check(round((s[2] - s[1]) / 1000) == round(longest["pause_msec"] * 1000),
              "GC#%d: slice %d µs, pause %.3f ms" % (longest["gc_index"], round((s[2] - s[1]) / 1000), longest["pause_msec"]))
        after = sql(db, "SELECT after_mb FROM gcs WHERE pid = %d AND after_mb IS NOT NULL ORDER BY coalesce(heap_stats_ns, end_ns, restart_end_ns)" % pid)
        check([v for _, v in json_counters(doc, pid).get("Heap after MB", [])] == [r["after_mb"] for r in after],
              "pid %d: Heap after MB counter = gcs.after_mb" % pid)
        same_in_both(doc, tl, pid)
    # every JSON slice carries no NaN (the reader refuses them) and the protobuf no more tracks than the JSON
    check(sum(1 for t in tl.tracks.values() if t.process) == len(pids), "one protobuf process track per process")


# ------------------------------------------------------------------------ handbuilt

MS = 1000000
T0 = 1_700_000_000_000_000_000  # the trace's first event (ns since the epoch)
PID = 4242


def build_db(path):
    shutil.copy(INPUT, os.path.join(WORK, "small.nettrace"))
    run(["import", "small.nettrace", "-d", path, "-q"])
    c = sqlite3.connect(os.path.join(WORK, path))
    for t in ("gcs", "gc_gens", "gc_loh_waits", "processes", "gc_heaps", "gc_heap_gens"):
        c.execute("DELETE FROM %s" % t)
    c.execute("UPDATE traces SET start_ns = ?", (T0,))
    tid = c.execute("SELECT id FROM traces").fetchone()[0]
    c.execute("INSERT INTO processes (trace_id, pid, name, command_line, event_count, gc_event_count) "
              "VALUES (?, ?, 'hb', 'hb --run \"x\"', 0, 0)", (tid, PID))
    cols = ("gc_index", "list_index", "gen", "type", "gen_name", "reason", "reason_name", "complete",
            "suspend_begin_ns", "suspend_end_ns", "start_ns", "end_ns", "restart_end_ns", "heap_stats_ns",
            "bgc_prep_suspend_begin_ns", "bgc_prep_restart_end_ns", "pause_msec", "suspend_msec",
            "bgc_pause1_msec", "bgc_pause2_msec", "peak_mb", "after_mb", "promoted_mb", "alloc_rate_mb_sec")

    def at(ms):
        return None if ms is None else T0 + int(round(ms * MS))
    rows = [
        # GC#1 0N: suspension 1..1.05, pause 1..3.2
        (1, 0, 0, 0, "0N", 0, "AllocSmall", 1, at(1), at(1.05), at(1.1), at(3), at(3.2), at(3.1), None, None,
         2.2, 0.05, None, None, 12.0, 10.0, 1.5, 100.0),
        # GC#2 2B (induced): initial pause 10..11, final pause 20..20.5, GCEnd 25
        (2, 1, 2, 1, "2BI", 1, "Induced", 1, at(10), at(10.1), at(10.2), at(25), at(11), at(24), at(20), at(20.5),
         1.5, 0.2, 1.0, 0.5, 14.0, 9.0, 3.0, 50.0),
        # GC#3 1F inside the BGC: 15..16
        (3, 2, 1, 2, "1F", 0, "AllocSmall", 1, at(15), at(15.1), at(15.2), at(15.9), at(16), at(15.95), None, None,
         1.0, 0.1, None, None, 11.0, 8.0, 0.5, None),
        # GC#4 0N whose SuspendEEEnd (33) comes after its RestartEEEnd (32): the suspension is clamped
        (4, 3, 0, 0, "0N", 0, "AllocSmall", 1, at(30), at(33), at(30.5), at(31.5), at(32), at(31.8), None, None,
         2.0, 3.0, None, None, 9.5, 7.0, 0.25, 25.0),
        # GC#5: the trace ended inside it (no RestartEEEnd): no slice
        (5, 4, 0, 0, "0N", 0, "AllocSmall", 0, None, None, at(40), None, None, None, None, None,
         None, None, None, None, None, None, None, None),
    ]
    for r in rows:
        c.execute("INSERT INTO gcs (trace_id, pid, clr_instance, %s) VALUES (?, ?, 0, %s)" %
                  (", ".join(cols), ", ".join("?" * len(cols))), (tid, PID) + r)
    ids = {r[1]: r[0] for r in c.execute("SELECT id, gc_index FROM gcs")}
    for gc, gen, before, after in ((1, 0, 8.0, 1.0), (1, 2, 5.0, 6.0), (2, 0, 4.0, 0.5)):
        c.execute("INSERT INTO gc_gens (gc_id, trace_id, pid, gc_index, gen, size_before_mb, size_after_mb) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?)", (ids[gc], tid, PID, gc, gen, before, after))
    for tid_, a, b in ((7, 12.0, 13.0), (7, 14.0, 18.0), (8, 12.5, 19.0)):
        c.execute("INSERT INTO gc_loh_waits (gc_id, trace_id, pid, bgc_index, tid, start_msec, stop_msec, pause_msec, reason) "
                  "VALUES (?, ?, ?, 2, ?, ?, ?, ?, 11)", (ids[2], tid, PID, tid_, a, b, b - a))
    c.commit()
    c.close()


def ms(x):
    return int(round(x * MS))


def test_handbuilt():
    build_db("hb.db")
    doc, tl, stderr = export_both("hb.db")
    check("1 slice clamped" in stderr, "the clamp is reported: %r" % stderr)
    if doc is None or tl is None:
        return
    check(tef_check.processes(doc).get(PID) == ("hb", 'hb --run "x"'), "JSON process name and command line")
    check(list(tl.processes().values()) == [(PID, "hb", ['hb --run "x"'])], "protobuf process descriptor")
    want = {
        "GC pauses": [
            ("GC#1 0N AllocSmall", ms(1), ms(3.2)), ("suspend EE", ms(1), ms(1.05)),
            ("GC#2 2B Induced", ms(10), ms(11)), ("suspend EE", ms(10), ms(10.1)),
            ("GC#3 1F AllocSmall", ms(15), ms(16)), ("suspend EE", ms(15), ms(15.1)),
            ("GC#4 0N AllocSmall", ms(30), ms(32)), ("suspend EE", ms(30), ms(32)),
        ],
        "Background GCs": [
            ("BGC#2 2B Induced", ms(10), ms(25)), ("initial pause", ms(10), ms(11)), ("final pause", ms(20), ms(20.5)),
        ],
        "LOH alloc waits (tid 7)": [
            ("LOH alloc wait (BGC#2)", ms(12), ms(13)), ("LOH alloc wait (BGC#2)", ms(14), ms(18)),
        ],
        "LOH alloc waits (tid 8)": [("LOH alloc wait (BGC#2)", ms(12.5), ms(19))],
    }
    want_counters = {
        "Heap after MB": [(ms(3.1), 10.0), (ms(15.95), 8.0), (ms(24), 9.0), (ms(31.8), 7.0)],
        "Heap peak MB": [(ms(1), 12.0), (ms(10), 14.0), (ms(15), 11.0), (ms(30), 9.5)],
        "Promoted MB": [(ms(3.1), 1.5), (ms(15.95), 0.5), (ms(24), 3.0), (ms(31.8), 0.25)],
        "Alloc rate MB/s": [(ms(1), 100.0), (ms(10), 50.0), (ms(30), 25.0)],
        "Gen0 before MB": [(ms(1), 8.0), (ms(10), 4.0)],
        "Gen0 after MB": [(ms(3.1), 1.0), (ms(24), 0.5)],
        "Gen2 before MB": [(ms(1), 5.0)],
        "Gen2 after MB": [(ms(3.1), 6.0)],
    }
    for fmt, got, cnt in (("json", json_slices(doc, PID), json_counters(doc, PID)),
                          ("perfetto", pb_slices(tl, PID), pb_counters(tl, PID))):
        trimmed = {k: [(s[0], s[1], s[2]) for s in v] for k, v in got.items()}
        check(trimmed == want, "%s slices:\n  got  %s\n  want %s" % (fmt, trimmed, want))
        check(cnt == want_counters, "%s counters:\n  got  %s\n  want %s" % (fmt, cnt, want_counters))
        gp = got.get("GC pauses", [])
        if len(gp) == 8:
            a = gp[0][3]
            check(a.get("gen_name") == "0N" and a.get("reason") == "AllocSmall" and a.get("type") == "NonConcurrentGC"
                  and a.get("pause_msec") == 2.2 and a.get("suspend_msec") == 0.05 and a.get("peak_mb") == 12.0
                  and a.get("after_mb") == 10.0 and a.get("promoted_mb") == 1.5 and a.get("induced") is False
                  and "pct_gc" not in a, "%s GC#1 args: %s" % (fmt, a))
            check(gp[2][3].get("induced") is True and gp[2][3].get("bgc_pause1_msec") == 1.0
                  and gp[2][3].get("bgc_pause2_msec") == 0.5, "%s GC#2 args: induced, both BGC pauses" % fmt)
            check(gp[7][3].get("clamped_from_end_ns") == ms(33), "%s: the clamped suspension keeps its end: %s" % (fmt, gp[7][3]))
        w = got.get("LOH alloc waits (tid 8)", [])
        check(bool(w) and w[0][3].get("reason") == "AllocDuringBGC" and w[0][3].get("bgc_index") == 2,
              "%s LOH wait args" % fmt)
    # --pid narrows; a process without GCs is an error
    doc2, tl2, _ = export_both("hb.db", "--pid", str(PID))
    check(doc2 is not None and set(tef_check.processes(doc2)) == {PID}, "--pid %d" % PID)
    p = run(["export", "hb.db", "--pid", "99", "--format", "chrome-json"], status=1)
    # The input's warnings come first (gcs_input_open_report: this database's
    # trace discarded events), then the one error line.
    lines = p.stderr.decode().strip().split("\n")
    check(lines[-1] == "gcscope export: no GCs of process 99 in hb.db"
          and all(x.startswith("gcscope export: warning: ") for x in lines[:-1]), "--pid 99: %r" % p.stderr)


# ------------------------------------------------------------------------------ cli

def test_cli():
    p = run(["export", "-h"])
    check(p.stdout.startswith(b"usage: gcscope export DB|TRACE"), "-h prints the usage: %r" % p.stdout[:60])
    for args, msg in ((["export", INPUT, "--format", "svg"], "gcscope export: --format: expected perfetto or chrome-json, not 'svg'"),
                      (["export", INPUT, "--pid", "4294967295"], None),
                      (["export", INPUT, "--bogus"], None),
                      (["export", INPUT, INPUT], None)):
        p = run(args, status=2)
        err = p.stderr.decode().strip()
        check(err.startswith("gcscope export: ") and "\n" not in err, "%s: one error line, got %r" % (args[2:], err))
        if msg:
            check(err == msg, "%r" % err)
    p = run(["export", sys.argv[5], "--format", "chrome-json"], status=1)
    check(p.stderr.decode().strip().endswith("gcscope export: no GCs in %s" % sys.argv[5]), "no GCs: %r" % p.stderr)
    p = run(["export"], status=2)
    check(b"usage: gcscope export" in p.stderr, "no input: usage on stderr")
    p = run(["export", os.path.join(WORK, "nosuch"), "--format", "chrome-json"], status=1)
    check(p.stderr.decode().startswith("gcscope export: "), "missing input: %r" % p.stderr)
    p = run(["export", INPUT, "--format", "chrome-json", "-o", os.path.join(WORK, "no", "dir", "x.json")], status=1)
    check(p.stderr.decode().splitlines()[-1:][0].startswith("gcscope export: cannot write "), "unwritable output: %r" % p.stderr)
    check(not os.listdir(os.path.join(WORK)) or all(not f.startswith("x.json") for f in os.listdir(WORK)),
          "no partial file left")
    # stdout, chrome-json: the same document as -o
    p = run(["export", INPUT, "--format", "chrome-json"])
    check(tef_check.check(json.loads(p.stdout)) == [], "chrome-json on stdout is valid")


# --------------------------------------------------------------------------- phases

PHASES = [("mark_root", "Mark roots"), ("mark_short_weak", "Short weak"), ("mark_scan_finalization", "Finalizable"),
          ("mark_long_weak", "Long weak"), ("plan", "Plan"), ("relocate", "Relocate"), ("compact", "Compact"),
          ("sweep", "Sweep")]


def test_phases():
    """Issue 26: a .NET 10 trace's blocking GCs carry their phases
    (GCGlobalHeapHistory v4) as sub-slices of their pause: laid end to end
    from GCStart in the GC's order, each as long as the phase's microseconds,
    the 0 us and untimed ones left out, inside the GC's slice."""
    doc, tl, _ = export_both(INPUT)
    if doc is None or tl is None:
        return
    db = "gcscope.db"
    cols = ", ".join("phase_%s_usec AS %s" % (c, c) for c, _ in PHASES)
    gcs = sql(db, "SELECT g.pid, g.gc_index, g.type, g.start_ns - t.start_ns AS st, g.end_ns - t.start_ns AS en, %s "
                  "FROM gcs g JOIN traces t ON t.id = g.trace_id WHERE g.complete = 1 ORDER BY g.start_ns" % cols)
    pid = gcs[0]["pid"]
    for fmt, tracks in (("json", json_slices(doc, pid)), ("perfetto", pb_slices(tl, pid))):
        ph = [s for s in tracks.get("GC pauses", []) if s[0].startswith("phase ")]
        checked = 0
        for g in gcs:
            mine = [s for s in ph if s[3].get("gc_index") == g["gc_index"]]
            if g["type"] == 1:
                check(not mine, "%s GC#%d (background): no phase slices" % (fmt, g["gc_index"]))
                continue
            want, at = [], g["st"]
            for col, label in PHASES:
                us = g[col]
                if us is None or us <= 0:
                    continue
                want.append(("phase " + label, at, min(at + us * 1000, g["en"])))
                at = min(at + us * 1000, g["en"])
            check([(s[0], s[1], s[2]) for s in mine] == want,
                  "%s GC#%d phases %r, expected %r" % (fmt, g["gc_index"], [(s[0], s[1], s[2]) for s in mine], want))
            checked += bool(want)
        check(checked > 0, "%s: some GC has phase slices" % fmt)
    same_in_both(doc, tl, pid)


# --------------------------------------------------------------------------- outputs

def test_outputs():
    """-o onto what is not a regular file is written in place, never replaced
    (a rename over /dev/full as root had made it a regular file); a write
    error is one line with its cause, exit 1."""
    db = os.path.join(WORK, "o.db")
    run(["import", "-q", "-d", db, INPUT])
    full = os.path.join(WORK, "full")
    os.symlink("/dev/full", full)
    p = run(["export", db, "--format", "chrome-json", "-o", full], status=1)
    check(p.stderr.decode() == "gcscope export: write error on %s: No space left on device\n" % full,
          "-o LINK-TO-/dev/full: %r" % p.stderr)
    check(os.path.islink(full) and os.readlink(full) == "/dev/full", "the link to /dev/full is still a link")
    check(not [f for f in os.listdir(WORK) if f.startswith("full.tmp")], "no temporary file left")
    # a link to a regular file: the file gets the document, the link stays
    target = os.path.join(WORK, "target.json")
    with open(target, "w") as f:
        f.write("old")
    link = os.path.join(WORK, "link.json")
    os.symlink(target, link)
    run(["export", db, "--format", "chrome-json", "-o", link])
    check(os.path.islink(link), "the link is still a link")
    with open(target) as f:
        text = f.read()
    check(text.startswith("{") and tef_check.check(json.loads(text)) == [], "the link's target holds the document")
    # a FIFO: read as it is written
    fifo = os.path.join(WORK, "fifo")
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    run(["export", db, "--format", "chrome-json", "-o", fifo])
    reader.join(60)
    check(got and tef_check.check(json.loads(got[0])) == [], "the FIFO's reader got the document")
    check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO is still a FIFO")
    # stdout on a full disk: the umbrella's line
    with open("/dev/full", "wb") as dev:
        p = subprocess.run([GCSCOPE, "export", db, "--format", "chrome-json"], cwd=WORK, stdout=dev,
                           stderr=subprocess.PIPE, timeout=300)
    check(p.returncode == 1 and p.stderr.decode() == "gcscope export: write error on stdout: No space left on device\n",
          "stdout /dev/full: exit %d %r" % (p.returncode, p.stderr))


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
{"real": test_real, "handbuilt": test_handbuilt, "cli": test_cli, "phases": test_phases,
 "outputs": test_outputs}[MODE]()
if failed():
    print("%d failure(s)" % failed(), file=sys.stderr)
    sys.exit(1)
print("ok")
