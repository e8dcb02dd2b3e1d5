#!/usr/bin/env python3
"""Independent oracle: walks a V4/V5 .nettrace file (written from the format
description, separately from the C parser) and prints facts the C tests assert
as literals. Usage: nt_walk.py FILE [summary|gcs|pauses|gc-pauses|payload ID,VER N|expect]"""
import calendar, struct, sys, collections

def varint(b, p):
    v = s = 0
    while True:
        c = b[p]; p += 1
        v |= (c & 0x7f) << s; s += 7
        if not c & 0x80: return v, p

def u16z(b, p):
    e = p
    while b[e:e+2] != b'\0\0': e += 2
    return b[p:e].decode('utf-16le'), e + 2

def walk(path):
    b = open(path, 'rb').read()
    assert b[:8] == b'Nettrace'
    p = 8 + 4 + 20
    meta = {}
    events = []  # (region, ts, fileorder, metaid, tid, seq, capt, payload)
    region = 0; order = 0; trace = None; nsp = 0
    while True:
        tag = b[p]; p += 1
        if tag == 1: break
        assert tag == 5 and b[p] == 5 and b[p+1] == 1
        ver, minver, nlen = struct.unpack_from('<iii', b, p + 2)
        name = b[p+14:p+14+nlen].decode(); p += 14 + nlen
        assert b[p] == 6; p += 1
        if name == 'Trace':
            st = struct.unpack_from('<8h', b, p); p += 16
            qpc, freq, ptr, pid, ncpu, rate = struct.unpack_from('<qqiiii', b, p); p += 32
            trace = dict(st=st, qpc=qpc, freq=freq, ptr=ptr, pid=pid, ver=ver)
        else:
            size, = struct.unpack_from('<i', b, p); p += 4
            p = (p + 3) & ~3
            blk = b[p:p+size]; blkoff = p; p += size
            if name in ('EventBlock', 'MetadataBlock'):
                hsz, flags = struct.unpack_from('<hh', blk, 0)
                q = hsz
                prev = dict(meta=0, seq=0, capt=0, proc=0, tid=0, stack=0, ts=0, plen=0)
                while q < len(blk):
                    if flags & 1:
                        f = blk[q]; q += 1
                        if f & 1: prev['meta'], q = varint(blk, q)
                        if f & 2:
                            d, q = varint(blk, q); prev['seq'] = (prev['seq'] + d) & 0xFFFFFFFF
                            prev['capt'], q = varint(blk, q); prev['proc'], q = varint(blk, q)
                        if prev['meta'] != 0: prev['seq'] = (prev['seq'] + 1) & 0xFFFFFFFF
                        if f & 4: prev['tid'], q = varint(blk, q)
                        if f & 8: prev['stack'], q = varint(blk, q)
                        d, q = varint(blk, q); prev['ts'] = (prev['ts'] + d) & 0xFFFFFFFFFFFFFFFF
                        if f & 16: q += 16
                        if f & 32: q += 16
                        if f & 128: prev['plen'], q = varint(blk, q)
                        pl = blk[q:q+prev['plen']]; q += prev['plen']
                        mid = prev['meta']; ts = prev['ts']; tid = prev['tid']
                        seq = prev['seq']; capt = prev['capt']
                    else:
                        esz, mid, seq, tid, capt, proc, stk, ts = struct.unpack_from('<iiiqqiiq', blk, q)
                        mid &= 0x7fffffff
                        plen, = struct.unpack_from('<i', blk, q + 76)
                        pl = blk[q+80:q+80+plen]; q = q + 80 + plen; q += (-(blkoff + q)) % 4
                    if name == 'MetadataBlock':
                        m, = struct.unpack_from('<i', pl, 0)
                        prov, r = u16z(pl, 4)
                        eid, = struct.unpack_from('<i', pl, r)
                        ename, r = u16z(pl, r + 4)
                        kw, ev_ver, lvl = struct.unpack_from('<qii', pl, r)
                        meta[m] = (prov, eid, ev_ver, ename)
                    else:
                        events.append((region, ts, order, mid, tid, seq, capt, pl)); order += 1
            elif name == 'SPBlock':
                region += 1; nsp += 1
        assert b[p] == 6, (name, p); p += 1
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    return trace, meta, events, nsp

RT = 'Microsoft-Windows-DotNETRuntime'
# (id, version) of the runtime/private events gcscope's schema defines and this file holds
KNOWN = {(1, 2), (2, 1), (3, 1), (4, 1), (7, 1), (8, 1), (9, 1), (10, 3), (13, 1), (14, 1),
         (33, 0), (35, 0), (200, 0), (202, 0), (204, 3), (205, 2), (199, 0)}
PRV = 'Microsoft-Windows-DotNETRuntimePrivate'

def main():
    trace, meta, events, nsp = walk(sys.argv[1])
    what = sys.argv[2] if len(sys.argv) > 2 else 'summary'
    def key(e):
        return meta[e[3]][:3]
    ms = lambda ts: (ts - trace['qpc']) * 1000.0 / trace['freq']
    if what == 'summary':
        print(trace, 'sp blocks', nsp, 'events', len(events), 'meta', len(meta))
        c = collections.Counter(key(e) for e in events)
        for k, n in sorted(c.items()): print(k, n)
    elif what == 'gcs':
        for e in events:
            if key(e) == (RT, 1, 2):
                cnt, dep, rea, typ = struct.unpack_from('<IIII', e[7])
                print('GCStart', cnt, dep, rea, typ, e[4], e[1], '%.4f' % ms(e[1]))
    elif what == 'pauses':
        # pause = RestartEEEnd - SuspendEEBegin for the suspension preceding each GCStart
        susp = None; cur = None
        for e in events:
            k = key(e)
            if k == (RT, 9, 1): susp = e[1]
            elif k == (RT, 1, 2):
                cur = struct.unpack_from('<I', e[7])[0]; gsus = susp
            elif k == (RT, 3, 1) and cur is not None:
                print('GC', cur, 'suspend_ts', gsus, 'restart_end_ts', e[1], 'pause_ticks', e[1] - gsus,
                      'pause_ns', (e[1] - gsus) * 10**9 // trace['freq'])
                cur = None
    elif what == 'expect':
        st = trace['st']
        sync_ns = (calendar.timegm((st[0], st[1], st[3], st[4], st[5], st[6])) * 10**9 + st[7] * 10**6)
        def ns(ts):
            d = ts - trace['qpc']
            q = abs(d) * 10**9 // trace['freq']
            return sync_ns + (q if d >= 0 else -q)
        print('sync_ns', sync_ns, 'end_ns', ns(max(e[1] for e in events)), 'total', len(events))
        def nth(id_ver, n):
            i = 0
            for e in events:
                if key(e)[1:] == id_ver and key(e)[0] in (RT, PRV):
                    i += 1
                    if i == n: return e
        for n in (1, 3, 478):
            e = nth((1, 2), n)
            print('GCStart#%d' % n, struct.unpack_from('<IIIIHQ', e[7]), 'tid', e[4], 'ns', ns(e[1]))
        e = nth((4, 1), 1)
        print('HeapStats#1', struct.unpack_from('<10Q3IH', e[7]), 'ns', ns(e[1]))
        e = nth((4, 1), 478)
        print('HeapStats#478', struct.unpack_from('<10Q3IH', e[7]))
        for n in (1, 3):
            e = nth((204, 3), n); pl = e[7]
            hdr = struct.unpack_from('<H6QIIIIIIQI', pl)
            print('PerHeap#%d' % n, 'len', len(pl), 'hdr', hdr)
            for g in range(hdr[-1]):
                print('  gen', g, struct.unpack_from('<10Q', pl, 86 + 80 * g))
        e = nth((205, 2), 1)
        print('Global#1', struct.unpack_from('<QiIIIIHII', e[7]))
        e = nth((10, 3), 1); pl = e[7]
        a = struct.unpack_from('<IIHQQ', pl); name, r = u16z(pl, 26)
        print('AllocTick#1', a, repr(name), struct.unpack_from('<IQ', pl, r), 'tid', e[4], 'ns', ns(e[1]))
        e = nth((33, 0), 1); pl = e[7]
        a = struct.unpack_from('<QQQ', pl); name, r = u16z(pl, 24)
        print('PinObj#1', a, repr(name), struct.unpack_from('<H', pl, r))
        # pauses: RestartEEEnd - SuspendEEBegin of the suspension that precedes each GCStart
        susp = None; cur = None; want = {1, 2, 3, 100, 250, 478}
        for e in events:
            k = key(e)
            if k == (RT, 9, 1): susp = e
            elif k == (RT, 1, 2): cur = struct.unpack_from('<I', e[7])[0]; gs = susp
            elif k == (RT, 3, 1) and cur is not None:
                if cur in want:
                    print('pause GC', cur, 'suspend Reason/Count', struct.unpack_from('<II', gs[7]),
                          'pause_ns', ns(e[1]) - ns(gs[1]))
                cur = None
        # lost events: per capture thread gaps + sequence points (nothing counted here if 0)
        print('depths', collections.Counter(struct.unpack_from('<II', e[7])[1] for e in events if key(e) == (RT, 1, 2)))
        print('kinds-delivered-total', sum(1 for e in events if key(e)[0] in (RT, PRV) and key(e)[1:] in KNOWN))
    elif what == 'gc-pauses':
        # PerfView's GC pause (perfview-gcstats.md): from the last SuspendEEBegin
        # with Reason SuspendForGC (1) before a GCStart (SuspendOther ones are
        # not GC suspensions) to the first RestartEEEnd after the GCStart on
        # that suspending thread (another thread's restart ends its own
        # SuspendOther), in ns since the epoch. One line per GC: index, depth, pause_ns.
        st = trace['st']
        sync_ns = (calendar.timegm((st[0], st[1], st[3], st[4], st[5], st[6])) * 10**9 + st[7] * 10**6)
        def ns(ts):
            d = ts - trace['qpc']
            q = abs(d) * 10**9 // trace['freq']
            return sync_ns + (q if d >= 0 else -q)
        susp = None; cur = None
        for e in events:
            k = key(e)
            if k == (RT, 9, 1) and struct.unpack_from('<I', e[7])[0] == 1: susp = e
            elif k == (RT, 1, 2):
                cur = struct.unpack_from('<II', e[7]); gs = susp[1]; gtid = susp[4]
            elif k == (RT, 3, 1) and cur is not None and e[4] == gtid:
                print('GC', cur[0], 'depth', cur[1], 'pause_ns', ns(e[1]) - ns(gs))
                cur = None
    elif what == 'loh':
        # The LOH (gen 3) in every GCPerHeapHistory_V3: objects before (size -
        # free list - free objects) and size after, counted by value.
        before = collections.Counter(); after = collections.Counter()
        for e in events:
            if key(e) == (RT, 204, 3):
                pl = e[7]
                g = struct.unpack_from('<10Q', pl, 86 + 80 * 3)
                before[g[0] - g[1] - g[2]] += 1
                after[g[3]] += 1
        print('loh objects before', dict(before))
        print('loh size after', dict(after))
    elif what == 'payload':
        want = tuple(int(x) for x in sys.argv[3].split(','))  # id,version
        n = int(sys.argv[4])
        i = 0
        for e in events:
            if key(e)[1:] == want and key(e)[0] in (RT, PRV):
                i += 1
                if i == n:
                    print(e[1], e[4], len(e[7]), e[7].hex()); break

main()
