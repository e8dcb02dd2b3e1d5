#!/usr/bin/env python3
"""runtime_layouts.py GCSCOPE TMP CASE — payloads built byte by byte in the
order the runtime writes them, with a distinct value in every field, through
a .nettrace, `gcscope import` and the tables; every column checked exactly.

CASE datas_net8: .NET 8's DATAS GCDynamicEvents (event 39: UTF-16 Name and
its NUL, DataSize u32, Data, ClrInstanceID u16). Data, packed little-endian,
version u16 first, in the order of the runtime's calls (gc.cpp of .NET 8:
GCEventFireHeapCountSample_V1, and GCEventFireHeapCountTuning_V1 in
gc_heap::calculate_new_heap_count; the same order as .NET 8.0.31's
libcoreclr.so writes them, schemas/gc_events.def):
  HeapCountSample (34 bytes): u16 version 1, u64 gc_index,
    u64 elapsed_between_gcs, u64 gc_pause_time, u64 msl_wait_time;
  HeapCountTuning (36 bytes): u16 version 1, u16 new_n_heaps,
    u64 gc_index, f32 median_throughput_cost_percent,
    f32 smoothed_median_throughput_cost_percent, f32 tcp_reduction_per_step_up,
    f32 tcp_increase_per_step_down, f32 scp_increase_per_step_up,
    f32 scp_decrease_per_step_down.
Three GCs; GCs 2 and 3 each get a sample and a decision whose every field
differs from every other (floats exact in binary). gc_datas_hc_samples and
gc_datas_hc_tunings must hold exactly those values, each row with its GC;
gc_process_summary counts 4 decoded, 0 undecoded, 0 unattached.

CASE fit_buckets: GCFitBucketInfo (event 209, version 0: u16 ClrInstanceID,
u16 BucketKind, u64 TotalSize, u16 Count, then Count elements of the
runtime's etw_bucket_info: u16 index, 2 bytes of padding, u32 count, u64
size, 16 bytes on 64-bit). A runtime sends at most 12 elements: its array is
gc_heap::bucket_info[NUM_GEN2_ALIST] and NUM_GEN2_ALIST is 12 (gcpriv.h, on
64-bit and 32-bit, with and without regions, from .NET 7's to .NET 10's
source), filled one element per bucket of gen2's free list
(allocator::count_largest_items, FLItem) or of plugs by gen2's buckets
(Plug). gcscope's capacity is that 12 (GCS_MAX_FIT_BUCKETS). GC 1 sends
FLItem with 12 buckets, GC 2 Plug with 12 buckets, GC 3 FLItem with 13 and
GC 4 Plug with 16 (more than any runtime sends: damaged or crafted; 16 was
kept when the capacity was 16); gc_fit_buckets must hold the 24 rows of GCs
1 and 2 with every value, GCs 3 and 4 none, gc_process_summary must count 4
GCFitBucketInfo events and 2 array events left out, and import must say
so in its warning.
"""
import json
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, os.path.join(HERE, "..", "nettrace", "tools"))
from gcs_check import Checker  # noqa: E402
import make_corpus as nt  # noqa: E402

GCSCOPE, TMP, CASE = sys.argv[1:4]
PID, TID, CLR = 4242, 4243, 3
GCS = (1, 2, 3) if CASE != "fit_buckets" else (1, 2, 3, 4)


def dynamic(name, data):
    return nt.u16z(name) + struct.pack('<I', len(data)) + data + struct.pack('<H', CLR)


# .NET 8's DATAS: (GC, sample fields, tuning fields), every value distinct.
SAMPLES = {2: (2, 250001, 4321, 0x0123456789a), 3: (3, 260002, 5432, 17)}
TUNINGS = {2: (5, 2, 41.25, 39.5, 1.75, 3.125, 0.375, 6.5), 3: (7, 3, 58.75, 45.5, 2.25, 4.625, 0.875, 9.5)}


def hc_sample(g):
    return dynamic("HeapCountSample", struct.pack('<HQQQQ', 1, *SAMPLES[g]))


def hc_tuning(g):
    return dynamic("HeapCountTuning", struct.pack('<HHQffffff', 1, *TUNINGS[g]))


# GCFitBucketInfo: GC -> (kind, total size, [(index, count, size)]).
def buckets(g, n):
    return [(i, 1000 * g + 7 * i + 1, (1 << (8 + i)) + 13 * g + i) for i in range(n)]


FIT = {1: (0, 0x123456789, buckets(1, 12)), 2: (1, 0x2345678, buckets(2, 12)), 3: (0, 999, buckets(3, 13)),
       4: (1, 4321, buckets(4, 16))}
KEPT = (1, 2)


def fit(g):
    kind, total, els = FIT[g]
    b = struct.pack('<HHQH', CLR, kind, total, len(els))
    for i, c, s in els:
        b += struct.pack('<HHIQ', i, 0xEEEE, c, s)
    return b


def gc_events(g):
    ev = [("GCSuspendEEBegin", 9, 1, struct.pack('<IIH', 1, g, CLR), 0),
          ("GCSuspendEEEnd", 8, 1, struct.pack('<H', CLR), 50),
          ("GCStart", 1, 2, nt.gcstart(g, 0, 0, 0), 100)]
    if CASE == "fit_buckets":
        ev.append(("GCFitBucketInfo", 209, 0, fit(g), 300))
    ev += [("GCEnd", 2, 1, struct.pack('<IIH', g, 0, CLR), 900),
           ("GCHeapStats", 4, 1, struct.pack('<10Q3IH', 100, 10, 200, 20, 300, 30, 400, 40, 0, 0, 0, 0, 0, CLR), 920)]
    if CASE == "datas_net8" and g in SAMPLES:
        ev += [("GCDynamicEvent", 39, 0, hc_sample(g), 930), ("GCDynamicEvent", 39, 0, hc_tuning(g), 940)]
    ev += [("GCRestartEEBegin", 7, 1, struct.pack('<H', CLR), 950),
           ("GCRestartEEEnd", 3, 1, struct.pack('<H', CLR), 1000)]
    return ev


def write_nettrace(path):
    nt.one_thread(path, [(n, e, v, p, g * 100000 + us) for g in GCS for n, e, v, p, us in gc_events(g)],
                  PID, TID)


T = Checker(GCSCOPE)
check = T.check


def sql(db, q):
    rc, out, err = T.run("sql", db, q, "--json")
    check(rc == 0, "sql %s: %s" % (q, err.strip()))
    return json.loads(out) if rc == 0 else []


shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
trace, db = os.path.join(TMP, "t.nettrace"), os.path.join(TMP, "t.db")
write_nettrace(trace)
rc, out, err = T.run("import", "-q", "-d", db, trace)
check(rc == 0, "import: %s" % err.strip())
check(len(sql(db, "SELECT gc_index FROM gcs")) == len(GCS), "%d GCs" % len(GCS))

if CASE == "datas_net8":
    cols = ["gc_index", "elapsed_between_gcs_usec", "gc_pause_usec", "msl_wait_usec"]
    got = sql(db, "SELECT %s FROM gc_datas_hc_samples ORDER BY gc_index" % ", ".join(cols))
    want = [dict(zip(cols, SAMPLES[g])) for g in sorted(SAMPLES)]
    check(got == want, "gc_datas_hc_samples %s, want %s" % (got, want))
    cols = ["new_heap_count", "gc_index", "median_tcp_pct", "smoothed_median_tcp_pct", "tcp_reduction_per_step_up",
            "tcp_increase_per_step_down", "scp_increase_per_step_up", "scp_decrease_per_step_down"]
    got = sql(db, "SELECT %s FROM gc_datas_hc_tunings ORDER BY gc_index" % ", ".join(cols))
    want = [dict(zip(cols, TUNINGS[g])) for g in sorted(TUNINGS)]
    check(got == want, "gc_datas_hc_tunings %s, want %s" % (got, want))
    got = sql(db, "SELECT h.gc_index AS t, g.gc_index AS g FROM gc_datas_hc_tunings h JOIN gcs g ON g.id = h.gc_id "
                  "UNION ALL SELECT s.gc_index, g.gc_index FROM gc_datas_hc_samples s JOIN gcs g ON g.id = s.gc_id")
    check(len(got) == 4 and all(r["t"] == r["g"] for r in got), "each row with the GC it names: %s" % got)
    got = sql(db, "SELECT dynamic_events, dynamic_events_undecoded, dynamic_events_unattached FROM gc_process_summary")
    check(got == [{"dynamic_events": 4, "dynamic_events_undecoded": 0, "dynamic_events_unattached": 0}],
          "summary %s" % got)
elif CASE == "fit_buckets":
    cols = ["gc_index", "seq", "bucket_kind", "total_size", "bucket", "item_count", "size"]
    got = sql(db, "SELECT %s FROM gc_fit_buckets ORDER BY gc_index, bucket" % ", ".join(cols))
    want = [dict(zip(cols, (g, 0, FIT[g][0], FIT[g][1], i, c, s))) for g in KEPT for i, c, s in FIT[g][2]]
    check(len(got) == 24 and got == want, "gc_fit_buckets: %d rows, want 24 (%s)" % (
        len(got), [(a, b) for a, b in zip(got, want) if a != b][:3]))
    got = sql(db, "SELECT fit_bucket_events, array_events_left_out FROM gc_process_summary")
    check(got == [{"fit_bucket_events": 4, "array_events_left_out": 2}], "summary %s" % got)
    got = sql(db, "SELECT count(*) AS n FROM gc_fit_buckets WHERE gc_index IN (3, 4)")
    check(got == [{"n": 0}], "no bucket of GCs 3 and 4: %s" % got)
    rc, out, err = T.run("import", "-d", os.path.join(TMP, "w.db"), trace)
    check(rc == 0 and "t.nettrace: warning: 2 GCLOHCompact/GCFitBucketInfo events cut short or longer than any "
          "runtime sends (a damaged or crafted trace): left out of the figures\n" in out + err,
          "import's warning counts the 2 events: %r" % (out + err))
else:
    check(False, "unknown case %s" % CASE)
sys.exit(T.done())
