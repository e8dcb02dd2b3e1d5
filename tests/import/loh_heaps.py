#!/usr/bin/env python3
"""loh_heaps.py GCSCOPE TMP — GCLOHCompact of a server GC with more than 16
heaps, end to end.

GCLOHCompact (runtime provider, event 208, version 0) carries one element per
heap: u16 ClrInstanceID, u16 Count, then Count copies of the runtime's C
struct (u32 TimePlan, u32 TimeCompact, u32 TimeRelocate, 4 bytes of padding,
u64 TotalRefs, u64 ZeroRefs: 32 bytes on 64-bit). The payloads are written
here byte by byte, with values distinct per heap and per field:

  heap h of GC g: TimePlan 1000*g + h, TimeCompact 200000 + 3*h + g,
  TimeRelocate 50000 + 7*h + g, TotalRefs 10^9 + 1001*h + g,
  ZeroRefs 13*h + g.

Three GCs in one process: GC 1 compacts the LOH of 24 heaps, GC 2 of 1024
heaps (CoreCLR's most: MAX_SUPPORTED_HEAPS on 64-bit, the capacity of the
schema's per-heap arrays), GC 3 claims 1025 heaps (a crafted trace: one
element more than any runtime sends). The same events go into
  - a .nettrace file (EventPipe),
  - a CTF trace whose GCLOHCompact is CoreCLR's packed `__data__` (the ETW
    bytes in a byte sequence, as CoreCLR's LTTng provider sends an event
    with a struct array),
  - a CTF trace whose GCLOHCompact has one CTF sequence per array (the
    per-field form, as librgc writes its arrays),
and each CTF trace is imported with gcscope's own reader and with
libbabeltrace2 (GCSCOPE_CTF_READER=babeltrace2). After every import:
`gc_loh_compact` holds exactly the 24 + 1024 rows above, heap by heap, with
those values; `stats --format json` gives GC 1 and GC 2 a `loh_compact` list
of every heap with the same values and GC 3 null; the events view's fields
hold every heap of GCs 1 and 2 and GC 3's cut to Count 1024; import warns
that one GCLOHCompact was left out, gc_process_summary.array_events_left_out
is 1 and `stats` says "Left out: 1 GCLOHCompact/GCFitBucketInfo event".
"""
import csv
import io
import json
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, os.path.join(HERE, "..", "nettrace", "tools"))
from gcs_check import check, failed  # noqa: E402
import make_corpus as nt  # noqa: E402

GCSCOPE, TMP = sys.argv[1:3]
PID, TID = 4242, 4243
HEAPS = {1: 24, 2: 1024, 3: 1025}
KEPT = {1: 24, 2: 1024}          # GC 3 is longer than the capacity: left out


def heap_values(g, h):
    return (1000 * g + h, 200000 + 3 * h + g, 50000 + 7 * h + g, 10 ** 9 + 1001 * h + g, 13 * h + g)


def loh_payload(g):
    b = struct.pack('<HH', 3, HEAPS[g])
    for h in range(HEAPS[g]):
        plan, compact, reloc, total, zero = heap_values(g, h)
        b += struct.pack('<IIIIQQ', plan, compact, reloc, 0xEEEEEEEE, total, zero)
    return b


# One GC: (name, nettrace event ID, version, payload); times in microseconds
# from the GC's start.
def gc_events(g):
    return [("GCSuspendEEBegin", 9, 1, struct.pack('<IIH', 1, g, 3), 0),
            ("GCSuspendEEEnd", 8, 1, struct.pack('<H', 3), 50),
            ("GCStart", 1, 2, nt.gcstart(g, 2, 1, 0), 100),
            ("GCLOHCompact", 208, 0, loh_payload(g), 300),
            ("GCEnd", 2, 1, struct.pack('<IIH', g, 2, 3), 900),
            ("GCHeapStats", 4, 1, struct.pack('<10Q3IH', 100, 10, 200, 20, 300, 30, 400, 40, 0, 0, 0, 0, 0, 3), 920),
            ("GCRestartEEBegin", 7, 1, struct.pack('<H', 3), 950),
            ("GCRestartEEEnd", 3, 1, struct.pack('<H', 3), 1000)]


def all_events():
    out = []
    for g in (1, 2, 3):
        for name, eid, ver, payload, us in gc_events(g):
            out.append((name, eid, ver, payload, g * 100000 + us))   # GC g at g * 100 ms
    return out


def write_nettrace(path):
    nt.one_thread(path, all_events(), PID, TID)


# ---- CTF (1.8, text metadata, one stream file, one packet) ----

UUID = bytes(range(0x10, 0x20))
INT = "integer { size = %d; align = 8; signed = 0; encoding = none; base = 10; }"
SCALARS = {  # CoreCLR's LTTng members of the scalar events (name: [(member, bits)])
    "GCSuspendEEBegin_V1": [("Reason", 32), ("Count", 32), ("ClrInstanceID", 16)],
    "GCSuspendEEEnd_V1": [("ClrInstanceID", 16)],
    "GCStart_V2": [("Count", 32), ("Depth", 32), ("Reason", 32), ("Type", 32), ("ClrInstanceID", 16),
                   ("ClientSequenceNumber", 64)],
    "GCEnd_V1": [("Count", 32), ("Depth", 32), ("ClrInstanceID", 16)],
    "GCRestartEEBegin_V1": [("ClrInstanceID", 16)],
    "GCRestartEEEnd_V1": [("ClrInstanceID", 16)],
}
PACKED = {"GCHeapStats_V1"}   # CoreCLR's LTTng provider packs it too
ARRAYS = [("TimePlan", 32), ("TimeCompact", 32), ("TimeRelocate", 32), ("TotalRefs", 64), ("ZeroRefs", 64)]
CLASS = {"GCSuspendEEBegin": "GCSuspendEEBegin_V1", "GCSuspendEEEnd": "GCSuspendEEEnd_V1", "GCStart": "GCStart_V2",
         "GCEnd": "GCEnd_V1", "GCHeapStats": "GCHeapStats_V1", "GCRestartEEBegin": "GCRestartEEBegin_V1", "GCRestartEEEnd": "GCRestartEEEnd_V1",
         "GCLOHCompact": "GCLOHCompact"}


def ctf_metadata(packed):
    u = UUID.hex()
    uuid = "%s-%s-%s-%s-%s" % (u[:8], u[8:12], u[12:16], u[16:20], u[20:])
    t = ["/* CTF 1.8 */",
         "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;",
         "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;",
         "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;",
         "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;",
         "trace { major = 1; minor = 8; uuid = \"%s\"; byte_order = le;" % uuid,
         "  packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id;"
         " uint64_t stream_instance_id; }; };",
         "env { hostname = \"heaps\"; domain = \"ust\"; tracer_name = \"lttng-ust\"; tracer_major = 2;"
         " tracer_minor = 13; };",
         "clock { name = \"monotonic\"; freq = 1000000000; offset = 1764244800000000000; };",
         "typealias integer { size = 32; align = 8; signed = false; map = clock.monotonic.value; }"
         " := uint32_clock_monotonic_t;",
         "typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; }"
         " := uint64_clock_monotonic_t;",
         "struct packet_context { uint64_clock_monotonic_t timestamp_begin; uint64_clock_monotonic_t timestamp_end;"
         " uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num; uint64_t events_discarded;"
         " uint32_t cpu_id; };",
         "struct event_header_large { enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;"
         " variant <id> { struct { uint32_clock_monotonic_t timestamp; } compact;"
         " struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended; } v; } align(8);",
         "stream { id = 0; event.header := struct event_header_large; packet.context := struct packet_context;",
         "  event.context := struct { integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vpid;"
         " integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vtid;"
         " integer { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } _procname[17]; }; };"]
    for i, cls in enumerate(CLASS.values()):
        if cls in PACKED or (cls == "GCLOHCompact" and packed):
            fields = ["%s _length;" % (INT % 32), "%s ____data___length;" % (INT % 32),
                      "integer { size = 8; align = 8; signed = 1; encoding = none; base = 10; }"
                      " ___data__[ ____data___length ];"]
        elif cls == "GCLOHCompact":
            fields = ["%s _ClrInstanceID;" % (INT % 16), "%s _Count;" % (INT % 16)]
            for a, bits in ARRAYS:
                fields += ["%s __%s_length;" % (INT % 32, a), "%s _%s[ __%s_length ];" % (INT % bits, a, a)]
        else:
            fields = ["%s _%s;" % (INT % bits, m) for m, bits in SCALARS[cls]]
        t.append("event { name = \"DotNETRuntime:%s\"; id = %d; stream_id = 0; loglevel = 13;\n"
                 "  fields := struct { %s }; };" % (cls, i, " ".join(fields)))
    return "\n".join(t) + "\n"


def ctf_fields(name, payload, g, packed):
    if CLASS[name] in PACKED:
        return struct.pack('<II', len(payload), len(payload)) + payload
    if name != "GCLOHCompact":
        return payload        # the scalar members in ETW order are their CTF layout (byte-aligned)
    if packed:
        return struct.pack('<II', len(payload), len(payload)) + payload
    b = struct.pack('<HH', 3, HEAPS[g])
    for k, (a, bits) in enumerate(ARRAYS):
        b += struct.pack('<I', HEAPS[g])
        b += b''.join(struct.pack('<I' if bits == 32 else '<Q', heap_values(g, h)[k]) for h in range(HEAPS[g]))
    return b


def write_ctf(d, packed):
    os.makedirs(d)
    with open(os.path.join(d, "metadata"), "w") as f:
        f.write(ctf_metadata(packed))
    ids = {cls: i for i, cls in enumerate(CLASS.values())}
    t0 = 10 ** 9
    body = b''
    last = t0
    for name, _, _, payload, us in all_events():
        g = (us // 100000)
        ts = t0 + us * 1000
        last = ts
        body += struct.pack('<HI', ids[CLASS[name]], ts & 0xFFFFFFFF)
        body += struct.pack('<ii', PID, TID) + b'heaps'.ljust(17, b'\0')
        body += ctf_fields(name, payload, g, packed)
    header = struct.pack('<I', 0xC1FC1FC1) + UUID + struct.pack('<IQ', 0, 0)
    ctx_len = 8 * 6 + 4
    size = len(header) + ctx_len + len(body)
    ctx = struct.pack('<QQQQQQI', t0, last, size * 8, size * 8, 0, 0, 0)
    with open(os.path.join(d, "channel0_0"), "wb") as f:
        f.write(header + ctx + body)


# ---- checks ----

def run(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([GCSCOPE] + args, capture_output=True, text=True, env=e, timeout=300)


def check_db(label, db):
    p = run(["sql", db, "SELECT s.gc_index, l.heap, l.time_plan_usec, l.time_compact_usec, l.time_relocate_usec, "
                        "l.total_refs, l.zero_refs FROM gc_loh_compact l JOIN gcs s ON s.id = l.gc_id "
                        "ORDER BY s.gc_index, l.heap", "--csv"])
    check(p.returncode == 0, "%s: sql exits 0: %s" % (label, p.stderr.strip()))
    rows = [tuple(int(x) for x in line.split(",")) for line in p.stdout.strip().splitlines()[1:]]
    want = [(g, h) + heap_values(g, h) for g in sorted(KEPT) for h in range(KEPT[g])]
    check(len(rows) == len(want), "%s: gc_loh_compact has %d rows (24 + 1024), got %d" % (label, len(want), len(rows)))
    bad = [(r, w) for r, w in zip(rows, want) if r != w]
    check(not bad, "%s: every heap's row is exact (first difference: %r)" % (label, bad[:1]))

    p = run(["stats", db, "--format", "json"])
    check(p.returncode == 0, "%s: stats --format json exits 0: %s" % (label, p.stderr.strip()))
    procs = json.loads(p.stdout)["processes"]
    check(len(procs) == 1 and procs[0]["pid"] == PID, "%s: one process, %d" % (label, PID))
    gcs = {g["index"]: g for g in procs[0]["gcs"]}
    check(sorted(gcs) == [1, 2, 3], "%s: GCs 1, 2, 3: %r" % (label, sorted(gcs)))
    for g in (1, 2):
        lc = gcs.get(g, {}).get("loh_compact") or []
        got = [(x["heap"], x["time_plan_usec"], x["time_compact_usec"], x["time_relocate_usec"], x["total_refs"],
                x["zero_refs"]) for x in lc]
        want = [(h,) + heap_values(g, h) for h in range(KEPT[g])]
        check(got == want, "%s: GC %d's loh_compact lists its %d heaps exactly (%d listed%s)" %
              (label, g, KEPT[g], len(got), "" if got == want else ", first: %r" % (got[:1],)))
    check(gcs.get(3, {}).get("loh_compact", 0) is None,
          "%s: GC 3 (1025 heaps, past the capacity) has loh_compact null: %r" % (label, gcs.get(3, {}).get("loh_compact")))

    p = run(["sql", db, "SELECT fields FROM events WHERE name = 'GCLOHCompact' ORDER BY ts_ns", "--csv"])
    check(p.returncode == 0, "%s: events view: %s" % (label, p.stderr.strip()))
    evs = [json.loads(r[0]) for r in list(csv.reader(io.StringIO(p.stdout)))[1:]]
    # GC 3: 1024 elements kept; Count is cut to them where the ETW decoder
    # reads the payload (nettrace, packed __data__), and stays the count
    # member the per-field CTF event carried.
    want_count = [24, 1024, 1025 if "per-field" in label else 1024]
    check([e["Count"] for e in evs] == want_count and [len(e["TimePlan"]) for e in evs] == [24, 1024, 1024],
          "%s: the events view keeps 24, 1024 and (the capacity) 1024 elements: %r" %
          (label, [(e["Count"], len(e["TimePlan"])) for e in evs]))
    for g, e in zip((1, 2), evs):
        want = [[heap_values(g, h)[k] for h in range(KEPT[g])] for k in range(5)]
        got = [e[a] for a, _ in ARRAYS]
        check(got == want, "%s: GC %d's event holds every heap's fields exactly" % (label, g))

    p = run(["sql", db, "SELECT array_events_left_out FROM gc_process_summary", "--csv"])
    check(p.stdout.strip().splitlines()[1:] == ["1"],
          "%s: gc_process_summary.array_events_left_out counts the 1025-heap event: %r" % (label, p.stdout))
    p = run(["stats", db])
    check("Left out: 1 GCLOHCompact/GCFitBucketInfo event, cut short or too long" in p.stdout,
          "%s: the stats summary says one event was left out" % label)

shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
nettrace = os.path.join(TMP, "heaps.nettrace")
write_nettrace(nettrace)
inputs = [("nettrace", nettrace, {})]
for packed in (True, False):
    d = os.path.join(TMP, "ctf-packed" if packed else "ctf-fields")
    write_ctf(d, packed)
    form = "packed __data__" if packed else "per-field sequences"
    inputs.append(("CTF %s, native reader" % form, d, {"GCSCOPE_CTF_READER": "native"}))
    if shutil.which("babeltrace2"):
        inputs.append(("CTF %s, libbabeltrace2" % form, d, {"GCSCOPE_CTF_READER": "babeltrace2"}))
for i, (label, path, env) in enumerate(inputs):
    db = os.path.join(TMP, "t%d.db" % i)
    p = run(["import", "-d", db, path], env)
    check(p.returncode == 0, "%s: import exits 0: %s" % (label, p.stderr.strip()))
    check("warning: 1 GCLOHCompact/GCFitBucketInfo event cut short or longer than any runtime sends "
          "(a damaged or crafted trace): left out of the figures" in p.stdout,
          "%s: import warns of the 1025-heap event: %r" % (label, p.stdout[-400:]))
    if p.returncode == 0:
        check_db(label, db)
print("%d failed" % failed())
sys.exit(1 if failed() else 0)
