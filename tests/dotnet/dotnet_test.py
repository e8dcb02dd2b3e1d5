#!/usr/bin/env python3
"""dotnet_test.py CASE — gcscope on a real .NET runtime (tests/dotnet/gcprog).

Each case runs gcprog (which prints what the runtime says: GC.CollectionCount
at exit and GC.GetGCMemoryInfo per observed GC) under `gcscope record`,
imports the trace and compares, with `gcscope sql`:

- GCs per generation: gcscope's count of GCs of generation g equals the
  runtime's CollectionCount(g) - CollectionCount(g+1) (CollectionCount(g)
  counts the GCs of generation g or older).
- per observed GC (by index): the generation exactly, the promoted bytes
  exactly, and the pause (below).
  Promoted bytes: GCHeapStats' TotalPromotedSize0..3 (gcscope's promoted_mb,
  PerfView's figure); for a gen2 GC the runtime's PromotedBytes also counts
  the pinned-object heap's survivors, which .NET 10's GCHeapStats reports as
  TotalPromotedSize4 = 0 while every POH object survives a gen2 GC here, so
  the runtime's figure is gcscope's plus the POH size after the GC.
  Pauses: the runtime's figure is not gcscope's (PerfView's: SuspendEEBegin
  -> RestartEEEnd; a background GC's two pauses) but a span the GC's events
  bracket (CoreCLR gc.cpp; blocking_pause_bounds, bgc_pause_bounds): it
  starts before SuspendEEBegin, by an amount no event bounds (the comment at
  CLOCK_MS), and ends before the restart, for a blocking GC between its
  GCGlobalHeapHistory and its GCEnd. So the runtime's pause must be at least
  the bracket's lower end, exactly; its upper end is printed. This holds on
  a loaded machine too: what the runtime leaves out (the wait for a CPU of
  the thread that ends the GC, RestartEE resuming the threads) is outside
  it. gcscope's pause must be exactly its span, SuspendEEBegin ->
  RestartEEEnd of the GC's own events: the last SuspendEEBegin(SuspendForGC)
  before its GCStart (a background GC's second pause: the first
  SuspendEEBegin(SuspendForGCPrep) after it) and the first RestartEEEnd after
  its GCEnd (a background GC's: after its GCStart and after that suspension).

- the runtime's own pause (issue 29): gcscope's runtime_pause_msec per
  observed GC equals the runtime's PauseDurations (summed) within
  RUNTIME_TOL_MS (not checked per GC with server GC: heap 0's thread may wait
  for a CPU before the restart), and the process's total_runtime_pause_msec
  equals GC.GetTotalPauseDuration() (gcprog's PAUSETOTAL line) within
  RUNTIME_TOTAL_TOL_MS per GC when the trace holds every GC.

Environment: GCSCOPE (the gcscope binary), GCPROG (gcprog.dll, built by the
dotnet.build fixture), WORK (a scratch directory). Exit 77 (skipped, with a
message) when `dotnet` or the built program is missing. Every process this
starts is stopped by its PID.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

SKIP = 77
# The runtime's pause starts before SuspendEEBegin by an amount no event
# bounds, so only its lower bound is checked; the upper one is printed. CoreCLR
# reads its clock (gc_heap::suspended_start_time, gc.cpp
# GCHeap::GarbageCollectGeneration / gc_heap::gc_thread_function) just before
# GCToEEInterface::SuspendEE, whose first act is to fire SuspendEEBegin
# (threadsuspend.cpp ThreadSuspend::SuspendEE); EventPipe timestamps the event
# only once it has room for it in the thread's buffer (ep-buffer-manager.c
# ep_buffer_manager_write_event -> ep_buffer_write_event ->
# ep_event_instance_init), after allocating a new 100 KB buffer when the
# thread's last one is full or was taken by the streaming thread, which a GC
# thread idle since the last GC usually needs. Measured here: a few
# microseconds to 0.06 ms mostly, up to 0.23 ms, 0.43 ms in a CI run, 1.05 to
# 2.16 ms for server GCs in 3 of 35 suite runs, 8.16 ms with both cores busy
# (0.62 ms under strace, where every GC with a gap had the buffer's mmap on
# its thread and no other GC had one).
# The runtime's clock readings are whole microseconds.
CLOCK_MS = 0.002

GCSCOPE = os.environ.get("GCSCOPE", "gcscope")
GCPROG = os.environ.get("GCPROG", "")
WORK = os.environ.get("WORK", "/tmp/gcscope-dotnet-test")


def skip_without_dotnet():
    if shutil.which("dotnet") is None:
        print("SKIPPED: dotnet is not installed (the .NET SDK is needed for tests/dotnet)")
        sys.exit(SKIP)
    if not GCPROG or not os.path.exists(GCPROG):
        print("SKIPPED: gcprog was not built (%s); the dotnet.build fixture failed or did not run" % GCPROG)
        sys.exit(SKIP)


def workdir(case):
    d = os.path.join(WORK, case)
    subprocess.run(["rm", "-rf", d])
    os.makedirs(d)
    return d


def env_with(extra):
    e = dict(os.environ)
    e.update(extra)
    e["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1"
    return e


def sql(db, query):
    out = subprocess.run([GCSCOPE, "sql", db, query, "--csv"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("gcscope sql failed: " + out.stderr)
    lines = out.stdout.strip().splitlines()
    return [l.split(",") for l in lines[1:]]


def parse_program(text):
    gcs, counts = {}, None
    for line in text.splitlines():
        if line.startswith("GC "):
            f = dict(kv.split("=") for kv in line.split()[1:])
            gcs[int(f["index"])] = {k: int(v) for k, v in f.items()}
        m = re.match(r"COUNTS gen0=(\d+) gen1=(\d+) gen2=(\d+)", line)
        if m:
            counts = [int(x) for x in m.groups()]
    return gcs, counts


def pause_total_ms(text):
    """GC.GetTotalPauseDuration() at the program's exit (its PAUSETOTAL line), ms."""
    m = re.search(r"^PAUSETOTAL ticks=(\d+)", text, re.M)
    return int(m.group(1)) / 1e4 if m else None


# gcscope's runtime_pause_msec against the runtime's PauseDurations: the
# events cannot see the runtime read its clock (before SuspendEEBegin, by the
# EventPipe buffer allocation of the comment at CLOCK_MS; and, for a blocking
# GC, between GCGlobalHeapHistory and GCEnd, then RestartEEBegin). Unloaded
# these are 0.01-0.15 ms; per GC the figures must agree within RUNTIME_TOL_MS.
RUNTIME_TOL_MS = 1.0
# The process total against GC.GetTotalPauseDuration(): within 0.25 ms per GC
# (measured: 0.2 ms over 19 GCs of bgc, where PerfView's total was 22.8 ms
# short: the GC announced as background that ran in one suspension).
RUNTIME_TOTAL_TOL_MS = 0.25


def compare_runtime_pauses(db, prog_out, gcs, pid, complete_trace, server):
    """Issue 29 item 3: runtime_pause_msec per observed GC equals the runtime's
    pause (a background GC's two summed), and the process total equals
    GC.GetTotalPauseDuration() when the trace holds every GC of the process."""
    where = " WHERE pid = %d" % pid if pid else ""
    rows = {int(r[0]): r for r in sql(db, "SELECT gc_index, coalesce(runtime_pause_msec, -1), pause_msec, type "
                                          "FROM gcs%s" % where)}
    # A background GC whose first pause held the ephemeral GC of its start:
    # the runtime gives the ephemeral GC its own GCStart -> GCEnd and the
    # background GC the rest of the suspension, as gcscope does; but under
    # load it has given the background GC far less: once (first BGC of the
    # run, 1.24 ms from the BGC's GCStart to the ephemeral's) 0.112 ms against
    # gcscope's 1.607, and once (2026-11-28, ctest -j2: a 14.08 ms ephemeral
    # GC, then 3.2 ms to RestartEEBegin) 0.014 ms against 3.06. No event
    # shows where it drew the line (that first pause is printed NOT CHECKED
    # in compare()), so such a background GC is checked from below only:
    # gcscope's figure is at least the runtime's, less the tolerance; and the
    # process total may be short of gcscope's by as much as these GCs' figures.
    eph_gap = {int(r[0]): float(r[1]) for r in sql(
        db, "SELECT b.gc_index, (e.start_ns - b.start_ns) / 1e6 FROM gcs b JOIN gcs e "
            "ON e.pid = b.pid AND e.trace_id = b.trace_id AND e.gc_index = b.gc_index + 1 "
            "WHERE b.type = 1 AND e.type = 0 AND b.bgc_pause1_msec IS NOT NULL "
            "AND e.start_msec < b.pause_start_msec + b.bgc_pause1_msec%s"
            % (" AND b.pid = %d" % pid if pid else ""))}
    for idx, g in sorted(gcs.items()):
        r = rows.get(idx)
        if r is None:
            continue
        rt = (g["pause0_ticks"] + g["pause1_ticks"]) / 1e4
        ours, pv = float(r[1]), float(r[2])
        tol = RUNTIME_TOL_MS + eph_gap.get(idx, 0)
        detail = ("GC #%d (type %s): runtime_pause_msec %.4f, the runtime %.4f, PerfView's pause %.4f%s"
                  % (idx, r[3], ours, rt, pv,
                     ", within %.4f ms (the ephemeral GC of its start began %.4f ms after it)"
                     % (tol, eph_gap[idx]) if idx in eph_gap else ""))
        print(detail)
        check(ours >= 0, "GC #%d has a runtime_pause_msec" % idx)
        if not server and idx in eph_gap:
            check(ours >= rt - tol, detail)
        elif not server:
            check(abs(ours - rt) <= tol, detail)
    total = pause_total_ms(prog_out)
    if total is None:
        print("no PAUSETOTAL line (a fixture's output, from before gcprog printed it)")
    summ = sql(db, "SELECT sum(total_runtime_pause_msec), sum(total_pause_msec), sum(gc_count) "
                   "FROM gc_process_summary%s" % where)[0]
    if total is None or not complete_trace:
        return
    ours, pv, n = float(summ[0]), float(summ[1]), int(summ[2])
    unsure = sum(float(rows[i][1]) for i in eph_gap if i in rows and float(rows[i][1]) > 0)
    detail = ("process total: runtime_pause_msec %.4f ms, GC.GetTotalPauseDuration() %.4f ms, "
              "PerfView's %.4f ms, %d GCs%s" % (ours, total, pv, n,
                                                 ", %.4f ms of them in background GCs with an ephemeral GC in "
                                                 "their first pause" % unsure if unsure else ""))
    print(detail)
    check(-RUNTIME_TOTAL_TOL_MS * n <= ours - total <= RUNTIME_TOTAL_TOL_MS * n + unsure, detail)


def compare(db, prog_out, pid=None, expect_bgc=False):
    """The runtime's own figures against the imported trace."""
    gcs, counts = parse_program(prog_out)
    check(counts is not None, "the program printed its COUNTS line")
    if counts is None:
        return
    where = " WHERE pid = %d" % pid if pid else ""
    per_gen = {int(g): int(n) for g, n in sql(db, "SELECT gen, count(*) FROM gcs%s GROUP BY gen" % where)}
    want = {0: counts[0] - counts[1], 1: counts[1] - counts[2], 2: counts[2]}
    for g in range(3):
        check(per_gen.get(g, 0) == want[g], "gen%d GCs: gcscope %d, runtime %d" % (g, per_gen.get(g, 0), want[g]))
    check(sum(per_gen.values()) == counts[0], "GC total: gcscope %d, runtime %d" % (sum(per_gen.values()), counts[0]))
    rows = sql(db, "SELECT gc_index, gen, type, round(promoted_mb * 1e6), pause_msec, "
                   "coalesce(bgc_pause1_msec, -1), coalesce(bgc_pause2_msec, -1), "
                   "(SELECT round(size_after_mb * 1e6) FROM gc_gens x WHERE x.gc_id = gcs.id AND x.gen = 4), "
                   "duration_msec, suspend_msec, (start_ns - suspend_end_ns) / 1e6, (restart_end_ns - end_ns) / 1e6, "
                   "suspend_begin_ns, start_ns, end_ns, restart_end_ns, pause_start_msec = start_msec, "
                   "(SELECT max(e.ts_ns) FROM events e WHERE e.pid = gcs.pid AND e.name = 'GCGlobalHeapHistory' "
                   "        AND e.ts_ns BETWEEN gcs.start_ns AND gcs.end_ns), "
                   "id, pid, bgc_prep_suspend_begin_ns, bgc_prep_restart_end_ns, "
                   "(SELECT min(e.ts_ns) FROM events e WHERE e.pid = gcs.pid AND e.name = 'GCMarkWithType' "
                   "        AND json_extract(e.fields, '$.HeapNum') = 0 "
                   "        AND e.ts_ns BETWEEN gcs.start_ns AND gcs.end_ns), "
                   "committed_after_in_use + committed_after_in_free + committed_after_in_global_free, "
                   "round(committed_after_mb * 1e6), coalesce(runtime_pause_msec, -1) "
                   "FROM gcs%s" % where)
    ours = {int(r[0]): r for r in rows}
    check(len(gcs) > 0, "the program observed at least one GC")
    print("observed %d GCs of %d; gcscope has %d" % (len(gcs), counts[0], len(ours)))
    seen_bgc = False
    for idx, g in sorted(gcs.items()):
        r = ours.get(idx)
        check(r is not None, "GC #%d is in the trace" % idx)
        if r is None:
            continue
        gen, typ, promoted = int(r[1]), int(r[2]), int(float(r[3]))
        poh_after = int(float(r[7])) if r[7] not in ("", "NULL") else 0
        check(gen == g["gen"], "GC #%d generation: gcscope %d, runtime %d" % (idx, gen, g["gen"]))
        want_promoted = promoted + (poh_after if g["gen"] == 2 else 0)
        check(want_promoted == g["promoted"],
              "GC #%d promoted bytes: gcscope %d (+POH %d), runtime %d" % (idx, promoted, poh_after, g["promoted"]))
        if "committed" in g and r[23] not in ("", "NULL"):
            # GCCommittedUsage at the GC's end (.NET 8+): in use + free + global free (not what
            # waits for decommit, nor bookkeeping) is the runtime's TotalCommittedBytes, to the byte.
            check(int(r[23]) == g["committed"] and int(float(r[24])) == g["committed"],
                  "GC #%d committed bytes: gcscope %s (committed_after_mb %s), runtime %d"
                  % (idx, r[23], r[24], g["committed"]))
        elif "committed" in g:
            check(typ == 1, "GC #%d: only a background GC lacks its committed figure after" % idx)
        rt0, rt1 = g["pause0_ticks"] / 1e4, g["pause1_ticks"] / 1e4
        if typ == 1 and r[5] != "-1":
            seen_bgc = True
            check(g["concurrent"] == 1, "GC #%d: background in the trace, concurrent for the runtime" % idx)
            b = bgc_pause_bounds(db, r)
            for got, want_ms, (lo, hi, span, span_ms), what in ((float(r[5]), rt0, b[0], "first BGC pause"),
                                                                 (float(r[6]), rt1, b[1], "second BGC pause")):
                detail = ("GC #%d %s: runtime %.4f ms, events say [%s, %.4f + start gap] ms; gcscope's %.4f ms (%s)"
                          % (idx, what, want_ms, "%.4f" % lo if lo is not None else "?", hi, got, span))
                if lo is None:
                    print("NOT CHECKED (an ephemeral GC ran in this pause): " + detail)
                else:
                    print(detail)
                    check(want_ms >= lo - CLOCK_MS, detail)
                check(abs(got - span_ms) < 0.001, "GC #%d %s: gcscope's %.4f ms is %s (%.4f ms)"
                      % (idx, what, got, span, span_ms))
            continue
        if typ == 1:
            # Announced as a background GC (GCStart Type=BackgroundGC) but run blocking in one
            # suspension: the runtime says not concurrent, and its GCEnd precedes the
            # restart, so no BGC pause is attached (PerfView's reconstruction, docs/dotnet.md).
            check(g["concurrent"] == 0, "GC #%d: a BGC without BGC pauses is not concurrent for the runtime" % idx)
        lo, hi, span, span_ms = blocking_pause_bounds(r)
        detail = ("GC #%d (gen %d type %d): runtime %.4f ms, events say [%.4f, %.4f + start gap] ms; "
                  "gcscope's pause %.4f ms "
                  "(%s, suspension %s ms, suspended to GCStart %s ms, GCStart to GCEnd %s ms, GCEnd to restarted %s ms)"
                  % (idx, gen, typ, rt0, lo, hi, float(r[4]), span, r[9], r[10], r[8], r[11]))
        print(detail)
        check(rt0 >= lo - CLOCK_MS, detail)
        if r[16] != "1":
            # gcscope's runtime_pause_msec of a GC blocking for the runtime ends
            # where the runtime's clock reading is last bounded: at its GCEnd
            # (before 2026-11-28 at RestartEEBegin, which a thread waiting for
            # a CPU after GCEnd pushed 3.7 ms past the runtime's figure).
            check(abs(float(r[25]) - hi) < 0.0005,
                  "GC #%d: gcscope's runtime_pause_msec %s ms is SuspendEEBegin -> GCEnd (%.6f ms)"
                  % (idx, r[25], hi))
        if r[16] != "1":
            sb, st = int(float(r[12])), int(float(r[13]))
            check(sb == own_suspend(db, r[19], st, 1),
                  "GC #%d: gcscope's SuspendEEBegin is the last before its GCStart" % idx)
        if typ != 1:
            check(abs(float(r[4]) - span_ms) < 0.001,
                  "GC #%d: gcscope's pause %s ms is %s (%.4f ms)" % (idx, r[4], span, span_ms))
            check(int(float(r[15])) == first_after(db, r[19], "GCRestartEEEnd", int(float(r[14]))),
                  "GC #%d: gcscope's RestartEEEnd is the first after its GCEnd" % idx)
    if expect_bgc:
        check(seen_bgc, "a background GC was observed and compared")
    every = len(ours) == counts[0] and all(i in ours for i in range(1, counts[0] + 1))
    server = re.search(r"^PID \d+ server=1", prog_out, re.M) is not None
    compare_runtime_pauses(db, prog_out, gcs, pid, every, server)
    compare_phases(db, gcs, where)


PHASE_COLS = ["phase_%s_usec" % k for k in ("mark_root", "mark_short_weak", "mark_scan_finalization",
                                            "mark_long_weak", "plan", "relocate", "compact", "sweep")]


def compare_phases(db, gcs, where):
    """The GC's phase times (GCGlobalHeapHistory v4, which .NET 10 sends at
    the gc profile's level): every complete GC has them; they sum to no more
    than its GCStart -> GCEnd, nor, for a blocking GC the program observed,
    than the runtime's own pause (GCMemoryInfo.PauseDurations[0]), which
    holds the whole GC. A blocking GC timed its plan phase, and exactly one of
    sweep or relocate + compact."""
    rows = sql(db, "SELECT gc_index, type, duration_msec, %s FROM gcs%s%s complete = 1"
               % (", ".join(PHASE_COLS), where, " AND" if where else " WHERE"))
    check(len(rows) > 0, "complete GCs to check the phases of")
    for r in rows:
        idx, typ, dur = int(r[0]), int(r[1]), float(r[2])
        ph = [None if v in ("", "NULL") else int(v) for v in r[3:]]
        total = sum(v for v in ph if v is not None)
        check(ph[0] is not None, "GC #%d has its phase times" % idx)
        check(total <= dur * 1000.0, "GC #%d: phases %d us <= GCStart->GCEnd %.3f ms" % (idx, total, dur))
        if typ != 1:
            check(ph[4] is not None and ((ph[7] is None) != (ph[5] is None and ph[6] is None)),
                  "GC #%d (blocking): plan, and sweep or relocate+compact: %s" % (idx, ph))
            g = gcs.get(idx)
            if g is not None:
                check(total <= g["pause0_ticks"] / 10.0,
                      "GC #%d: phases %d us <= the runtime's pause %.1f us" % (idx, total, g["pause0_ticks"] / 10.0))


def own_suspend(db, pid, ns, reason):
    """GC's SuspendEEBegin straight from the events: for SuspendForGC (1) the
    last one before its GCStart ns, for SuspendForGCPrep (6) the first one
    after it. (Its Count field is not the GC's index - 1 when a background GC
    is in progress: a foreground GC's says the BGC's index - 1.)"""
    agg, cmp = ("max", "<=") if reason == 1 else ("min", ">=")
    return ns_or_none(sql(db, "SELECT %s(ts_ns) FROM events WHERE pid = %s AND name = 'GCSuspendEEBegin' "
                              "AND ts_ns %s %d AND json_extract(fields, '$.Reason') = %d"
                              % (agg, pid, cmp, ns, reason)))


def first_after(db, pid, name, ns):
    return ns_or_none(sql(db, "SELECT min(ts_ns) FROM events WHERE pid = %s AND name = '%s' AND ts_ns > %d"
                              % (pid, name, ns)))


def ns_or_none(rows):
    """A one-value query's nanoseconds (sql() drops the empty line of a NULL)."""
    return int(float(rows[0][0])) if rows and rows[0][0] not in ("", "NULL") else None


def blocking_pause_bounds(r):
    """(lo, hi, what, ms) for a blocking GC's runtime pause, from the events of
    gcscope's row r (compare()'s query). CoreCLR (gc.cpp) records
    pause_durations[0] in gc_heap::do_post_gc as end_gc_time - suspended_start_time:
    end_gc_time is read in gc_heap::update_end_ngc_time at the end of
    gc_heap::gc1, after fire_pevents has fired GCGlobalHeapHistory and before
    do_post_gc fires GCEnd (GCHeap::UpdatePostGCCounters) and the EE restarts;
    suspended_start_time is read before SuspendEE fires SuspendEEBegin. So the
    runtime's pause lies in [GCGlobalHeapHistory - SuspendEEBegin, GCEnd -
    SuspendEEBegin] but for the start gap (no bound, see CLOCK_MS). The ephemeral
    GC run at the start of a background GC (and a GC whose suspension the trace
    does not hold) counts from its gc1's start instead (dd_time_clock, read in
    gc_heap::update_collection_counts after its GCStart and before heap 0's
    first GCMarkWithType): [GCGlobalHeapHistory - that mark, GCEnd - GCStart].
    what and ms: gcscope's pause span (PerfView's) and its length."""
    sb, st, en, re_, hh, mark0 = (int(float(x)) if x not in ("", "NULL") else None
                                  for x in (r[12], r[13], r[14], r[15], r[17], r[22]))
    hh = st if hh is None else hh
    from_start = r[16] == "1"
    begin = st if from_start else sb
    what = "GCStart -> RestartEEEnd" if from_start else "SuspendEEBegin -> RestartEEEnd"
    lo = (hh - (mark0 if mark0 is not None else hh)) / 1e6 if from_start else (hh - begin) / 1e6
    return lo, (en - begin) / 1e6, what, (re_ - begin) / 1e6 if re_ is not None else float("nan")


def bgc_pause_bounds(db, r):
    """((lo, hi, what, ms) for the first pause, the same for the second) of the
    background GC of gcscope's row r, from the events. CoreCLR (gc.cpp):
    gc_heap::add_bgc_pause_duration_0, called right before RestartEE after the
    BGC threads have fired BGC1stNonConEnd, records the first pause as now -
    suspended_start_time, minus the pause of the ephemeral GC run in that
    suspension if there was one (its own do_post_gc figure: end_gc_time -
    dd_time_clock, read after its GCStart and before its GCEnd; then no lower
    bound, see below); the second
    pause, now - suspended_start_time with suspended_start_time read just
    before SuspendEE(SuspendForGCPrep), is recorded in
    gc_heap::background_sweep after BGC2ndNonConEnd and right before restart_EE.
    Both start before SuspendEEBegin (no bound, see CLOCK_MS). what and ms: gcscope's
    span for that pause and its length."""
    def one(query):
        return ns_or_none(sql(db, query))
    gc_id, pid, sb1, st = r[18], r[19], int(float(r[12])), int(float(r[13]))
    rb1 = one("SELECT min(ts_ns) FROM events WHERE pid = %s AND name = 'GCRestartEEBegin' AND ts_ns > %d" % (pid, st))
    c1 = one("SELECT max(ts_ns) FROM events WHERE pid = %s AND name = 'BGC1stNonConEnd' AND ts_ns BETWEEN %d AND %d"
             % (pid, st, rb1))
    lo1, hi1 = (c1 - sb1) / 1e6, (rb1 - sb1) / 1e6
    eph = sql(db, "SELECT start_ns, end_ns, "
                  "(SELECT max(ts_ns) FROM events e WHERE e.pid = g.pid AND e.name = 'GCGlobalHeapHistory' "
                  "        AND e.ts_ns BETWEEN g.start_ns AND g.end_ns), "
                  "(SELECT min(ts_ns) FROM events e WHERE e.pid = g.pid AND e.name = 'GCMarkWithType' "
                  "        AND json_extract(e.fields, '$.HeapNum') = 0 AND e.ts_ns BETWEEN g.start_ns AND g.end_ns) "
                  "FROM gcs g WHERE pid = %s AND id <> %s AND start_ns BETWEEN %d AND %d" % (pid, gc_id, st, rb1))
    if eph:
        # The runtime subtracts the ephemeral GC's pause: its gc1 starts (dd_time_clock) after
        # its GCStart and before heap 0 marks, and ends between its GCGlobalHeapHistory and GCEnd.
        # That bound held on an idle machine (0.81 ms in [0.756, 0.852]) but not under load:
        # 0.006 to 0.018 ms against lower ends of 1.2 to 13.4 ms, in 3 of 10 suite runs with both
        # cores busy. Not explained; this pause is printed, not checked (lo1 = None).
        e_st, e_en, e_hh, e_mark = (int(float(x)) if x not in ("", "NULL") else None for x in eph[0])
        lo1 = None
        if e_hh is not None and e_mark is not None:
            hi1 -= (e_hh - e_mark) / 1e6
    re1 = int(float(r[15]))
    sb2, re2 = int(float(r[20])), int(float(r[21]))
    idx = int(r[0])
    check(sb1 == own_suspend(db, pid, st, 1) and re1 == first_after(db, pid, "GCRestartEEEnd", st),
          "GC #%d: gcscope's first BGC pause is the GC's own SuspendEEBegin -> first RestartEEEnd" % idx)
    check(sb2 == own_suspend(db, pid, st, 6) and re2 == first_after(db, pid, "GCRestartEEEnd", sb2),
          "GC #%d: gcscope's second BGC pause is its own SuspendEEBegin(SuspendForGCPrep) -> RestartEEEnd" % idx)
    rb2 = one("SELECT min(ts_ns) FROM events WHERE pid = %s AND name = 'GCRestartEEBegin' AND ts_ns > %d" % (pid, sb2))
    c2 = one("SELECT max(ts_ns) FROM events WHERE pid = %s AND name = 'BGC2ndNonConEnd' AND ts_ns BETWEEN %d AND %d"
             % (pid, sb2, rb2))
    return ((lo1, hi1, "SuspendEEBegin -> first RestartEEEnd", (re1 - sb1) / 1e6),
            ((c2 - sb2) / 1e6, (rb2 - sb2) / 1e6, "SuspendEEBegin(SuspendForGCPrep) -> RestartEEEnd",
             (re2 - sb2) / 1e6))


def record(args, cwd, env=None, timeout=300):
    p = subprocess.run([GCSCOPE, "record"] + args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                       env=env)
    print(p.stdout + p.stderr)
    return p


def launch_case(case, scenario, extra_env, expect_bgc=False, min_pause_ms=None):
    d = workdir(case)
    env = env_with(extra_env)
    p = record(["--dotnet", "-o", d + "/rec", "--import", "-d", d + "/t.db", "--", "dotnet", GCPROG, scenario],
               cwd=d, env=env)
    check(p.returncode == 0, "record exits 0 (got %d)" % p.returncode)
    check(os.path.getsize(d + "/rec/trace.nettrace") > 0, "trace.nettrace written")
    pid = int(re.search(r"^PID (\d+)", p.stdout, re.M).group(1))
    compare(d + "/t.db", p.stdout, pid, expect_bgc)
    # Launch mode: nothing of the process is missed, GC #1 included.
    first = sql(d + "/t.db", "SELECT min(gc_index) FROM gcs")[0][0]
    check(first == "1", "GC #1 is in the trace (first: %s)" % first)
    if extra_env.get("DOTNET_gcServer") == "1":
        heaps = sql(d + "/t.db", "SELECT max(heap_count) FROM gcs")[0][0]
        check(int(heaps) >= 2 or os.cpu_count() == 1, "server GC: %s heaps" % heaps)
        check_mark_balance(d + "/t.db")
    if min_pause_ms:
        longest = float(sql(d + "/t.db", "SELECT max(pause_msec) FROM gcs WHERE gen = 2 AND type = 0")[0][0])
        check(longest >= min_pause_ms, "a blocking gen2 pause of at least %g ms (%.1f)" % (min_pause_ms, longest))


def check_mark_balance(db):
    """Server GC mark balance, recomputed here from the GCMarkWithType events
    (the events view): each heap's time on a root kind is from the GC's
    GCStart, or from that heap's previous mark event; the kind where the
    slowest and fastest heap differ most, its slowest heap and both times
    must be the gcs row's mark_* columns."""
    gcs = sql(db, "SELECT gc_index, start_ns, end_ns, coalesce(mark_unbalanced_kind, -1), "
                  "coalesce(mark_slow_heap, -1), coalesce(mark_slow_msec, -1), coalesce(mark_fast_msec, -1) "
                  "FROM gcs WHERE complete = 1 AND type <> 1")
    checked = 0
    for idx, st, en, kind, slow, slow_ms, fast_ms in gcs:
        ev = sql(db, "SELECT ts_ns, json_extract(fields, '$.HeapNum'), json_extract(fields, '$.Type') FROM events "
                     "WHERE name = 'GCMarkWithType' AND ts_ns BETWEEN %s AND %s ORDER BY ts_ns, id" % (st, en))
        last, ms = {}, {}
        for ts, heap, typ in ev:
            ts, heap, typ = int(ts), int(heap), int(typ)
            if typ >= 9:
                continue
            d = max(0, ts - last.get(heap, int(st))) / 1e6
            last[heap] = ts
            ms[(heap, typ)] = ms.get((heap, typ), 0) + d
        best = None
        for k in range(9):
            v = [(ms[(h, k)], h) for h in sorted(last) if (h, k) in ms]
            if len(v) < 2:
                continue
            hi, lo = max(v, key=lambda x: (x[0], -x[1])), min(v)[0]
            if best is None or hi[0] - lo > best[0]:
                best = (hi[0] - lo, k, hi[1], hi[0], lo)
        if best is None:
            check(kind == "-1", "GC #%s: no mark balance without two heaps' events" % idx)
            continue
        checked += 1
        check(int(kind) == best[1] and int(slow) == best[2] and abs(float(slow_ms) - best[3]) < 1e-6
              and abs(float(fast_ms) - best[4]) < 1e-6,
              "GC #%s mark balance: gcscope kind %s heap %s %s/%s ms, events say %s" % (idx, kind, slow, slow_ms,
                                                                                       fast_ms, best[1:]))
    check(checked > 0, "server GC: mark balance checked on %d GCs" % checked)


def case_launch_two_runtimes():
    """A command that starts two .NET programs at once: the first runtime to
    connect is recorded, the other is resumed untraced; nothing waits."""
    d = workdir("launch_two_runtimes")
    sh = 'dotnet "$1" alloc & dotnet "$1" alloc; wait'
    p = record(["--dotnet", "-o", d + "/rec", "--import", "-d", d + "/t.db", "--", "sh", "-c", sh, "sh", GCPROG],
               cwd=d, env=env_with({}), timeout=120)
    check(p.returncode == 0, "record exits 0")
    pids = [int(x) for x in re.findall(r"^PID (\d+)", p.stdout, re.M)]
    check(len(pids) == 2 and p.stdout.count("COUNTS ") == 2, "both programs ran to the end")
    traced = int(re.search(r"recording pid (\d+)", p.stdout).group(1))
    check(traced in pids, "the traced pid is one of them")
    check(sql(d + "/t.db", "SELECT DISTINCT pid FROM gcs") == [[str(traced)]], "only that process is in the trace")
    out = "\n".join(l for l in p.stdout.splitlines()
                    if not l.startswith("GC ") and not l.startswith("COUNTS") and not l.startswith("PID"))
    print(out)


def start_waiting(d, scenario_args, extra_env=None):
    """gcprog waiting for its go file; returns (process, go file)."""
    go = d + "/go"
    out = open(d + "/prog.out", "w")
    p = subprocess.Popen(["dotnet", GCPROG, "wait", go] + scenario_args, cwd=d, stdout=out,
                         env=env_with(extra_env or {}))
    wait_for(lambda: has_socket(p.pid), 30, "the program's diagnostic socket")
    return p, go


def has_socket(pid):
    """The process's own socket: its key is the process's start time (field 22
    of /proc/PID/stat). A socket with another key is an earlier process's that
    had the same pid (killed before it removed the file): not this one's."""
    tmp = os.environ.get("TMPDIR") or "/tmp"
    try:
        stat = open("/proc/%d/stat" % pid).read()
    except OSError:
        return False
    start = stat[stat.rindex(")") + 2:].split()[19]
    return os.path.exists(os.path.join(tmp, "dotnet-diagnostic-%d-%s-socket" % (pid, start)))


def wait_for(cond, seconds, what):
    end = time.time() + seconds
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.05)
    raise SystemExit("timed out waiting for " + what)


def stop(p):
    if p.poll() is None:
        os.kill(p.pid, signal.SIGKILL)
    p.wait()


def case_attach():
    d = workdir("attach")
    p, go = start_waiting(d, ["alloc"], {"DOTNET_GCgen0size": "0x200000"})
    try:
        # --pid of a process with a diagnostic socket picks EventPipe by itself (no --dotnet).
        r = subprocess.Popen([GCSCOPE, "record", "--pid", str(p.pid), "-o", d + "/rec", "--import", "-d", d + "/t.db"],
                             cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        first = r.stdout.readline()
        print(first, end="")
        check("over EventPipe" in first, "attach announces EventPipe")
        open(go, "w").close()
        p.wait(timeout=120)
        rest = r.communicate(timeout=60)[0]
        print(rest)
        check(r.returncode == 0, "record exits 0")
        check("process %d exited during the session" % p.pid in rest, "the summary says the process exited")
        compare(d + "/t.db", open(d + "/prog.out").read(), p.pid)
        # Attach mode knows the runtime's version from the diagnostics channel
        # (ProcessInfo2, as `ps` and `dotnet --list-runtimes` say it), and says
        # "unknown" for the GC settings a stream started after start-up lacks,
        # never "workstation" by default (issue 29, item 2).
        installed = subprocess.run(["dotnet", "--list-runtimes"], capture_output=True, text=True).stdout
        ver = sql(d + "/t.db", "SELECT runtime_version, coalesce(server_gc, 'NULL') FROM processes WHERE pid = %d"
                  % p.pid)
        check(len(ver) == 1 and ("Microsoft.NETCore.App %s " % ver[0][0]) in installed,
              "the runtime version %r is an installed runtime" % ver)
        txt = subprocess.run([GCSCOPE, "stats", d + "/t.db"], capture_output=True, text=True).stdout
        check(ver and ("Runtime: version %s, " % ver[0][0]) in txt and "version unknown" not in txt,
              "stats names the version: %r" % [l for l in txt.splitlines() if "Runtime:" in l])
        if ver and ver[0][1] == "NULL":
            check("unknown GC" in txt and "workstation" not in txt, "GC flavour unknown, not workstation")
    finally:
        stop(p)


def case_attach_settings():
    """Attach mode takes the GC settings from the rundown at the session's end
    (GCSettingsRundown, RuntimeInformationRundown): server GC, concurrent off,
    the heap count and the hard limit, checked against what the program itself
    says (GCSettings.IsServerGC, LatencyMode, ProcessorCount,
    GC.GetGCMemoryInfo().TotalAvailableMemoryBytes); then workstation with
    concurrent GC on, no hard limit (issue 29, item 2)."""
    runs = [("server", {"DOTNET_gcServer": "1", "DOTNET_gcConcurrent": "0", "DOTNET_GCHeapCount": "2",
                        "DOTNET_GCDynamicAdaptationMode": "0", "DOTNET_GCHeapHardLimit": "0x10000000"}),
            ("workstation", {"DOTNET_gcServer": "0", "DOTNET_gcConcurrent": "1"})]
    for name, env in runs:
        d = workdir("attach_settings_" + name)
        p, go = start_waiting(d, ["idle", "60"], dict(env, DOTNET_GCgen0size="0x100000"))
        try:
            open(go, "w").close()
            wait_for(lambda: "avail=" in open(d + "/prog.out").read(), 30, "gcprog's settings line")
            prog = open(d + "/prog.out").read()
            m = re.search(r"^PID (\d+) server=(\d) mode=(\w+) procs=(\d+) avail=(\d+)", prog, re.M)
            check(m is not None, "gcprog prints its settings: %r" % prog[:200])
            server, mode, procs, avail = int(m.group(2)), m.group(3), int(m.group(4)), int(m.group(5))
            r = record(["--pid", str(p.pid), "-o", d + "/rec", "--duration", "1.5", "--import", "-d", d + "/t.db"],
                       cwd=d, timeout=60)
            check(r.returncode == 0 and p.poll() is None, "record --duration exits 0, the process runs on")
            row = sql(d + "/t.db", "SELECT coalesce(server_gc, 'NULL'), coalesce(concurrent_gc, 'NULL'), "
                      "coalesce(heap_count, 'NULL'), coalesce(gc_hard_limit, 'NULL') FROM processes WHERE pid = %d"
                      % p.pid)
            print(name, row, prog.splitlines()[0])
            check(len(row) == 1, "one process row")
            srv, conc, heaps, limit = row[0]
            check(str(srv) == str(server), "server_gc %r is the program's IsServerGC %d" % (srv, server))
            # LatencyMode Batch is what a runtime without concurrent GC reports.
            check(str(conc) == ("0" if mode == "Batch" else "1"), "concurrent_gc %r, LatencyMode %s" % (conc, mode))
            if server:
                check(str(heaps) == str(min(2, procs)), "heap_count %r = min(GCHeapCount 2, %d processors)"
                      % (heaps, procs))
                check(str(limit) == str(0x10000000) and avail == 0x10000000,
                      "gc_hard_limit %r = GCHeapHardLimit = TotalAvailableMemoryBytes %d" % (limit, avail))
            else:
                check(str(heaps) == "1", "workstation: one heap (%r)" % heaps)
                check(str(limit) == "0", "no hard limit: 0 (%r)" % limit)
            txt = subprocess.run([GCSCOPE, "stats", d + "/t.db"], capture_output=True, text=True).stdout
            want = "%s GC, concurrent GC %s" % ("server" if server else "workstation", "off" if mode == "Batch" else "on")
            check(want in txt, "stats says %r: %r" % (want, [l for l in txt.splitlines() if "Runtime:" in l]))
            if server:
                check("GC heap hard limit: 268.435 MB" in txt, "stats shows the hard limit")
            js = json.loads(subprocess.run([GCSCOPE, "stats", d + "/t.db", "--format", "json"], capture_output=True,
                                           text=True).stdout)
            pj = [x for x in js["processes"] if x["pid"] == p.pid][0]
            check(pj["server_gc"] is bool(server) and pj["concurrent_gc"] is (mode != "Batch")
                  and pj["gc_hard_limit_bytes"] == (0x10000000 if server else 0), "JSON: %r" % {
                      k: pj.get(k) for k in ("server_gc", "concurrent_gc", "gc_hard_limit_bytes")})
        finally:
            stop(p)


def case_exit_mid_session():
    d = workdir("exit_mid_session")
    p, go = start_waiting(d, ["idle", "60"], {"DOTNET_GCgen0size": "0x100000"})
    try:
        r = subprocess.Popen([GCSCOPE, "record", "--dotnet", "--pid", str(p.pid), "-o", d + "/rec"], cwd=d,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(r.stdout.readline(), end="")
        open(go, "w").close()
        wait_for(lambda: open(d + "/prog.out").read().count("\nGC ") >= 3, 60, "three GCs")
        time.sleep(0.5)
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        out = r.communicate(timeout=60)[0]
        print(out)
        check(r.returncode == 0, "record exits 0")
        check("process %d exited during the session" % p.pid in out, "the summary says the process exited")
        m = re.search(r"(\d+) GCs in 1 process", out)
        check(m is not None and int(m.group(1)) >= 1, "the summary counts the GCs received")
        with open(d + "/rec/trace.nettrace", "rb") as f:
            check(f.read(8) == b"Nettrace", "the trace is kept")
        imp = subprocess.run([GCSCOPE, "import", "-d", d + "/t.db", d + "/rec/trace.nettrace"], capture_output=True,
                             text=True)
        print(imp.stdout + imp.stderr)
        check(imp.returncode == 0, "the kept trace imports")
    finally:
        stop(p)


def case_stop():
    """--duration and SIGINT end the session with StopTracing; the stream ends whole."""
    d = workdir("stop")
    p, go = start_waiting(d, ["idle", "60"], {"DOTNET_GCgen0size": "0x100000"})
    try:
        open(go, "w").close()
        r = record(["--pid", str(p.pid), "-o", d + "/dur", "--duration", "1.5", "--import", "-d", d + "/t.db"], cwd=d,
                   timeout=60)
        check(r.returncode == 0, "--duration: record exits 0")
        check("exited during the session" not in r.stdout, "--duration: the process is still running")
        check("incomplete" not in r.stdout and "added it" not in r.stdout, "--duration: the stream ended whole")
        check(p.poll() is None, "--duration on --pid leaves the process running")
        r = subprocess.Popen([GCSCOPE, "record", "--pid", str(p.pid), "-o", d + "/int"], cwd=d,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(r.stdout.readline(), end="")
        time.sleep(1.0)
        os.kill(r.pid, signal.SIGINT)
        out = r.communicate(timeout=60)[0]
        print(out)
        check(r.returncode == 0, "SIGINT: record exits 0")
        check("incomplete" not in out and "added it" not in out, "SIGINT: the stream ended whole")
        imp = subprocess.run([GCSCOPE, "import", "-d", d + "/t.db", d + "/int/trace.nettrace"], capture_output=True,
                             text=True)
        check(imp.returncode == 0, "SIGINT: the trace imports")
        check(p.poll() is None, "SIGINT to gcscope leaves the attached process running")
    finally:
        stop(p)
    # Launch mode: --duration stops the session whole, then the command gets SIGTERM (as timeout(1)).
    r = record(["--dotnet", "-o", d + "/launch", "--duration", "1", "--", "dotnet", GCPROG, "idle", "60"], cwd=d,
               env=env_with({"DOTNET_GCgen0size": "0x100000"}), timeout=60)
    check(r.returncode == 0, "launch --duration: record exits 0")
    check("the command was stopped at the end of --duration" in r.stdout, "launch --duration: the command got SIGTERM (asked: not a failure)")
    check("incomplete" not in r.stdout and "added it" not in r.stdout, "launch --duration: the stream ended whole")
    imp = subprocess.run([GCSCOPE, "import", "-d", d + "/t.db", d + "/launch/trace.nettrace"], capture_output=True,
                         text=True)
    check(imp.returncode == 0, "launch --duration: the trace imports")


def switches(pid):
    """Voluntary + involuntary context switches of PID so far."""
    with open("/proc/%d/status" % pid) as f:
        return sum(int(l.split()[1]) for l in f
                   if l.split(":")[0] in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"))


def quiet_switches(r, secs, what):
    """gcscope's (process r's) context switches over SECS, then its output once it exits; checks
    that it exited 0 and switched fewer than 10 times (a timer of ~200 ms or less)."""
    a = switches(r.pid)
    time.sleep(secs)
    n = switches(r.pid) - a
    out = r.communicate(timeout=60)[0]
    print(out)
    print("gcscope: %d context switches in %g s %s" % (n, secs, what))
    check(r.returncode == 0, "record exits 0")
    check(n < 10, "gcscope switched %d times in %g s %s" % (n, secs, what))
    return out


def case_quiet_parent():
    """While a quiet .NET program runs, gcscope record --dotnet sleeps in poll() on the stream, the
    process and its signals: no timer wakes it (a 100 ms poll made ~20 switches in 2 s; a 1 ms one ~2000)."""
    d = workdir("quiet_parent")
    r = subprocess.Popen([GCSCOPE, "record", "--dotnet", "-o", d + "/rec", "--", "dotnet", GCPROG, "sleep", "4"],
                         cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        print(r.stdout.readline(), end="")      # recording pid ...: the session runs
        time.sleep(0.5)                        # the runtime's start-up events and rundown have arrived
        out = quiet_switches(r, 2, "while the program slept")
        check("incomplete" not in out and "added it" not in out, "the stream ended whole")
    finally:
        if r.poll() is None:
            r.kill()
            r.wait()


def case_quiet_after_capture():
    """Once its captures are taken gcscope waits for the command in waitpid() (it turned every 1 ms:
    ~1,000 context switches a second). The command is a shell that runs gcprog for 1 s, then sleeps."""
    d = workdir("quiet_after_capture")
    r = subprocess.Popen([GCSCOPE, "record", "--dotnet", "--stop-on-gc-over", "0.01", "--delay-after-trigger", "0",
                          "-o", d + "/rec", "--", "sh", "-c", 'dotnet "$0" idle 1 >/dev/null; sleep 4', GCPROG],
                         cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=env_with({"DOTNET_GCgen0size": "0x100000"}))
    try:
        seen = ""
        for line in r.stdout:
            seen += line
            if "waiting for the command to exit" in line:
                break
        print(seen, end="")
        check("waiting for the command to exit" in seen, "the capture was taken while the command ran")
        time.sleep(1)                          # the session drained, gcprog done: the shell sleeps
        quiet_switches(r, 1.5, "waiting for the command")
    finally:
        if r.poll() is None:
            r.kill()
            r.wait()


def case_not_dotnet():
    d = workdir("not_dotnet")
    s = subprocess.Popen(["sleep", "60"])
    try:
        r = record(["--dotnet", "--pid", str(s.pid), "-o", d + "/rec"], cwd=d)
        check(r.returncode == 1, "a pid without a socket: exit 1")
        check(r.stderr.strip().count("\n") == 0, "one line")
        check("process %d has no diagnostic socket" % s.pid in r.stderr, "the reason: no diagnostic socket")
        r = record(["--dotnet", "-o", d + "/rec2", "--", "sleep", "0.2"], cwd=d)
        check(r.returncode == 1, "a launched command that is not .NET: exit 1")
        check("exited before a .NET runtime connected" in r.stderr, "the reason: no runtime connected")
        # Without --dotnet (issue 29, item 9): no socket and no LTTng-UST provider in its maps
        # either: one line, exit 1, nothing written (it said "cannot summarise" and exited 0).
        r = record(["--pid", str(s.pid), "-o", d + "/rec3", "--duration", "1"], cwd=d)
        check(r.returncode == 1 and r.stderr.strip().count("\n") == 0 and
              ("process %d (sleep) has no .NET diagnostic socket and no LTTng-UST provider" % s.pid) in r.stderr,
              "--pid of a process with neither: one line, exit 1: %d %r" % (r.returncode, r.stderr))
        check(not os.path.exists(d + "/rec3"), "nothing written for it")
    finally:
        stop(s)


def case_auto_dotnet():
    """`record -- dotnet app.dll` and `record -- ./app` (an app host beside its
    app.runtimeconfig.json) without --dotnet record over EventPipe, as --pid
    of a .NET process does, and say so in one line; the trace holds the GCs
    the runtime itself counts (COUNTS). Over LTTng nothing was recorded
    ("cannot summarise the trace")."""
    d = workdir("auto_dotnet")
    host = os.path.join(os.path.dirname(GCPROG), "gcprog")
    check(os.access(host, os.X_OK) and os.path.exists(host + ".runtimeconfig.json"),
          "premise: the build wrote an app host beside gcprog.runtimeconfig.json")
    env = env_with({"DOTNET_GCgen0size": "0x200000"})
    for name, cmd in (("dotnet", ["dotnet", GCPROG, "alloc"]), ("apphost", [host, "alloc"])):
        p = record(["-o", "%s/%s" % (d, name), "--import", "-d", "%s/%s.db" % (d, name), "--"] + cmd, cwd=d, env=env)
        check(p.returncode == 0, "%s: record exits 0 (got %d)" % (name, p.returncode))
        note = "gcscope record: %s is a .NET program: recording over EventPipe, as --dotnet" % cmd[0]
        check(p.stderr.splitlines()[:1] == [note], "%s: the note line first: %r" % (name, p.stderr[:200]))
        check(os.path.getsize("%s/%s/trace.nettrace" % (d, name)) > 0, "%s: trace.nettrace written" % name)
        pid = int(re.search(r"^PID (\d+)", p.stdout, re.M).group(1))
        compare("%s/%s.db" % (d, name), p.stdout, pid)
    # top -- dotnet app.dll: over EventPipe too (the stream kept with -o is a .nettrace)
    s, _, out, _ = top_until_exit("%s top -o %s/topkeep -- dotnet %s alloc" % (GCSCOPE, d, GCPROG))
    try:
        if out is not None:
            s.keys("q")
            s.wait_for("EXIT=0", timeout=20)
    finally:
        s.close()
    check(os.path.exists(d + "/topkeep/trace.nettrace"), "top kept a .nettrace: EventPipe")
    # a program that is not .NET is not taken for one
    p = record(["-o", d + "/plain", "--", "true"], cwd=d)
    check("EventPipe" not in p.stderr + p.stdout, "true: not .NET: %r" % p.stderr)
    check("no GC events recorded: no process loaded an LTTng GC" in p.stdout, "true: says nothing was recorded: %r" %
          p.stdout)


def case_exit_status():
    """record --dotnet -- COMMAND exits with COMMAND's own status, as time and
    dotnet-trace do (issue 29, item 9): gcprog with an unknown scenario
    exits 2 (its own code); the trace is still written."""
    d = workdir("exit_status")
    r = record(["--dotnet", "-o", d + "/rec", "--", "dotnet", GCPROG, "nosuchscenario"], cwd=d)
    check(r.returncode == 2, "record exits with the command's status 2 (got %d)" % r.returncode)
    check("the command exited with status 2" in r.stdout, "and says so")
    check(os.path.getsize(d + "/rec/trace.nettrace") > 0, "the trace is written")
    r = record(["--dotnet", "-o", d + "/rec2", "--", "dotnet", GCPROG, "sleep", "0.1"], cwd=d)
    check(r.returncode == 0, "a command exiting 0: record exits 0 (got %d)" % r.returncode)


def case_permission():
    """A socket of another user's process: attach and ps say why, in one line."""
    if os.geteuid() != 0:
        print("SKIPPED: needs root to run gcscope as another user")
        sys.exit(SKIP)
    d = workdir("permission")
    os.chmod(d, 0o755)
    p, go = start_waiting(d, ["idle", "60"])
    try:
        as_nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", GCSCOPE]
        r = subprocess.run(as_nobody + ["record", "--dotnet", "--pid", str(p.pid), "-o", "/tmp/gcscope-perm-%d" % p.pid],
                           capture_output=True, text=True, timeout=60)
        print(r.stdout + r.stderr)
        check(r.returncode == 1, "another user's process: exit 1")
        check("Permission denied" in r.stderr, "the reason: permission denied")
        r = subprocess.run(as_nobody + ["ps"], capture_output=True, text=True, timeout=60)
        print(r.stdout + r.stderr)
        line = [l for l in r.stdout.splitlines() if l.split()[:1] == [str(p.pid)]]
        check(len(line) == 1 and "cannot query" in line[0] and "Permission denied" in line[0],
              "ps lists the unreadable socket with the reason")
    finally:
        subprocess.run(["rm", "-rf", "/tmp/gcscope-perm-%d" % p.pid])
        stop(p)


def case_ps():
    d = workdir("ps")
    p, go = start_waiting(d, ["idle", "60"])
    try:
        r = subprocess.run([GCSCOPE, "ps"], capture_output=True, text=True, timeout=60)
        print(r.stdout + r.stderr)
        version = subprocess.run(["dotnet", "--list-runtimes"], capture_output=True, text=True).stdout
        line = [l for l in r.stdout.splitlines() if l.split()[:1] == [str(p.pid)]]
        check(len(line) == 1, "ps lists the program")
        if line:
            f = line[0].split(None, 3)
            check(f[1] == "dotnet", "its name")
            check("Microsoft.NETCore.App " + f[2] + " " in version, "its runtime version %s is installed" % f[2])
            check(GCPROG in f[3] and f[3].endswith("wait %s idle 60" % go), "its command line")
    finally:
        stop(p)


def case_lttng_check():
    """--transport lttng says in one line why CoreCLR's LTTng provider cannot load."""
    rt = subprocess.run(["dotnet", "--list-runtimes"], capture_output=True, text=True).stdout
    m = re.search(r"Microsoft\.NETCore\.App (\S+) \[(.*)\]", rt)
    provider = "%s/%s/libcoreclrtraceptprovider.so" % (m.group(2), m.group(1))
    ldd = subprocess.run(["ldd", provider], capture_output=True, text=True).stdout
    if "not found" not in ldd:
        print("SKIPPED: this runtime's LTTng provider loads here (%s)" % provider)
        sys.exit(SKIP)
    missing = re.search(r"(\S+) => not found", ldd).group(1)
    d = workdir("lttng_check")
    r = record(["--dotnet", "--transport", "lttng", "-o", d + "/rec", "--", "dotnet", GCPROG, "alloc"], cwd=d)
    check(r.returncode == 1, "exit 1")
    check(r.stderr.count("\n") == 1, "one line")
    check(missing in r.stderr and "cannot load" in r.stderr, "the reason names %s" % missing)
    check("EventPipe" in r.stderr, "the EventPipe alternative")


FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def import_fixture(name, trace):
    """Imports tests/dotnet/fixtures/TRACE into a fresh work directory NAME's
    t.db (checked); returns the directory."""
    d = workdir(name)
    imp = subprocess.run([GCSCOPE, "import", "-d", d + "/t.db", os.path.join(FIXTURES, trace)],
                         capture_output=True, text=True)
    print(imp.stdout + imp.stderr)
    check(imp.returncode == 0, "the fixture %s imports" % trace)
    return d


def case_fixture_import():
    """A .NET 10 trace recorded by gcscope (launch mode, gcprog alloc,
    DOTNET_GCgen0size=0x200000) with the program's output of that run:
    imported offline, it agrees with what the runtime printed."""
    d = import_fixture("fixture_import", "gcprog-alloc.nettrace")
    # Figures read off gcprog-alloc.out: pid 24613, COUNTS gen0=31 gen1=4 gen2=2, GC #20 a gen2
    # GC promoting 4337496 bytes (TotalPromotedSize0..3 4329312 + the POH's 8184) in 0.752 ms.
    check(sql(d + "/t.db", "SELECT pid, count(*) FROM gcs") == [["24613", "31"]], "31 GCs of pid 24613")
    check(sql(d + "/t.db", "SELECT gen, count(*) FROM gcs GROUP BY gen") == [["0", "27"], ["1", "2"], ["2", "2"]],
          "27 gen0, 2 gen1, 2 gen2 GCs")
    check(sql(d + "/t.db", "SELECT gen, round(promoted_mb * 1e6) FROM gcs WHERE gc_index = 20") == [["2", "4329312.0"]],
          "GC #20: gen2, 4329312 bytes promoted in gen0..LOH")
    compare(d + "/t.db", open(FIXTURES + "/gcprog-alloc.out").read(), 24613)


def case_fixture_record_dir():
    """Issue 29, item 9: `import DIR` (and every report given DIR) on a
    directory as `record --dotnet` writes it with triggers: capture-K.nettrace
    files beside firings.tsv (here the two committed .NET 10 traces and two
    firings naming them). Each capture is a trace, each firing goes to its
    capture's trace."""
    d = workdir("fixture_record_dir")
    rec = d + "/rec"
    os.makedirs(rec)
    shutil.copyfile(FIXTURES + "/gcprog-alloc.nettrace", rec + "/capture-1.nettrace")
    shutil.copyfile(FIXTURES + "/gcprog-bgc-sweep.nettrace", rec + "/capture-2.nettrace")
    with open(rec + "/firings.tsv", "w") as f:
        f.write("rule\tkind\tpid\tgc\tms\tvalue\tbegin_ns\tend_ns\tcapture\tverdict\n")
        f.write("gc-over 0.5ms\tgc\t24613\t20\t0.752\t0\t1\t2\tcapture-1.nettrace\tcaptured\n")
        f.write("gc-over 50ms\tgc\t13815\t20\t55.254\t0\t3\t4\tcapture-2.nettrace\tcaptured\n")
    imp = subprocess.run([GCSCOPE, "import", "-d", d + "/t.db", rec], capture_output=True, text=True)
    print(imp.stdout + imp.stderr)
    check(imp.returncode == 0, "import of a record --dotnet directory exits 0")
    check(imp.stdout.count("stop-rule firing from record's firings.tsv") == 2, "one firing per capture")
    got = sql(d + "/t.db", "SELECT t.path, (SELECT count(*) FROM gcs g WHERE g.trace_id = t.id), "
                           "(SELECT group_concat(f.pid || ':' || f.gc_index) FROM trigger_firings f "
                           " WHERE f.trace_id = t.id) FROM traces t ORDER BY t.id")
    check(got == [[rec + "/capture-1.nettrace", "31", "24613:20"], [rec + "/capture-2.nettrace", "20", "13815:20"]],
          "two traces, 31 and 20 GCs, each with its firing: %r" % got)
    st = subprocess.run([GCSCOPE, "stats", rec, "-d", d + "/s.db"], capture_output=True, text=True, cwd=d)
    check(st.returncode == 0 and "GC Stats for Process 24613" in st.stdout and "GC Stats for Process 13815" in st.stdout,
          "stats DIR reports both captures: %r" % st.stderr)


def case_fixture_bgc_late_phh():
    """A .NET 10 trace of gcprog bgc (DOTNET_gcConcurrent=1, gen0size 1 MB,
    GCPROG_FINAL_GC=1) recorded with both cores busy, where background GC #17
    fired its GlobalHeapHistory and PerHeapHistory (on its thread) after
    foreground GC #19 inside it ended but before #19's RestartEEEnd. PerfView's
    attribution gives both histories to #19 (Phh count 2); the measured figure
    gives #17 its own: before, #19 counted gen0 twice and #17 had none (sum
    117.28 MB, +6.8 %). The program's output of that run was not kept; gcprog
    bgc printed ALLOCATED 109,830,216..109,838,568 bytes in 12 other runs."""
    d = import_fixture("fixture_bgc_late_phh", "gcprog-bgc-late-phh.nettrace")
    rows = sql(d + "/t.db", "SELECT gc_index, type, phh_count, round(alloc_measured_mb * 1e6) FROM gcs "
                            "WHERE gc_index IN (17, 19) ORDER BY gc_index")
    # #19's gen0: size 6,226,608 before it, 0 after #18 (the gen1 GC in #17's
    # initial pause): all allocated in between, less the share of free space
    # allocation leaves (0.02 % before this run's blocking GCs). 1,673,664 of it
    # are free objects, what #17's final pause swept (4,552,944 were counted before).
    check(len(rows) == 2 and rows[0] == ["17", "1", "0", "6291400.0"] and rows[1][:3] == ["19", "2", "2"]
          and abs(float(rows[1][3]) - 6226608) <= 0.001 * 6226608,
          "#17 (BGC) and #19 (foreground, PerfView's two histories) each measured on their own history: %s" % rows)
    row = sql(d + "/t.db", "SELECT sum(alloc_measured_mb) * 1e6, sum(complete = 1 AND alloc_measured_mb IS NULL) "
                           "FROM gcs")[0]
    ours = float(row[0])
    check(row[1] == "0", "no complete GC without a measured figure (%s)" % row[1])
    check(109830216 <= ours <= 1.005 * 109838568,
          "measured %.0f between gcprog bgc's 109,830,216..109,838,568 and 0.5 %% above" % ours)


def case_fixture_bgc_sweep():
    """A .NET 10 trace of gcprog bgc (as in alloc_measured, with GCPROG_TA=1)
    recorded with both cores busy, and what the program printed
    (gcprog-bgc-sweep.out: ALLOCATED = GC.GetTotalAllocatedBytes(true) after
    the final GC). Background GC #7 swept 291,352 bytes of gen0 allocated while
    it ran (its gen0 after: size 600,352, free objects 291,352), and its LOH
    before (4,063,512) holds 2 MB that the gen1 GC #8 in its initial pause does
    not (1,966,304; the program's counter says they were allocated after
    that pause): taking #8's LOH as an observation counted them again at #9.
    Before: +2.18 %; now +0.27 %."""
    d = import_fixture("fixture_bgc_sweep", "gcprog-bgc-sweep.nettrace")
    want = int(re.search(r"^ALLOCATED bytes=(\d+)", open(FIXTURES + "/gcprog-bgc-sweep.out").read(), re.M).group(1))
    rows = sql(d + "/t.db", "SELECT gc_index, round(soh_alloc_measured_mb * 1e6), round(loh_alloc_measured_mb * 1e6) "
                            "FROM gcs WHERE gc_index IN (7, 8, 9) ORDER BY gc_index")
    # #7: gen0 6,291,480 at its start + 600,352 at its end (its size after:
    # 0 after #9; less the share of free space allocation leaves, 0.06 % before
    # in this run); LOH 4,063,512 - 917,704 free - 1,048,600 after #6.
    check(len(rows) == 3 and abs(float(rows[0][1]) - 6891832) <= 0.001 * 6891832 and rows[0][2] == "2097208.0"
          and rows[1:] == [["8", "0.0", "0.0"], ["9", "6291304.0", "0.0"]],
          "#7 counts its gen0 sweep and the LOH once, #8 and #9 no LOH: %s" % rows)
    ours = float(sql(d + "/t.db", "SELECT sum(alloc_measured_mb) * 1e6 FROM gcs")[0][0])
    print("runtime %d, measured %.0f (%+.3f %%)" % (want, ours, (ours - want) * 100.0 / want))
    check(want <= ours <= 1.005 * want, "measured %.0f between the runtime's %d and 0.5 %% above it" % (ours, want))
    # The runtime's own pause beside PerfView's (issue 29, item 3). By the
    # program's output, PerfView's pause differs from the runtime's (over
    # 0.1 ms and 5 %) in GCs 7, 10, 11, 12, 17 and 19: the two background GCs
    # (7: 0.646 against 0.283 ms) and four restarts of 0.4 to 2.7 ms under
    # load. gcscope's runtime_pause_msec marks 7, 11, 12, 17 and 19 (GC 10's
    # runtime clock stopped 0.92 ms before its GCEnd: runtime_pause_msec
    # 13.208, PerfView 13.643); the text marks those Pause cells with "*" and
    # says why once.
    txt = subprocess.run([GCSCOPE, "stats", d + "/t.db", "--gcs", "all"], capture_output=True, text=True).stdout
    marked = sorted({int(l.split()[0]) for l in txt.splitlines() if re.match(r"^\s*\d+\s+[\d,.]+\s+\S+\s+\S+\s+[\d.]+\s+[\d.]+\*", l)})
    check(marked == [7, 11, 12, 17, 19], "GCs marked *: %r" % marked)
    check(txt.count("* 5 GCs whose Pause differs from the runtime's own") == 1, "the reason, once")


def case_trigger():
    """--stop-on-gc-over over EventPipe: the rules time GCStart -> GCEnd by the
    events' own timestamps, so the pause that fires is the one the capture
    holds, to the microsecond; the capture is a valid nettrace that imports,
    and the GC's generation is the runtime's."""
    d = workdir("trigger")
    thr = 15.0
    p = record(["--dotnet", "--stop-on-gc-over", str(thr), "--delay-after-trigger", "0.5", "-o", d + "/rec",
                "--import", "-d", d + "/t.db", "--", "dotnet", GCPROG, "long"],
               cwd=d, env=env_with({"DOTNET_gcConcurrent": "0"}))
    check(p.returncode == 0, "record exits 0 (got %d)" % p.returncode)
    check(not os.path.exists(d + "/rec/trace.nettrace"), "with a trigger only captures are written")
    m = re.search(r"trigger gc-over 15 ms: pid (\d+) GC #(\d+) gen(\d) (\w+): ([0-9.]+) ms -> (\S+)", p.stdout)
    check(m is not None, "the trigger fired on a GC over %g ms" % thr)
    if m is None:
        return
    pid, idx, gen, ms, path = int(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(5)), m.group(6)
    check(ms > thr, "the pause that fired is over the threshold (%.3f ms)" % ms)
    check(path == d + "/rec/capture-1.nettrace", "the capture is capture-1.nettrace (%s)" % path)
    check("capture-1.nettrace verified: the trace says %.3f ms" % ms in p.stdout, "the capture is verified")
    check("1 capture in %s/rec (1 verified" % d in p.stdout, "the summary counts one verified capture")
    with open(path, "rb") as f:
        check(f.read(8) == b"Nettrace", "the capture is a nettrace file")
    rows = sql(d + "/t.db", "SELECT gen, round(duration_msec, 3) FROM gcs WHERE pid = %d AND gc_index = %d" % (pid, idx))
    check(len(rows) == 1, "GC #%d is in the imported capture" % idx)
    if rows:
        check(int(rows[0][0]) == gen, "GC #%d: generation in the capture %s, at the trigger %d" % (idx, rows[0][0], gen))
        check(abs(float(rows[0][1]) - ms) < 0.0015,
              "GC #%d: GCStart->GCEnd in the capture %s ms, at the trigger %.3f ms" % (idx, rows[0][1], ms))
    gcs, _ = parse_program(p.stdout)
    if idx in gcs:
        check(gcs[idx]["gen"] == gen, "GC #%d: the runtime says gen%d, the trigger gen%d" % (idx, gcs[idx]["gen"], gen))
    # The capture names its process (issue 29, item 9: it was "?", and Perfetto's "pid N"):
    # record notes what /proc said of it in process.tsv beside the captures.
    named = sql(d + "/t.db", "SELECT name, command_line FROM processes WHERE pid = %d" % pid)
    check(len(named) == 1 and named[0][0] == "dotnet" and GCPROG in named[0][1] and named[0][1].endswith(" long"),
          "the capture's process: %r" % named)
    ex = subprocess.run([GCSCOPE, "export", d + "/t.db", "--format", "chrome-json", "-o", d + "/t.json"],
                        capture_output=True, text=True)
    check(ex.returncode == 0 and '"name": "dotnet"' in open(d + "/t.json").read().replace('":"', '": "'),
          "Perfetto/Chrome JSON names the process dotnet: %r" % ex.stderr)
    # Every GC over 0 ms, two captures: both verified and importable, each
    # holding the GC that fired it; then the session stops.
    p = record(["--dotnet", "--stop-on-gc-over", "0", "--collect-multiple", "2", "--delay-after-trigger", "0.2",
                "-o", d + "/two", "--", "dotnet", GCPROG, "idle", "3"],
               cwd=d, env=env_with({"DOTNET_GCgen0size": "0x100000"}))
    check(p.returncode == 0, "two captures: record exits 0")
    fired = re.findall(r"trigger gc-over 0 ms: pid (\d+) GC #(\d+) gen\d \w+: [0-9.]+ ms -> (\S+)", p.stdout)
    check([f[2] for f in fired] == [d + "/two/capture-1.nettrace", d + "/two/capture-2.nettrace"],
          "two captures, capture-1 and capture-2 (%s)" % fired)
    check("all 2 captures taken" in p.stdout, "the session stops after two captures")
    for pid, idx, path in fired:
        check("%s verified" % os.path.basename(path) in p.stdout, "%s verified" % path)
        db = path + ".db"
        imp = subprocess.run([GCSCOPE, "import", "-d", db, path], capture_output=True, text=True)
        check(imp.returncode == 0, "%s imports (%s)" % (path, imp.stderr.strip()))
        if imp.returncode == 0:
            check(sql(db, "SELECT count(*) FROM gcs WHERE pid = %s AND gc_index = %s" % (pid, idx)) == [["1"]],
                  "%s holds GC #%s" % (path, idx))
    # Longer than the longest pause: nothing fires, nothing is written.
    p = record(["--dotnet", "--stop-on-gc-over", "100000", "-o", d + "/none", "--", "dotnet", GCPROG, "alloc"],
               cwd=d, env=env_with({}))
    check(p.returncode == 0, "no firing: record exits 0")
    check("no trigger fired; nothing written" in p.stdout, "no firing: the summary says so")
    check(os.listdir(d + "/none") == [], "no firing: nothing written (%s)" % os.listdir(d + "/none"))


def top_until_exit(cmdline):
    """Runs `gcscope top` (CMDLINE, gcprog alloc) in tmux until its command
    exited; checks the header's GC counts per generation against the
    runtime's own CollectionCount (COUNTS). Returns the screen (the caller
    closes it), its text, the program's output (None after a failure) and the
    header's counts."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tui"))
    from tmux_top import Screen
    from top_live_common import header_figures, stable_screen
    env = {"DOTNET_GCgen0size": "0x200000", "DOTNET_CLI_TELEMETRY_OPTOUT": "1"}
    s = Screen(cmdline, width=120, height=40, env=env)
    try:
        t = stable_screen(s, "command exited", timeout=120)
        print(t)
        counts, _, _, _, _ = header_figures(t)
        m = re.search(r"output in (\S+\.out)\)", t)
        check(m is not None, "the status line names the command's output file")
        if m is None or counts is None:
            check(counts is not None, "the header shows GC counts")
            return s, t, None, counts
        out = open(m.group(1)).read()
        os.unlink(m.group(1))
        _, rt = parse_program(out)
        check(rt is not None, "the program printed its COUNTS line")
        if rt is None:
            return s, t, None, counts
        want = (rt[0] - rt[1], rt[1] - rt[2], rt[2])
        check(counts == want, "top's GCs per generation %s, the runtime's %s" % (counts, want))
        return s, t, out, counts
    except BaseException:
        s.close()
        raise


def case_top():
    """`gcscope top --dotnet -- COMMAND` in tmux: the header's GC counts per
    generation equal the runtime's own CollectionCount at exit, the title says
    how old the newest event is (growing once the command exited), and the
    stream kept with -o imports to the same GCs."""
    d = workdir("top")
    detail_gc = detail_committed = None
    s, t, out, counts = top_until_exit("%s top --dotnet -o %s/keep -- dotnet %s alloc" % (GCSCOPE, d, GCPROG))
    try:
        if out is None:
            return
        # Staleness (issue 29, item 8): the title says how old the newest event is,
        # and the age grows while nothing comes (the command has exited).
        age = lambda: [float(x) for x in re.findall(r"last event (\d+\.\d) s ago", s.lines()[0])]
        a1 = age()
        time.sleep(3)
        a2 = age()
        check(len(a1) == 1 and len(a2) == 1 and 2.0 <= a2[0] - a1[0] <= 4.5,
              "the title's 'last event N s ago' grows with the wait: %r then %r" % (a1, a2))
        # The selected GC's detail: its committed memory at its end (.NET 8+ GCCommittedUsage),
        # the runtime's TotalCommittedBytes when the program printed that GC.
        s.keys("Enter")
        det = s.wait_for("GC detail")
        gm = re.search(r"GC #(\d+) ", det)
        cm = re.search(r"Committed ([0-9.]+) MB at its end", det)
        check(gm is not None and cm is not None, "the GC detail shows its committed memory", det)
        if gm and cm:
            detail_gc, detail_committed = int(gm.group(1)), cm.group(1)
            print("detail: GC #%d committed %s MB" % (detail_gc, detail_committed))
            gcs, _ = parse_program(out)
            g = gcs.get(detail_gc)
            if g is not None and "committed" in g:
                check(detail_committed == "%.3f" % (g["committed"] / 1e6),
                      "GC #%d detail committed %s MB, runtime %d bytes" % (detail_gc, detail_committed,
                                                                         g["committed"]))
        s.keys("Escape")
        s.wait_for("GC detail", absent=True)
        s.keys("q")
        s.wait_for("EXIT=0", timeout=20)
    finally:
        s.close()
    imp = subprocess.run([GCSCOPE, "import", "-d", d + "/t.db", d + "/keep/trace.nettrace"], capture_output=True, text=True)
    print(imp.stdout + imp.stderr)
    check(imp.returncode == 0, "the kept stream imports")
    per_gen = tuple(int(n) for _, n in sql(d + "/t.db", "SELECT gen, count(*) FROM gcs GROUP BY gen ORDER BY gen"))
    check(per_gen == counts, "the kept stream has the GCs top showed (%s vs %s)" % (per_gen, counts))
    if detail_gc is not None:
        row = sql(d + "/t.db", "SELECT printf('%%.3f', committed_after_mb) FROM gcs WHERE gc_index = %d" % detail_gc)
        check(row == [[detail_committed]], "GC #%d: top's committed %s MB = the kept stream's %s"
              % (detail_gc, detail_committed, row))
    # -o DIR again: refused before anything starts, as record -o refuses it
    # (before, the kept stream was truncated to 0 bytes the moment top started).
    kept = d + "/keep/trace.nettrace"
    before = open(kept, "rb").read()
    again = subprocess.run([GCSCOPE, "top", "--dotnet", "-o", d + "/keep", "--", "dotnet", GCPROG, "alloc"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    want = ("gcscope top: '%s/keep' already holds a recording (%s/keep/trace.nettrace); "
            "choose another -o or remove it\n" % (d, d))
    check(again.returncode == 1 and again.stderr == want,
          "top -o DIR holding a recording: exit %d, %r" % (again.returncode, again.stderr))
    check(open(kept, "rb").read() == before and len(before) > 0, "the kept stream is unchanged (%d bytes)" % len(before))


def case_alloc_measured():
    """gcscope's measured allocations against GC.GetTotalAllocatedBytes(true),
    read right after a last induced GC (GCPROG_FINAL_GC=1): every byte the
    runtime handed out is before that GC's observation. Seen here (.NET 10,
    46 bgc runs, 34 with both cores busy): alloc +0.28 %, bgc +0.20 % to
    +0.28 %, never below: gen0's objects include the Align(min_obj_size)
    reserve CoreCLR keeps at the end of each allocation context and does not
    count (24 bytes per 8 KB: 18.4 KB per 6.29 MB of gen0). Before background
    GCs' gen0 sweep was accounted for, bgc was -0.2 % to -3.4 % (the objects
    allocated while a background GC ran and dead by its final pause); PerfView's
    column -2.6 % (alloc), -2.3 % to -11.4 % (bgc). Asserted: measured at
    least the runtime's figure and at most 0.5 % above it, and closer to it
    than PerfView's."""
    for scenario, env in (("alloc", {"DOTNET_GCgen0size": "0x200000"}),
                          ("bgc", {"DOTNET_gcConcurrent": "1", "DOTNET_GCgen0size": "0x100000"})):
        d = workdir("alloc_measured_" + scenario)
        e = env_with(dict(env, GCPROG_FINAL_GC="1"))
        p = record(["--dotnet", "-o", d + "/rec", "--import", "-d", d + "/t.db", "--", "dotnet", GCPROG, scenario],
                   cwd=d, env=e)
        check(p.returncode == 0, "%s: record exits 0 (got %d)" % (scenario, p.returncode))
        m = re.search(r"^ALLOCATED bytes=(\d+)", p.stdout, re.M)
        check(m is not None, "%s: the program printed ALLOCATED" % scenario)
        if not m:
            continue
        want = int(m.group(1))
        row = sql(d + "/t.db", "SELECT sum(alloc_measured_mb) * 1e6, sum(total_alloc_mb) * 1e6, "
                               "sum(alloc_measured_mb < 0), sum(complete = 1 AND alloc_measured_mb IS NULL) FROM gcs")[0]
        ours, pv = float(row[0]), float(row[1])
        print("%s: runtime %d bytes, measured %.0f (%+.3f %%), PerfView %.0f (%+.1f %%)"
              % (scenario, want, ours, (ours - want) * 100.0 / want, pv, (pv - want) * 100.0 / want))
        check(want <= ours <= 1.005 * want, "%s: measured %.0f between the runtime's %d and 0.5 %% above it"
              % (scenario, ours, want))
        check(abs(ours - want) < abs(pv - want), "%s: measured closer to the runtime than PerfView's %.0f" % (scenario, pv))
        check(row[2] == "0" and row[3] == "0", "%s: no negative or missing measured figure (%s, %s)"
              % (scenario, row[2], row[3]))


def case_trigger_rules():
    """record --rules over EventPipe: a gen2 gc-over rule with run= on gcprog's
    long blocking gen2 GC (the runtime's own pause says it is long), and an
    action=log event-pair rule limited to one firing; firings.tsv and the
    imported trigger_firings name them."""
    d = workdir("trigger_rules")
    rules = d + "/rules.txt"
    with open(rules, "w") as f:
        f.write("g2: pair=gc-over over=15 gen=2 type=nonconcurrent run=env | grep ^GCSCOPE_ | sort > %s/env.txt\n"
                "first: start=GCStart stop=GCEnd key=count over=0 max=1 action=log\n" % d)
    p = record(["--dotnet", "--rules", rules, "--delay-after-trigger", "0.5", "-o", d + "/rec", "--import", "-d",
                d + "/t.db", "--", "dotnet", GCPROG, "long"], cwd=d, env=env_with({"DOTNET_gcConcurrent": "0"}))
    check(p.returncode == 0, "record exits 0 (got %d)" % p.returncode)
    m = re.search(r"rule g2 \(gc-over > 15 ms, gen 2, NonConcurrentGC\): pid (\d+) GC #(\d+) gen2 \w+: ([0-9.]+) ms -> (\S+)",
                  p.stdout)
    check(m is not None, "g2 fired with a capture")
    check(len(re.findall(r"rule first .*fired .*; logged", p.stdout)) == 1, "first: logged once (max=1)")
    if not m:
        return
    gc = m.group(2)
    gcs, _ = parse_program(p.stdout)
    rt = gcs.get(int(gc))
    check(rt is not None and rt["gen"] == 2 and rt["pause0_ticks"] / 1e4 > 15,
          "the runtime says GC #%s is a gen2 GC paused over 15 ms (%s)" % (gc, rt))
    rows = [l.rstrip("\n").split("\t") for l in open(d + "/rec/firings.tsv")][1:]
    check([r[0] for r in rows].count("g2") == 1 and [r for r in rows if r[0] == "g2"][0][3] == gc
          and [r for r in rows if r[0] == "g2"][0][9] == "verified", "firings.tsv: g2 on GC #%s, verified (%s)" % (gc, rows))
    for _ in range(50):
        if os.path.exists(d + "/env.txt") and os.path.getsize(d + "/env.txt") > 0:
            break
        time.sleep(0.1)
    env = dict(l.strip().split("=", 1) for l in open(d + "/env.txt")) if os.path.exists(d + "/env.txt") else {}
    check(env.get("GCSCOPE_RULE") == "g2" and env.get("GCSCOPE_GC") == gc and env.get("GCSCOPE_CAPTURE") == m.group(4),
          "run=: the rule, GC and capture in its environment (%s)" % env)
    db = sql(d + "/t.db", "SELECT rule, gc_index, verdict FROM trigger_firings WHERE rule = 'g2'")
    check(db == [["g2", gc, "verified"]], "trigger_firings: %s" % db)


def case_datas():
    """DATAS (issue 26): gcprog's datas scenario under server GC (DATAS is on
    by default in .NET 9+ server GC and starts from one heap), concurrent GC
    off (a background GC in progress cancels a heap count change, gc.cpp
    check_heap_count). Independent figures:
    - the heap count of each GC is GCGlobalHeapHistory's NumHeaps (gcs.heap_count),
      another event than the decisions: for every decoded SizeAdaptationTuning
      at the end of GC N deciding on X heaps, every GC after N up to the next
      decision (a Tuning or FullGCTuning) ran with X heaps;
    - the heap count changed at least once (from one heap), and every change
      is explained by such a decision;
    - no decision and no GC has more heaps than the runtime says the GC may
      use (gcprog's MAXHEAPS: GC.GetConfigurationVariables()["HeapCount"]);
    - every decoded sample and decision names a GC of the trace, nothing was
      left undecoded or unattached;
    - stats --format json: each GC's dynamic_events holds the decoded
      decisions of that GC with the same new_heap_count, and each heap count
      change's decision decided the new count; stats --section datas lists
      the changes; export's "Heap count" counter holds each GC's NumHeaps;
    - the decision behind a change names the runtime's codes: in CoreCLR's
      dynamic_heap_count.cpp a SizeAdaptationTuning carries a heap count other
      than the current one only when it adjusted the heap count (adj_metric
      adjust_hc, 2), which it considers only when should_change() left
      change_decision at init_change_condition (0): so adj_metric_name
      "adjust_hc" and change_decision_name "init_change_condition"."""
    if (os.cpu_count() or 1) < 2:
        print("SKIPPED: DATAS cannot add a heap on one CPU")
        sys.exit(SKIP)
    d = workdir("datas")
    env = env_with({"DOTNET_gcServer": "1", "DOTNET_gcConcurrent": "0"})
    p = record(["--dotnet", "-o", d + "/rec", "--import", "-d", d + "/t.db", "--", "dotnet", GCPROG, "datas"],
               cwd=d, env=env, timeout=120)
    check(p.returncode == 0, "record exits 0 (got %d)" % p.returncode)
    db = d + "/t.db"
    maxheaps = int(re.search(r"^MAXHEAPS count=(\d+)", p.stdout, re.M).group(1))
    gcs = {int(i): (int(h) if h else None) for i, h in sql(db, "SELECT gc_index, heap_count FROM gcs")}
    tun = [(int(i), int(x)) for i, x in sql(db, "SELECT gc_index, new_heap_count FROM gc_datas_tunings "
                                                "ORDER BY gc_index")]
    g2 = [int(r[0]) for r in sql(db, "SELECT gc_index FROM gc_datas_gen2_tunings")]
    samples = [int(r[0]) for r in sql(db, "SELECT gc_index FROM gc_datas_samples")]
    counts = sql(db, "SELECT dynamic_events, dynamic_events_undecoded, dynamic_events_unattached "
                     "FROM gc_process_summary")[0]
    print("heaps per GC:", gcs, "decisions:", tun, "gen2 looks:", g2, "max heaps:", maxheaps)
    check(len(tun) >= 1 and len(samples) >= 3, "decisions %d, samples %d" % (len(tun), len(samples)))
    check(counts == [str(len(tun) + len(g2) + len(samples)), "0", "0"], "summary counts %s" % counts)
    for i in samples + [t[0] for t in tun] + g2:
        check(i in gcs, "GC #%d named by a DATAS event is in the trace" % i)
    known = [h for h in gcs.values() if h is not None]
    check(min(known) == 1 and max(known) > 1, "the heap count changed from 1 (%d..%d)" % (min(known), max(known)))
    check(max(known) <= maxheaps, "no GC has more heaps than the runtime's HeapCount %d" % maxheaps)
    ends = sorted([t[0] for t in tun] + g2)
    for n, x in tun:
        check(1 <= x <= maxheaps, "decision at GC #%d: %d heaps within 1..%d" % (n, x, maxheaps))
        nxt = min([e for e in ends if e > n], default=max(gcs))
        after = {i: h for i, h in gcs.items() if n < i <= nxt and h is not None}
        check(all(h == x for h in after.values()),
              "decision at GC #%d for %d heaps: GCs %d..%d ran with %s" % (n, x, n + 1, nxt, after))
    order = sorted(i for i in gcs if gcs[i] is not None)
    for a, b in zip(order, order[1:]):
        if gcs[a] != gcs[b]:
            why = [t for t in tun if a <= t[0] < b and t[1] == gcs[b]]
            check(why != [], "change %d -> %d heaps at GC #%d: a decision for it at or after GC #%d" %
                  (gcs[a], gcs[b], b, a))
    out = subprocess.run([GCSCOPE, "stats", db, "--format", "json"], capture_output=True, text=True)
    check(out.returncode == 0, "stats --format json exits 0")
    proc = json.loads(out.stdout)["processes"][0]
    for g in proc["gcs"]:
        mine = [e["new_heap_count"] for e in (g["dynamic_events"] or []) if e["name"] == "SizeAdaptationTuning"]
        check(mine == [x for n, x in tun if n == g["index"]], "GC #%d dynamic_events decisions %s" % (g["index"], mine))
    changes = proc["summary"]["datas"]["heap_count_changes"]
    check(len(changes) >= 1, "stats json lists %d heap count changes" % len(changes))
    for c in changes:
        dec = c["decision"]
        check(dec is not None and dec["name"] == "SizeAdaptationTuning" and dec["new_heap_count"] == c["to"]
              and dec["gc_index"] < c["gc_index"], "change at GC #%d to %d heaps: decision %s" % (c["gc_index"], c["to"], dec))
        check(dec is not None and dec["adj_metric"] == 2 and dec["adj_metric_name"] == "adjust_hc"
              and dec["change_decision"] == 0 and dec["change_decision_name"] == "init_change_condition",
              "change at GC #%d: the decision's codes by name %s" % (c["gc_index"], dec))
    # export: the "Heap count" counter, one point per GC at its start, is each GC's NumHeaps in time order
    subprocess.run([GCSCOPE, "export", db, "--format", "chrome-json", "-o", d + "/x.json"], check=True)
    with open(d + "/x.json") as f:
        ev = json.load(f)["traceEvents"]
    track = [e["args"]["value"] for e in sorted((e for e in ev if e.get("ph") == "C" and e.get("name") == "Heap count"),
                                                key=lambda e: e["ts"])]
    byt = [int(h) for h, in sql(db, "SELECT heap_count FROM gcs WHERE heap_count IS NOT NULL AND start_ns IS NOT NULL "
                                    "ORDER BY start_ns")]
    check(track == byt, "export's Heap count track %s is each GC's NumHeaps %s" % (track, byt))
    out = subprocess.run([GCSCOPE, "stats", db, "--section", "datas"], capture_output=True, text=True)
    first = changes[0]
    check(re.search(r"\b%d -> %d\b" % (first["from"], first["to"]), out.stdout) is not None,
          "stats --section datas lists the change %d -> %d:\n%s" % (first["from"], first["to"], out.stdout))


CASES = {
    "trigger_rules": case_trigger_rules,
    "alloc_measured": case_alloc_measured,
    "fixture_bgc_late_phh": case_fixture_bgc_late_phh,
    "fixture_bgc_sweep": case_fixture_bgc_sweep,
    "launch_alloc": lambda: launch_case("launch_alloc", "alloc", {"DOTNET_GCgen0size": "0x200000"}),
    # .NET 9+ server GC adapts its heap count (DATAS) from one heap; mode 0 gives one heap per core.
    "launch_server": lambda: launch_case("launch_server", "alloc",
                                         {"DOTNET_gcServer": "1", "DOTNET_GCDynamicAdaptationMode": "0",
                                          "DOTNET_GCgen0size": "0x200000"}),
    "launch_bgc": lambda: launch_case("launch_bgc", "bgc", {"DOTNET_gcConcurrent": "1", "DOTNET_GCgen0size": "0x100000"},
                                      expect_bgc=True),
    "long_pause": lambda: launch_case("long_pause", "long", {"DOTNET_gcConcurrent": "0"}, min_pause_ms=20),
    "launch_two_runtimes": case_launch_two_runtimes,
    "datas": case_datas,
    "attach": case_attach,
    "attach_settings": case_attach_settings,
    "exit_mid_session": case_exit_mid_session,
    "stop": case_stop,
    "quiet_parent": case_quiet_parent,
    "quiet_after_capture": case_quiet_after_capture,
    "not_dotnet": case_not_dotnet,
    "exit_status": case_exit_status,
    "auto_dotnet": case_auto_dotnet,
    "permission": case_permission,
    "ps": case_ps,
    "lttng_check": case_lttng_check,
    "fixture_import": case_fixture_import,
    "fixture_record_dir": case_fixture_record_dir,
    "trigger": case_trigger,
    "top": case_top,
}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        raise SystemExit("usage: dotnet_test.py " + "|".join(CASES))
    if not sys.argv[1].startswith("fixture_"):
        skip_without_dotnet()
    os.makedirs(WORK, exist_ok=True)
    CASES[sys.argv[1]]()
    print("%d failed" % failed())
    sys.exit(1 if failed() else 0)
