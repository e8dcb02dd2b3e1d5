"""A small, independent decoder of Perfetto protobuf traces, written from the
public .proto field numbers (google/perfetto protos/perfetto/trace/):

  Trace            packet = 1 (TracePacket, repeated)
  TracePacket      timestamp = 8, trusted_packet_sequence_id = 10,
                   track_event = 11, sequence_flags = 13,
                   track_descriptor = 60, first_packet_on_sequence = 87
  TrackDescriptor  uuid = 1, name = 2, process = 3, parent_uuid = 5, counter = 8
  ProcessDescriptor pid = 1, cmdline = 2 (repeated), process_name = 6
  TrackEvent       debug_annotations = 4, type = 9 (1 SLICE_BEGIN, 2 SLICE_END,
                   3 INSTANT, 4 COUNTER), track_uuid = 11, categories = 22,
                   name = 23, counter_value = 30, double_counter_value = 44
  DebugAnnotation  bool_value = 2, uint_value = 3, int_value = 4,
                   double_value = 5, string_value = 6, name = 10
  SequenceFlags    SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2

Wire format: varint (0), 64-bit little-endian (1), length-delimited (2),
32-bit (5). decode(bytes) returns a Timeline or raises ValueError with what
is wrong (malformed wire data, an unknown track, an end without a begin, a
slice outliving its parent, time going backwards on a track...).
"""
import struct


def fields(buf):
    """[(field number, wire type, value)] of one message; value is an int for
    varint/fixed, bytes for length-delimited."""
    out, i, n = [], 0, len(buf)

    def varint():
        nonlocal i
        shift = v = 0
        while True:
            if i >= n:
                raise ValueError("truncated varint")
            b = buf[i]
            i += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return v
            if shift > 63:
                raise ValueError("varint longer than 10 bytes")

    while i < n:
        key = varint()
        num, wt = key >> 3, key & 7
        if num == 0:
            raise ValueError("field number 0")
        if wt == 0:
            out.append((num, wt, varint()))
        elif wt == 1:
            if i + 8 > n:
                raise ValueError("truncated fixed64")
            out.append((num, wt, struct.unpack_from("<Q", buf, i)[0]))
            i += 8
        elif wt == 2:
            ln = varint()
            if i + ln > n:
                raise ValueError("length-delimited field past the end")
            out.append((num, wt, bytes(buf[i:i + ln])))
            i += ln
        elif wt == 5:
            if i + 4 > n:
                raise ValueError("truncated fixed32")
            out.append((num, wt, struct.unpack_from("<I", buf, i)[0]))
            i += 4
        else:
            raise ValueError("wire type %d" % wt)
    return out


def one(fs, num, default=None):
    v = [x[2] for x in fs if x[0] == num]
    if len(v) > 1:
        raise ValueError("field %d repeated" % num)
    return v[0] if v else default


def many(fs, num):
    return [x[2] for x in fs if x[0] == num]


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def as_double(v):
    return struct.unpack("<d", struct.pack("<Q", v))[0]


def annotation(buf):
    fs = fields(buf)
    name = one(fs, 10).decode()
    for num, conv in ((2, bool), (3, int), (4, signed), (6, lambda b: b.decode())):
        v = one(fs, num)
        if v is not None:
            return name, conv(v)
    v = [x for x in fs if x[0] == 5]
    if v:
        if v[0][1] != 1:
            raise ValueError("double_value must be fixed64")
        return name, as_double(v[0][2])
    raise ValueError("annotation %s without a value" % name)


class Track:
    def __init__(self, uuid, name, parent, counter, process):
        self.uuid, self.name, self.parent, self.counter, self.process = uuid, name, parent, counter, process
        self.slices, self.points, self.stack, self.last_ts = [], [], [], -1


class Timeline:
    def __init__(self):
        self.tracks, self.packets = {}, 0

    def processes(self):
        """{uuid: (pid, name, [cmdline])}"""
        return {t.uuid: t.process for t in self.tracks.values() if t.process}

    def by_name(self, pid):
        """{track name: Track} for the child tracks of process pid."""
        puuid = [u for u, p in self.processes().items() if p[0] == pid]
        return {t.name: t for t in self.tracks.values() if t.parent in puuid}


def decode(data):
    tl = Timeline()
    first = True
    for num, wt, pk in fields(data):
        if num != 1 or wt != 2:
            raise ValueError("Trace holds only packet = 1 (got field %d)" % num)
        tl.packets += 1
        fs = fields(pk)
        if one(fs, 10) != 1:
            raise ValueError("packet %d: trusted_packet_sequence_id must be 1" % tl.packets)
        flags = one(fs, 13, 0)
        if first:
            if not flags & 1 or one(fs, 87) != 1:
                raise ValueError("first packet must clear the incremental state and be first on its sequence")
            first = False
        td, te = one(fs, 60), one(fs, 11)
        if (td is None) == (te is None):
            raise ValueError("packet %d: exactly one of track_descriptor, track_event" % tl.packets)
        if td is not None:
            d = fields(td)
            uuid, parent = one(d, 1), one(d, 5)
            if not uuid or uuid in tl.tracks:
                raise ValueError("track uuid %r missing or reused" % uuid)
            if parent is not None and parent not in tl.tracks:
                raise ValueError("track %d: parent %d not described before" % (uuid, parent))
            proc = None
            if one(d, 3) is not None:
                p = fields(one(d, 3))
                proc = (signed(one(p, 1)), one(p, 6).decode(), [c.decode() for c in many(p, 2)])
            tl.tracks[uuid] = Track(uuid, one(d, 2).decode(), parent, one(d, 8) is not None, proc)
            continue
        if not flags & 2:
            raise ValueError("packet %d: a track event must set SEQ_NEEDS_INCREMENTAL_STATE" % tl.packets)
        ts = one(fs, 8)
        e = fields(te)
        typ, uuid = one(e, 9), one(e, 11)
        t = tl.tracks.get(uuid)
        if ts is None or t is None:
            raise ValueError("packet %d: track event without timestamp or known track" % tl.packets)
        if ts < t.last_ts:
            raise ValueError("track %s: time goes back (%d after %d)" % (t.name, ts, t.last_ts))
        t.last_ts = ts
        if typ == 4:
            if not t.counter:
                raise ValueError("counter value on slice track %s" % t.name)
            v = [x for x in e if x[0] == 44]
            if len(v) != 1 or v[0][1] != 1:
                raise ValueError("counter event needs one double_counter_value")
            t.points.append((ts, as_double(v[0][2])))
        elif typ == 1:
            if t.counter:
                raise ValueError("slice on counter track %s" % t.name)
            s = [one(e, 23).decode(), ts, None, dict(annotation(a) for a in many(e, 4)),
                 [c.decode() for c in many(e, 22)]]
            t.stack.append(s)
            t.slices.append(s)
        elif typ == 3:   # TYPE_INSTANT: a slice of no duration (end = start)
            if t.counter:
                raise ValueError("instant on counter track %s" % t.name)
            t.slices.append([one(e, 23).decode(), ts, ts, dict(annotation(a) for a in many(e, 4)),
                             [c.decode() for c in many(e, 22)]])
        elif typ == 2:
            if not t.stack:
                raise ValueError("track %s: end without begin at %d" % (t.name, ts))
            s = t.stack.pop()
            s[2] = ts
        else:
            raise ValueError("unexpected track event type %r" % typ)
    for t in tl.tracks.values():
        if t.stack:
            raise ValueError("track %s: %d slices never end" % (t.name, len(t.stack)))
        t.slices = [(s[0], s[1], s[2], s[3]) for s in t.slices]
    return tl
