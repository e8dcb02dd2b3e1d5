#!/usr/bin/env python3
"""packed.py GCSCOPE TRACE TMP — .nettrace.gz and .nettrace.zip, and zip limits.

- the real .NET Core 3.0 trace gzip'ed and zipped imports to exactly the GCs of
  the plain file (per generation, complete, total pause), with the archive's
  name in traces.path; the zip of an already imported trace adds nothing;
- a .gz cut short imports the whole blocks it holds, with the warning;
- a zip whose entries add up to more than GCSCOPE_ZIP_MAX_MB is refused before
  anything is written; an entry that inflates past its declared size (a
  forged header) is refused as corrupt; entries named ../x or /x are refused;
- a $TMPDIR that fills up (a 1 MB tmpfs, when this runs as root and may mount)
  is named "no space left on device";
- SIGTERM during an extraction leaves no temporary directory.
Each leaves the database without a trace and $TMPDIR without gcscope-zip-*.
"""
import glob
import gzip
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
import zipfile
import zlib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, TRACE, TMP = sys.argv[1:4]


def run(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([GCSCOPE] + args, capture_output=True, text=True, env=e)
    return p.returncode, p.stdout + p.stderr


def rows(db, q):
    rc, out = run(["sql", db, q, "--csv"])
    return [l.split(",") for l in out.strip().splitlines()[1:]]


def fresh(name):
    p = os.path.join(TMP, name)
    if os.path.exists(p):
        os.unlink(p)
    return p


shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
tmpdir = os.path.join(TMP, "tmpdir")
os.makedirs(tmpdir)
ENV = {"TMPDIR": tmpdir}
data = open(TRACE, "rb").read()
Q = "SELECT gen, count(*), sum(complete), round(sum(pause_msec), 6) FROM gcs GROUP BY gen ORDER BY gen"

plain = fresh("plain.db")
rc, out = run(["import", "-d", plain, TRACE])
check(rc == 0, "the plain file imports")
want = rows(plain, Q)

gz = os.path.join(TMP, "t.nettrace.gz")
with gzip.open(gz, "wb") as f:
    f.write(data)
db = fresh("gz.db")
rc, out = run(["import", "-d", db, gz], ENV)
print(out)
check(rc == 0, ".gz imports")
check(rows(db, Q) == want, ".gz: the same GCs as the plain file")
check(rows(db, "SELECT path, truncated_at FROM traces") == [[gz, ""]], ".gz: traces.path is the .gz, not truncated")

zp = os.path.join(TMP, "t.nettrace.zip")
with zipfile.ZipFile(zp, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("dir/app.nettrace", data)
db = fresh("zip.db")
rc, out = run(["import", "-d", db, zp], ENV)
print(out)
check(rc == 0, ".zip imports")
check(rows(db, Q) == want, ".zip: the same GCs as the plain file")
check(rows(db, "SELECT path FROM traces") == [[zp]], ".zip: traces.path is the zip")
rc, out = run(["import", "-d", plain, zp], ENV)
check(rc == 0 and "already imported" in out, "the zip of an imported trace adds nothing (%s)" % out.strip())

cutgz = os.path.join(TMP, "cut.nettrace.gz")
open(cutgz, "wb").write(open(gz, "rb").read()[:len(open(gz, "rb").read()) // 2])
db = fresh("cutgz.db")
rc, out = run(["import", "-d", db, cutgz], ENV)
print(out)
check(rc == 0, "a .gz cut short imports (exit %d)" % rc)
check("warning: %s (uncompressed): truncated at byte" % cutgz in out, "a .gz cut short: the warning (an offset in the uncompressed stream)")
n = rows(db, "SELECT count(*) FROM gcs")
check(n and 0 < int(n[0][0]) < sum(int(r[1]) for r in want), "a .gz cut short: part of the GCs (%s)" % n)

# Over the limit: refused before writing.
db = fresh("limit.db")
rc, out = run(["import", "-d", db, zp], dict(ENV, GCSCOPE_ZIP_MAX_MB="1"))
print(out)
check(rc != 0 and "expands to %.1f MB, more than the 1.0 MB allowed" % (len(data) / 1e6) in out,
      "over GCSCOPE_ZIP_MAX_MB: refused with the sizes")

# A forged central directory: the entry declares 1000 bytes, inflates to more.
bomb = os.path.join(TMP, "forged.zip")
with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("a.nettrace", b"\0" * 10000000)
b = bytearray(open(bomb, "rb").read())
cd = b.rfind(b"PK\x01\x02")
struct.pack_into("<I", b, cd + 24, 1000)
lh = b.find(b"PK\x03\x04")
struct.pack_into("<I", b, lh + 22, 1000)
open(bomb, "wb").write(b)
db = fresh("forged.db")
rc, out = run(["import", "-d", db, bomb], ENV)
print(out)
check(rc != 0 and 'corrupt or truncated entry "a.nettrace"' in out, "an entry inflating past its size: corrupt")
check(os.path.getsize(os.path.join(tmpdir)) >= 0 and not glob.glob(tmpdir + "/gcscope-zip-*"),
      "no temporary directory left")

for name in ("../evil.nettrace", "/abs.nettrace"):
    ev = os.path.join(TMP, "evil.zip")
    with zipfile.ZipFile(ev, "w") as z:
        z.writestr(zipfile.ZipInfo(name), b"x")
    rc, out = run(["import", "-d", fresh("evil.db"), ev], ENV)
    check(rc != 0 and 'unsafe entry name "%s"' % name in out, "entry %s refused" % name)

# A full $TMPDIR.
small = os.path.join(TMP, "small")
os.makedirs(small)
if os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", small],
                                        capture_output=True).returncode == 0:
    try:
        rc, out = run(["import", "-d", fresh("full.db"), zp], {"TMPDIR": small})
        print(out)
        check(rc != 0 and "no space left on device while extracting into %s/gcscope-zip-" % small in out,
              "a full TMPDIR is named as such")
        check(os.listdir(small) == [], "a full TMPDIR: the temporary directory is removed")
    finally:
        subprocess.run(["umount", small])
else:
    print("NOT CHECKED: a full TMPDIR (needs root to mount a small tmpfs)")

# SIGTERM while a large zip is extracted: the temporary directory goes too.
big = os.path.join(TMP, "big.zip")
with zipfile.ZipFile(big, "w", zipfile.ZIP_STORED) as z:
    for i in range(40):
        z.writestr("d/chunk%02d" % i, os.urandom(5000000))
e = dict(os.environ, TMPDIR=tmpdir)
p = subprocess.Popen([GCSCOPE, "import", "-d", fresh("term.db"), big], env=e, stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True)
deadline = time.time() + 20
while time.time() < deadline and not glob.glob(tmpdir + "/gcscope-zip-*/d/chunk01"):
    time.sleep(0.005)
p.send_signal(signal.SIGTERM)
out = p.communicate(timeout=60)[0]
print(out)
check(p.returncode != 0 and "interrupted" in out, "SIGTERM: the import stops, said so")
check(not glob.glob(tmpdir + "/gcscope-zip-*"), "SIGTERM: no temporary directory left")
print("%d failed" % failed())
sys.exit(1 if failed() else 0)
