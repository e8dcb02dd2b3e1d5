#!/usr/bin/env python3
"""tick_blocks.py GCSCOPE TRACE TMP — the GCAllocationTick block forms.

Blocks are built here byte by byte from the layout core/import/evblock.h
describes, and read back through `gcscope sql` and gcs_unpack:

- the plain form (what databases written before issue 27 hold): every field
  as its value, the type name as a string each time;
- the delta-coded form (flag bit 11): TypeID and Address from the previous
  tick of the same thread slot (tid mod 16; a slot another thread holds
  counts as 0), AllocationAmount64 from AllocationAmount, the type name once
  per block and then by its place in the block's table;
each must give the field values chosen here. An import of TRACE (the real
.NET Core 3.0 .nettrace, whose ticks have type names) writes its ticks in the
delta-coded form. A reference past the name table, and the delta flag on
another event kind, are refused as a damaged block.
"""
import json
import os
import shutil
import subprocess
import sys
import zlib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish  # noqa: E402

GCSCOPE, TRACE, TMP = sys.argv[1:4]
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
DB = os.path.join(TMP, "t.db")

FIELDS = ["AllocationAmount", "AllocationKind", "ClrInstanceID", "AllocationAmount64", "TypeID", "TypeName",
          "HeapIndex", "Address", "ObjectSize"]


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zz(v):
    return (v << 1) ^ (v >> 63) if v >= 0 else ((-v) << 1) - 1


def read_varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return r, i


def plain_str(s):
    return varint(0) if s is None else varint(len(s) + 1) + s.encode() + b"\0"


def block(raw):
    return varint(len(raw)) + zlib.compress(raw)


def sql(q):
    p = subprocess.run([GCSCOPE, "sql", DB, q, "--csv"], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def unpack(data):
    rc, out, err = sql("SELECT ts_ns, pid, tid, cpu, version, type_id, fields FROM gcs_unpack(x'%s')" % data.hex())
    if rc != 0:
        return None, err.strip()
    rows = []
    import csv
    import io
    for r in list(csv.reader(io.StringIO(out)))[1:]:
        rows.append((int(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4]), int(r[5]) if r[5] else None,
                     json.loads(r[6])))
    return rows, err


# The ticks every form must give back: ts, pid, tid, cpu, fields, types.id.
TICKS = [
    (1000, 42, 100, 0, dict(AllocationAmount=100000, AllocationKind=0, ClrInstanceID=0, AllocationAmount64=100000,
                            TypeID=0x5000, TypeName="A.Type", HeapIndex=0, Address=0x7F0000001000,
                            ObjectSize=24), 7),
    (1500, 42, 117, 1, dict(AllocationAmount=100200, AllocationKind=1, ClrInstanceID=0, AllocationAmount64=100200,
                            TypeID=0x5100, TypeName="B", HeapIndex=1, Address=0x7F0000900000,
                            ObjectSize=90000), 8),
    (1400, 42, 100, 0, dict(AllocationAmount=4294967295, AllocationKind=0, ClrInstanceID=0,
                            AllocationAmount64=4294967300, TypeID=0x5000, TypeName="A.Type", HeapIndex=0,
                            Address=0x7F0000021000, ObjectSize=32), 7),
    (2000, 42, 116, 0, dict(AllocationAmount=100000, AllocationKind=0, ClrInstanceID=0, AllocationAmount64=99000,
                            TypeID=0x4F00, TypeName="A.Type", HeapIndex=0, Address=0x7F0000000100,
                            ObjectSize=48), 7),
]

# ---- the kind number of GCAllocationTick, from a block the import wrote -------
rc = subprocess.run([GCSCOPE, "import", "-q", "-d", DB, TRACE], capture_output=True, text=True)
check(rc.returncode == 0, "import of %s: %s" % (TRACE, rc.stderr.strip()))
rc, out, _ = sql("SELECT hex(data) FROM event_blocks WHERE ticks = 1 ORDER BY id LIMIT 1")
check(rc == 0 and out.strip(), "a tick block was written")
hexdata = out.strip().splitlines()[-1]
data = bytes.fromhex(hexdata)
n, i = read_varint(data, 0)
raw = zlib.decompress(data[i:])
check(len(raw) == n, "the raw length prefix matches the inflated block")
kind, j = read_varint(raw, 0)
flags, _ = read_varint(raw, j)
check(flags & (1 << 11), "the import writes ticks delta-coded (flags 0x%x)" % flags)
VERSION = 4


def head(ts, prev_ts, pid, tid, cpu, delta):
    return (varint(kind) + varint(VERSION | ((1 << 11) if delta else 0)) + varint(zz(ts - prev_ts)) +
            varint(zz(pid)) + varint(zz(tid)) + varint(zz(cpu)))


# ---- the plain form (databases of earlier versions) --------------------------
raw = bytearray()
prev = 0
for ts, pid, tid, cpu, f, tid_ in TICKS:
    raw += head(ts, prev, pid, tid, cpu, False)
    prev = ts
    for name in FIELDS:
        raw += plain_str(f[name]) if name == "TypeName" else varint(f[name])
    raw += varint(tid_ + 1)
rows, err = unpack(block(bytes(raw)))
check(rows is not None, "the plain form reads: %s" % err)
if rows is not None:
    check(len(rows) == len(TICKS), "plain: %d ticks read, %d written" % (len(rows), len(TICKS)))
    for got, want in zip(rows, TICKS):
        check(got[:4] == want[:4] and got[4] == VERSION and got[5] == want[5] and got[6] == want[4],
              "plain: %r == %r" % (got, want))

# ---- the delta-coded form ----------------------------------------------------
raw = bytearray()
prev = 0
slots = {}      # tid % 16 -> (tid, TypeID, Address)
names = []      # the block's name table (types.id of each entry)
for ts, pid, tid, cpu, f, tid_ in TICKS:
    raw += head(ts, prev, pid, tid, cpu, True)
    prev = ts
    s = slots.get(tid % 16)
    ptype, paddr = (s[1], s[2]) if s and s[0] == tid else (0, 0)
    for name in FIELDS:
        if name == "TypeID":
            raw += varint(zz(f[name] - ptype))
        elif name == "Address":
            raw += varint(zz(f[name] - paddr))
        elif name == "AllocationAmount64":
            raw += varint(zz(f[name] - f["AllocationAmount"]))
        elif name == "TypeName":
            if tid_ in names:
                raw += varint(names.index(tid_) + 2)
            else:
                raw += varint(1) + plain_str(f[name])
                names.append(tid_)
        else:
            raw += varint(f[name])
    raw += varint(tid_ + 1)
    slots[tid % 16] = (tid, f["TypeID"], f["Address"])
check(names == [7, 8], "the hand-made block has two names in its table")
rows, err = unpack(block(bytes(raw)))
check(rows is not None, "the delta-coded form reads: %s" % err)
if rows is not None:
    check(len(rows) == len(TICKS), "delta: %d ticks read, %d written" % (len(rows), len(TICKS)))
    for got, want in zip(rows, TICKS):
        check(got[:4] == want[:4] and got[5] == want[5] and got[6] == want[4], "delta: %r == %r" % (got, want))

# ---- damaged blocks ----------------------------------------------------------
bad = bytearray(head(1000, 0, 1, 2, 0, True))
for name in FIELDS:
    bad += varint(3) if name == "TypeName" else varint(0)  # entry 1 of an empty table
bad += varint(0)
rows, err = unpack(block(bytes(bad)))
check(rows is None and "not a gcscope event block" in err, "a name reference past the table is refused: %r" % err)
bad = bytearray(varint(kind + 1 if kind == 0 else 0) + varint(1 << 11) + varint(0) + varint(0) * 3)
rows, err = unpack(block(bytes(bad)))
check(rows is None and "not a gcscope event block" in err, "the delta flag on another kind is refused: %r" % err)

sys.exit(finish())
