#!/usr/bin/env python3
"""Writes the hand-made seed files of tests/nettrace/corpus/ (a nettrace V4/V5
writer built from NetTraceFormat_v5.md). The layout of valid-small.nettrace is
described in test_nettrace_small.c, which asserts its content; regenerate with
  python3 tests/nettrace/tools/make_corpus.py tests/nettrace/corpus [REAL_TRACE]
With REAL_TRACE (the shared .NET Core 3.0 file) it also writes
valid-real-slice.nettrace: that file's header, Trace object and first
MetadataBlock, then its first EventBlock cut after 60 events."""
import os, struct, sys

def i16(v): return struct.pack('<h', v)
def i32(v): return struct.pack('<i', v)
def u32(v): return struct.pack('<I', v)
def i64(v): return struct.pack('<q', v)
def u64(v): return struct.pack('<Q', v)
def u16z(s): return s.encode('utf-16le') + b'\0\0'

def varint(v):
    out = b''
    while True:
        b = v & 0x7F; v >>= 7
        if v: out += bytes([b | 0x80])
        else: return out + bytes([b])

RT = 'Microsoft-Windows-DotNETRuntime'
PRV = 'Microsoft-Windows-DotNETRuntimePrivate'
RUNDOWN = 'Microsoft-Windows-DotNETRuntimeRundown'
EP = 'Microsoft-DotNETCore-EventPipe'
SAMPLER = 'Microsoft-DotNETCore-SampleProfiler'

class Writer:
    def __init__(self):
        self.b = bytearray(b'Nettrace' + i32(20) + b'!FastSerialization.1')
    def obj(self, name, version, minv, body_fn):
        n = name.encode()
        self.b += b'\x05\x05\x01' + i32(version) + i32(minv) + i32(len(n)) + n + b'\x06'
        body_fn()
        self.b += b'\x06'
    def trace(self, st, qpc, freq, ptr, pid, version=4, minv=4):
        def body():
            self.b += b''.join(i16(x) for x in st) + i64(qpc) + i64(freq) + i32(ptr) + i32(pid) + i32(2) + i32(1000)
        self.obj('Trace', version, minv, body)
    def block(self, name, body):
        def fn():
            self.b += i32(len(body))
            while len(self.b) % 4: self.b += b'\0'
            self.b += body
        self.obj(name, 2, 2, fn)
    def end(self):
        self.b += b'\x01'

def block_header(flags):
    return i16(20) + i16(flags) + i64(0) + i64(0)

def compressed(events):
    """events: dicts meta, seq, capt, proc, tid, ts, payload, sorted."""
    prev = dict(meta=0, seq=0, capt=0, proc=0, tid=0, stack=0, ts=0, plen=0)
    out = b''
    for e in events:
        f = 0; body = b''
        if e['meta'] != prev['meta']:
            f |= 1; body += varint(e['meta'])
        expect = prev['seq'] + (1 if e['meta'] else 0)
        if e['meta'] and (e['seq'] != expect or e['capt'] != prev['capt'] or e['proc'] != prev['proc']):
            f |= 2
            body += varint((e['seq'] - 1 - prev['seq']) & 0xFFFFFFFF) + varint(e['capt']) + varint(e['proc'])
            prev.update(capt=e['capt'], proc=e['proc'])
        prev['seq'] = e['seq'] if e['meta'] else prev['seq']
        if e['tid'] != prev['tid']:
            f |= 4; body += varint(e['tid'])
        body += varint((e['ts'] - prev['ts']) & 0xFFFFFFFFFFFFFFFF)
        if e.get('sorted'): f |= 64
        if len(e['payload']) != prev['plen']:
            f |= 128; body += varint(len(e['payload']))
        out += bytes([f]) + body + e['payload']
        prev.update(meta=e['meta'], tid=e['tid'], ts=e['ts'], plen=len(e['payload']))
    return out

def plain(events, base_offset):
    """Uncompressed blobs; base_offset = file offset of the first blob (for padding)."""
    out = b''
    for e in events:
        hdr = (u32(e['meta'] | (0x80000000 if e.get('sorted') else 0)) + u32(e['seq']) + u64(e['tid']) +
               u64(e['capt']) + u32(e['proc']) + u32(0) + u64(e['ts']) + b'\0' * 32 + u32(len(e['payload'])))
        blob = hdr + e['payload']
        out += i32(len(blob)) + blob
        while (base_offset + len(out)) % 4: out += b'\0'
    return out

def meta_record(mid, prov, eid, name, ver, tags=b''):
    return i32(mid) + u16z(prov) + i32(eid) + u16z(name) + i64(1) + i32(ver) + i32(4) + i32(0) + tags

def md(mid, payload):  # a metadata blob: metadata id 0, payload = the record
    return dict(meta=0, seq=0, capt=0, proc=0, tid=0, ts=0, payload=payload)

def ev(meta, seq, thread, ts, payload, proc=1, sorted=False):
    return dict(meta=meta, seq=seq, capt=thread, proc=proc, tid=thread, ts=ts, payload=payload, sorted=sorted)

def one_thread(path, events, pid, tid):
    """Writes PATH: a V4 .nettrace of the runtime provider's EVENTS, a list of
    (name, event id, version, payload, microseconds after the start): one
    thread TID of process PID, 1 tick = 1 ns, the start at 1 s; one metadata
    record per name, one compressed EventBlock in list order (sequence numbers
    1, 2, ...), then a sequence point 1 ms after the start."""
    metas, ids = [], {}
    for name, eid, ver, _, _ in events:
        if name not in ids:
            ids[name] = len(ids) + 1
            metas.append(meta_record(ids[name], RT, eid, '', ver))
    evs = [ev(ids[name], i + 1, tid, 10 ** 9 + us * 1000, payload, proc=pid)
           for i, (name, _, _, payload, us) in enumerate(events)]
    w = Writer()
    w.trace((2026, 11, 5, 27, 12, 0, 0, 0), 0, 10 ** 9, 8, pid)
    w.block('MetadataBlock', block_header(1) + compressed([md(0, m) for m in metas]))
    w.block('EventBlock', block_header(1) + compressed(evs))
    w.block('SPBlock', i64(10 ** 9 + 10 ** 6) + i32(0))
    w.end()
    with open(path, 'wb') as f:
        f.write(bytes(w.b))

def gcstart(count, depth, reason, typ): return struct.pack('<IIIIHQ', count, depth, reason, typ, 3, 0)

def small():
    w = Writer()
    # 2024-01-02 (a Tuesday) 03:04:05.678 UTC, QPC 1000 at that instant, 1 tick = 1 ns.
    w.trace((2024, 1, 2, 2, 3, 4, 5, 678), 1000, 1000000000, 8, 4242)
    opcode_tag = i32(1) + b'\x01' + b'\x01'  # V5 tag: opcode 1
    metas = [
        meta_record(1, RT, 1, '', 2, opcode_tag),   # GCStart_V2
        meta_record(2, RT, 2, '', 1),               # GCEnd_V1
        meta_record(3, RT, 9, '', 1),               # GCSuspendEEBegin_V1
        meta_record(4, RT, 3, '', 1),               # GCRestartEEEnd_V1
        meta_record(5, SAMPLER, 0, 'ThreadSample', 0),
        meta_record(6, EP, 1, 'ProcessInfo', 1),
        meta_record(7, RUNDOWN, 187, '', 0),        # RuntimeInformationRundown
        meta_record(8, RT, 35, '', 0),              # GCTriggered
        meta_record(9, RT, 4, '', 1),               # GCHeapStats_V1
        meta_record(10, RT, 204, '', 3),            # GCPerHeapHistory_V3
    ]
    w.block('MetadataBlock', block_header(1) + compressed([md(0, m) for m in metas]))
    # Region 1, file order != time order; thread 200 is a sampler thread.
    evs = [
        ev(3, 1, 100, 2000, struct.pack('<IIH', 1, 0, 3)),             # SuspendEEBegin Reason=1 Count=0
        ev(5, 1, 200, 1500, b'\x01\0\0\0'),                             # not a GC event
        ev(1, 2, 100, 2500, gcstart(1, 0, 0, 0)),                       # GCStart Count=1
        ev(2, 3, 100, 3000, struct.pack('<IIH', 1, 0, 3)),             # GCEnd
        ev(4, 4, 100, 3500, struct.pack('<H', 3)),                      # RestartEEEnd
        ev(8, 1, 300, 2400, struct.pack('<IH', 4, 3), proc=0),          # GCTriggered AllocLarge
    ]
    w.block('EventBlock', block_header(1) + compressed(evs))
    w.block('StackBlock', i32(1) + i32(1) + i32(16) + u64(0x401000) + u64(0x402000))
    # Sequence point: thread 200 attempted 3 events (2 lost), thread 100 is at 4.
    w.block('SPBlock', i64(4000) + i32(3) + i64(100) + i32(4) + i64(200) + i32(3) + i64(300) + i32(1))
    # Region 2, uncompressed headers; thread 100 jumps from seq 4 to 7 (2 lost).
    heapstats = struct.pack('<10Q3IH', 100, 10, 200, 20, 300, 30, 400, 40, 5, 6, 7, 8, 9, 3)
    perheap = struct.pack('<H6QIIIIIIQI', 3, 1, 2, 3, 4, 5, 6, 7, 0x80000002, 0, 0x10, 0, 0, 99, 4)
    for g in range(4):
        perheap += struct.pack('<10Q', *[1000 * (g + 1) + i for i in range(10)])
    rinfo = (struct.pack('<HH8HIB', 3, 2, 8, 0, 1, 0, 8, 0, 1, 0, 0x1001, 2) + u16z('ignored-cmd') +
             b'\x11' * 16 + u16z('/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.1/libcoreclr.so'))
    evs2 = [
        ev(1, 7, 100, 5000, gcstart(2, 1, 4, 0), sorted=True),
        ev(6, 8, 100, 5100, u16z('app --gc') + u16z('Linux') + u16z('X64')),
        ev(7, 9, 100, 5200, rinfo),
        ev(9, 10, 100, 5050, heapstats),
        ev(10, 11, 100, 5040, perheap),
    ]
    def eb2():
        # plain blobs pad to the file offset: compute where the block body starts
        start = len(w.b) + 1 + 2 + 8 + 4 + len('EventBlock') + 1 + 4
        start = (start + 3) & ~3
        return block_header(0) + plain(evs2, start + 20)
    w.block('EventBlock', eb2())
    w.end()
    return bytes(w.b)

def read_varint(b, p):
    v = sh = 0
    while True:
        c = b[p]; p += 1; v |= (c & 0x7F) << sh; sh += 7
        if not c & 0x80: return v, p

def real_slice(path, keep=60):
    b = open(path, 'rb').read()
    # Objects: Trace at 32, MetadataBlock at 102, StackBlock at 1486, EventBlock at 18165.
    assert b[1486 + 15:1486 + 25] == b'StackBlock' and b[18165 + 15:18165 + 25] == b'EventBlock'
    q = 18165 + 15 + 10 + 1
    body = (q + 4 + 3) & ~3
    hsz, flags = struct.unpack_from('<hh', b, body)
    assert flags & 1
    p = body + hsz; plen = 0
    for _ in range(keep):  # walk compressed headers to find where event `keep` ends
        f = b[p]; p += 1
        if f & 1: _, p = read_varint(b, p)
        if f & 2:
            for _ in range(3): _, p = read_varint(b, p)
        if f & 4: _, p = read_varint(b, p)
        if f & 8: _, p = read_varint(b, p)
        _, p = read_varint(b, p)
        p += (16 if f & 16 else 0) + (16 if f & 32 else 0)
        if f & 128: plen, p = read_varint(b, p)
        p += plen
    out = bytearray(b[:1486]) + b[18165:q] + struct.pack('<i', p - body)
    while len(out) % 4: out += b'\0'  # the body starts at a 4-byte file offset
    return bytes(out + b[body:p] + b'\x06\x01')

def main():
    out = sys.argv[1]
    data = small()
    open(os.path.join(out, 'valid-small.nettrace'), 'wb').write(data)
    open(os.path.join(out, 'bad-magic.nettrace'), 'wb').write(b'Nettracf' + data[8:200])
    open(os.path.join(out, 'bad-v6-header.nettrace'), 'wb').write(b'Nettrace' + u32(0) + u32(6) + u32(0) + b'\0' * 16)
    open(os.path.join(out, 'truncated-block.nettrace'), 'wb').write(data[:len(data) // 2])
    bumped = bytearray(data)
    # Trace type: tag 5, tag 5, tag 1, version @35, min reader version @39
    assert bumped[32:35] == b'\x05\x05\x01'
    bumped[35:43] = i32(7) + i32(7)
    open(os.path.join(out, 'bad-version.nettrace'), 'wb').write(bytes(bumped))
    if len(sys.argv) > 2:
        open(os.path.join(out, 'valid-real-slice.nettrace'), 'wb').write(real_slice(sys.argv[2]))

if __name__ == '__main__':
    main()
