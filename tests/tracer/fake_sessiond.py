#!/usr/bin/env python3
"""fake_sessiond.py SOCKET READY_FILE LOG — a session daemon that hangs: it
listens on SOCKET (an LTTng client socket path, mode 0666), accepts every
connection and never answers, as a deadlocked lttng-sessiond does (the kernel
accepts, nobody replies). For each connection that sends a request it appends
one line to LOG: the connection's number and the request's command type (the
first 32-bit little-endian word of liblttng-ctl's request header,
lttcomm_session_msg.cmd_type). It writes READY_FILE with its pid once it
listens, and exits on SIGTERM (tests stop it by pid), removing SOCKET.
"""
import os
import signal
import socket
import struct
import sys
import threading

SOCK, READY, LOG = sys.argv[1:4]
lock = threading.Lock()
held = []


def serve(conn, n):
    data = b""
    while len(data) < 4:
        chunk = conn.recv(4 - len(data))
        if not chunk:
            return
        data += chunk
    with lock:
        with open(LOG, "a") as f:
            f.write("%d %d\n" % (n, struct.unpack("<I", data)[0]))
    # never answer; keep the connection open until the peer goes


def stop(*_):
    try:
        os.unlink(SOCK)
    finally:
        os._exit(0)


signal.signal(signal.SIGTERM, stop)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(SOCK)
os.chmod(SOCK, 0o666)
s.listen(64)
with open(READY + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(READY + ".tmp", READY)
n = 0
while True:
    conn, _ = s.accept()
    n += 1
    held.append(conn)
    threading.Thread(target=serve, args=(conn, n), daemon=True).start()
