#!/usr/bin/env python3
"""fake_runtime.py MODE READY_FILE — a process that pretends to be a .NET
runtime on the diagnostics IPC socket ($TMPDIR/dotnet-diagnostic-PID-KEY-socket,
PID its own), for `record --pid`/`top --pid` against hostile peers (issue 25).
It answers ProcessInfo2 (runtime version "8.0.1"), StopTracing (OK, then it
ends the stream) and CollectTracing* (OK with session id 1, then the stream
MODE says), and writes READY_FILE with its pid once it listens. Modes:
  sortbomb  a valid nettrace stream: header, Trace, metadata, then EventBlocks
            of GCRestartEEEnd events all flagged IsSorted and each older than
            all before it, without end (10 MB a second at most)
  garbage   bytes that are not a nettrace stream, then silence
  empty     hangs up right after its OK
  flood     a valid header and Trace object, then StackBlocks of 1 MB as fast
            as the socket takes them, without end
  escapes   ProcessInfo2 with escape sequences in the runtime version and
            command line (for `ps`); streams like sortbomb
  mute      accepts every connection, reads its request and never answers
            (a hung runtime): the client's own timeout must end the wait
With FAKE_RUNTIME_LOG=FILE it appends every request it gets to FILE, one
line each: command set, command id and the payload, in hex
(tests/tracer/collect_request_test.py).
It exits on SIGTERM (tests stop it by pid), removing its socket.
"""
import os
import signal
import socket
import struct
import sys
import threading
import time

MODE, READY = sys.argv[1:3]
HERE = os.path.dirname(os.path.abspath(__file__))


def u16z(s):
    return s.encode('utf-16le') + b'\0\0'


def ipc_string(s):
    u = u16z(s)
    return struct.pack('<I', len(u) // 2) + u


def header(size, set_, id_):
    return b'DOTNET_IPC_V1\0' + struct.pack('<HBBH', size, set_, id_, 0)


def ok(payload):
    return header(20 + len(payload), 0xFF, 0) + payload


def varint(v):
    out = b''
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


class Stream:
    """A nettrace stream, written with its offsets (block bodies 4-byte aligned)."""
    def __init__(self):
        self.n = 0

    def put(self, conn, b):
        conn.sendall(b)
        self.n += len(b)

    def obj(self, name, version):
        n = name.encode()
        return b'\x05\x05\x01' + struct.pack('<iii', version, version, len(n)) + n + b'\x06'

    def block(self, conn, name, body):
        head = self.obj(name, 2) + struct.pack('<i', len(body))
        pad = (4 - (self.n + len(head)) % 4) % 4
        self.put(conn, head + b'\0' * pad + body + b'\x06')

    def start(self, conn):
        self.put(conn, b'Nettrace' + struct.pack('<i', 20) + b'!FastSerialization.1')
        self.put(conn, self.obj('Trace', 4) + struct.pack('<8h', 2024, 1, 2, 2, 3, 4, 5, 678) +
                 struct.pack('<qqiiii', 0, 10 ** 9, 8, os.getpid(), 2, 1000) + b'\x06')


def serve_stream(conn, stop):
    s = Stream()
    if MODE == 'empty':
        return
    if MODE == 'garbage':
        conn.sendall(b'this is not a nettrace stream at all\n' * 10)
        stop.wait(60)
        return
    s.start(conn)
    if MODE == 'flood':
        body = struct.pack('<ii', 1, 0) + bytes(1 << 20)
        while not stop.is_set():
            s.block(conn, 'StackBlock', body)
        return
    rec = (struct.pack('<i', 1) + u16z('Microsoft-Windows-DotNETRuntime') + struct.pack('<i', 3) + u16z('') +
           struct.pack('<qiii', 1, 1, 4, 0))
    s.block(conn, 'MetadataBlock', struct.pack('<hhqq', 20, 1, 0, 0) + b'\x80\x00' + varint(len(rec)) + rec)
    ts = 1 << 40
    seq = 0
    while not stop.is_set():
        # One block: 20,000 events, each 1 tick older than the one before, all IsSorted.
        first = bytes([0x01 | 0x02 | 0x04 | 0x80 | 0x40, 1]) + varint(seq) + bytes([9, 0, 9]) + varint(ts) + b'\x02'
        body = struct.pack('<hhqq', 20, 1, 0, 0) + first + b'\x03\x00' + \
            (bytes([0x40]) + varint((1 << 64) - 1) + b'\x03\x00') * 19999
        ts -= 20000
        seq += 20000
        s.block(conn, 'EventBlock', body)
        time.sleep(0.1)


def main():
    tmp = os.environ.get('TMPDIR') or '/tmp'
    # The key is the process's start time (field 22 of /proc/PID/stat), as the runtime names it.
    with open('/proc/self/stat') as f:
        start = f.read().rsplit(')', 1)[1].split()[19]
    path = os.path.join(tmp, 'dotnet-diagnostic-%d-%s-socket' % (os.getpid(), start))
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(8)
    stop = threading.Event()
    streams = []
    mute = []       # MODE mute: the connections it never answers, kept open

    def bye(*_):
        stop.set()
        try:
            os.unlink(path)
        finally:
            os._exit(0)
    signal.signal(signal.SIGTERM, bye)
    with open(READY + '.tmp', 'w') as f:
        f.write('%d\n' % os.getpid())
    os.rename(READY + '.tmp', READY)
    while True:
        conn, _ = srv.accept()
        h = conn.recv(20)
        if len(h) < 20:
            conn.close()
            continue
        size, set_, id_ = struct.unpack_from('<HBB', h, 14)
        rest, body = size - 20, b''
        while rest > 0:
            got = conn.recv(rest)
            if not got:
                break
            rest -= len(got)
            body += got
        if os.environ.get('FAKE_RUNTIME_LOG'):
            with open(os.environ['FAKE_RUNTIME_LOG'], 'a') as f:
                f.write('%02x %02x %s\n' % (set_, id_, body.hex()))
        if MODE == 'mute':
            mute.append(conn)
            continue
        if set_ == 0x04:      # ProcessInfo / ProcessInfo2
            version = '\x1b]0;pwned\x07\x1b[2J8.0.1' if MODE == 'escapes' else '8.0.1+abcdef'
            cmd = '/usr/bin/dotnet \x1b[31mapp.dll' if MODE == 'escapes' else '/usr/bin/dotnet app.dll'
            payload = (struct.pack('<Q', os.getpid()) + bytes(16) + ipc_string(cmd) + ipc_string('Linux') +
                       ipc_string('x64') + ipc_string('app'))
            if id_ == 0x04:
                payload += ipc_string(version)
            conn.sendall(ok(payload))
            conn.close()
        elif set_ == 0x02 and id_ == 0x01:   # StopTracing
            conn.sendall(ok(struct.pack('<Q', 1)))
            conn.close()
            stop.set()
            for c in streams:
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        elif set_ == 0x02:                   # CollectTracing*
            conn.sendall(ok(struct.pack('<Q', 1)))
            streams.append(conn)

            def run(c=conn):
                try:
                    serve_stream(c, stop)
                except OSError:
                    pass
                try:
                    c.close()
                except OSError:
                    pass
            threading.Thread(target=run, daemon=True).start()
        else:
            conn.sendall(header(24, 0xFF, 0xFF) + struct.pack('<I', 0x80131385))
            conn.close()


main()
