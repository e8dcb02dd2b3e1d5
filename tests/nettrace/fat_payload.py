#!/usr/bin/env python3
"""fat_payload.py GCSCOPE TMP — issue 25: a 0.2 MB .nettrace.gz whose GC
events carry 60 MiB payloads (it reached 1.9 GB; the docs say memory stays
bounded). Three GCRestartEEEnd events of 62,914,560 bytes, one EventBlock
each, no sequence point: the third would make 180 MiB wait, past
GCS_NETTRACE_MAX_PENDING_BYTES (128 MiB = 134,217,728 bytes). Expected:
exit 1, the one line

  gcscope import: F: more than 128 MiB of GC event payloads between two
  sequence points (an event of 62914560 bytes on top of 125829120 waiting)
  (at byte N)

with N the file offset of the third event record (computed below while
writing), no database left, and a peak resident size under 600 MB (normal
build; about 2 x 64 MiB of object buffer and 128 MiB of waiting payloads).

Then the same file under an address-space limit (RLIMIT_AS 200 MB, normal
build only: a sanitizer's shadow memory needs terabytes) makes an
allocation fail: the line says out of memory, not that there are too many
events.
"""
import os
import resource
import struct
import subprocess
import sys
import zlib

GCSCOPE, TMP = sys.argv[1:3]
os.makedirs(TMP, exist_ok=True)
path = os.path.join(TMP, "fat.nettrace.gz")
db = os.path.join(TMP, "fat.db")
PAYLOAD = 60 << 20
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


class Out:
    """Streams the nettrace bytes through gzip, tracking the offset."""
    def __init__(self, f):
        self.f, self.z, self.n = f, zlib.compressobj(6, zlib.DEFLATED, 31), 0

    def put(self, b):
        self.f.write(self.z.compress(b))
        self.n += len(b)

    def close(self):
        self.f.write(self.z.flush())


def obj_header(o, name, version):
    n = name.encode()
    o.put(b'\x05\x05\x01' + struct.pack('<iii', version, version, len(n)) + n + b'\x06')


def varint(v):
    out = b''
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def u16z(s):
    return s.encode('utf-16le') + b'\0\0'


def block(o, name, body_len, write_body):
    obj_header(o, name, 2)
    o.put(struct.pack('<i', body_len))
    o.put(b'\0' * ((4 - o.n % 4) % 4))
    write_body()
    o.put(b'\x06')


third_at = None
with open(path, 'wb') as f:
    o = Out(f)
    o.put(b'Nettrace' + struct.pack('<i', 20) + b'!FastSerialization.1')
    obj_header(o, 'Trace', 4)
    o.put(struct.pack('<8h', 2024, 1, 2, 2, 3, 4, 5, 678) + struct.pack('<qqiiii', 0, 10 ** 9, 8, 77, 2, 1000))
    o.put(b'\x06')
    rec = (struct.pack('<i', 1) + u16z('Microsoft-Windows-DotNETRuntime') + struct.pack('<i', 3) + u16z('') +
           struct.pack('<qiii', 1, 1, 4, 0))
    meta = struct.pack('<hhqq', 20, 1, 0, 0) + b'\x80\x00' + varint(len(rec)) + rec
    block(o, 'MetadataBlock', len(meta), lambda: o.put(meta))
    for i in range(3):
        # A compressed header (its state starts afresh in each block): metadata id 1, capture
        # thread 9 with sequence number i + 1, processor 0, thread 9, timestamp i + 1, payload size.
        hdr = bytes([0x01 | 0x02 | 0x04 | 0x80, 1, i, 9, 0, 9]) + varint(i + 1) + varint(PAYLOAD)
        body_len = 20 + len(hdr) + PAYLOAD

        def body(hdr=hdr):
            global third_at
            o.put(struct.pack('<hhqq', 20, 1, 0, 0))
            if i == 2:
                third_at = o.n
            o.put(hdr)
            chunk = struct.pack('<H', 3) + bytes((1 << 20) - 2)
            o.put(chunk)
            for _ in range(PAYLOAD // (1 << 20) - 1):
                o.put(bytes(1 << 20))
        block(o, 'EventBlock', body_len, body)
    o.put(b'\x01')
    o.close()

print("%s: %d bytes" % (path, os.path.getsize(path)))
check(os.path.getsize(path) < 1 << 20, "the file is small")

asan = b'__asan_init' in open(GCSCOPE, 'rb').read()
if os.path.exists(db):
    os.unlink(db)
p = subprocess.run([GCSCOPE, "import", "-q", "-d", db, path], capture_output=True, text=True, timeout=300)
want = ("gcscope import: %s: more than 128 MiB of GC event payloads between two sequence points "
        "(an event of 62914560 bytes on top of 125829120 waiting) (at byte %d)\n" % (path, third_at))
check(p.returncode == 1, "exit %d" % p.returncode)
check(p.stderr == want, "stderr %r, want %r" % (p.stderr, want))
check(not os.path.exists(db), "a database was left")
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("peak resident size: %.0f MB" % peak_mb)
if not asan:
    check(peak_mb < 600, "peak resident size %.0f MB" % peak_mb)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (200 << 20, 200 << 20))
    p = subprocess.run([GCSCOPE, "import", "-q", "-d", db, path], capture_output=True, text=True, timeout=300,
                       preexec_fn=limit)
    print(p.stderr.strip())
    check(p.returncode == 1, "RLIMIT_AS: exit %d" % p.returncode)
    check(p.stderr.count("\n") == 1 and "out of memory" in p.stderr and "GC events between" not in p.stderr,
          "RLIMIT_AS: stderr %r" % p.stderr)
    check(not os.path.exists(db), "RLIMIT_AS: a database was left")
os.unlink(path)
print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
