#!/usr/bin/env python3
"""scale.py GCSCOPE SCHEMA_TRACE WORKDIR [--bench] [--gcs N] [--handles M] [--bound S]

Complexity guard for the reports: a generated database with N GCs (default
100,000) and M handle events (default 1,000,000) in gcscope's own schema (the
schema comes from importing SCHEMA_TRACE), then advise, heaps, handles,
triggers, impact, allocs and stats on it. A report quadratic in GCs or handle
events takes hours at this size; each must finish within --bound seconds
(default 60, generous for a loaded machine or a sanitizer build: the target
is under 2 s). With --bench, prints each report's median time over 3 runs and
its ratio to `gcscope sql DB 'SELECT count(*) FROM gcs'` measured in the same
run (the cost of opening the database and reading the GCs once).

The rows: one process, GCs 1 ms apart (each suspended 0.1 ms, paused 0.3 ms;
every 10th a gen1, every 100th a background gen2 with a final pause), one
GCPerHeapHistory per GC with 5 generations, 2 GCMarkWithType per GC, 200
requests, and handle events: pinned and strong handles set and destroyed
(half of the pins outlive the run)."""
import os, sqlite3, statistics, subprocess, sys, time

args = sys.argv[1:]
bench = "--bench" in args
if bench:
    args.remove("--bench")


def opt(name, default):
    if name in args:
        i = args.index(name)
        v = args[i + 1]
        del args[i:i + 2]
        return float(v)
    return default


NGC = int(opt("--gcs", 100000))
NH = int(opt("--handles", 1000000))
BOUND = opt("--bound", 60.0)
GCSCOPE, TRACE, WORK = args
os.makedirs(WORK, exist_ok=True)
db = os.path.join(WORK, "scale-%d-%d.db" % (NGC, NH))
if os.path.exists(db):
    os.remove(db)
subprocess.run([GCSCOPE, "import", "-d", db, TRACE], check=True, capture_output=True)
c = sqlite3.connect(db)
for t in ("gcs", "gc_gens", "gc_heaps", "gc_heap_gens", "gc_handles", "event_blocks", "requests",
          "gc_process_summary", "processes", "gc_loh_waits", "pinned_objects"):
    try:
        c.execute("DELETE FROM %s" % t)
    except sqlite3.OperationalError:
        pass
# The marks (and the triggers' events) are written as rows of tables, as an
# older gcscope stored events and gc_lifecycle (views over event_blocks now): the first report keeps them
# (legacy_events) and reads them through the view.
c.execute("DROP VIEW events")
c.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, trace_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, "
          "pid INTEGER NOT NULL, tid INTEGER NOT NULL, cpu INTEGER NOT NULL, name TEXT NOT NULL, "
          "version INTEGER NOT NULL, payload TEXT NOT NULL)")
c.execute("CREATE INDEX events_by_time ON events(trace_id, ts_ns)")
c.execute("DROP VIEW gc_lifecycle")
c.execute("CREATE TABLE gc_lifecycle (trace_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, pid INTEGER NOT NULL, "
          "tid INTEGER NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, count INTEGER, depth INTEGER, "
          "type INTEGER, reason INTEGER)")
T0 = 1_700_000_000_000_000_000
PID = 4242
c.execute("UPDATE traces SET start_ns = ?, end_ns = ?", (T0, T0 + (NGC + 10) * 1_000_000))
tid = c.execute("SELECT id FROM traces").fetchone()[0]
c.execute("INSERT INTO processes(trace_id, pid, name, first_ns, last_ns, event_count, gc_event_count) "
          "VALUES (?, ?, 'scale', ?, ?, 0, 0)", (tid, PID, T0, T0 + (NGC + 10) * 1_000_000))


def gc_rows():
    for i in range(NGC):
        s = T0 + (i + 1) * 1_000_000
        bgc = i % 100 == 99
        gen = 2 if bgc else (1 if i % 10 == 9 else 0)
        yield (i + 1, tid, PID, 0, i + 1, i, gen, 1 if bgc else 0, "%d%s" % (gen, "B" if bgc else "N"), 0,
               "AllocSmall", 1, s, s + 100_000, s + 100_000, s + 250_000, s + 280_000, s + 300_000, s + 290_000,
               s + 700_000 if bgc else None, s + 800_000 if bgc else None, (s - T0) / 1e6, (s - T0) / 1e6, 0.1,
               0.3, 0.15, 5.0, 1.0, 10.0, 30.0, 2.0, 1.0, 1000.0, 5.0)


c.executemany("INSERT INTO gcs(id, trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name, reason, "
              "reason_name, complete, suspend_begin_ns, suspend_end_ns, start_ns, end_ns, restart_begin_ns, "
              "restart_end_ns, heap_stats_ns, bgc_prep_suspend_begin_ns, bgc_prep_restart_end_ns, pause_start_msec, "
              "start_msec, suspend_msec, pause_msec, duration_msec, promoted_mb, gen0_alloc_mb, peak_mb, after_mb, "
              "ratio_peak_after, gen0_survival_pct, gen0_alloc_rate_mb_sec, gen0_frag_pct) VALUES (%s)"
              % ",".join("?" * 34), gc_rows())
c.executemany("INSERT INTO gc_heaps(gc_id, trace_id, pid, gc_index, heap_slot, heap_index, condemn_reasons1) "
              "VALUES (?, ?, ?, ?, 0, 0, 0)", ((i + 1, tid, PID, i + 1) for i in range(NGC)))
c.executemany("INSERT INTO gc_heap_gens(gc_id, trace_id, pid, gc_index, heap_slot, gen, size_before, "
              "free_list_before, free_obj_before) VALUES (?, ?, ?, ?, 0, ?, 1000000, 1000, 1000)",
              ((i + 1, tid, PID, i + 1, g) for i in range(NGC) for g in range(5)))
c.executemany("INSERT INTO events(trace_id, ts_ns, pid, tid, cpu, name, version, payload) "
              "VALUES (?, ?, ?, 1, 0, 'GCMarkWithType', 0, ?)",
              ((tid, T0 + (i + 1) * 1_000_000 + 200_000 + k, PID, "HeapNum=0 Type=%s Bytes=%d" % (t, 100 + k))
               for i in range(NGC) for k, t in enumerate(("Stack", "Older"))))
c.executemany("INSERT INTO requests(trace_id, pid, request_id, tid, start_ns, end_ns) VALUES (?, ?, ?, 1, ?, ?)",
              ((tid, PID, r, T0 + r * 5_000_000, T0 + r * 5_000_000 + 3_000_000) for r in range(1, 201)))
span = (NGC + 1) * 1_000_000


def lifecycle_rows():
    for i in range(NGC):
        s = T0 + (i + 1) * 1_000_000
        bgc = i % 100 == 99
        gen = 2 if bgc else (1 if i % 10 == 9 else 0)
        yield (tid, s, PID, 1, "GCSuspendEEBegin", 1, i + 1, None, None, 1)
        yield (tid, s + 100_000, PID, 1, "GCSuspendEEEnd", 1, None, None, None, None)
        yield (tid, s + 100_000, PID, 1, "GCStart", 2, i + 1, gen, 1 if bgc else 0, 0)
        if not bgc:
            yield (tid, s + 250_000, PID, 1, "GCEnd", 1, i + 1, gen, None, None)
        yield (tid, s + 290_000, PID, 1, "GCHeapStats", 2, None, None, None, None)
        yield (tid, s + 300_000, PID, 1, "GCRestartEEEnd", 1, None, None, None, None)


c.executemany("INSERT INTO gc_lifecycle(trace_id, ts_ns, pid, tid, name, version, count, depth, type, reason) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", lifecycle_rows())


def handle_rows():
    pairs = NH // 2
    for j in range(pairs):
        h = 0x10000 + j
        ts = T0 + j * span // pairs
        kind = 3 if j % 2 else 2
        yield (tid, ts, PID, 1, "set", h, 0xAA00 + j, kind, 0)
        if j % 4 != 1:  # every other pin outlives the run
            yield (tid, ts + 1_500_000, PID, 1, "destroy", h, None, None, None)
        else:
            yield (tid, ts + 1, PID, 1, "set", h + 0x40000000, 0xBB00 + j, 7, 0)


c.executemany("INSERT INTO gc_handles(trace_id, ts_ns, pid, tid, action, handle, object, kind, generation) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", handle_rows())
c.commit()
c.close()

REPORTS = (["advise"], ["heaps"], ["handles"], ["triggers", "--gc-over", "1"], ["impact"], ["allocs"], ["stats"])


def timed(cmd):
    t = time.monotonic()
    p = subprocess.run([GCSCOPE] + cmd, capture_output=True, text=True)
    return time.monotonic() - t, p


failures = 0
base = []
res = {}
for rep in range(3 if bench else 1):
    base.append(timed(["sql", db, "SELECT count(*) FROM gcs"])[0])
    for r in REPORTS:
        dt, p = timed([r[0], db] + r[1:])
        res.setdefault(r[0], []).append(dt)
        if rep == 0:
            # allocs finds no allocation events here: one line, exit 1 (not a failure of scale)
            ok = p.returncode == 0 or (r[0] == "allocs" and p.returncode == 1 and p.stderr.count("\n") == 1)
            if not ok:
                failures += 1
                print("FAIL: %s exited %d: %s" % (r[0], p.returncode, p.stderr.strip()[:300]), file=sys.stderr)
            if dt > BOUND:
                failures += 1
                print("FAIL: %s took %.1f s on %d GCs and %d handle events (bound %.0f s)" % (r[0], dt, NGC, NH, BOUND),
                      file=sys.stderr)
b = statistics.median(base)
for r in REPORTS:
    m = statistics.median(res[r[0]])
    line = "%-9s %7.3f s" % (r[0], m)
    if bench:
        line += "  (ratio to a count(*) pass %.1f; spread %.3f-%.3f s)" % (m / b, min(res[r[0]]), max(res[r[0]]))
    print(line)
print("%d GCs, %d handle events; baseline count(*) pass %.3f s" % (NGC, NH, b))
sys.exit(1 if failures else 0)
