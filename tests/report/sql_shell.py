#!/usr/bin/env python3
"""sql_shell.py GCSCOPE TRACE TMP — `gcscope sql DB` on a terminal (a pty).

Line editing: "SELEC 5;" then Left three times, "T", Enter gives 5; Up
brings back the last line (5 again); Ctrl-C abandons a line and the shell
goes on; an error leaves the shell running; Ctrl-D ends it with exit 0; the
history is written to $HOME/.gcscope_history and read back by the next
shell (Up, Enter: the query before the exit).
"""
import os
import pty
import select
import subprocess
import sys
import time

GCSCOPE, TRACE, TMP = sys.argv[1:4]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402

T = Checker(GCSCOPE)
os.makedirs(TMP, exist_ok=True)
db = TMP + "/q.db"
if os.path.exists(db):
    os.unlink(db)
hist = TMP + "/.gcscope_history"
if os.path.exists(hist):
    os.unlink(hist)
rc, out, err = T.run("import", "-q", "-d", db, TRACE)
T.check(rc == 0, "import")


def shell():
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["HOME"] = TMP
        os.environ["TERM"] = "xterm"
        os.execv(GCSCOPE, [GCSCOPE, "sql", db, "--csv"])
    return pid, fd


def read_until(fd, needle, timeout=10, then_prompt=True):
    """Output up to needle and the next prompt: keys are sent only once the
    shell reads again (its terminal is in raw mode then)."""
    buf = b""
    end = time.time() + timeout
    while time.time() < end and (needle not in buf or (then_prompt and
                                                       b"gcscope> " not in buf[buf.find(needle) + len(needle):])):
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                buf += os.read(fd, 4096)
            except OSError:
                break
    return buf


pid, fd = shell()
read_until(fd, b"gcscope> ", then_prompt=False)
os.write(fd, b"SELEC 5 AS v;" + b"\x1b[D" * 8 + b"T\r")
got = read_until(fd, b"v\r\n5\r\n")
T.check(b"v\r\n5\r\n" in got, "edited line runs: SELECT 5 (%r)" % got[-120:])
os.write(fd, b"\x1b[A\r")
got = read_until(fd, b"v\r\n5\r\n")
T.check(b"v\r\n5\r\n" in got and b"SELECT 5 AS v;" in got, "Up recalls the line (%r)" % got[-120:])
os.write(fd, b"garbage here\x03")
got = read_until(fd, b"^C")
T.check(b"^C" in got, "Ctrl-C abandons the line")
os.write(fd, b"SELECT nosuchcolumn FROM gcs;\r")
got = read_until(fd, b"no such column")
T.check(b"no such column" in got, "an error is reported and the shell goes on")
os.write(fd, b"SELECT count(*) AS n FROM gcs;\r")
got = read_until(fd, b"n\r\n478\r\n")
T.check(b"n\r\n478\r\n" in got, "a query after the error runs (478 GCs)")
os.write(fd, b"\x04")
_, status = os.waitpid(pid, 0)
T.check(os.WIFEXITED(status), "Ctrl-D ends the shell")
lines = open(hist).read().splitlines() if os.path.exists(hist) else []
T.check(lines[-2:] == ["SELECT nosuchcolumn FROM gcs;", "SELECT count(*) AS n FROM gcs;"],
        "history written (%s)" % lines[-3:])
pid, fd = shell()
read_until(fd, b"gcscope> ", then_prompt=False)
os.write(fd, b"\x1b[A\r")
got = read_until(fd, b"n\r\n478\r\n")
T.check(b"n\r\n478\r\n" in got, "the next shell reads the history back")
os.write(fd, b"\x04")
os.waitpid(pid, 0)
# Dot-commands as the argument, as `sqlite3 DB ".tables"` (issue 29, item 9).
rc, out, err = T.run("sql", db, ".tables", "--csv")
names = [l.split(",")[0] for l in out.splitlines()[1:]]
T.check(rc == 0 and "gcs" in names and "gc_pauses" in names and "traces" in names,
        "sql DB .tables: %d %r" % (rc, names[:5]))
rc, out, err = T.run("sql", db, ".schema traces")
T.check(rc == 0 and out.startswith("CREATE TABLE traces ("), "sql DB '.schema traces': %r" % out[:40])
rc, out, err = T.run("sql", db, ".nosuch")
T.check(rc == 1 and out == "" and err.count("\n") == 1 and ".nosuch" in err, "unknown dot-command: %r" % err)
sys.exit(T.done())
