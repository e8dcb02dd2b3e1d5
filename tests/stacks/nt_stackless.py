#!/usr/bin/env python3
"""nt_stackless.py FILE PROVIDER EVENT_ID — an independent walker of a V4/V5
.nettrace (docs/nettrace.md): counts the events of (PROVIDER, EVENT_ID) and how
many of them refer to no stack or to an empty one (StackBlock size 0).
Prints "events N stackless M"."""
import struct
import sys

d = open(sys.argv[1], "rb").read()
want_prov, want_id = sys.argv[2], int(sys.argv[3])


def varint(p):
    v = s = 0
    while True:
        b = d[p]
        p += 1
        v |= (b & 0x7F) << s
        s += 7
        if not b & 0x80:
            return v, p


pos, ptr, metas, sizes = 32, 8, {}, {}
events = stackless = 0
while pos < len(d) and d[pos] != 1:
    p = pos + 3
    p += 8
    nl, = struct.unpack_from("<i", d, p)
    p += 4
    name = d[p:p + nl].decode()
    p += nl + 1
    if name == "Trace":
        ptr = struct.unpack_from("<i", d, p + 32)[0]
        pos = p + 48 + 1
        continue
    size, = struct.unpack_from("<i", d, p)
    p += 4
    p += (4 - (p & 3)) & 3
    end = p + size
    if name in ("EventBlock", "MetadataBlock"):
        hs, fl = struct.unpack_from("<hh", d, p)
        q = p + hs
        mid = seq = stack = plen = 0
        while q < end:
            if fl & 1:
                f = d[q]
                q += 1
                if f & 1:
                    mid, q = varint(q)
                if f & 2:
                    _, q = varint(q)
                    _, q = varint(q)
                    _, q = varint(q)
                if f & 4:
                    _, q = varint(q)
                if f & 8:
                    stack, q = varint(q)
                _, q = varint(q)
                q += 16 if f & 16 else 0
                q += 16 if f & 32 else 0
                if f & 128:
                    plen, q = varint(q)
            else:
                _, mid, seq, _, _, _, stack, _ = struct.unpack_from("<iiiqqiiq", d, q)
                mid &= 0x7FFFFFFF
                q += 4 + 4 + 4 + 8 + 8 + 4 + 4 + 8 + 32
                plen, = struct.unpack_from("<i", d, q)
                q += 4
            pl = d[q:q + plen]
            q += plen
            if not fl & 1:
                q += (4 - (q & 3)) & 3
            if name == "MetadataBlock":
                m, = struct.unpack_from("<i", pl, 0)
                e = 4
                while pl[e:e + 2] != b"\0\0":
                    e += 2
                prov = pl[4:e].decode("utf-16-le")
                eid, = struct.unpack_from("<i", pl, e + 2)
                metas[m] = (prov, eid)
            elif metas.get(mid) == (want_prov, want_id):
                events += 1
                if stack == 0 or sizes.get(stack, 0) == 0:
                    stackless += 1
    elif name == "StackBlock":
        first, count = struct.unpack_from("<ii", d, p)
        q = p + 8
        for i in range(count):
            sz, = struct.unpack_from("<i", d, q)
            q += 4 + sz
            sizes[first + i] = sz
    pos = end + 1
print("events %d stackless %d" % (events, stackless))
