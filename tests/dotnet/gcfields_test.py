#!/usr/bin/env python3
"""gcfields_test.py CASE — issue 26's figures on a real .NET 10 runtime.

gcprog (tests/dotnet/gcprog) runs under `gcscope record --dotnet --import`;
`gcscope stats --format json` and `gcscope sql` are compared with what the
runtime itself printed (GC.GetGCMemoryInfo per observed GC: its GENS line,
per generation SizeAfterBytes and FragmentationAfterBytes, and
FragmentedBytes; TotalAvailableMemoryBytes on the PID line) and with what
the program knows of itself (which GC compacted the LOH, how many objects
of which length it pinned):

- loh_compact: `lohcompact` prints the index of the one GC it ran with
  GCSettings.LargeObjectHeapCompactionMode = CompactOnce. Exactly that GC has
  a loh_compact list; its compact time is within the GC's compact phase. Per
  observed GC and generation: <gen>_obj_size_after_mb + <gen>_frag_mb is the
  runtime's SizeAfterBytes and <gen>_frag_mb its FragmentationAfterBytes, to
  the byte; their sum over generations is FragmentedBytes. Every complete
  GC's timed phases sum to at most its duration (GCStart -> GCEnd).
- pin_hard_limit: `pin` under DOTNET_GCHeapHardLimit=0x10000000 pins 50
  byte[1000] (1024 bytes each on 64-bit: 1000 + the 24-byte header) in one
  induced GC. gc_settings.hard_limit_bytes is 268435456 and equals the
  runtime's TotalAvailableMemoryBytes; that GC reports at least those 50
  objects, exactly 50 of 1024 bytes (pinned_objects), pinned_object_sizes at
  least 51200, and its plugs hold them (user_pinned_plug_mb > 0).
- bgc_revisit: `bgc` (concurrent GC on): every GC the runtime calls
  concurrent has a bgc_revisit object; every GC it calls not concurrent has
  null.
- fixture_old: the .NET Core 3.0 nettrace (/work/shared/traces, no dotnet
  needed): what it cannot hold is null in JSON and "not in trace" in text,
  never 0 or -1.

Each recording takes a few seconds (timeout 120 s); every process is stopped
by its PID (record stops the program it started). Exit 77 without dotnet.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402
import dotnet_test as dt  # noqa: E402

GCSCOPE = dt.GCSCOPE
TRACES = os.environ.get("GCSCOPE_TRACES", "/work/shared/traces")


def run(case, scenario, extra_env, profile):
    d = dt.workdir(case)
    p = dt.record(["--dotnet", "--profile", profile, "-o", d + "/rec", "--import", "-d", d + "/t.db", "--",
                   "dotnet", dt.GCPROG, scenario], cwd=d, env=dt.env_with(extra_env), timeout=120)
    check(p.returncode == 0, "record exits 0 (got %d)" % p.returncode)
    return d + "/t.db", p.stdout


def stats_json(db):
    out = subprocess.run([GCSCOPE, "stats", db, "--format", "json"], capture_output=True, text=True)
    check(out.returncode == 0, "stats --format json exits 0: " + out.stderr)
    return json.loads(out.stdout)


def gens_lines(text):
    """{gc index: {"frag": B, "size": [..5], "frag_g": [..5]}} from the GENS lines."""
    out = {}
    for line in text.splitlines():
        if not line.startswith("GENS "):
            continue
        f = dict(kv.split("=") for kv in line.split()[1:])
        out[int(f["index"])] = {"frag": int(f["frag"]), "size": [int(f["size%d" % g]) for g in range(5)],
                                "frag_g": [int(f["frag%d" % g]) for g in range(5)]}
    return out


GEN_KEYS = ("gen0", "gen1", "gen2", "loh", "poh")


def check_generations(proc, prog_out):
    gcs = {g["index"]: g for g in proc["gcs"]}
    seen = gens_lines(prog_out)
    check(len(seen) > 0, "the program observed a GC")
    for idx, rt in sorted(seen.items()):
        g = gcs.get(idx)
        check(g is not None, "GC #%d is in the report" % idx)
        if g is None:
            continue
        total = 0
        for k, name in enumerate(GEN_KEYS):
            frag = round(g[name + "_frag_mb"] * 1e6)
            size = round((g[name + "_obj_size_after_mb"] + g[name + "_frag_mb"]) * 1e6)
            total += frag
            check(frag == rt["frag_g"][k], "GC #%d %s fragmentation: gcscope %d, runtime %d"
                  % (idx, name, frag, rt["frag_g"][k]))
            check(size == rt["size"][k], "GC #%d %s size after: gcscope %d, runtime %d" % (idx, name, size, rt["size"][k]))
            for f in ("size_before", "budget", "in", "out", "promoted"):
                v = g[name + "_" + f + "_mb"]
                check(v is not None and v >= 0, "GC #%d %s_%s_mb is a figure (%r)" % (idx, name, f, v))
        check(total == rt["frag"], "GC #%d fragmentation: gcscope %d, runtime's FragmentedBytes %d"
              % (idx, total, rt["frag"]))


def check_phases(proc):
    n = 0
    for g in proc["gcs"]:
        ph = g["phases_usec"]
        if not g["complete"] or ph is None:
            continue
        s = sum(v for v in ph.values() if v is not None)
        check(s / 1e3 <= g["duration_msec"] + 1e-9, "GC #%d: phases %d us within its %.4f ms"
              % (g["index"], s, g["duration_msec"]))
        n += 1
    check(n > 0, "some GC timed its phases")


def case_loh_compact():
    db, out = run("gcfields_loh_compact", "lohcompact", {"DOTNET_gcConcurrent": "0"}, "gc")
    m = re.search(r"^LOHCOMPACT index=(\d+)", out, re.M)
    check(m is not None, "the program printed the compacting GC's index")
    if not m:
        return
    want = int(m.group(1))
    proc = stats_json(db)["processes"][0]
    with_loh = [g["index"] for g in proc["gcs"] if g["loh_compact"] is not None]
    check(with_loh == [want], "loh_compact on exactly GC #%d: %r" % (want, with_loh))
    g = next(x for x in proc["gcs"] if x["index"] == want)
    lc = g["loh_compact"]
    check(len(lc) == 1 and lc[0]["heap"] == 0, "one heap compacted its LOH: %r" % lc)
    check(lc[0]["time_compact_usec"] <= g["phases_usec"]["compact"],
          "LOH compact time %s us within the GC's compact phase %s us"
          % (lc[0]["time_compact_usec"], g["phases_usec"]["compact"]))
    check_generations(proc, out)
    check_phases(proc)
    text = subprocess.run([GCSCOPE, "stats", db], capture_output=True, text=True).stdout
    check("LOH compactions: 1 (first GC #%d, longest" % want in text, "text summary names the LOH compaction")
    # mark times of the one heap (workstation GC): per GC, heap 0, stack and handles present
    for x in proc["gcs"]:
        mt = x["mark_times"]
        check(mt is not None and [h["heap"] for h in mt] == [0], "GC #%d has heap 0's mark times" % x["index"])
        if mt:
            check(mt[0]["mark_stack_msec"] is not None and mt[0]["mark_handles_msec"] is not None,
                  "GC #%d: stack and handle roots timed" % x["index"])


def case_pin_hard_limit():
    limit = 0x10000000
    db, out = run("gcfields_pin", "pin", {"DOTNET_GCHeapHardLimit": hex(limit)}, "verbose")
    avail = int(re.search(r"^PID \d+ .* avail=(\d+)", out, re.M).group(1))
    m = re.search(r"^PIN index=(\d+) count=(\d+) length=(\d+)", out, re.M)
    check(m is not None, "the program printed its PIN line")
    if not m:
        return
    idx, count, length = (int(x) for x in m.groups())
    size = length + 24   # byte[]: method table, length, sync block (64-bit)
    proc = stats_json(db)["processes"][0]
    gs = proc["gc_settings"]
    check(gs["hard_limit_bytes"] == limit, "hard_limit_bytes %r, DOTNET_GCHeapHardLimit %d" % (gs["hard_limit_bytes"], limit))
    check(gs["hard_limit_bytes"] == avail, "hard_limit_bytes %r, TotalAvailableMemoryBytes %d" % (gs["hard_limit_bytes"], avail))
    check(gs["hard_limit_configured"] is True, "HARD_LIMIT_CONFIG set: %r" % gs)
    check(gs["server"] is False and gs["heap_count"] == 1, "workstation GC, one heap: %r" % gs)
    check(proc["startup_flags"] is not None and "CONCURRENT_GC" in proc["startup_flags"]["names"],
          "start-up flags: %r" % proc["startup_flags"])
    g = next(x for x in proc["gcs"] if x["index"] == idx)
    n = int(dt.sql(db, "SELECT count(*) FROM pinned_objects p JOIN gcs s ON s.pid = p.pid AND s.gc_index = %d "
                       "WHERE p.size = %d AND p.ts_ns BETWEEN s.start_ns AND s.end_ns" % (idx, size))[0][0])
    check(n == count, "GC #%d: %d pinned objects of %d bytes (the program pinned %d)" % (idx, n, size, count))
    check(g["pinned_object_sizes"] >= count * size, "pinned_object_sizes %r >= %d" % (g["pinned_object_sizes"], count * size))
    check(g["pinned_plug_mb"] > 0 and 0 < g["user_pinned_plug_mb"] <= g["pinned_plug_mb"],
          "pinned plugs %r MB, user-pinned %r MB" % (g["pinned_plug_mb"], g["user_pinned_plug_mb"]))
    pct = g["pinned_object_pct"]
    check(pct == int(g["pinned_object_sizes"] * 100 / (g["pinned_plug_mb"] * 1e6)),
          "pinned_object_pct %r = sizes * 100 / plug bytes" % pct)
    text = subprocess.run([GCSCOPE, "stats", db], capture_output=True, text=True).stdout
    check("GC heap hard limit: 268.435 MB" in text, "the text header names the hard limit")
    check(re.search(r"Pinned objects: in \d+ GCs?, at most [\d,]+ bytes in one; pinned plugs", text) is not None,
          "the text summary has the pinning line")
    check(re.search(r"GC settings: LOH threshold \d+ bytes; settings flags:[\s\S]*HARD_LIMIT_CONFIG", text) is not None,
          "the text header has the GC settings")


def case_bgc_revisit():
    db, out = run("gcfields_bgc", "bgc", {"DOTNET_gcConcurrent": "1", "DOTNET_GCgen0size": "0x100000"}, "gc")
    rt = {int(g): int(c) for g, c in re.findall(r"^GC index=(\d+) .* concurrent=(\d)", out, re.M)}
    proc = stats_json(db)["processes"][0]
    gcs = {g["index"]: g for g in proc["gcs"]}
    bgcs = [i for i, c in rt.items() if c == 1]
    check(len(bgcs) > 0, "the runtime ran a background GC")
    for i, c in sorted(rt.items()):
        r = gcs[i]["bgc_revisit"] if i in gcs else "missing"
        if c == 1:
            check(isinstance(r, dict) and r["pages"] >= 0 and r["objects"] >= 0
                  and r["pages"] == r["soh_pages"] + r["loh_pages"],
                  "background GC #%d has bgc_revisit: %r" % (i, r))
        else:
            check(r is None, "GC #%d (not concurrent) has no bgc_revisit: %r" % (i, r))


def case_fixture_old():
    d = dt.workdir("gcfields_fixture_old")
    trace = os.path.join(TRACES, "nettrace", "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace")
    if not os.path.exists(trace):
        print("SKIPPED: %s is missing" % trace)
        sys.exit(77)
    db = d + "/t.db"
    subprocess.run([GCSCOPE, "import", "-q", "-d", db, trace], check=True)
    proc = stats_json(db)["processes"][0]
    gs = proc["gc_settings"]
    for k in ("hard_limit_bytes", "server", "concurrent", "loh_threshold_bytes", "large_pages", "settings_bits"):
        check(gs[k] is None, "gc_settings.%s is null (no GCSettingsRundown): %r" % (k, gs[k]))
    check(proc["startup_flags"] is None, "startup_flags null (no RuntimeInformationStart)")
    for g in proc["gcs"]:
        for k in ("loh_compact", "bgc_revisit", "free_list_buckets", "plugs_in_condemned_buckets",
                  "committed_before", "committed_after"):
            check(g[k] is None, "GC #%d %s is null" % (g["index"], k))
        for k, v in g.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                check(v >= 0, "GC #%d %s is not negative (%r)" % (g["index"], k, v))
    text = subprocess.run([GCSCOPE, "stats", db], capture_output=True, text=True).stdout
    check("Start-up flags: not in trace" in text, "text: start-up flags not in trace")
    check(re.search(r"GC settings: not in trace \(GCSettingsRundown: a \.NET 8\+\s+recording's end\)", text) is not None,
          "text: GC settings not in trace")
    check("Max Committed: not in trace (needs .NET 8+" in text, "text: committed not in trace")
    check("LOH compactions: none in trace (GCLOHCompact, .NET 6+)" in text, "text: no LOH compaction")
    check(all(len(l) <= 80 for l in text.splitlines()[:40]), "the header fits 80 columns")


def case_fixture_hostile():
    """tests/fuzz/corpus/nettrace/gcfields.nettrace (make_corpus.py gcfields):
    a cut GCLOHCompact, a GCFitBucketInfo claiming 65535 buckets, a pinned
    object of 2^63 bytes, plugs ending before they start or spanning the
    address space, a mark of heap 2^31: none of it reaches a figure, and no
    figure is negative."""
    d = dt.workdir("gcfields_fixture_hostile")
    seed = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus", "nettrace",
                        "gcfields.nettrace")
    db = d + "/t.db"
    subprocess.run([GCSCOPE, "import", "-q", "-d", db, seed], check=True)
    g = stats_json(db)["processes"][0]["gcs"][0]
    check(g["loh_compact"] is None, "the cut GCLOHCompact is left out: %r" % g["loh_compact"])
    check(g["free_list_buckets"] is None and g["plugs_in_condemned_buckets"] is None, "the lying buckets are left out")
    check(g["mark_times"] is None, "a mark of heap 2^31 is left out")
    check(g["pinned_object_sizes"] == 0, "the 2^63-byte pinned object is left out: %r" % g["pinned_object_sizes"])
    check(round(g["pinned_plug_mb"] * 1e6) == 0x200, "only the sane plug (512 bytes) counts: %r" % g["pinned_plug_mb"])
    for k, v in g.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            check(v >= 0, "%s is not negative (%r)" % (k, v))


CASES = {
    "fixture_hostile": case_fixture_hostile,
    "loh_compact": case_loh_compact,
    "pin_hard_limit": case_pin_hard_limit,
    "bgc_revisit": case_bgc_revisit,
    "fixture_old": case_fixture_old,
}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        raise SystemExit("usage: gcfields_test.py " + "|".join(CASES))
    if not sys.argv[1].startswith("fixture_"):
        dt.skip_without_dotnet()
    os.makedirs(dt.WORK, exist_ok=True)
    CASES[sys.argv[1]]()
    print("%d failed" % failed())
    sys.exit(1 if failed() else 0)
