#!/usr/bin/env python3
"""make_corpus.py OUT_DIR — writes the hostile seeds of the fuzz corpus
(tests/fuzz/corpus/<target>/), one small file per case of issue 25 and the
hostile cases before it. Regenerate with
  python3 tests/fuzz/make_corpus.py tests/fuzz/corpus
The fuzz targets lower the reader's limits (4,096 waiting events, 64 KiB of
waiting payloads, an IsSorted delivery from 64 waiting events; a zip of at
most 1 MB and 256 directory levels), so these seeds are small and still
reach every limit. tests/nettrace/corpus/ holds the valid and malformed
nettrace seeds made by tests/nettrace/tools/make_corpus.py; the targets
replay both directories."""
import importlib.util
import io
import os
import struct
import sys
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "nt_corpus", os.path.join(HERE, "..", "nettrace", "tools", "make_corpus.py"))
nt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(nt)

RT = nt.RT


def trace_with(events_fn, metas, sp=True):
    w = nt.Writer()
    w.trace((2024, 1, 2, 2, 3, 4, 5, 678), 1000, 1000000000, 8, 4242)
    w.block('MetadataBlock', nt.block_header(1) + nt.compressed([nt.md(0, m) for m in metas]))
    w.block('EventBlock', nt.block_header(1) + nt.compressed(events_fn()))
    if sp:
        w.block('SPBlock', nt.i64(10 ** 9) + nt.i32(0))
    w.end()
    return bytes(w.b)


RESTART = [nt.meta_record(1, RT, 3, '', 1)]            # GCRestartEEEnd_V1 (payload: ClrInstanceID)


def sort_bomb(n=300):
    # Every event flagged IsSorted and older than all before it.
    return trace_with(lambda: [nt.ev(1, i + 1, 9, 10 ** 6 - i, struct.pack('<H', 3), sorted=True)
                               for i in range(n)], RESTART)


def fat_payloads(n=5, size=20000):
    # Past the 64 KiB the fuzz targets allow (GCS_NETTRACE_MAX_PENDING_BYTES in gcscope).
    return trace_with(lambda: [nt.ev(1, i + 1, 9, 1000 + i, struct.pack('<H', 3) + bytes(size - 2))
                               for i in range(n)], RESTART, sp=False)


def many_events(n=4200):
    return trace_with(lambda: [nt.ev(1, i + 1, 9, 1000 + i, struct.pack('<H', 3)) for i in range(n)],
                      RESTART, sp=False)


def phh_top_bit():
    # GCStart, a GCPerHeapHistory_V3 whose gen0 SizeBefore has its top bit set, GCEnd,
    # GCHeapStats, RestartEEEnd: recon must drop the history (no signed overflow).
    metas = [nt.meta_record(1, RT, 9, '', 1), nt.meta_record(2, RT, 1, '', 2), nt.meta_record(3, RT, 204, '', 3),
             nt.meta_record(4, RT, 2, '', 1), nt.meta_record(5, RT, 4, '', 1), nt.meta_record(6, RT, 3, '', 1)]
    perheap = struct.pack('<H6QIIIIIIQI', 3, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 5)
    for g in range(5):
        vals = [0] * 10
        vals[0] = 0x8000000000000002 if g == 0 else 1000   # SizeBefore
        vals[3] = 500                                      # SizeAfter
        vals[2] = 0x7FFFFFFFFFFFFFFF if g == 1 else 0      # FreeObjBefore
        perheap += struct.pack('<10Q', *vals)
    heapstats = struct.pack('<10Q3IH', 100, 10, 200, 20, 300, 30, 400, 40, 5, 6, 7, 8, 9, 3)
    evs = [nt.ev(1, 1, 9, 2000, struct.pack('<IIH', 1, 1, 3)),
           nt.ev(2, 2, 9, 2100, nt.gcstart(1, 0, 0, 0)),
           nt.ev(3, 3, 9, 2200, perheap),
           nt.ev(4, 4, 9, 2300, struct.pack('<IIH', 1, 0, 3)),
           nt.ev(5, 5, 9, 2400, heapstats),
           nt.ev(6, 6, 9, 2500, struct.pack('<H', 3))]
    return trace_with(lambda: evs, metas)


def gcfields():
    # Issue 26's events inside a GC, hostile: a GCLOHCompact of 20 heaps (past
    # the 16 kept) whose last element is cut, a GCFitBucketInfo claiming 65535
    # buckets in 40 bytes, a BGCRevisit of 2^63 pages, pinned plugs whose end
    # precedes their start or spans the address space, GCMarkWithType of heap
    # 2^31, then GCEnd and the restart.
    PRV = nt.PRV
    metas = [nt.meta_record(1, RT, 9, '', 1), nt.meta_record(2, RT, 1, '', 2), nt.meta_record(3, RT, 208, '', 0),
             nt.meta_record(4, RT, 209, '', 0), nt.meta_record(5, PRV, 21, '', 0), nt.meta_record(6, PRV, 199, '', 0),
             nt.meta_record(7, RT, 202, '', 0), nt.meta_record(8, RT, 33, '', 0), nt.meta_record(9, RT, 2, '', 1),
             nt.meta_record(10, RT, 3, '', 1)]
    loh = struct.pack('<HH', 3, 20) + b''.join(struct.pack('<IIIIQQ', i, 1000 + i, 7, 0xEEEEEEEE, 2 ** 64 - 1, i)
                                                for i in range(20))[:-5]
    fit = struct.pack('<HHQH', 3, 1, 2 ** 64 - 1, 65535) + bytes(range(40))
    revisit = struct.pack('<QQIH', 2 ** 63, 2 ** 64 - 1, 7, 3)
    pin_obj = struct.pack('<QQQ', 1, 0x1000, 2 ** 63) + 'x'.encode('utf-16-le') + b'\0\0' + struct.pack('<H', 3)
    plugs = [struct.pack('<QQQH', 0x2000, 0x1000, 0, 3), struct.pack('<QQQH', 0, 2 ** 64 - 1, 0, 3),
             struct.pack('<QQQH', 0x0F00, 0x1100, 0, 3)]
    mark = struct.pack('<IHIQ', 2 ** 31, 3, 0, 2 ** 64 - 1)
    evs = [nt.ev(1, 1, 9, 2000, struct.pack('<IIH', 1, 1, 3)),
           nt.ev(2, 2, 9, 2100, nt.gcstart(1, 2, 0, 0)),
           nt.ev(8, 3, 9, 2150, pin_obj),
           nt.ev(7, 4, 9, 2160, mark),
           nt.ev(3, 5, 9, 2200, loh),
           nt.ev(4, 6, 9, 2250, fit),
           nt.ev(5, 7, 9, 2260, revisit)] + \
          [nt.ev(6, 8 + i, 9, 2270 + i, pl) for i, pl in enumerate(plugs)] + \
          [nt.ev(9, 11, 9, 2300, struct.pack('<IIH', 1, 2, 3)),
           nt.ev(10, 12, 9, 2500, struct.pack('<H', 3))]
    return trace_with(lambda: evs, metas)


def loh_heaps():
    # GCLOHCompact at the per-heap arrays' capacity (1024 heaps, CoreCLR's
    # most) and one element past it (1025: the event is flagged truncated and
    # recon leaves it out), each inside a GC.
    metas = [nt.meta_record(1, RT, 9, '', 1), nt.meta_record(2, RT, 1, '', 2), nt.meta_record(3, RT, 208, '', 0),
             nt.meta_record(4, RT, 2, '', 1), nt.meta_record(5, RT, 3, '', 1)]

    def loh(n):
        return struct.pack('<HH', 3, n) + b''.join(struct.pack('<IIIIQQ', i, 1000 + i, 7, 0xEEEEEEEE, i * 3, i)
                                                    for i in range(n))
    evs = []
    for g, n in ((1, 1024), (2, 1025)):
        t = 2000 * g
        evs += [nt.ev(1, 5 * g - 4, 9, t, struct.pack('<IIH', 1, g, 3)),
                nt.ev(2, 5 * g - 3, 9, t + 100, nt.gcstart(g, 2, 0, 0)),
                nt.ev(3, 5 * g - 2, 9, t + 200, loh(n)),
                nt.ev(4, 5 * g - 1, 9, t + 300, struct.pack('<IIH', g, 2, 3)),
                nt.ev(5, 5 * g, 9, t + 500, struct.pack('<H', 3))]
    return trace_with(lambda: evs, metas)


def datas_payloads():
    # GCDynamicEvent (ID 39) with the DATAS names (issue 26): version 1 of the
    # right size, version 2, one byte short, a DataSize past the payload's end,
    # a name without its NUL; and a CommittedUsage.
    def name(s):
        return s.encode('utf-16-le') + b'\0\0'

    def dyn(n, data, size=None):
        return name(n) + struct.pack('<I', len(data) if size is None else size) + data + struct.pack('<H', 3)
    tuning = struct.pack('<HHHHQQfffHfIBHHHHB', 1, 2, 6, 1, 4, 1682052, 59.25, 59.25, 57.25, 1, 0.5, 4, 1, 0,
                         1, 0, 0, 2)
    sample = struct.pack('<HQIIIIQI', 1, 2, 1966, 1428, 0, 0, 325404, 3254040)
    full = struct.pack('<HHQfIIfIfIf', 1, 2, 9, 1.5, 3, 1, 2.5, 2, 3.5, 3, 4.5)
    payloads = [dyn('SizeAdaptationTuning', tuning), dyn('SizeAdaptationSample', sample),
                dyn('SizeAdaptationFullGCTuning', full), dyn('SizeAdaptationTuning', b'\2\0' + tuning[2:]),
                dyn('SizeAdaptationSample', sample[:-1]), dyn('SizeAdaptationFullGCTuning', full, 0xfffffff0),
                name('SizeAdaptationTuning')[:-2], dyn('CommittedUsage', struct.pack('<H5Q', 1, 1, 2, 3, 4, 5))]
    return trace_with(lambda: [nt.ev(1, i + 1, 9, 1000 + i, p) for i, p in enumerate(payloads)],
                      [nt.meta_record(1, RT, 39, '', 0)])


def empty_trace():
    w = nt.Writer()
    w.trace((2024, 1, 2, 2, 3, 4, 5, 678), 1000, 1000000000, 8, 4242)
    w.end()
    return bytes(w.b)


def garbage_after_header():
    w = nt.Writer()
    w.trace((2024, 1, 2, 2, 3, 4, 5, 678), 1000, 1000000000, 8, 4242)
    return bytes(w.b) + bytes((i * 73 + 11) & 0xFF for i in range(512))


def zips():
    out = {}
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w') as z:   # 20 x 20 = 400 levels > 256
        for i in range(20):
            z.writestr('/'.join(['d%d' % i] + ['x'] * 19) + '/f', b'')
    out['deep.zip'] = b.getvalue()
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w') as z:
        z.writestr('\x1b]0;pwned\x07\x1b[2J/../../evil', b'x')
    out['escape-name.zip'] = b.getvalue()
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w') as z:
        z.writestr('\x1b[31mred\x9b\u202etxt.nettrace', b'Nettrace')
    out['escape-unsupported.zip'] = b.getvalue()
    for name, entry in (('traversal.zip', '../outside'), ('absolute.zip', '/etc/passwd-gcs')):
        b = io.BytesIO()
        with zipfile.ZipFile(b, 'w') as z:
            z.writestr(entry, b'x')
        out[name] = b.getvalue()
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w', zipfile.ZIP_DEFLATED) as z:   # declares 2 MB > 1 MB
        z.writestr('big.nettrace', bytes(2000000))
    out['bomb.zip'] = b.getvalue()
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w') as z:
        z.writestr('a.nettrace', nt.small(), zipfile.ZIP_STORED)
        z.writestr('dir/b.nettrace', nt.small(), zipfile.ZIP_DEFLATED)
    out['valid.zip'] = b.getvalue()
    # An entry that inflates past its declared size: patch the sizes of a deflated entry.
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w', zipfile.ZIP_DEFLATED) as z:
        z.writestr('lie.nettrace', bytes(5000))
    data = bytearray(b.getvalue())
    cd = data.rfind(b'PK\x01\x02')
    struct.pack_into('<I', data, cd + 24, 100)      # central directory: uncompressed size 100
    struct.pack_into('<I', data, 22, 100)           # local header too
    out['lying-size.zip'] = bytes(data)
    return out


def ipc_header(size, set_, id_):
    return b'DOTNET_IPC_V1\0' + struct.pack('<HBBH', size, set_, id_, 0)


def ipc_string(s):
    if s is None:
        return struct.pack('<I', 0)
    u = s.encode('utf-16le') + b'\0\0'
    return struct.pack('<I', len(u) // 2) + u


def ipc():
    out = {}
    info2 = (struct.pack('<Q', 4242) + bytes(range(16)) + ipc_string('/usr/bin/dotnet app.dll') +
             ipc_string('Linux') + ipc_string('x64') + ipc_string('app') +
             ipc_string('\x1b]0;pwned\x07\x1b[2J8.0.1+abc'))
    out['info2-escapes'] = b'\x00' + ipc_header(20 + len(info2), 0xFF, 0) + info2
    out['info2-truncated'] = b'\x00' + ipc_header(20 + len(info2), 0xFF, 0) + info2[:30]
    long_str = struct.pack('<I', 0xFFFFFFFF) + 'x'.encode('utf-16le') * 100
    out['info2-huge-string'] = b'\x00' + ipc_header(20 + 24 + len(long_str), 0xFF, 0) + bytes(24) + long_str
    out['unknown-command'] = b'\x00' + ipc_header(24, 0xFF, 0xFF) + struct.pack('<I', 0x80131385)
    out['error-no-code'] = b'\x00' + ipc_header(20, 0xFF, 0xFF)
    out['bad-magic'] = b'\x00' + b'DOTNET_IPC_V2\0' + bytes(6)
    out['short-header'] = b'\x00' + b'DOTNET_IPC'
    out['size-lies'] = b'\x00' + ipc_header(65535, 0xFF, 0) + bytes(10)
    out['size-under-header'] = b'\x00' + ipc_header(3, 0xFF, 0)
    out['collect-ok-garbage'] = (b'\x01' + ipc_header(28, 0xFF, 0) + struct.pack('<Q', 7) +
                                 bytes((i * 31) & 0xFF for i in range(300)))
    out['collect-ok-nettrace'] = b'\x01' + ipc_header(28, 0xFF, 0) + struct.pack('<Q', 7) + nt.small()
    out['collect-ok-empty'] = b'\x01' + ipc_header(20, 0xFF, 0)
    out['collect-error'] = b'\x05' + ipc_header(24, 0xFF, 0xFF) + struct.pack('<I', 0x80131515)
    out['collect-other-set'] = b'\x01' + ipc_header(28, 0x02, 0x02) + struct.pack('<Q', 7)
    out['stop-ok'] = b'\x02' + ipc_header(28, 0xFF, 0) + struct.pack('<Q', 1)
    out['stop-silent'] = b'\x02'
    return out


def stacks():
    """The stacks target's seeds, built with tests/stacks/ntbuild.py: valid
    traces with StackBlocks and method events (JIT and rundown, 8- and 4-byte
    pointers), and damaged StackBlocks (the cases tests/stacks/stacks_small.py
    imports) and method events."""
    sp = importlib.util.spec_from_file_location("ntbuild", os.path.join(HERE, "..", "stacks", "ntbuild.py"))
    nb = importlib.util.module_from_spec(sp)
    sp.loader.exec_module(nb)
    defs = [(1, nb.RUNTIME, 35, 0), (2, nb.RUNTIME, 143, 2), (3, nb.RUNDOWN, 144, 2)]

    def build(ptr=8, stacks=None, raw=None, methods=None, two_regions=False):
        f = nb.File(ptr)
        f.metadata(defs)
        f.stacks(1, stacks if stacks is not None else [[0x1010, 0x2020], [0x1010, 0x3030], []], raw=raw)
        evs = [(1, 1000, 1, nb.gc_triggered(1)), (1, 2000, 2, nb.gc_triggered(0)),
               (1, 3000, 1, nb.gc_triggered(1)), (1, 4000, 3, nb.gc_triggered(0)),
               (1, 5000, 99, nb.gc_triggered(0))]
        evs += methods if methods is not None else [
            (2, 500, 0, nb.method(0x1000, 0x100, "NS.Cls", "Leaf")),
            (3, 7000, 0, nb.method(0x2000, 0x40, "NS.Cls", "Caller", 2))]
        f.events(evs)
        f.sequence_point(8000)
        if two_regions:  # the same ids again after the sequence point: new stacks
            f.stacks(1, [[0x2010], [0x1001, 0x1002, 0x1003]])
            f.events([(1, 9000, 1, nb.gc_triggered(1)), (1, 9500, 2, nb.gc_triggered(2))])
            f.sequence_point(10000)
        return f.close()

    m = nb.method(0x1000, 0x100, "NS.Cls", "Leaf")
    return {
        'valid.nettrace': build(),
        'valid-ptr4.nettrace': build(ptr=4),
        'valid-two-regions.nettrace': build(two_regions=True),
        'no-methods.nettrace': build(methods=[]),
        'overlapping-methods.nettrace': build(methods=[
            (2, 500, 0, nb.method(0x1000, 0x2000, "", "Outer")),
            (2, 600, 0, nb.method(0x1008, 0x10, "A", "Inner", 2)),
            (3, 7000, 0, nb.method(0xffffffffffffff00, 0x1000, "Wrap", "Around", 3))]),
        'method-cut.nettrace': build(methods=[(2, 500, 0, m[:30]), (3, 7000, 0, m[:-3])]),
        'method-no-nul.nettrace': build(methods=[(2, 500, 0, m[:52] + b"A\0" * 40)]),
        # Found by fuzz_stacks: an empty walk first in a trace's StackBlocks
        # (nt_stacks.c took an offset from a NULL array: UBSan).
        'empty-first-stack.nettrace': build(stacks=[[], [0x1010, 0x2020], []]),
        'deep-stack.nettrace': build(stacks=[list(range(0x1000, 0x1000 + 5000))]),
        'bad-count.nettrace': build(raw=struct.pack("<ii", 1, 1000000)),
        'bad-stack-past-end.nettrace': build(raw=struct.pack("<iii", 1, 1, 64) + b"\0" * 8),
        'bad-size-not-pointer.nettrace': build(raw=struct.pack("<iii", 1, 1, 12) + b"\0" * 12),
        'bad-first-id-max.nettrace': build(raw=struct.pack("<Iii", 0xffffffff, 2, 8) + b"\1" * 8 +
                                           struct.pack("<i", 0)),
    }


def main():
    root = sys.argv[1]
    nts = {
        'sort-bomb.nettrace': sort_bomb(),
        'fat-payloads.nettrace': fat_payloads(),
        'many-events.nettrace': many_events(),
        'phh-top-bit.nettrace': phh_top_bit(),
        'gcfields.nettrace': gcfields(),
        'datas-payloads.nettrace': datas_payloads(),
        'loh-heaps.nettrace': loh_heaps(),
        'empty-trace.nettrace': empty_trace(),
        'garbage-after-trace.nettrace': garbage_after_header(),
    }
    sets = {
        'nettrace': nts,
        # The live target's first byte is the piece size - 1.
        'nettrace_live': dict([('1b-' + k, b'\x00' + v) for k, v in nts.items()] +
                              [('64b-' + k, b'\x3f' + v) for k, v in nts.items()] +
                              [('1b-valid-small.nettrace', b'\x00' + nt.small())]),
        'zip': zips(),
        'dsipc': ipc(),
        'stacks': stacks(),
    }
    for target, files in sets.items():
        d = os.path.join(root, target)
        os.makedirs(d, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(d, name), 'wb') as f:
                f.write(data)


main()
