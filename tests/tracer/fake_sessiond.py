#!/usr/bin/env python3
"""fake_sessiond.py SOCKET READY_FILE LOG — a session daemon that hangs: it
listens on SOCKET (an LTTng client socket path, mode 0666), accepts every
connection and never answers, as a deadlocked lttng-sessiond does (the kernel
accepts, nobody replies). For each connection that sends a request it appends
one line to LOG: the connection's number and the request's command type (the
first 32-bit little-endian word of liblttng-ctl's request header,
lttcomm_session_msg.cmd_type). It writes READY_FILE with its pid once it
listens, and exits on SIGTERM (tests stop it by pid), removing SOCKET.

fake_sessiond.py SOCKET READY_FILE LOG HANG_AT — a session daemon that
answers, then hangs: every request before the first of command type HANG_AT
gets liblttng-ctl's success reply (lttcomm_lttng_msg: cmd_type, ret_code =
LTTNG_OK 10, pid, cmd_header_size, data_size, fd_count, six 32-bit words, then
data_size bytes); from that request on it never answers, as a daemon that
deadlocks mid-session does. Each request is on its own connection
(lttng-ctl.c: connect_sessiond per request). The replies that carry data:
LTTNG_CREATE_SESSION_EXT (49) returns the session descriptor it was sent
(the bytes after the fixed-size request, whose size is that of the first
request, LTTNG_LIST_SESSIONS, which has none), PROCESS_ATTR_TRACKER_GET_POLICY
(34) a 32-bit policy (1, include all), LTTNG_DATA_PENDING (24) one byte 0;
LTTNG_LIST_SESSIONS answers an empty list.

fake_sessiond.py SOCKET READY_FILE LOG pending — that daemon, never
hanging, but answering LTTNG_DATA_PENDING with one byte 1 (data pending) for
ever: a consumer that never finishes writing.

fake_sessiond.py SOCKET READY_FILE LOG full — a daemon whose listen queue is
full: listen(fd, 0), one filler connection of its own in the queue (Linux
refuses a unix connection while the queue holds more than the backlog), and it
never accepts: a client's blocking connect() waits, its non-blocking one fails
with EAGAIN. It logs nothing (no request arrives).

fake_sessiond.py SOCKET READY_FILE LOG full-after=CMD — answers like the
second form until it has a request of command type CMD; before replying to
that one it stops accepting and fills its queue as above, so the client's
next connection waits in connect().

fake_sessiond.py SOCKET READY_FILE LOG notif-partial|notif-garbage — answers
like the "pending" form (data never pending), and also serves the
notification channel of triggers on SOCKET's directory's
sessiond-notification (lttng-tools 2.13's channel protocol: messages of a
packed header, int8 type, uint32 payload size, uint32 fd count, then the
payload; the handshake (type 0) gets a handshake of version 1.0 and a command
reply (type 3, one status byte 0, OK), as does each subscribe (1) and
unsubscribe (2)). LTTNG_REGISTER_TRIGGER (43) returns the trigger it was sent;
LTTNG_DESTROY_SESSION (9) a completed destruction (a 4-byte command header,
rotation state 0, none). Once the client subscribed to NSUBS (6) conditions,
the channel gets, and nothing more after it: notif-partial, the header of a
notification (type 4) announcing 100 bytes and 10 of them; notif-garbage, a
message of type 7 (no such type) with a 4-byte payload. Every message it
reads on the channel is logged as "nN TYPE".
"""
import os
import select
import signal
import socket
import struct
import sys
import threading
import time

SOCK, READY, LOG = sys.argv[1:4]
MODE = sys.argv[4] if len(sys.argv) > 4 else ""
HANG_AT = int(MODE) if MODE.isdigit() else None
FULL_AFTER = int(MODE.split("=")[1]) if MODE.startswith("full-after=") else None
PENDING = MODE == "pending"
NOTIF = MODE if MODE.startswith("notif-") else None
NSUBS = 6
REGISTER_TRIGGER, DESTROY_SESSION = 43, 9
LIST_SESSIONS, CREATE_SESSION_EXT, DATA_PENDING, GET_POLICY = 13, 49, 24, 34
LTTNG_OK = 10
lock = threading.Lock()
held = []
hanging = [HANG_AT is None and not PENDING and not NOTIF and FULL_AFTER is None]
full = [False]
fillers = []
lsm_size = [None]


def recv_exactly(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def recv_idle(conn, secs):
    """Whatever arrives until secs pass without a byte (the client sends a
    request at once, then waits for the reply)."""
    data = b""
    conn.settimeout(secs)
    try:
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
    except socket.timeout:
        pass
    conn.settimeout(None)
    return data


def reply(conn, cmd, payload=b"", cmd_header=b""):
    conn.sendall(struct.pack("<6I", cmd, LTTNG_OK, 0, len(cmd_header), len(payload), 0) + cmd_header + payload)


def notif_serve(conn, n):
    subs = 0
    while True:
        hdr = recv_exactly(conn, 9)
        if len(hdr) < 9:
            return
        typ, size, _fds = struct.unpack("=bII", hdr)
        recv_exactly(conn, size)
        with lock:
            with open(LOG, "a") as f:
                f.write("n%d %d\n" % (n, typ))
        if typ == 0:   # handshake: ours (1.0), then the command reply
            conn.sendall(struct.pack("=bII", 0, 2, 0) + bytes([1, 0]))
        if typ in (0, 1, 2):
            conn.sendall(struct.pack("=bII", 3, 1, 0) + b"\0")
        if typ == 1:
            subs += 1
            if subs == NSUBS:
                if NOTIF == "notif-partial":
                    conn.sendall(struct.pack("=bII", 4, 100, 0) + b"\0" * 10)
                else:
                    conn.sendall(struct.pack("=bII", 7, 4, 0) + b"\0" * 4)


def notif_server():
    path = os.path.join(os.path.dirname(SOCK), "sessiond-notification")
    ns = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ns.bind(path)
    os.chmod(path, 0o666)
    ns.listen(8)
    n = 0
    while True:
        conn, _ = ns.accept()
        n += 1
        held.append(conn)
        threading.Thread(target=notif_serve, args=(conn, n), daemon=True).start()


def serve(conn, n):
    data = recv_exactly(conn, 4 if hanging[0] or lsm_size[0] is None else lsm_size[0])
    if len(data) < 4:
        return
    if lsm_size[0] is None and not hanging[0]:
        data += recv_idle(conn, 0.2)   # the first request, LIST_SESSIONS, has no payload
    cmd = struct.unpack("<I", data[:4])[0]
    with lock:
        with open(LOG, "a") as f:
            f.write("%d %d\n" % (n, cmd))
        if HANG_AT is not None and cmd == HANG_AT:
            hanging[0] = True
        hang = hanging[0]
        if cmd == LIST_SESSIONS and lsm_size[0] is None:
            lsm_size[0] = len(data)
    if hang:
        return  # never answer; keep the connection open until the peer goes
    if FULL_AFTER is not None and cmd == FULL_AFTER:
        with lock:
            full[0] = True   # the accept loop takes no more connections
        fill()
    if cmd in (CREATE_SESSION_EXT, REGISTER_TRIGGER):
        reply(conn, cmd, recv_idle(conn, 0.2))
    elif cmd == DESTROY_SESSION and NOTIF:
        reply(conn, cmd, cmd_header=struct.pack("<i", 0))
    elif cmd == GET_POLICY:
        reply(conn, cmd, struct.pack("<I", 1))
    elif cmd == DATA_PENDING:
        reply(conn, cmd, b"\1" if PENDING else b"\0")
    else:
        reply(conn, cmd)


def stop(*_):
    try:
        os.unlink(SOCK)
        if NOTIF:
            os.unlink(os.path.join(os.path.dirname(SOCK), "sessiond-notification"))
    finally:
        os._exit(0)


def fill():
    """Backlog 0 and one connection of our own that nobody accepts."""
    s.listen(0)
    f = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    f.connect(SOCK)
    fillers.append(f)


signal.signal(signal.SIGTERM, stop)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(SOCK)
os.chmod(SOCK, 0o666)
s.listen(64)
if MODE == "full":
    fill()
if NOTIF:
    threading.Thread(target=notif_server, daemon=True).start()
    while not os.path.exists(os.path.join(os.path.dirname(SOCK), "sessiond-notification")):
        time.sleep(0.01)
with open(READY + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(READY + ".tmp", READY)
n = 0
while MODE != "full":
    if not select.select([s], [], [], 0.05)[0]:
        continue
    with lock:
        if full[0]:
            break
        conn, _ = s.accept()
    n += 1
    held.append(conn)
    threading.Thread(target=serve, args=(conn, n), daemon=True).start()
while True:
    signal.pause()
