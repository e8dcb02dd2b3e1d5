#!/usr/bin/env python3
"""process_name.py GCSCOPE NETTRACE TMP — a .nettrace names no process: the
import names it as the kernel would (/proc/PID/comm), after the program of its
command line, cut to 15 bytes.

NETTRACE is tests/dotnet/fixtures/gcprog-alloc.nettrace, recorded from
`/usr/share/dotnet/dotnet .../gcprog.dll alloc`. Its ProcessInfo command line
(the event's last string) is replaced, padded with NULs after the terminator
so that the payload keeps its size, by a quoted Windows program and by a long
program name; the expected names are written out by hand below."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish, nettrace_with_string  # noqa: E402

GCSCOPE, TRACE, TMP = sys.argv[1:4]
ORIG = "/usr/share/dotnet/dotnet /work/wt/ipc/build/tests/dotnet/gcprog/bin/gcprog.dll alloc"
CASES = [
    ("linux", ORIG, "dotnet"),
    ("windows", '"C:\\Program Files\\dotnet\\dotnet.exe" gcprog.dll alloc', "dotnet.exe"),
    ("long", "/srv/app/bin/Contoso.OrderProcessingService --port 80", "Contoso.OrderPr"),
    ("bare", "gcprog", "gcprog"),
]
data = open(TRACE, "rb").read()
os.makedirs(TMP, exist_ok=True)
for label, cmd, want in CASES:
    f = nettrace_with_string(data, ORIG + "\0", cmd + "\0", os.path.join(TMP, "name-%s.nettrace" % label))
    db = f + ".db"
    if os.path.exists(db):
        os.unlink(db)
    p = subprocess.run([GCSCOPE, "import", "-q", "-d", db, f], capture_output=True, text=True)
    check(p.returncode == 0, "%s: import: %s" % (label, p.stderr.strip()))
    q = subprocess.run([GCSCOPE, "sql", db, "SELECT name, command_line FROM processes", "--csv"],
                       capture_output=True, text=True)
    rows = q.stdout.strip().splitlines()[1:]
    check(len(rows) == 1 and rows[0].split(",")[0] == want, "%s: name %r, expected %r" % (label, rows, want))
    s = subprocess.run([GCSCOPE, "stats", db], capture_output=True, text=True)
    check(s.returncode == 0 and ("GC Stats for Process " in s.stdout) and (": %s\n" % want) in s.stdout,
          "%s: stats names the process %s: %r" % (label, want, s.stdout[:120]))
sys.exit(finish())
