"""top_live_common.py — helpers shared by the live `gcscope top` tests:
the relayd port, a relayd of the test's own, reading top's screen.

Every process started here is stopped by its PID.
"""
import os
import re
import signal
import socket
import subprocess
import time

LIVE_PORT = 5344


def port_open(port=LIVE_PORT):
    s = socket.socket()
    try:
        s.settimeout(0.5)
        s.connect(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def wait_port_free(timeout=90.0):
    """Wait (up to timeout) for another user's relayd to go away: other
    engineers' LTTng tests hold one for a few seconds at a time. True when
    the port is free."""
    deadline = time.time() + timeout
    while port_open():
        if time.time() > deadline:
            return False
        time.sleep(0.5)
    return True


class Relayd:
    """lttng-relayd -o OUT_DIR, started only when the live port is free;
    .ours says whether it was. stop() ends it by its PID."""

    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.proc = None
        if not wait_port_free():
            return
        self.proc = subprocess.Popen(["lttng-relayd", "-o", out_dir], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        for _ in range(200):
            if port_open():
                break
            if self.proc.poll() is not None:      # lost a race for the port
                self.proc = None
                return
            time.sleep(0.05)

    @property
    def ours(self):
        return self.proc is not None

    def stop(self):
        if self.proc is None:
            return
        os.kill(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


def stable_screen(s, needle, settle=1.5, timeout=20):
    """The screen once needle is shown and the header stopped changing."""
    s.wait_for(needle, timeout=timeout)
    prev = None
    deadline = time.time() + timeout
    while time.time() < deadline:
        t = s.text()
        head = "\n".join(t.split("\n")[1:4])
        if head == prev:
            return t
        prev = head
        time.sleep(settle)
    return s.text()


def header_figures(t):
    """From top's main screen: (counts per generation (0, 1, 2), (BGC, FGC)
    counts, max pause ms, (last GC number, Gen, pause ms or None), table
    rows as [(GC number, Gen, pause ms or None)] top to bottom)."""
    m = re.search(r"GCs 0:(\d+) 1:(\d+) 2:(\d+) \(BGC (\d+), FGC (\d+)\)", t)
    counts = tuple(int(x) for x in m.groups()[:3]) if m else None
    bf = tuple(int(x) for x in m.groups()[3:]) if m else None
    m = re.search(r"max pause ([0-9.]+) ms", t)
    maxp = float(m.group(1)) if m else None
    m = re.search(r"last GC #(\d+) (\w+) \w+, pause ([0-9.]+|unknown) ms", t)
    last = (int(m.group(1)), m.group(2), None if m.group(3) == "unknown" else float(m.group(3))) if m else None
    rows = []
    for m in re.finditer(r"^\s*(\d+)\??\s+\d+\.\d+ (\w+)\s+\w+\s+\S+\s+(\S+) ", t, re.M):
        rows.append((int(m.group(1)), m.group(2), None if m.group(3) == "unknown" else float(m.group(3))))
    return counts, bf, maxp, last, rows


def remove_command_output(t):
    """Delete the COMMAND output file top names on its status line."""
    m = re.search(r"output in (\S+\.out)\)", t)
    if m and os.path.basename(m.group(1)).startswith("gcscope-top-"):
        try:
            os.unlink(m.group(1))
        except OSError:
            pass


def lttng(*args):
    return subprocess.run(["lttng"] + list(args), capture_output=True, text=True)
