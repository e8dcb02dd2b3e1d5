#!/usr/bin/env python3
"""runtime_version.py GCSCOPE SMALL TMP — processes.runtime_version from RuntimeInformation.

tests/nettrace/corpus/valid-small.nettrace carries a RuntimeInformation event
whose RuntimeDllPath is /usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.1/
libcoreclr.so and whose VM version fields are 8.0.1.0. The path is replaced
(padded with NULs to the same length, so the payload stays valid) by a Windows path and by a
self-contained app's path: the version comes from the Windows path's
directory, and from the event's version fields when the path has none.
"""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import nettrace_with_string  # noqa: E402

GCSCOPE, SMALL, TMP = sys.argv[1:4]
ORIG = "/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.1/libcoreclr.so"
CASES = [
    ("linux", ORIG, "8.0.1"),
    ("windows", "C:\\dotnet\\shared\\Microsoft.NETCore.App\\8.0.1\\coreclr.dll", "8.0.1"),
    ("self-contained", "/srv/app/bin/libcoreclr.so", "8.0.1.0 (runtime file version)"),
]
data = open(SMALL, "rb").read()
os.makedirs(TMP, exist_ok=True)
fails = 0
for label, path, want in CASES:
    f = nettrace_with_string(data, ORIG, path, os.path.join(TMP, "rv-%s.nettrace" % label))
    db = f + ".db"
    if os.path.exists(db):
        os.unlink(db)
    p = subprocess.run([GCSCOPE, "import", "-q", "-d", db, f], capture_output=True, text=True)
    q = subprocess.run([GCSCOPE, "sql", db, "SELECT runtime_version FROM processes", "--csv"], capture_output=True,
                       text=True)
    got = q.stdout.strip().splitlines()[1:] if q.returncode == 0 else [q.stderr]
    ok = p.returncode == 0 and got == [want]
    print("%s: %s (want %s)%s" % (label, got, want, "" if ok else "  FAIL " + p.stderr))
    fails += not ok
sys.exit(1 if fails else 0)
