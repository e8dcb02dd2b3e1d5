"""ctf_packets: the packets of LTTng-UST 64-bit CTF stream files, read from
their bytes, so that tests compute expected values without gcscope's readers.

A packet begins with its 32-byte header (magic u32 @0, uuid @4, stream_id
u32 @20, stream_instance_id u64 @24), then its context: timestamp_begin @32,
timestamp_end @40, content_size @48, packet_size @56 (in bits),
packet_seq_num @64, events_discarded @72 (u64 little-endian each).

As a command: `ctf_packets.py set-u64 FILE BYTE VALUE` writes VALUE as a u64
little-endian at BYTE of FILE (a hand edit of a copy of a trace).
"""
import collections
import os
import re
import struct
import sys

MAGIC = 0xC1FC1FC1
SEQ_AT = 64                 # packet_seq_num, from the packet's first byte
DISCARDED_AT = 72           # events_discarded

# path, off (byte of the file), size (bytes), instance (stream_instance_id),
# begin/end (timestamp_begin/_end plus the offset given), seq, discarded
Packet = collections.namedtuple('Packet', 'path off size instance begin end seq discarded')


def clock_offset(stream_dir):
    """The clock offset of STREAM_DIR's metadata in ns (a 1 GHz clock)."""
    meta = open(os.path.join(stream_dir, 'metadata'), 'rb').read().decode('latin-1')
    assert re.search(r'\bfreq = 1000000000;', meta), stream_dir
    return int(re.search(r'\boffset = (\d+);', meta).group(1))


def stream_dirs(trace):
    """The directories under TRACE holding a metadata file (not index/)."""
    out = []
    for root, dirs, files in os.walk(trace):
        dirs[:] = [d for d in dirs if d != 'index']
        if 'metadata' in files:
            out.append(root)
    return sorted(out)


def stream_files(stream_dir):
    """The stream files of STREAM_DIR, sorted by name."""
    return [os.path.join(stream_dir, f) for f in sorted(os.listdir(stream_dir))
            if f != 'metadata' and not f.startswith('.')
            and os.path.isfile(os.path.join(stream_dir, f))]


def packets_of(b, path='', offset=0):
    """The packets of the stream bytes B in order; times plus OFFSET."""
    out, off = [], 0
    while off < len(b):
        magic, = struct.unpack_from('<I', b, off)
        assert magic == MAGIC, (path, off)
        inst, = struct.unpack_from('<Q', b, off + 24)
        begin, end, _content, size, seq, disc = struct.unpack_from('<6Q', b, off + 32)
        assert size % 8 == 0 and size and off + size // 8 <= len(b), (path, off)
        out.append(Packet(path, off, size // 8, inst, offset + begin, offset + end, seq, disc))
        off += size // 8
    return out


def packets(path, offset=0):
    """The packets of the stream file PATH in file order."""
    with open(path, 'rb') as f:
        return packets_of(f.read(), path, offset)


def put_u64(path, at, value):
    """Write VALUE (mod 2^64) as a u64 little-endian at byte AT of PATH."""
    with open(path, 'r+b') as f:
        f.seek(at)
        f.write(struct.pack('<Q', value % 2**64))


if __name__ == '__main__':
    if len(sys.argv) != 5 or sys.argv[1] != 'set-u64':
        sys.exit('usage: ctf_packets.py set-u64 FILE BYTE VALUE')
    put_u64(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
