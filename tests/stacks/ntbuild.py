"""ntbuild.py — hand-built .nettrace files (format V5 blocks) for the stacks
tests: a Trace object, metadata, StackBlocks, EventBlocks and a sequence
point, every byte written here from the format's description
(docs/nettrace.md), independently of gcscope's reader."""
import struct

RUNTIME = "Microsoft-Windows-DotNETRuntime"
RUNDOWN = "Microsoft-Windows-DotNETRuntimeRundown"


def u16z(s):
    return s.encode("utf-16-le") + b"\0\0"


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


class File:
    def __init__(self, ptr_size=8):
        self.b = bytearray(b"Nettrace" + struct.pack("<I", 20) + b"!FastSerialization.1")
        self.ptr = ptr_size
        self._type("Trace", 4)
        self.b += struct.pack("<8H", 2024, 1, 2, 2, 3, 4, 5, 678)
        self.b += struct.pack("<QQiiii", 0, 1000000000, ptr_size, 4242, 2, 1000)
        self.b.append(6)
        self.meta_ids = {}

    def _type(self, name, version):
        self.b += bytes([5, 5, 1]) + struct.pack("<iii", version, version, len(name)) + name.encode() + bytes([6])

    def _block(self, name, body):
        self._type(name, 2)
        self.b += struct.pack("<i", len(body))
        while len(self.b) % 4:
            self.b.append(0)
        self.b += body
        self.b.append(6)

    def metadata(self, defs):
        """defs: [(id, provider, event_id, version)]"""
        body = bytearray(struct.pack("<hhqq", 20, 1, 0, 0))
        for mid, prov, eid, ver in defs:
            rec = struct.pack("<i", mid) + u16z(prov) + struct.pack("<i", eid) + u16z("") + \
                struct.pack("<qiii", 0, ver, 4, 0)
            body += bytes([0x80]) + varint(0) + varint(len(rec)) + rec
        self._block("MetadataBlock", bytes(body))

    def stacks(self, first_id, stacks, raw=None):
        """stacks: lists of IPs (leaf first); raw: the body as given."""
        if raw is None:
            body = bytearray(struct.pack("<ii", first_id, len(stacks)))
            for s in stacks:
                body += struct.pack("<i", len(s) * self.ptr)
                for ip in s:
                    body += ip.to_bytes(self.ptr, "little")
            raw = bytes(body)
        self._block("StackBlock", raw)

    def events(self, evs):
        """evs: [(meta_id, ts, stack_id or 0 for none, payload)]; one thread (tid 77)."""
        body = bytearray(struct.pack("<hhqq", 20, 1, 0, 0))
        prev_ts, prev_stack, first = 0, 0, True
        for mid, ts, stack, payload in sorted(evs, key=lambda e: e[1]):
            # A compressed header carries the previous event's stack id unless it gives one.
            flags = 0x01 | 0x80 | (0x08 if stack != prev_stack else 0)
            if first:
                flags |= 0x02 | 0x04
            rec = bytearray([flags]) + varint(mid)
            if first:
                rec += varint(0) + varint(77) + varint(0) + varint(77)
                first = False
            if stack != prev_stack:
                rec += varint(stack)
                prev_stack = stack
            rec += varint(ts - prev_ts) + varint(len(payload)) + payload
            prev_ts = ts
            body += rec
        self._block("EventBlock", bytes(body))

    def sequence_point(self, ts):
        self._block("SPBlock", struct.pack("<qi", ts, 0))

    def close(self):
        self.b.append(1)
        return bytes(self.b)


def gc_triggered(reason):
    return struct.pack("<IH", reason, 1)


def method(start, size, ns, name, method_id=1):
    return struct.pack("<QQQIII", method_id, 7, start, size, 0x06000001, 0) + u16z(ns) + u16z(name) + \
        u16z("void ()") + struct.pack("<HQ", 1, 0)
