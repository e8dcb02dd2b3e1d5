#!/usr/bin/env python3
"""zip_sigint.py GCSCOPE NETTRACE TMP — Ctrl-C between the entries of a large zip.

A zip of 60,000 small stored entries (no one entry is long to write: the
extraction spends its time between entries, where gcs_zip.c checks the
cancel flag). `gcscope import` starts on it into a database that already
holds one trace (NETTRACE); once its temporary directory
($TMPDIR/gcscope-zip-*) holds some entries, and fewer than all, SIGINT is
sent. The directory is listed until the process exits. Asserted:
- it exits within 2 s of the signal (here: about 0.02 s; extracting the
  whole zip takes seconds), with status 130 (import_cmd.c: 128 +
  SIGINT) and exactly the one line
  "gcscope import: interrupted; the trace being imported was rolled back";
- after the signal, at most 2,000 more entries appear (those written
  between the last listing and the signal's arrival; without the check
  between entries, all 60,000 would);
- $TMPDIR holds no gcscope-zip-* directory;
- the database file is byte for byte what it was before (sha256), so it
  still has exactly its one trace.
"""
import glob
import hashlib
import os
import signal
import subprocess
import sys
import time
import zipfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, NT, TMP = sys.argv[1:4]
ENTRIES = 60000
BOUND_S = 2.0
SLACK = 2000
os.makedirs(TMP, exist_ok=True)
tmpdir = os.path.join(TMP, "tmpdir")
os.makedirs(tmpdir, exist_ok=True)
for d in glob.glob(tmpdir + "/gcscope-zip-*"):
    subprocess.run(["rm", "-rf", d])
env = dict(os.environ, TMPDIR=tmpdir)

db = os.path.join(TMP, "t.db")
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(db + suffix):
        os.unlink(db + suffix)
p = subprocess.run([GCSCOPE, "import", "-q", "-d", db, NT], capture_output=True, text=True, env=env)
check(p.returncode == 0, "the first trace imports", p.stderr)


def digest():
    with open(db, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def traces():
    q = subprocess.run([GCSCOPE, "sql", db, "select count(*) from traces", "--csv"], capture_output=True, text=True)
    return q.stdout.strip().splitlines()[-1:]


before, traces_before = digest(), traces()
check(traces_before == ["1"], "the database holds one trace before", traces_before)

big = os.path.join(TMP, "many.zip")
if not os.path.exists(big):
    with zipfile.ZipFile(big + ".part", "w", zipfile.ZIP_STORED) as z:
        for i in range(ENTRIES):
            z.writestr("f%05d.txt" % i, b"entry %d\n" % i)
    os.rename(big + ".part", big)

proc = subprocess.Popen([GCSCOPE, "import", "-d", db, big], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True, env=env)
seen, deadline = 0, time.monotonic() + 60
while time.monotonic() < deadline and proc.poll() is None:
    dirs = glob.glob(tmpdir + "/gcscope-zip-*")
    if dirs:
        try:
            seen = len(os.listdir(dirs[0]))
        except FileNotFoundError:
            seen = 0
        if seen >= 200:
            break
    time.sleep(0.005)
check(proc.poll() is None and 200 <= seen < ENTRIES, "SIGINT is sent while the entries are extracted",
      "%d of %d entries written, exit %s" % (seen, ENTRIES, proc.poll()))
t0 = time.monotonic()
proc.send_signal(signal.SIGINT)
most = seen
while proc.poll() is None and time.monotonic() < t0 + 60:
    for d in glob.glob(tmpdir + "/gcscope-zip-*"):
        try:
            most = max(most, len(os.listdir(d)))
        except FileNotFoundError:
            pass
try:
    out, err = proc.communicate(timeout=60)
except subprocess.TimeoutExpired:
    proc.kill()
    out, err = proc.communicate()
took = time.monotonic() - t0
print("signal at %d of %d entries, at most %d after it; exit %d after %.3f s; stderr: %r"
      % (seen, ENTRIES, most, proc.returncode, took, err))
check(most <= seen + SLACK, "no more than %d entries written after SIGINT" % SLACK, "%d -> %d" % (seen, most))
check(took < BOUND_S, "the import stops within %.0f s of SIGINT" % BOUND_S, "%.3f s" % took)
check(proc.returncode == 130, "exit status 130 (interrupted)", proc.returncode)
check(err == "gcscope import: interrupted; the trace being imported was rolled back\n",
      "one line says it was interrupted", err)
check(not glob.glob(tmpdir + "/gcscope-zip-*"), "no temporary directory left", os.listdir(tmpdir))
check(digest() == before, "the database file is unchanged")
check(traces() == traces_before, "the database still holds its one trace", traces())
print("%d failed" % failed())
sys.exit(1 if failed() else 0)
